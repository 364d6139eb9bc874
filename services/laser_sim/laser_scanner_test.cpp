#include "services/laser_sim/laser_scanner.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <set>
#include <thread>
#include <vector>

#include "services/laser_sim/testing/reference_cast.hpp"
#include "services/laser_sim/testing/reference_scan.hpp"

// laser_scanner_scalar_test compiles this file and the scanner with LIMBIC_LASER_SCALAR: the same tests, the same
// oracles, on the scalar fallback of the cast (suites renamed so both binaries' tests have their own names).
#if defined(LIMBIC_LASER_SCALAR)
#define LASER_SCANNER_SUITE LaserScannerScalar
#define BEAM_WINDOW_SUITE BeamWindowScalar
#else
#define LASER_SCANNER_SUITE LaserScanner
#define BEAM_WINDOW_SUITE BeamWindow
#endif

namespace limbic::laser {
namespace {

World OneCircle() {
  World w;
  w.start = {330, 330};
  w.goal = {330, 620};
  w.obstacles.push_back({330, 430, 20});  // D = 100 north of the robot at (330, 330)
  return w;
}

// The build runs the path it was asked for: SSE2 on x86-64, unless the scalar fallback was asked for.
TEST(LASER_SCANNER_SUITE, RunsTheCastPathItWasBuiltFor) {
#if defined(LIMBIC_LASER_SCALAR) || !defined(__SSE2__)
  EXPECT_FALSE(LaserCastUsesSse2());
#else
  EXPECT_TRUE(LaserCastUsesSse2());
#endif
}

TEST(LASER_SCANNER_SUITE, ExactRangesFollowEq33) {
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

TEST(LASER_SCANNER_SUITE, InsideAnObstacleOrOutsideTheRoomReadsZero) {
  const World w = OneCircle();
  ExactScan r;
  CastExact(w, {330, 430}, &r);
  for (float v : r) EXPECT_EQ(v, 0.0f);
  CastExact(w, {-5, 100}, &r);
  for (float v : r) EXPECT_EQ(v, 0.0f);
  CastExact(w, {std::numeric_limits<double>::quiet_NaN(), 100}, &r);
  for (float v : r) EXPECT_EQ(v, 0.0f);
}

TEST(LASER_SCANNER_SUITE, QuantisationWithoutErrorRoundsToWholeCentimetres) {
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

TEST(LASER_SCANNER_SUITE, UniformErrorIsWithinTwoCentimetresAndUsesAllFiveValues) {
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

TEST(LASER_SCANNER_SUITE, ThesisApproxBiasIsFixedPerObstacleAndBeam) {
  const World w = OneCircle();
  LaserScanner a(w, {LaserErrorModel::kThesisApprox, 2, false}, 1);
  LaserScanner b(w, {LaserErrorModel::kThesisApprox, 2, false}, 99);
  RangeScan sa, sb;
  a.Scan({330, 330}, &sa);
  b.Scan({330, 330}, &sb);
  EXPECT_EQ(sa, sb);
  EXPECT_LE(std::abs(static_cast<int>(sa[0]) - 80), 2);
}

TEST(LASER_SCANNER_SUITE, CacheAgreesWithTheRayCastWithinItsResolution) {
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
TEST(LASER_SCANNER_SUITE, SharedCacheScansAreTheOwnCachesOnEveryThread) {
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

TEST(LASER_SCANNER_SUITE, RefusesBadOptions) {
  const World w = OneCircle();
  EXPECT_THROW(LaserScanner(w, {LaserErrorModel::kUniform, 11, false}, 1), std::invalid_argument);
  EXPECT_THROW(LaserScanner(w, {LaserErrorModel::kUniform, -1, false}, 1), std::invalid_argument);
  EXPECT_THROW(LaserScanner(w, {LaserErrorModel::kThesisApprox, 2, true}, 1), std::invalid_argument);
  EXPECT_THROW(ParseLaserErrorModel("gaussian"), std::invalid_argument);
  EXPECT_EQ(ParseLaserErrorModel("thesis_approx"), LaserErrorModel::kThesisApprox);
}

// The cast must give exactly what it gave before it was made faster (every experiment's results depend
// on every bit): the previous code is kept as the oracle. Besides, every beam is checked against a brute
// force over every circle (no visible-angle window), to 1e-4 cm (the float ranges' resolution at 250 cm
// is 1.5e-5 cm).
void ExpectSameCast(const World& w, Vec2 p) {
  ExactScan ranges, want;
  std::array<int16_t, kBeams> hit, want_hit;
  CastExact(w, p, &ranges, &hit);
  reference::CastExact(w, p, &want, &want_hit);
  for (int a = 0; a < kBeams; ++a) {
    ASSERT_EQ(ranges[a], want[a]) << "beam " << a << " from (" << p.x << ", " << p.y << ")";
    ASSERT_EQ(hit[a], want_hit[a]) << "beam " << a;
  }
}

// Every beam against every circle and the walls, by the ray equation alone.
ExactScan BruteForceCast(const World& w, Vec2 p) {
  ExactScan out;
  const auto& u = BeamUnitVectors();
  for (int a = 0; a < kBeams; ++a) {
    double best = kMaxRangeCm;
    if (u[a].x > 1e-12) best = std::min(best, (w.width - p.x) / u[a].x);
    if (u[a].x < -1e-12) best = std::min(best, -p.x / u[a].x);
    if (u[a].y > 1e-12) best = std::min(best, (w.height - p.y) / u[a].y);
    if (u[a].y < -1e-12) best = std::min(best, -p.y / u[a].y);
    for (const Circle& c : w.obstacles) {
      const double dx = c.cx - p.x, dy = c.cy - p.y;
      const double b = u[a].x * dx + u[a].y * dy;
      const double disc = b * b - (dx * dx + dy * dy - c.r * c.r);
      if (disc >= 0.0 && b > 0.0 && b - std::sqrt(disc) > 0.0) best = std::min(best, b - std::sqrt(disc));
    }
    out[a] = static_cast<float>(best);
  }
  return out;
}

TEST(LASER_SCANNER_SUITE, CastIsThePreviousCastBitForBitOnRandomWorlds) {
  std::mt19937_64 rng(21);
  for (double density : {15.0, 25.0, 35.0}) {
    for (int index = 0; index < 4; ++index) {
      const World w = GenerateWorld(density, index);
      std::uniform_real_distribution<double> coordinate(-5.0, w.width + 5.0);  // outside the room too
      for (int k = 0; k < 300; ++k) {
        const Vec2 p{coordinate(rng), coordinate(rng)};
        ExpectSameCast(w, p);
        if (HasFatalFailure()) return;
        ExactScan ranges;
        CastExact(w, p, &ranges);
        if (ranges[0] == 0.0f) continue;  // inside an obstacle or outside the room: all zero (tested above)
        const ExactScan brute = BruteForceCast(w, p);
        for (int a = 0; a < kBeams; ++a) ASSERT_NEAR(ranges[a], brute[a], 1e-4) << "beam " << a;
      }
    }
  }
}

TEST(LASER_SCANNER_SUITE, CastIsThePreviousCastAtTheEdges) {
  const Vec2 p{330, 330};
  World w;
  w.start = {330, 40};
  w.goal = {330, 620};
  ExpectSameCast(w, p);  // an empty room: walls and "no return" only
  ExactScan ranges;
  std::array<int16_t, kBeams> hit;
  CastExact(w, {330, 330}, &ranges, &hit);
  EXPECT_EQ(std::count(hit.begin(), hit.end(), kNothing), kBeams);  // every wall 330 cm away
  // A beam grazing a circle: beam 10 is tangent to a circle due north (asin(r / D) = 10°), and beams 9
  // and 11 just inside and outside; and the same circle nudged by ±1e-9 cm either way.
  for (double nudge : {0.0, 1e-9, -1e-9, 1e-6, -1e-6}) {
    World g = w;
    g.obstacles = {{330, 430, 100 * std::sin(10 * kDegToRad) + nudge}};
    ExpectSameCast(g, p);
    g.obstacles = {{330 + 100 * std::sin(25 * kDegToRad), 330 + 100 * std::cos(25 * kDegToRad),
                    100 * std::sin(7 * kDegToRad) + nudge}};  // centred on beam 25, tangent at 18° and 32°
    ExpectSameCast(g, p);
  }
  // The robot centre on a circle's surface (reads 0: inside), just outside it, and a circle touching
  // the robot's disc.
  for (double gap : {0.0, 1e-12, 1e-6, 0.5, 15.0}) {
    World g = w;
    g.obstacles = {{330 + 20 + gap, 330, 20}};
    ExpectSameCast(g, p);
  }
  // Circles straddling the walls (partly outside the room) and one in a corner.
  World straddle = w;
  straddle.obstacles = {{0, 330, 40}, {660, 300, 35}, {330, 665, 30}, {300, -10, 25}, {0, 0, 50}};
  for (Vec2 q : {Vec2{45, 330}, Vec2{620, 300}, Vec2{330, 630}, Vec2{300, 20}, Vec2{40, 40}, Vec2{1, 1}}) {
    ExpectSameCast(straddle, q);
  }
  // Maximum range: a circle whose nearest point is exactly 250 cm away, just inside and just beyond.
  for (double d : {250.0 - 1e-9, 250.0, 250.0 + 1e-9, 249.5, 250.5}) {
    World g = w;
    g.width = g.height = 2000;
    g.obstacles = {{1000 + d + 30, 1000, 30}};
    ExpectSameCast(g, {1000, 1000});
  }
  // The cast walks a circle's beams out from the one nearest its centre: circles whose cone starts or
  // ends at 0°/360°, tiny circles between two beams (no beam, or one just inside), a beam exactly through
  // a tangent point on either side of north, and a robot centre a hair off the surface (the previous
  // window's path).
  for (double centre : {0.0, 0.3, 0.5, 359.5, 359.7, 1.0, 89.5, 180.0, 270.49, 270.51}) {
    for (double r : {0.01, 0.2, 0.4999, 0.5, 0.51, 3.0, 40.0}) {
      World g = w;
      g.obstacles = {{330 + 120 * std::sin(centre * kDegToRad), 330 + 120 * std::cos(centre * kDegToRad), r}};
      ExpectSameCast(g, p);
    }
  }
  for (double tangent_deg : {1.0, 2.0, 5.0, 30.0}) {
    for (double nudge : {0.0, 1e-12, -1e-12, 1e-9, -1e-9}) {
      World g = w;  // centred on 0° (north) so the cone ends at −tangent and +tangent
      g.obstacles = {{330, 330 + 80, 80 * std::sin(tangent_deg * kDegToRad) + nudge}};
      ExpectSameCast(g, p);
    }
  }
  // Circles at bearings and sizes that put the cone's edges near whole degrees and near the rough cone's
  // inner and outer margins.
  for (int k = 0; k < 4000; ++k) {
    World g = w;
    const double bearing = k * 0.0917, dist = 20.0 + (k % 97) * 2.7;
    const double half = 0.05 + (k % 89) * 0.9 + (k % 3) * 0.2999;
    const double r = std::min(dist * std::sin(std::min(half, 89.0) * kDegToRad), dist - 0.01);
    g.obstacles = {{330 + dist * std::sin(bearing * kDegToRad), 330 + dist * std::cos(bearing * kDegToRad), r}};
    ExpectSameCast(g, p);
    if (HasFatalFailure()) return;
  }
  for (double gap : {1e-9, 1e-7, 1e-5, 1e-3, 0.01, 0.1}) {
    for (double bearing : {0.0, 37.0, 90.0, 200.5}) {
      World g = w;
      const double r = 30.0;
      g.obstacles = {
          {330 + (r + gap) * std::sin(bearing * kDegToRad), 330 + (r + gap) * std::cos(bearing * kDegToRad), r}};
      ExpectSameCast(g, p);
    }
  }
}

// The cast's rough angles are within 0.09° (the cast's 0.3° margin covers a centre and a half-angle error):
// densely over atan's domain, every bearing and half-angles from a hair to nearly 90°.
TEST(LASER_SCANNER_SUITE, RoughAnglesAreWithinTheCastsMargin) {
  double worst = 0.0;
  for (int k = 0; k <= 1000000; ++k) {
    const double t = k * 1e-6;
    worst = std::max(worst, std::fabs(RoughAtanDeg(t) - std::atan(t) * kRadToDeg));
  }
  EXPECT_LT(worst, 0.09);
  worst = 0.0;
  for (int k = 0; k < 3600000; ++k) {
    const double bearing = k * 1e-4;
    for (double len : {1e-3, 1.0, 300.0}) {
      const Vec2 d{len * std::sin(bearing * kDegToRad), len * std::cos(bearing * kDegToRad)};
      const double diff = std::fabs(RoughBearingDeg(d) - BearingOf(d));
      worst = std::max(worst, std::min(diff, 360.0 - diff));
    }
  }
  EXPECT_LT(worst, 0.09);
  worst = 0.0;
  for (double dist : {10.0, 100.0, 299.0}) {
    for (int k = 1; k < 100000; ++k) {
      const double r = dist * k * 1e-5;
      const double exact = std::asin(r / dist) * kRadToDeg;
      worst = std::max(worst, std::fabs(RoughHalfAngleDeg(r, dist * dist - r * r) - exact));
    }
  }
  EXPECT_LT(worst, 0.09);
}

// The scan's bytes (the uniform model's draws four beams at a time, fused with the quantisation) are the
// previous code's, scan after scan of one stream, for every error model and several error sizes; and the
// exact ranges the same floats.
TEST(LASER_SCANNER_SUITE, ScanIsThePreviousScanBitForBit) {
  std::mt19937_64 rng(7);
  for (LaserErrorModel model : {LaserErrorModel::kUniform, LaserErrorModel::kNone, LaserErrorModel::kThesisApprox}) {
    for (int error_cm : {0, 1, 2, 5, 10}) {
      for (double density : {15.0, 35.0}) {
        const World w = GenerateWorld(density, error_cm);
        const LaserOptions options{model, error_cm, false};
        LaserScanner laser(w, options, 99);
        reference::Scanner want(w, options, 99);
        std::uniform_real_distribution<double> coordinate(-2.0, w.width + 2.0);
        for (int k = 0; k < 200; ++k) {
          Vec2 q{coordinate(rng), coordinate(rng)};
          if (k % 5 == 0 && !w.obstacles.empty()) {  // a hair outside a circle: ranges below the error
            const Circle& c = w.obstacles[k % w.obstacles.size()];
            q = {c.cx + (c.r + 0.3 * (k % 3)) * std::sin(k), c.cy + (c.r + 0.3 * (k % 3)) * std::cos(k)};
          }
          RangeScan got, expected;
          ExactScan got_exact, expected_exact;
          laser.Scan(q, &got, &got_exact);
          want.Scan(q, &expected, &expected_exact);
          ASSERT_EQ(got, expected) << LaserErrorModelName(model) << " ±" << error_cm << " from (" << q.x << ", " << q.y
                                   << ")";
          ASSERT_EQ(0, std::memcmp(got_exact.data(), expected_exact.data(), sizeof got_exact));
          RangeScan without_exact;  // the scan is the same with or without the exact ranges
          LaserScanner again(w, options, 99);
          reference::Scanner want_again(w, options, 99);
          again.Scan(q, &without_exact);
          want_again.Scan(q, &expected, &expected_exact);
          ASSERT_EQ(without_exact, expected);
        }
      }
    }
  }
}

}  // namespace
}  // namespace limbic::laser

namespace limbic::laser {
namespace {

// The beam window every loop over a bearing's neighbourhood uses: each beam of first … last (mod 360) once.
TEST(BEAM_WINDOW_SUITE, EveryBeamOfTheWindowOnceAcrossBothEnds) {
  for (const auto& [first, last] : std::vector<std::pair<int, int>>{
           {10, 20}, {-5, 5}, {355, 365}, {-90, 90}, {270, 450}, {0, 359}, {-180, 179}, {7, 6}}) {
    std::vector<int> expected, seen;
    for (int a = first; a <= last; ++a) expected.push_back(((a % kBeams) + kBeams) % kBeams);
    ForEachBeam(first, last, [&](int a) { seen.push_back(a); });
    std::sort(expected.begin(), expected.end());
    std::sort(seen.begin(), seen.end());
    EXPECT_EQ(seen, expected) << first << ".." << last;
    for (int a : seen) EXPECT_TRUE(a >= 0 && a < kBeams);
  }
}

// The same beams as stretches, a window wholly below 0 or above 359 too, and none for an empty window.
TEST(BEAM_WINDOW_SUITE, StretchesCoverTheWindowOnce) {
  for (const auto& [first, last] : std::vector<std::pair<int, int>>{{10, 20},
                                                                    {-5, 5},
                                                                    {355, 365},
                                                                    {-90, 90},
                                                                    {270, 450},
                                                                    {0, 359},
                                                                    {-180, 179},
                                                                    {-5, -2},
                                                                    {-1, -1},
                                                                    {360, 363},
                                                                    {400, 719},
                                                                    {7, 6},
                                                                    {-3, -4}}) {
    std::vector<int> expected, seen;
    for (int a = first; a <= last; ++a) expected.push_back(((a % kBeams) + kBeams) % kBeams);
    ForEachBeamStretch(first, last, [&](int lo, int hi) {
      EXPECT_TRUE(lo >= 0 && lo <= hi && hi < kBeams) << lo << ".." << hi;
      for (int a = lo; a <= hi; ++a) seen.push_back(a);
    });
    std::sort(expected.begin(), expected.end());
    std::sort(seen.begin(), seen.end());
    EXPECT_EQ(seen, expected) << first << ".." << last;
  }
}

}  // namespace
}  // namespace limbic::laser
