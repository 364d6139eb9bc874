#include "services/laser_topo/convert.hpp"

#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <iostream>
#include <limits>
#include <random>

#include "messages/validate.hpp"
#include "services/laser_sim/episode.hpp"
#include "services/laser_topo/memory_controller.hpp"

namespace limbic::laser {
namespace {

using FBB = flatbuffers::FlatBufferBuilder;

HeaderOffset Header(FBB& fbb) { return msg::CreateHeaderDirect(fbb, 0, 5, 1, "test", false, 7); }

// The message's verification and value rules (messages/validate.cpp): "" when valid.
template <typename T>
std::string Check(FBB& fbb, flatbuffers::Offset<T> root) {
  fbb.Finish(root, messages::Traits<T>::kIdentifier);
  const messages::MessageType* type = messages::FindByIdentifier(messages::Traits<T>::kIdentifier);
  if (type == nullptr) return "unregistered";
  return messages::VerifyAndValidate(*type, fbb.GetBufferPointer(), fbb.GetSize());
}

// A map from 15 s of a case-based episode, with its perceived scans.
struct Built {
  TopoMapper mapper{TopoMapperOptions{}};
  PerceivedScan last;
};

void Build(Built* b) {
  const World w = GenerateWorld(15, 0);
  EpisodeOptions eo;
  eo.time_limit_s = 15;
  LaserEpisode e(w, eo, 5);
  CaseBasedController driver(CbrOptions{});
  EnvironmentTracker env;
  while (!e.done()) {
    const SensorFrame& f = e.frame();
    b->last = PerceiveScan(f, env, TopoPerceptionOptions{});
    b->mapper.Update(b->last.features, b->last.classified, {f.odom.x_cm, f.odom.y_cm}, b->last.goal_in_sight, f.cycle);
    e.Advance(driver.Step(f));
  }
}

TEST(TopoConvert, ASnapshotRestoresTheMapAndItsPlans) {
  Built b;
  Build(&b);
  const TopoMap& map = b.mapper.map();
  ASSERT_GE(map.nodes().size(), 2u);
  FBB fbb;
  ASSERT_EQ(Check(fbb, ToMsg(fbb, Header(fbb), map, 3)), "");
  const auto* snap = flatbuffers::GetRoot<msg::TopoMapSnapshot>(fbb.GetBufferPointer());
  EXPECT_EQ(snap->version(), 3u);
  EXPECT_EQ(snap->current(), map.current());
  TopoMap copy;
  copy.mutable_nodes() = NodesFromMsg(*snap);
  ASSERT_EQ(copy.nodes().size(), map.nodes().size());
  for (size_t i = 0; i < map.nodes().size(); ++i) {
    const TopoNode &a = map.nodes()[i], &c = copy.nodes()[i];
    EXPECT_EQ(a.rel.x, c.rel.x);
    EXPECT_EQ(a.ss_length, c.ss_length);
    EXPECT_EQ(a.links.size(), c.links.size());
    for (int k = 0; k < 8; ++k) {
      EXPECT_EQ(a.exits[k].filled, c.exits[k].filled);
      EXPECT_EQ(a.exits[k].prob, c.exits[k].prob);
      EXPECT_EQ(a.exits[k].mask, c.exits[k].mask);
    }
  }
  // Every node plans the same path on the copy.
  for (int n = 0; n < static_cast<int>(map.nodes().size()); ++n) {
    const MapPath p = SolveMap(map, n, {300, 620}, false);
    const MapPath q = SolveMap(copy, n, {300, 620}, false);
    EXPECT_EQ(p.valid, q.valid);
    EXPECT_EQ(p.exit_node, q.exit_node);
    EXPECT_EQ(p.exit_sector, q.exit_sector);
    EXPECT_EQ(p.waypoints.size(), q.waypoints.size());
  }
}

TEST(TopoConvert, FeaturesCurrentNodePathAndRequestsCrossUnchanged) {
  Built b;
  Build(&b);
  FBB fbb;
  ASSERT_EQ(Check(fbb, ToMsg(fbb, Header(fbb), b.last)), "");
  const auto* fl = flatbuffers::GetRoot<msg::TopoFeatureList>(fbb.GetBufferPointer());
  const std::vector<Feature> features = FeaturesFromMsg(*fl);
  ASSERT_EQ(features.size(), b.last.features.size());
  ASSERT_FALSE(features.empty());
  EXPECT_EQ(features[0].pa.x, b.last.features[0].pa.x);
  EXPECT_EQ(features[0].nvr_cm, b.last.features[0].nvr_cm);
  EXPECT_EQ(fl->classified_index(), b.last.classified);
  FBB o;
  EXPECT_EQ(Check(o, ToMsg(o, Header(o), b.last.obstacles)), "");

  FBB cn;
  ASSERT_EQ(Check(cn, ToMsg(cn, Header(cn), b.mapper)), "");
  const auto* node = flatbuffers::GetRoot<msg::TopoCurrentNode>(cn.GetBufferPointer());
  EXPECT_EQ(UpdateFromMsg(*node).current, b.mapper.map().current());

  MapPath path;
  path.valid = true;
  path.exit_node = 1;
  path.exit_sector = 6;
  path.weight = 412.5;
  path.waypoints = {{0, {100.25, 200}}, {1, {150, 260}}, {-1, {120, 300}}, {-1, {80, 320}}};
  FBB pf;
  ASSERT_EQ(Check(pf, ToMsg(pf, Header(pf), 9, 0, path, 4)), "");
  const MapPath back = PathFromMsg(*flatbuffers::GetRoot<msg::TopoPath>(pf.GetBufferPointer()));
  EXPECT_TRUE(back.valid);
  EXPECT_EQ(back.exit_sector, 6);
  ASSERT_EQ(back.waypoints.size(), 4u);
  EXPECT_EQ(back.waypoints[0].position.x, 100.25);
  EXPECT_EQ(back.waypoints[2].node, -1);
  FBB none;
  EXPECT_EQ(Check(none, ToMsg(none, Header(none), 10, 0, MapPath{}, 4)), "");  // "no usable exit" is valid

  PlanRequestOut r;
  r.request_id = 3;
  r.current_node = 2;
  r.goal = {300, 620};
  r.reason = PlanReason::kOffPath;
  FBB rf;
  EXPECT_EQ(Check(rf, ToMsg(rf, Header(rf), r)), "");
  FBB af;
  EXPECT_EQ(Check(af, ToMsg(af, Header(af), ExitAttemptOut{2, 7})), "");
}

// ExitAttempt's three states and EstimatedPose cross unchanged; out-of-range ones are refused.
TEST(TopoConvert, ExitResultsAndTheEstimatedPoseRoundTrip) {
  for (ExitOutcome outcome : {ExitOutcome::kStarted, ExitOutcome::kReached, ExitOutcome::kAbandoned}) {
    FBB fbb;
    ASSERT_EQ(Check(fbb, ToMsg(fbb, Header(fbb), ExitAttemptOut{4, 6, outcome})), "");
    const ExitAttemptOut back = ExitAttemptFromMsg(*flatbuffers::GetRoot<msg::TopoExitAttempt>(fbb.GetBufferPointer()));
    EXPECT_EQ(back.node, 4);
    EXPECT_EQ(back.sector, 6);
    EXPECT_EQ(back.outcome, outcome);
  }
  FBB bad;
  EXPECT_NE(Check(bad, msg::CreateTopoExitAttempt(bad, Header(bad), 0, 1, static_cast<msg::ExitAttemptState>(3))), "");

  TopoMapper mapper{TopoMapperOptions{}};
  FBB pf;
  ASSERT_EQ(Check(pf, ToMsg(pf, Header(pf), mapper, Vec2{120.5, 80.25}, 45.0)), "");
  const auto* pose = flatbuffers::GetRoot<msg::EstimatedPose>(pf.GetBufferPointer());
  EXPECT_EQ(pose->x_cm(), 120.5);  // no correction yet: the odometry
  EXPECT_EQ(pose->y_cm(), 80.25);
  EXPECT_EQ(pose->odom_x_cm(), 120.5);
  EXPECT_EQ(pose->heading_deg(), 45.0);
  EXPECT_EQ(pose->corrections(), 0u);
  EXPECT_EQ(pose->node_id(), -1);
  FBB nan_pose;
  EXPECT_NE(Check(nan_pose, msg::CreateEstimatedPose(nan_pose, Header(nan_pose), std::nan(""), 0, 0, 0, 0)), "");
}

// §5.2 item 11: the planner's copy, built from the mapper's TopoMapUpdates across the wire format alone, equals
// the mapper's map bit for bit — through random worlds and random sequences of creates, updates and revisits
// (the robot driving), and of exit attempts and results (random, as the reactive layer would send them).
TEST(TopoConvert, AMapBuiltFromUpdatesEqualsTheMappers) {
  std::mt19937 random(21);
  std::array<int64_t, 3> ops{};
  int64_t compared = 0, scans = 0;
  // Bytes on the wire: the updates and the 1-s snapshots now, and the snapshots of the policy before the updates
  // (one whenever a node was created or became current, else every 10 scans).
  size_t update_bytes = 0, snapshot_bytes = 0, old_snapshot_bytes = 0;
  int64_t updates_sent = 0, snapshots_sent = 0, old_snapshots = 0;
  for (int run = 0; run < 6; ++run) {
    const int density = 15 + 5 * static_cast<int>(random() % 4);
    const World w = GenerateWorld(density, static_cast<int>(random() % 20));
    EpisodeOptions eo;
    eo.time_limit_s = 40;
    LaserEpisode e(w, eo, static_cast<uint64_t>(run));
    MemoryOptions mo;
    mo.cbr.seed = static_cast<uint64_t>(random());
    MemoryController driver(mo);  // it plans through its own map: the robot comes back to known passages
    EnvironmentTracker env;
    TopoMapperOptions options;
    options.map_every_cycles = 1 + run % 2;
    TopoMapper mapper(options);
    MapReplica replica;
    int since_old = 10;
    while (!e.done()) {
      const SensorFrame& f = e.frame();
      const PerceivedScan p = PerceiveScan(f, env, TopoPerceptionOptions{});
      if (random() % 50 == 0 && !mapper.map().nodes().empty()) {
        const int node = static_cast<int>(random() % mapper.map().nodes().size());
        mapper.RecordAttempt(node, static_cast<int>(random() % 8), static_cast<ExitOutcome>(random() % 3));
      }
      const MapUpdate mu =
          mapper.Update(p.features, p.classified, {f.odom.x_cm, f.odom.y_cm}, p.goal_in_sight, f.cycle);
      ++scans;
      auto snapshot_size = [&] {
        FBB fbb;
        fbb.Finish(ToMsg(fbb, Header(fbb), mapper.map(), 1, mapper.update_seq()), "LMAP");
        return static_cast<size_t>(fbb.GetSize());
      };
      if (mu.created || mu.changed || ++since_old >= 10) {
        old_snapshot_bytes += snapshot_size();
        ++old_snapshots;
        since_old = 0;
      }
      for (const NodeUpdate& u : mapper.TakeUpdates()) {
        FBB fbb;
        ASSERT_EQ(Check(fbb, ToMsg(fbb, Header(fbb), u)), "");
        update_bytes += fbb.GetSize();
        ++updates_sent;
        const NodeUpdate back = NodeUpdateFromMsg(*flatbuffers::GetRoot<msg::TopoMapUpdate>(fbb.GetBufferPointer()));
        ++ops[static_cast<size_t>(back.op)];
        ASSERT_EQ(replica.Apply(back), MapReplica::Result::kApplied) << "seq " << back.seq;
      }
      if (mapper.SnapshotDue()) {
        mapper.SnapshotSent();
        snapshot_bytes += snapshot_size();
        ++snapshots_sent;
      }
      if (f.cycle % 50 == 0) {
        ASSERT_TRUE(replica.whole());
        ASSERT_EQ(replica.map().nodes(), mapper.map().nodes()) << "run " << run << ", cycle " << f.cycle;
        ++compared;
      }
      e.Advance(driver.Step(f));
    }
    EXPECT_EQ(replica.map().nodes(), mapper.map().nodes());
    EXPECT_EQ(replica.seq(), mapper.update_seq());
  }
  std::cout << "map updates: " << ops[0] << " creates, " << ops[1] << " updates, " << ops[2]
            << " revisits; maps compared " << compared << " times\n"
            << "over " << scans << " scans: " << updates_sent << " updates, " << update_bytes << " B + "
            << snapshots_sent << " snapshots, " << snapshot_bytes << " B; before: " << old_snapshots << " snapshots, "
            << old_snapshot_bytes << " B\n";
  EXPECT_GT(ops[0], 10);
  EXPECT_GT(ops[1], ops[0]);
  EXPECT_GT(ops[2], 0);
}

// Out-of-range values are refused by the value rules, so the bus drops and counts them (issue 15).
TEST(TopoConvert, OutOfRangeMapMessagesAreRefused) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  auto path = [](bool valid, int start, int sector, std::vector<msg::TopoWaypointEntry> wps, uint32_t id = 1) {
    FBB fbb;
    return Check(fbb, msg::CreateTopoPath(fbb, Header(fbb), id, start, valid, fbb.CreateVectorOfStructs(wps),
                                          valid ? 0 : -1, static_cast<int8_t>(sector), 0.0, 1));
  };
  const msg::TopoWaypointEntry ok(0, 10, 10);
  EXPECT_EQ(path(true, 0, 3, {ok, ok, ok}), "");
  EXPECT_NE(path(true, 0, 3, {ok, msg::TopoWaypointEntry(-1, nan, 0), ok}), "");  // NaN way-point
  EXPECT_NE(path(true, 0, 9, {ok, ok, ok}), "");                                  // no sector 9
  EXPECT_NE(path(true, -1, 3, {ok, ok, ok}), "");                                 // a valid path from nowhere
  EXPECT_NE(path(true, 0, 3, {}), "");                                            // without way-points
  EXPECT_NE(path(false, 0, -1, {}, 0), "");                                       // request id 0
  EXPECT_NE(path(true, 0, 3, std::vector<msg::TopoWaypointEntry>(201, ok)), "");  // over 200 way-points
  EXPECT_NE(path(true, 0, 3, {ok, msg::TopoWaypointEntry(-2, 0, 0), ok}), "");    // node id -2

  auto request = [](uint32_t id, int node, double gx, int8_t reason) {
    FBB fbb;
    return Check(fbb, msg::CreateTopoPlanRequest(fbb, Header(fbb), id, node, gx, 600, false,
                                                 static_cast<msg::PlanReason>(reason)));
  };
  EXPECT_EQ(request(1, 0, 300, 0), "");
  EXPECT_NE(request(0, 0, 300, 0), "");
  EXPECT_NE(request(1, -1, 300, 0), "");
  EXPECT_NE(request(1, 70000, 300, 0), "");
  EXPECT_NE(request(1, 0, std::numeric_limits<double>::infinity(), 0), "");
  EXPECT_NE(request(1, 0, 300, 9), "");

  FBB a;
  EXPECT_NE(Check(a, msg::CreateTopoExitAttempt(a, Header(a), 0, 8, msg::ExitAttemptState::Started)), "");
  FBB c;
  EXPECT_NE(Check(c, msg::CreateTopoCurrentNode(c, Header(c), 4, true, false, false, false, false, 0, 0, 3, 1)), "");
  FBB s;  // a snapshot whose node has 7 exits
  std::vector<msg::TopoExitEntry> exits(7);
  auto node = msg::CreateTopoNodeEntry(s, 0, 0, 50, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
                                       s.CreateVectorOfStructs(exits));
  std::vector<flatbuffers::Offset<msg::TopoNodeEntry>> nodes{node};
  EXPECT_NE(Check(s, msg::CreateTopoMapSnapshot(s, Header(s), 1, 0, s.CreateVector(nodes))), "");
  FBB f;  // a classified index past the features
  EXPECT_NE(Check(f, msg::CreateTopoFeatureList(f, Header(f), 0, 2, false)), "");
}

}  // namespace
}  // namespace limbic::laser
