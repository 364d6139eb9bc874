// The laser's exact cast as it was before issue 21's performance work, kept verbatim as the oracle of
// the tests: the faster cast must give the same ranges and hits, bit for bit, everywhere.
#pragma once

#include <algorithm>
#include <array>
#include <cmath>

#include "services/laser_sim/laser_scanner.hpp"

namespace limbic::laser::reference {

// |1/u(a)| per beam (huge where a component vanishes), so the walls cost multiplications only.
struct InverseBeams {
  std::array<double, kBeams> ix{}, iy{};
  InverseBeams() {
    const auto& u = BeamUnitVectors();
    for (int a = 0; a < kBeams; ++a) {
      ix[a] = 1.0 / std::max(std::fabs(u[a].x), 1e-300);
      iy[a] = 1.0 / std::max(std::fabs(u[a].y), 1e-300);
    }
  }
};

// Distances from p (inside the box) to the room's walls along every beam, capped at the laser's range.
// Beams of one compass quadrant meet the same two walls, so each quadrant is one branch-free loop.
inline void WallRanges(Vec2 p, double width, double height, ExactScan* out) {
  static const InverseBeams inv;
  const double east = width - p.x, west = p.x, north = height - p.y, south = p.y;
  auto quadrant = [&](int first, double x_wall, double y_wall) {
    for (int a = first; a < first + 90; ++a) {
      (*out)[a] = static_cast<float>(std::min({kMaxRangeCm, x_wall * inv.ix[a], y_wall * inv.iy[a]}));
    }
  };
  quadrant(0, east, north);    // 0..89°: north-east
  quadrant(90, east, south);   // 90..179°: south-east
  quadrant(180, west, south);  // 180..269°: south-west
  quadrant(270, west, north);  // 270..359°: north-west
}

inline void CastExact(const World& world, Vec2 p, ExactScan* ranges, std::array<int16_t, kBeams>* hit) {
  const auto& u = BeamUnitVectors();
  const bool outside = !(p.x > 0.0 && p.y > 0.0 && p.x < world.width && p.y < world.height);  // NaN: outside
  if (outside) {
    ranges->fill(0.0f);
    if (hit) hit->fill(kWall);
    return;
  }
  if (world.surroundings) {
    std::array<bool, kBeams> met{};
    world.surroundings->Cast(p, ranges, &met);
    if (hit) {
      for (int a = 0; a < kBeams; ++a) (*hit)[a] = met[a] ? kWall : kNothing;
    }
    return;
  }
  WallRanges(p, world.width, world.height, ranges);
  if (hit) {
    for (int a = 0; a < kBeams; ++a) (*hit)[a] = (*ranges)[a] < kMaxRangeCm ? kWall : kNothing;
  }
  for (size_t i = 0; i < world.obstacles.size(); ++i) {
    const Circle& c = world.obstacles[i];
    const Vec2 d{c.cx - p.x, c.cy - p.y};
    const double dist2 = d.x * d.x + d.y * d.y;
    const double r2 = c.r * c.r;
    if (dist2 <= r2) {  // the robot centre is inside this obstacle: every beam reads 0
      ranges->fill(0.0f);
      if (hit) hit->fill(static_cast<int16_t>(i));
      return;
    }
    const double reach = kMaxRangeCm + c.r;
    if (dist2 >= reach * reach) continue;  // out of range: no square root, no trigonometry
    const double dist = std::sqrt(dist2);
    // Eq. 3-1: the beams inside the visible half-angle asin(r/D) around the centre bearing.
    const double half = std::asin(c.r / dist) * kRadToDeg;
    const double centre = BearingOf(d);
    const int first = static_cast<int>(std::ceil(centre - half));
    const int last = static_cast<int>(std::floor(centre + half));
    for (int k = first; k <= last; ++k) {
      const int a = k < 0 ? k + kBeams : (k >= kBeams ? k - kBeams : k);  // first ≥ −90, last < 450
      const double b = u[a].x * d.x + u[a].y * d.y;
      const double disc = b * b - (dist2 - r2);
      if (disc < 0.0 || b <= 0.0) continue;
      const double l = b - std::sqrt(disc);  // Eq. 3-3, exact
      if (l > 0.0 && l < (*ranges)[a]) {
        (*ranges)[a] = static_cast<float>(l);
        if (hit) (*hit)[a] = static_cast<int16_t>(i);
      }
    }
  }
}

}  // namespace limbic::laser::reference
