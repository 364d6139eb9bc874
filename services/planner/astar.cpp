#include "services/planner/astar.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>

namespace limbic::planner {

namespace {

struct Step {
  int dx;
  int dy;
  double length_cells;  // 1 or √2
};
constexpr Step kSteps[8] = {{1, 0, 1.0},  {-1, 0, 1.0}, {0, 1, 1.0},  {0, -1, 1.0},
                            {1, 1, std::numbers::sqrt2}, {-1, 1, std::numbers::sqrt2},
                            {1, -1, std::numbers::sqrt2}, {-1, -1, std::numbers::sqrt2}};

}  // namespace

PlanResult AStarPlanner::Plan(const CostLayers& layers, const CostSettings& settings,
                              const PlanRequest& request) {
  field_.Begin(layers, settings);  // validates the layers
  const geometry::GridSpec& spec = layers.maps->spec;
  PlanResult result;
  result.path.planned_at = request.time;
  const geometry::Cell start = spec.CellOf(request.start);
  const geometry::Cell goal = spec.CellOf(request.goal);
  if (!spec.Contains(start) || !spec.Contains(goal)) return result;  // the only failure

  const size_t n = static_cast<size_t>(spec.CellCount());
  if (mark_.size() < n) {
    mark_.resize(n, 0);
    cost_.resize(n);
    parent_.resize(n);
  }
  epoch_ += 1;
  if (epoch_ >= 0x7fffffffu) {  // 2·epoch + 1 must fit in 32 bits
    std::fill(mark_.begin(), mark_.end(), 0u);
    epoch_ = 1;
  }
  const uint32_t open_mark = 2 * epoch_;
  const uint32_t closed_mark = open_mark + 1;
  const int width = spec.width, height = spec.height;
  const double res = spec.resolution;
  const int goal_index = spec.Index(goal);
  const int start_index = spec.Index(start);
  auto heuristic = [&](int ix, int iy) {
    const double dx = ix - goal.ix, dy = iy - goal.iy;
    return res * std::sqrt(dx * dx + dy * dy);
  };

  open_.Clear();
  cost_[start_index].g = 0.0;
  parent_[start_index] = -1;
  mark_[start_index] = open_mark;
  open_.Push(heuristic(start.ix, start.iy), start_index);
  while (!open_.empty()) {
    const MonotoneRadixHeap::Entry top = open_.Pop();
    if (mark_[top.value] == closed_mark) continue;  // stale entry (lazy deletion)
    mark_[top.value] = closed_mark;
    ++result.expanded;
    if (top.value == goal_index) break;
    const int ux = top.value % width, uy = top.value / width;
    const double gu = cost_[top.value].g;
    for (const Step& s : kSteps) {
      const int vx = ux + s.dx, vy = uy + s.dy;
      if (vx < 0 || vy < 0 || vx >= width || vy >= height) continue;
      const int vi = vy * width + vx;
      const uint32_t mark = mark_[vi];
      if (mark == closed_mark) continue;
      Cost& v = cost_[vi];
      if (mark != open_mark) {  // first visit this plan: eq. 5.8 evaluated once per cell and plan
        v.factor = field_.Factor(vx, vy);
        v.g = std::numeric_limits<double>::infinity();
        mark_[vi] = open_mark;
      }
      const double g = gu + s.length_cells * res * v.factor;  // eq. 5.6
      if (g < v.g) {
        v.g = g;
        parent_[vi] = top.value;
        open_.Push(g + heuristic(vx, vy), vi);  // eq. 5.5
        ++result.pushed;
        result.max_open = std::max(result.max_open, static_cast<int>(open_.size()));
      }
    }
  }

  // Backtrack from the goal (always reached: every cell is passable).
  reverse_path_.clear();
  for (int i = goal_index; i != -1; i = parent_[i]) reverse_path_.push_back(i);
  PlannedPath& path = result.path;
  path.success = true;
  path.nodes.reserve(reverse_path_.size());
  path.node_costs.reserve(reverse_path_.size());
  for (auto it = reverse_path_.rbegin(); it != reverse_path_.rend(); ++it) {
    path.nodes.push_back(spec.Center(spec.CellOfIndex(*it)));
    const double cost = field_.Filtered(*it);
    path.node_costs.push_back(cost);
    path.max_cost = std::max(path.max_cost, cost);
  }
  result.path_cost = cost_[goal_index].g;
  return result;
}

}  // namespace limbic::planner
