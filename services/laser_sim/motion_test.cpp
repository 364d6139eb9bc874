#include "services/laser_sim/motion.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>

#include "services/laser_sim/testing/reference_motion.hpp"

namespace limbic::laser {
namespace {

RangeScan Open() {
  RangeScan s;
  s.fill(250);
  return s;
}

TEST(Motion, AcceleratesAtOnePointSevenMetresPerSecondSquaredToVMax) {
  const MotionOptions o;
  MotionState s;
  s = StepMotion(s, 0.0, Open(), o);
  EXPECT_NEAR(s.v_cms(), 1.7, 1e-12);  // a_max · dt
  for (int k = 1; k < 10; ++k) s = StepMotion(s, 0.0, Open(), o);
  EXPECT_NEAR(s.v_cms(), 17.0, 1e-9);
  for (int k = 10; k < 100; ++k) s = StepMotion(s, 0.0, Open(), o);
  EXPECT_NEAR(s.v_cms(), 100.0, 1e-9);  // v_max = 1 m/s after 59 cycles
  EXPECT_NEAR(s.heading_deg, 0.0, 1e-12);
  EXPECT_NEAR(s.x_cm, 0.0, 1e-9);
  EXPECT_GT(s.y_cm, 60.0);
}

TEST(Motion, TurnsOnTheSpotWhenFacingAway) {
  const MotionOptions o;
  MotionCommand cmd;
  const MotionState s = StepMotion(MotionState{}, 90.0, Open(), o, &cmd);
  EXPECT_NEAR(cmd.heading_error_deg, 90.0, 1e-12);
  EXPECT_NEAR(cmd.omega_cmd_rad_s, 8.0 * kPi / 2, 1e-12);  // ω_cmd = K_h · e
  EXPECT_NEAR(cmd.v_cmd_cms, 0.0, 1e-9);                   // cos 90° = 0
  EXPECT_NEAR(s.v_left_cms, 1.7, 1e-12);                   // wheel targets ±100 (clamped), a_max · dt
  EXPECT_NEAR(s.v_right_cms, -1.7, 1e-12);
  EXPECT_NEAR(s.heading_deg, 1.7 / 15.0 * 0.01 * kRadToDeg, 1e-12);  // ω = dwv / r_robot (Eq. 3-4)
  EXPECT_NEAR(s.x_cm, 0.0, 1e-12);
  // The other way round: −90° turns anticlockwise.
  EXPECT_GT(StepMotion(MotionState{}, 270.0, Open(), o).heading_deg, 359.9);
}

TEST(Motion, CentripetalAccelerationStaysBelowTwoPointFiveMetresPerSecondSquared) {
  const MotionOptions o;
  MotionState s;
  s.v_left_cms = s.v_right_cms = 100.0;
  for (int k = 0; k < 150; ++k) {
    s = StepMotion(s, 60.0, Open(), o);
    const double omega = s.TurnRateRadS(o.robot_radius_cm);
    EXPECT_LE(std::fabs(s.v_cms() * omega), 250.0 + 1e-9);  // Eq. 3-7
    EXPECT_LE(std::fabs(s.v_left_cms), 100.0 + 1e-9);
  }
  EXPECT_NEAR(s.heading_deg, 60.0, 1.0);
}

TEST(Motion, FreeDistanceUsesTheSweptCorridor) {
  const MotionOptions o;
  RangeScan s = Open();
  s[10] = 60;  // lateral 60 sin 10° = 10.4 cm < 17: in the corridor
  const double expected =
      60 * std::cos(10 * kDegToRad) - std::sqrt(17.0 * 17.0 - std::pow(60 * std::sin(10 * kDegToRad), 2)) + 15.0;
  EXPECT_NEAR(FreeTravelDistance(s, 0.0, o), expected, 1e-9);
  s = Open();
  s[30] = 40;  // lateral 20 cm: beside the corridor
  EXPECT_DOUBLE_EQ(FreeTravelDistance(s, 0.0, o), 250.0);
  s[200] = 20;  // behind the robot
  EXPECT_DOUBLE_EQ(FreeTravelDistance(s, 0.0, o), 250.0);
  EXPECT_NEAR(FreeTravelDistance(s, 190.0, o), 20 - 17 + 15 + 0, 0.2);  // now ahead (φ = 10°)
}

TEST(Motion, SpeedAllowsStoppingBeforeTheObstacleAhead) {
  const MotionOptions o;
  MotionState s;
  s.v_left_cms = s.v_right_cms = 100.0;
  RangeScan scan = Open();
  scan[0] = 50;  // f = 50 − 17 + 15 = 48 → v = sqrt(2 · 170 · (48 − 15 − 5)) = 97.6 cm/s
  MotionCommand cmd;
  StepMotion(s, 0.0, scan, o, &cmd);
  EXPECT_NEAR(cmd.free_distance_cm, 48.0, 1e-9);
  EXPECT_NEAR(cmd.v_cmd_cms, std::sqrt(2 * 170.0 * 28.0), 1e-9);
  scan[0] = 20;  // f = 18: inside the margin → stop
  const MotionState n = StepMotion(s, 0.0, scan, o, &cmd);
  EXPECT_EQ(cmd.v_cmd_cms, 0.0);
  EXPECT_NEAR(n.v_cms(), 100.0 - 1.7, 1e-9);  // braking is limited to a_max as well
}

TEST(Motion, SpeedCapLimitsAndZeroStops) {
  const MotionOptions o;
  MotionState s;
  s.v_left_cms = s.v_right_cms = 50.0;
  MotionCommand cmd;
  StepMotion(s, 0.0, Open(), o, &cmd, 30.0);
  EXPECT_EQ(cmd.v_cmd_cms, 30.0);
  StepMotion(s, 0.0, Open(), o, &cmd, 0.0);
  EXPECT_EQ(cmd.v_cmd_cms, 0.0);
  StepMotion(s, 0.0, Open(), o, &cmd, std::numeric_limits<double>::quiet_NaN());
  EXPECT_EQ(cmd.v_cmd_cms, 0.0);
}

TEST(Motion, NonFiniteHeadingKeepsTheHeading) {
  const MotionOptions o;
  MotionState s;
  s.heading_deg = 45.0;
  const MotionState n = StepMotion(s, std::numeric_limits<double>::quiet_NaN(), Open(), o);
  EXPECT_NEAR(n.heading_deg, 45.0, 1e-12);
  EXPECT_TRUE(std::isfinite(n.x_cm));
  EXPECT_GT(n.v_cms(), 0.0);
  EXPECT_NEAR(StepMotion(s, std::numeric_limits<double>::infinity(), Open(), o).heading_deg, 45.0, 1e-12);
}

TEST(Motion, RefusesBadOptions) {
  MotionOptions o;
  o.a_max_cms2 = 0.0;
  EXPECT_THROW(ValidateMotionOptions(o), std::invalid_argument);
  o = {};
  o.k_heading_per_s = std::numeric_limits<double>::quiet_NaN();
  EXPECT_THROW(ValidateMotionOptions(o), std::invalid_argument);
  o = {};
  o.stop_margin_cm = -1.0;
  EXPECT_THROW(ValidateMotionOptions(o), std::invalid_argument);
  EXPECT_NO_THROW(ValidateMotionOptions(MotionOptions{}));
}

// f is the previous code's, bit for bit: random scans (near obstacles, open beams, zeros) at headings on and
// between whole degrees, across north, and with other corridor widths.
TEST(Motion, FreeTravelIsThePreviousCodesBitForBit) {
  std::mt19937_64 rng(11);
  std::uniform_real_distribution<double> heading(-20.0, 380.0);
  for (int k = 0; k < 3000; ++k) {
    RangeScan s;
    const uint64_t near = 10 + rng() % 240;  // ranges up to `near`, and a share reading 250
    for (auto& r : s) r = static_cast<uint8_t>(rng() % 4 == 0 ? 250 : rng() % (near + 1));
    MotionOptions o;
    if (k % 7 == 0) o.corridor_extra_cm = 0.0;
    if (k % 11 == 0) o.robot_radius_cm = 25.0;
    double h = heading(rng);
    if (k % 5 == 0) h = std::round(h);
    if (k % 13 == 0) h = (k % 2 ? 0.5 : 359.5) + 1e-12 * static_cast<double>(k % 3);
    const double got = FreeTravelDistance(s, h, o), want = reference::FreeTravelDistance(s, h, o);
    ASSERT_EQ(got, want) << "heading " << h;
    ASSERT_EQ(std::signbit(got), std::signbit(want));
  }
  const MotionOptions o;
  EXPECT_EQ(FreeTravelDistance(Open(), 37.0, o), reference::FreeTravelDistance(Open(), 37.0, o));
  RangeScan zeros{};
  EXPECT_EQ(FreeTravelDistance(zeros, 180.0, o), reference::FreeTravelDistance(zeros, 180.0, o));
}

}  // namespace
}  // namespace limbic::laser
