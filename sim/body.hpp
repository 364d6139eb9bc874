// A robot body placed in the world (issue 18 item 2): the outline of a robot::Body at a pose, and the contact,
// overlap and ray tests the simulator needs for circles and polygons alike. A circle uses exactly the §2.4
// circle rules (SegmentContactPoint, CircleContactPoint), so MARVIN's runs are unchanged; a polygon extends
// them to its outline.
#pragma once

#include <optional>
#include <vector>

#include "common/geometry/geometry.hpp"
#include "common/robot/robot_description.hpp"

namespace limbic::sim {

using geometry::Pose2;
using geometry::Vec2;

class PlacedBody {
 public:
  PlacedBody() = default;
  PlacedBody(const robot::Body& body, const Pose2& pose);
  // A plain circle (a person, or a robot's disc).
  static PlacedBody Disc(const Vec2& centre, double radius);

  bool is_circle() const { return circle_; }
  // World position of the body's centre, and a radius about it that holds the whole body (broad phase).
  const Vec2& centre() const { return centre_; }
  double bound() const { return bound_; }
  // The outline's vertices in the world frame (counter-clockwise); empty for a circle.
  const std::vector<Vec2>& polygon() const { return polygon_; }

  // Contact point with a segment: the §2.4 rule for a circle (eq. 4.9 cull; midpoint of the part of the segment
  // inside); for a polygon the midpoint of the part of the segment inside the outline. nullopt: no contact.
  std::optional<Vec2> ContactWithSegment(const geometry::Segment& segment) const;
  // Contact point with a circle: for a circle the midpoint of the two circles' intersection points
  // (CircleContactPoint); for a polygon the middle of the overlap along the line from the outline's nearest point
  // to the circle's centre (the centre itself when it lies inside).
  std::optional<Vec2> ContactWithCircle(const Vec2& centre, double radius) const;
  // Contact point with another body: circle–circle, circle–polygon or polygon–polygon (the mean of the points
  // where the outlines cross; a vertex inside the other body when they do not cross).
  std::optional<Vec2> ContactWith(const PlacedBody& other) const;
  // Distance along a ray (|dir| = 1) to the outline; 0 when the ray starts inside.
  std::optional<double> RayHit(const Vec2& origin, const Vec2& dir) const;
  // Signed distance of a world point from the outline (negative inside).
  double SignedDistance(const Vec2& p) const;
  // The point of the outline nearest to a world point.
  Vec2 NearestOutlinePoint(const Vec2& p) const;

 private:
  bool circle_ = true;
  Vec2 centre_{0, 0};
  double radius_ = 0.0;  // circle radius
  double bound_ = 0.0;
  std::vector<Vec2> polygon_;
};

}  // namespace limbic::sim
