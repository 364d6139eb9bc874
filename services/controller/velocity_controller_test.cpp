#include "services/controller/velocity_controller.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "services/controller/terms.hpp"

namespace limbic::controller {
namespace {

using geometry::kPi;
using geometry::Vec2;

void ExpectSamples(const std::vector<double>& got, const std::vector<double>& expected) {
  ASSERT_EQ(got.size(), expected.size());
  for (size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i], expected[i], 1e-12) << i;
}

TEST(DynamicWindowTest, AtRest) {
  const ControlParameters p;  // a = ±0.5 m/s², α = ±π rad/s², v_L = 1, ω_L = 0.2π, T = 0.1
  const DynamicWindow w = ComputeDynamicWindow(0.0, 0.0, p, 0.1);
  EXPECT_DOUBLE_EQ(w.v1, 0.0);
  EXPECT_NEAR(w.v2, 0.05, 1e-15);
  EXPECT_NEAR(w.omega1, -0.1 * kPi, 1e-15);
  EXPECT_NEAR(w.omega2, 0.1 * kPi, 1e-15);
  std::vector<double> v;
  WindowSamples(w.v1, w.v_centre, w.v2, 9, &v);
  // linspace(0, 0, 5) ∪ linspace(0, 0.05, 5): the current velocity is the centre element.
  ExpectSamples(v, {0, 0, 0, 0, 0, 0.0125, 0.025, 0.0375, 0.05});
  std::vector<double> om;
  WindowSamples(w.omega1, w.omega_centre, w.omega2, 9, &om);
  ExpectSamples(
      om, {-0.1 * kPi, -0.075 * kPi, -0.05 * kPi, -0.025 * kPi, 0, 0.025 * kPi, 0.05 * kPi, 0.075 * kPi, 0.1 * kPi});
}

TEST(DynamicWindowTest, AtSpeedLimitAndAtTurnLimit) {
  const ControlParameters p;
  const DynamicWindow w = ComputeDynamicWindow(1.0, 0.2 * kPi, p, 0.1);
  EXPECT_NEAR(w.v1, 0.95, 1e-15);
  EXPECT_DOUBLE_EQ(w.v2, 1.0);
  EXPECT_NEAR(w.omega1, 0.1 * kPi, 1e-15);
  EXPECT_NEAR(w.omega2, 0.2 * kPi, 1e-15);
  std::vector<double> v;
  WindowSamples(w.v1, w.v_centre, w.v2, 9, &v);
  ExpectSamples(v, {0.95, 0.9625, 0.975, 0.9875, 1, 1, 1, 1, 1});
  WindowSamples(w.v1, w.v_centre, w.v2, 3, &v);
  ExpectSamples(v, {0.95, 1, 1});
}

TEST(DynamicWindowTest, MidRangeThreeByThree) {
  const ControlParameters p;
  const DynamicWindow w = ComputeDynamicWindow(0.5, -0.1, p, 0.1);
  std::vector<double> v, om;
  WindowSamples(w.v1, w.v_centre, w.v2, 3, &v);
  WindowSamples(w.omega1, w.omega_centre, w.omega2, 3, &om);
  ExpectSamples(v, {0.45, 0.5, 0.55});
  ExpectSamples(om, {-0.1 - 0.1 * kPi, -0.1, -0.1 + 0.1 * kPi});
  WindowSamples(w.v1, w.v_centre, w.v2, 1, &v);
  ExpectSamples(v, {0.5});
}

TEST(DynamicWindowTest, DegenerateWindowsCollapseToTheNearestAllowedBound) {
  ControlParameters p;
  p.v_limit = 0.4;  // the speed drive lowered v_L below the current speed
  DynamicWindow w = ComputeDynamicWindow(0.9, 0.0, p, 0.1);
  EXPECT_DOUBLE_EQ(w.v1, 0.4);
  EXPECT_DOUBLE_EQ(w.v2, 0.4);
  EXPECT_DOUBLE_EQ(w.v_centre, 0.4);
  std::vector<double> v;
  WindowSamples(w.v1, w.v_centre, w.v2, 9, &v);
  ExpectSamples(v, std::vector<double>(9, 0.4));
  // A slightly negative velocity estimate: window [0, 0.03], centre clamped to 0.
  w = ComputeDynamicWindow(-0.02, 0.0, ControlParameters{}, 0.1);
  EXPECT_DOUBLE_EQ(w.v1, 0.0);
  EXPECT_NEAR(w.v2, 0.03, 1e-15);
  EXPECT_DOUBLE_EQ(w.v_centre, 0.0);
  // Reversing faster than one period can undo: the window is the point 0.
  w = ComputeDynamicWindow(-0.2, 0.0, ControlParameters{}, 0.1);
  EXPECT_DOUBLE_EQ(w.v1, 0.0);
  EXPECT_DOUBLE_EQ(w.v2, 0.0);
}

TEST(VelocityTermsTest, CurvatureAvoidanceEq522Piecewise) {
  const double r_v = 0.35, d_max = 1.0, kappa = 0.05;
  EXPECT_DOUBLE_EQ(CurvatureAvoidance(0.0, r_v, d_max, kappa), 0.0);
  EXPECT_NEAR(CurvatureAvoidance(0.175, r_v, d_max, kappa), 0.025, 1e-15);
  // Continuity at r_v: κ from both sides.
  EXPECT_NEAR(CurvatureAvoidance(r_v - 1e-12, r_v, d_max, kappa), kappa, 1e-10);
  EXPECT_DOUBLE_EQ(CurvatureAvoidance(r_v, r_v, d_max, kappa), kappa);
  // A quarter of the way from r_v to d_v(max): κ + (1 − κ)·sqrt(0.25) = 0.525.
  EXPECT_NEAR(CurvatureAvoidance(0.35 + 0.65 * 0.25, r_v, d_max, kappa), 0.525, 1e-12);
  // Continuity at d_v(max): 1 from both sides.
  EXPECT_NEAR(CurvatureAvoidance(d_max - 1e-12, r_v, d_max, kappa), 1.0, 1e-5);
  EXPECT_DOUBLE_EQ(CurvatureAvoidance(d_max, r_v, d_max, kappa), 1.0);
  EXPECT_DOUBLE_EQ(CurvatureAvoidance(2.5, r_v, d_max, kappa), 1.0);
}

TEST(VelocityTermsTest, SpeedCapEqs523To525) {
  // a_ω = 0.25 → v_max = sqrt(0.25)·1 = 0.5 (eq. 5.23).
  EXPECT_DOUBLE_EQ(AvoidanceSpeedLimit(0.25, 1.0), 0.5);
  EXPECT_DOUBLE_EQ(AvoidanceSpeedLimit(0.25, 0.8), 0.4);
  // a_v(0.75) = (1 − 0.75)/(1 − 0.5) = 0.5; below the cap 1 (eq. 5.24).
  EXPECT_DOUBLE_EQ(SpeedCap(0.75, 0.5, 1.0), 0.5);
  EXPECT_DOUBLE_EQ(SpeedCap(0.4, 0.5, 1.0), 1.0);
  EXPECT_DOUBLE_EQ(SpeedCap(0.5, 0.5, 1.0), 1.0);
  EXPECT_DOUBLE_EQ(SpeedCap(1.0, 0.5, 1.0), 0.0);
  // a = a_ω·a_v (eq. 5.25).
  EXPECT_DOUBLE_EQ(0.25 * SpeedCap(0.75, AvoidanceSpeedLimit(0.25, 1.0), 1.0), 0.125);
}

TEST(VelocityTermsTest, GoalSeekingEqs526To529) {
  // g_ω: θ_C = 0, θ_T = 0.5, ω = 0.2, t_3 = 1 → θ_P = 0.2, 1 − 0.3/π (eqs. 5.26–5.27).
  EXPECT_NEAR(HeadingPreference(0.0 + 0.2 * 1.0, 0.5), 1.0 - 0.3 / kPi, 1e-12);
  // Eq. 5.28 with β = 0.4 (cut-off 0.4π).
  EXPECT_NEAR(AlignmentSpeedLimit(0.0, 0.4, 1.0), 1.0, 1e-15);
  EXPECT_NEAR(AlignmentSpeedLimit(0.2 * kPi, 0.4, 1.0), 0.5, 1e-12);
  EXPECT_NEAR(AlignmentSpeedLimit(0.39 * kPi, 0.4, 1.0), 0.025, 1e-12);
  EXPECT_DOUBLE_EQ(AlignmentSpeedLimit(0.4 * kPi, 0.4, 1.0), 0.0);
  EXPECT_DOUBLE_EQ(AlignmentSpeedLimit(kPi, 0.4, 1.0), 0.0);
  // g_v(0.75) with v_max = 0.5: 0.5, so g = g_ω·g_v (eq. 5.29).
  EXPECT_DOUBLE_EQ(SpeedCap(0.75, AlignmentSpeedLimit(0.2 * kPi, 0.4, 1.0), 1.0), 0.5);
  EXPECT_DOUBLE_EQ(SpeedCap(0.1, AlignmentSpeedLimit(0.4 * kPi, 0.4, 1.0), 1.0), 0.9);
}

TEST(VelocityTermsTest, DistanceToGoalEq531) {
  EXPECT_DOUBLE_EQ(GoalDistanceSpeedLimit(0.75, 1.5, 1.0), 0.5);
  EXPECT_DOUBLE_EQ(GoalDistanceSpeedLimit(2.0, 1.5, 1.0), 1.0);
  EXPECT_DOUBLE_EQ(SpeedCap(0.75, GoalDistanceSpeedLimit(0.75, 1.5, 1.0), 1.0), 0.5);
}

TEST(CurvatureSegmentTest, MatchesGeometryPointToCurvatureSegmentDistance) {
  std::mt19937_64 rng(3);
  std::uniform_real_distribution<double> coord(-3.0, 3.0), unit(0.0, 1.0);
  int checked = 0;
  for (double t2 : {1.0, 1.1, 20.0}) {
    for (int trial = 0; trial < 300; ++trial) {
      const geometry::Pose2 pose{coord(rng), coord(rng), coord(rng)};
      const double v = trial % 10 == 0 ? 0.0 : unit(rng);
      double omega = (unit(rng) - 0.5) * 1.5;
      if (trial % 7 == 0) omega = 0.0;
      if (trial % 11 == 0) omega = 1e-8;
      const CurvatureSegment segment(pose, v, omega, 0.1, t2);
      for (int k = 0; k < 10; ++k) {
        const Vec2 q(coord(rng), coord(rng));
        EXPECT_NEAR(segment.Distance(q), geometry::PointToCurvatureSegmentDistance(q, pose, v, omega, 0.1, t2), 1e-9);
        ++checked;
      }
    }
  }
  EXPECT_EQ(checked, 9000);
}

TEST(CurvatureSegmentTest, StraightSegmentByHand) {
  // v = 0.5, ω = 0 from the origin heading +x: segment (0.05, 0) → (0.5, 0).
  const CurvatureSegment segment({0, 0, 0}, 0.5, 0.0, 0.1, 1.0);
  EXPECT_NEAR(segment.Distance({0.8, 0.0}), 0.3, 1e-12);
  EXPECT_NEAR(segment.Distance({0.3, 0.4}), 0.4, 1e-12);
  EXPECT_NEAR(segment.Distance({0.0, 0.0}), 0.05, 1e-12);
  EXPECT_DOUBLE_EQ(segment.reach(), 0.5);
}

ControlParameters OneByOne() {
  ControlParameters p;
  p.n_v = 1;
  p.n_omega = 1;
  return p;
}

TEST(VelocityControllerTest, SensorAvoidanceOfOneCandidateByHand) {
  // 1×1 window: the only candidate is (v_c, ω_c) = (0.5, 0): segment (0.05, 0) → (0.5, 0).
  // Obstacle point (0.8, 0): d_o = 0.3 → a_ω = 0.05·0.3/0.35; v_max = sqrt(a_ω); a_v = (1 − 0.5)/(1
  // − v_max).
  VelocityController ctrl;
  VelocityInputs in;
  in.v = 0.5;
  const std::vector<Vec2> points = {{0.8, 0.0}, {5.0, 5.0}};
  in.obstacle_points = points;
  in.goal = Vec2(10, 0);
  VelocityOutput out;
  ctrl.Tick(in, OneByOne(), &out);
  const double a_w = 0.05 * 0.3 / 0.35;
  const double a_v = 0.5 / (1.0 - std::sqrt(a_w));
  EXPECT_NEAR(out.sensor_distance[0], 0.3, 1e-12);
  EXPECT_NEAR(out.sensor_avoidance[0], a_w * a_v, 1e-12);
  EXPECT_DOUBLE_EQ(out.map_avoidance[0], 1.0);
  EXPECT_DOUBLE_EQ(out.map_distance[0], 1.0);  // capped at d_v(max)
  // Objective: avoidance (0.99), goal (aligned, g = 1), speedup 0.5, distance-to-goal (far, d = 1).
  const double f = (1 - 0.99 * (1 - a_w * a_v)) * 1.0 * (1 - 0.5 * (1 - 0.5)) * 1.0;
  EXPECT_NEAR(out.objective[0], f, 1e-12);
  EXPECT_DOUBLE_EQ(out.command.v, 0.5);
}

TEST(VelocityControllerTest, TermsOfTheGridByHand) {
  VelocityController ctrl;
  VelocityInputs in;
  in.v = 0.5;
  in.pose.theta = 0.0;
  in.target_heading = 0.2 * kPi;  // misaligned by 0.2π → v_max = 0.5 (eq. 5.28)
  in.goal = Vec2(0.75, 0.0);      // d_g = 0.75 → distance-to-goal cap 0.5 (eq. 5.31)
  ControlParameters p;
  p.n_v = 3;
  p.n_omega = 3;
  VelocityOutput out;
  ctrl.Tick(in, p, &out);
  ExpectSamples(out.v_samples, {0.45, 0.5, 0.55});
  // Goal proximity: W_v3 = 0.75 + 0.5·0.25 = 0.875 (eq. 5.18), W_v4 = 0.5·0.5 = 0.25 (eq. 5.19).
  EXPECT_NEAR(out.weights.goal, 0.875, 1e-12);
  EXPECT_NEAR(out.weights.speedup, 0.25, 1e-12);
  EXPECT_DOUBLE_EQ(out.weights.distance, 0.9);
  EXPECT_NEAR(out.speedup[2], 0.55, 1e-12);                 // eq. 5.30
  EXPECT_NEAR(out.distance_to_goal[2], 0.45 / 0.5, 1e-12);  // (1 − 0.55)/(1 − 0.5)
  EXPECT_DOUBLE_EQ(out.distance_to_goal[0], 1.0);
  const double om = out.omega_samples[2];  // 0.1π
  const double g_w = 1.0 - std::abs(0.2 * kPi - om) / kPi;
  EXPECT_NEAR(out.goal_seeking[2 * 3 + 2], g_w * 0.9, 1e-12);  // g_v(0.55) = 0.45/0.5
  EXPECT_NEAR(out.goal_seeking[0 * 3 + 2], g_w * 1.0, 1e-12);  // 0.45 ≤ 0.5
  EXPECT_EQ(out.command.omega, om);                            // turn toward θ_T
}

TEST(VelocityControllerTest, AtRestTurnsTowardTargetAndSpeedsUp) {
  VelocityController ctrl;
  VelocityInputs in;
  in.target_heading = 0.5;
  in.goal = Vec2(10 * std::cos(-0.5), 10 * std::sin(-0.5));  // goal bearing −0.5
  VelocityOutput out;
  ControlParameters p;
  ctrl.Tick(in, p, &out);
  EXPECT_NEAR(out.command.v, 0.05, 1e-12);
  EXPECT_NEAR(out.command.omega, 0.1 * kPi, 1e-12);
  // Chapter-6 reactive configuration: goal seeking uses the goal bearing instead of θ_T.
  VelocityOptions reactive;
  reactive.goal_target = VelocityGoalTarget::kGoalBearing;
  VelocityController reactive_ctrl(reactive);
  reactive_ctrl.Tick(in, p, &out);
  EXPECT_NEAR(out.heading_target, -0.5, 1e-12);
  EXPECT_NEAR(out.command.omega, -0.1 * kPi, 1e-12);
}

TEST(VelocityControllerTest, BoxedInPicksZeroVelocity) {
  std::vector<Vec2> ring;
  for (int i = 0; i < 36; ++i) ring.push_back(0.3 * geometry::UnitVector(i * kPi / 18));
  VelocityInputs in;
  in.obstacle_points = ring;
  in.goal = Vec2(5, 0);
  in.target_heading = 0.0;
  VelocityOutput out;
  VelocityController ctrl;
  ctrl.Tick(in, ControlParameters{}, &out);
  EXPECT_DOUBLE_EQ(out.command.v, 0.0);
  // Every candidate is within r_v of an obstacle, so avoidance sits in its κ branch.
  for (double a : out.sensor_avoidance) EXPECT_LT(a, 0.05);
  // With a free field the same layer would move.
  in.obstacle_points = {};
  ctrl.Tick(in, ControlParameters{}, &out);
  EXPECT_GT(out.command.v, 0.0);
}

TEST(VelocityControllerTest, ClosestToCurrentTieBreak) {
  // W_v1..W_v5 all 0: every candidate scores 1. First maximum → (v_1, ω_1); closest → (v_c, ω_c).
  ControlParameters p;
  p.w_v1 = p.w_v2 = p.w_v3 = p.w_v4 = p.w_v5 = 0.0;
  VelocityInputs in;
  in.v = 0.5;
  in.omega = 0.1;
  in.goal = Vec2(10, 0);
  VelocityOutput out;
  VelocityController first;
  first.Tick(in, p, &out);
  EXPECT_NEAR(out.command.v, 0.45, 1e-12);
  EXPECT_NEAR(out.command.omega, 0.1 - 0.1 * kPi, 1e-12);
  VelocityOptions options;
  options.tie_break = TieBreak::kClosestToCurrent;
  VelocityController closest(options);
  closest.Tick(in, p, &out);
  EXPECT_DOUBLE_EQ(out.command.v, 0.5);
  EXPECT_DOUBLE_EQ(out.command.omega, 0.1);
}

TEST(VelocityControllerTest, EvenWindowSizeIsRejected) {
  ControlParameters p;
  p.n_v = 4;
  VelocityController ctrl;
  VelocityOutput out;
  EXPECT_THROW(ctrl.Tick(VelocityInputs{}, p, &out), std::invalid_argument);
}

TEST(VelocityGoalTargetOption, NamesParseInOrderAndOthersAreRefused) {
  EXPECT_EQ(ParseVelocityGoalTarget("directional"), VelocityGoalTarget::kDirectionalTarget);
  EXPECT_EQ(ParseVelocityGoalTarget("goal_bearing"), VelocityGoalTarget::kGoalBearing);
  EXPECT_THROW(ParseVelocityGoalTarget("goal"), std::invalid_argument);
}

}  // namespace
}  // namespace limbic::controller
