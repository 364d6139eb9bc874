#include "services/laser_topo/planner.hpp"

#include <gtest/gtest.h>

#include <cmath>

namespace limbic::laser {
namespace {

// A, B, C in a row 100 cm apart (A at the origin), linked A–B–C; A and C each have an open exit north
// (sector 0) 60 cm out, B one east; the goal is at (200, 500).
TopoMap Row() {
  TopoMap map;
  auto& nodes = map.mutable_nodes();
  for (int i = 0; i < 3; ++i) {
    TopoNode n;
    n.id = i;
    n.rel = {100.0 * i, 0.0};
    nodes.push_back(n);
  }
  auto link = [&](int a, int b) {
    const Vec2 l = nodes[b].rel - nodes[a].rel;
    nodes[a].links.push_back({b, Norm(l), BearingOf(l)});
    nodes[b].links.push_back({a, Norm(l), Wrap360(BearingOf(l) + 180)});
  };
  link(0, 1);
  link(1, 2);
  auto exit = [](double bearing) {
    NodeExit e;
    e.filled = true;
    e.bearing_deg = bearing;
    e.range_cm = 60;
    e.prob = 50;
    return e;
  };
  nodes[0].exits[0] = exit(0);
  nodes[2].exits[0] = exit(0);
  nodes[1].exits[2] = exit(90);
  return map;
}

TEST(SolveMap, Equation61PicksTheLowestWeight) {
  const TopoMap map = Row();
  const Vec2 goal{200, 500};
  // A's north exit: 0 + |goal − A| (538.5) + 100·int(21.8° / 22.5) (0) = 538.5.
  // C's north exit: (1 + 100) + (1 + 100) + 500 + 0 = 702.   B's east exit: 101 + 509.9 + 100·int(78.7/22.5) = 910.9.
  MapPath p = SolveMap(map, 0, goal, false);
  ASSERT_TRUE(p.valid);
  EXPECT_EQ(p.exit_node, 0);
  EXPECT_EQ(p.exit_sector, 0);
  EXPECT_NEAR(p.weight, std::hypot(200.0, 500.0), 1e-9);
  ASSERT_EQ(p.waypoints.size(), 3u);  // A, the gap, 50 cm beyond
  EXPECT_EQ(p.waypoints[0].node, 0);
  EXPECT_NEAR(p.waypoints[1].position.y, 60.0, 1e-9);
  EXPECT_NEAR(p.waypoints[2].position.y, 110.0, 1e-9);
  // The goal was seen from C: −300 makes C's exit the cheapest (402); the path runs A → B → C → exit.
  TopoMap seen = Row();
  seen.mutable_nodes()[2].goal_seen = true;
  p = SolveMap(seen, 0, goal, false);
  ASSERT_TRUE(p.valid);
  EXPECT_EQ(p.exit_node, 2);
  EXPECT_NEAR(p.weight, 202.0 + 500.0 - 300.0, 1e-9);
  ASSERT_EQ(p.waypoints.size(), 5u);
  EXPECT_EQ(p.waypoints[0].node, 0);
  EXPECT_EQ(p.waypoints[1].node, 1);
  EXPECT_EQ(p.waypoints[2].node, 2);
  EXPECT_EQ(p.waypoints[3].node, -1);
  EXPECT_NEAR(p.waypoints[3].position.x, 200.0, 1e-9);
  // From C itself (link weight 0 there): C wins without the bonus too (500 < 101 + 509.9 + 300 …).
  EXPECT_EQ(SolveMap(map, 2, goal, false).exit_node, 2);
  // Goal in sight now counts for the current node only.
  EXPECT_NEAR(SolveMap(map, 0, goal, true).weight, std::hypot(200.0, 500.0) - 300.0, 1e-9);
}

TEST(SolveMap, MaskedDoubtfulAndUnreachableExitsAreNotUsed) {
  TopoMap map = Row();
  auto& nodes = map.mutable_nodes();
  nodes[0].exits[0].mask = kMaskTries;
  nodes[2].exits[0].prob = 9;  // below 10: not usable
  MapPath p = SolveMap(map, 0, {200, 500}, false);
  ASSERT_TRUE(p.valid);
  EXPECT_EQ(p.exit_node, 1);  // only B's east exit is left
  EXPECT_EQ(p.exit_sector, 2);
  nodes[1].exits[2].filled = false;
  EXPECT_FALSE(SolveMap(map, 0, {200, 500}, false).valid);  // → the Random case
  // An exit on a node that cannot be reached through links is not used.
  TopoNode island;
  island.id = 3;
  island.rel = {0, 400};
  island.exits[0] = nodes[0].exits[0];
  island.exits[0].mask = kExitOpen;
  nodes.push_back(island);
  EXPECT_FALSE(SolveMap(map, 0, {200, 500}, false).valid);
  EXPECT_TRUE(SolveMap(map, 3, {200, 500}, false).valid);
  EXPECT_FALSE(SolveMap(map, -1, {200, 500}, false).valid);
  EXPECT_FALSE(SolveMap(map, 7, {200, 500}, false).valid);
}

MapPath Straight() {
  MapPath p;
  p.valid = true;
  p.waypoints = {{0, {0, 0}}, {1, {0, 100}}, {2, {0, 200}}, {-1, {0, 300}}};
  return p;
}

RangeScan OpenAround() {
  RangeScan s;
  s.fill(250);
  return s;
}

TEST(MapFollower, SkipsToTheFurthestWaypointInClearView) {
  MapFollower f;
  f.Start(Straight(), 0.0);
  MapUpdate u;
  u.current = 0;
  // At node 0: way-point 0 reached; (0, 100) and (0, 200) in view and clear, (0, 300) beyond 250 cm.
  EXPECT_EQ(f.Step(OpenAround(), {0, 0}, 0.0, u), MapFollower::Status::kFollowing);
  EXPECT_EQ(f.target_index(), 2);
  EXPECT_EQ(f.skipped(), 1);
  // An obstacle 150 cm north: only way-point 1 is in clear view.
  MapFollower g;
  g.Start(Straight(), 0.0);
  RangeScan blocked = OpenAround();
  for (int a = 355; a < 360; ++a) blocked[a] = 150;
  for (int a = 0; a <= 5; ++a) blocked[a] = 150;
  EXPECT_EQ(g.Step(blocked, {0, 0}, 0.0, u), MapFollower::Status::kFollowing);
  EXPECT_EQ(g.target_index(), 1);
  // Near the end: the final way-point within 20 cm ends the case.
  u.current = 2;
  EXPECT_EQ(g.Step(OpenAround(), {0, 285}, 1.0, u), MapFollower::Status::kReached);
  EXPECT_FALSE(g.active());
}

TEST(MapFollower, EndsOnNewTerritoryTimeoutAndLeavesThePath) {
  MapUpdate u;
  u.current = 0;
  MapFollower f;
  f.Start(Straight(), 10.0);
  EXPECT_EQ(f.Step(OpenAround(), {0, 0}, 39.99, u), MapFollower::Status::kFollowing);
  EXPECT_EQ(f.Step(OpenAround(), {0, 0}, 40.0, u), MapFollower::Status::kTimeout);  // 30 s
  f.Start(Straight(), 0.0);
  MapUpdate created = u;
  created.created = true;
  EXPECT_EQ(f.Step(OpenAround(), {0, 0}, 1.0, created), MapFollower::Status::kNewNode);
  f.Start(Straight(), 0.0);
  MapUpdate off = u;
  off.changed = true;
  off.current = 9;  // a known node not on the path
  EXPECT_EQ(f.Step(OpenAround(), {0, 0}, 1.0, off), MapFollower::Status::kOffPath);
  EXPECT_EQ(f.Step(OpenAround(), {0, 0}, 1.0, u), MapFollower::Status::kIdle);
  f.Start(MapPath{}, 0.0);
  EXPECT_FALSE(f.active());
}

}  // namespace
}  // namespace limbic::laser
