#include "services/laser_sim/laser_scanner.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <set>
#include <thread>
#include <vector>

namespace limbic::laser {
namespace {

World OneCircle() {
  World w;
  w.start = {330, 330};
  w.goal = {330, 620};
  w.obstacles.push_back({330, 430, 20});  // D = 100 north of the robot at (330, 330)
  return w;
}

TEST(LaserScanner, ExactRangesFollowEq33) {
  const World w = OneCircle();
  ExactScan r;
  std::array<int16_t, kBeams> hit;
  CastExact(w, {330, 330}, &r, &hit);
  EXPECT_NEAR(r[0], 80.0, 1e-4);  // nearest point: d = D − r
  // l(φ) = D cos φ − sqrt(r² − D² sin² φ) at φ = 5°: 81.618 cm.
  const double phi = 5 * kDegToRad;
  const double l5 = 100 * std::cos(phi) - std::sqrt(400 - 10000 * std::sin(phi) * std::sin(phi));
  EXPECT_NEAR(r[5], l5, 1e-4);
  EXPECT_NEAR(r[355], l5, 1e-4);
  // Visible half-angle asin(20/100) = 11.54°: beams 349..11 hit, 12 and 348 do not.
  EXPECT_EQ(hit[11], 0);
  EXPECT_EQ(hit[349], 0);
  EXPECT_EQ(hit[12], kNothing);
  EXPECT_EQ(hit[348], kNothing);
  EXPECT_FLOAT_EQ(r[12], 250.0f);  // the north wall is 330 cm away: no return
  // Walls: east wall 330 cm (no return); from (100, 330) the west wall is 100 cm away.
  CastExact(w, {100, 330}, &r, &hit);
  EXPECT_NEAR(r[270], 100.0, 1e-9);
  EXPECT_EQ(hit[270], kWall);
  EXPECT_NEAR(r[225], 100.0 * std::sqrt(2.0), 1e-4);  // south-west: to the west wall at 45°
}

TEST(LaserScanner, InsideAnObstacleOrOutsideTheRoomReadsZero) {
  const World w = OneCircle();
  ExactScan r;
  CastExact(w, {330, 430}, &r);
  for (float v : r) EXPECT_EQ(v, 0.0f);
  CastExact(w, {-5, 100}, &r);
  for (float v : r) EXPECT_EQ(v, 0.0f);
  CastExact(w, {std::numeric_limits<double>::quiet_NaN(), 100}, &r);
  for (float v : r) EXPECT_EQ(v, 0.0f);
}

TEST(LaserScanner, QuantisationWithoutErrorRoundsToWholeCentimetres) {
  const World w = OneCircle();
  LaserScanner laser(w, {LaserErrorModel::kNone, 2, false}, 1);
  RangeScan s;
  ExactScan exact;
  laser.Scan({330, 330}, &s, &exact);
  EXPECT_EQ(s[0], 80);
  EXPECT_EQ(s[5], 82);  // 81.618
  EXPECT_EQ(s[90], 250);
  for (int a = 0; a < kBeams; ++a) EXPECT_EQ(s[a], static_cast<uint8_t>(std::lround(exact[a])));
}

TEST(LaserScanner, UniformErrorIsWithinTwoCentimetresAndUsesAllFiveValues) {
  const World w = OneCircle();
  LaserScanner laser(w, {LaserErrorModel::kUniform, 2, false}, 42);
  RangeScan s;
  ExactScan exact;
  std::set<int> errors;
  for (int k = 0; k < 200; ++k) {
    laser.Scan({330, 330}, &s, &exact);
    for (int a = 0; a < kBeams; ++a) {
      if (exact[a] >= 250.0f) {
        EXPECT_EQ(s[a], 250) << "a beam with no return reads 250";
        continue;
      }
      const int e = static_cast<int>(s[a]) - static_cast<int>(std::lround(exact[a]));
      EXPECT_LE(std::abs(e), 2);
      errors.insert(e);
    }
  }
  EXPECT_EQ(errors, (std::set<int>{-2, -1, 0, 1, 2}));
}

TEST(LaserScanner, ThesisApproxBiasIsFixedPerObstacleAndBeam) {
  const World w = OneCircle();
  LaserScanner a(w, {LaserErrorModel::kThesisApprox, 2, false}, 1);
  LaserScanner b(w, {LaserErrorModel::kThesisApprox, 2, false}, 99);
  RangeScan sa, sb;
  a.Scan({330, 330}, &sa);
  b.Scan({330, 330}, &sb);
  EXPECT_EQ(sa, sb);
  EXPECT_LE(std::abs(static_cast<int>(sa[0]) - 80), 2);
}

TEST(LaserScanner, CacheAgreesWithTheRayCastWithinItsResolution) {
  const World w = GenerateWorld(25, 1);
  LaserScanner cached(w, {LaserErrorModel::kNone, 2, true}, 1);
  LaserScanner direct(w, {LaserErrorModel::kNone, 2, false}, 1);
  RangeScan c, d;
  // At a cell centre the cache holds exactly the ray cast's bytes.
  const Vec2 centre{3 * 60 + 1.5, 3 * 20 + 1.5};
  cached.Scan(centre, &c);
  direct.Scan(centre, &d);
  EXPECT_EQ(c, d);
  // Anywhere in the cell the scan is the cell centre's: beams differ by what 1.6 cm of displacement
  // makes of a surface (more on oblique ones) and jump where a beam grazes an obstacle's edge.
  cached.Scan({centre.x + 1.2, centre.y - 1.1}, &c);
  direct.Scan({centre.x + 1.2, centre.y - 1.1}, &d);
  int far = 0;
  std::vector<int> diff;
  for (int a = 0; a < kBeams; ++a) {
    far += std::abs(c[a] - d[a]) > 5 ? 1 : 0;
    diff.push_back(std::abs(c[a] - d[a]));
  }
  std::sort(diff.begin(), diff.end());
  EXPECT_LE(far, kBeams / 20);
  EXPECT_LE(diff[kBeams / 2], 2) << "median difference";
  EXPECT_EQ(cached.cache_misses(), 1);
  EXPECT_EQ(cached.cache_hits(), 1);
}

// A cache shared by scanners on two threads gives every scan its own cache would (with the same error
// draws), and fills each cell once.
TEST(LaserScanner, SharedCacheScansAreTheOwnCachesOnEveryThread) {
  const World w = GenerateWorld(25, 1);
  SharedScanCache shared(w);
  auto walk = [&](bool use_shared, std::vector<RangeScan>* scans) {
    LaserOptions o{LaserErrorModel::kUniform, 2, true};
    if (use_shared) o.shared_cache = &shared;
    LaserScanner s(w, o, 7);
    RangeScan r;
    for (int k = 0; k < 600; ++k) {  // a zigzag that revisits cells
      s.Scan({100.0 + 0.7 * (k % 300), 200.0 + 0.25 * k}, &r);
      scans->push_back(r);
    }
  };
  std::vector<RangeScan> own, first, second;
  walk(false, &own);
  std::thread a(walk, true, &first), b(walk, true, &second);
  a.join();
  b.join();
  EXPECT_EQ(first, own);
  EXPECT_EQ(second, own);
  EXPECT_GT(shared.filled_cells(), 50);
  EXPECT_LT(shared.filled_cells(), 600);  // revisited cells were not cast again
  const World other = GenerateWorld(25, 2);
  LaserOptions o{LaserErrorModel::kUniform, 2, true};
  o.shared_cache = &shared;
  EXPECT_THROW(LaserScanner(other, o, 1), std::invalid_argument);
}

TEST(LaserScanner, RefusesBadOptions) {
  const World w = OneCircle();
  EXPECT_THROW(LaserScanner(w, {LaserErrorModel::kUniform, 11, false}, 1), std::invalid_argument);
  EXPECT_THROW(LaserScanner(w, {LaserErrorModel::kUniform, -1, false}, 1), std::invalid_argument);
  EXPECT_THROW(LaserScanner(w, {LaserErrorModel::kThesisApprox, 2, true}, 1), std::invalid_argument);
  EXPECT_THROW(ParseLaserErrorModel("gaussian"), std::invalid_argument);
  EXPECT_EQ(ParseLaserErrorModel("thesis_approx"), LaserErrorModel::kThesisApprox);
}

}  // namespace
}  // namespace limbic::laser
