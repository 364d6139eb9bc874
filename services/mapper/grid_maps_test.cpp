#include "services/mapper/grid_maps.hpp"

#include <gtest/gtest.h>

#include <cstring>
#include <limits>
#include <random>
#include <stdexcept>

#include "services/mapper/testing/reference_coverage.hpp"

namespace limbic::mapper {
namespace {

using geometry::GridSpec;
using geometry::Vec2;

TEST(GridSpecCovering, AddsOneCellMarginAroundBounds) {
  // 20 × 12 m (§8 item 11) at 0.35 m: ceil(57.14) = 58 and ceil(34.29) = 35 cells, plus 2 margin cells.
  const GridSpec s = GridSpecCovering({0, 0}, {20, 12});
  EXPECT_DOUBLE_EQ(s.resolution, 0.35);
  EXPECT_EQ(s.width, 60);
  EXPECT_EQ(s.height, 37);
  EXPECT_DOUBLE_EQ(s.origin.x(), -0.35);
  EXPECT_DOUBLE_EQ(s.origin.y(), -0.35);
  // The bounds' corners fall inside the grid, not in the margin's outer edge.
  EXPECT_TRUE(s.Contains(s.CellOf({0, 0})));
  EXPECT_TRUE(s.Contains(s.CellOf({20, 12})));
  EXPECT_EQ(s.CellOf({0.01, 0.01}).ix, 1);
  EXPECT_THROW(GridSpecCovering({0, 0}, {0, 5}), std::invalid_argument);
}

TEST(GridSpecCovering, RefusesWorldsBeyondTheGridBounds) {
  // 1 km at 0.35 m is inside the bounds; 1e9 m is refused instead of allocated.
  EXPECT_EQ(GridSpecCovering({0, 0}, {1000, 10}).width, 2860);  // ceil(2857.1) + 2
  EXPECT_THROW(GridSpecCovering({0, 0}, {1e9, 10}), std::invalid_argument);
  EXPECT_THROW(GridSpecCovering({0, 0}, {10, 1e300}), std::invalid_argument);
  // Each side within 4,096 but 4,000 × 4,000 = 16 M cells > 4 Mi cells.
  EXPECT_THROW(GridSpecCovering({0, 0}, {1400, 1400}), std::invalid_argument);
}

TEST(GridMaps, HostileSpecsAreRefusedBeforeAllocating) {
  geometry::GridSpec spec;
  spec.width = 100000;
  spec.height = 100000;  // 1e10 cells: width * height overflows int
  EXPECT_THROW(GridMaps::Initial(spec), std::invalid_argument);
  GridMaps maps;
  maps.spec = spec;
  EXPECT_THROW(maps.Validate(), std::invalid_argument);
  spec.width = spec.height = 10;
  spec.resolution = std::numeric_limits<double>::quiet_NaN();
  EXPECT_THROW(GridMaps::Initial(spec), std::invalid_argument);
  spec.resolution = 0.35;
  spec.origin.x() = std::numeric_limits<double>::infinity();
  EXPECT_THROW(GridMaps::Initial(spec), std::invalid_argument);
  spec.origin.x() = 0;
  EXPECT_EQ(GridMaps::Initial(spec).p_o.size(), 100u);
}

TEST(GridMaps, InitialValuesFollowSection41) {
  const GridMaps m = GridMaps::Initial(GridSpec{{0, 0}, 0.35, 4, 3});
  ASSERT_EQ(m.p_o.size(), 12u);
  for (int i = 0; i < 12; ++i) {
    EXPECT_EQ(m.p_o[i], 0.2);
    EXPECT_EQ(m.p_e[i], 0.0);
    EXPECT_EQ(m.danger[i], 0);
  }
  GridMaps bad = m;
  bad.p_e.pop_back();
  EXPECT_THROW(bad.Validate(), std::invalid_argument);
}

TEST(ApplyPatch, WritesAbsoluteValuesAndRejectsOffGridCells) {
  GridMaps m = GridMaps::Initial(GridSpec{{0, 0}, 0.35, 4, 3});
  MapPatch patch{0, 1, {{5, 0.7, 0.3, 1}, {11, 0.1, 0.02, 0}}};
  ApplyPatch(m, patch);
  EXPECT_EQ(m.p_o[5], 0.7);
  EXPECT_EQ(m.p_e[5], 0.3);
  EXPECT_EQ(m.danger[5], 1);
  EXPECT_EQ(m.p_o[11], 0.1);
  EXPECT_EQ(m.p_o[4], 0.2);
  ApplyPatch(m, patch);  // idempotent
  EXPECT_EQ(m.p_o[5], 0.7);
  GridMaps before = m;
  EXPECT_THROW(ApplyPatch(m, MapPatch{1, 2, {{3, 0.5, 0.5, 0}, {12, 0.5, 0.5, 0}}}), std::invalid_argument);
  EXPECT_EQ(m, before);  // nothing written when the patch is rejected
}

TEST(ApplyPatch, CarriesDangerSitesAndDropsThoseOfCellsPatchedWithout) {
  GridMaps m = GridMaps::Initial(GridSpec{{0, 0}, 0.35, 4, 3});
  ApplyPatch(m, MapPatch{0, 1, {{5, 0.7, 0.3, 1}, {6, 0.7, 0.3, 1}}, {{5, {0.4, 0.5}}, {6, {0.8, 0.4}}}});
  ASSERT_NE(m.SiteOf(5), nullptr);
  EXPECT_EQ(m.SiteOf(5)->point, Vec2(0.4, 0.5));
  EXPECT_EQ(m.SiteOf(4), nullptr);
  // Cell 6's site moves; cell 5 is patched without one (its danger forgotten): its site goes.
  ApplyPatch(m, MapPatch{1, 2, {{5, 0.7, 0.3, 0}, {6, 0.7, 0.3, 1}}, {{6, {0.9, 0.45}}}});
  EXPECT_EQ(m.SiteOf(5), nullptr);
  ASSERT_NE(m.SiteOf(6), nullptr);
  EXPECT_EQ(m.SiteOf(6)->point, Vec2(0.9, 0.45));
  // A patch that does not touch cell 6 leaves its site; a new site is merged in order.
  ApplyPatch(m, MapPatch{2, 3, {{1, 0.1, 0.1, 1}}, {{1, {0.5, 0.1}}}});
  ASSERT_EQ(m.danger_sites.size(), 2u);
  EXPECT_EQ(m.danger_sites[0].cell, 1);
  EXPECT_EQ(m.danger_sites[1].cell, 6);
  EXPECT_NO_THROW(m.Validate());

  const GridMaps before = m;
  const double nan = std::numeric_limits<double>::quiet_NaN();
  EXPECT_THROW(ApplyPatch(m, MapPatch{3, 4, {{2, 0.1, 0.1, 1}}, {{3, {0.8, 0.1}}}}), std::invalid_argument)
      << "a site on a cell the patch does not carry";
  EXPECT_THROW(ApplyPatch(m, MapPatch{3, 4, {{2, 0.1, 0.1, 0}}, {{2, {0.8, 0.1}}}}), std::invalid_argument)
      << "a site on a cell without danger";
  EXPECT_THROW(ApplyPatch(m, MapPatch{3, 4, {{2, 0.1, 0.1, 1}}, {{2, {nan, 0.1}}}}), std::invalid_argument);
  EXPECT_THROW(ApplyPatch(m, MapPatch{3, 4, {{2, 0.1, 0.1, 1}, {3, 0.1, 0.1, 1}}, {{3, {1.1, 0.1}}, {2, {0.8, 0.1}}}}),
               std::invalid_argument)
      << "sites out of order";
  EXPECT_THROW(ApplyPatch(m, MapPatch{3, 4, {{3, 0.1, 0.1, 0}, {2, 0.1, 0.1, 0}}}), std::invalid_argument)
      << "cells out of order";
  EXPECT_EQ(m, before);  // nothing written when the patch is rejected
}

TEST(GridMaps, ValidateChecksTheDangerSites) {
  GridMaps m = GridMaps::Initial(GridSpec{{0, 0}, 0.35, 4, 3});
  m.danger[2] = m.danger[7] = 1;
  m.danger_sites = {{2, {0.8, 0.1}}, {7, {1.1, 0.4}}};
  EXPECT_NO_THROW(m.Validate());
  GridMaps bad = m;
  bad.danger[7] = 0;
  EXPECT_THROW(bad.Validate(), std::invalid_argument);  // a site without danger
  bad = m;
  std::swap(bad.danger_sites[0], bad.danger_sites[1]);
  EXPECT_THROW(bad.Validate(), std::invalid_argument);  // out of order
  bad = m;
  bad.danger_sites[1].cell = 12;
  EXPECT_THROW(bad.Validate(), std::invalid_argument);  // off the grid
  bad = m;
  bad.danger_sites[0].point.y() = std::numeric_limits<double>::infinity();
  EXPECT_THROW(bad.Validate(), std::invalid_argument);
}

TEST(MapReplica, AppliesChainIgnoresStaleAndReportsGaps) {
  MapReplica r;
  EXPECT_FALSE(r.has_map());
  EXPECT_EQ(r.Apply(MapPatch{0, 1, {}}), MapReplica::ApplyResult::kGap);
  r.Reset({4, GridMaps::Initial(GridSpec{{0, 0}, 0.35, 2, 2})});
  EXPECT_EQ(r.Apply(MapPatch{3, 4, {{0, 0.9, 0.1, 0}}}), MapReplica::ApplyResult::kStale);
  EXPECT_EQ(r.maps().p_o[0], 0.2);
  EXPECT_EQ(r.Apply(MapPatch{4, 6, {{0, 0.9, 0.1, 0}}}), MapReplica::ApplyResult::kApplied);
  EXPECT_EQ(r.tick(), 6);
  EXPECT_EQ(r.maps().p_o[0], 0.9);
  EXPECT_EQ(r.Apply(MapPatch{7, 8, {{1, 0.9, 0.1, 0}}}), MapReplica::ApplyResult::kGap);
  EXPECT_EQ(r.maps().p_o[1], 0.2);
  EXPECT_EQ(r.tick(), 6);
}

TEST(Coverage, MeanExplorationAndFractionInsideBounds) {
  // 4 × 4 cells of 1 m; bounds [1, 3]² contain the centres of cells (1..2, 1..2).
  GridMaps m = GridMaps::Initial(GridSpec{{0, 0}, 1.0, 4, 4});
  auto at = [&](int ix, int iy) -> double& { return m.p_e[m.spec.Index({ix, iy})]; };
  at(1, 1) = 0.9;
  at(2, 1) = 0.6;
  at(1, 2) = 0.2;
  at(2, 2) = 0.0;
  at(0, 0) = 1.0;  // outside the bounds: ignored
  EXPECT_DOUBLE_EQ(Coverage(m, {1, 1}, {3, 3}), (0.9 + 0.6 + 0.2 + 0.0) / 4);
  EXPECT_DOUBLE_EQ(Coverage(m, {1, 1}, {3, 3}, CoverageMetric::kFractionExplored), 0.5);
  EXPECT_DOUBLE_EQ(Coverage(m, {10, 10}, {11, 11}), 0.0);
}

// Coverage decides the rows and columns inside the bounds once per call; it must give the very double of the
// cell-by-cell test it replaced (testing/reference_coverage.hpp): same cells, same order of summation.
TEST(Coverage, BitIdenticalToTheCellByCellReference) {
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  int compared = 0;
  for (int trial = 0; trial < 200; ++trial) {
    const GridSpec spec =
        GridSpecCovering({-3.0 * unit(rng), -2.0 * unit(rng)}, {5 + 20 * unit(rng), 3 + 12 * unit(rng)});
    GridMaps m = GridMaps::Initial(spec);
    for (double& p : m.p_e) p = unit(rng) < 0.3 ? 0.0 : unit(rng);
    // The world's bounds (what the mapper passes), bounds cutting through the grid, and bounds outside it.
    const Vec2 lo{spec.origin.x() + 0.35 * 3 * unit(rng), spec.origin.y() + 0.35 * 3 * unit(rng)};
    const Vec2 hi{lo.x() + 25 * unit(rng), lo.y() + 15 * unit(rng)};
    for (const auto& [a, b] :
         {std::pair{lo, hi}, std::pair{Vec2{0, 0}, Vec2{20, 12}}, std::pair{Vec2{50, 50}, Vec2{60, 60}},
          std::pair{spec.Center({2, 3}), spec.Center({2, 3})}}) {
      for (auto metric : {CoverageMetric::kMeanExploration, CoverageMetric::kFractionExplored}) {
        const double fast = Coverage(m, a, b, metric);
        const double reference = testing::ReferenceCoverage(m, a, b, metric);
        EXPECT_EQ(std::memcmp(&fast, &reference, sizeof(double)), 0) << fast << " vs " << reference;
        ++compared;
      }
    }
  }
  EXPECT_EQ(compared, 1600);
}

}  // namespace
}  // namespace limbic::mapper
