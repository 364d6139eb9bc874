// §6 metrics and statistics against hand-computed cases.
#include "tools/recruit/statistics.hpp"

#include <gtest/gtest.h>

#include <cmath>

namespace limbic::recruit {
namespace {

TEST(RecruitStatistics, BiasMatchesTheSpecDefinition) {
  EXPECT_EQ(Bias({5, 5, 5, 5, 5}, 25), 0);  // perfectly even
  EXPECT_EQ(Bias({0, 7, 6, 6, 6}, 25), 5);  // "simply ignoring one of the idle robots": 2 + 1 + 1 + 1
  EXPECT_EQ(Bias({0, 0, 0, 0, 25}, 25), 20);
  EXPECT_EQ(Bias({4, 6, 6, 4, 5}, 25), 2);
  EXPECT_EQ(Bias({2, 3}, 4), 1);     // μ = 2: f = 0, ⌊1⌋
  EXPECT_EQ(Bias({1, 1, 3}, 5), 1);  // μ = 5/3: ⌊3 − 1.667⌋ = 1
  EXPECT_THROW(Bias({}, 5), std::invalid_argument);
}

TEST(RecruitStatistics, RankSumWithoutTies) {
  // x = {1,2,3}, y = {4,5,6}: W = 6, μ_W = 10.5, σ² = 9/12·7 = 5.25, z = (6 − 10.5 + 0.5)/√5.25.
  const RankSumResult r = RankSum({1, 2, 3}, {4, 5, 6});
  EXPECT_DOUBLE_EQ(r.w, 6.0);
  EXPECT_DOUBLE_EQ(r.mean_w, 10.5);
  EXPECT_NEAR(r.sigma, std::sqrt(5.25), 1e-12);
  EXPECT_NEAR(r.z, -4.0 / std::sqrt(5.25), 1e-12);
  EXPECT_NEAR(r.p, 0.0808556, 1e-6);  // MATLAB ranksum(...,'method','approximate'): 0.0809
  // Symmetric: swapping the samples keeps p.
  EXPECT_NEAR(RankSum({4, 5, 6}, {1, 2, 3}).p, r.p, 1e-12);
}

TEST(RecruitStatistics, RankSumWithTiesUsesAverageRanksAndTheTieCorrection) {
  // Pooled 1,2,2,2,3,3,4,5 → ranks 1, 3,3,3, 5.5,5.5, 7, 8; W = 1 + 3 + 3 + 5.5 = 12.5; μ_W = 18;
  // Σ(t³ − t) = 24 + 6 = 30; σ² = 16/12·(9 − 30/56); z = (12.5 − 18 + 0.5)/σ.
  const RankSumResult r = RankSum({1, 2, 2, 3}, {2, 3, 4, 5});
  EXPECT_DOUBLE_EQ(r.w, 12.5);
  EXPECT_DOUBLE_EQ(r.mean_w, 18.0);
  const double sigma = std::sqrt(16.0 / 12.0 * (9.0 - 30.0 / 56.0));
  EXPECT_NEAR(r.sigma, sigma, 1e-12);
  EXPECT_NEAR(r.z, -5.0 / sigma, 1e-12);
  EXPECT_NEAR(r.p, 0.1366582, 1e-6);
  EXPECT_NEAR(RankSum({5, 5, 5, 7}, {5, 6, 8, 8, 9}).p, 0.1230564, 1e-6);
}

TEST(RecruitStatistics, RankSumEdgeCases) {
  const RankSumResult equal = RankSum({3, 3, 3}, {3, 3});
  EXPECT_DOUBLE_EQ(equal.p, 1.0);
  // W exactly at its mean: no continuity shift, z = 0, p = 1.
  const RankSumResult centred = RankSum({1, 4}, {2, 3});
  EXPECT_DOUBLE_EQ(centred.z, 0.0);
  EXPECT_DOUBLE_EQ(centred.p, 1.0);
  // Large separated samples: tiny p (30 vs 30, the team-size design).
  std::vector<double> a, b;
  for (int i = 0; i < 30; ++i) {
    a.push_back(i);
    b.push_back(100 + i);
  }
  EXPECT_LT(RankSum(a, b).p, BonferroniThreshold(0.01, 30));
  EXPECT_THROW(RankSum({}, {1}), std::invalid_argument);
  EXPECT_THROW(RankSum({std::nan("")}, {1}), std::invalid_argument);
}

TEST(RecruitStatistics, BonferroniAndRelativeImprovement) {
  // The spec writes 0.00033 and 0.00066 (truncated): 0.01/30 = 0.000333…, 0.01/15 = 0.000666…
  EXPECT_NEAR(BonferroniThreshold(0.01, 30), 0.000333, 1e-6);
  EXPECT_NEAR(BonferroniThreshold(0.01, 15), 0.000667, 1e-6);
  EXPECT_THROW(BonferroniThreshold(0.01, 0), std::invalid_argument);
  EXPECT_DOUBLE_EQ(RelativeImprovement(25.0, 100.0), 0.75);
  EXPECT_DOUBLE_EQ(RelativeImprovement(150.0, 100.0), -0.5);
  EXPECT_TRUE(std::isnan(RelativeImprovement(1.0, 0.0)));
}

TEST(RecruitStatistics, SummaryQuartiles) {
  const Summary s = Summarise({4, 1, 3, 2, 5});
  EXPECT_EQ(s.n, 5);
  EXPECT_DOUBLE_EQ(s.mean, 3.0);
  EXPECT_DOUBLE_EQ(s.median, 3.0);
  EXPECT_DOUBLE_EQ(s.q1, 2.0);
  EXPECT_DOUBLE_EQ(s.q3, 4.0);
  EXPECT_NEAR(s.sd, std::sqrt(2.5), 1e-12);
  EXPECT_EQ(Summarise({}).n, 0);
}

}  // namespace
}  // namespace limbic::recruit
