// Planar geometry shared by the simulator, the navigation services and the affect engine.
// Plain value types over Eigen; angles in radians, distances in metres.
#pragma once

#include <Eigen/Core>
#include <array>
#include <cmath>
#include <limits>
#include <numbers>
#include <optional>

namespace limbic::geometry {

using Vec2 = Eigen::Vector2d;

inline constexpr double kPi = std::numbers::pi;
// A reading or value that is not a number (a sensor's dropout, an unset field).
inline constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// adjust(a) of the spec: wraps an angle into [-π, π).
inline double WrapAngle(double a) {
  double w = std::fmod(a + kPi, 2.0 * kPi);
  if (w < 0) w += 2.0 * kPi;
  return w - kPi;
}

// Absolute angular difference |adjust(a − b)| in [0, π].
inline double AngleDistance(double a, double b) { return std::abs(WrapAngle(a - b)); }

inline Vec2 UnitVector(double angle) { return {std::cos(angle), std::sin(angle)}; }

struct Pose2 {
  double x = 0.0;
  double y = 0.0;
  double theta = 0.0;

  Vec2 Position() const { return {x, y}; }
  // A point given in the robot frame, expressed in the world frame.
  Vec2 ToWorld(const Vec2& local) const {
    const double c = std::cos(theta), s = std::sin(theta);
    return {x + c * local.x() - s * local.y(), y + s * local.x() + c * local.y()};
  }
  bool operator==(const Pose2&) const = default;
};

struct Segment {
  Vec2 a;
  Vec2 b;
  Vec2 Midpoint() const { return 0.5 * (a + b); }
  double Length() const { return (b - a).norm(); }
};

// Distance along a ray (origin + t·dir, t ≥ 0, |dir| = 1) to its first intersection with the segment.
std::optional<double> RaySegmentIntersection(const Vec2& origin, const Vec2& dir, const Segment& segment);

// Distance along a ray to the first point of a circle's boundary it meets. A ray that starts inside the
// circle meets it at 0 (the point is already within the obstacle).
std::optional<double> RayCircleIntersection(const Vec2& origin, const Vec2& dir, const Vec2& center, double radius);

double PointSegmentDistance(const Vec2& p, const Segment& segment);
Vec2 ClosestPointOnSegment(const Vec2& p, const Segment& segment);

// Intersection points of a segment with a circle's boundary (0, 1 or 2 of them).
struct SegmentCircleHits {
  int count = 0;
  std::array<Vec2, 2> points;
};
SegmentCircleHits SegmentCircleIntersections(const Segment& segment, const Vec2& center, double radius);

// Exact integration over a circular arc at constant (v, ω) for dt (eqs. 4.6–4.7); the straight-line
// limit v·dt·(cos θ, sin θ) is used when |ω| is near 0.
Pose2 IntegrateArc(const Pose2& pose, double v, double omega, double dt);

// Minimum distance from point p to the path traced at constant (v, ω) from `pose` between times t1 and
// t2 (the "curvature segment" of the velocity controller, §4.5). Arc, straight segment or a point.
double PointToCurvatureSegmentDistance(const Vec2& p, const Pose2& pose, double v, double omega, double t1, double t2);

// Integer cell coordinates on a grid.
struct Cell {
  int ix = 0;
  int iy = 0;
  bool operator==(const Cell&) const = default;
};

// A regular grid over the plane: origin is the lower-left corner of cell (0, 0).
struct GridSpec {
  Vec2 origin = Vec2::Zero();
  double resolution = 0.35;
  int width = 0;
  int height = 0;

  int CellCount() const { return width * height; }
  bool Contains(const Cell& c) const { return c.ix >= 0 && c.iy >= 0 && c.ix < width && c.iy < height; }
  int Index(const Cell& c) const { return c.iy * width + c.ix; }
  Cell CellOfIndex(int index) const { return {index % width, index / width}; }
  Cell CellOf(const Vec2& p) const {
    return {static_cast<int>(std::floor((p.x() - origin.x()) / resolution)),
            static_cast<int>(std::floor((p.y() - origin.y()) / resolution))};
  }
  Vec2 Center(const Cell& c) const {
    return {origin.x() + (c.ix + 0.5) * resolution, origin.y() + (c.iy + 0.5) * resolution};
  }
  bool operator==(const GridSpec&) const = default;
};

// Cells crossed by the segment from a to b (Amanatides–Woo traversal), in order, clipped to the grid.
template <typename Visit>
void TraverseCells(const GridSpec& grid, const Vec2& a, const Vec2& b, Visit&& visit);

}  // namespace limbic::geometry

#include "common/geometry/traverse_impl.hpp"
