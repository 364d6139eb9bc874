#include "services/affect/dynamic_weighted_sum.hpp"

#include <gtest/gtest.h>

#include <array>
#include <stdexcept>

namespace limbic::affect {
namespace {

// Table 8.3 rows, with sources 0 and 1 of a two-element intensity array.
DynamicWeightedSum Anger(DominanceForm form = DominanceForm::kCorrected) {
  return DynamicWeightedSum({{0, 1.0, 1.0, 0, 0}, {1, 0.0, 0.5, 0, 1}},
                            form);  // stuck, achievement
}
DynamicWeightedSum Fear(DominanceForm form = DominanceForm::kCorrected) {
  return DynamicWeightedSum({{0, 1.0, 1.0, 0, 0}, {1, 0.0, 2.0, 0, 0}}, form);  // danger, pain
}
DynamicWeightedSum Curiosity(DominanceForm form = DominanceForm::kCorrected) {
  return DynamicWeightedSum({{0, 1.0, 1.0, 0, 0}, {1, 0.0, 4.0, 2, 1}}, form);  // learning, cost
}

TEST(AffectDynamicWeightedSumTest, AngerMatchesClosedFormOverAGrid) {
  const DynamicWeightedSum anger = Anger();
  for (int i = 0; i <= 10; ++i) {
    for (int j = 0; j <= 10; ++j) {
      const double stuck = i / 10.0, ach = j / 10.0;
      const double expected = (stuck + 0.5 * stuck * ach * (1 - ach)) / (1 + 0.5 * stuck * ach);
      const std::array<double, 2> in{stuck, ach};
      EXPECT_NEAR(anger.Evaluate(in, -1.0), expected, 1e-12) << "stuck=" << stuck << " ach=" << ach;
    }
  }
  const std::array<double, 2> stuck_no_ach{1.0, 0.0}, both{1.0, 1.0}, none{0.0, 0.7};
  EXPECT_DOUBLE_EQ(anger.Evaluate(stuck_no_ach, -1), 1.0);
  EXPECT_DOUBLE_EQ(anger.Evaluate(both, -1), 2.0 / 3.0);
  EXPECT_DOUBLE_EQ(anger.Evaluate(none, -1), 0.0);
}

TEST(AffectDynamicWeightedSumTest, FearFromPainAloneIsTwoThirdsAndDangerSaturates) {
  const DynamicWeightedSum fear = Fear();
  const std::array<double, 2> pain_only{0.0, 1.0};
  EXPECT_DOUBLE_EQ(fear.Evaluate(pain_only, -1), 2.0 / 3.0);
  for (double pain : {0.0, 0.3, 1.0}) {
    const std::array<double, 2> danger{1.0, pain};
    EXPECT_DOUBLE_EQ(fear.Evaluate(danger, -1), 1.0) << pain;
  }
  // Hand value: danger 0.5, pain 0.5 → M_pain = 0.5·0.5, W = 0.5 → (0.5 + 0.5·0.5)/(1 + 0.5) = 0.5.
  const std::array<double, 2> half{0.5, 0.5};
  EXPECT_DOUBLE_EQ(fear.Evaluate(half, -1), 0.5);
}

TEST(AffectDynamicWeightedSumTest, CuriosityWithUnviablePathIsHeavilyReduced) {
  const std::array<double, 2> in{1.0, 1.0};
  EXPECT_DOUBLE_EQ(Curiosity().Evaluate(in, -1), 0.2);
  const std::array<double, 2> cheap{1.0, 0.0};
  EXPECT_DOUBLE_EQ(Curiosity().Evaluate(cheap, -1), 1.0);
}

TEST(AffectDynamicWeightedSumTest, PrintedDominanceFormDiffersAsSpecItem3Says) {
  // Printed form: pain can never raise fear on its own, and cost can never lower curiosity at
  // learning 1.
  const std::array<double, 2> pain_only{0.0, 1.0};
  EXPECT_DOUBLE_EQ(Fear(DominanceForm::kPrinted).Evaluate(pain_only, -1), 0.0);
  const std::array<double, 2> learning_cost{1.0, 1.0};
  EXPECT_DOUBLE_EQ(Curiosity(DominanceForm::kPrinted).Evaluate(learning_cost, -1), 1.0);
  // Anger, printed: stuck 1, ach 1 → M_ach scaled by (1 − F_D) = 0 → anger 1 instead of 2/3.
  const std::array<double, 2> both{1.0, 1.0};
  EXPECT_DOUBLE_EQ(Anger(DominanceForm::kPrinted).Evaluate(both, -1), 1.0);
}

TEST(AffectDynamicWeightedSumTest, ExponentZeroIsLinearAndTwoSquares) {
  // Sadness (no dominant input): pain 0.5 (X = 2) → M = 0.25, W = 0.2·0.75 + 0.25 = 0.4; error 0 →
  // W = 0.2.
  const DynamicWeightedSum sadness({{0, 0.2, 1.0, 2, 0}, {1, 0.2, 1.0, 2, 0}});
  const std::array<double, 2> in{0.5, 0.0};
  EXPECT_DOUBLE_EQ(sadness.Evaluate(in, -1), 0.4 * 0.5 / 0.6);
  const DynamicWeightedSum linear0({{0, 0.0, 1.0, 0, 0}, {1, 0.5, 0.5, 0, 0}});
  const DynamicWeightedSum linear1({{0, 0.0, 1.0, 1, 0}, {1, 0.5, 0.5, 1, 0}});
  const std::array<double, 2> x{0.3, 0.9};
  // W_0 = 0.3 (linear), F_0 = 0.3; W_1 = 0.5, F_1 = 0.9.
  EXPECT_DOUBLE_EQ(linear0.Evaluate(x, -1), (0.3 * 0.3 + 0.5 * 0.9) / 0.8);
  EXPECT_DOUBLE_EQ(linear0.Evaluate(x, -1), linear1.Evaluate(x, -1));
}

TEST(AffectDynamicWeightedSumTest, LogicTagsInvertOutputAndActivation) {
  // One non-dominant input with w_min 0.5, w_max 1 plus a constant anchor input (w 1, F = 0.5).
  const std::array<double, 2> in{0.2, 0.5};
  for (int logic = 0; logic < 4; ++logic) {
    const DynamicWeightedSum dws({{0, 0.5, 1.0, 0, logic}, {1, 0.9, 0.9, 0, 0}});
    const double f = (logic == 1 || logic == 2) ? 0.8 : 0.2;
    const double m = (logic == 2 || logic == 3) ? 0.8 : 0.2;
    const double w = 0.5 * (1 - m) + m;
    EXPECT_DOUBLE_EQ(dws.Evaluate(in, -1), (w * f + 0.9 * 0.5) / (w + 0.9)) << logic;
  }
}

TEST(AffectDynamicWeightedSumTest, ZeroTotalWeightReturnsTheCallersFallback) {
  // Efficiency (Table 8.5) with every emotion 0: every weight is 0.
  const DynamicWeightedSum efficiency(
      {{0, 0.0, 0.25, 0, 0}, {1, 0.0, 0.25, 0, 1}, {2, 0.0, 1.0, 0, 0}, {3, 0.0, 1.0, 2, 1}});
  const std::array<double, 4> zeros{0, 0, 0, 0};
  EXPECT_EQ(efficiency.Evaluate(zeros, 0.5), 0.5);
  EXPECT_EQ(efficiency.Evaluate(zeros, 0.123), 0.123);
}

TEST(AffectDynamicWeightedSumTest, RejectsInvalidTerms) {
  EXPECT_THROW(DynamicWeightedSum({{0, 1.0, 1.0, 0, 0}, {1, 1.0, 1.0, 0, 0}}), std::invalid_argument);
  EXPECT_THROW(DynamicWeightedSum({{0, 0.0, 1.0, 0, 4}}), std::invalid_argument);
  EXPECT_THROW(DynamicWeightedSum({{0, -0.1, 1.0, 0, 0}}), std::invalid_argument);
  EXPECT_THROW(DynamicWeightedSum({{0, 0.0, 1.0, -2, 0}}), std::invalid_argument);
  EXPECT_EQ(Anger().dominant_index(), 0);
}

}  // namespace
}  // namespace limbic::affect
