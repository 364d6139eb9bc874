// The motion law's free travel f (§1.7.2 step 3) as it was before it took two beams at a time, kept
// verbatim as the oracle of the tests: the same f, bit for bit.
#pragma once

#include <algorithm>
#include <cmath>

#include "services/laser_sim/motion.hpp"

namespace limbic::laser::reference {

inline double FreeTravelDistance(const RangeScan& scan, double heading_deg, const MotionOptions& o) {
  const double half_width = o.robot_radius_cm + o.corridor_extra_cm;
  const double half_width2 = half_width * half_width;
  // φ = a − heading for beam a: sin φ and cos φ from the beam table and u(heading) (no trigonometry per beam).
  const Vec2 uh = UnitVector(heading_deg);
  const auto& u = BeamUnitVectors();
  const int h = static_cast<int>(std::lround(Wrap360(heading_deg))) % kBeams;
  double f = kMaxRangeCm;
  // Beams h − 90 … h + 90 (the minimum does not depend on the order they are visited in).
  ForEachBeam(h - 90, h + 90, [&](int a) {
    if (scan[a] >= kMaxRangeCm) return;
    const double r = scan[a];
    const double cos_phi = Dot(u[a], uh);
    if (cos_phi <= 0.0) return;  // φ outside (−90°, 90°)
    const double lateral = r * (u[a].x * uh.y - u[a].y * uh.x);
    if (std::fabs(lateral) >= half_width) return;
    f = std::min(f, r * cos_phi - std::sqrt(half_width2 - lateral * lateral) + o.robot_radius_cm);
  });
  return f;
}

}  // namespace limbic::laser::reference
