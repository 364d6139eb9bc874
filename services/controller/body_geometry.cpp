#include "services/controller/body_geometry.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <vector>

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

SweptOutline SweepOutline(const robot::Body& body, const geometry::Pose2& pose, double v, double omega, double duration,
                          std::span<const geometry::Vec2> points, double clearance, double step) {
  if (!std::isfinite(pose.x) || !std::isfinite(pose.y) || !std::isfinite(pose.theta) || !std::isfinite(v) ||
      !std::isfinite(omega) || !std::isfinite(duration) || !std::isfinite(clearance) || !std::isfinite(step))
    throw std::invalid_argument("SweepOutline: non-finite input");
  if (duration < 0.0 || clearance < 0.0 || !(step > 0.0))
    throw std::invalid_argument("SweepOutline: duration and clearance must be >= 0 and step > 0");
  // No point of the body is farther than reach_from_origin() from R's origin, which itself travels |v|·duration:
  // a point farther than that plus the clearance from R's start cannot come within the clearance.
  const double reach = body.reach_from_origin() + std::abs(v) * duration + clearance;
  // A body point at ρ from R's origin moves at most |v| + |ω|·ρ.
  const double body_speed = std::abs(v) + std::abs(omega) * body.reach_from_origin();
  const int n = std::max(1, static_cast<int>(std::ceil(body_speed * duration / step)));
  const double moved = body_speed * duration / n;  // the most any body point moves between two samples
  // R's pose at each sample, as what takes a world point into R.
  struct Frame {
    geometry::Vec2 origin;
    double c = 1.0, s = 0.0;
    geometry::Vec2 Local(const geometry::Vec2& p) const {
      const geometry::Vec2 d = p - origin;
      return {c * d.x() + s * d.y(), -s * d.x() + c * d.y()};
    }
  };
  std::vector<Frame> frames(n + 1);
  for (int k = 0; k <= n; ++k) {
    const geometry::Pose2 at = geometry::IntegrateArc(pose, v, omega, duration * k / n);
    frames[k] = {at.Position(), std::cos(at.theta), std::sin(at.theta)};
  }
  SweptOutline out;
  out.least = std::numeric_limits<double>::infinity();
  for (const geometry::Vec2& p : points) {
    if ((p - pose.Position()).squaredNorm() > reach * reach) continue;
    const double now = body.SignedDistance(frames[0].Local(p));
    double previous = now, nearest_sample = now, bound = now;
    for (int k = 1; k <= n; ++k) {
      const double d = body.SignedDistance(frames[k].Local(p));
      nearest_sample = std::min(nearest_sample, d);
      // Between samples k−1 and k the outline moves at most `moved`: the distance stays ≥ (d_{k−1} + d_k − moved)/2.
      bound = std::min(bound, 0.5 * (previous + d - moved));
      previous = d;
    }
    out.least = std::min(out.least, bound);
    // A point within the clearance already (or within the sampling's bound of it): clear if the motion takes it no
    // nearer than it is now at any sample — the body may leave a wall it touches, not press on into it.
    const bool ok = now < clearance + 0.5 * moved ? nearest_sample >= now : bound >= clearance;
    if (!ok) out.clear = false;
  }
  return out;
}

}  // namespace limbic::controller
