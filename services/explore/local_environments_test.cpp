#include "services/explore/local_environments.hpp"

#include <gtest/gtest.h>

#include <stdexcept>
#include <vector>

namespace limbic::explore {
namespace {

GridSpec Grid(int w, int h, double res = 1.0) {
  GridSpec g;
  g.width = w;
  g.height = h;
  g.resolution = res;
  return g;
}

ExplorerProfile Profile(double d, double budget) {
  ExplorerProfile p;
  p.sensing_range = d;
  p.processing_cells = budget;
  return p;
}

TEST(EnvironmentSide, TheSmallerOfLanesAndProcessingBudget) {
  // d = 3 m, 2 lanes: 2·2·3 = 12 m; B = 400 cells of 0.35 m: 0.35·√400 = 7 m.
  EXPECT_DOUBLE_EQ(EnvironmentSide(Profile(3.0, 400), 0.35, 2), 7.0);
  // B = 1600: 0.35·40 = 14 m > 12 m, so the lanes bound it.
  EXPECT_DOUBLE_EQ(EnvironmentSide(Profile(3.0, 1600), 0.35, 2), 12.0);
  // One lane, d = 1: 2 m.
  EXPECT_DOUBLE_EQ(EnvironmentSide(Profile(1.0, 1600), 0.35, 1), 2.0);
  EXPECT_THROW(EnvironmentSide(Profile(0.0, 400), 0.35, 2), std::invalid_argument);
  EXPECT_THROW(EnvironmentSide(Profile(3.0, -1), 0.35, 2), std::invalid_argument);
  EXPECT_THROW(EnvironmentSide(Profile(3.0, 400), 0.35, 0), std::invalid_argument);
}

TEST(Partition, TilesNeighboursAndLookup) {
  const Partition p(Grid(10, 7), 4);
  EXPECT_EQ(p.tiles_x(), 3);
  EXPECT_EQ(p.tiles_y(), 2);
  ASSERT_EQ(p.tiles().size(), 6u);
  const Tile& t2 = p.tile(2);  // the narrow last column: cells x 8..9, y 0..3
  EXPECT_EQ(t2.x0, 8);
  EXPECT_EQ(t2.x1, 10);
  EXPECT_EQ(t2.y1, 4);
  EXPECT_DOUBLE_EQ(t2.centre.x(), 9.0);
  EXPECT_DOUBLE_EQ(t2.centre.y(), 2.0);
  EXPECT_EQ(p.tile(5).y1, 7);
  EXPECT_EQ(p.TileOf({9, 5}), 5);
  EXPECT_EQ(p.TileOf({10, 0}), -1);
  EXPECT_EQ(p.TileAt(Vec2(4.5, 0.5)), 1);
  EXPECT_EQ(p.Neighbours(4), (std::vector<int>{5, 3, 1}));
  EXPECT_EQ(p.Neighbours(0), (std::vector<int>{1, 3}));
  EXPECT_THROW(Partition(Grid(10, 7), 0), std::invalid_argument);
  EXPECT_THROW(Partition(Grid(0, 7), 2), std::invalid_argument);
}

TEST(Partition, BlocksSizedToEachExplorer) {
  const Partition p(Grid(10, 7), 4);  // tiles of 4 m
  // Side 8 m (d = 2, 2 lanes; B = 100 gives 10 m): n = round(64/16) = 4 → 2×2.
  EXPECT_EQ(p.ShapeFor(Profile(2.0, 100), 2), (BlockShape{2, 2}));
  // Side √32 = 5.66 m (B = 32): n = round(32/16) = 2 → 2×1.
  EXPECT_EQ(p.ShapeFor(Profile(2.0, 32), 2), (BlockShape{2, 1}));
  // Side 4 m: one tile.
  EXPECT_EQ(p.ShapeFor(Profile(1.0, 100), 2), (BlockShape{1, 1}));
  // 36 m sides want 81 tiles: clamped to the 3×2 lattice.
  EXPECT_EQ(p.ShapeFor(Profile(9.0, 1e6), 2), (BlockShape{3, 2}));
  EXPECT_EQ(p.BlockOf(4, {2, 2}), (std::vector<int>{0, 1, 3, 4}));
  EXPECT_EQ(p.BlockOf(5, {2, 2}), (std::vector<int>{2, 5}));
  EXPECT_EQ(p.BlockOf(1, {2, 1}), (std::vector<int>{0, 1}));
  EXPECT_EQ(p.BlockOf(3, {1, 1}), (std::vector<int>{3}));
}

TEST(Partition, ForTeamUsesTheSmallestEnvironment) {
  // Res 0.35: B = 400 → 7 m = 20 cells; B = 1600 → 12 m. Tiles of 20 cells.
  const std::vector<ExplorerProfile> team{Profile(3.0, 1600), Profile(3.0, 400)};
  const Partition p = Partition::ForTeam(Grid(59, 37, 0.35), team, 2);
  EXPECT_EQ(p.tile_cells(), 20);
  EXPECT_EQ(p.tiles_x(), 3);
  EXPECT_EQ(p.tiles_y(), 2);
  // 12² / 7² = 2.94 → 3 tiles: bx = 2, by = round(1.5) = 2.
  EXPECT_EQ(p.ShapeFor(team[0], 2), (BlockShape{2, 2}));
  EXPECT_EQ(p.ShapeFor(team[1], 2), (BlockShape{1, 1}));
  EXPECT_THROW(Partition::ForTeam(Grid(59, 37, 0.35), std::vector<ExplorerProfile>{}, 2), std::invalid_argument);
}

mapper::GridMaps Maps(int w, int h) { return mapper::GridMaps::Initial(Grid(w, h)); }

TEST(MergeMaps, TakesTheMostExploredReading) {
  mapper::GridMaps a = Maps(2, 1), b = Maps(2, 1);
  a.p_e = {0.9, 0.1};
  a.p_o = {0.1, 0.2};
  b.p_e = {0.5, 0.8};
  b.p_o = {0.9, 0.7};
  b.danger = {0, 1};
  const mapper::GridMaps* both[] = {&a, &b};
  const mapper::GridMaps m = MergeMaps(both);
  EXPECT_EQ(m.p_e, (std::vector<double>{0.9, 0.8}));
  EXPECT_EQ(m.p_o, (std::vector<double>{0.1, 0.7}));
  EXPECT_EQ(m.danger, (std::vector<uint8_t>{0, 1}));
  const mapper::GridMaps other = Maps(3, 1);
  const mapper::GridMaps* mixed[] = {&a, &other};
  EXPECT_THROW(MergeMaps(mixed), std::invalid_argument);
  EXPECT_THROW(MergeMaps({}), std::invalid_argument);
}

TEST(Coverage, ExploredFreeCells) {
  mapper::GridMaps m = Maps(2, 2);
  // Cell 0: explored obstacle; 1: explored free; 2, 3: unexplored.
  m.p_e = {1.0, 0.6, 0.2, 0.0};
  m.p_o = {0.9, 0.1, 0.2, 0.2};
  const Partition p(m.spec, 2);
  // Three open cells (the obstacle is left out), one explored.
  EXPECT_DOUBLE_EQ(ExploredFraction(p.tile(0), m), 1.0 / 3.0);
  // The world's free cells: 1, 2, 3 → one of three explored.
  EXPECT_DOUBLE_EQ(Coverage(m, {false, true, true, true}), 1.0 / 3.0);
  EXPECT_DOUBLE_EQ(Coverage(m, {false, false, false, false}), 0.0);
  KnowledgeOptions strict;
  strict.explored_threshold = 0.7;
  EXPECT_DOUBLE_EQ(Coverage(m, {false, true, true, true}, strict), 0.0);
  EXPECT_THROW(Coverage(m, {true}), std::invalid_argument);
}

}  // namespace
}  // namespace limbic::explore
