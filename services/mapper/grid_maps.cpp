#include "services/mapper/grid_maps.hpp"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <stdexcept>
#include <string>

namespace limbic::mapper {

void CheckGridSpec(const geometry::GridSpec& spec) {
  if (spec.width <= 0 || spec.height <= 0 || !(spec.resolution > 0)) {
    throw std::invalid_argument("GridMaps: grid must have positive width, height and resolution");
  }
  if (!(spec.resolution >= 0.01 && spec.resolution <= 100.0) || !std::isfinite(spec.origin.x()) ||
      !std::isfinite(spec.origin.y())) {
    throw std::invalid_argument("GridMaps: resolution must be in [0.01, 100] m and the origin finite");
  }
  if (spec.width > kMaxGridSide || spec.height > kMaxGridSide || int64_t{spec.width} * spec.height > kMaxGridCells) {
    throw std::invalid_argument("GridMaps: grid of " + std::to_string(spec.width) + " x " +
                                std::to_string(spec.height) + " cells is above the limit (" +
                                std::to_string(kMaxGridSide) + " a side, " + std::to_string(kMaxGridCells) + " cells)");
  }
}

GridMaps GridMaps::Initial(const geometry::GridSpec& spec, double initial_p_o) {
  CheckGridSpec(spec);
  GridMaps maps;
  maps.spec = spec;
  const auto n = static_cast<size_t>(spec.CellCount());
  maps.p_o.assign(n, initial_p_o);
  maps.p_e.assign(n, kInitialExploration);
  maps.danger.assign(n, 0);
  return maps;
}

void GridMaps::Validate() const {
  CheckGridSpec(spec);  // before CellCount(): width × height of a hostile message overflows int
  const auto n = static_cast<size_t>(spec.CellCount());
  if (p_o.size() != n || p_e.size() != n || danger.size() != n) {
    throw std::invalid_argument("GridMaps: layer sizes (" + std::to_string(p_o.size()) + ", " +
                                std::to_string(p_e.size()) + ", " + std::to_string(danger.size()) +
                                ") do not match the grid's " + std::to_string(n) + " cells");
  }
  int previous = -1;
  for (const DangerSite& site : danger_sites) {
    if (site.cell < 0 || site.cell >= static_cast<int>(n)) {
      throw std::invalid_argument("GridMaps: danger site cell " + std::to_string(site.cell) + " is off the grid");
    }
    if (site.cell <= previous) throw std::invalid_argument("GridMaps: danger sites not in ascending cell order");
    if (!std::isfinite(site.point.x()) || !std::isfinite(site.point.y())) {
      throw std::invalid_argument("GridMaps: danger site of cell " + std::to_string(site.cell) + " is not finite");
    }
    if (!danger[site.cell]) {
      throw std::invalid_argument("GridMaps: danger site on cell " + std::to_string(site.cell) + " without danger");
    }
    previous = site.cell;
  }
}

namespace {
auto SiteLowerBound(std::vector<DangerSite>& sites, int cell) {
  return std::lower_bound(sites.begin(), sites.end(), cell, [](const DangerSite& s, int c) { return s.cell < c; });
}
}  // namespace

const DangerSite* GridMaps::SiteOf(int cell) const { return FindSite(danger_sites, cell); }

void GridMaps::SetSite(int cell, const geometry::Vec2& point) {
  const auto it = SiteLowerBound(danger_sites, cell);
  if (it != danger_sites.end() && it->cell == cell) {
    it->point = point;
  } else {
    danger_sites.insert(it, DangerSite{cell, point});
  }
}

void GridMaps::EraseSite(int cell) {
  const auto it = SiteLowerBound(danger_sites, cell);
  if (it != danger_sites.end() && it->cell == cell) danger_sites.erase(it);
}

geometry::GridSpec GridSpecCovering(const geometry::Vec2& min, const geometry::Vec2& max, double resolution,
                                    int margin_cells) {
  if (!(resolution > 0)) throw std::invalid_argument("GridSpecCovering: resolution must be positive");
  if (!(max.x() > min.x()) || !(max.y() > min.y())) {
    throw std::invalid_argument("GridSpecCovering: bounds must have max > min in x and y");
  }
  if (margin_cells < 0) throw std::invalid_argument("GridSpecCovering: margin_cells must be >= 0");
  // Sides computed in double first: a huge box must fail the check, not overflow the cast to int.
  const double width = std::ceil((max.x() - min.x()) / resolution) + 2.0 * margin_cells;
  const double height = std::ceil((max.y() - min.y()) / resolution) + 2.0 * margin_cells;
  if (!(width <= kMaxGridSide) || !(height <= kMaxGridSide)) {
    throw std::invalid_argument("GridSpecCovering: bounds of " + std::to_string(max.x() - min.x()) + " x " +
                                std::to_string(max.y() - min.y()) + " m need more than " +
                                std::to_string(kMaxGridSide) + " cells a side");
  }
  geometry::GridSpec spec;
  spec.resolution = resolution;
  spec.origin = min - geometry::Vec2(margin_cells * resolution, margin_cells * resolution);
  spec.width = static_cast<int>(width);
  spec.height = static_cast<int>(height);
  CheckGridSpec(spec);
  return spec;
}

void ApplyPatch(GridMaps& maps, const MapPatch& patch) {
  const int n = maps.CellCount();
  for (const CellPatch& c : patch.cells) {
    if (c.index < 0 || c.index >= n) {
      throw std::invalid_argument("ApplyPatch: cell index " + std::to_string(c.index) + " is off the grid of " +
                                  std::to_string(n) + " cells");
    }
  }
  if (!std::is_sorted(patch.cells.begin(), patch.cells.end(),
                      [](const CellPatch& a, const CellPatch& b) { return a.index < b.index; })) {
    throw std::invalid_argument("ApplyPatch: cells not in ascending index order");
  }
  const auto patched = [&patch](int cell) -> const CellPatch* {
    const auto it = std::lower_bound(patch.cells.begin(), patch.cells.end(), cell,
                                     [](const CellPatch& c, int i) { return c.index < i; });
    return it != patch.cells.end() && it->index == cell ? &*it : nullptr;
  };
  int previous = -1;
  for (const DangerSite& site : patch.danger_sites) {
    const CellPatch* c = patched(site.cell);
    if (c == nullptr || c->danger == 0 || site.cell <= previous || !std::isfinite(site.point.x()) ||
        !std::isfinite(site.point.y())) {
      throw std::invalid_argument("ApplyPatch: danger site of cell " + std::to_string(site.cell) +
                                  " is not a patched danger cell, out of order or not finite");
    }
    previous = site.cell;
  }
  for (const CellPatch& c : patch.cells) {
    maps.p_o[c.index] = c.p_o;
    maps.p_e[c.index] = c.p_e;
    maps.danger[c.index] = c.danger;
  }
  if (!maps.danger_sites.empty()) {
    std::erase_if(maps.danger_sites, [&](const DangerSite& s) { return patched(s.cell) != nullptr; });
  }
  if (!patch.danger_sites.empty()) {
    const auto middle =
        maps.danger_sites.insert(maps.danger_sites.end(), patch.danger_sites.begin(), patch.danger_sites.end());
    std::inplace_merge(maps.danger_sites.begin(), middle, maps.danger_sites.end(),
                       [](const DangerSite& a, const DangerSite& b) { return a.cell < b.cell; });
  }
}

void MapReplica::Reset(const MapSnapshot& snapshot) {
  snapshot.maps.Validate();
  snapshot_ = snapshot;
  has_map_ = true;
}

MapReplica::ApplyResult MapReplica::Apply(const MapPatch& patch) {
  if (!has_map_) return ApplyResult::kGap;
  if (patch.tick <= snapshot_.tick) return ApplyResult::kStale;
  if (patch.base_tick != snapshot_.tick) return ApplyResult::kGap;
  ApplyPatch(snapshot_.maps, patch);
  snapshot_.tick = patch.tick;
  return ApplyResult::kApplied;
}

double Coverage(const GridMaps& maps, const geometry::Vec2& min, const geometry::Vec2& max, CoverageMetric metric) {
  // Computed every tick by the mapper: which columns and rows have their centres inside the bounds is decided
  // once per call (the same test as cell by cell), and the sum runs over those cells in the same row-major order,
  // so the result is the same double as testing every cell (testing/reference_coverage.hpp, grid_maps_test).
  const geometry::GridSpec& s = maps.spec;
  // The columns inside are one run [first, last] (cell centres grow with ix), found by the same test: the sum
  // runs over them in order without an index list (issue 18: no allocation and one load less per cell).
  int first = -1, last = -1, inside = 0;
  for (int ix = 0; ix < s.width; ++ix) {
    const double x = s.Center({ix, 0}).x();
    if (!(x < min.x() || x > max.x())) {
      if (first < 0) first = ix;
      last = ix;
      ++inside;
    }
  }
  double sum = 0.0;
  int count = 0;
  if (inside == 0) return 0.0;
  // origin + (ix + 0.5)·resolution never decreases as ix grows (IEEE rounding is monotone): one run.
  assert(inside == last - first + 1 && "Coverage: the columns inside the bounds are one run");
  for (int iy = 0; iy < s.height; ++iy) {
    const double y = s.Center({0, iy}).y();
    if (y < min.y() || y > max.y()) continue;
    const double* row = maps.p_e.data() + static_cast<size_t>(iy) * static_cast<size_t>(s.width);
    if (metric == CoverageMetric::kMeanExploration) {
      for (int ix = first; ix <= last; ++ix) sum += row[ix];
    } else {
      for (int ix = first; ix <= last; ++ix) sum += row[ix] > 0.5 ? 1.0 : 0.0;
    }
    count += inside;
  }
  return count > 0 ? sum / count : 0.0;
}

}  // namespace limbic::mapper
