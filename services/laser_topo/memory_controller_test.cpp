#include "services/laser_topo/memory_controller.hpp"

#include <gtest/gtest.h>

#include <cmath>

#include "services/laser_sim/episode.hpp"

namespace limbic::laser {
namespace {

// Ranges from `p` to circles (cx, cy, r) in world coordinates, whole centimetres.
RangeScan Circles(Vec2 p, const std::vector<std::array<double, 3>>& circles) {
  RangeScan s;
  for (int a = 0; a < kBeams; ++a) {
    const Vec2 u = UnitVector(a);
    double best = 250.0;
    for (const auto& c : circles) {
      const double cx = c[0] - p.x, cy = c[1] - p.y;
      const double b = u.x * cx + u.y * cy;
      const double disc = b * b - (cx * cx + cy * cy - c[2] * c[2]);
      if (disc < 0.0) continue;
      const double t = b - std::sqrt(disc);
      if (t > 0.0) best = std::min(best, t);
    }
    s[a] = static_cast<uint8_t>(std::lround(std::min(best, 250.0)));
  }
  return s;
}

SensorFrame Frame(int64_t cycle, Vec2 p, const RangeScan& scan) {
  SensorFrame f;
  f.cycle = cycle;
  f.time_s = cycle * kControlPeriodS;
  f.ranges = scan;
  f.odom.x_cm = p.x;
  f.odom.y_cm = p.y;
  f.goal = {300, 600};
  return f;
}

TEST(MapLayer, PlansThroughTheCurrentNodesExitAndSteersInTheOdometryFrame) {
  MemoryOptions o;
  MapLayer layer(o);
  EnvironmentInfo env;
  // No map yet: nothing to plan with (the Random case runs as usual).
  EXPECT_FALSE(layer.TakeOver(Frame(0, {300, 100}, Circles({300, 100}, {})), env));
  EXPECT_EQ(layer.stats().no_path, 1);
  // Two discs north of the robot: a 60 cm passage, the first node, in the middle at (300, 130).
  const RangeScan scan = Circles({300, 100}, {{240, 130, 30}, {360, 130, 30}});
  layer.Observe(Frame(1, {300, 100}, scan), env);
  ASSERT_EQ(layer.map().nodes().size(), 1u);
  ASSERT_EQ(layer.map().current(), 0);
  EXPECT_TRUE(layer.last_update().created);
  // Give the node an open exit due north, 80 cm out, and ask again.
  NodeExit& e = layer.mutable_map().mutable_nodes()[0].exits[0];
  e.filled = true;
  e.bearing_deg = 0;
  e.range_cm = 80;
  e.prob = 50;
  const Vec2 rel = layer.map().nodes()[0].rel;
  ASSERT_TRUE(layer.TakeOver(Frame(2, {300, 100}, scan), env));
  EXPECT_EQ(layer.stats().plans, 1);
  EXPECT_EQ(layer.map().nodes()[0].exits[0].tries, 1);  // exittrys
  // The node itself is current (its way-point is reached); the gap 80 cm north is in clear view (the
  // optimisation skips to the pass-through point only when that is clear too: it is, 130 cm north).
  Vec2 wp;
  layer.Observe(Frame(3, {300, 100}, scan), env);
  ASSERT_TRUE(layer.Guide(Frame(3, {300, 100}, scan), env, &wp));
  EXPECT_NEAR(wp.x, rel.x, 1e-6);
  EXPECT_NEAR(wp.y, rel.y + 130.0, 1e-6);
  EXPECT_EQ(layer.gains().gg, 7.0);
  EXPECT_EQ(layer.gains().og, 3.0);
  // A second attempt through the same exit, then it is masked (two tries, §3.10): no path is left.
  ASSERT_TRUE(layer.TakeOver(Frame(4, {300, 100}, scan), env));
  EXPECT_EQ(layer.map().nodes()[0].exits[0].tries, 2);
  EXPECT_EQ(layer.map().nodes()[0].exits[0].mask, kMaskTries);
  EXPECT_FALSE(layer.TakeOver(Frame(5, {300, 100}, scan), env));
  EXPECT_EQ(layer.stats().no_path, 2);
}

// §5.2 ExitResult in process: with reached_is_not_a_try a map-following case that gets to the pass-through point
// beyond its exit takes the try back (the exit is real), so the two-tries rule leaves it open; one that times out
// keeps it; by default every attempt counts.
TEST(MapLayer, AReachedExitIsNotAFailedTry) {
  auto setup = [](MapLayer& layer, const RangeScan& scan) {
    EnvironmentInfo env;
    layer.Observe(Frame(1, {300, 100}, scan), env);
    NodeExit& e = layer.mutable_map().mutable_nodes()[0].exits[0];
    e.filled = true;
    e.bearing_deg = 0;
    e.range_cm = 80;
    e.prob = 50;
  };
  const RangeScan scan = Circles({300, 100}, {{240, 130, 30}, {360, 130, 30}});
  const RangeScan open = Circles({300, 100}, {});  // no feature: the map is not updated
  EnvironmentInfo env;
  Vec2 wp;
  MemoryOptions refund;
  refund.map.reached_is_not_a_try = true;
  MapLayer layer{refund};
  setup(layer, scan);
  for (int attempt = 0; attempt < 3; ++attempt) {
    const int64_t c = 10 + 10 * attempt;
    ASSERT_TRUE(layer.TakeOver(Frame(c, {300, 100}, scan), env)) << attempt;
    EXPECT_EQ(layer.map().nodes()[0].exits[0].tries, 1);
    const Vec2 beyond = layer.follower().path().waypoints.back().position;  // offset 0: the odometry frame too
    layer.Observe(Frame(c, {300, 100}, scan), env);
    ASSERT_TRUE(layer.Guide(Frame(c, {300, 100}, scan), env, &wp));  // straight to the pass-through point
    layer.Observe(Frame(c + 1, beyond, open), env);
    EXPECT_FALSE(layer.Guide(Frame(c + 1, beyond, open), env, &wp));
    EXPECT_EQ(layer.map().nodes()[0].exits[0].tries, 0);
    EXPECT_EQ(layer.map().nodes()[0].exits[0].mask, kExitOpen);
  }
  EXPECT_EQ(layer.stats().reached, 3);
  EXPECT_EQ(layer.stats().exits_started, 3);
  EXPECT_EQ(layer.stats().exits_reached, 3);

  // Timed out short of it: abandoned, the try stands; the second start masks the exit (§3.10).
  MapLayer timed_out{MemoryOptions{}};
  setup(timed_out, scan);
  ASSERT_TRUE(timed_out.TakeOver(Frame(10, {300, 100}, scan), env));
  const int64_t late = 10 + 3001;
  timed_out.Observe(Frame(late, {300, 100}, open), env);
  EXPECT_FALSE(timed_out.Guide(Frame(late, {300, 100}, open), env, &wp));
  EXPECT_EQ(timed_out.stats().timeouts, 1);
  EXPECT_EQ(timed_out.stats().exits_abandoned, 1);
  EXPECT_EQ(timed_out.map().nodes()[0].exits[0].tries, 1);
  ASSERT_TRUE(timed_out.TakeOver(Frame(late + 1, {300, 100}, scan), env));
  EXPECT_EQ(timed_out.map().nodes()[0].exits[0].mask, kMaskTries);

  // The literal count (the default): two reached attempts mask it all the same.
  MapLayer counted{MemoryOptions{}};
  setup(counted, scan);
  ASSERT_TRUE(counted.TakeOver(Frame(10, {300, 100}, scan), env));
  const Vec2 beyond = counted.follower().path().waypoints.back().position;
  counted.Observe(Frame(10, {300, 100}, scan), env);
  ASSERT_TRUE(counted.Guide(Frame(10, {300, 100}, scan), env, &wp));
  counted.Observe(Frame(11, beyond, open), env);
  EXPECT_FALSE(counted.Guide(Frame(11, beyond, open), env, &wp));
  EXPECT_EQ(counted.stats().exits_reached, 1);
  ASSERT_TRUE(counted.TakeOver(Frame(20, {300, 100}, scan), env));
  EXPECT_EQ(counted.map().nodes()[0].exits[0].tries, 2);
  EXPECT_EQ(counted.map().nodes()[0].exits[0].mask, kMaskTries);
}

TEST(MemoryController, BuildsAMapOnTheWayAndRepeatsExactly) {
  const World w = GenerateWorld(15, 0);
  auto run = [&](int* nodes, double* links) {
    MemoryController c{MemoryOptions{}};
    EpisodeOptions eo;
    eo.time_limit_s = 30;  // a few seconds under the sanitizers
    LaserEpisode e(w, eo, 5);
    while (!e.done()) e.Advance(c.Step(e.frame()));
    *nodes = static_cast<int>(c.layer().map().nodes().size());
    *links = c.layer().map().LinksPerNode();
    EXPECT_GT(c.layer().stats().map_updates, 0);
    return e.Result();
  };
  int n1 = 0, n2 = 0;
  double l1 = 0, l2 = 0;
  const EpisodeResult a = run(&n1, &l1);
  const EpisodeResult b = run(&n2, &l2);
  EXPECT_GT(a.path_cm, 100.0);
  EXPECT_GE(n1, 2);
  EXPECT_GT(l1, 0.0);
  EXPECT_EQ(a.cycles, b.cycles);
  EXPECT_EQ(a.path_cm, b.path_cm);
  EXPECT_EQ(n1, n2);
  EXPECT_EQ(l1, l2);
  MemoryOptions bad;
  bad.map_every_cycles = 0;
  EXPECT_THROW(MemoryController{bad}, std::invalid_argument);
  bad = {};
  bad.follow_gains.s_cm = 300;
  EXPECT_THROW(MemoryController{bad}, std::invalid_argument);
}

}  // namespace
}  // namespace limbic::laser
