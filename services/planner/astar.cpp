#include "services/planner/astar.hpp"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <limits>
#include <numbers>

namespace limbic::planner {

PlanResult AStarPlanner::Plan(const CostLayers& layers, const CostSettings& settings, const PlanRequest& request) {
  field_.Begin(layers, settings);  // validates the layers
  const geometry::GridSpec& spec = layers.maps->spec;
  PlanResult result;
  result.path.planned_at = request.time;
  const geometry::Cell start = spec.CellOf(request.start);
  const geometry::Cell goal = spec.CellOf(request.goal);
  if (!spec.Contains(start) || !spec.Contains(goal)) return result;  // the only failure

  constexpr double kInf = std::numeric_limits<double>::infinity();
  const int width = spec.width, height = spec.height;
  const int pw = width + 2, ph = height + 2;
  if (pw != padded_width_ || ph != padded_height_) {
    const size_t n = static_cast<size_t>(pw) * ph;
    nodes_.assign(n, Node{-kInf, 1.0});  // the border keeps −inf; the interior is reset below on every plan
    padded_width_ = pw;
    padded_height_ = ph;
  }
  auto padded = [pw](int ix, int iy) { return (iy + 1) * pw + ix + 1; };

  const bool eager =
      options_.factor_evaluation == FactorEvaluation::kEager ||
      (options_.factor_evaluation == FactorEvaluation::kAuto && spec.CellCount() <= options_.eager_max_cells);
  double c_min = kInf;
  Node* const nodes = nodes_.data();
  for (int iy = 0; iy < height; ++iy) {
    Node* node_row = nodes + padded(0, iy);
    if (eager) {
      // The field keeps the rows whose inputs did not change since the last plan (bit-identical to FactorRow).
      double row_min;
      const double* row = field_.CachedFactorRow(iy, &row_min).data();
      c_min = std::min(c_min, row_min);
      for (int ix = 0; ix < width; ++ix) node_row[ix] = Node{kInf, row[ix]};
    } else {
      for (int ix = 0; ix < width; ++ix) node_row[ix].g = kInf;
    }
  }
  if (!eager) c_min = std::exp(field_.MinFused() * field_.log_base());
  c_min = std::max(1.0, c_min);  // c ≥ 1 always (B ≥ 1, m_f' ≥ 0)

  const double res = spec.resolution;
  const bool octile = options_.heuristic == Heuristic::kOctileMinCost;
  const double h_scale = options_.heuristic == Heuristic::kEuclidean ? res : res * c_min;
  // Heuristic in padded coordinates (the goal's padded coordinates are goal + 1).
  const int gx = goal.ix + 1, gy = goal.iy + 1;
  auto heuristic = [&](int px, int py) {
    const double dx = std::abs(px - gx), dy = std::abs(py - gy);
    if (octile) return h_scale * (std::max(dx, dy) + (std::numbers::sqrt2 - 1.0) * std::min(dx, dy));
    return h_scale * std::sqrt(dx * dx + dy * dy);
  };

  // Neighbour offsets in the padded array and their step lengths d_n = (1 or √2)·resolution (m).
  struct Step {
    int dx, dy, shift;
    double length;
  };
  Step steps[8] = {{1, 0, 0, 1.0},
                   {-1, 0, 0, 1.0},
                   {0, 1, 0, 1.0},
                   {0, -1, 0, 1.0},
                   {1, 1, 0, std::numbers::sqrt2},
                   {-1, 1, 0, std::numbers::sqrt2},
                   {1, -1, 0, std::numbers::sqrt2},
                   {-1, -1, 0, std::numbers::sqrt2}};
  for (Step& s : steps) {
    s.shift = s.dy * pw + s.dx;
    s.length = s.length * res;
  }

  const int start_index = padded(start.ix, start.iy);
  const int goal_index = padded(goal.ix, goal.iy);
  open_.Clear();
  // The popped cell's three rows of three nodes (each row spans at most two cache lines).
  const ptrdiff_t row_bytes = static_cast<ptrdiff_t>(pw * sizeof(Node));
  constexpr ptrdiff_t kNode = sizeof(Node);
  open_.SetPrefetch(nodes, sizeof(Node),
                    {-row_bytes - kNode, -row_bytes + kNode, -kNode, kNode, row_bytes - kNode, row_bytes + kNode});
  nodes[start_index].g = 0.0;
  open_.Push(heuristic(start.ix + 1, start.iy + 1), start_index, static_cast<uint32_t>(start.iy + 1));
  while (!open_.empty()) {
    const MonotoneRadixHeap::Entry top = open_.Pop();
    const int u = top.value;
    const double gu = nodes[u].g;
    if (std::signbit(gu)) continue;  // already closed: a stale entry (lazy deletion)
    nodes[u].g = -gu;                // close
    ++result.expanded;
    if (u == goal_index) break;
    const int uy = static_cast<int>(top.aux), ux = u - uy * pw;
    for (const Step& s : steps) {
      Node& v_node = nodes[u + s.shift];
      const double gv = v_node.g;
      if (!eager && gv == kInf) {  // first visit this plan: eq. 5.8 evaluated once per cell and plan
        v_node.factor = field_.Factor(ux + s.dx - 1, uy + s.dy - 1);
      }
      const double gn = gu + s.length * v_node.factor;  // eq. 5.6; never below a closed (≤ −0) or border g
      if (gn < gv) {
        const int v = u + s.shift;
        v_node.g = gn;
        open_.Push(gn + heuristic(ux + s.dx, uy + s.dy), v, static_cast<uint32_t>(uy + s.dy));  // eq. 5.5
        ++result.pushed;
        result.max_open = std::max(result.max_open, static_cast<int>(open_.size()));
      }
    }
  }

  // Backtrack from the goal (always reached: every cell is passable). Every reached cell v got g(v) =
  // g(u) + d_n·c(v) from a neighbour u that was closed then (its g final), so some closed neighbour repeats
  // that sum exactly. The walk takes the closed neighbour of lower g whose sum is closest to g(v) (exact in
  // practice; the nearest one only if a compiler evaluated the sum differently here), so g strictly
  // decreases and the walk ends at the start.
  reverse_path_.clear();
  for (int v = goal_index;;) {
    reverse_path_.push_back(v);
    if (v == start_index) break;
    const double gv = -nodes[v].g;  // closed: stored negated
    int next = -1;
    double best_error = kInf;
    for (const Step& s : steps) {
      const double gu = -nodes[v - s.shift].g;  // −(−inf) = +inf on the border
      if (!std::signbit(nodes[v - s.shift].g) || !(gu < gv)) continue;
      const double error = std::abs(gu + s.length * nodes[v].factor - gv);
      if (error < best_error) {
        best_error = error;
        next = v - s.shift;
        if (error == 0.0) break;
      }
    }
    assert(next != -1 && "A* backtrack: a reached cell without a closed predecessor");
    v = next;
  }
  PlannedPath& path = result.path;
  path.success = true;
  path.nodes.reserve(reverse_path_.size());
  path.node_costs.reserve(reverse_path_.size());
  for (auto it = reverse_path_.rbegin(); it != reverse_path_.rend(); ++it) {
    const geometry::Cell c{*it % pw - 1, *it / pw - 1};
    path.nodes.push_back(spec.Center(c));
    const double cost = field_.Filtered(c.ix, c.iy);
    path.node_costs.push_back(cost);
    path.max_cost = std::max(path.max_cost, cost);
  }
  result.path_cost = -nodes[goal_index].g;  // closed: stored negated
  return result;
}

}  // namespace limbic::planner
