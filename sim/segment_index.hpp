// Uniform-grid broad phase over the static segments of an environment, for ray casting and contact
// queries.
#pragma once

#include <cstdint>
#include <limits>
#include <vector>

#include "common/geometry/geometry.hpp"
#include "sim/environment.hpp"

namespace limbic::sim {

// Bit for a property in a query mask.
constexpr uint32_t PropertyBit(ObjectProperty p) { return 1u << static_cast<int>(p); }

// Which objects each query sees (§2.5, §3.1).
inline constexpr uint32_t kLongRangeBeamMask = PropertyBit(ObjectProperty::kStatic) |
                                               PropertyBit(ObjectProperty::kMoveable) |
                                               PropertyBit(ObjectProperty::kDynamic);
inline constexpr uint32_t kShortRangeBeamMask = kLongRangeBeamMask | PropertyBit(ObjectProperty::kFloor);
inline constexpr uint32_t kBodyMask = PropertyBit(ObjectProperty::kStatic) | PropertyBit(ObjectProperty::kMoveable) |
                                      PropertyBit(ObjectProperty::kLimitedVisibility);

// One edge of an object polygon.
struct IndexedSegment {
  geometry::Segment segment;
  uint32_t property_bit = 0;
  int object_id = 0;
};

// Segments bucketed into square cells (CSR layout). Queries are const but reuse an internal visit
// stamp, so one index must not be queried from two threads at once.
class SegmentIndex {
 public:
  SegmentIndex() = default;
  SegmentIndex(const std::vector<WorldObject>& objects, double cell_size);

  // Distance along the ray (|dir| = 1) to the nearest segment whose property is in `mask`,
  // searching only up to `max_range`; +infinity when there is none.
  double CastRay(const geometry::Vec2& origin, const geometry::Vec2& dir, double max_range, uint32_t mask) const;

  // Calls visit(const IndexedSegment&) once for every segment in `mask` stored in a cell that the
  // box [center ± radius] overlaps (a superset of the segments within `radius`).
  template <typename Visit>
  void ForEachNear(const geometry::Vec2& center, double radius, uint32_t mask, Visit&& visit) const;

  const std::vector<IndexedSegment>& segments() const { return segments_; }

 private:
  bool NextEpoch() const;

  std::vector<IndexedSegment> segments_;
  geometry::GridSpec grid_;
  std::vector<int> cell_start_;  // size CellCount()+1
  std::vector<int> cell_items_;
  mutable std::vector<uint32_t> stamp_;
  mutable uint32_t epoch_ = 0;
};

template <typename Visit>
void SegmentIndex::ForEachNear(const geometry::Vec2& center, double radius, uint32_t mask, Visit&& visit) const {
  if (segments_.empty()) return;
  NextEpoch();
  const geometry::Cell lo = grid_.CellOf(center - geometry::Vec2(radius, radius));
  const geometry::Cell hi = grid_.CellOf(center + geometry::Vec2(radius, radius));
  const int x0 = std::max(lo.ix, 0), y0 = std::max(lo.iy, 0);
  const int x1 = std::min(hi.ix, grid_.width - 1), y1 = std::min(hi.iy, grid_.height - 1);
  for (int iy = y0; iy <= y1; ++iy) {
    for (int ix = x0; ix <= x1; ++ix) {
      const int c = iy * grid_.width + ix;
      for (int k = cell_start_[c]; k < cell_start_[c + 1]; ++k) {
        const int s = cell_items_[k];
        if (stamp_[s] == epoch_) continue;
        stamp_[s] = epoch_;
        if (segments_[s].property_bit & mask) visit(segments_[s]);
      }
    }
  }
}

}  // namespace limbic::sim
