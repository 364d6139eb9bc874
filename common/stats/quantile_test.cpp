#include "common/stats/quantile.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>

namespace limbic::stats {
namespace {

TEST(Median, OddCountIsTheMiddleValue) { EXPECT_DOUBLE_EQ(Median({5, 1, 3}), 3.0); }

TEST(Median, EvenCountIsTheMeanOfTheTwoMiddleValues) { EXPECT_DOUBLE_EQ(Median({4, 1, 3, 2}), 2.5); }

TEST(Median, OneValueAndNoValue) {
  EXPECT_DOUBLE_EQ(Median({7}), 7.0);
  EXPECT_TRUE(std::isnan(Median({})));
}

// Type 7 by hand: 1..10, q = 0.99 → h = 8.91 → 9 + 0.91·(10 − 9) = 9.91; q = 0.25 → h = 2.25 → 3.25.
TEST(Quantile, InterpolatesBetweenOrderStatistics) {
  const std::vector<double> v = {10, 9, 8, 7, 6, 5, 4, 3, 2, 1};
  EXPECT_NEAR(Quantile(v, 0.99), 9.91, 1e-12);
  EXPECT_NEAR(Quantile(v, 0.25), 3.25, 1e-12);
  EXPECT_DOUBLE_EQ(Quantile(v, 0.0), 1.0);
  EXPECT_DOUBLE_EQ(Quantile(v, 1.0), 10.0);
}

TEST(Quantile, RefusesAQuantileOutsideZeroToOne) {
  EXPECT_THROW(Quantile({1, 2}, 1.5), std::invalid_argument);
  EXPECT_THROW(Quantile({1, 2}, -0.1), std::invalid_argument);
  EXPECT_THROW(Quantile({1, 2}, std::nan("")), std::invalid_argument);
}

}  // namespace
}  // namespace limbic::stats
