// The cell-by-cell Coverage of before (every cell's centre tested against the bounds), kept as the test oracle of
// mapper::Coverage, which decides rows and columns once and must give the same double (grid_maps_test).
#pragma once

#include "services/mapper/grid_maps.hpp"

namespace limbic::mapper::testing {

inline double ReferenceCoverage(const GridMaps& maps, const geometry::Vec2& min, const geometry::Vec2& max,
                                CoverageMetric metric = CoverageMetric::kMeanExploration) {
  const geometry::GridSpec& s = maps.spec;
  double sum = 0.0;
  int count = 0;
  for (int iy = 0; iy < s.height; ++iy) {
    for (int ix = 0; ix < s.width; ++ix) {
      const geometry::Vec2 c = s.Center({ix, iy});
      if (c.x() < min.x() || c.x() > max.x() || c.y() < min.y() || c.y() > max.y()) continue;
      const double p_e = maps.p_e[s.Index({ix, iy})];
      sum += metric == CoverageMetric::kMeanExploration ? p_e : (p_e > 0.5 ? 1.0 : 0.0);
      ++count;
    }
  }
  return count > 0 ? sum / count : 0.0;
}

}  // namespace limbic::mapper::testing
