#include "sim/body.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "sim/robot.hpp"

namespace limbic::sim {
namespace {

double Cross(const Vec2& a, const Vec2& b) { return a.x() * b.y() - a.y() * b.x(); }

// Parameters s (along p→q) and t (along a→b) where two segments cross; nullopt when parallel or apart.
std::optional<std::pair<double, double>> Crossing(const Vec2& p, const Vec2& q, const Vec2& a, const Vec2& b) {
  const Vec2 r = q - p, e = b - a;
  const double denom = Cross(r, e);
  if (std::abs(denom) < 1e-15) return std::nullopt;
  const Vec2 w = a - p;
  const double s = Cross(w, e) / denom;
  const double t = Cross(w, r) / denom;
  if (s < 0.0 || s > 1.0 || t < 0.0 || t > 1.0) return std::nullopt;
  return std::make_pair(s, t);
}

bool InPolygon(const std::vector<Vec2>& poly, const Vec2& p) {
  bool inside = false;
  for (size_t i = 0, j = poly.size() - 1; i < poly.size(); j = i++) {
    const Vec2& a = poly[j];
    const Vec2& b = poly[i];
    if ((a.y() > p.y()) != (b.y() > p.y()) && p.x() < (b.x() - a.x()) * (p.y() - a.y()) / (b.y() - a.y()) + a.x())
      inside = !inside;
  }
  return inside;
}

}  // namespace

PlacedBody::PlacedBody(const robot::Body& body, const Pose2& pose) {
  circle_ = body.is_circle();
  // A circle about R's origin stays exactly at the pose (no rotation of a zero vector rounding anything).
  centre_ = body.centre().isZero() ? pose.Position() : pose.ToWorld(body.centre());
  bound_ = body.circumscribed_radius();
  if (circle_) {
    radius_ = body.radius();
    return;
  }
  polygon_.reserve(body.vertices().size());
  for (const Vec2& v : body.vertices()) polygon_.push_back(pose.ToWorld(v));
}

PlacedBody PlacedBody::Disc(const Vec2& centre, double radius) {
  PlacedBody b;
  b.circle_ = true;
  b.centre_ = centre;
  b.radius_ = radius;
  b.bound_ = radius;
  return b;
}

std::optional<Vec2> PlacedBody::ContactWithSegment(const geometry::Segment& segment) const {
  if (circle_) return SegmentContactPoint(segment, centre_, radius_);
  // Cull as eq. 4.9 does, with the circumscribed circle.
  const double half = 0.5 * segment.Length();
  if ((segment.Midpoint() - centre_).squaredNorm() > (bound_ + half) * (bound_ + half)) return std::nullopt;
  // The part of the segment inside the outline runs from its first to its last point inside: from an end that
  // lies inside, or from a crossing with an edge.
  double lo = std::numeric_limits<double>::infinity(), hi = -lo;
  if (InPolygon(polygon_, segment.a)) lo = hi = 0.0;
  if (InPolygon(polygon_, segment.b)) {
    lo = std::min(lo, 1.0);
    hi = 1.0;
  }
  for (size_t i = 0; i < polygon_.size(); ++i) {
    if (auto c = Crossing(segment.a, segment.b, polygon_[i], polygon_[(i + 1) % polygon_.size()])) {
      lo = std::min(lo, c->first);
      hi = std::max(hi, c->first);
    }
  }
  if (lo > hi) return std::nullopt;
  return segment.a + 0.5 * (lo + hi) * (segment.b - segment.a);
}

double PlacedBody::SignedDistance(const Vec2& p) const {
  if (circle_) return (p - centre_).norm() - radius_;
  double best = std::numeric_limits<double>::infinity();
  for (size_t i = 0; i < polygon_.size(); ++i)
    best = std::min(best, geometry::PointSegmentDistance(p, {polygon_[i], polygon_[(i + 1) % polygon_.size()]}));
  return InPolygon(polygon_, p) ? -best : best;
}

Vec2 PlacedBody::NearestOutlinePoint(const Vec2& p) const {
  if (circle_) {
    const Vec2 d = p - centre_;
    const double n = d.norm();
    return n < 1e-12 ? Vec2(centre_ + Vec2(radius_, 0.0)) : Vec2(centre_ + (radius_ / n) * d);
  }
  Vec2 best_point = polygon_[0];
  double best = std::numeric_limits<double>::infinity();
  for (size_t i = 0; i < polygon_.size(); ++i) {
    const Vec2 q = geometry::ClosestPointOnSegment(p, {polygon_[i], polygon_[(i + 1) % polygon_.size()]});
    const double d = (q - p).squaredNorm();
    if (d < best) {
      best = d;
      best_point = q;
    }
  }
  return best_point;
}

std::optional<Vec2> PlacedBody::ContactWithCircle(const Vec2& centre, double radius) const {
  if (circle_) return CircleContactPoint(centre_, radius_, centre, radius);
  if ((centre - centre_).squaredNorm() >= (bound_ + radius) * (bound_ + radius)) return std::nullopt;
  const double d = SignedDistance(centre);
  if (d >= radius) return std::nullopt;
  if (d <= 0.0) return centre;
  // Outside: between the outline's nearest point q and the circle's point nearest to q.
  const Vec2 q = NearestOutlinePoint(centre);
  const Vec2 deepest = centre + (radius / d) * (q - centre);
  return 0.5 * (q + deepest);
}

std::optional<Vec2> PlacedBody::ContactWith(const PlacedBody& other) const {
  if (other.circle_) return ContactWithCircle(other.centre_, other.radius_);
  if (circle_) return other.ContactWithCircle(centre_, radius_);
  const double reach = bound_ + other.bound_;
  if ((other.centre_ - centre_).squaredNorm() >= reach * reach) return std::nullopt;
  Vec2 sum = Vec2::Zero();
  int n = 0;
  for (size_t i = 0; i < polygon_.size(); ++i) {
    const Vec2& p = polygon_[i];
    const Vec2& q = polygon_[(i + 1) % polygon_.size()];
    for (size_t j = 0; j < other.polygon_.size(); ++j) {
      if (auto c = Crossing(p, q, other.polygon_[j], other.polygon_[(j + 1) % other.polygon_.size()])) {
        sum += p + c->first * (q - p);
        ++n;
      }
    }
  }
  if (n > 0) return sum / n;
  // No crossing: one lies wholly inside the other.
  if (InPolygon(other.polygon_, polygon_[0])) return centre_;
  if (InPolygon(polygon_, other.polygon_[0])) return other.centre_;
  return std::nullopt;
}

std::optional<double> PlacedBody::RayHit(const Vec2& origin, const Vec2& dir) const {
  if (circle_) return geometry::RayCircleIntersection(origin, dir, centre_, radius_);
  if (InPolygon(polygon_, origin)) return 0.0;
  std::optional<double> best;
  for (size_t i = 0; i < polygon_.size(); ++i) {
    if (auto t = geometry::RaySegmentIntersection(origin, dir, {polygon_[i], polygon_[(i + 1) % polygon_.size()]})) {
      if (!best || *t < *best) best = t;
    }
  }
  return best;
}

}  // namespace limbic::sim
