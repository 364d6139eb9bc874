#include "services/explore/two_tier_astar.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <queue>
#include <stdexcept>
#include <string>

namespace limbic::explore {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

struct OpenEntry {
  double f;
  double g;
  int node;
  bool operator>(const OpenEntry& o) const { return f != o.f ? f > o.f : node > o.node; }
};
using OpenList = std::priority_queue<OpenEntry, std::vector<OpenEntry>, std::greater<OpenEntry>>;

}  // namespace

void Validate(const TwoTierOptions& o) {
  auto bad = [](const std::string& field, double v) {
    throw std::invalid_argument("explore two-tier A*: " + field + " out of range (got " + std::to_string(v) + ")");
  };
  if (!(o.occupancy_threshold > 0.0 && o.occupancy_threshold <= 1.0))
    bad("T_o (occupancy_threshold)", o.occupancy_threshold);
  if (!std::isfinite(o.w10) || o.w10 < 0) bad("W_10", o.w10);
  if (!std::isfinite(o.w11) || o.w11 < 0) bad("W_11", o.w11);
  if (!std::isfinite(o.clearance_radius) || o.clearance_radius < 0) bad("clearance_radius", o.clearance_radius);
}

TwoTierPlanner::TwoTierPlanner(const Partition& partition, const mapper::GridMaps& maps, const TwoTierOptions& options)
    : partition_(partition), maps_(maps), options_(options) {
  Validate(options);
  maps.Validate();
  if (!(maps.spec == partition.grid()))
    throw std::invalid_argument("explore: maps and partition cover different grids");
  const GridSpec& g = partition.grid();
  multiplier_.assign(g.CellCount(), 1.0);
  // Cells whose centres lie within the clearance radius: offsets (dx, dy) with |(dx, dy)|·res ≤ r.
  const int reach = static_cast<int>(std::floor(options.clearance_radius / g.resolution + 1e-9));
  std::vector<Cell> offsets;
  for (int dy = -reach; dy <= reach; ++dy) {
    for (int dx = -reach; dx <= reach; ++dx) {
      if (std::hypot(dx, dy) * g.resolution <= options.clearance_radius + 1e-9) offsets.push_back({dx, dy});
    }
  }
  for (int y = 0; y < g.height; ++y) {
    for (int x = 0; x < g.width; ++x) {
      double sum = 0.0;
      int n = 0;
      for (const Cell& o : offsets) {
        const Cell c{x + o.ix, y + o.iy};
        if (!g.Contains(c)) continue;
        sum += maps.p_o[g.Index(c)];
        ++n;
      }
      const int i = g.Index({x, y});
      // c_m(x) = 1 + W_10·p_o(x) + W_11·mean p_o within the clearance radius (spec §1).
      multiplier_[i] = 1.0 + options.w10 * maps.p_o[i] + options.w11 * (n ? sum / n : 0.0);
    }
  }
  for (const Tile& t : partition.tiles()) {
    double sum = 0.0;
    bool any_free = false;
    for (int y = t.y0; y < t.y1; ++y) {
      for (int x = t.x0; x < t.x1; ++x) {
        const double p = maps.p_o[g.Index({x, y})];
        sum += p;
        any_free = any_free || p < options.occupancy_threshold;
      }
    }
    tile_multiplier_.push_back(1.0 + options.w10 * sum / t.CellCount());
    tile_passable_.push_back(any_free);
  }
}

bool TwoTierPlanner::Passable(const Cell& c) const {
  return partition_.grid().Contains(c) && maps_.p_o[partition_.grid().Index(c)] < options_.occupancy_threshold;
}

CoarseResult TwoTierPlanner::Coarse(int from, int to) const {
  CoarseResult result;
  const int n = static_cast<int>(partition_.tiles().size());
  if (from < 0 || to < 0 || from >= n || to >= n || !tile_passable_[to]) return result;
  std::vector<double> g(n, kInf);
  std::vector<int> parent(n, -1);
  std::vector<bool> closed(n, false);
  const Vec2 goal = partition_.tile(to).centre;
  OpenList open;
  g[from] = 0.0;
  open.push({(partition_.tile(from).centre - goal).norm(), 0.0, from});
  while (!open.empty()) {
    const OpenEntry e = open.top();
    open.pop();
    if (closed[e.node]) continue;
    closed[e.node] = true;
    if (e.node == to) break;
    for (int m : partition_.Neighbours(e.node)) {
      if (closed[m] || !tile_passable_[m]) continue;
      const double step = (partition_.tile(m).centre - partition_.tile(e.node).centre).norm() * tile_multiplier_[m];
      if (g[e.node] + step < g[m]) {
        g[m] = g[e.node] + step;
        parent[m] = e.node;
        open.push({g[m] + (partition_.tile(m).centre - goal).norm(), g[m], m});
      }
    }
  }
  if (!closed[to]) return result;
  result.success = true;
  result.cost = g[to];
  for (int t = to; t != -1; t = parent[t]) result.tiles.push_back(t);
  std::reverse(result.tiles.begin(), result.tiles.end());
  return result;
}

std::vector<double> TwoTierPlanner::CoarseCostsFrom(int from) const { return CoarseCosts(Graph(), from); }

CoarseGraph TwoTierPlanner::Graph() const {
  CoarseGraph graph;
  graph.tiles_x = partition_.tiles_x();
  graph.tiles_y = partition_.tiles_y();
  for (const Tile& t : partition_.tiles()) {
    graph.centres.push_back(t.centre);
    graph.multipliers.push_back(tile_passable_[t.id] ? tile_multiplier_[t.id] : 0.0);
  }
  return graph;
}

FineResult TwoTierPlanner::Fine(const Cell& start, const Cell& goal, const std::vector<int>& corridor) const {
  FineResult result;
  const GridSpec& grid = partition_.grid();
  if (!grid.Contains(start) || !Passable(goal)) return result;
  std::vector<bool> allowed;
  if (!corridor.empty()) {
    allowed.assign(partition_.tiles().size(), false);
    for (int t : corridor) allowed.at(static_cast<size_t>(t)) = true;
    if (!allowed[partition_.TileOf(start)] || !allowed[partition_.TileOf(goal)]) return result;
  }
  const int n = grid.CellCount();
  std::vector<double> g(n, kInf);
  std::vector<int> parent(n, -1);
  std::vector<bool> closed(n, false);
  const Vec2 goal_point = grid.Center(goal);
  const int s = grid.Index(start), t = grid.Index(goal);
  OpenList open;
  g[s] = 0.0;
  open.push({(grid.Center(start) - goal_point).norm(), 0.0, s});
  static constexpr int kDx[8] = {1, -1, 0, 0, 1, 1, -1, -1};
  static constexpr int kDy[8] = {0, 0, 1, -1, 1, -1, 1, -1};
  while (!open.empty()) {
    const OpenEntry e = open.top();
    open.pop();
    if (closed[e.node]) continue;
    closed[e.node] = true;
    ++result.expanded;
    if (e.node == t) break;
    const Cell c = grid.CellOfIndex(e.node);
    for (int k = 0; k < 8; ++k) {
      const Cell m{c.ix + kDx[k], c.iy + kDy[k]};
      // p_o(x) ≥ T_o: g(x) = ∞, the node is eliminated (spec §1).
      if (!Passable(m)) continue;
      if (!allowed.empty() && !allowed[partition_.TileOf(m)]) continue;
      const int j = grid.Index(m);
      if (closed[j]) continue;
      const double d_n = (k < 4 ? 1.0 : std::sqrt(2.0)) * grid.resolution;
      const double candidate = g[e.node] + d_n * multiplier_[j];  // g(x) = g(x_par) + d_n·c_m(x)
      if (candidate < g[j]) {
        g[j] = candidate;
        parent[j] = e.node;
        open.push({candidate + (grid.Center(m) - goal_point).norm(), candidate, j});
      }
    }
  }
  if (!closed[t]) return result;
  result.success = true;
  result.cost = g[t];
  for (int i = t; i != -1; i = parent[i]) result.cells.push_back(grid.CellOfIndex(i));
  std::reverse(result.cells.begin(), result.cells.end());
  return result;
}

TwoTierResult TwoTierPlanner::Plan(const Vec2& start, const Vec2& goal) const {
  TwoTierResult result;
  const GridSpec& grid = partition_.grid();
  const int from = partition_.TileAt(start), to = partition_.TileAt(goal);
  if (from < 0 || to < 0) return result;
  result.coarse = Coarse(from, to);
  if (result.coarse.success) result.fine = Fine(grid.CellOf(start), grid.CellOf(goal), result.coarse.tiles);
  if (!result.fine.success && options_.fallback_to_whole_grid) {
    result.fine = Fine(grid.CellOf(start), grid.CellOf(goal));
    result.used_fallback = result.fine.success;
  }
  result.success = result.fine.success;
  return result;
}

std::vector<Vec2> Waypoints(const GridSpec& grid, const std::vector<Cell>& cells, double spacing) {
  std::vector<Vec2> out;
  double since = 0.0;
  for (size_t i = 1; i < cells.size(); ++i) {
    since += (grid.Center(cells[i]) - grid.Center(cells[i - 1])).norm();
    if (since >= spacing - 1e-9 || i + 1 == cells.size()) {
      out.push_back(grid.Center(cells[i]));
      since = 0.0;
    }
  }
  return out;
}

}  // namespace limbic::explore
