#include "services/affect/emotion_maps.hpp"

#include <gtest/gtest.h>

#include <vector>

namespace limbic::affect {
namespace {

using geometry::Cell;
using geometry::GridSpec;
using geometry::Vec2;

GridSpec Grid20() { return GridSpec{Vec2(0, 0), 0.35, 20, 20}; }

TEST(AffectEmotionMapsTest, CellsWithinOneMetreOfACellCentre) {
  const GridSpec grid = Grid20();
  const Vec2 centre = grid.Center({5, 5});
  const auto cells = CellsWithinRadius(grid, centre, 1.0);
  // Lattice offsets with 0.35²·(dx² + dy²) < 1, i.e. dx² + dy² ≤ 8: 1 + 4 + 4 + 4 + 8 + 4 = 25.
  EXPECT_EQ(cells.size(), 25u);
  for (const auto& c : cells) {
    if (c.index == grid.Index({5, 5})) {
      EXPECT_DOUBLE_EQ(c.weight, 1.0);
    }
    if (c.index == grid.Index({6, 5})) {
      EXPECT_NEAR(c.weight, 1.0 - 0.1225, 1e-12);
    }
  }
  EXPECT_TRUE(CellsWithinRadius(grid, Vec2(-5, -5), 1.0).empty());
  EXPECT_TRUE(CellsWithinRadius(GridSpec{}, centre, 1.0).empty());
}

TEST(AffectEmotionMapsTest, OneUpdateStepByHand) {
  std::vector<double> map(4, 0.0);
  const std::vector<NearbyCell> nearby{{0, 1.0}, {1, 0.5}};
  UpdateEmotionMap(nearby, 1.0, {0.1, 0.01}, EmotionMapUpdate::kInterpreted, &map);
  EXPECT_DOUBLE_EQ(map[0], 0.1);
  EXPECT_DOUBLE_EQ(map[1], 0.05);
  EXPECT_EQ(map[2], 0.0);
  // Decay: e = 0.1 > E_G = 0 → γ_2 = 0.01: 0.1·(1 − 0.01).
  UpdateEmotionMap(nearby, 0.0, {0.1, 0.01}, EmotionMapUpdate::kInterpreted, &map);
  EXPECT_DOUBLE_EQ(map[0], 0.1 * 0.99);
  // Literal form: e ← γ·w·E_G + (1 − γ)·e.
  std::vector<double> literal(2, 0.2);
  UpdateEmotionMap(nearby, 1.0, {0.1, 0.01}, EmotionMapUpdate::kLiteral, &literal);
  EXPECT_DOUBLE_EQ(literal[1], 0.1 * 0.5 + 0.9 * 0.2);
}

TEST(AffectEmotionMapsTest, MapConvergesTowardsAConstantGlobalIntensity) {
  const GridSpec grid = Grid20();
  const Vec2 position = grid.Center({5, 5});
  const auto nearby = CellsWithinRadius(grid, position, 1.0);
  std::vector<double> map(grid.CellCount(), 0.0), literal(grid.CellCount(), 0.0);
  for (int k = 0; k < 6000; ++k) {
    UpdateEmotionMap(nearby, 0.6, {0.1, 0.01}, EmotionMapUpdate::kInterpreted, &map);
    UpdateEmotionMap(nearby, 0.6, {0.1, 0.01}, EmotionMapUpdate::kLiteral, &literal);
  }
  // Slowest cell: w = 1 − 8·0.1225 = 0.02, γ' = 0.002 → (1 − 0.002)^6000 ≈ 6e-6 left.
  for (const auto& c : nearby) EXPECT_NEAR(map[c.index], 0.6, 1e-5);
  EXPECT_NEAR(LocalMappedIntensity(nearby, map), 0.6, 1e-6);
  // The printed form converges to w·E_G instead (spec §8 item 5).
  EXPECT_NEAR(literal[grid.Index({5, 5})], 0.6, 1e-9);
  EXPECT_NEAR(literal[grid.Index({6, 5})], 0.6 * (1 - 0.1225), 1e-9);
  EXPECT_EQ(map[grid.Index({10, 10})], 0.0);  // far cells untouched
  EXPECT_EQ(LocalMappedIntensity({}, map), 0.0);
}

TEST(AffectEmotionMapsTest, LocalIntensityIsProximityWeighted) {
  const std::vector<double> map{1.0, 0.0};
  const std::vector<NearbyCell> nearby{{0, 1.0}, {1, 0.25}};
  EXPECT_DOUBLE_EQ(LocalMappedIntensity(nearby, map), 1.0 / 1.25);
}

std::array<std::vector<double>, kNumEmotions> OneCellMaps(const EmotionArray& values) {
  std::array<std::vector<double>, kNumEmotions> maps;
  for (int e = 0; e < kNumEmotions; ++e) maps[e] = {values[e]};
  return maps;
}

const std::array<Valence, kNumEmotions> kValence{Valence::kNegative, Valence::kNegative, Valence::kPositive,
                                                 Valence::kNegative, Valence::kPositive, Valence::kPositive,
                                                 Valence::kNegative};
const std::array<bool, kNumEmotions> kAll{true, true, true, true, true, true, true};

TEST(AffectEmotionMapsTest, ThesisLayerFusesGroupsGatedByMoodsCostAndExploration) {
  // anger 0.5, happiness 0.4: N = 0.5, P = 0.6, W_N = W_P = 0.5:
  // 0.25 + 0.3 − 0.25·0.3 = 0.475, × p_e 0.5 = 0.2375.
  const auto maps = OneCellMaps({0.5, 0, 0.4, 0, 0, 0, 0});
  std::vector<double> cost;
  const std::vector<double> p_e{0.5};
  BuildThesisEmotionLayer(maps, kValence, kAll, 0.5, 0.5, 0.0, p_e, &cost);
  ASSERT_EQ(cost.size(), 1u);
  EXPECT_DOUBLE_EQ(cost[0], 0.2375);
  BuildThesisEmotionLayer(maps, kValence, kAll, 0.5, 0.5, 1.0, p_e,
                          &cost);  // unviable path: no bias
  EXPECT_EQ(cost[0], 0.0);
  // Two negative maps OR: 0.5 + 0.5 − 0.25 = 0.75; no positive map → P = 1; W = 1:
  // 0.75 + 1 − 0.75 = 1.
  const auto two = OneCellMaps({0.5, 0.5, 0, 0, 0, 0, 0});
  const std::vector<double> explored{1.0};
  BuildThesisEmotionLayer(two, kValence, kAll, 1.0, 1.0, 0.0, explored, &cost);
  EXPECT_DOUBLE_EQ(cost[0], 1.0);
  BuildThesisEmotionLayer(two, kValence, kAll, 0.0, 1.0, 0.0, explored, &cost);  // positive mood 0
  EXPECT_DOUBLE_EQ(cost[0], 0.75);
  // Only anger included: N = 0.5; no positive map at all → W_P = 0.
  std::array<bool, kNumEmotions> anger_only{};
  anger_only[kAnger] = true;
  BuildThesisEmotionLayer(two, kValence, anger_only, 1.0, 1.0, 0.0, explored, &cost);
  EXPECT_DOUBLE_EQ(cost[0], 0.5);
  BuildThesisEmotionLayer(two, kValence, kAll, 1.0, 1.0, 0.0, {}, &cost);  // no p_e → zeros
  EXPECT_EQ(cost[0], 0.0);
}

TEST(AffectEmotionMapsTest, CompanionLayerIsTheAdditiveBias) {
  // (0.8·0.5 + 0.35·(1 − 0.2) − 0.2·(0.3 − 0.1))·(1 − 0.5) = 0.32.
  const auto maps = OneCellMaps({0.5, 0.5, 0.3, 0.1, 0, 0.2, 0});
  std::vector<double> cost;
  BuildCompanionEmotionLayer(maps, CompanionTables{}, &cost);
  EXPECT_NEAR(cost[0], 0.32, 1e-12);
  BuildCompanionEmotionLayer(OneCellMaps({0, 0, 1, 0, 0, 1, 0}), CompanionTables{}, &cost);
  EXPECT_NEAR(cost[0], -0.2, 1e-12);
}

// affect.emotion_layer_publish=on_change: a layer goes out when it differs from the last one that went out. A
// disabled (all-zero) layer is judged by its grid and fusion without its cells; every other pairing by its cells.
TEST(AffectEmotionMapsTest, ALayerCountsAsChangedOnlyWhenItDiffersFromTheLastOne) {
  geometry::GridSpec grid;
  grid.width = 2;
  grid.height = 2;
  grid.resolution = 0.5;
  const EmotionLayer zero{grid, {0, 0, 0, 0}, EmotionLayerFusion::kProbabilisticOr};
  EmotionLayer some = zero;
  some.cost[2] = 0.25;
  LayerChangeFilter filter;
  EXPECT_TRUE(filter.Changed(zero, true));    // the first
  EXPECT_FALSE(filter.Changed(zero, true));   // zero again, same grid
  EXPECT_FALSE(filter.Changed(zero, false));  // an enabled layer that happens to be all 0: the same values
  EXPECT_TRUE(filter.Changed(some, false));
  EXPECT_FALSE(filter.Changed(some, false));
  EmotionLayer other = some;
  other.cost[2] = 0.5;
  EXPECT_TRUE(filter.Changed(other, false));
  EXPECT_TRUE(filter.Changed(zero, true));  // back to zeros
  EmotionLayer additive = zero;
  additive.fusion = EmotionLayerFusion::kAdditive;
  EXPECT_TRUE(filter.Changed(additive, true));  // same zeros, another fusion
  EmotionLayer moved = additive;
  moved.grid.origin = geometry::Vec2{1.0, 0.0};
  EXPECT_TRUE(filter.Changed(moved, true));  // same zeros, another grid
  EXPECT_FALSE(filter.Changed(moved, true));
  // A layer flagged zero compares as zeros against a stored non-zero layer.
  EmotionLayer moved_some = some;
  moved_some.grid = moved.grid;
  moved_some.fusion = EmotionLayerFusion::kAdditive;
  EXPECT_TRUE(filter.Changed(moved_some, false));
  EXPECT_TRUE(filter.Changed(moved, true));
  // -0 and +0 are equal, as the layer's values compare.
  EmotionLayer negative_zero = moved;
  negative_zero.cost[1] = -0.0;
  EXPECT_FALSE(filter.Changed(negative_zero, false));
}

}  // namespace
}  // namespace limbic::affect
