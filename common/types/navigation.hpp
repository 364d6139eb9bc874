// Value types that flow between mapper, planner, controller and affect.
#pragma once

#include <algorithm>
#include <cstdint>
#include <span>
#include <vector>

#include "common/geometry/geometry.hpp"

namespace limbic {

// A cell whose occupancy was updated this cycle, for the mismatch stimulus (eq. 8.11).
struct UpdatedCell {
  int index = 0;
  double s_o = 0.0;         // instantaneous occupancy status (0 or 1)
  double p_o_before = 0.0;  // stored probability before this cycle's update
};

// Where a collision put the danger mark of one grid cell (issue 14): the mapper's danger point (§2.4, a point of
// the obstacle estimated from the bumpers and the sensors), world frame.
struct DangerSite {
  int cell = 0;
  geometry::Vec2 point{0, 0};
  bool operator==(const DangerSite&) const = default;
};

// The site of `cell` in `sites` (sorted by cell, one per cell), or nullptr.
inline const DangerSite* FindSite(std::span<const DangerSite> sites, int cell) {
  const auto it =
      std::lower_bound(sites.begin(), sites.end(), cell, [](const DangerSite& s, int c) { return s.cell < c; });
  return it != sites.end() && it->cell == cell ? &*it : nullptr;
}

// Per-cycle map statistics the affect engine needs (spec §1.4 MapUpdateStats).
struct MapUpdateStats {
  std::vector<UpdatedCell> updated_cells;
  double mean_p_e = 0.0;  // mean exploration over all cells (eq. 8.10)
  double density = 0.0;   // Σ p_e·p_o / Σ p_e (eq. 8.9)
};

// Planned path from the robot's cell to the goal cell (spec §4.2).
struct PlannedPath {
  bool success = false;
  std::vector<geometry::Vec2> nodes;  // cell centres, start → goal
  std::vector<double> node_costs;     // filtered fused cost m_f' per node
  double max_cost = 0.0;              // raw cost stimulus (eq. 8.13)
  double planned_at = 0.0;            // s
};

// Goal of one navigation instruction (traversal).
struct NavigationGoal {
  geometry::Vec2 goal{0, 0};
  int64_t instruction_id = 0;
  double received_at = 0.0;        // t_0 (s)
  double distance_at_start = 0.0;  // d_g(t_0) (m)
};

}  // namespace limbic
