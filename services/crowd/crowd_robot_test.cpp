#include "services/crowd/crowd_robot.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "common/geometry/geometry.hpp"
#include "services/crowd/shipped_table.hpp"

namespace limbic::crowd {
namespace {

using geometry::kNaN;

Neighbour At(double x, double y, double vx = 0, double vy = 0) { return {{x, y}, {vx, vy}, 0.35, 0}; }

TEST(NeighbourMemory, KeepsANeighbourThatLeftTheViewForItsDurationMovedOnWithItsLastVelocity) {
  NeighbourMemory memory(1.0);
  std::vector<Neighbour> out;
  const std::vector<Neighbour> seen{At(2, 0, 0.5, 0)};
  EXPECT_EQ(memory.Update(0.0, std::vector<int>{3}, seen, &out), 0);
  EXPECT_TRUE(out.empty());
  EXPECT_EQ(memory.Update(0.5, {}, {}, &out), 1);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_NEAR(out[0].position.x(), 2.25, 1e-12);  // 0.5 s at 0.5 m/s
  EXPECT_EQ(out[0].velocity, Vec2(0.5, 0));
  EXPECT_EQ(out[0].radius, 0.35);
  out.clear();
  // Seen again: it is in view, not remembered twice.
  EXPECT_EQ(memory.Update(0.6, std::vector<int>{3}, std::vector<Neighbour>{At(2.3, 0)}, &out), 0);
  EXPECT_EQ(memory.size(), 1u);
  EXPECT_EQ(memory.Update(1.6, {}, {}, &out), 1) << "1.0 s after it was last seen";
  out.clear();
  EXPECT_EQ(memory.Update(1.7, {}, {}, &out), 0) << "1.1 s after: forgotten";
  EXPECT_TRUE(out.empty());
}

TEST(NeighbourMemory, ForgetsWhatLeftTheArenaNeverKeepsUntrackedNeighboursAndZeroMeansNone) {
  NeighbourMemory memory(1.0);
  std::vector<Neighbour> out;
  memory.Update(0.0, std::vector<int>{1, -1, 2}, std::vector<Neighbour>{At(1, 0), At(2, 0), At(3, 0)}, &out);
  EXPECT_EQ(memory.size(), 2u) << "id -1: nobody can tell it is the same neighbour next tick";
  NeighbourMemory twice(1.0);
  twice.Update(0.0, std::vector<int>{4, 4}, std::vector<Neighbour>{At(1, 0), At(9, 9)}, &out);
  EXPECT_EQ(twice.size(), 1u) << "one id reported twice is one neighbour";
  out.clear();
  ASSERT_EQ(twice.Update(0.1, {}, {}, &out), 1);
  EXPECT_EQ(out[0].position, Vec2(1, 0));
  out.clear();
  EXPECT_EQ(memory.Update(
                0.1, {}, {}, [](int id) { return id == 2; }, &out),
            1);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].position, Vec2(1, 0));
  NeighbourMemory restarted(1.0);
  restarted.Update(5.0, std::vector<int>{1}, std::vector<Neighbour>{At(1, 0)}, &out);
  EXPECT_EQ(restarted.Update(0.5, {}, {}, &out), 0) << "the clock went back (a restarted simulation): forgotten";

  NeighbourMemory none(0.0);
  none.Update(0.0, std::vector<int>{1}, std::vector<Neighbour>{At(1, 0)}, &out);
  EXPECT_EQ(none.Update(0.1, {}, {}, &out), 0);
  EXPECT_EQ(none.size(), 0u);
  EXPECT_THROW(NeighbourMemory{-1.0}, std::invalid_argument);
  EXPECT_THROW(NeighbourMemory{kNaN}, std::invalid_argument);
}

// The in-process world passes the neighbours in view as the front of the vector the remembered ones are appended
// to: appending must not read what it has moved (ASan checks this run).
TEST(NeighbourMemory, VisibleNeighboursMayBeTheFrontOfTheOutput) {
  NeighbourMemory memory(1.0);
  std::vector<Neighbour> view;
  std::vector<int> ids;
  for (int i = 0; i < 20; ++i) {
    view.push_back(At(i, 1));
    ids.push_back(i);
  }
  memory.Update(0.0, ids, view, &view);
  view = {At(5, 1)};
  view.shrink_to_fit();
  EXPECT_EQ(memory.Update(0.1, std::vector<int>{5}, std::span<const Neighbour>(view.data(), 1), &view), 19);
  ASSERT_EQ(view.size(), 20u);
  EXPECT_EQ(view[0].position, Vec2(5, 1));
  EXPECT_EQ(view[1].position, Vec2(0, 1));
  EXPECT_EQ(view[19].position, Vec2(19, 1));
  EXPECT_EQ(memory.size(), 20u);
}

CrowdNavigatorConfig Config(double memory) {
  CrowdNavigatorConfig c;
  c.table = LoadEmotionTable(kShippedEmotionTable);
  c.neighbour_memory = memory;
  return c;
}

TEST(CrowdNavigator, StandsStillWithoutAGoalOrAPoseAndAtTheGoal) {
  CrowdNavigator robot(Config(1.0));
  const geometry::Pose2 pose{0, 0, 0};
  auto c = robot.Step(0.0, 0.1, pose, 0.0, nullptr);
  EXPECT_EQ(c.speed, 0.0);
  EXPECT_FALSE(c.state.has_goal);
  robot.SetGoal(Vec2(5, 0), 1);
  c = robot.Step(0.1, 0.1, std::nullopt, 0.0, nullptr);
  EXPECT_EQ(c.speed, 0.0) << "no odometry yet";
  c = robot.Step(0.2, 0.1, pose, 0.0, nullptr);
  EXPECT_GT(c.speed, 0.0);
  EXPECT_EQ(c.fault, "");
  EXPECT_TRUE(c.state.has_goal);
  c = robot.Step(0.3, 0.1, geometry::Pose2{4.9, 0, 0}, 0.3, nullptr);
  EXPECT_EQ(c.speed, 0.0) << "within the goal tolerance";
  EXPECT_EQ(c.omega, 0.0);
  robot.SetGoal(std::nullopt, 1);
  c = robot.Step(0.4, 0.1, pose, 0.0, nullptr);
  EXPECT_EQ(c.speed, 0.0);
  EXPECT_FALSE(c.state.has_goal);
}

TEST(CrowdNavigator, ABadPoseOrMismatchedSensingStopsTheRobotWithAReasonAndIsCounted) {
  CrowdNavigator robot(Config(1.0));
  robot.SetGoal(Vec2(5, 0), 1);
  EXPECT_GT(robot.Step(0.0, 0.1, geometry::Pose2{0, 0, 0}, 0.0, nullptr).speed, 0.0);
  auto c = robot.Step(0.1, 0.1, geometry::Pose2{kNaN, 0, 0}, 0.0, nullptr);
  EXPECT_EQ(c.speed, 0.0);
  EXPECT_NE(c.fault, "");
  SensedNeighbours bad;
  bad.neighbours = {At(1, 1)};
  bad.emotions = {-1};  // and no id
  c = robot.Step(0.2, 0.1, geometry::Pose2{0, 0, 0}, 0.0, &bad);
  EXPECT_EQ(c.speed, 0.0);
  EXPECT_NE(c.fault.find("one emotion and one id per neighbour"), std::string::npos) << c.fault;
  EXPECT_EQ(robot.bad_steps(), 2);
  EXPECT_EQ(robot.Step(0.3, 0.1, geometry::Pose2{0, 0, 0}, 0.0, nullptr).fault, "") << "and it carries on";
}

// A neighbour straight ahead is sensed once, then drops out of what the sense helper reports: with memory the robot
// still steers round it for a second; with the spec's plain reading the way looks clear at once.
TEST(CrowdNavigator, ANeighbourThatLeftTheViewStaysAnObstacleForTheMemory) {
  SensedNeighbours ahead;
  ahead.neighbours = {At(1.5, 0)};
  ahead.emotions = {-1};
  ahead.ids = {7};
  const SensedNeighbours nothing;
  for (double memory : {1.0, 0.0}) {
    CrowdNavigator robot(Config(memory));
    robot.SetGoal(Vec2(5, 0), 1);
    const geometry::Pose2 pose{0, 0, 0};
    const auto first = robot.Step(0.0, 0.1, pose, 0.0, &ahead);
    EXPECT_FALSE(first.state.step.decision.clear);
    EXPECT_EQ(first.state.neighbours, 1);
    const auto next = robot.Step(0.1, 0.1, pose, 0.0, &nothing);
    EXPECT_EQ(next.state.neighbours, 0);
    if (memory > 0) {
      EXPECT_EQ(next.state.remembered, 1);
      EXPECT_FALSE(next.state.step.decision.clear);
      EXPECT_EQ(next.state.step.decision.desired_heading, first.state.step.decision.desired_heading);
      const auto later = robot.Step(1.2, 0.1, pose, 0.0, &nothing);
      EXPECT_EQ(later.state.remembered, 0) << "1.2 s after it was seen";
      EXPECT_TRUE(later.state.step.decision.clear);
    } else {
      EXPECT_EQ(next.state.remembered, 0);
      EXPECT_TRUE(next.state.step.decision.clear);
    }
  }
}

TEST(CrowdNavigator, RefusesBadConfiguration) {
  auto config = Config(-1.0);
  EXPECT_THROW(CrowdNavigator{config}, std::invalid_argument);
  config = Config(1.0);
  config.goal_tolerance = kNaN;
  EXPECT_THROW(CrowdNavigator{config}, std::invalid_argument);
  config = Config(1.0);
  config.base.caution = 0;
  EXPECT_THROW(CrowdNavigator{config}, std::invalid_argument);
}

}  // namespace
}  // namespace limbic::crowd
