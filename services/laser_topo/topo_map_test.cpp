#include "services/laser_topo/topo_map.hpp"

#include <gtest/gtest.h>

#include <cmath>

namespace limbic::laser {
namespace {

// A feature by hand: its smallest vector (undirected bearing, length) centred on `mid` (robot-relative).
Feature F(double bearing, double length, Vec2 mid, bool perspective = true, bool adjacent = false,
          double range_sum = 100.0) {
  Feature f;
  f.pa = mid - 0.5 * length * UnitVector(bearing);
  f.pb = mid + 0.5 * length * UnitVector(bearing);
  f.bearing_deg = Fold180(bearing);
  f.length_cm = length;
  f.nvb_deg = BearingOf(mid);
  f.nvr_cm = Norm(mid);
  f.perspective = perspective;
  f.adjacent = adjacent;
  f.range_sum_cm = range_sum;
  return f;
}

MapUpdate Feed(TopoMap& map, const Feature& f, Vec2 pose, bool goal = false) { return map.Update({f}, 0, pose, goal); }

TEST(TopoMap, FirstFeatureCreatesANodeAndSimilarOnesUpdateIt) {
  TopoMap map;
  const MapUpdate u = Feed(map, F(90, 60, {0, 100}), {100, 100});
  EXPECT_TRUE(u.updated);
  EXPECT_TRUE(u.created);
  EXPECT_EQ(u.current, 0);
  ASSERT_EQ(map.nodes().size(), 1u);
  const TopoNode& n = map.nodes()[0];
  EXPECT_NEAR(n.rel.x, 100.0, 1e-9);  // rel = p + nvr·u(nvb)
  EXPECT_NEAR(n.rel.y, 200.0, 1e-9);
  EXPECT_EQ(n.n, 1);
  // Lengths 60 and 64: mean 62, standard deviation 2 (A13); the bearing stays 90.
  const MapUpdate v = Feed(map, F(90, 64, {0, 100}), {100, 110});
  EXPECT_FALSE(v.created);
  EXPECT_FALSE(v.changed);
  ASSERT_EQ(map.nodes().size(), 1u);
  EXPECT_NEAR(map.nodes()[0].length_cm, 62.0, 1e-9);
  EXPECT_NEAR(map.nodes()[0].v_length, 2.0, 1e-9);
  EXPECT_NEAR(map.nodes()[0].v_bearing, 0.0, 1e-9);
  EXPECT_NEAR(map.nodes()[0].north, 110.0, 1e-9);  // extents of the robot's positions
  EXPECT_NEAR(map.nodes()[0].south, 100.0, 1e-9);
  // The length gate is now 2·2 + 20 = 24 cm: 85 cm is inside (23 from the mean), 87 is not.
  EXPECT_FALSE(Feed(map, F(90, 85, {0, 100}), {100, 110}).created);
  EXPECT_EQ(map.nodes().size(), 1u);
  // No feature (open space): no update at all.
  EXPECT_FALSE(map.Update({}, -1, {100, 100}, false).updated);
  EXPECT_EQ(map.nodes()[0].n, 3);
}

TEST(TopoMap, BearingMeansWrapAt180) {
  TopoMap map;
  Feed(map, F(178, 60, {0, 100}), {0, 0});
  Feed(map, F(2, 60, {0, 100}), {0, 0});  // 4° away across the wrap
  ASSERT_EQ(map.nodes().size(), 1u);
  EXPECT_LT(D180(map.nodes()[0].bearing_deg, 0.0), 1e-9);
  EXPECT_NEAR(map.nodes()[0].v_bearing, 2.0, 1e-9);
}

TEST(TopoMap, ANewPassageMakesALinkedNodeAndGoingBackIsARevisit) {
  TopoMap map;
  Feed(map, F(90, 60, {0, 100}), {100, 100});  // node 0 at (100, 200)
  // The bearing moved 30° (> 2·0 + 10): a new node at (300, 300), linked by L = (200, 100).
  const MapUpdate u = Feed(map, F(120, 60, {0, 100}), {300, 200});
  EXPECT_TRUE(u.created);
  EXPECT_EQ(u.current, 1);
  ASSERT_EQ(map.nodes().size(), 2u);
  const TopoNode& a = map.nodes()[0];
  const TopoNode& b = map.nodes()[1];
  ASSERT_EQ(a.links.size(), 1u);
  ASSERT_EQ(b.links.size(), 1u);
  EXPECT_EQ(a.links[0].to, 1);
  EXPECT_NEAR(a.links[0].range_cm, std::hypot(200.0, 100.0), 1e-9);
  EXPECT_NEAR(a.links[0].bearing_deg, BearingOf({200, 100}), 1e-9);
  EXPECT_NEAR(b.links[0].bearing_deg, Wrap360(BearingOf({200, 100}) + 180), 1e-9);
  // A length change alone (OR, A12) also makes a node; back at node 0's place and shape: a revisit.
  const MapUpdate back = Feed(map, F(90, 60, {0, 100}), {100, 105});
  EXPECT_TRUE(back.revisit);
  EXPECT_FALSE(back.created);
  EXPECT_EQ(back.current, 0);
  EXPECT_EQ(map.nodes().size(), 2u);
  EXPECT_EQ(map.nodes()[0].visits, 2);
  EXPECT_EQ(map.nodes()[0].links.size(), 1u);  // already linked
  // The same shape 100 cm away is another place: a new node, not a revisit.
  const MapUpdate far = Feed(map, F(120, 60, {0, 100}), {600, 200});
  EXPECT_TRUE(far.created);
  const MapUpdate other = Feed(map, F(90, 60, {0, 100}), {400, 100});
  EXPECT_TRUE(other.created);
  EXPECT_EQ(map.nodes().size(), 4u);
}

TEST(TopoMap, ACircularPathClosesOnTheOldNode) {
  TopoMap map;
  Feed(map, F(90, 60, {0, 100}), {0, 0});        // 0 at (0, 100)
  Feed(map, F(30, 100, {0, 100}), {200, 0});     // 1 at (200, 100)
  Feed(map, F(150, 140, {0, 100}), {200, 200});  // 2 at (200, 300)
  ASSERT_EQ(map.nodes().size(), 3u);
  // Back where node 0 is, with its characterisation: node 2 links to 0 (loop closed), no node 3.
  const MapUpdate u = Feed(map, F(92, 62, {0, 100}), {10, 5});
  EXPECT_TRUE(u.revisit);
  EXPECT_EQ(u.current, 0);
  EXPECT_EQ(map.nodes().size(), 3u);
  ASSERT_NE(map.nodes()[2].LinkTo(0), nullptr);
  EXPECT_NEAR(map.nodes()[2].LinkTo(0)->range_cm, std::hypot(200.0, 200.0), 1e-9);  // (0, 100) − (200, 300)
  EXPECT_NEAR(map.nodes()[2].LinkTo(0)->bearing_deg, 225.0, 1e-9);
  EXPECT_NEAR(map.LinksPerNode(), 2.0, 1e-12);  // a triangle
}

TEST(TopoMap, RevisitWithAStationaryFeatureCalibratesThePoseOnce) {
  TopoMap map;
  for (int k = 0; k < 5; ++k) Feed(map, F(90, 60, {0, 100}), {0, 0});  // node 0 at (0, 100)
  Feed(map, F(150, 120, {0, 100}), {200, 0});                          // elsewhere
  // Odometry drifted 10 cm east: the node appears at (10, 100) from the estimated pose (10, 0).
  // Still within 30 cm, so it is a revisit; after 10 stationary cycles it calibrates by (−10, 0).
  int corrections = 0;
  Vec2 correction;
  for (int k = 0; k < 20; ++k) {
    const MapUpdate u = Feed(map, F(90, 60, {0, 100}), {10, 0});
    EXPECT_EQ(u.current, 0);
    EXPECT_EQ(u.good_perspective, k >= 10) << k;
    if (u.corrected) {
      ++corrections;
      correction = u.correction;
      EXPECT_EQ(k, 10);
    }
  }
  EXPECT_EQ(corrections, 1);
  EXPECT_NEAR(correction.x, -10.0, 1e-9);
  EXPECT_NEAR(correction.y, 0.0, 1e-9);
  EXPECT_NEAR(map.nodes()[0].rel.x, 0.0, 1e-9);  // held fixed on later visits
  // A feature seen from a bad perspective never calibrates; on the first visit nothing calibrates.
  TopoMap fresh;
  for (int k = 0; k < 30; ++k) EXPECT_FALSE(Feed(fresh, F(90, 60, {0, 100}), {0, 0}).corrected);
  TopoMapOptions off;
  off.self_localise = false;
  TopoMap no(off);
  for (int k = 0; k < 5; ++k) Feed(no, F(90, 60, {0, 100}), {0, 0});
  Feed(no, F(150, 120, {0, 100}), {200, 0});
  for (int k = 0; k < 20; ++k) EXPECT_FALSE(Feed(no, F(90, 60, {0, 100}), {10, 0}).corrected);
}

TEST(TopoMap, ExitsGetSectorsAndProbabilityGrowsTowardThem) {
  TopoMap map;
  // The node's own feature at (0, 100) from (0, 0); an adjacent gap at 45° 100 cm from the node middle.
  const Feature own = F(90, 60, {0, 100}, true, true, 50);
  const Vec2 gap_rel = Vec2{0, 100} + 100.0 * UnitVector(45);
  const Feature gap = F(135, 50, gap_rel, true, true, 120);
  const Feature far_pair = F(0, 50, Vec2{0, 100} + 100.0 * UnitVector(200), true, false, 200);  // not adjacent
  map.Update({own, gap, far_pair}, 0, {0, 0}, false);
  const TopoNode& n = map.nodes()[0];
  EXPECT_EQ(ExitSector(45.0), 1);
  EXPECT_EQ(ExitSector(21.9), 0);
  EXPECT_EQ(ExitSector(22.0), 1);  // (22 + 23) / 45 = 1: the thesis' integer rounding
  EXPECT_EQ(ExitSector(338.0), 0);
  for (int k = 0; k < 8; ++k) EXPECT_EQ(n.exits[k].filled, k == 1) << k;
  const NodeExit& e = n.exits[1];
  EXPECT_NEAR(e.bearing_deg, 45.0, 1e-9);
  EXPECT_NEAR(e.range_cm, 100.0, 1e-9);
  EXPECT_NEAR(e.feature_length_cm, 50.0, 1e-9);
  // proj = (p − rel)·u(45°) = (0, −100)·(0.707, 0.707) = −70.7: probability 10 − 70.7 → stays 0.
  EXPECT_NEAR(e.prob, 0.0, 1e-9);
  EXPECT_FALSE(n.ExitUsable(1, 10.0));
  // The robot moves 50 cm north-east of the node middle and still sees the gap: prob = 10 + proj.
  const Vec2 pose = Vec2{0, 100} + 50.0 * UnitVector(45);
  const Vec2 seen = Vec2{0, 100} + 100.0 * UnitVector(45) - pose;
  map.Update({F(90, 60, Vec2{0, 100} - pose, true, true, 50), F(135, 50, seen, true, true, 120)}, 0, pose, false);
  const double proj = Dot(pose - Vec2{0, 100}, UnitVector(45));
  EXPECT_NEAR(map.nodes()[0].exits[1].prob, 10.0 + proj, 1e-6);
  EXPECT_TRUE(map.nodes()[0].ExitUsable(1, 10.0));
  // Not seen although the robot went 20 cm further that way: −2 per scan.
  const Vec2 further = pose + 25.0 * UnitVector(45);
  map.Update({F(90, 60, Vec2{0, 100} - further, true, true, 50)}, 0, further, false);
  EXPECT_NEAR(map.nodes()[0].exits[1].prob, 10.0 + proj - 2.0, 1e-6);
}

TEST(TopoMap, MaskingClosesExploredExits) {
  TopoMap map;
  auto& nodes = map.mutable_nodes();
  // Node 0 at (0, 0) with exits north (sector 0) and east (sector 2), node 1 north of it (linked),
  // node 2 reachable through 1 only, 100 cm east of node 0 with the east exit's characterisation.
  for (int i = 0; i < 3; ++i) {
    TopoNode n;
    n.id = i;
    nodes.push_back(n);
  }
  nodes[0].rel = {0, 0};
  nodes[1].rel = {0, 150};
  nodes[2].rel = {100, 5};
  nodes[2].bearing_deg = 170;  // the east exit's gap: bearing 0 (d180 = 10 < 2·V + 10 = 12 with V = 1)
  nodes[2].v_bearing = 1;
  nodes[2].length_cm = 55;
  nodes[0].links.push_back({1, 150, 0});
  nodes[1].links.push_back({0, 150, 180});
  nodes[1].links.push_back({2, 180, 146});
  nodes[2].links.push_back({1, 180, 326});
  auto exit = [](double bearing, double range, double fb, double fl) {
    NodeExit e;
    e.filled = true;
    e.bearing_deg = bearing;
    e.range_cm = range;
    e.feature_bearing_deg = fb;
    e.feature_length_cm = fl;
    e.prob = 50;
    return e;
  };
  nodes[0].exits[0] = exit(5, 80, 90, 60);    // toward node 1: MaskExit1
  nodes[0].exits[2] = exit(90, 100, 0, 60);   // where node 2 is: MaskExit2
  nodes[0].exits[4] = exit(180, 80, 90, 60);  // open
  nodes[0].exits[6] = exit(270, 80, 90, 60);  // tried twice: code 4
  nodes[0].exits[6].tries = 2;
  map.MaskExits(0);
  EXPECT_EQ(nodes[0].exits[0].mask, kMaskLink);
  EXPECT_EQ(nodes[0].exits[2].mask, kMaskKnownNode);
  EXPECT_EQ(nodes[0].exits[4].mask, kExitOpen);
  EXPECT_EQ(nodes[0].exits[6].mask, kMaskTries);
  EXPECT_TRUE(nodes[0].ExitUsable(4, 10));
  EXPECT_FALSE(nodes[0].ExitUsable(2, 10));
  // A node directly linked is not a MaskExit2 candidate ("not connected to the exit's node").
  nodes[0].exits[2].mask = kExitOpen;
  nodes[0].links.push_back({2, 100, 87});
  nodes[2].links.push_back({0, 100, 267});
  nodes[2].west = nodes[2].east = 200;  // its explored area lies beyond the exit: MaskExit3 does not apply
  nodes[2].south = nodes[2].north = 0;
  map.MaskExits(0);
  EXPECT_EQ(nodes[0].exits[2].mask, kMaskLink);  // ... but now a link leaves through sector 2 (MaskExit1)
}

TEST(TopoMap, MaskExit3ClosesAnExitThroughALinkedNodesArea) {
  TopoMap map;
  auto& nodes = map.mutable_nodes();
  for (int i = 0; i < 2; ++i) {
    TopoNode n;
    n.id = i;
    nodes.push_back(n);
  }
  // Node 1's explored box spans x 50…150, y 50…150 north-east of node 0's middle (the origin); the link
  // leaves through sector 1 (45°). An exit at 60° and 200 cm runs through that box's far side: masked
  // (3); one at 60° but only 60 cm long stops short of it (60 < the nearest corner at 70.7 cm).
  nodes[1].rel = {100, 100};
  nodes[1].west = 50;
  nodes[1].east = 150;
  nodes[1].south = 50;
  nodes[1].north = 150;
  nodes[0].links.push_back({1, 141.4, 45});
  nodes[1].links.push_back({0, 141.4, 225});
  NodeExit e;
  e.filled = true;
  e.bearing_deg = 70;  // sector 2 (not the link's sector 1)
  e.range_cm = 200;
  e.prob = 50;
  nodes[0].exits[2] = e;
  map.MaskExits(0);
  EXPECT_EQ(nodes[0].exits[1].mask, kMaskLink);
  EXPECT_EQ(nodes[0].exits[2].mask, kMaskAdjacentArea);
  nodes[0].exits[2].mask = kExitOpen;
  nodes[0].exits[2].range_cm = 60;
  map.MaskExits(0);
  EXPECT_EQ(nodes[0].exits[2].mask, kExitOpen);
  nodes[0].exits[2].bearing_deg = 100;  // outside the arc 18.4°…71.6°
  nodes[0].exits[2].range_cm = 200;
  map.MaskExits(0);
  EXPECT_EQ(nodes[0].exits[2].mask, kExitOpen);
}

TEST(TopoMap, RefusesBadOptionsAndPoses) {
  TopoMapOptions o;
  o.max_links = 0;
  EXPECT_THROW(TopoMap{o}, std::invalid_argument);
  o = {};
  o.revisit_cm = -1;
  EXPECT_THROW(TopoMap{o}, std::invalid_argument);
  TopoMap map;
  EXPECT_FALSE(map.Update({F(90, 60, {0, 100})}, 0, {std::nan(""), 0}, false).updated);
  EXPECT_FALSE(map.Update({F(90, 60, {0, 100})}, 3, {0, 0}, false).updated);  // index out of range
  EXPECT_TRUE(map.nodes().empty());
}

// §3.10 + §5.2 item 15: Started counts a try and masks after two; with reached_is_not_a_try Reached takes its try
// back (the exit was real, not a spurious one) and lifts the code-4 mask it had caused; Abandoned leaves the try
// counted. By default (§3.10's text) every attempt counts.
TEST(TopoMap, ExitResultsDriveTheTwoTriesRule) {
  auto one_exit = [](const TopoMapOptions& o) {
    TopoMap map(o);
    auto& nodes = map.mutable_nodes();
    nodes.resize(1);
    NodeExit& e = nodes[0].exits[4];
    e.filled = true;
    e.bearing_deg = 180;
    e.range_cm = 80;
    e.prob = 50;
    return map;
  };
  TopoMapOptions refund;
  refund.reached_is_not_a_try = true;
  TopoMap map = one_exit(refund);
  const NodeExit& e = map.nodes()[0].exits[4];
  // Refused, and nothing changes: no such node, sector, or an empty slot.
  EXPECT_FALSE(map.RecordExitAttempt(1, 4, ExitOutcome::kStarted));
  EXPECT_FALSE(map.RecordExitAttempt(-1, 4, ExitOutcome::kReached));
  EXPECT_FALSE(map.RecordExitAttempt(0, 8, ExitOutcome::kStarted));
  EXPECT_FALSE(map.RecordExitAttempt(0, -1, ExitOutcome::kStarted));
  EXPECT_FALSE(map.RecordExitAttempt(0, 3, ExitOutcome::kStarted));
  EXPECT_EQ(e.tries, 0);
  // Started, abandoned: the try stands.
  EXPECT_TRUE(map.RecordExitAttempt(0, 4, ExitOutcome::kStarted));
  EXPECT_TRUE(map.RecordExitAttempt(0, 4, ExitOutcome::kAbandoned));
  EXPECT_EQ(e.tries, 1);
  EXPECT_EQ(e.mask, kExitOpen);
  // The second start masks it (code 4) at once; reaching it gives the try back and opens it again.
  EXPECT_TRUE(map.RecordExitAttempt(0, 4, ExitOutcome::kStarted));
  EXPECT_EQ(e.tries, 2);
  EXPECT_EQ(e.mask, kMaskTries);
  EXPECT_TRUE(map.RecordExitAttempt(0, 4, ExitOutcome::kReached));
  EXPECT_EQ(e.tries, 1);
  EXPECT_EQ(e.mask, kExitOpen);
  EXPECT_TRUE(map.nodes()[0].ExitUsable(4, 10));
  // A stray Reached (no try left to take back) changes nothing.
  EXPECT_TRUE(map.RecordExitAttempt(0, 4, ExitOutcome::kReached));
  EXPECT_TRUE(map.RecordExitAttempt(0, 4, ExitOutcome::kReached));
  EXPECT_EQ(e.tries, 0);
  // A mask of another procedure stays: Reached lifts only the two-tries rule's code 4.
  map.mutable_nodes()[0].exits[4].mask = kMaskAdjacentArea;
  map.mutable_nodes()[0].exits[4].tries = 2;
  EXPECT_TRUE(map.RecordExitAttempt(0, 4, ExitOutcome::kReached));
  EXPECT_EQ(e.mask, kMaskAdjacentArea);

  // The literal count (the default): every attempt counts, reached or not.
  TopoMap lit = one_exit(TopoMapOptions{});
  for (int i = 0; i < 2; ++i) {
    EXPECT_TRUE(lit.RecordExitAttempt(0, 4, ExitOutcome::kStarted));
    EXPECT_TRUE(lit.RecordExitAttempt(0, 4, ExitOutcome::kReached));
  }
  EXPECT_EQ(lit.nodes()[0].exits[4].tries, 2);
  EXPECT_EQ(lit.nodes()[0].exits[4].mask, kMaskTries);
}

}  // namespace
}  // namespace limbic::laser
