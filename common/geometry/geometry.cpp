#include "common/geometry/geometry.hpp"

#include <algorithm>

namespace limbic::geometry {
namespace {
double Cross(const Vec2& a, const Vec2& b) { return a.x() * b.y() - a.y() * b.x(); }
}  // namespace

std::optional<double> RaySegmentIntersection(const Vec2& origin, const Vec2& dir, const Segment& segment) {
  const Vec2 e = segment.b - segment.a;
  const double denom = Cross(dir, e);
  if (std::abs(denom) < 1e-12) return std::nullopt;  // parallel (collinear overlap treated as a miss)
  const Vec2 w = segment.a - origin;
  const double t = Cross(w, e) / denom;    // along the ray
  const double u = Cross(w, dir) / denom;  // along the segment
  if (t < 0.0 || u < 0.0 || u > 1.0) return std::nullopt;
  return t;
}

std::optional<double> RayCircleIntersection(const Vec2& origin, const Vec2& dir, const Vec2& center, double radius) {
  const Vec2 oc = origin - center;
  const double c = oc.squaredNorm() - radius * radius;
  if (c <= 0.0) return 0.0;
  const double b = oc.dot(dir);
  if (b > 0.0) return std::nullopt;  // pointing away
  const double disc = b * b - c;
  if (disc < 0.0) return std::nullopt;
  return -b - std::sqrt(disc);
}

Vec2 ClosestPointOnSegment(const Vec2& p, const Segment& segment) {
  const Vec2 e = segment.b - segment.a;
  const double len2 = e.squaredNorm();
  if (len2 < 1e-18) return segment.a;
  const double t = std::clamp((p - segment.a).dot(e) / len2, 0.0, 1.0);
  return segment.a + t * e;
}

double PointSegmentDistance(const Vec2& p, const Segment& segment) {
  return (p - ClosestPointOnSegment(p, segment)).norm();
}

SegmentCircleHits SegmentCircleIntersections(const Segment& segment, const Vec2& center, double radius) {
  SegmentCircleHits hits;
  const Vec2 d = segment.b - segment.a;
  const Vec2 f = segment.a - center;
  const double a = d.squaredNorm();
  if (a < 1e-18) return hits;
  const double b = 2.0 * f.dot(d);
  const double c = f.squaredNorm() - radius * radius;
  const double disc = b * b - 4.0 * a * c;
  if (disc < 0.0) return hits;
  const double sq = std::sqrt(disc);
  for (double t : {(-b - sq) / (2.0 * a), (-b + sq) / (2.0 * a)}) {
    if (t >= 0.0 && t <= 1.0 && hits.count < 2) {
      if (hits.count == 1 && disc == 0.0) break;  // tangent: one point
      hits.points[hits.count++] = segment.a + t * d;
    }
  }
  return hits;
}

Pose2 IntegrateArc(const Pose2& pose, double v, double omega, double dt) {
  Pose2 next = pose;
  if (std::abs(omega) < 1e-9) {
    next.x += v * dt * std::cos(pose.theta);
    next.y += v * dt * std::sin(pose.theta);
  } else {
    const double r = v / omega;
    next.x += r * (std::sin(pose.theta + omega * dt) - std::sin(pose.theta));
    next.y += r * (std::cos(pose.theta) - std::cos(pose.theta + omega * dt));
  }
  next.theta = WrapAngle(pose.theta + omega * dt);
  return next;
}

double PointToCurvatureSegmentDistance(const Vec2& p, const Pose2& pose, double v, double omega, double t1, double t2) {
  if (std::abs(v) < 1e-12) return (p - pose.Position()).norm();
  // Nearly straight: the arc's sagitta over the segment is negligible.
  const double sweep = std::abs(omega) * (t2 - t1);
  if (std::abs(omega) < 1e-6 || std::abs(v / omega) * (1.0 - std::cos(0.5 * sweep)) < 1e-6) {
    const Pose2 a = IntegrateArc(pose, v, omega, t1);
    const Pose2 b = IntegrateArc(pose, v, omega, t2);
    return PointSegmentDistance(p, {a.Position(), b.Position()});
  }
  const double r = v / omega;  // signed radius
  const Vec2 center{pose.x - r * std::sin(pose.theta), pose.y + r * std::cos(pose.theta)};
  const double radius = std::abs(r);
  // Polar angle of the robot about the centre at time t: φ(t) = φ0 + ω·t.
  const double phi0 = std::atan2(pose.y - center.y(), pose.x - center.x());
  const double phi1 = phi0 + omega * t1;
  const double sweep_signed = omega * (t2 - t1);
  const Vec2 rel = p - center;
  const double dist_center = rel.norm();
  if (sweep < 2.0 * kPi && dist_center > 1e-12) {
    const double phi_p = std::atan2(rel.y(), rel.x());
    // Is φ_p inside the swept interval (direction-aware)?
    double delta = WrapAngle(phi_p - phi1);
    if (sweep_signed < 0) delta = -delta;
    if (delta < 0) delta += 2.0 * kPi;
    if (delta <= sweep) return std::abs(dist_center - radius);
  } else if (sweep >= 2.0 * kPi) {
    return std::abs(dist_center - radius);
  }
  const Vec2 end_a = center + radius * UnitVector(phi1);
  const Vec2 end_b = center + radius * UnitVector(phi1 + sweep_signed);
  return std::min((p - end_a).norm(), (p - end_b).norm());
}

}  // namespace limbic::geometry
