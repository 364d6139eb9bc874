#include "sim/visibility.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <stdexcept>
#include <vector>

namespace limbic::sim {
namespace {

using geometry::kPi;

TEST(Visibility, SectorOfHorizonAndFieldOfView) {
  // Observer at the origin heading +x (α = 0), ψ = 60°, H = 5 m; every body has r = 0.5 m.
  const geometry::Pose2 observer{0, 0, 0};
  const std::vector<VisibleDisc> bodies{
      {{3, 0}, 0.5},    // 0: straight ahead, 3 m: seen
      {{5.4, 0}, 0.5},  // 1: centre beyond H but its near edge at 4.9 m ≤ 5: seen
      {{5.6, 0}, 0.5},  // 2: near edge at 5.1 m > 5: not seen
      {{-3, 0}, 0.5},   // 3: behind: not seen
      {{0, 0.3}, 0.5},  // 4: overlaps the observer's centre (0.3 < 0.5): always seen
      {{0, 0}, 0.5},    // 5: the observer itself (self = 5): skipped
      {{1, 2}, 0.5},  // 6: bearing atan2(2, 1) = 63.43°, d = 2.236, asin(0.5/2.236) = 12.92° → 63.43 ≤ 72.92: seen
      {{0.2, 2}, 0.1},  // 7: bearing 84.29°, asin(0.1/2.010) = 2.85° → 84.29 > 62.85: not seen
  };
  EXPECT_EQ(VisibleNeighbours(observer, kPi / 3, 5.0, bodies, 5), (std::vector<int>{0, 1, 4, 6}));
  // Turned to face −x (α = π): only the one behind (3) and the overlapping one (4).
  EXPECT_EQ(VisibleNeighbours({0, 0, kPi}, kPi / 3, 5.0, bodies, 5), (std::vector<int>{3, 4}));
  // ψ = π sees all round, within H.
  EXPECT_EQ(VisibleNeighbours(observer, kPi, 5.0, bodies, 5), (std::vector<int>{0, 1, 3, 4, 6, 7}));
  // H = 0: only contact.
  EXPECT_EQ(VisibleNeighbours(observer, kPi, 0.0, bodies, 5), (std::vector<int>{4}));
}

TEST(Visibility, BadInputThrows) {
  const std::vector<VisibleDisc> ok{{{1, 0}, 0.5}};
  const double nan = std::numeric_limits<double>::quiet_NaN();
  EXPECT_THROW(VisibleNeighbours({0, 0, 0}, nan, 5, ok, -1), std::invalid_argument);
  EXPECT_THROW(VisibleNeighbours({0, 0, 0}, 4.0, 5, ok, -1), std::invalid_argument);
  EXPECT_THROW(VisibleNeighbours({0, 0, 0}, 1.0, -1, ok, -1), std::invalid_argument);
  EXPECT_THROW(VisibleNeighbours({0, 0, 0}, 1.0, std::numeric_limits<double>::infinity(), ok, -1),
               std::invalid_argument);
  EXPECT_THROW(VisibleNeighbours({nan, 0, 0}, 1.0, 5, ok, -1), std::invalid_argument);
  const std::vector<VisibleDisc> bad{{{nan, 0}, 0.5}};
  EXPECT_THROW(VisibleNeighbours({0, 0, 0}, 1.0, 5, bad, -1), std::invalid_argument);
  const std::vector<VisibleDisc> negative{{{1, 0}, -0.5}};
  EXPECT_THROW(VisibleNeighbours({0, 0, 0}, 1.0, 5, negative, -1), std::invalid_argument);
}

}  // namespace
}  // namespace limbic::sim
