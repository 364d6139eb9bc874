#include "services/laser_nav/environment_info.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <random>

namespace limbic::laser {
namespace {

SensorFrame Frame(Vec2 position, double heading, Vec2 goal, double t = 0.0, double v = 0.0) {
  SensorFrame f;
  f.ranges.fill(250);
  f.odom.x_cm = position.x;
  f.odom.y_cm = position.y;
  f.odom.heading_deg = heading;
  f.odom.v_cms = v;
  f.goal = goal;
  f.time_s = t;
  f.cycle = std::llround(t / 0.01);
  return f;
}

TEST(EnvironmentInfo, ClutterAndDensityOfEq44And45) {
  EnvironmentTracker env;
  SensorFrame f = Frame({330, 330}, 0, {330, 600});
  for (int a = 10; a <= 20; ++a) f.ranges[a] = 100;
  const EnvironmentInfo& e = env.Update(f);
  EXPECT_EQ(e.clutter, 1);  // one rising jump (beam 21: 250 − 100 > 30); the falling edge does not count
  EXPECT_EQ(e.density, 11);
  EXPECT_NEAR(e.density_pct, 100.0 * 11 / 360, 1e-12);
  for (int a = 100; a <= 110; ++a) f.ranges[a] = 200;
  f.ranges[0] = 230;  // 250 → 230 → 250: a jump of 20 ≤ d
  EXPECT_EQ(env.Update(f).clutter, 2);
  f.ranges.fill(100);
  f.ranges[359] = 140;  // r_0 ≡ r_360: beam 0's predecessor is beam 359 (100 − 140 < 0); 359 rises by 40
  EXPECT_EQ(env.Update(f).clutter, 1);
}

// The 16-beams-at-a-time counts equal the plain loop on random scans, on scans at the bytes' extremes, and for
// thresholds at and beyond every edge of the 16-bit clamping (±255, ±256, ±1000, 0 and 1).
TEST(EnvironmentInfo, ScanCountsEqualThePlainLoop) {
  std::mt19937 rng(421);
  const int jumps[] = {-1000, -257, -256, -255, -254, -1, 0, 1, 29, 30, 31, 254, 255, 256, 1000};
  const int belows[] = {-1000, -1, 0, 1, 2, 100, 249, 250, 251, 254, 255, 256, 257, 1000};
  auto check = [&](const RangeScan& r, const char* what) {
    for (int jump : jumps) {
      for (int below : belows) {
        ASSERT_EQ(ScanCounts(r, jump, below), ScanCountsScalar(r, jump, below))
            << what << " jump " << jump << " below " << below;
      }
    }
  };
  RangeScan r{};
  for (int trial = 0; trial < 300; ++trial) {
    std::uniform_int_distribution<int> byte(0, 255), mode(0, 2);
    const int m = mode(rng);
    for (auto& v : r) v = static_cast<uint8_t>(m == 0 ? byte(rng) : (m == 1 ? (byte(rng) < 128 ? 0 : 255) : 250));
    if (m == 2) {  // a realistic scan: open space with a few obstacles
      for (int k = 0; k < 6; ++k) {
        const int at = byte(rng) % kBeams, len = 1 + byte(rng) % 30, range = 15 + byte(rng) % 200;
        for (int i = 0; i < len; ++i) r[(at + i) % kBeams] = static_cast<uint8_t>(range);
      }
    }
    check(r, "random");
  }
  r.fill(0);
  check(r, "all 0");
  r.fill(255);
  check(r, "all 255");
  for (int a = 0; a < kBeams; ++a) r[a] = static_cast<uint8_t>(a % 2 ? 255 : 0);
  check(r, "alternating");
  r.fill(0);
  r[0] = 255;  // beam 0's predecessor is 359, done one by one
  r[359] = 255;
  r[352] = 255;  // the last beam of the 16-wide part, and the first one by one after it
  r[353] = 0;
  check(r, "edges");
  // And the counts Update reports are these.
  EnvironmentTracker env;
  SensorFrame f = Frame({330, 330}, 0, {330, 600});
  f.ranges = r;
  const EnvironmentInfo& e = env.Update(f);
  EXPECT_EQ(e.clutter, ScanCountsScalar(r, 30, 250).clutter);
  EXPECT_EQ(e.density, ScanCountsScalar(r, 30, 250).density);
}

TEST(EnvironmentInfo, ProximityLooksThirtyFiveDegreesEitherSide) {
  EnvironmentTracker env;
  SensorFrame f = Frame({330, 330}, 0, {330, 600});
  EXPECT_EQ(env.Update(f).proximity, -1);
  f.ranges[35] = 100;
  EXPECT_EQ(env.Update(f).proximity, 0);
  EXPECT_EQ(env.info().ofd_cm, 100);
  f.ranges[35] = 29;
  EXPECT_EQ(env.Update(f).proximity, 1);
  f.ranges[35] = 250;
  f.ranges[36] = 10;  // outside the field of view
  EXPECT_EQ(env.Update(f).proximity, -1);
  f.odom.heading_deg = 40;
  EXPECT_EQ(env.Update(f).proximity, 1);
}

TEST(EnvironmentInfo, WanderOfEq47SinceTheCaseStarted) {
  EnvironmentTracker env;
  EXPECT_EQ(env.Update(Frame({0, 0}, 0, {0, 600})).wander, 0.0);  // p = 0
  env.Update(Frame({100, 0}, 0, {0, 600}));
  EXPECT_NEAR(env.Update(Frame({100, 100}, 0, {0, 600})).wander, 1.0 - std::sqrt(2.0) / 2.0, 1e-12);
  env.ResetWander();
  EXPECT_EQ(env.Update(Frame({100, 100}, 0, {0, 600})).wander, 0.0);
  EXPECT_EQ(env.Update(Frame({100, 150}, 0, {0, 600})).wander, 0.0);  // straight: l = p
}

TEST(EnvironmentInfo, GoalFlags) {
  EnvironmentTracker env;
  // Goal 200 cm north, facing it, nothing in between: clear, sensed.
  SensorFrame f = Frame({330, 330}, 5, {330, 530});
  EnvironmentInfo e = env.Update(f);
  EXPECT_TRUE(e.clear_to_goal);
  EXPECT_TRUE(e.senses_goal);
  EXPECT_FALSE(e.goal_nearby);
  EXPECT_NEAR(e.goal_range_cm, 200.0, 1e-12);
  f.odom.heading_deg = 11;  // more than 10° off: not facing
  EXPECT_FALSE(env.Update(f).clear_to_goal);
  f.odom.heading_deg = 0;
  f.ranges[3] = 150;  // an obstacle inside ±3° of the goal bearing
  e = env.Update(f);
  EXPECT_FALSE(e.clear_to_goal);
  EXPECT_FALSE(e.senses_goal);
  EXPECT_TRUE(e.goal_nearby);
  f.ranges[3] = 250;
  f.ranges[4] = 150;  // just outside
  EXPECT_TRUE(env.Update(f).senses_goal);
  // Goal 300 cm away: out of sensing range; clear needs every corridor beam at 250.
  f = Frame({330, 300}, 0, {330, 600});
  e = env.Update(f);
  EXPECT_TRUE(e.clear_to_goal);
  EXPECT_FALSE(e.senses_goal);
  EXPECT_FALSE(e.goal_nearby);
  f.ranges[0] = 249;
  EXPECT_FALSE(env.Update(f).clear_to_goal);
}

TEST(EnvironmentInfo, NomovementAfterOneSecondBelowFiveCentimetresPerSecond) {
  EnvironmentTracker env;
  for (int k = 0; k < 100; ++k) EXPECT_FALSE(env.Update(Frame({0, 0}, 0, {0, 600}, k * 0.01, 4.9)).nomovement);
  EXPECT_TRUE(env.Update(Frame({0, 0}, 0, {0, 600}, 1.0, 4.9)).nomovement);
  EXPECT_FALSE(env.Update(Frame({0, 0}, 0, {0, 600}, 1.01, 5.0)).nomovement);
  EXPECT_FALSE(env.Update(Frame({0, 0}, 0, {0, 600}, 1.02, -1.0)).nomovement);
  EXPECT_TRUE(env.Update(Frame({0, 0}, 0, {0, 600}, 2.02, 0.0)).nomovement);
}

}  // namespace
}  // namespace limbic::laser
