// FlatBuffers -> values, and values -> prometheus-cpp families: build real messages, check the numbers.
#include "services/metrics/convert.hpp"

#include <gtest/gtest.h>
#include <prometheus/text_serializer.h>

#include "services/metrics/prometheus_bridge.hpp"

namespace limbic::metrics {
namespace {

template <typename T>
const T& Root(flatbuffers::FlatBufferBuilder& fbb, flatbuffers::Offset<T> root) {
  fbb.Finish(root, messages::Traits<T>::kIdentifier);
  EXPECT_TRUE(messages::Verify<T>(fbb.GetBufferPointer(), fbb.GetSize()));
  return *flatbuffers::GetRoot<T>(fbb.GetBufferPointer());
}

TEST(MetricsConvertTest, AffectStateArrays) {
  flatbuffers::FlatBufferBuilder fbb;
  const std::vector<double> stimuli = {1, 2, 3, 4, 5, 6, 7, 8, 9}, emotions = {0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7},
                            moods = {0.5, -0.25}, drives = {0.6, 0.5, 0.4, 0.3, 0.2, 0.1};
  const auto& m = Root(fbb, msg::CreateAffectStateDirect(fbb, 0, "affective", &stimuli, &stimuli, &stimuli, &emotions,
                                                         &emotions, &emotions, &moods, &drives, &drives, 0.2, 0.8));
  const AffectValues a = FromMsg(m);
  EXPECT_EQ(a.model, "affective");
  EXPECT_EQ(a.stimuli_damped, stimuli);
  EXPECT_EQ(a.emotions_combined, emotions);
  EXPECT_EQ(a.moods, moods);
  EXPECT_EQ(a.drives, drives);
  EXPECT_DOUBLE_EQ(a.drive_min, 0.2);
  EXPECT_DOUBLE_EQ(a.drive_max, 0.8);
}

TEST(MetricsConvertTest, ControlParamsByFieldName) {
  flatbuffers::FlatBufferBuilder fbb;
  msg::ControlParamsBuilder b(fbb);
  b.add_w_v1(0.95);
  b.add_n_theta(30);
  b.add_v_limit(0.4);
  const auto& m = Root(fbb, b.Finish());
  const ParameterValues p = FromMsg(m);
  EXPECT_EQ(p.size(), 47u);  // every field of LIMBIC_CONTROL_PARAMETER_FIELDS
  auto value = [&](const std::string& name) {
    for (const auto& [k, v] : p) {
      if (k == name) return v;
    }
    ADD_FAILURE() << name;
    return -1.0;
  };
  EXPECT_DOUBLE_EQ(value("w_v1"), 0.95);
  EXPECT_DOUBLE_EQ(value("n_theta"), 30.0);
  EXPECT_DOUBLE_EQ(value("v_limit"), 0.4);
}

// The heartbeat's shared-memory counters (runtime::Host::PublishHeartbeat); other counters are not taken for them,
// and a count that is negative or not finite (a heartbeat from elsewhere) reads as 0.
TEST(MetricsConvertTest, HeartbeatSharedMemoryCounters) {
  flatbuffers::FlatBufferBuilder fbb;
  const std::vector<flatbuffers::Offset<msg::Counter>> counters = {
      msg::CreateCounterDirect(fbb, "bus_drops", 5),     msg::CreateCounterDirect(fbb, "shm_active", 1),
      msg::CreateCounterDirect(fbb, "shm_sent", 614),    msg::CreateCounterDirect(fbb, "shm_received", 1280),
      msg::CreateCounterDirect(fbb, "shm_fallbacks", 2), msg::CreateCounterDirect(fbb, "shm_malformed", -3)};
  const auto& hb = Root(fbb, msg::CreateHeartbeatDirect(fbb, 0, "r1/mapper", msg::ServiceState::Running, "lockstep", 1,
                                                        1.0, 0, 0, 0, nullptr, 0, &counters));
  const HeartbeatValues h = FromMsg(hb);
  ASSERT_TRUE(h.shm.has_value());
  EXPECT_TRUE(h.shm->active);
  EXPECT_EQ(h.shm->sent, 614u);
  EXPECT_EQ(h.shm->received, 1280u);
  EXPECT_EQ(h.shm->fallbacks, 2u);
  EXPECT_EQ(h.shm->malformed, 0u);
}

TEST(MetricsConvertTest, HeartbeatBusStatsAndFault) {
  flatbuffers::FlatBufferBuilder fbb;
  const std::vector<uint64_t> buckets = {1, 2, 3, 0, 0, 0, 0, 0, 0, 0, 4};
  const auto& hb = Root(fbb, msg::CreateHeartbeatDirect(fbb, 0, "r1/planner", msg::ServiceState::Stopping, "realtime",
                                                        42, 10.0, 0.002, 0.001, 0.01, &buckets, 3));
  const HeartbeatValues h = FromMsg(hb);
  EXPECT_EQ(h.service, "r1/planner");
  EXPECT_TRUE(h.stopping);
  EXPECT_EQ(h.tick, 42);
  EXPECT_EQ(h.loop_time_buckets, buckets);
  EXPECT_EQ(h.overruns, 3u);
  EXPECT_TRUE(h.receive_losses.empty());
  EXPECT_FALSE(h.shm.has_value()) << "no shm_ counters: a service without shared memory";
  // What the service lost receiving (issue 23 item 3): its `in` topics' gaps and tails; `out` topics are not.
  flatbuffers::FlatBufferBuilder fbb_in;
  const std::vector<flatbuffers::Offset<msg::TopicStats>> own = {
      msg::CreateTopicStatsDirect(fbb_in, "r1/odom", nullptr, "in", 90, 0, 0, 0, 0, 4, 0, 0, 0, 0, 0, 0, 0, nullptr, 0,
                                  6),
      msg::CreateTopicStatsDirect(fbb_in, "r1/path", nullptr, "out", 9, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, nullptr, 0,
                                  2)};
  const auto& hb_in = Root(fbb_in, msg::CreateHeartbeatDirect(fbb_in, 0, "r1/planner", msg::ServiceState::Running,
                                                              "realtime", 1, 1.0, 0, 0, 0, nullptr, 0, nullptr, &own));
  const HeartbeatValues losses = FromMsg(hb_in);
  ASSERT_EQ(losses.receive_losses.size(), 1u);
  EXPECT_EQ(losses.receive_losses[0].topic, "r1/odom");
  EXPECT_EQ(losses.receive_losses[0].gap, 4u);
  EXPECT_EQ(losses.receive_losses[0].tail, 6u);

  flatbuffers::FlatBufferBuilder fbb2;
  std::vector<flatbuffers::Offset<msg::TopicStats>> topics = {msg::CreateTopicStatsDirect(
      fbb2, "r1/scan", "limbic.msg.RangeScan", "broker", 10, 2000, 1, 2, 3, 4, 5, 0, 6, 7, 8, 9)};
  const auto& bs = Root(fbb2, msg::CreateBusStatsDirect(fbb2, 0, &topics, 6, 2));
  const BusValues bus = FromMsg(bs);
  ASSERT_EQ(bus.topics.size(), 1u);
  EXPECT_EQ(bus.topics[0].topic, "r1/scan");
  EXPECT_EQ(bus.topics[0].bytes, 2000u);
  EXPECT_EQ(bus.topics[0].drops_gap, 4u);
  EXPECT_EQ(bus.topics[0].fault_drops, 6u);
  EXPECT_EQ(bus.topics[0].fault_delays, 7u);
  EXPECT_EQ(bus.topics[0].fault_duplicates, 8u);
  EXPECT_EQ(bus.topics[0].fault_corruptions, 9u);
  EXPECT_EQ(bus.subscribers, 6);

  // A direct topic's row (docs/protocol.md §13, "Counts"): its receivers' drops, tail included.
  flatbuffers::FlatBufferBuilder fbb_direct;
  std::vector<flatbuffers::Offset<msg::TopicStats>> direct = {
      msg::CreateTopicStatsDirect(fbb_direct, "r1/odom", "limbic.msg.Odometry", "direct", 500, 32000, 10, 6, 0, 3, 0, 0,
                                  0, 0, 0, 0, 4, nullptr, 2, 5)};
  const BusValues direct_bus = FromMsg(Root(fbb_direct, msg::CreateBusStatsDirect(fbb_direct, 0, &direct, 2, 0)));
  ASSERT_EQ(direct_bus.topics.size(), 1u);
  EXPECT_EQ(direct_bus.topics[0].drops_malformed, 10u);
  EXPECT_EQ(direct_bus.topics[0].drops_wrong_type, 6u);
  EXPECT_EQ(direct_bus.topics[0].drops_gap, 3u);
  EXPECT_EQ(direct_bus.topics[0].drops_invalid, 4u);
  EXPECT_EQ(direct_bus.topics[0].drops_tail, 5u);

  flatbuffers::FlatBufferBuilder fbb3;
  const auto& fc = Root(fbb3, msg::CreateFaultCommandDirect(fbb3, 0, "n1", msg::FaultKind::SensorNoise, "r1", -1, -1,
                                                            -1, nullptr, nullptr, 12.5, 3.0, 0.1, 0.0, 1, false));
  const FaultValues f = FromMsg(fc, /*stamp_s=*/10.0);
  EXPECT_EQ(f.kind, "SensorNoise");
  EXPECT_EQ(f.robot, "r1");
  EXPECT_DOUBLE_EQ(f.delay_s, 2.5);
  EXPECT_DOUBLE_EQ(f.duration_s, 3.0);
}

TEST(MetricsConvertTest, TruthCollisionPathMissionRun) {
  flatbuffers::FlatBufferBuilder a, b, c, d, e;
  const msg::Pose2 pose(1, 2, 0.5);
  EXPECT_DOUBLE_EQ(FromMsg(Root(a, msg::CreateGroundTruthDirect(a, 0, "r1", &pose, 0.45, 0.1, true))).v, 0.45);
  EXPECT_EQ(FromMsg(Root(b, msg::CreateCollisionEventDirect(b, 0, true, true, nullptr, nullptr, 0.3, 7))).event_count,
            7u);
  const PathValues p = FromMsg(Root(c, msg::CreatePathDirect(c, 0, true, true, nullptr, nullptr, 3.0, 1.0, 0.012, 1)));
  EXPECT_TRUE(p.replanned);
  EXPECT_DOUBLE_EQ(p.plan_time_s, 0.012);
  const msg::Vec2 goal(5, 5);
  const MissionValues mv = FromMsg(Root(d, msg::CreateMissionStatus(d, 0, 2, 10, &goal, 3.5, 20.0, 1, false)));
  EXPECT_EQ(mv.iteration, 2);
  EXPECT_DOUBLE_EQ(mv.distance_to_goal, 3.5);
  const RunValues rv = FromMsg(Root(e, msg::CreateRunMetricsDirect(e, 0, "r1", "A", 0, 1, 7, "affective", 3, 80.0, true,
                                                                   2, 1.5, 0.3, 0.01, 0.6, 24.0, false)));
  EXPECT_EQ(rv.iteration, 3);
  EXPECT_DOUBLE_EQ(rv.collisions_per_min, 1.5);
  EXPECT_DOUBLE_EQ(rv.coverage, 0.6);
}

TEST(MetricsConvertTest, RecruitStateKeepsWhatTheExporterServes) {
  flatbuffers::FlatBufferBuilder fbb;
  const std::vector<uint64_t> tx = {3, 1, 0, 2, 0, 1, 99};  // one entry more than there are types: cut
  const auto& m = Root(fbb, msg::CreateRecruitStateDirect(fbb, 0, 4, "ugv", "affective", 1.0, 2.0, 0.7, 0.6, 0.75,
                                                          "ON_TASK", "IDLE", "accept", 9, 5, 2, 1, 0, 12.5, &tx, 7, 8));
  const RecruitValues v = FromMsg(m);
  EXPECT_EQ(v.role, "ugv");
  EXPECT_EQ(v.responder_state, "ON_TASK");
  EXPECT_DOUBLE_EQ(v.shame_now, 0.6);
  EXPECT_DOUBLE_EQ(v.threshold, 0.75);
  EXPECT_EQ(v.helps_ignored, 5u);
  EXPECT_EQ(v.times_recruited, 1u);
  EXPECT_DOUBLE_EQ(v.last_wait_s, 12.5);
  EXPECT_EQ(v.transmissions, (std::vector<uint64_t>{3, 1, 0, 2, 0, 1}));
  EXPECT_EQ(v.malformed, 7u);
  EXPECT_EQ(v.out_of_order, 8u);
}

TEST(PrometheusBridgeTest, SerializesLikeTheModel) {
  MetricsCollector c;
  HeartbeatValues hb;
  hb.service = "r1/controller";
  hb.loop_time_buckets = {0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 1};
  hb.loop_time_mean_s = 0.5;
  c.OnHeartbeat(hb, 0.0);
  c.OnCollision("r1", {true, 5}, 0.0);
  const auto text = prometheus::TextSerializer().Serialize(ToPrometheus(c.Snapshot(1.0)));
  EXPECT_NE(text.find("# TYPE limbic_robot_collisions_total counter"), std::string::npos) << text;
  EXPECT_NE(text.find("limbic_robot_collisions_total{robot=\"r1\"} 5"), std::string::npos);
  EXPECT_NE(text.find("limbic_service_up{service=\"r1/controller\"} 1"), std::string::npos);
  EXPECT_NE(text.find("limbic_service_loop_time_seconds_bucket{service=\"r1/controller\",le=\"0.001\"} 2"),
            std::string::npos);
  EXPECT_NE(text.find("limbic_service_loop_time_seconds_bucket{service=\"r1/controller\",le=\"+Inf\"} 3"),
            std::string::npos);
  EXPECT_NE(text.find("limbic_service_loop_time_seconds_count{service=\"r1/controller\"} 3"), std::string::npos);
}

TEST(PrometheusBridgeTest, CollectableJudgesLivenessAtScrapeTime) {
  double now = 0.0;
  CollectorCollectable collectable(CollectorOptions{}, [&] { return now; });
  HeartbeatValues hb;
  hb.service = "bus";
  collectable.Update([&](MetricsCollector& c) { c.OnHeartbeat(hb, now); });
  now = 2.0;
  EXPECT_NE(prometheus::TextSerializer().Serialize(collectable.Collect()).find("limbic_service_up{service=\"bus\"} 1"),
            std::string::npos);
  now = 4.0;
  EXPECT_NE(prometheus::TextSerializer().Serialize(collectable.Collect()).find("limbic_service_up{service=\"bus\"} 0"),
            std::string::npos);
}

}  // namespace
}  // namespace limbic::metrics
