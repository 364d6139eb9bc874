#include "services/planner/cost_field.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <span>
#include <stdexcept>
#include <vector>

#include "services/planner/fusion.hpp"

namespace limbic::planner {
namespace {

using geometry::GridSpec;
using mapper::GridMaps;

TEST(FuseProbabilisticOr, Eq53And54ByHand) {
  // Eq. 5.3: 0.5·0.4 + 0.8·0.5 − 0.5·0.8·0.4·0.5 = 0.2 + 0.4 − 0.08 = 0.52.
  EXPECT_DOUBLE_EQ(FuseProbabilisticOr({{0.5, 0.4}, {0.8, 0.5}}), 0.52);
  // Eq. 5.4 with W_3 = 1, m_3 = 0.25: 0.52 + 0.25 − 0.52·0.25 = 0.64 (= 1 − 0.8·0.6·0.75).
  EXPECT_DOUBLE_EQ(FuseProbabilisticOr({{0.5, 0.4}, {0.8, 0.5}, {1.0, 0.25}}), 0.64);
  EXPECT_DOUBLE_EQ(FuseProbabilisticOr({{0.7, 0.5}}), 0.35);
  EXPECT_EQ(FuseProbabilisticOr(std::initializer_list<WeightedValue>{}), 0.0);
  // A weight of 0 leaves the fusion unchanged; a layer at 1 with weight 1 saturates it.
  EXPECT_DOUBLE_EQ(FuseProbabilisticOr({{1.0, 0.3}, {0.0, 0.9}}), 0.3);
  EXPECT_DOUBLE_EQ(FuseProbabilisticOr({{1.0, 0.3}, {1.0, 1.0}}), 1.0);
}

TEST(FuseProbabilisticOr, WholeLayers) {
  const std::vector<double> a{0.4, 0.0, 1.0}, b{0.5, 0.5, 0.2};
  const std::vector<WeightedLayer> layers{{0.5, a}, {0.8, b}};
  std::vector<double> out(3, -1.0);
  FuseProbabilisticOr(layers, out);
  EXPECT_DOUBLE_EQ(out[0], 0.52);
  EXPECT_DOUBLE_EQ(out[1], 0.4);
  EXPECT_DOUBLE_EQ(out[2], 0.5 + 0.16 - 0.5 * 0.8 * 0.2);  // 0.58
  const std::vector<double> short_layer{0.1};
  const std::vector<WeightedLayer> bad{{1.0, short_layer}};
  EXPECT_THROW(FuseProbabilisticOr(bad, out), std::invalid_argument);
}

TEST(FusedCost, PlanningFusionOfFourLayers) {
  GridMaps m = GridMaps::Initial(GridSpec{{0, 0}, 0.35, 2, 1});
  m.p_o = {0.2, 0.0};
  m.danger = {1, 0};
  m.p_e = {0.5, 1.0};
  const std::vector<double> emo{0.6, 0.0};
  CostSettings s;
  s.w_p1 = 1.0;
  s.w_p2 = 0.5;
  s.w_p3 = 0.4;
  s.w_p4 = 0.5;
  const CostLayers layers{&m, emo, {}};
  // Terms 0.2, 0.5, 0.2, 0.3: 1 − 0.8·0.5·0.8·0.7 = 0.776.
  EXPECT_NEAR(FusedCost(layers, s, 0), 0.776, 1e-15);
  // §4.1: a known free cell (p_o = 0, p_e = 1) costs m_f = W_p3; here 0.4.
  EXPECT_NEAR(FusedCost(layers, s, 1), 0.4, 1e-15);
  // No emotion layer: treated as 0 (terms 0.2, 0.5, 0.2 → 1 − 0.8·0.5·0.8 = 0.68).
  EXPECT_NEAR(FusedCost(CostLayers{&m, {}, {}}, s, 0), 0.68, 1e-15);
}

TEST(FusedCost, AdditiveCompanionPaperMode) {
  GridMaps m = GridMaps::Initial(GridSpec{{0, 0}, 0.35, 3, 1});
  m.p_o = {0.3, 0.3, 0.3};
  m.p_e = {1.0, 1.0, 1.0};
  const std::vector<double> bias{0.5, 0.9, -0.5};
  const std::vector<double> emo{1.0, 1.0, 1.0};  // ignored in this mode
  CostSettings s;
  s.mode = FusionMode::kAdditive;
  s.w_p4 = 1.0;
  const CostLayers layers{&m, emo, bias};
  EXPECT_DOUBLE_EQ(FusedCost(layers, s, 0), 0.8);  // c_e = p_o + bias
  EXPECT_DOUBLE_EQ(FusedCost(layers, s, 1), 1.0);  // clamped
  EXPECT_DOUBLE_EQ(FusedCost(layers, s, 2), 0.0);  // clamped
}

TEST(SmoothingKernel, OffsetsStrictlyInsideRadius) {
  // r_f = 0.7 m = 2 cells: centre (1), 4 side neighbours (1 − 1/4 = 0.75), 4 diagonals (1 − 2/4 = 0.5);
  // the cells 2 away are at d = r_f exactly and excluded (d < r_f).
  const auto k = SmoothingKernel(0.7, 0.35);
  ASSERT_EQ(k.size(), 9u);
  int sides = 0, diagonals = 0;
  for (const KernelOffset& o : k) {
    if (o.dx == 0 && o.dy == 0) {
      EXPECT_EQ(o.weight, 1.0);
    }
    if (std::abs(o.dx) + std::abs(o.dy) == 1) sides += o.weight == 0.75;
    if (std::abs(o.dx) == 1 && std::abs(o.dy) == 1) diagonals += o.weight == 0.5;
  }
  EXPECT_EQ(sides, 4);
  EXPECT_EQ(diagonals, 4);
  EXPECT_EQ(SmoothingKernel(0.0, 0.35).size(), 1u);  // filter off
  // r_f = 1 m: d²/res² < 8.16, i.e. dx² + dy² ≤ 8: 5 + 2·5 + 2·5 = 25 offsets.
  EXPECT_EQ(SmoothingKernel(1.0, 0.35).size(), 25u);
}

TEST(CostField, SmoothingFilterEq58ByHand) {
  // 5 × 5 cells, m_f = p_o (W_p1 = 1, others 0): 0.8 at (2,2), 0.5 at (0,0), 0 elsewhere.
  GridMaps m = GridMaps::Initial(GridSpec{{0, 0}, 0.35, 5, 5});
  std::fill(m.p_o.begin(), m.p_o.end(), 0.0);
  m.p_o[m.spec.Index({2, 2})] = 0.8;
  m.p_o[m.spec.Index({0, 0})] = 0.5;
  CostSettings s;  // defaults: W_p1 = 1, r_f = 0.7, B = 10000
  CostField field;
  field.Begin(CostLayers{&m, {}, {}}, s);
  auto filtered = [&](int ix, int iy) { return field.Filtered(m.spec.Index({ix, iy})); };
  EXPECT_DOUBLE_EQ(filtered(2, 2), 0.8);
  EXPECT_DOUBLE_EQ(filtered(3, 2), 0.75 * 0.8);  // side neighbour: 0.6
  EXPECT_DOUBLE_EQ(filtered(3, 3), 0.5 * 0.8);   // diagonal: 0.4
  EXPECT_DOUBLE_EQ(filtered(4, 2), 0.0);         // d = r_f: outside
  EXPECT_DOUBLE_EQ(filtered(1, 1), 0.4);         // max(0.5·0.5, 0.5·0.8)
  EXPECT_DOUBLE_EQ(filtered(1, 0), 0.375);       // 0.75·0.5; (2,2) is √5 cells away
  EXPECT_DOUBLE_EQ(filtered(0, 0), 0.5);         // high cells are never lowered
  // Eq. 5.7: c = B^{m_f'} = 10000^0.6.
  EXPECT_NEAR(field.Factor(m.spec.Index({3, 2})), std::pow(10000.0, 0.6), 1e-9);
  EXPECT_DOUBLE_EQ(field.Factor(m.spec.Index({4, 4})), 1.0);

  // A new plan with r_f = 0 sees the unfiltered map (memo forgotten).
  s.r_f = 0.0;
  field.Begin(CostLayers{&m, {}, {}}, s);
  EXPECT_DOUBLE_EQ(filtered(3, 2), 0.0);
  EXPECT_DOUBLE_EQ(filtered(2, 2), 0.8);
}

TEST(CostField, EagerRowsEqualLazyFactorsBitForBit) {
  // 7 × 5 grid, p_o = (3·ix + 5·iy) mod 7 / 7 (values in {0, 1/7, …, 6/7}), filter on and off.
  GridMaps m = GridMaps::Initial(GridSpec{{0, 0}, 0.35, 7, 5});
  for (int iy = 0; iy < 5; ++iy) {
    for (int ix = 0; ix < 7; ++ix) m.p_o[m.spec.Index({ix, iy})] = ((3 * ix + 5 * iy) % 7) / 7.0;
  }
  for (double r_f : {0.0, 0.7, 1.0}) {
    CostSettings s;
    s.r_f = r_f;
    CostField field;
    field.Begin(CostLayers{&m, {}, {}}, s);
    EXPECT_EQ(field.MinFused(), 0.0);  // cell (0, 0) has p_o = 0
    double grid_min = 1e300;
    for (int iy = 0; iy < 5; ++iy) {
      std::vector<double> row(7);
      const double row_min = field.FactorRow(iy, row.data());
      double expected_min = 1e300;
      for (int ix = 0; ix < 7; ++ix) {
        EXPECT_EQ(row[ix], field.Factor(ix, iy)) << r_f << " " << ix << " " << iy;
        expected_min = std::min(expected_min, row[ix]);
      }
      EXPECT_EQ(row_min, expected_min);
      grid_min = std::min(grid_min, row_min);
    }
    // Filter off: the zero cells give c = 1. With r_f = 0.7 every cell has a non-zero side or diagonal
    // neighbour (no 3 × 3 block of zeros), so the minimum is above 1.
    if (r_f == 0.0) {
      EXPECT_EQ(grid_min, 1.0);
    } else {
      EXPECT_GT(grid_min, 1.0);
    }
  }
  // MinFused is max(0, min m_f): p_o ≥ 2/7 everywhere → 2/7.
  for (double& p : m.p_o) p = std::max(p, 2.0 / 7.0);
  CostField field;
  field.Begin(CostLayers{&m, {}, {}}, CostSettings{});
  EXPECT_DOUBLE_EQ(field.MinFused(), 2.0 / 7.0);
}

// CachedFactorRow (issue 18) gives FactorRow's bits after any change: one cell, a weight, B, the kernel, the
// grid, and a Begin refused for a NaN (the rows it marked stay marked until recomputed).
TEST(CostField, CachedRowsEqualFreshRowsThroughChanges) {
  GridMaps m = GridMaps::Initial(GridSpec{{0, 0}, 0.35, 9, 8});
  for (int i = 0; i < m.CellCount(); ++i) m.p_o[i] = ((7 * i) % 11) / 11.0;
  CostSettings s;
  CostField field;
  auto check = [&](const char* what) {
    std::vector<double> fresh(static_cast<size_t>(m.spec.width));
    for (int iy = 0; iy < m.spec.height; ++iy) {
      const double fresh_min = field.FactorRow(iy, fresh.data());
      double kept_min = 0.0;
      const std::span<const double> kept = field.CachedFactorRow(iy, &kept_min);
      ASSERT_EQ(kept_min, fresh_min) << what << " row " << iy;
      ASSERT_TRUE(std::equal(kept.begin(), kept.end(), fresh.begin(), fresh.end())) << what << " row " << iy;
    }
  };
  field.Begin(CostLayers{&m, {}, {}}, s);
  check("first");
  m.p_o[m.spec.Index({4, 0})] = 0.95;  // reaches rows 0..2 with r_f = 0.7 (two cells)
  field.Begin(CostLayers{&m, {}, {}}, s);
  check("one cell");
  m.p_o[m.spec.Index({8, 7})] = 0.99;
  field.Begin(CostLayers{&m, {}, {}}, s);
  check("a corner");
  s.w_p1 = 0.5;
  field.Begin(CostLayers{&m, {}, {}}, s);
  check("a weight");
  s.cost_base = 50.0;
  field.Begin(CostLayers{&m, {}, {}}, s);
  check("B");
  s.r_f = 1.1;
  field.Begin(CostLayers{&m, {}, {}}, s);
  check("a kernel");
  m.p_o[m.spec.Index({0, 4})] = std::nan("");
  EXPECT_THROW(field.Begin(CostLayers{&m, {}, {}}, s), NonFiniteCostError);
  m.p_o[m.spec.Index({0, 4})] = 0.3;
  field.Begin(CostLayers{&m, {}, {}}, s);
  check("after a refused Begin");
  m = GridMaps::Initial(GridSpec{{0, 0}, 0.35, 9, 5});
  field.Begin(CostLayers{&m, {}, {}}, s);
  check("another grid");
}

TEST(CostField, RejectsMismatchedLayers) {
  GridMaps m = GridMaps::Initial(GridSpec{{0, 0}, 0.35, 3, 3});
  const std::vector<double> wrong(4, 0.0);
  CostField field;
  EXPECT_THROW(field.Begin(CostLayers{&m, wrong, {}}, CostSettings{}), std::invalid_argument);
  EXPECT_THROW(field.Begin(CostLayers{nullptr, {}, {}}, CostSettings{}), std::invalid_argument);
}

// Issue 15, item 1: a non-finite layer value anywhere is refused before A* sees a NaN cost — in every
// layer, weighted or not (0·NaN is NaN), in both fusion modes; the same field then plans on good layers.
TEST(CostField, RefusesNonFiniteLayerValues) {
  const GridSpec spec{{0, 0}, 0.35, 5, 4};
  CostField field;
  for (int layer = 0; layer < 4; ++layer) {
    for (double bad : {std::nan(""), std::numeric_limits<double>::infinity()}) {
      GridMaps m = GridMaps::Initial(spec);
      std::vector<double> emotion(m.p_o.size(), 0.1), bias(m.p_o.size(), 0.1);
      if (layer == 0) m.p_o[13] = bad;
      if (layer == 1) m.p_e[13] = bad;
      if (layer == 2) emotion[13] = bad;
      if (layer == 3) bias[13] = bad;
      CostSettings settings;  // W_p2 = W_p3 = W_p4 = 0: the bad value is weighted 0 in OR mode
      settings.mode = layer == 3 ? FusionMode::kAdditive : FusionMode::kProbabilisticOr;
      const CostLayers layers{&m, layer == 2 ? std::span<const double>(emotion) : std::span<const double>{},
                              layer == 3 ? std::span<const double>(bias) : std::span<const double>{}};
      if (layer == 3 && std::isinf(bad)) {
        // The additive form clamps m_f to [0, 1]: an infinite bias gives m_f = 1, a finite cost.
        EXPECT_NO_THROW(field.Begin(layers, settings));
        EXPECT_EQ(field.Fused(13), 1.0);
        continue;
      }
      EXPECT_THROW(field.Begin(layers, settings), NonFiniteCostError) << "layer " << layer << " value " << bad;
    }
  }
  GridMaps good = GridMaps::Initial(spec);
  EXPECT_NO_THROW(field.Begin(CostLayers{&good, {}, {}}, CostSettings{}));
  EXPECT_DOUBLE_EQ(field.Fused(13), 0.2);
}

}  // namespace
}  // namespace limbic::planner
