// Who sees whom (issue 19, spec multi-robot §2): a robot senses the radius, position and active emotion of every
// neighbour inside the circular sector of horizon H and field of view [α − ψ, α + ψ] about its heading α. The
// simulator owns the true poses, so visibility is decided here, from the truth, and handed to the robots.
#pragma once

#include <span>
#include <vector>

#include "common/geometry/geometry.hpp"

namespace limbic::sim {

// One body as the world knows it: centre and radius (a disc).
struct VisibleDisc {
  geometry::Vec2 center{0, 0};
  double radius = 0.0;
};

// The indices of `bodies` (other than `self`, which may be -1) that `observer` sees: some part of the disc lies
// within the horizon (distance to the centre minus the radius ≤ horizon) and within the field of view (the bearing
// of the centre is within half_fov plus the disc's angular half-width asin(r / d) of the heading). A disc that
// overlaps the observer's centre is always seen. Sorted by index. Throws std::invalid_argument for a non-finite or
// negative horizon, a half_fov outside [0, π], a non-finite pose, or a body with a non-finite centre or a negative
// or non-finite radius (the simulator's truth is never NaN; a NaN here is a bug upstream, reported, not hidden).
std::vector<int> VisibleNeighbours(const geometry::Pose2& observer, double half_fov, double horizon,
                                   std::span<const VisibleDisc> bodies, int self);

}  // namespace limbic::sim
