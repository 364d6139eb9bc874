#include "services/laser_nav/scan_segments.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "services/laser_nav/testing/reference_scan_segments.hpp"
#include "services/laser_sim/laser_scanner.hpp"
#include "services/laser_sim/laser_world.hpp"

namespace limbic::laser {
namespace {

RangeScan OpenScan() {
  RangeScan s;
  s.fill(250);
  return s;
}

RangeScan TwoObstacles() {
  RangeScan s = OpenScan();
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
  RangeScan wrap = OpenScan();
  for (int a = 350; a < 360; ++a) wrap[a] = 80;
  for (int a = 0; a < 5; ++a) wrap[a] = 82;
  ASSERT_EQ(ResolveScanObstacles(wrap).size(), 1u);  // across bearing 0
  EXPECT_EQ(ResolveScanObstacles(wrap)[0].first, 350);
  EXPECT_EQ(ResolveScanObstacles(wrap)[0].count, 15);
  EXPECT_EQ(ResolveScanObstacles(wrap)[0].closest, 350);
  EXPECT_TRUE(ResolveScanObstacles(OpenScan()).empty());
}

TEST(ScanSegments, ExitGapsBetweenObstaclesAndOpenRuns) {
  const auto gaps = FindExitGaps(TwoObstacles());
  // The pair: beams 20 and 50 at 100 cm are 2 · 100 · sin 15° = 51.8 cm apart (≥ 40), midpoint at 35°.
  // OpenScan runs: 21..49 (centre 35°) and 61..9 (309 beams, centre 215°).
  ASSERT_EQ(gaps.size(), 3u);
  EXPECT_FALSE(gaps[0].open_run);
  EXPECT_NEAR(gaps[0].width_cm, 200 * std::sin(15 * kDegToRad), 1e-9);
  EXPECT_NEAR(gaps[0].bearing_deg, 35.0, 1e-9);
  EXPECT_TRUE(gaps[1].open_run);
  EXPECT_NEAR(gaps[1].bearing_deg, 35.0, 1e-9);
  EXPECT_NEAR(Norm(gaps[1].target), 100.0, 1e-9);
  EXPECT_NEAR(gaps[2].bearing_deg, 215.0, 1e-9);
  // 34.7 cm apart (beams 20 and 40): not an exit; the 19-beam open run between them still is.
  RangeScan narrow = OpenScan();
  for (int a = 10; a <= 20; ++a) narrow[a] = 100;
  for (int a = 40; a <= 50; ++a) narrow[a] = 100;
  for (const auto& g : FindExitGaps(narrow)) EXPECT_TRUE(g.open_run);
}

TEST(ScanSegments, ExitGoalVectorPicksTheGapNearestTheGoal) {
  Vec2 ev = ExitGoalVector(TwoObstacles(), 30.0);
  EXPECT_NEAR(BearingOf(ev), 35.0, 1e-9);
  EXPECT_NEAR(Norm(ev), 1.0, 1e-12);
  EXPECT_NEAR(BearingOf(ExitGoalVector(TwoObstacles(), 200.0)), 215.0, 1e-9);
  EXPECT_NEAR(BearingOf(ExitGoalVector(OpenScan(), 123.0)), 123.0, 1e-9);  // all open: toward the goal
  RangeScan closed;
  closed.fill(20);  // a ring with no way out
  EXPECT_EQ(Norm(ExitGoalVector(closed, 0.0)), 0.0);
}

TEST(ScanSegments, TemporaryGoalKeepsItsSide) {
  RangeScan s = OpenScan();
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
  EXPECT_EQ(Norm(tv.Compute(OpenScan(), 0.0)), 0.0);
}

// The segmentation must give exactly what it gave before it was made faster (the experiments' results
// depend on every bit of Ev): compared with the previous code, kept as the oracle, on laser scans of
// random worlds and on random scans built to hit the edges (runs across bearing 0, single-beam runs,
// jumps of exactly 30 cm, closed rings, empty scans).
void ExpectSameSegmentation(const RangeScan& s, const SegmentOptions& o, std::mt19937_64& rng) {
  const auto obstacles = ResolveScanObstacles(s, o);
  const auto want_obstacles = reference::ResolveScanObstacles(s, o);
  ASSERT_EQ(obstacles.size(), want_obstacles.size());
  for (size_t i = 0; i < obstacles.size(); ++i) {
    EXPECT_EQ(obstacles[i].first, want_obstacles[i].first);
    EXPECT_EQ(obstacles[i].count, want_obstacles[i].count);
    EXPECT_EQ(obstacles[i].closest, want_obstacles[i].closest);
    EXPECT_EQ(obstacles[i].range_cm, want_obstacles[i].range_cm);
  }
  const auto gaps = FindExitGaps(s, o);
  const auto want_gaps = reference::FindExitGaps(s, o);
  ASSERT_EQ(gaps.size(), want_gaps.size());
  for (size_t i = 0; i < gaps.size(); ++i) {
    EXPECT_EQ(gaps[i].target.x, want_gaps[i].target.x);
    EXPECT_EQ(gaps[i].target.y, want_gaps[i].target.y);
    EXPECT_EQ(gaps[i].bearing_deg, want_gaps[i].bearing_deg);
    EXPECT_EQ(gaps[i].width_cm, want_gaps[i].width_cm);
    EXPECT_EQ(gaps[i].open_run, want_gaps[i].open_run);
  }
  std::uniform_real_distribution<double> bearing(0.0, 360.0);
  for (double goal : {0.0, 90.0, 180.0, 270.0, bearing(rng), bearing(rng)}) {
    const Vec2 ev = ExitGoalVector(s, goal, o);
    const Vec2 want = reference::ExitGoalVector(s, goal, o);
    EXPECT_EQ(ev.x, want.x);
    EXPECT_EQ(ev.y, want.y);
  }
}

TEST(ScanSegments, SameAsThePreviousCodeOnScansOfRandomWorlds) {
  std::mt19937_64 rng(21);
  const SegmentOptions o;
  for (double density : {15.0, 25.0, 35.0}) {
    for (int index = 0; index < 3; ++index) {
      const World w = GenerateWorld(density, index);
      LaserScanner laser(w, {}, 7);
      std::uniform_real_distribution<double> coordinate(1.0, w.width - 1.0);
      for (int k = 0; k < 150; ++k) {
        RangeScan s;
        laser.Scan({coordinate(rng), coordinate(rng)}, &s);
        ExpectSameSegmentation(s, o, rng);
        if (HasFatalFailure()) return;
      }
    }
  }
}

TEST(ScanSegments, SameAsThePreviousCodeOnRandomScans) {
  std::mt19937_64 rng(22);
  for (int k = 0; k < 3000; ++k) {
    RangeScan s;
    const int kind = k % 6;
    if (kind == 0) {  // noise everywhere: many single-beam runs
      for (auto& v : s) v = static_cast<uint8_t>(rng() % 251);
    } else if (kind == 1) {  // piecewise surfaces with misses, jumps around the 30 cm threshold
      int a = 0;
      while (a < kBeams) {
        const int len = 1 + static_cast<int>(rng() % 40);
        const bool miss = rng() % 4 == 0;
        int r = static_cast<int>(20 + rng() % 200);
        for (int j = 0; j < len && a < kBeams; ++j, ++a) {
          s[a] = miss ? 250 : static_cast<uint8_t>(std::clamp(r, 0, 249));
          r += static_cast<int>(rng() % 7) - 3;
        }
      }
    } else if (kind == 2) {  // a closed ring with steps of exactly 30 or 31 cm
      int r = 100;
      for (auto& v : s) {
        if (rng() % 20 == 0) r = 100 + ((rng() % 2) ? 30 : 31) * ((rng() % 2) ? 1 : -1);
        v = static_cast<uint8_t>(std::clamp(r, 0, 249));
      }
    } else if (kind == 3) {  // nothing but a few beams (a run across bearing 0 included)
      s.fill(250);
      const int first = 350 + static_cast<int>(rng() % 10);
      for (int j = 0; j < static_cast<int>(rng() % 30); ++j)
        s[(first + j) % kBeams] = static_cast<uint8_t>(rng() % 250);
    } else if (kind == 4) {  // all open, or all at one range
      s.fill(rng() % 2 ? 250 : static_cast<uint8_t>(rng() % 250));
    } else {  // two-valued: long runs at 0 and 249 (wide gaps between far points)
      for (auto& v : s) v = rng() % 9 == 0 ? 250 : (rng() % 2 ? 249 : 0);
    }
    ExpectSameSegmentation(s, SegmentOptions{}, rng);
    SegmentOptions other;
    other.jump_cm = 12.5;
    other.min_exit_width_cm = 25.0;
    other.min_open_run = 3;
    ExpectSameSegmentation(s, other, rng);
    if (HasFatalFailure()) return;
  }
}

}  // namespace
}  // namespace limbic::laser
