#include "services/controller/controller.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

namespace limbic::controller {
namespace {

using geometry::kPi;
using geometry::Vec2;

TEST(ControllerTest, NoGoalCommandsZeroButKeepsObstacleField) {
  Controller ctrl;
  const std::vector<Vec2> points = {{1.0, 0.0}};
  ControllerInputs in;
  in.odometry.v = 0.4;
  in.obstacle_points = points;
  const ControllerOutput& out = ctrl.Tick(in, ControlParameters{});
  EXPECT_FALSE(out.active);
  EXPECT_DOUBLE_EQ(out.command.v, 0.0);
  EXPECT_DOUBLE_EQ(out.command.omega, 0.0);
  ASSERT_EQ(out.directional.sensor_distance.size(), 50u);
  EXPECT_NEAR(out.directional.sensor_distance[25], 0.65,
              1e-12);                  // the danger stimulus still has its input
  EXPECT_FALSE(ctrl.state().started);  // no wander draw, no θ_T(prev) yet
}

// Issue 15: a NaN goal or pose must never become a wheel command. The robot stops, the state is
// kept, fault() says why, and the next good tick carries on as if nothing had happened.
TEST(ControllerTest, NonFiniteInputsStopTheRobotAndKeepTheState) {
  Controller ctrl, clean;
  ControllerInputs in;
  in.goal = Vec2(2.0, 1.0);
  in.odometry.v = 0.3;
  for (int k = 0; k < 3; ++k) {
    in.time = 0.1 * k;
    ctrl.Tick(in, ControlParameters{});
    clean.Tick(in, ControlParameters{});
  }
  for (int variant = 0; variant < 3; ++variant) {
    ControllerInputs bad = in;
    const std::vector<Vec2> nan_point = {{std::nan(""), 1.0}};
    if (variant == 0) bad.goal = Vec2(std::nan(""), 1.0);
    if (variant == 1) bad.odometry.pose.theta = std::numeric_limits<double>::infinity();
    if (variant == 2) bad.obstacle_points = nan_point;
    const ControllerOutput& out = ctrl.Tick(bad, ControlParameters{});
    EXPECT_EQ(out.command.v, 0.0) << variant;
    EXPECT_EQ(out.command.omega, 0.0) << variant;
    EXPECT_FALSE(ctrl.fault().empty()) << variant;
  }
  EXPECT_NE(ctrl.fault().find("obstacle points not finite"), std::string::npos) << ctrl.fault();
  in.time = 0.3;
  const VelocityCommand expected = clean.Tick(in, ControlParameters{}).command;
  const VelocityCommand got = ctrl.Tick(in, ControlParameters{}).command;
  EXPECT_EQ(got.v, expected.v);
  EXPECT_EQ(got.omega, expected.omega);
  EXPECT_EQ(ctrl.fault(), "");
}

TEST(ControllerTest, EmptyWorldFollowsPathLookAhead) {
  Controller ctrl;
  PlannedPath path;
  path.success = true;
  path.nodes = {{0, 0}, {0, 0.5}, {0, 1.0}, {0.5, 1.0}, {2.0, 1.0}};
  ControllerInputs in;
  in.path = &path;
  in.goal = Vec2(2.0, 1.0);
  const ControllerOutput& out = ctrl.Tick(in, ControlParameters{});
  EXPECT_TRUE(out.active);
  // Look-ahead d_L = 0.7: node 2 (0, 1) at bearing π/2; θ_T is the candidate nearest to it.
  EXPECT_EQ(out.directional.look_ahead.target_index, 2);
  EXPECT_LE(geometry::AngleDistance(out.directional.target_heading, kPi / 2), kPi / 50 + 1e-12);
  // At rest facing +x, the velocity layer turns left as fast as the window allows.
  EXPECT_NEAR(out.command.omega, 0.1 * kPi, 1e-12);
  EXPECT_EQ(out.command.v, out.velocity.command.v);
  // A failed plan is treated as no path: the directional layer follows the goal bearing.
  path.success = false;
  const ControllerOutput& out2 = ctrl.Tick(in, ControlParameters{});
  EXPECT_EQ(out2.directional.look_ahead.target_index, -1);
  EXPECT_NEAR(out2.directional.path_bearing, std::atan2(1.0, 2.0), 1e-12);
}

TEST(ControllerTest, BoxedInStops) {
  std::vector<Vec2> ring;
  for (int i = 0; i < 36; ++i) ring.push_back(0.3 * geometry::UnitVector(i * kPi / 18));
  Controller ctrl;
  ControllerInputs in;
  in.obstacle_points = ring;
  in.goal = Vec2(5, 0);
  const ControllerOutput& out = ctrl.Tick(in, ControlParameters{});
  EXPECT_DOUBLE_EQ(out.command.v, 0.0);
  for (double d : out.directional.sensor_distance) EXPECT_DOUBLE_EQ(d, 0.0);  // inside the obstacle circles
}

TEST(ControllerTest, MapPointsReachTheVelocityLayer) {
  geometry::GridSpec spec{Vec2(-1.75, -1.75), 0.35, 10, 10};
  std::vector<double> p_o(100, 0.2);
  p_o[spec.Index(spec.CellOf({0.5, 0.0}))] = 0.9;  // centre (0.525, 0.175)
  ControlParameters p;
  p.w_v2 = 0.9;
  ControllerInputs in;
  in.odometry.v = 0.5;
  in.map = GridView{spec, p_o, {}};
  in.goal = Vec2(5, 0);
  Controller ctrl;
  const ControllerOutput& out = ctrl.Tick(in, p);
  ASSERT_EQ(out.directional.map_points.size(), 1u);
  // Centre candidate (0.5, 0): straight segment (0.05, 0) → (0.5, 0); the point is 0.175 + ...
  // away.
  const int centre = 4 * 9 + 4;
  EXPECT_NEAR(out.velocity.map_distance[centre], std::hypot(0.025, 0.175), 1e-12);
  EXPECT_LT(out.velocity.map_avoidance[centre], 0.05);
  EXPECT_DOUBLE_EQ(out.velocity.sensor_avoidance[centre], 1.0);
}

TEST(ControllerTest, RunsAreReproducibleAndStateReplays) {
  ControlParameters p;
  p.w_theta5 = 0.5;
  p.w_theta6 = 0.75;
  ControllerOptions options;
  options.directional.wander_seed = 99;
  Controller a(options), b(options);
  const std::vector<Vec2> points = {{1.5, 0.3}, {1.5, -0.2}, {-0.5, 1.0}};
  ControllerInputs in;
  in.obstacle_points = points;
  in.goal = Vec2(6, 2);
  std::vector<OdometryEstimate> odometry(1);
  std::vector<VelocityCommand> commands;
  DirectionalState saved;
  for (int tick = 0; tick < 400; ++tick) {
    in.time = tick * 0.1;
    in.odometry = odometry.back();
    const ControllerOutput& oa = a.Tick(in, p);
    const ControllerOutput& ob = b.Tick(in, p);
    ASSERT_EQ(oa.command.v, ob.command.v);
    ASSERT_EQ(oa.command.omega, ob.command.omega);
    ASSERT_EQ(oa.directional.objective, ob.directional.objective);
    ASSERT_EQ(oa.velocity.objective, ob.velocity.objective);
    commands.push_back(oa.command);
    // Crude kinematics so the inputs change from tick to tick.
    OdometryEstimate next = odometry.back();
    next.pose = geometry::IntegrateArc(next.pose, oa.command.v, oa.command.omega, 0.1);
    next.v = oa.command.v;
    next.omega = oa.command.omega;
    odometry.push_back(next);
    if (tick == 199) saved = a.state();
  }
  EXPECT_EQ(a.state(), b.state());
  EXPECT_NE(saved, a.state());
  // A fresh controller given the state after tick 199 replays ticks 200..399 exactly.
  Controller c(options);
  c.set_state(saved);
  for (int tick = 200; tick < 400; ++tick) {
    in.time = tick * 0.1;
    in.odometry = odometry[tick];
    const ControllerOutput& oc = c.Tick(in, p);
    ASSERT_EQ(oc.command.v, commands[tick].v) << tick;
    ASSERT_EQ(oc.command.omega, commands[tick].omega) << tick;
  }
  EXPECT_EQ(c.state(), a.state());
}

}  // namespace
}  // namespace limbic::controller

namespace limbic::controller {
namespace {

// Closed loop with ideal kinematics (the command is executed exactly for T = 0.1 s): a wall of
// obstacle points lies across the straight line to the goal. The robot must go around it and reach
// the goal.
TEST(ControllerClosedLoopTest, DrivesAroundWallToGoal) {
  std::vector<Vec2> wall;
  for (int i = -6; i <= 6; ++i) wall.push_back({2.0, 0.1 * i});
  const Vec2 goal(4.0, 0.0);
  Controller ctrl;
  ControllerInputs in;
  in.obstacle_points = wall;
  in.goal = goal;
  OdometryEstimate odo;
  double closest_obstacle = 1e9;
  double min_goal_distance = 1e9;
  int tick = 0;
  for (; tick < 600 && min_goal_distance > 0.1; ++tick) {
    in.time = 0.1 * tick;
    in.odometry = odo;
    const ControllerOutput& out = ctrl.Tick(in, ControlParameters{});
    odo.pose = geometry::IntegrateArc(odo.pose, out.command.v, out.command.omega, 0.1);
    odo.v = out.command.v;
    odo.omega = out.command.omega;
    for (const Vec2& p : wall) closest_obstacle = std::min(closest_obstacle, (p - odo.pose.Position()).norm());
    min_goal_distance = std::min(min_goal_distance, (goal - odo.pose.Position()).norm());
  }
  EXPECT_LE(min_goal_distance, 0.1) << "after " << tick << " ticks";
  // At most 1 m/s with ±0.5 m/s² from rest: 4 m take at least 5 s (50 ticks); the detour takes
  // more.
  EXPECT_GT(tick, 50);
  EXPECT_LT(tick, 300);
  EXPECT_GT(closest_obstacle, 0.2);
}

}  // namespace
}  // namespace limbic::controller
