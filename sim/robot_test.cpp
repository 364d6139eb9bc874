#include "sim/robot.hpp"

#include <gtest/gtest.h>

#include <cmath>

namespace limbic::sim {
namespace {

using geometry::kPi;

MotorOptions NoFrictionNoNoise() {
  MotorOptions m;
  m.kappa_v = 0.0;
  m.v_min1 = 0.0;
  m.v_min2 = 0.0;
  return m;
}

TEST(StepWheel, FollowsThePiControllerWithLag) {
  // Eq. 4.2 with P = 0.5, I = 0.1 and eq. 4.3 without noise, from rest towards 1 m/s.
  WheelState w;
  EXPECT_NEAR(StepWheel(NoFrictionNoNoise(), 1.0, 0.0, &w), 0.3,
              1e-12);  // v_W = 0.5 + 0.1 = 0.6; (0.6 + 0)/2
  EXPECT_NEAR(w.drive, 0.6, 1e-12);
  // e = 0.7: v_W = 0.6 + 0.35 + 0.1·(0.7 + 1) = 1.12; (1.12 + 0.6)/2 = 0.86.
  EXPECT_NEAR(StepWheel(NoFrictionNoNoise(), 1.0, 0.0, &w), 0.86, 1e-12);
  EXPECT_NEAR(w.error_1, 0.7, 1e-12);
  EXPECT_NEAR(w.error_2, 1.0, 1e-12);
}

TEST(StepWheel, NoiseScalesTheNewControllerOutputOnly) {
  MotorOptions m = NoFrictionNoNoise();
  m.kappa_v = 0.02;
  WheelState w;
  // ((1 + 0.02·1.5)·0.6 + 0)/2 = 0.309.
  EXPECT_NEAR(StepWheel(m, 1.0, 1.5, &w), 0.309, 1e-12);
}

TEST(StepWheel, StaticFrictionHoldsAWheelAtRestAndStopsASlowOne) {
  MotorOptions m;
  m.kappa_v = 0.0;  // v_min1 = 0.02, v_min2 = 0.01
  WheelState w;
  // v_W = 0.5·0.03 + 0.1·0.03 = 0.018 → 0.009 ≤ v_min1: stays at rest.
  EXPECT_EQ(StepWheel(m, 0.03, 0.0, &w), 0.0);
  // v_W = 0.018 + 0.015 + 0.1·0.06 = 0.039 → (0.039 + 0.018)/2 = 0.0285 > v_min1: starts.
  EXPECT_NEAR(StepWheel(m, 0.03, 0.0, &w), 0.0285, 1e-12);
  WheelState slow;
  slow.drive = slow.actual = 0.012;
  // e = −0.012: v_W = 0.012 − 0.006 − 0.0012 = 0.0048 → 0.0084 < v_min2: stops.
  EXPECT_EQ(StepWheel(m, 0.0, 0.0, &slow), 0.0);
}

TEST(BodyVelocity, WheelOneIsRightAndTakesPlusOmega) {
  // θ grows counter-clockwise, so a left turn (ω > 0) needs the right wheel faster.
  const WheelCommand w = WheelsFromBody(0.5, 1.0 / 3.0, 0.6);  // eq. 4.1
  EXPECT_NEAR(w.v_right, 0.6, 1e-12);
  EXPECT_NEAR(w.v_left, 0.4, 1e-12);
  const BodyVelocity b = BodyFromWheels(0.4, 0.6, 0.6);  // eqs. 4.4–4.5 (left, right)
  EXPECT_NEAR(b.v, 0.5, 1e-12);
  EXPECT_NEAR(b.omega, 1.0 / 3.0, 1e-12);
}

TEST(StepOdometry, SystematicRightErrorBendsAStraightLine) {
  OdometryOptions o;
  o.odo_sys_right = 0.005;  // Fig. 11.1: 0.5 % on the right odometer
  OdometryEstimate est;
  StepOdometry(o, 0.6, 1.0, 1.0, 0.1, 0.0, 0.0, &est);  // both wheels 1 m/s
  // Right (wheel 1) reads 1.005, left 1 → v = 1.0025, ω = +0.005/0.6: the estimate drifts left.
  EXPECT_NEAR(est.v, 1.0025, 1e-12);
  EXPECT_NEAR(est.omega, 0.005 / 0.6, 1e-12);
  const Pose2 expected = geometry::IntegrateArc({}, 1.0025, 0.005 / 0.6, 0.1);
  EXPECT_NEAR(est.pose.x, expected.x, 1e-12);
  EXPECT_NEAR(est.pose.y, expected.y, 1e-12);
  EXPECT_NEAR(est.pose.theta, 0.005 / 6.0, 1e-12);
}

TEST(StepOdometry, RandomErrorMultipliesEachWheelBySamples) {
  OdometryOptions o;
  o.odo_rand = 0.1;
  OdometryEstimate est;
  StepOdometry(o, 0.6, 1.0, 1.0, 0.1, 1.0, -1.0, &est);
  // left 1.1, right 0.9 → v = 1, ω = (0.9 − 1.1)/0.6.
  EXPECT_NEAR(est.v, 1.0, 1e-12);
  EXPECT_NEAR(est.omega, -1.0 / 3.0, 1e-12);
}

// With zero errors the estimate takes the very arc the body took: bit-identical, not merely close.
TEST(StepOdometry, ZeroErrorsReproduceTheTrueArcExactly) {
  OdometryOptions o;
  OdometryEstimate est;
  est.pose = {1.25, -3.5, 0.7};
  StepOdometry(o, 0.6, 0.31, 0.47, 0.1, 2.3, -1.9, &est);
  const BodyVelocity body = BodyFromWheels(0.31, 0.47, 0.6);
  const Pose2 truth = geometry::IntegrateArc({1.25, -3.5, 0.7}, body.v, body.omega, 0.1);
  EXPECT_EQ(est.pose.x, truth.x);
  EXPECT_EQ(est.pose.y, truth.y);
  EXPECT_EQ(est.pose.theta, truth.theta);
}

// A rejected move (wheels 0) leaves the estimate exactly where it was, heading included.
TEST(StepOdometry, StandingStillLeavesThePoseUntouched) {
  OdometryOptions o;
  o.odo_rand = 0.1;
  OdometryEstimate est;
  est.pose = {1.0, 2.0, 3.141592653589793};
  StepOdometry(o, 0.6, 0.0, 0.0, 0.1, 1.0, -1.0, &est);
  EXPECT_EQ(est.pose.x, 1.0);
  EXPECT_EQ(est.pose.y, 2.0);
  EXPECT_EQ(est.pose.theta, 3.141592653589793);
}

// Shifts and pushes reach the estimate rotated into its own frame; exactly when the headings agree.
TEST(ApplyExternalMotion, MovesTheEstimateRigidlyWithTheBody) {
  OdometryOptions o;
  OdometryEstimate est;
  est.pose = {0.1, 0.2, 0.3};
  ApplyExternalMotion(o, {0.01, -0.02}, 0.3, &est);
  EXPECT_EQ(est.pose.x, 0.1 + 0.01);
  EXPECT_EQ(est.pose.y, 0.2 + -0.02);
  // A heading error of +90°: a push along world +x is along the estimate's +y.
  est.pose = {0.0, 0.0, geometry::kPi / 2};
  ApplyExternalMotion(o, {0.05, 0.0}, 0.0, &est);
  EXPECT_NEAR(est.pose.x, 0.0, 1e-15);
  EXPECT_NEAR(est.pose.y, 0.05, 1e-15);
}

TEST(ApplyExternalMotion, UnseenLeavesTheEstimateAlone) {
  OdometryOptions o;
  o.external_motion = ExternalMotion::kUnseen;
  OdometryEstimate est;
  ApplyExternalMotion(o, {0.01, 0.0}, 0.0, &est);
  EXPECT_EQ(est.pose.x, 0.0);
}

TEST(ApplyDeadZone, UsesEquationFourTenLiterally) {
  EXPECT_NEAR(ApplyDeadZone(0.0, 0.4, 3.0), 1.44, 1e-12);  // the §8 item 31 maximum
  EXPECT_NEAR(ApplyDeadZone(0.2, 0.4, 3.0), 0.92, 1e-12);  // 0.4 + 0.2·2.6
  EXPECT_NEAR(ApplyDeadZone(0.1, 0.14, 0.75), 0.14 + 0.04 * 0.61, 1e-12);
  EXPECT_EQ(ApplyDeadZone(0.5, 0.4, 3.0), 0.5);
}

TEST(BeamLayout, TenLongRangeSensorsWithFiveBeamsAndTenShortRangeBeams) {
  const std::vector<RangeBeam> beams = BeamLayout(RobotModel{});
  ASSERT_EQ(beams.size(), 60u);
  EXPECT_EQ(beams[0].sensor_id, 0);
  EXPECT_NEAR(beams[0].angle_local, -10.0 * kPi / 180.0, 1e-12);
  EXPECT_NEAR(beams[0].origin_local.x(), 0.2, 1e-12);
  EXPECT_NEAR(beams[0].origin_local.y(), 0.0, 1e-12);
  EXPECT_EQ(beams[6].sensor_id, 1);  // sensor 1 at 36°, beam −5° → 31°
  EXPECT_NEAR(beams[6].angle_local, 31.0 * kPi / 180.0, 1e-12);
  EXPECT_NEAR(beams[6].origin_local.x(), 0.2 * std::cos(36.0 * kPi / 180.0), 1e-12);
  EXPECT_EQ(beams[0].d_min, 0.4);
  EXPECT_EQ(beams[0].d_max, 3.0);
  EXPECT_EQ(beams[50].sensor_id, 10);
  EXPECT_EQ(beams[50].d_min, 0.14);
  EXPECT_EQ(beams[50].d_max, 0.75);
  EXPECT_NEAR(beams[55].angle_local, geometry::WrapAngle(kPi), 1e-12);
  for (const RangeBeam& b : beams) EXPECT_FALSE(b.valid);
}

TEST(SegmentContactPoint, FollowsTheBumperRules) {
  const Vec2 c(0, 0);
  // Crossing the circle: midpoint of the intersections (0.3, ±0.1803).
  auto p = SegmentContactPoint({{0.3, -1.0}, {0.3, 1.0}}, c, 0.35);
  ASSERT_TRUE(p);
  EXPECT_NEAR(p->x(), 0.3, 1e-12);
  EXPECT_NEAR(p->y(), 0.0, 1e-12);
  // Both endpoints inside: the segment midpoint.
  p = SegmentContactPoint({{0.1, 0.0}, {0.1, 0.1}}, c, 0.35);
  ASSERT_TRUE(p);
  EXPECT_NEAR(p->y(), 0.05, 1e-12);
  // One endpoint inside: the middle of the part inside, from (0.2, 0) to (0.35, 0).
  p = SegmentContactPoint({{0.2, 0.0}, {1.0, 0.0}}, c, 0.35);
  ASSERT_TRUE(p);
  EXPECT_NEAR(p->x(), 0.275, 1e-12);
  // Culled by eq. 4.9 and a near miss.
  EXPECT_FALSE(SegmentContactPoint({{2.0, -0.1}, {2.0, 0.1}}, c, 0.35));
  EXPECT_FALSE(SegmentContactPoint({{0.36, -1.0}, {0.36, 1.0}}, c, 0.35));
}

TEST(CircleContactPoint, LiesOnTheLineBetweenCentres) {
  // Robot r = 0.35 at the origin, human r = 0.25 at (0.5, 0): chord at a = (0.25 + 0.1225 −
  // 0.0625)/1 = 0.31.
  auto p = CircleContactPoint({0, 0}, 0.35, {0.5, 0}, 0.25);
  ASSERT_TRUE(p);
  EXPECT_NEAR(p->x(), 0.31, 1e-12);
  EXPECT_NEAR(p->y(), 0.0, 1e-12);
  EXPECT_FALSE(CircleContactPoint({0, 0}, 0.35, {0.61, 0}, 0.25));
}

TEST(ActiveSwitches, NearestSwitchOrBothWhenHalfway) {
  const Pose2 east{0, 0, 0};
  EXPECT_EQ(ActiveSwitches(east, {1, 0}, 8), std::vector<int>({0}));
  EXPECT_EQ(ActiveSwitches(east, {0, 1}, 8), std::vector<int>({2}));
  EXPECT_EQ(ActiveSwitches(east, {-1, 0}, 8), std::vector<int>({4}));
  EXPECT_EQ(ActiveSwitches(east, {1, -1}, 8), std::vector<int>({7}));
  EXPECT_EQ(ActiveSwitches(east, {std::cos(0.3), std::sin(0.3)}, 8), std::vector<int>({0}));  // 17°
  EXPECT_EQ(ActiveSwitches(east, {std::cos(0.5), std::sin(0.5)}, 8), std::vector<int>({1}));  // 29°
  EXPECT_EQ(ActiveSwitches(east, {std::cos(kPi / 8), std::sin(kPi / 8)}, 8), std::vector<int>({0, 1}));
  // The bearing is taken in the robot frame.
  const Pose2 north{2, 3, kPi / 2};
  EXPECT_EQ(ActiveSwitches(north, {2, 4}, 8), std::vector<int>({0}));
  EXPECT_EQ(ActiveSwitches(north, {3, 3}, 8), std::vector<int>({6}));
}

}  // namespace
}  // namespace limbic::sim
