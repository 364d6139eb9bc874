// A* over the planning grid with cost factor B^{m_f'} (spec §4.2, eqs. 5.5–5.8).
#pragma once

#include <cstdint>
#include <vector>

#include "common/geometry/geometry.hpp"
#include "common/types/navigation.hpp"
#include "services/planner/cost_field.hpp"
#include "services/planner/radix_heap.hpp"

namespace limbic::planner {

// One plan: from the robot's cell to the goal-point cell.
struct PlanRequest {
  geometry::Vec2 start{0, 0};  // robot position (world, m)
  geometry::Vec2 goal{0, 0};   // goal point (world, m)
  double time = 0.0;           // stamped into PlannedPath::planned_at (s)
};

struct PlanResult {
  PlannedPath path;        // success = false and empty only when start or goal is off the grid
  double path_cost = 0.0;  // g(goal) = Σ d_n·B^{m_f'} over the nodes after the start (eq. 5.6)
  int expanded = 0;        // nodes closed (for benchmarks)
  int pushed = 0;          // open-list insertions, re-insertions included (for benchmarks)
  int max_open = 0;        // largest open-list size (for benchmarks)
};

// Grid A* whose node cost is B^{m_f'(x)}.
// Inputs: CostLayers, CostSettings, PlanRequest. Outputs: PlanResult (path of cell centres start → goal,
// m_f' per node, max m_f' = raw cost stimulus of eq. 8.13).
// Implements: f = g + h (eq. 5.5), g(x) = g(x_par) + d_n·c(x) (eq. 5.6), c = B^{m_f'} (eq. 5.7) with m_f'
// from the lazily evaluated smoothing filter (eq. 5.8); 8-connected; h = Euclidean distance (m) to the
// goal cell centre, admissible and consistent because c ≥ 1.
// Deviation from the printed pseudo-code (§4.2, §8 item 22): standard relaxation — a neighbour already on
// the open list is re-parented when the new g is lower (pushed again into the open list, a monotone radix
// heap; the stale entry is skipped when popped: lazy deletion). The printed version never updates open
// nodes and can return a costlier path.
// Every cell is passable (c ≥ 1 is finite), so a path exists whenever start and goal are on the grid.
// Grid-sized buffers (flat arrays) are reused: nothing grid-sized is allocated after the first plan unless
// the grid grows.
class AStarPlanner {
 public:
  PlanResult Plan(const CostLayers& layers, const CostSettings& settings, const PlanRequest& request);

 private:
  // Per-cell search state, split by how hot it is: the open/closed mark is read for every neighbour (4 bytes
  // per cell, so the array stays in cache), g and the memoised cost factor only for cells not yet closed,
  // the parent only when a cell improves.
  struct Cost {
    double g = 0.0;
    double factor = 0.0;  // memoised B^{m_f'} (eqs. 5.7–5.8); valid while the mark is this plan's
  };

  CostField field_;
  std::vector<uint32_t> mark_;  // 2·epoch: open (g valid); 2·epoch + 1: closed; anything else: unvisited
  std::vector<Cost> cost_;
  std::vector<int32_t> parent_;
  MonotoneRadixHeap open_;  // lazy deletion: stale entries are skipped when popped
  std::vector<int32_t> reverse_path_;
  uint32_t epoch_ = 0;
};

}  // namespace limbic::planner
