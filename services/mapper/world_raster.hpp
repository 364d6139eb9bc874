// Maps known a priori (§6.4: "with a pre-built map", "unseen obstacles pre-marked", "a wrong map"):
// world polygons rasterised onto the mapper's grid.
#pragma once

#include <span>
#include <vector>

#include "common/geometry/geometry.hpp"
#include "services/mapper/grid_maps.hpp"

namespace limbic::mapper {

struct KnownPolygon {
  std::vector<geometry::Vec2> vertices;
  bool detectable = true;  // false: invisible to the IR sensors (sets F/G)
};

// True if the polygon overlaps the cell (sampled on a 5x5 lattice plus the polygon's vertices).
bool PolygonOverlapsCell(const geometry::GridSpec& spec, const geometry::Cell& cell,
                         std::span<const geometry::Vec2> polygon);

// A fully explored map (p_e = 1): p_o = 1 in cells any polygon overlaps, 0 elsewhere. Undetectable
// polygons are included only if `include_undetectable`.
GridMaps KnownMap(const geometry::GridSpec& spec, std::span<const KnownPolygon> polygons, bool include_undetectable);

// §6.4 "wrong map": everything known and free (p_o = 0, p_e = 1).
GridMaps AllFreeMap(const geometry::GridSpec& spec);

}  // namespace limbic::mapper
