#include "common/stats/proportion.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>

namespace limbic::stats {
namespace {

// Reference values worked by hand from the Wilson formula with z = 1.959964 (z² = 3.841459):
// 0/10 → [0, z²/(10 + z²)] = [0, 0.277533]; 5/10 → 0.5 ± 1.415992·√0.03460365 = [0.236593,
// 0.763407]; 95/100 → [0.888250, 0.978456] (the textbook example); 1/1 → [1/(1 + z²), 1] =
// [0.206549, 1].
TEST(WilsonInterval, MatchesHandComputedValues) {
  const Proportion none = WilsonInterval(0, 10);
  EXPECT_DOUBLE_EQ(none.estimate, 0.0);
  EXPECT_DOUBLE_EQ(none.low, 0.0);
  EXPECT_NEAR(none.high, 0.2775328, 1e-7);
  const Proportion half = WilsonInterval(5, 10);
  EXPECT_DOUBLE_EQ(half.estimate, 0.5);
  EXPECT_NEAR(half.low, 0.2365931, 1e-7);
  EXPECT_NEAR(half.high, 0.7634069, 1e-7);
  const Proportion most = WilsonInterval(95, 100);
  EXPECT_NEAR(most.low, 0.8882495, 1e-7);
  EXPECT_NEAR(most.high, 0.9784563, 1e-7);
  const Proportion all = WilsonInterval(10, 10);
  EXPECT_NEAR(all.low, 0.7224672, 1e-7);
  EXPECT_DOUBLE_EQ(all.high, 1.0);  // not 0-width like mean ± sd of ten 1s
  const Proportion one = WilsonInterval(1, 1);
  EXPECT_NEAR(one.low, 1.0 / (1.0 + 1.959963984540054 * 1.959963984540054), 1e-12);
  EXPECT_EQ(one.successes, 1);
  EXPECT_EQ(one.trials, 1);
}

TEST(WilsonInterval, EmptyIsNaNAndImpossibleCountsThrow) {
  const Proportion empty = WilsonInterval(0, 0);
  EXPECT_TRUE(std::isnan(empty.estimate));
  EXPECT_TRUE(std::isnan(empty.low));
  EXPECT_TRUE(std::isnan(empty.high));
  EXPECT_THROW(WilsonInterval(3, 2), std::invalid_argument);
  EXPECT_THROW(WilsonInterval(-1, 2), std::invalid_argument);
  EXPECT_THROW(WilsonInterval(0, -1), std::invalid_argument);
}

}  // namespace
}  // namespace limbic::stats
