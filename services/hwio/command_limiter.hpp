// Clamps velocity commands to the robot's hard limits and converts them to wheel speeds (eq. 4.1).
#pragma once

#include <cstdint>

#include "common/types/sensing.hpp"

namespace limbic::hwio {

// Which wheel is the spec's wheel 1 (the one that takes +d_w·ω/2 in eq. 4.1, so ω = (v_1 − v_2)/d_w).
//
// Default kWheel1IsRight: the spec's frame has θ growing counter-clockwise (eqs. 4.6–4.7, geometry::Pose2),
// so a positive ω is a left turn and needs the RIGHT wheel to run faster: v_right = v + d_w·ω/2 and
// ω = (v_right − v_left)/d_w. The shared WheelCommand contract (common/types/sensing.hpp) and the simulator
// use the same convention. kWheel1IsLeft is kept for a board wired the other way round.
enum class WheelAssignment { kWheel1IsRight, kWheel1IsLeft };

// Eq. 4.1: body velocities → wheel velocities.
WheelCommand BodyToWheels(const VelocityCommand& body, double wheel_separation,
                          WheelAssignment assignment = WheelAssignment::kWheel1IsRight);
// Eqs. 4.4–4.5: wheel velocities → body velocities (the inverse of BodyToWheels).
VelocityCommand WheelsToBody(const WheelCommand& wheels, double wheel_separation,
                             WheelAssignment assignment = WheelAssignment::kWheel1IsRight);

struct CommandLimiterOptions {
  double v_max = 1.6;                // hard |v| limit (m/s): MARVIN at full duty cycle (§2.1)
  bool allow_reverse = false;        // §8 item 16: v ∈ [0, v_L]; true allows v ≥ −v_max
  double omega_max = geometry::kPi;  // hard |ω| limit (rad/s); the controller's ω_L is 0.2π, so this is a
                                     // safety net (half a turn per second), not a tuning knob
  double wheel_separation = 0.6;     // d_w (m), §8 item 10
  double wheel_speed_max = 1.6;      // hard |wheel speed| limit (m/s)
  // true (recommended): if a wheel exceeds wheel_speed_max both wheels are scaled by the same factor, so
  // the turning radius is kept; false: each wheel is clamped on its own (the curvature changes).
  bool preserve_curvature = true;
  WheelAssignment wheel_assignment = WheelAssignment::kWheel1IsRight;
};

struct CommandLimiterState {
  int64_t commands = 0;
  int64_t clamped = 0;   // commands changed by any limit
  int64_t rejected = 0;  // non-finite commands replaced by a stop
};

struct LimitedCommand {
  VelocityCommand body{};  // the body velocities actually commanded, after all limits (eqs. 4.4–4.5 of wheels)
  WheelCommand wheels{};   // eq. 4.1 after the wheel limit
  bool clamped = false;    // any limit was active
  bool rejected = false;   // input was NaN/inf: wheels are zero
};

// Enforces hard limits on the velocity command before it reaches the motors.
//
// Inputs:  VelocityCommand (v, ω) from the velocity controller.
// Outputs: clamped body command and wheel speeds by eq. 4.1 (wheel 1 takes +d_w·ω/2, see WheelAssignment).
// Order:   v into [v_min, v_max] (v_min = 0, or −v_max with allow_reverse), ω into [−ω_max, ω_max],
//          eq. 4.1, then the wheel speed limit.
class CommandLimiter {
 public:
  // Throws std::invalid_argument for non-positive limits or wheel separation.
  explicit CommandLimiter(CommandLimiterOptions options = {});

  LimitedCommand Limit(const VelocityCommand& command);

  const CommandLimiterOptions& options() const { return options_; }
  const CommandLimiterState& state() const { return state_; }

 private:
  CommandLimiterOptions options_;
  CommandLimiterState state_;
};

}  // namespace limbic::hwio
