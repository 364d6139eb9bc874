#include "services/controller/body_geometry.hpp"

#include <algorithm>
#include <cmath>

namespace limbic::controller {

ControllerBody ControllerBody::From(const robot::RobotDescription& d) {
  ControllerBody b;
  b.outline = d.body;
  b.min_turning_radius = d.drive.MinTurningRadius();
  b.limits = d.limits;
  return b;
}

double BodyObstacleRadius(double r_o, double extent) {
  if (extent == kSpecBodyRadius) return r_o;
  return std::max(0.0, r_o + (extent - kSpecBodyRadius));
}

ControlParameters ApplyBodyLimits(const ControlParameters& params, const robot::Limits& limits) {
  ControlParameters p = params;
  p.v_limit = std::min(p.v_limit, limits.v_max);
  p.omega_limit = std::min(p.omega_limit, limits.omega_max);
  p.a_max = std::min(p.a_max, limits.a_max);
  p.a_min = std::max(p.a_min, limits.a_min);
  p.alpha_max = std::min(p.alpha_max, limits.alpha_max);
  p.alpha_min = std::max(p.alpha_min, -limits.alpha_max);
  return p;
}

CentreStart CentreStartFor(const geometry::Pose2& pose, double v, double omega, const ControllerBody& body) {
  if (body.centred()) return {pose, v, 0.0};
  const robot::CentreMotion m = robot::CentreMotionFor(v, omega, body.centre());  // eqs. 8–10
  CentreStart s;
  const geometry::Vec2 c = pose.ToWorld(body.centre());
  s.pose = {c.x(), c.y(), pose.theta + m.theta_v};
  s.speed = m.speed;
  s.theta_v = m.theta_v;
  return s;
}

double BoundTurnRate(double v, double omega, double min_turning_radius) {
  if (!(min_turning_radius > 0.0)) return omega;
  const double limit = std::abs(v) / min_turning_radius;
  return std::clamp(omega, -limit, limit);
}

}  // namespace limbic::controller
