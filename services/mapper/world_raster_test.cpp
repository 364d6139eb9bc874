#include "services/mapper/world_raster.hpp"

#include <gtest/gtest.h>

namespace limbic::mapper {
namespace {

TEST(WorldRaster, ThinWallMarksTheCellsItCrosses) {
  const geometry::GridSpec spec{{0, 0}, 0.35, 10, 10};
  // A 0.1 m thick wall along x = 1.0 (cells ix = 2, since 0.70 <= 1.0 < 1.05), y from 0 to 2.
  const KnownPolygon wall{{{0.95, 0.0}, {1.05, 0.0}, {1.05, 2.0}, {0.95, 2.0}}, true};
  const KnownPolygon glass{{{2.0, 2.0}, {2.5, 2.0}, {2.5, 2.5}, {2.0, 2.5}}, false};
  const std::vector<KnownPolygon> polygons{wall, glass};
  const GridMaps with = KnownMap(spec, polygons, true);
  const GridMaps without = KnownMap(spec, polygons, false);
  EXPECT_EQ(with.p_o[spec.Index({2, 0})], 1.0);
  EXPECT_EQ(with.p_o[spec.Index({2, 5})], 1.0);  // y 1.75..2.1 overlaps the wall's end
  EXPECT_EQ(with.p_o[spec.Index({2, 6})], 0.0);  // y 2.1.. is past it
  EXPECT_EQ(with.p_o[spec.Index({1, 0})], 0.0);
  EXPECT_EQ(with.p_o[spec.Index({6, 6})], 1.0);  // the invisible one, when included
  EXPECT_EQ(without.p_o[spec.Index({6, 6})], 0.0);
  EXPECT_EQ(with.p_e[spec.Index({0, 0})], 1.0);  // known map: fully explored
  const GridMaps free = AllFreeMap(spec);
  EXPECT_EQ(free.p_o[spec.Index({2, 0})], 0.0);
}

}  // namespace
}  // namespace limbic::mapper
