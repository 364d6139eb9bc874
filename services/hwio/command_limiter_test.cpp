#include "services/hwio/command_limiter.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>

namespace limbic::hwio {
namespace {

// Eq. 4.1 with d_w = 0.6: v ± 0.3·ω; by default wheel 1 (+) is the left wheel (the shared contract).
TEST(CommandLimiterTest, Eq41WithinLimits) {
  CommandLimiter limiter;
  const LimitedCommand out = limiter.Limit({.v = 0.5, .omega = 0.2});
  EXPECT_DOUBLE_EQ(out.wheels.v_right, 0.56);
  EXPECT_DOUBLE_EQ(out.wheels.v_left, 0.44);
  EXPECT_FALSE(out.clamped);
  EXPECT_DOUBLE_EQ(out.body.v, 0.5);
  EXPECT_NEAR(out.body.omega, 0.2, 1e-15);
}

// Rigid-body check of the wheel assignment: in the CCW frame (eqs. 4.6–4.7) the left wheel sits at
// (0, +d_w/2) in the robot frame; its forward speed is v + (ω × r)·x̂ = v − ω·d_w/2.
TEST(CommandLimiterTest, PhysicalAssignmentRunsRightWheelFasterWhenTurningCounterClockwise) {
  const double d_w = 0.6, v = 0.4, omega = 0.5;
  const double left_point_speed = v - omega * (d_w / 2);   // ω ẑ × (0, d_w/2) = (−ω·d_w/2, 0)
  const double right_point_speed = v + omega * (d_w / 2);  // ω ẑ × (0, −d_w/2) = (+ω·d_w/2, 0)
  const WheelCommand w = BodyToWheels({.v = v, .omega = omega}, d_w, WheelAssignment::kWheel1IsRight);
  EXPECT_DOUBLE_EQ(w.v_left, left_point_speed);
  EXPECT_DOUBLE_EQ(w.v_right, right_point_speed);
  // The heading after 1 s grows: positive ω is a left (CCW) turn.
  const VelocityCommand back = WheelsToBody(w, d_w, WheelAssignment::kWheel1IsRight);
  EXPECT_GT(geometry::IntegrateArc({}, back.v, back.omega, 1.0).theta, 0.0);
}

// Default (contract) and physical assignments are mirror images; each round-trips through eqs. 4.4–4.5.
TEST(CommandLimiterTest, AssignmentsMirrorAndRoundTrip) {
  const WheelCommand w = BodyToWheels({.v = 0.5, .omega = 0.2}, 0.6, WheelAssignment::kWheel1IsRight);
  EXPECT_DOUBLE_EQ(w.v_left, 0.44);
  EXPECT_DOUBLE_EQ(w.v_right, 0.56);
  const VelocityCommand back = WheelsToBody(BodyToWheels({.v = 0.5, .omega = 0.2}, 0.6), 0.6);
  EXPECT_DOUBLE_EQ(back.v, 0.5);
  EXPECT_NEAR(back.omega, 0.2, 1e-15);
}

TEST(CommandLimiterTest, ClampsForwardSpeedToHardLimit) {
  CommandLimiter limiter;
  const LimitedCommand out = limiter.Limit({.v = 2.0, .omega = 0.0});
  EXPECT_DOUBLE_EQ(out.body.v, 1.6);
  EXPECT_DOUBLE_EQ(out.wheels.v_left, 1.6);
  EXPECT_DOUBLE_EQ(out.wheels.v_right, 1.6);
  EXPECT_TRUE(out.clamped);
  EXPECT_EQ(limiter.state().clamped, 1);
}

TEST(CommandLimiterTest, ReverseIsClampedToZeroUnlessAllowed) {
  CommandLimiter forward_only;
  EXPECT_DOUBLE_EQ(forward_only.Limit({.v = -0.3, .omega = 0.0}).wheels.v_left, 0.0);
  CommandLimiter reverse(CommandLimiterOptions{.allow_reverse = true});
  const LimitedCommand out = reverse.Limit({.v = -0.3, .omega = 0.0});
  EXPECT_DOUBLE_EQ(out.wheels.v_left, -0.3);
  EXPECT_DOUBLE_EQ(out.wheels.v_right, -0.3);
  EXPECT_FALSE(out.clamped);
  EXPECT_DOUBLE_EQ(reverse.Limit({.v = -2.0, .omega = 0.0}).body.v, -1.6);
}

TEST(CommandLimiterTest, ClampsTurnRateToHardLimit) {
  CommandLimiter limiter;  // ω_max = π: wheels ±0.3π = ±0.9425, under the 1.6 wheel limit
  const LimitedCommand out = limiter.Limit({.v = 0.0, .omega = 5.0});
  EXPECT_DOUBLE_EQ(out.body.omega, geometry::kPi);
  EXPECT_DOUBLE_EQ(out.wheels.v_right, 0.3 * geometry::kPi);
  EXPECT_DOUBLE_EQ(out.wheels.v_left, -0.3 * geometry::kPi);
  EXPECT_TRUE(out.clamped);
}

// v = 1.5, ω = 1: wheels 1.8 (right) / 1.2 (left). Scaling by 1.6/1.8 keeps the radius v/ω = 1.5 m.
TEST(CommandLimiterTest, WheelLimitScalesBothWheelsToKeepCurvature) {
  CommandLimiter limiter;
  const LimitedCommand out = limiter.Limit({.v = 1.5, .omega = 1.0});
  EXPECT_DOUBLE_EQ(out.wheels.v_right, 1.6);
  EXPECT_NEAR(out.wheels.v_left, 1.2 * 1.6 / 1.8, 1e-12);  // 1.0667
  EXPECT_NEAR(out.body.v, 1.5 * 1.6 / 1.8, 1e-12);         // 1.3333
  EXPECT_NEAR(out.body.omega, 1.6 / 1.8, 1e-12);           // 0.8889
  EXPECT_NEAR(out.body.v / out.body.omega, 1.5, 1e-12);
  EXPECT_TRUE(out.clamped);
}

TEST(CommandLimiterTest, WheelLimitPerWheelWhenCurvatureNotPreserved) {
  CommandLimiter limiter(CommandLimiterOptions{.preserve_curvature = false});
  const LimitedCommand out = limiter.Limit({.v = 1.5, .omega = 1.0});
  EXPECT_DOUBLE_EQ(out.wheels.v_right, 1.6);
  EXPECT_DOUBLE_EQ(out.wheels.v_left, 1.2);
  EXPECT_NEAR(out.body.v, 1.4, 1e-12);
  EXPECT_NEAR(out.body.omega, 0.4 / 0.6, 1e-12);
}

TEST(CommandLimiterTest, NonFiniteCommandStops) {
  CommandLimiter limiter;
  const LimitedCommand out = limiter.Limit({.v = std::nan(""), .omega = 0.1});
  EXPECT_TRUE(out.rejected);
  EXPECT_DOUBLE_EQ(out.wheels.v_left, 0.0);
  EXPECT_DOUBLE_EQ(out.wheels.v_right, 0.0);
  EXPECT_EQ(limiter.state().rejected, 1);
}

TEST(CommandLimiterTest, RejectsNonPositiveLimits) {
  EXPECT_THROW(CommandLimiter(CommandLimiterOptions{.v_max = 0.0}), std::invalid_argument);
  EXPECT_THROW(CommandLimiter(CommandLimiterOptions{.wheel_separation = -0.6}), std::invalid_argument);
}

}  // namespace
}  // namespace limbic::hwio
