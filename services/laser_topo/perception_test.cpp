#include "services/laser_topo/perception.hpp"

#include <gtest/gtest.h>

#include <cmath>

namespace limbic::laser {
namespace {

RangeScan Open() {
  RangeScan s;
  s.fill(250);
  return s;
}

// Ranges from the origin to circles (cx, cy, r), rounded to whole centimetres like the laser.
RangeScan Circles(const std::vector<std::array<double, 3>>& circles) {
  RangeScan s = Open();
  for (int a = 0; a < kBeams; ++a) {
    const Vec2 u = UnitVector(a);
    double best = 250.0;
    for (const auto& c : circles) {
      const double b = u.x * c[0] + u.y * c[1];
      const double disc = b * b - (c[0] * c[0] + c[1] * c[1] - c[2] * c[2]);
      if (disc < 0.0) continue;
      const double t = b - std::sqrt(disc);
      if (t > 0.0) best = std::min(best, t);
    }
    s[a] = static_cast<uint8_t>(std::lround(std::min(best, 250.0)));
  }
  return s;
}

TEST(TopoPerception, TwoArcsGiveOneFeatureSeenFromABadPerspective) {
  RangeScan s = Open();
  for (int a = 10; a <= 20; ++a) s[a] = 100;
  for (int a = 50; a <= 60; ++a) s[a] = 100;
  const auto obstacles = ResolveObstacles(s);
  ASSERT_EQ(obstacles.size(), 2u);
  EXPECT_EQ(obstacles[0].bearing_min, 10);
  EXPECT_EQ(obstacles[0].bearing_max, 20);
  EXPECT_EQ(obstacles[0].bearing, 10);  // the first beam of the minimum range
  EXPECT_EQ(obstacles[0].points.size(), 11u);
  EXPECT_EQ(obstacles[1].bearing_min, 50);
  const auto features = FindFeatures(obstacles);
  ASSERT_EQ(features.size(), 1u);
  const Feature& f = features[0];
  // Beams 20 and 50 at 100 cm: 2 · 100 · sin 15° apart, the vector from 20° to 50° points at 125°.
  EXPECT_NEAR(f.length_cm, 200 * std::sin(15 * kDegToRad), 1e-9);
  EXPECT_NEAR(f.bearing_deg, 125.0, 1e-9);
  EXPECT_NEAR(f.nvb_deg, 35.0, 1e-9);
  EXPECT_NEAR(f.nvr_cm, 100 * std::cos(15 * kDegToRad), 1e-9);
  EXPECT_FALSE(f.perspective);  // both endpoints are ends of their arcs (occlusion may have cut them)
  EXPECT_TRUE(f.adjacent);
  EXPECT_EQ(ClassifyArea(features), 0);
  // 34.7 cm apart (beams 20 and 40): touching for the robot, not a feature.
  RangeScan narrow = Open();
  for (int a = 10; a <= 20; ++a) narrow[a] = 100;
  for (int a = 40; a <= 50; ++a) narrow[a] = 100;
  EXPECT_TRUE(FindFeatures(ResolveObstacles(narrow)).empty());
  EXPECT_EQ(ClassifyArea({}), -1);
  EXPECT_TRUE(ResolveObstacles(Open()).empty());
}

TEST(TopoPerception, TwoDiscsGiveTheirNarrowestPassage) {
  // Discs of radius 30 at (±60, 30): the passage runs from (−30, 30) to (30, 30), 60 cm east-west, its
  // middle due north at 30 cm; both ends (at ±45°) lie inside the visible arcs (±36.9°…±90°).
  const auto obstacles = ResolveObstacles(Circles({{-60, 30, 30}, {60, 30, 30}}));
  ASSERT_EQ(obstacles.size(), 2u);
  const auto features = FindFeatures(obstacles);
  ASSERT_EQ(features.size(), 1u);
  const Feature& f = features[0];
  EXPECT_NEAR(f.length_cm, 60.0, 3.0);
  EXPECT_LT(D180(f.bearing_deg, 90.0), 5.0);
  EXPECT_LT(AngDiff(f.nvb_deg, 0.0), 3.0);
  EXPECT_NEAR(f.nvr_cm, 30.0, 3.0);
  EXPECT_TRUE(f.perspective);
  // Seen from far south the same kind of passage has its ends at the tangent beams: a bad perspective.
  const auto far = FindFeatures(ResolveObstacles(Circles({{-60, 100, 30}, {60, 100, 30}})));
  ASSERT_EQ(far.size(), 1u);
  EXPECT_FALSE(far[0].perspective);
}

TEST(TopoPerception, ACornerIsSplitIntoTwoWalls) {
  // Walls y = 100 and x = 100 seen from the origin: one continuous run 0°…90° whose surface turns 90°
  // at 45° (§3.2 step 4).
  RangeScan s = Open();
  for (int a = 0; a <= 90; ++a) {
    const double r = a <= 45 ? 100.0 / std::cos(a * kDegToRad) : 100.0 / std::sin(a * kDegToRad);
    s[a] = static_cast<uint8_t>(std::lround(r));
  }
  const auto obstacles = ResolveObstacles(s);
  ASSERT_EQ(obstacles.size(), 2u);
  EXPECT_EQ(obstacles[0].bearing_min, 0);
  EXPECT_NEAR(obstacles[0].bearing_max, 45, 2);
  EXPECT_EQ(obstacles[1].bearing_min, obstacles[0].bearing_max + 1);
  EXPECT_EQ(obstacles[1].bearing_max, 90);
  EXPECT_EQ(obstacles[0].points.size() + obstacles[1].points.size(), 91u);
  // A gentle curve (a disc) is not split.
  EXPECT_EQ(ResolveObstacles(Circles({{0, 150, 60}})).size(), 1u);
}

TEST(TopoPerception, AtMostFifteenObstaclesTheNearestAndFiftyFeatures) {
  RangeScan s = Open();
  for (int k = 0; k < 20; ++k) {
    for (int a = 18 * k; a < 18 * k + 3; ++a) s[a] = static_cast<uint8_t>(150 + 5 * k);  // obstacle k at 150 + 5k
  }
  const auto obstacles = ResolveObstacles(s);
  ASSERT_EQ(obstacles.size(), 15u);
  for (size_t i = 0; i < obstacles.size(); ++i) {
    EXPECT_EQ(obstacles[i].bearing_min, static_cast<int>(18 * i)) << i;  // the 15 nearest, by bearing
    if (i > 0) {
      EXPECT_GT(obstacles[i].bearing_min, obstacles[i - 1].bearing_min);
    }
  }
  const auto features = FindFeatures(obstacles);
  ASSERT_EQ(features.size(), 50u);  // of 105 pairs (all ≥ 40 cm apart)
  for (size_t i = 1; i < features.size(); ++i) EXPECT_GE(features[i].range_sum_cm, features[i - 1].range_sum_cm);
  // The two closest obstacles (0 and 1) name the area.
  const Feature& c = features[ClassifyArea(features)];
  EXPECT_EQ(c.a, 0);
  EXPECT_EQ(c.b, 1);
  EXPECT_TRUE(c.adjacent);
  TopoPerceptionOptions bad;
  bad.max_obstacles = 1;
  EXPECT_THROW(ValidateTopoPerceptionOptions(bad), std::invalid_argument);
}

TEST(TopoPerception, UndirectedBearings) {
  EXPECT_DOUBLE_EQ(Fold180(190.0), 10.0);
  EXPECT_DOUBLE_EQ(Fold180(-10.0), 170.0);
  EXPECT_DOUBLE_EQ(D180(178.0, 2.0), 4.0);
  EXPECT_DOUBLE_EQ(D180(10.0, 100.0), 90.0);
  EXPECT_DOUBLE_EQ(D180(370.0, 5.0), 5.0);
}

}  // namespace
}  // namespace limbic::laser
