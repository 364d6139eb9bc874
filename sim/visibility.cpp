#include "sim/visibility.hpp"

#include <cmath>
#include <stdexcept>
#include <string>

namespace limbic::sim {

std::vector<int> VisibleNeighbours(const geometry::Pose2& observer, double half_fov, double horizon,
                                   std::span<const VisibleDisc> bodies, int self) {
  if (!std::isfinite(horizon) || horizon < 0)
    throw std::invalid_argument("visibility: horizon must be finite and >= 0");
  if (!(half_fov >= 0 && half_fov <= geometry::kPi))
    throw std::invalid_argument("visibility: half field of view must be in [0, pi]");
  if (!std::isfinite(observer.x) || !std::isfinite(observer.y) || !std::isfinite(observer.theta))
    throw std::invalid_argument("visibility: observer pose is not finite");
  std::vector<int> seen;
  const geometry::Vec2 p = observer.Position();
  for (size_t i = 0; i < bodies.size(); ++i) {
    if (static_cast<int>(i) == self) continue;
    const VisibleDisc& b = bodies[i];
    if (!b.center.allFinite() || !std::isfinite(b.radius) || b.radius < 0)
      throw std::invalid_argument("visibility: body " + std::to_string(i) + " has a non-finite centre or bad radius");
    const geometry::Vec2 d = b.center - p;
    const double dist = d.norm();
    if (dist <= b.radius) {  // overlapping the observer: felt, whatever the heading
      seen.push_back(static_cast<int>(i));
      continue;
    }
    if (dist - b.radius > horizon) continue;
    const double bearing = std::atan2(d.y(), d.x());
    const double half_width = std::asin(b.radius / dist);
    if (geometry::AngleDistance(bearing, observer.theta) <= half_fov + half_width) seen.push_back(static_cast<int>(i));
  }
  return seen;
}

}  // namespace limbic::sim
