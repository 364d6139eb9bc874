#include "services/explore/two_tier_astar.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <stdexcept>

namespace limbic::explore {
namespace {

mapper::GridMaps Maps(int w, int h, double p_o, double res = 1.0) {
  GridSpec g;
  g.width = w;
  g.height = h;
  g.resolution = res;
  return mapper::GridMaps::Initial(g, p_o);
}

void Set(mapper::GridMaps* m, int x, int y, double p_o) { m->p_o[m->spec.Index({x, y})] = p_o; }

TEST(TwoTierPlanner, CostMultiplierHandWorked) {
  // 5×5 cells of 1 m, clearance radius 1 m: the cell and its 4 neighbours. Only (2,2) has p_o = 0.5.
  mapper::GridMaps m = Maps(5, 5, 0.0);
  Set(&m, 2, 2, 0.5);
  const Partition p(m.spec, 5);
  TwoTierOptions o;
  o.clearance_radius = 1.0;
  const TwoTierPlanner planner(p, m, o);
  // c_m = 1 + W_10·p_o + W_11·mean: (2,2): 1 + 0.5 + 0.5/5 = 1.6; (1,2): 1 + 0 + 0.5/5 = 1.1; (1,1): no 0.5 within 1 m.
  EXPECT_DOUBLE_EQ(planner.CostMultiplier({2, 2}), 1.6);
  EXPECT_DOUBLE_EQ(planner.CostMultiplier({1, 2}), 1.1);
  EXPECT_DOUBLE_EQ(planner.CostMultiplier({1, 1}), 1.0);
  // The weights: W_10 = 2, W_11 = 0.5: 1 + 1.0 + 0.05 = 2.05.
  o.w10 = 2.0;
  o.w11 = 0.5;
  EXPECT_DOUBLE_EQ(TwoTierPlanner(p, m, o).CostMultiplier({2, 2}), 2.05);
  // Corner (0,0) next to nothing occupied: its 3 in-grid cells average 0.
  EXPECT_DOUBLE_EQ(planner.CostMultiplier({0, 0}), 1.0);
}

TEST(TwoTierPlanner, FineCostIsDistanceTimesMultiplier) {
  // A 5×1 strip, p_o = 0.2 everywhere, clearance radius 1 m: c_m = 1 + 0.2 + 0.2 = 1.4 in every cell.
  const mapper::GridMaps m = Maps(5, 1, 0.2);
  const Partition p(m.spec, 5);
  TwoTierOptions o;
  o.clearance_radius = 1.0;
  const FineResult r = TwoTierPlanner(p, m, o).Fine({0, 0}, {4, 0});
  ASSERT_TRUE(r.success);
  EXPECT_EQ(r.cells.size(), 5u);
  EXPECT_DOUBLE_EQ(r.cost, 4 * 1.4);  // g = Σ d_n·c_m(x) over the 4 cells entered
}

TEST(TwoTierPlanner, CellsAtOrAboveThresholdAreEliminated) {
  // 3×3, middle column blocked at y = 0, 1 (p_o = 0.7 ≥ T_o = 0.65): around through (1, 2).
  mapper::GridMaps m = Maps(3, 3, 0.0);
  Set(&m, 1, 0, 0.7);
  Set(&m, 1, 1, 0.65);  // exactly T_o: eliminated too (p_o < T_o is required)
  const Partition p(m.spec, 3);
  TwoTierOptions o;
  o.w10 = 0.0;
  o.w11 = 0.0;  // c_m = 1: pure geometry
  const TwoTierPlanner planner(p, m, o);
  EXPECT_FALSE(planner.Passable({1, 1}));
  const FineResult r = planner.Fine({0, 0}, {2, 0});
  ASSERT_TRUE(r.success);
  // (0,0) → (0,1) → (1,2) → (2,1) → (2,0): 1 + √2 + √2 + 1.
  EXPECT_NEAR(r.cost, 2.0 + 2.0 * std::sqrt(2.0), 1e-12);
  for (const Cell& c : r.cells) EXPECT_NE(c.ix == 1 && c.iy < 2, true);
  // Just below T_o the middle is open: straight across, cost 2.
  Set(&m, 1, 0, 0.64);
  EXPECT_NEAR(TwoTierPlanner(p, m, o).Fine({0, 0}, {2, 0}).cost, 2.0, 1e-12);
  // A goal in an eliminated cell has no path; a start in one is left (the robot is there).
  EXPECT_FALSE(planner.Fine({0, 0}, {1, 1}).success);
  EXPECT_TRUE(planner.Fine({1, 1}, {0, 0}).success);
  // Closed off entirely.
  Set(&m, 1, 0, 0.7);
  Set(&m, 1, 2, 0.9);
  EXPECT_FALSE(TwoTierPlanner(p, m, o).Fine({0, 0}, {2, 0}).success);
}

TEST(TwoTierPlanner, CoarseTierOverTiles) {
  // 6×2 cells in three 2×2 tiles, centres 2 m apart; tile 1 has p_o = 0.2, the others 0.
  mapper::GridMaps m = Maps(6, 2, 0.0);
  for (int y = 0; y < 2; ++y) {
    for (int x = 2; x < 4; ++x) Set(&m, x, y, 0.2);
  }
  const Partition p(m.spec, 2);
  const TwoTierPlanner planner(p, m);
  EXPECT_DOUBLE_EQ(planner.TileMultiplier(1), 1.2);  // 1 + W_10·mean p_o
  const CoarseResult c = planner.Coarse(0, 2);
  ASSERT_TRUE(c.success);
  EXPECT_EQ(c.tiles, (std::vector<int>{0, 1, 2}));
  EXPECT_DOUBLE_EQ(c.cost, 2.0 * 1.2 + 2.0 * 1.0);
  const auto costs = planner.CoarseCostsFrom(0);
  EXPECT_DOUBLE_EQ(costs[0], 0.0);
  EXPECT_DOUBLE_EQ(costs[1], 2.4);
  EXPECT_DOUBLE_EQ(costs[2], 4.4);
  // Tile 1 all obstacle: tile 2 cannot be reached.
  for (int y = 0; y < 2; ++y) {
    for (int x = 2; x < 4; ++x) Set(&m, x, y, 0.9);
  }
  const TwoTierPlanner blocked(p, m);
  EXPECT_FALSE(blocked.TilePassable(1));
  EXPECT_FALSE(blocked.Coarse(0, 2).success);
  EXPECT_EQ(blocked.CoarseCostsFrom(0)[2], std::numeric_limits<double>::infinity());
}

TEST(TwoTierPlanner, FineTierStaysInTheCorridorUnlessItMustLeave) {
  // 4×4 cells in 2×2 tiles: tiles 0 (bottom left), 1 (bottom right), 2, 3. Coarse 0 → 1 is direct.
  mapper::GridMaps m = Maps(4, 4, 0.0);
  const Partition p(m.spec, 2);
  const TwoTierPlanner planner(p, m);
  const TwoTierResult r = planner.Plan(Vec2(0.5, 0.5), Vec2(3.5, 0.5));
  ASSERT_TRUE(r.success);
  EXPECT_EQ(r.coarse.tiles, (std::vector<int>{0, 1}));
  EXPECT_FALSE(r.used_fallback);
  for (const Cell& c : r.fine.cells) EXPECT_LT(c.iy, 2);
  // Wall across the bottom row at x = 2 and 1 (cells (2,0), (2,1)): the corridor (tiles 0, 1) has no way through,
  // the whole grid does (over the top).
  Set(&m, 2, 0, 1.0);
  Set(&m, 2, 1, 1.0);
  const TwoTierPlanner walled(p, m);
  const TwoTierResult w = walled.Plan(Vec2(0.5, 0.5), Vec2(3.5, 0.5));
  ASSERT_TRUE(w.success);
  EXPECT_TRUE(w.used_fallback);
  TwoTierOptions strict;
  strict.fallback_to_whole_grid = false;
  EXPECT_FALSE(TwoTierPlanner(p, m, strict).Plan(Vec2(0.5, 0.5), Vec2(3.5, 0.5)).success);
  EXPECT_FALSE(planner.Plan(Vec2(-1, 0), Vec2(3.5, 0.5)).success);  // off the grid
}

TEST(TwoTierPlanner, RejectsBadOptionsAndGrids) {
  const mapper::GridMaps m = Maps(4, 4, 0.0);
  const Partition p(m.spec, 2);
  TwoTierOptions o;
  o.occupancy_threshold = 0.0;
  EXPECT_THROW(TwoTierPlanner(p, m, o), std::invalid_argument);
  o = {};
  o.w10 = -1;
  EXPECT_THROW(TwoTierPlanner(p, m, o), std::invalid_argument);
  o = {};
  o.w11 = std::nan("");
  EXPECT_THROW(TwoTierPlanner(p, m, o), std::invalid_argument);
  const mapper::GridMaps other = Maps(5, 4, 0.0);
  EXPECT_THROW(TwoTierPlanner(p, other), std::invalid_argument);
}

TEST(Waypoints, EverySpacingMetresAndTheEnd) {
  GridSpec g;
  g.width = 8;
  g.height = 1;
  g.resolution = 1.0;
  std::vector<Cell> cells;
  for (int x = 0; x < 7; ++x) cells.push_back({x, 0});
  const auto w = Waypoints(g, cells, 2.0);
  ASSERT_EQ(w.size(), 3u);
  EXPECT_DOUBLE_EQ(w[0].x(), 2.5);
  EXPECT_DOUBLE_EQ(w[1].x(), 4.5);
  EXPECT_DOUBLE_EQ(w[2].x(), 6.5);
  EXPECT_TRUE(Waypoints(g, {{0, 0}}, 2.0).empty());
}

}  // namespace
}  // namespace limbic::explore
