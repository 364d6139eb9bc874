#include "services/explore/line_scan.hpp"

#include <algorithm>
#include <cmath>
#include <optional>
#include <stdexcept>

namespace limbic::explore {

std::vector<Lane> Lanes(const mapper::GridMaps& maps, int x0, int y0, int x1, int y1,
                        const std::function<bool(const Cell&)>& member, const LineScanOptions& options) {
  if (x1 <= x0 || y1 <= y0) throw std::invalid_argument("explore: line scanning over an empty environment");
  if (!(options.sensing_range > 0)) throw std::invalid_argument("explore: line scanning needs a sensing range > 0");
  if (!(options.end_clearance >= 0) || !std::isfinite(options.end_clearance))
    throw std::invalid_argument("explore: line scanning's end clearance must be finite and >= 0");
  if (options.interior_min.hasNaN() || options.interior_max.hasNaN() ||
      !(options.interior_min.x() < options.interior_max.x()) || !(options.interior_min.y() < options.interior_max.y()))
    throw std::invalid_argument("explore: line scanning's interior must have min < max in x and y");
  const GridSpec& grid = maps.spec;
  const double res = grid.resolution;
  const double d = options.sensing_range;
  const KnowledgeOptions& k = options.knowledge;
  // Along x when the environment is at least as wide as tall: u runs along the lane, w across it.
  const bool along_x = (x1 - x0) >= (y1 - y0);
  const int u0 = along_x ? x0 : y0, u1 = along_x ? x1 : y1;
  const int w0 = along_x ? y0 : x0, w1 = along_x ? y1 : x1;
  const double w_origin = along_x ? grid.origin.y() : grid.origin.x();
  auto cell = [&](int u, int w) { return along_x ? Cell{u, w} : Cell{w, u}; };
  auto in = [&](const Cell& c) { return grid.Contains(c) && (!member || member(c)); };
  auto centre_w = [&](int w) { return w_origin + (w + 0.5) * res; };
  // Cells within end_clearance of a cell's centre (offsets (dx, dy) with |(dx, dy)|·res ≤ r), and whether a lane end
  // may stand there: clear of the grid's edge and of every known obstacle by r.
  const double r = options.end_clearance;
  const int reach = static_cast<int>(std::floor(r / res + 1e-9));
  std::vector<Cell> near;
  for (int dy = -reach; dy <= reach && r > 0; ++dy) {
    for (int dx = -reach; dx <= reach; ++dx) {
      if (std::hypot(dx, dy) * res <= r + 1e-9) near.push_back({dx, dy});
    }
  }
  auto clear = [&](const Cell& c) {
    if (r <= 0) return true;
    const Vec2 p = grid.Center(c);
    const double x_lo = grid.origin.x(), y_lo = grid.origin.y();
    const double x_hi = x_lo + grid.width * res, y_hi = y_lo + grid.height * res;
    if (std::min({p.x() - x_lo, x_hi - p.x(), p.y() - y_lo, y_hi - p.y()}) < r - 1e-9) return false;
    const Vec2& in_lo = options.interior_min;
    const Vec2& in_hi = options.interior_max;
    if (std::min({p.x() - in_lo.x(), in_hi.x() - p.x(), p.y() - in_lo.y(), in_hi.y() - p.y()}) < r - 1e-9) return false;
    for (const Cell& o : near) {
      const Cell q{c.ix + o.ix, c.iy + o.iy};
      if (grid.Contains(q) && maps.p_o[grid.Index(q)] >= k.occupied_threshold) return false;
    }
    return true;
  };

  const double extent = (w1 - w0) * res;
  const int n = std::max(1, static_cast<int>(std::ceil(extent / (2.0 * d) - 1e-9)));
  const double first = w_origin + w0 * res + 0.5 * (extent - 2.0 * d * (n - 1));
  std::vector<Lane> lanes;
  for (int i = 0; i < n; ++i) {
    const double offset = first + 2.0 * d * i;  // lanes 2d apart (spec §1)
    Lane lane;
    lane.offset = offset;
    int lo = u1, hi = u0 - 1;
    for (int w = w0; w < w1; ++w) {
      if (std::abs(centre_w(w) - offset) > d + 1e-9) continue;  // outside the swath
      for (int u = u0; u < u1; ++u) {
        const Cell c = cell(u, w);
        if (!in(c)) continue;
        const int idx = grid.Index(c);
        if (maps.p_e[idx] >= k.explored_threshold) continue;  // explored: nothing to gain here
        ++lane.unexplored;
        lo = std::min(lo, u);
        hi = std::max(hi, u);
      }
    }
    if (lane.unexplored == 0) continue;  // favour unexplored space: a seen swath needs no lane
    // The lane's own row of cells, and the nearest open member cell across it at a given u (within the swath).
    const int lane_w = std::clamp(static_cast<int>(std::floor((offset - w_origin) / res)), w0, w1 - 1);
    auto end_at = [&](int u) -> std::optional<Vec2> {
      std::optional<Vec2> best;
      double best_gap = 0.0;
      for (int w = w0; w < w1; ++w) {
        const Cell c = cell(u, w);
        if (!in(c) || maps.p_o[grid.Index(c)] >= k.occupied_threshold) continue;
        if (std::abs(centre_w(w) - offset) > d + 1e-9) continue;
        if (!clear(c)) continue;
        const double gap = std::abs(w - lane_w);
        if (!best || gap < best_gap) {
          best = grid.Center(c);
          best_gap = gap;
        }
      }
      return best;
    };
    std::optional<Vec2> a = end_at(lo), b = end_at(hi);
    if (r > 0) {  // an extreme column without a clear cell: the end moves inward along the lane
      for (int u = lo + 1; !a && u <= hi; ++u) a = end_at(u);
      for (int u = hi - 1; !b && u >= lo; --u) b = end_at(u);
    }
    if (!a && !b) continue;
    lane.a = a ? *a : *b;
    lane.b = b ? *b : *a;
    lanes.push_back(lane);
  }
  return lanes;
}

std::vector<Vec2> LineScanWaypoints(const std::vector<Lane>& lanes, const Vec2& robot) {
  std::vector<Vec2> out;
  if (lanes.empty()) return out;
  // Four ways to sweep: from the first or the last lane, from its a or its b end. Take the nearest start.
  const Lane& first = lanes.front();
  const Lane& last = lanes.back();
  const Vec2 starts[4] = {first.a, first.b, last.a, last.b};
  int best = 0;
  for (int s = 1; s < 4; ++s) {
    if ((starts[s] - robot).norm() < (starts[best] - robot).norm() - 1e-12) best = s;
  }
  const bool reverse_lanes = best >= 2;
  bool from_a = best % 2 == 0;
  for (size_t i = 0; i < lanes.size(); ++i) {
    const Lane& lane = lanes[reverse_lanes ? lanes.size() - 1 - i : i];
    const Vec2 p = from_a ? lane.a : lane.b, q = from_a ? lane.b : lane.a;
    out.push_back(p);
    if ((q - p).norm() > 1e-9) out.push_back(q);
    from_a = !from_a;  // boustrophedon: the next lane is swept the other way
  }
  return out;
}

}  // namespace limbic::explore
