#include "services/laser_topo/map_services.hpp"

#include <gtest/gtest.h>

#include "services/laser_sim/episode.hpp"

namespace limbic::laser {
namespace {

SensorFrame Frame(int64_t cycle, Vec2 p) {
  SensorFrame f;
  f.cycle = cycle;
  f.time_s = cycle * kControlPeriodS;
  f.ranges.fill(250);
  f.odom.x_cm = p.x;
  f.odom.y_cm = p.y;
  f.goal = {300, 600};
  return f;
}

// A valid path from node 0 through exit 2 of node 0: its middle, the gap, the pass-through point.
MapPath PathFromNode0() {
  MapPath p;
  p.valid = true;
  p.exit_node = 0;
  p.exit_sector = 2;
  p.waypoints = {{0, {300, 100}}, {-1, {380, 100}}, {-1, {430, 100}}};
  return p;
}

MapUpdate CurrentIs(int node, bool created = false) {
  MapUpdate u;
  u.current = node;
  u.updated = true;
  u.created = created;
  u.changed = created;
  return u;
}

TEST(RemoteMapLayer, AsksThePlannerTakesOverWhenTheAnswerArrivesAndReportsTheTry) {
  MemoryOptions o;
  RemoteMapLayer layer(o);
  EnvironmentInfo env;
  // No CurrentNode yet (no mapper): the reactive behaviour goes on and nothing is asked.
  layer.Observe(Frame(0, {300, 100}), env);
  EXPECT_FALSE(layer.TakeOver(Frame(0, {300, 100}), env));
  EXPECT_TRUE(layer.TakeRequests().empty());
  EXPECT_EQ(layer.stats().no_path, 1);
  // The mapper says node 0 (cycle k−1's): a failing selection point asks for a plan and does not wait.
  layer.OnCurrentNode(CurrentIs(0, true), Vec2{5, -3});
  layer.Observe(Frame(1, {300, 100}), env);
  EXPECT_FALSE(layer.TakeOver(Frame(1, {300, 100}), env));
  const auto requests = layer.TakeRequests();
  ASSERT_EQ(requests.size(), 1u);
  EXPECT_EQ(requests[0].current_node, 0);
  EXPECT_EQ(requests[0].reason, PlanReason::kBehaviourFailing);
  EXPECT_DOUBLE_EQ(requests[0].goal.y, 600.0);
  EXPECT_FALSE(layer.TakeOverBetweenSelections(Frame(2, {300, 100}), env));  // not answered yet
  // An answer to another request is dropped and counted; the right one is taken over with.
  EXPECT_FALSE(layer.OnPath(requests[0].request_id + 7, 0, PathFromNode0()));
  EXPECT_EQ(layer.stats().stale_paths, 1);
  EXPECT_TRUE(layer.OnPath(requests[0].request_id, 0, PathFromNode0()));
  EXPECT_FALSE(layer.OnPath(requests[0].request_id, 0, PathFromNode0()));  // a duplicate
  layer.Observe(Frame(3, {300, 100}), env);
  ASSERT_TRUE(layer.TakeOverBetweenSelections(Frame(3, {300, 100}), env));
  EXPECT_EQ(layer.stats().plans, 1);
  EXPECT_EQ(layer.stats().late_takeovers, 1);
  const auto attempts = layer.TakeAttempts();
  ASSERT_EQ(attempts.size(), 1u);
  EXPECT_EQ(attempts[0].node, 0);
  EXPECT_EQ(attempts[0].sector, 2);
  // Way-points are in the map frame; the robot steers in the odometry frame (map = odometry + offset).
  Vec2 wp;
  ASSERT_TRUE(layer.Guide(Frame(3, {295, 103}), env, &wp));
  EXPECT_NEAR(wp.x, 430.0 - 5.0, 1e-9);  // the pass-through point is in clear view (no obstacles)
  EXPECT_NEAR(wp.y, 100.0 + 3.0, 1e-9);
  EXPECT_EQ(layer.gains().gg, 7.0);
}

TEST(RemoteMapLayer, AStaleOrUselessAnswerIsNotFollowed) {
  MemoryOptions o;
  RemoteMapLayer layer(o);
  EnvironmentInfo env;
  layer.OnCurrentNode(CurrentIs(0, true), Vec2{});
  layer.Observe(Frame(1, {300, 100}), env);
  EXPECT_FALSE(layer.TakeOver(Frame(1, {300, 100}), env));
  uint32_t id = layer.TakeRequests().at(0).request_id;
  // No usable exit anywhere: Random/Repulsion go on.
  ASSERT_TRUE(layer.OnPath(id, 0, MapPath{}));
  EXPECT_FALSE(layer.TakeOverBetweenSelections(Frame(2, {300, 100}), env));
  EXPECT_EQ(layer.stats().no_path, 1);
  // Planned from node 0, but the robot has entered node 1 since: not followed.
  EXPECT_FALSE(layer.TakeOver(Frame(300, {300, 100}), env));
  id = layer.TakeRequests().at(0).request_id;
  layer.OnCurrentNode(CurrentIs(1, true), Vec2{});
  layer.Observe(Frame(301, {300, 100}), env);
  ASSERT_TRUE(layer.OnPath(id, 0, PathFromNode0()));
  EXPECT_FALSE(layer.TakeOverBetweenSelections(Frame(302, {300, 100}), env));
  EXPECT_EQ(layer.stats().stale_paths, 1);
  EXPECT_TRUE(layer.TakeAttempts().empty());
}

// §5.3: without a mapper and planner the controller with memory is the case-based controller, cycle by cycle.
TEST(RemoteMemoryController, WithoutTheMapLayerItIsTheCaseBasedController) {
  const World w = GenerateWorld(20, 2);
  EpisodeOptions eo;
  eo.time_limit_s = 20;
  LaserEpisode a(w, eo, 4), b(w, eo, 4);
  MemoryOptions mo;
  mo.cbr.seed = 9;
  RemoteMemoryController memory(mo);
  CaseBasedController cbr(mo.cbr);
  int64_t cycles = 0;
  while (!a.done()) {
    const double ha = memory.Step(a.frame());
    const double hb = cbr.Step(b.frame());
    ASSERT_EQ(ha, hb) << "cycle " << cycles;
    a.Advance(ha);
    b.Advance(hb);
    ++cycles;
  }
  EXPECT_GT(cycles, 100);
  EXPECT_GT(memory.layer().stats().no_path, 0);  // it was consulted, and had no map
  EXPECT_EQ(memory.layer().stats().plans, 0);
}

// The mapper process builds the map the in-process layer builds from the same scans.
TEST(TopoMapper, BuildsTheInProcessLayersMapFromPerceivedScans) {
  const World w = GenerateWorld(15, 0);
  EpisodeOptions eo;
  eo.time_limit_s = 15;
  LaserEpisode e(w, eo, 5);
  CbrOptions co;
  CaseBasedController driver(co);
  MemoryOptions mo;
  MapLayer layer(mo);
  EnvironmentTracker layer_env, perception_env;
  TopoMapper mapper(TopoMapperOptions{});
  int snapshots = 0;
  while (!e.done()) {
    const SensorFrame& f = e.frame();
    layer.Observe(f, layer_env.Update(f));
    const PerceivedScan p = PerceiveScan(f, perception_env, mo.perception);
    const MapUpdate& u = mapper.Update(p.features, p.classified, {f.odom.x_cm, f.odom.y_cm}, p.goal_in_sight, f.cycle);
    EXPECT_EQ(u.current, layer.last_update().current);
    EXPECT_EQ(u.created, layer.last_update().created);
    if (mapper.SnapshotDue()) {
      mapper.SnapshotSent();
      ++snapshots;
    }
    e.Advance(driver.Step(f));
  }
  ASSERT_GE(mapper.map().nodes().size(), 2u);
  ASSERT_EQ(mapper.map().nodes().size(), layer.map().nodes().size());
  for (size_t i = 0; i < mapper.map().nodes().size(); ++i) {
    EXPECT_EQ(mapper.map().nodes()[i].rel.x, layer.map().nodes()[i].rel.x);
    EXPECT_EQ(mapper.map().nodes()[i].links.size(), layer.map().nodes()[i].links.size());
    for (int k = 0; k < 8; ++k) EXPECT_EQ(mapper.map().nodes()[i].exits[k].prob, layer.map().nodes()[i].exits[k].prob);
  }
  // Snapshots: at every node change and otherwise every 10 scans — far fewer than scans.
  EXPECT_GT(snapshots, 0);
  EXPECT_LT(snapshots, e.Result().cycles / 5);
  EXPECT_EQ(mapper.version(), static_cast<uint32_t>(snapshots));
}

TEST(TopoMapper, CountsTriesOnExitsItHasAndMasksAfterTwo) {
  TopoMapper mapper(TopoMapperOptions{});
  EXPECT_FALSE(mapper.CountAttempt(0, 0));  // no node yet
  // One node from one feature.
  Feature f;
  f.bearing_deg = 90;
  f.length_cm = 60;
  f.nvb_deg = 0;
  f.nvr_cm = 30;
  f.pa = {-30, 30};
  f.pb = {30, 30};
  mapper.Update({f}, 0, {300, 100}, false, 0);
  ASSERT_EQ(mapper.map().nodes().size(), 1u);
  EXPECT_TRUE(mapper.SnapshotDue());  // a node was created
  mapper.SnapshotSent();
  EXPECT_FALSE(mapper.SnapshotDue());
  EXPECT_FALSE(mapper.CountAttempt(0, 3));   // an empty exit slot
  EXPECT_FALSE(mapper.CountAttempt(0, 8));   // no such sector
  EXPECT_FALSE(mapper.CountAttempt(-1, 0));  // no such node
  EXPECT_FALSE(mapper.CountAttempt(1, 0));
  EXPECT_EQ(mapper.attempts_refused(), 5);
  // (The exit slots are the map's; fill one as Update would.)
  NodeExit& e = mapper.mutable_map().mutable_nodes()[0].exits[0];
  e.filled = true;
  e.range_cm = 80;
  e.prob = 50;
  EXPECT_TRUE(mapper.CountAttempt(0, 0));
  EXPECT_TRUE(mapper.SnapshotDue());  // the planner must see the try
  EXPECT_EQ(mapper.map().nodes()[0].exits[0].mask, kExitOpen);
  EXPECT_TRUE(mapper.CountAttempt(0, 0));
  EXPECT_EQ(mapper.map().nodes()[0].exits[0].tries, 2);
  EXPECT_EQ(mapper.map().nodes()[0].exits[0].mask, kMaskTries);
  // The planner then finds no usable exit; a request from a node the map does not have gets no path.
  EXPECT_FALSE(PlanForRequest(mapper.map(), 0, {300, 600}, false, {}).valid);
  EXPECT_FALSE(PlanForRequest(mapper.map(), 7, {300, 600}, false, {}).valid);
  TopoMapperOptions bad;
  bad.snapshot_every = 0;
  EXPECT_THROW(TopoMapper{bad}, std::invalid_argument);
}

}  // namespace
}  // namespace limbic::laser
