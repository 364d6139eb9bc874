#include "sim/segment_index.hpp"

#include <algorithm>
#include <cmath>

namespace limbic::sim {

using geometry::Vec2;

SegmentIndex::SegmentIndex(const std::vector<WorldObject>& objects, double cell_size) {
  double lo_x = 0, lo_y = 0, hi_x = 1, hi_y = 1;
  bool first = true;
  for (const WorldObject& o : objects) {
    const size_t n = o.vertices.size();
    if (n < 2) continue;
    for (size_t k = 0; k < n; ++k) {
      if (n == 2 && k == 1) break;  // a two-vertex object is one segment
      const Vec2& a = o.vertices[k];
      const Vec2& b = o.vertices[(k + 1) % n];
      segments_.push_back({{a, b}, PropertyBit(o.property), o.id});
      for (const Vec2& v : {a, b}) {
        if (first) {
          lo_x = hi_x = v.x();
          lo_y = hi_y = v.y();
          first = false;
        }
        lo_x = std::min(lo_x, v.x());
        lo_y = std::min(lo_y, v.y());
        hi_x = std::max(hi_x, v.x());
        hi_y = std::max(hi_y, v.y());
      }
    }
  }
  grid_.resolution = cell_size;
  grid_.origin = Vec2(lo_x - cell_size, lo_y - cell_size);
  grid_.width = static_cast<int>(std::ceil((hi_x - lo_x) / cell_size)) + 2;
  grid_.height = static_cast<int>(std::ceil((hi_y - lo_y) / cell_size)) + 2;
  // Bucket by the cells overlapping each segment's bounding box (exact for the axis-aligned walls).
  std::vector<std::vector<int>> buckets(grid_.CellCount());
  for (int s = 0; s < static_cast<int>(segments_.size()); ++s) {
    const auto& seg = segments_[s].segment;
    const geometry::Cell c0 = grid_.CellOf(seg.a.cwiseMin(seg.b));
    const geometry::Cell c1 = grid_.CellOf(seg.a.cwiseMax(seg.b));
    for (int iy = c0.iy; iy <= c1.iy; ++iy)
      for (int ix = c0.ix; ix <= c1.ix; ++ix) buckets[grid_.Index({ix, iy})].push_back(s);
  }
  cell_start_.assign(grid_.CellCount() + 1, 0);
  for (int c = 0; c < grid_.CellCount(); ++c) {
    cell_start_[c + 1] = cell_start_[c] + static_cast<int>(buckets[c].size());
    cell_items_.insert(cell_items_.end(), buckets[c].begin(), buckets[c].end());
  }
  stamp_.assign(segments_.size(), 0);
}

bool SegmentIndex::NextEpoch() const {
  if (++epoch_ == 0) {  // wrapped: clear the stamps once every 2^32 queries
    std::fill(stamp_.begin(), stamp_.end(), 0);
    epoch_ = 1;
  }
  return true;
}

namespace {
// Ray–segment distance, +inf on a miss (same convention as geometry::RaySegmentIntersection).
inline double HitDistance(double ox, double oy, double dx, double dy, const geometry::Segment& s) {
  const double ex = s.b.x() - s.a.x(), ey = s.b.y() - s.a.y();
  const double denom = dx * ey - dy * ex;
  if (std::abs(denom) < 1e-12) return std::numeric_limits<double>::infinity();
  const double wx = s.a.x() - ox, wy = s.a.y() - oy;
  const double t = (wx * ey - wy * ex) / denom;
  const double u = (wx * dy - wy * dx) / denom;
  if (t < 0.0 || u < 0.0 || u > 1.0) return std::numeric_limits<double>::infinity();
  return t;
}
}  // namespace

double SegmentIndex::CastRay(const Vec2& origin, const Vec2& dir, double max_range, uint32_t mask) const {
  constexpr double kInf = std::numeric_limits<double>::infinity();
  double best = kInf;
  if (segments_.empty()) return kInf;
  NextEpoch();
  const double ox = origin.x(), oy = origin.y(), dx = dir.x(), dy = dir.y();
  geometry::Cell cell = grid_.CellOf(origin);
  if (!grid_.Contains(cell)) {  // outside the indexed area: test everything
    for (const IndexedSegment& s : segments_)
      if (s.property_bit & mask) best = std::min(best, HitDistance(ox, oy, dx, dy, s.segment));
    return best <= max_range ? best : kInf;
  }
  // Amanatides–Woo traversal with early exit once the nearest hit lies inside the visited cells.
  const double r = grid_.resolution;
  const int step_x = dx > 0 ? 1 : (dx < 0 ? -1 : 0);
  const int step_y = dy > 0 ? 1 : (dy < 0 ? -1 : 0);
  double t_max_x = step_x != 0 ? (grid_.origin.x() + (cell.ix + (step_x > 0 ? 1 : 0)) * r - ox) / dx : kInf;
  double t_max_y = step_y != 0 ? (grid_.origin.y() + (cell.iy + (step_y > 0 ? 1 : 0)) * r - oy) / dy : kInf;
  const double t_delta_x = step_x != 0 ? r / std::abs(dx) : kInf;
  const double t_delta_y = step_y != 0 ? r / std::abs(dy) : kInf;
  while (true) {
    const int c = cell.iy * grid_.width + cell.ix;
    for (int k = cell_start_[c]; k < cell_start_[c + 1]; ++k) {
      const int s = cell_items_[k];
      if (stamp_[s] == epoch_) continue;
      stamp_[s] = epoch_;
      const IndexedSegment& seg = segments_[s];
      if (!(seg.property_bit & mask)) continue;
      const double t = HitDistance(ox, oy, dx, dy, seg.segment);
      if (t < best) best = t;
    }
    const double t_exit = std::min(t_max_x, t_max_y);
    if (best <= t_exit || t_exit > max_range) break;
    if (t_max_x < t_max_y) {
      cell.ix += step_x;
      t_max_x += t_delta_x;
    } else {
      cell.iy += step_y;
      t_max_y += t_delta_y;
    }
    if (!grid_.Contains(cell)) break;
  }
  return best <= max_range ? best : kInf;
}

}  // namespace limbic::sim
