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

// How the cost factor c = B^{m_f'} (eqs. 5.7–5.8) is evaluated during a plan.
enum class FactorEvaluation {
  // The whole field once per plan, row by row (the filter's inner loop runs along a row; one exp per cell).
  // Cheapest per expansion, and gives the exact grid minimum of c for the heuristic.
  kEager,
  // Only for cells the search reaches, memoised per plan (the spec's suggested optimisation, §4.2). Cheaper
  // when a plan touches a small part of a large grid.
  kLazy,
  // kEager when the grid has at most AStarOptions::eager_max_cells cells, kLazy above.
  kAuto,
};

// The A* heuristic (all are admissible and consistent, so the plan's cost is the optimum either way; they
// differ in how many nodes are expanded).
enum class Heuristic {
  // The spec's h (§4.2): Euclidean distance (m) to the goal cell centre; admissible because c ≥ 1.
  kEuclidean,
  // Euclidean distance × c_min, c_min = a lower bound of c over the grid (≥ 1).
  kEuclideanMinCost,
  // Octile distance (the shortest 8-connected path length, ≥ Euclidean) × c_min. Default: every step of
  // length d_n costs d_n·c ≥ d_n·c_min, and no 8-connected path is shorter than the octile distance.
  kOctileMinCost,
};

// c_min for the *MinCost heuristics: under kEager the exact min of c over the grid; under kLazy the bound
// B^{max(0, min m_f)} (the filter never lowers a cell: m_f' ≥ m_f), which is looser (often 1).
struct AStarOptions {
  FactorEvaluation factor_evaluation = FactorEvaluation::kAuto;
  // kAuto threshold. The eager field costs ~10 ns per cell (dominated by one exp per cell); a lazy plan pays
  // about the same per reached cell plus a branch per neighbour, so eager wins whenever a plan reaches most of
  // the grid. 1'000'000 cells (≈ 8 ms of eager field) covers the 1000 × 1000 case.
  int eager_max_cells = 1'000'000;
  Heuristic heuristic = Heuristic::kOctileMinCost;
};

// Grid A* whose node cost is B^{m_f'}.
// Inputs: CostLayers, CostSettings, PlanRequest. Outputs: PlanResult (path of cell centres start → goal,
// m_f' per node, max m_f' = raw cost stimulus of eq. 8.13).
// Implements: f = g + h (eq. 5.5), g(x) = g(x_par) + d_n·c(x) (eq. 5.6), c = B^{m_f'} (eq. 5.7) with m_f'
// from the smoothing filter (eq. 5.8), evaluated eagerly or lazily (AStarOptions); 8-connected.
// Deviation from the spec's heuristic (§4.2: plain Euclidean distance): by default h = octile distance ×
// c_min (AStarOptions::heuristic; Heuristic::kEuclidean is the spec's form). Both are admissible and
// consistent, so the plan cost is the same optimum; the tighter h expands fewer nodes.
// Deviation from the printed pseudo-code (§4.2, §8 item 22): standard relaxation — a neighbour already on
// the open list is re-parented when the new g is lower (pushed again into the open list, a monotone radix
// heap; the stale entry is skipped when popped: lazy deletion). The printed version never updates open
// nodes and can return a costlier path.
// Every cell is passable (c ≥ 1 is finite), so a path exists whenever start and goal are on the grid.
// Grid-sized buffers (flat arrays over the grid plus a one-cell border) are reused: nothing grid-sized is
// allocated after the first plan unless the grid's dimensions change. Eager factors are kept from plan to plan
// for the rows whose inputs did not change (CostField::CachedFactorRow: the same bits as computing them afresh).
class AStarPlanner {
 public:
  explicit AStarPlanner(const AStarOptions& options = {}) : options_(options) {}

  PlanResult Plan(const CostLayers& layers, const CostSettings& settings, const PlanRequest& request);

  const AStarOptions& options() const { return options_; }

 private:
  AStarOptions options_;
  MonotoneRadixHeap open_;  // value: padded index, aux: padded row; stale entries are skipped when popped
  CostField field_;
  // Per-cell search state on the grid padded by one cell on every side (index (iy + 1)·(width + 2) + ix + 1),
  // so a neighbour needs no bounds check. g and c share a cache line (16 bytes per cell): an expansion reads
  // three rows of three cells. g encodes the state in one load: +inf unvisited; > 0 open (g valid); sign bit
  // set closed (g negated; the start closes as −0); the border holds −inf (no g is below it, so it is never
  // relaxed). There is no parent array: the path is recovered from the goal by finding, at each node v, a
  // closed neighbour u with g(u) + d_n·c(v) == g(v) — the same floating-point sum that set g(v).
  struct Node {
    double g;
    double factor;  // B^{m_f'}: whole grid (eager) or set at the cell's first visit (lazy)
  };
  std::vector<Node> nodes_;
  int padded_width_ = 0, padded_height_ = 0;
  std::vector<int32_t> reverse_path_;
};

}  // namespace limbic::planner
