#include "services/laser_nav/scan_segments.hpp"

#include <gtest/gtest.h>

#include <cmath>

namespace limbic::laser {
namespace {

RangeScan Open() {
  RangeScan s;
  s.fill(250);
  return s;
}

RangeScan TwoObstacles() {
  RangeScan s = Open();
  for (int a = 10; a <= 20; ++a) s[a] = 100;
  for (int a = 50; a <= 60; ++a) s[a] = 100;
  return s;
}

TEST(ScanSegments, RunsSplitAtJumpsAndMisses) {
  const auto obstacles = ResolveScanObstacles(TwoObstacles());
  ASSERT_EQ(obstacles.size(), 2u);
  EXPECT_EQ(obstacles[0].first, 10);
  EXPECT_EQ(obstacles[0].Last(), 20);
  EXPECT_EQ(obstacles[1].first, 50);
  RangeScan ring;
  ring.fill(100);
  ASSERT_EQ(ResolveScanObstacles(ring).size(), 1u);
  EXPECT_EQ(ResolveScanObstacles(ring)[0].count, 360);
  ring[200] = 131;  // a jump of 31 cm > d = 30 cuts the ring (and its way back to 100 another)
  EXPECT_EQ(ResolveScanObstacles(ring).size(), 2u);
  ring[200] = 130;  // 30 cm: still one surface
  EXPECT_EQ(ResolveScanObstacles(ring).size(), 1u);
  RangeScan wrap = Open();
  for (int a = 350; a < 360; ++a) wrap[a] = 80;
  for (int a = 0; a < 5; ++a) wrap[a] = 82;
  ASSERT_EQ(ResolveScanObstacles(wrap).size(), 1u);  // across bearing 0
  EXPECT_EQ(ResolveScanObstacles(wrap)[0].first, 350);
  EXPECT_EQ(ResolveScanObstacles(wrap)[0].count, 15);
  EXPECT_EQ(ResolveScanObstacles(wrap)[0].closest, 350);
  EXPECT_TRUE(ResolveScanObstacles(Open()).empty());
}

TEST(ScanSegments, ExitGapsBetweenObstaclesAndOpenRuns) {
  const auto gaps = FindExitGaps(TwoObstacles());
  // The pair: beams 20 and 50 at 100 cm are 2 · 100 · sin 15° = 51.8 cm apart (≥ 40), midpoint at 35°.
  // Open runs: 21..49 (centre 35°) and 61..9 (309 beams, centre 215°).
  ASSERT_EQ(gaps.size(), 3u);
  EXPECT_FALSE(gaps[0].open_run);
  EXPECT_NEAR(gaps[0].width_cm, 200 * std::sin(15 * kDegToRad), 1e-9);
  EXPECT_NEAR(gaps[0].bearing_deg, 35.0, 1e-9);
  EXPECT_TRUE(gaps[1].open_run);
  EXPECT_NEAR(gaps[1].bearing_deg, 35.0, 1e-9);
  EXPECT_NEAR(Norm(gaps[1].target), 100.0, 1e-9);
  EXPECT_NEAR(gaps[2].bearing_deg, 215.0, 1e-9);
  // 34.7 cm apart (beams 20 and 40): not an exit; the 19-beam open run between them still is.
  RangeScan narrow = Open();
  for (int a = 10; a <= 20; ++a) narrow[a] = 100;
  for (int a = 40; a <= 50; ++a) narrow[a] = 100;
  for (const auto& g : FindExitGaps(narrow)) EXPECT_TRUE(g.open_run);
}

TEST(ScanSegments, ExitGoalVectorPicksTheGapNearestTheGoal) {
  Vec2 ev = ExitGoalVector(TwoObstacles(), 30.0);
  EXPECT_NEAR(BearingOf(ev), 35.0, 1e-9);
  EXPECT_NEAR(Norm(ev), 1.0, 1e-12);
  EXPECT_NEAR(BearingOf(ExitGoalVector(TwoObstacles(), 200.0)), 215.0, 1e-9);
  EXPECT_NEAR(BearingOf(ExitGoalVector(Open(), 123.0)), 123.0, 1e-9);  // all open: toward the goal
  RangeScan closed;
  closed.fill(20);  // a ring with no way out
  EXPECT_EQ(Norm(ExitGoalVector(closed, 0.0)), 0.0);
}

TEST(ScanSegments, TemporaryGoalKeepsItsSide) {
  RangeScan s = Open();
  s[90] = 50;  // nearest beam east; tangents 180° and 0°; the goal is north
  TemporaryGoal tv;
  Vec2 v = tv.Compute(s, 0.0);
  EXPECT_EQ(tv.side(), -1);
  EXPECT_NEAR(BearingOf(v), 0.0, 1e-9);
  s[90] = 250;
  s[100] = 50;
  v = tv.Compute(s, 170.0);  // the goal moved behind, the side stays
  EXPECT_NEAR(BearingOf(v), 10.0, 1e-9);
  tv.Reset();
  v = tv.Compute(s, 170.0);
  EXPECT_NEAR(BearingOf(v), 190.0, 1e-9);
  EXPECT_EQ(Norm(tv.Compute(Open(), 0.0)), 0.0);
}

}  // namespace
}  // namespace limbic::laser
