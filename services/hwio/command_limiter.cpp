#include "services/hwio/command_limiter.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

namespace limbic::hwio {

WheelCommand BodyToWheels(const VelocityCommand& body, double wheel_separation, WheelAssignment assignment) {
  const double v1 = body.v + wheel_separation * body.omega / 2.0;  // eq. 4.1, wheel 1 takes +
  const double v2 = body.v - wheel_separation * body.omega / 2.0;
  if (assignment == WheelAssignment::kWheel1IsRight) return {.v_left = v2, .v_right = v1};
  return {.v_left = v1, .v_right = v2};
}

VelocityCommand WheelsToBody(const WheelCommand& wheels, double wheel_separation, WheelAssignment assignment) {
  const double v1 = assignment == WheelAssignment::kWheel1IsRight ? wheels.v_right : wheels.v_left;
  const double v2 = assignment == WheelAssignment::kWheel1IsRight ? wheels.v_left : wheels.v_right;
  return {.v = (v1 + v2) / 2.0, .omega = (v1 - v2) / wheel_separation};  // eqs. 4.4–4.5
}

CommandLimiter::CommandLimiter(CommandLimiterOptions options) : options_(options) {
  auto positive = [](double value, const char* name) {
    if (!(value > 0.0) || !std::isfinite(value)) {
      throw std::invalid_argument(std::string("CommandLimiter: ") + name + " must be positive and finite, got " +
                                  std::to_string(value));
    }
  };
  positive(options_.v_max, "v_max");
  positive(options_.omega_max, "omega_max");
  positive(options_.wheel_separation, "wheel_separation");
  positive(options_.wheel_speed_max, "wheel_speed_max");
}

LimitedCommand CommandLimiter::Limit(const VelocityCommand& command) {
  ++state_.commands;
  LimitedCommand out;
  if (!std::isfinite(command.v) || !std::isfinite(command.omega)) {
    ++state_.rejected;
    out.rejected = true;
    out.clamped = true;
    return out;  // zero body command, zero wheels
  }
  const double v_min = options_.allow_reverse ? -options_.v_max : 0.0;
  VelocityCommand body{.v = std::clamp(command.v, v_min, options_.v_max),
                       .omega = std::clamp(command.omega, -options_.omega_max, options_.omega_max)};
  bool clamped = body.v != command.v || body.omega != command.omega;

  WheelCommand wheels = BodyToWheels(body, options_.wheel_separation, options_.wheel_assignment);
  const double limit = options_.wheel_speed_max;
  const double largest = std::max(std::abs(wheels.v_left), std::abs(wheels.v_right));
  if (largest > limit) {
    clamped = true;
    if (options_.preserve_curvature) {
      const double scale = limit / largest;
      wheels.v_left *= scale;
      wheels.v_right *= scale;
    } else {
      wheels.v_left = std::clamp(wheels.v_left, -limit, limit);
      wheels.v_right = std::clamp(wheels.v_right, -limit, limit);
    }
    body = WheelsToBody(wheels, options_.wheel_separation, options_.wheel_assignment);
  }
  if (clamped) ++state_.clamped;
  out.body = body;
  out.wheels = wheels;
  out.clamped = clamped;
  return out;
}

}  // namespace limbic::hwio
