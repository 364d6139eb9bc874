#include "services/controller/weighted_product.hpp"

#include <gtest/gtest.h>

#include <vector>

#include "services/controller/terms.hpp"

namespace limbic::controller {
namespace {

// §4.3 worked example (Figs. 5.11/5.12): W_1 = 1 (avoidance), W_2 = 0.5 (goal).
TEST(WeightedProductTest, WorkedExampleProductPrefersSafeOption) {
  const std::vector<WeightedTerm> dangerous = {{1.0, 0.0}, {0.5, 1.0}};
  const std::vector<WeightedTerm> safe = {{1.0, 0.4}, {0.5, 0.0}};
  // Cap 1 to use the example's W_1 = 1 literally: (1 − 1·1)(1 − 0) = 0 and (1 − 0.6)(1 − 0.5) =
  // 0.2.
  EXPECT_DOUBLE_EQ(WeightedProduct(dangerous, 1.0), 0.0);
  EXPECT_DOUBLE_EQ(WeightedProduct(safe, 1.0), 0.2);
  const std::vector<double> product = {WeightedProduct(dangerous, 1.0), WeightedProduct(safe, 1.0)};
  EXPECT_EQ(ArgMax(product, TieBreak::kFirstMaximum), 1);
}

TEST(WeightedProductTest, WorkedExampleSumPrefersDangerousOption) {
  const std::vector<WeightedTerm> dangerous = {{1.0, 0.0}, {0.5, 1.0}};
  const std::vector<WeightedTerm> safe = {{1.0, 0.4}, {0.5, 0.0}};
  EXPECT_NEAR(WeightedSum(dangerous), 0.5 / 1.5, 1e-12);  // 0.33
  EXPECT_NEAR(WeightedSum(safe), 0.4 / 1.5, 1e-12);       // 0.27
  const std::vector<double> sum = {WeightedSum(dangerous), WeightedSum(safe)};
  EXPECT_EQ(ArgMax(sum, TieBreak::kFirstMaximum), 0);
}

TEST(WeightedProductTest, CapLetsLowerPriorityTermsRankRejectedOptions) {
  // Avoidance rejects both options (f_1 = 0); the goal term (f_2 = 1 vs 0) must still rank them.
  const std::vector<WeightedTerm> toward_goal = {{1.0, 0.0}, {0.5, 1.0}};
  const std::vector<WeightedTerm> away = {{1.0, 0.0}, {0.5, 0.0}};
  EXPECT_DOUBLE_EQ(WeightedProduct(toward_goal, 1.0), WeightedProduct(away, 1.0));  // uncapped: tie at 0
  // Capped at 0.99: (1 − 0.99)·1 = 0.01 and 0.01·0.5 = 0.005.
  EXPECT_NEAR(WeightedProduct(toward_goal, 0.99), 0.01, 1e-12);
  EXPECT_NEAR(WeightedProduct(away, 0.99), 0.005, 1e-12);
}

TEST(WeightedProductTest, CapWeightClampsToUnitIntervalAndCap) {
  EXPECT_DOUBLE_EQ(CapWeight(1.0, 0.99), 0.99);
  EXPECT_DOUBLE_EQ(CapWeight(0.75, 0.99), 0.75);
  EXPECT_DOUBLE_EQ(CapWeight(-0.2, 0.99), 0.0);
  EXPECT_DOUBLE_EQ(ProductFactor(0.75, 0.2), 1.0 - 0.75 * 0.8);
  EXPECT_DOUBLE_EQ(ProductFactor(0.0, 0.0), 1.0);  // a zero weight has no influence
}

TEST(WeightedProductTest, WeightedSumOfZeroWeightsIsZero) {
  const std::vector<WeightedTerm> none = {{0.0, 1.0}, {0.0, 0.5}};
  EXPECT_DOUBLE_EQ(WeightedSum(none), 0.0);
}

TEST(ArgMaxTest, FirstMaximumInCandidateOrder) {
  const std::vector<double> values = {0.1, 0.7, 0.3, 0.7, 0.7};
  EXPECT_EQ(ArgMax(values, TieBreak::kFirstMaximum), 1);
  EXPECT_EQ(ArgMax(std::vector<double>{}, TieBreak::kFirstMaximum), -1);
}

TEST(ArgMaxTest, ClosestToCurrentAmongTies) {
  const std::vector<double> values = {0.1, 0.7, 0.3, 0.7, 0.7};
  const std::vector<double> distance = {0.0, 0.5, 0.0, 0.2, 0.2};
  EXPECT_EQ(ArgMax(values, TieBreak::kClosestToCurrent, distance),
            3);  // 0.2 < 0.5; equal 0.2 → first
  const std::vector<double> distinct = {0.1, 0.7, 0.69};
  EXPECT_EQ(ArgMax(distinct, TieBreak::kClosestToCurrent, std::vector<double>{1, 5, 0}),
            1);  // not a tie
  EXPECT_THROW(ArgMax(values, TieBreak::kClosestToCurrent, std::vector<double>{0.0}), std::invalid_argument);
}

TEST(ArgMaxTest, ValuesWithinToleranceAreTies) {
  const std::vector<double> values = {0.5, 0.5 + 1e-15, 0.4};
  EXPECT_EQ(ArgMax(values, TieBreak::kFirstMaximum), 0);
  EXPECT_EQ(ArgMax(values, TieBreak::kFirstMaximum, {}, 0.0), 1);
}

TEST(TermsTest, HeadingPreferenceEq515) {
  using geometry::kPi;
  EXPECT_DOUBLE_EQ(HeadingPreference(0.3, 0.3), 1.0);
  EXPECT_NEAR(HeadingPreference(kPi / 2, 0.0), 0.5, 1e-12);
  EXPECT_NEAR(HeadingPreference(-kPi, 0.0), 0.0, 1e-12);
  // Wrapped: 170° vs −170° are 20° apart → 1 − 20/180.
  EXPECT_NEAR(HeadingPreference(170.0 * kPi / 180, -170.0 * kPi / 180), 1.0 - 20.0 / 180.0, 1e-12);
}

TEST(TermsTest, GoalProximityEqs518And519) {
  // d_g = 0.6 of d_g(max) = 1.5 → factor 0.4.
  EXPECT_NEAR(BoostNearGoal(0.5, 0.6, 1.5), 0.5 + (1 - 0.4) * 0.5, 1e-12);  // 0.8
  EXPECT_NEAR(ReduceNearGoal(0.99, 0.6, 1.5), 0.99 * 0.4, 1e-12);
  EXPECT_DOUBLE_EQ(BoostNearGoal(0.5, 1.5, 1.5), 0.5);  // not below d_g(max): unchanged
  EXPECT_DOUBLE_EQ(ReduceNearGoal(0.5, 2.0, 1.5), 0.5);
  EXPECT_DOUBLE_EQ(BoostNearGoal(0.0, 0.0, 1.5), 1.0);  // at the goal: full goal seeking
  EXPECT_DOUBLE_EQ(ReduceNearGoal(0.75, 0.0, 1.5), 0.0);
}

TEST(TieBreakOption, NamesParseInOrderAndOthersAreRefused) {
  EXPECT_EQ(ParseTieBreak("first"), TieBreak::kFirstMaximum);
  EXPECT_EQ(ParseTieBreak("closest"), TieBreak::kClosestToCurrent);
  EXPECT_THROW(ParseTieBreak("last"), std::invalid_argument);
}

}  // namespace
}  // namespace limbic::controller
