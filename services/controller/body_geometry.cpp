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

void OutlineSweep::Set(const robot::Body& body, const geometry::Pose2& pose, double v, double omega, double duration,
                       double step) {
  if (!std::isfinite(pose.x) || !std::isfinite(pose.y) || !std::isfinite(pose.theta) || !std::isfinite(v) ||
      !std::isfinite(omega) || !std::isfinite(duration) || !std::isfinite(step))
    throw std::invalid_argument("SweepOutline: non-finite input");
  if (duration < 0.0 || !(step > 0.0))
    throw std::invalid_argument("SweepOutline: duration and clearance must be >= 0 and step > 0");
  body_ = &body;
  // No point of the body is farther than reach_from_origin() from R's origin, which itself travels |v|·duration.
  reach_ = body.reach_from_origin() + std::abs(v) * duration;
  // A body point at ρ from R's origin moves at most |v| + |ω|·ρ.
  const double body_speed = std::abs(v) + std::abs(omega) * body.reach_from_origin();
  const int n = std::max(1, static_cast<int>(std::ceil(body_speed * duration / step)));
  moved_ = body_speed * duration / n;  // the most any body point moves between two samples
  frames_.resize(n + 1);
  for (int k = 0; k <= n; ++k) {
    const geometry::Pose2 at = geometry::IntegrateArc(pose, v, omega, duration * k / n);
    frames_[k] = {at.Position(), std::cos(at.theta), std::sin(at.theta), at.ToWorld(body.centre())};
  }
}

OutlineSweep::Gap OutlineSweep::At(const geometry::Vec2& p) const {
  auto distance = [&](const Frame& f) {
    const geometry::Vec2 d = p - f.origin;
    return body_->SignedDistance({f.c * d.x() + f.s * d.y(), -f.s * d.x() + f.c * d.y()});
  };
  Gap g;
  g.now = distance(frames_[0]);
  double previous = g.now;
  g.nearest_sample = g.now;
  g.bound = g.now;
  for (size_t k = 1; k < frames_.size(); ++k) {
    const double d = distance(frames_[k]);
    g.nearest_sample = std::min(g.nearest_sample, d);
    // Between samples k−1 and k the outline moves at most `moved`: the distance stays ≥ (d_{k−1} + d_k − moved)/2.
    g.bound = std::min(g.bound, 0.5 * (previous + d - moved_));
    previous = d;
  }
  return g;
}

double OutlineSweep::BoundBelow(const geometry::Vec2& p, double below) const {
  const double far = body_->circumscribed_radius() + moved_ + below;
  const double far2 = far > 0.0 ? far * far : std::numeric_limits<double>::infinity();
  double best = below;
  double previous = 0.0;
  bool measured_previous = false;
  for (size_t k = 0; k < frames_.size(); ++k) {
    const Frame& f = frames_[k];
    if ((p - f.centre).squaredNorm() >= far2) {
      measured_previous = false;
      continue;
    }
    const geometry::Vec2 d = p - f.origin;
    const double distance = body_->SignedDistance({f.c * d.x() + f.s * d.y(), -f.s * d.x() + f.c * d.y()});
    if (k == 0) best = std::min(best, distance);
    if (measured_previous) best = std::min(best, 0.5 * (previous + distance - moved_));
    previous = distance;
    measured_previous = true;
  }
  return best;
}

SweptOutline SweepOutline(const robot::Body& body, const geometry::Pose2& pose, double v, double omega, double duration,
                          std::span<const geometry::Vec2> points, double clearance, double step) {
  if (!std::isfinite(clearance)) throw std::invalid_argument("SweepOutline: non-finite input");
  if (clearance < 0.0) throw std::invalid_argument("SweepOutline: duration and clearance must be >= 0 and step > 0");
  OutlineSweep sweep;
  sweep.Set(body, pose, v, omega, duration, step);
  // A point farther than the sweep's reach plus the clearance from R's start cannot come within the clearance.
  const double reach = sweep.reach() + clearance;
  SweptOutline out;
  out.least = std::numeric_limits<double>::infinity();
  for (const geometry::Vec2& p : points) {
    if ((p - pose.Position()).squaredNorm() > reach * reach) continue;
    const OutlineSweep::Gap g = sweep.At(p);
    out.least = std::min(out.least, g.bound);
    // A point within the clearance already (or within the sampling's bound of it): clear if the motion takes it no
    // nearer than it is now at any sample — the body may leave a wall it touches, not press on into it.
    const bool ok = g.now < clearance + 0.5 * sweep.moved() ? g.nearest_sample >= g.now : g.bound >= clearance;
    if (!ok) out.clear = false;
  }
  return out;
}

}  // namespace limbic::controller
