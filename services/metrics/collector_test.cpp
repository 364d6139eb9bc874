// The message -> metric mapping, without any transport: feed values, check the exposition text.
#include "services/metrics/collector.hpp"

#include <gtest/gtest.h>

#include "services/metrics/metric_model.hpp"

namespace limbic::metrics {
namespace {

bool Contains(const std::string& text, const std::string& line) { return text.find(line + "\n") != std::string::npos; }

AffectValues SampleAffect() {
  AffectValues a;
  a.model = "affective";
  a.stimuli_raw = {0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9};
  a.stimuli_norm = a.stimuli_raw;
  a.stimuli_damped = a.stimuli_raw;
  a.emotions_global = {0.7, 0.1, 0.2, 0.0, 0.3, 0.0, 0.05};
  a.emotions_mapped = a.emotions_global;
  a.emotions_combined = {0.8, 0.1, 0.2, 0.0, 0.3, 0.0, 0.05};
  a.moods = {0.25, -0.5};
  a.drives_emotional = {0.9, 0.4, 0.3, 0.2, 0.1, 0.0};
  a.drives = {0.75, 0.4, 0.3, 0.2, 0.1, 0.0};
  a.drive_min = 0.3;
  a.drive_max = 0.75;
  return a;
}

RecruitValues SampleUgv() {
  RecruitValues v;
  v.role = "ugv";
  v.responder_state = "PENDING";
  v.requester_state = "IDLE";
  v.shame_now = 0.8;
  v.threshold = 0.75;
  v.helps_ignored = 4;
  v.times_recruited = 2;
  v.malformed = 1;
  v.transmissions = {0, 3, 0, 2, 0, 2};
  return v;
}

RecruitValues SampleUav() {
  RecruitValues v;
  v.role = "uav";
  v.requester_state = "WAIT_ACCEPT";
  v.responder_state = "AVAILABLE";
  v.episodes = 3;
  v.last_wait_s = 21.5;
  v.transmissions = {9, 0, 3, 0, 3, 0};
  return v;
}

TEST(MetricModelTest, HistogramFromBucketCountsAccumulates) {
  // Per-bucket counts 2, 0, 3 and 1 in +Inf: cumulative 2, 2, 5; count 6.
  const HistogramValue h = HistogramFromBucketCounts({0.1, 0.2, 0.5}, {2, 0, 3, 1}, 1.5);
  EXPECT_EQ(h.cumulative_counts, (std::vector<uint64_t>{2, 2, 5}));
  EXPECT_EQ(h.count, 6u);
  EXPECT_DOUBLE_EQ(h.sum, 1.5);
  EXPECT_THROW(HistogramFromBucketCounts({0.1, 0.2}, {1, 2}, 0.0), std::invalid_argument);
}

TEST(MetricModelTest, RendersTextExpositionFormat) {
  MetricFamily g{"limbic_x_meters", "An \"x\"\nvalue.", MetricType::kGauge, {}};
  g.samples.push_back(Sample{{{"robot", "r\"1"}}, 0.5, {}});
  MetricFamily h{"limbic_y_seconds", "Y.", MetricType::kHistogram, {}};
  h.samples.push_back(Sample{{{"service", "s"}}, 0.0, HistogramFromBucketCounts({0.1, 1}, {1, 2, 3}, 4.25)});
  const std::string text = RenderText({g, h});
  EXPECT_TRUE(Contains(text, "# HELP limbic_x_meters An \"x\"\\nvalue.")) << text;
  EXPECT_TRUE(Contains(text, "# TYPE limbic_x_meters gauge"));
  EXPECT_TRUE(Contains(text, "limbic_x_meters{robot=\"r\\\"1\"} 0.5"));
  EXPECT_TRUE(Contains(text, "# TYPE limbic_y_seconds histogram"));
  EXPECT_TRUE(Contains(text, "limbic_y_seconds_bucket{service=\"s\",le=\"0.1\"} 1"));
  EXPECT_TRUE(Contains(text, "limbic_y_seconds_bucket{service=\"s\",le=\"1\"} 3"));
  EXPECT_TRUE(Contains(text, "limbic_y_seconds_bucket{service=\"s\",le=\"+Inf\"} 6"));
  EXPECT_TRUE(Contains(text, "limbic_y_seconds_sum{service=\"s\"} 4.25"));
  EXPECT_TRUE(Contains(text, "limbic_y_seconds_count{service=\"s\"} 6"));
}

TEST(MetricModelTest, NamingCheckCatchesViolations) {
  std::vector<MetricFamily> bad = {{"limbic_hits", "h", MetricType::kCounter, {}},
                                   {"x_total", "h", MetricType::kGauge, {}},
                                   {"limbic_ok", "h", MetricType::kGauge, {Sample{{{"pid", "1"}}, 1, {}}}}};
  EXPECT_EQ(CheckNaming(bad).size(), 4u);  // no _total; no prefix and _total on a gauge; unbounded label
  // promtool's rule: _count, _sum and _bucket only on the series of a histogram or summary.
  std::vector<MetricFamily> reserved = {{"limbic_faults_active_count", "h", MetricType::kGauge, {}},
                                        {"limbic_x_sum", "h", MetricType::kGauge, {}},
                                        {"limbic_loop_seconds_bucket", "h", MetricType::kGauge, {}},
                                        {"limbic_loop_seconds", "h", MetricType::kHistogram, {}}};
  EXPECT_EQ(CheckNaming(reserved),
            (std::vector<std::string>{"limbic_faults_active_count: _count is reserved for histograms and summaries",
                                      "limbic_x_sum: _sum is reserved for histograms and summaries",
                                      "limbic_loop_seconds_bucket: _bucket is reserved for histograms and summaries"}));
}

TEST(CollectorTest, EveryFamilyFollowsTheNamingRules) {
  MetricsCollector c;
  c.OnAffect("r1", SampleAffect(), 0.0);
  c.OnParameters("r1", {{"w_v1", 0.99}}, 0.0);
  c.OnTruth("r1", {0.4, 0.1, false}, 0.0);
  c.OnCollision("r1", {true, 3}, 0.0);
  c.OnPath("r1", {true, true, 0.004, 12.0}, 0.0);
  c.OnMission("r1", {2, 5, 7.5, 30.0, false}, 0.0);
  c.OnRunMetrics("r1", {1, true, 61.0, 2, 1.9, 0.35, 0.02, 0.4, 20.0}, 0.0);
  c.OnHeartbeat({"r1/planner",
                 false,
                 false,
                 10,
                 1.0,
                 0.001,
                 0.001,
                 std::vector<uint64_t>(11, 1),
                 0,
                 {{"r1/odom", 0, 0}},
                 HeartbeatValues::SharedMemory{true, 1, 1, 0, 0}},
                0.0);
  c.OnBusStats({{{"r1/scan", 10, 1000, 0, 0, 0, 0, 0}}, 3, 1}, 0.0);
  c.OnFault({"f1", "SensorNoise", "r1", 0.0, 0.0, false}, 0.0);
  c.OnRecruit("r2", SampleUgv(), 0.0);
  c.OnRecruit("r0", SampleUav(), 0.0);
  const auto families = c.Snapshot(0.5);
  EXPECT_EQ(CheckNaming(families), std::vector<std::string>{});
  for (const auto& f : families) {
    if (f.name == "limbic_exporter_ignored_total") continue;  // nothing ignored here
    EXPECT_FALSE(f.samples.empty()) << f.name << " has no series";
  }
}

TEST(CollectorTest, AffectArraysBecomeLabelledSeries) {
  MetricsCollector c;
  c.OnAffect("r1", SampleAffect(), 10.0);
  const std::string text = RenderText(c.Snapshot(10.5));
  EXPECT_TRUE(Contains(text, "limbic_robot_stimulus{robot=\"r1\",stimulus=\"danger\",kind=\"raw\"} 0.1"));
  EXPECT_TRUE(Contains(text, "limbic_robot_stimulus{robot=\"r1\",stimulus=\"error\",kind=\"damped\"} 0.9"));
  EXPECT_TRUE(Contains(text, "limbic_robot_emotion{robot=\"r1\",emotion=\"anger\",kind=\"combined\"} 0.8"));
  EXPECT_TRUE(Contains(text, "limbic_robot_emotion{robot=\"r1\",emotion=\"confusion\",kind=\"global\"} 0.05"));
  EXPECT_TRUE(Contains(text, "limbic_robot_mood{robot=\"r1\",mood=\"negative\"} -0.5"));
  EXPECT_TRUE(Contains(text, "limbic_robot_drive{robot=\"r1\",drive=\"safety\",kind=\"emotional\"} 0.9"));
  EXPECT_TRUE(Contains(text, "limbic_robot_drive{robot=\"r1\",drive=\"safety\",kind=\"bounded\"} 0.75"));
  EXPECT_TRUE(Contains(text, "limbic_robot_drive{robot=\"r1\",drive=\"introspection\",kind=\"bounded\"} 0"));
  EXPECT_TRUE(Contains(text, "limbic_robot_drive_min{robot=\"r1\"} 0.3"));
  EXPECT_TRUE(Contains(text, "limbic_robot_drive_max{robot=\"r1\"} 0.75"));
  EXPECT_TRUE(Contains(text, "limbic_robot_affect_model_info{robot=\"r1\",model=\"affective\"} 1"));
}

TEST(CollectorTest, RecruitersExportShameTransmissionsAndStates) {
  MetricsCollector c;
  c.OnRecruit("r2", SampleUgv(), 10.0);
  c.OnRecruit("r0", SampleUav(), 10.0);
  const std::string text = RenderText(c.Snapshot(10.5));
  EXPECT_TRUE(Contains(text, "limbic_recruit_shame{robot=\"r2\"} 0.8")) << text;
  EXPECT_TRUE(Contains(text, "limbic_recruit_shame_threshold{robot=\"r2\"} 0.75"));
  EXPECT_TRUE(Contains(text, "limbic_recruit_state{robot=\"r2\",state=\"PENDING\"} 1"));
  EXPECT_TRUE(Contains(text, "limbic_recruit_state{robot=\"r0\",state=\"WAIT_ACCEPT\"} 1"));
  EXPECT_TRUE(Contains(text, "limbic_recruit_transmissions_total{robot=\"r2\",kind=\"ACCEPT\"} 3"));
  EXPECT_TRUE(Contains(text, "limbic_recruit_transmissions_total{robot=\"r0\",kind=\"HELP\"} 9"));
  EXPECT_TRUE(Contains(text, "limbic_recruit_recruited_total{robot=\"r2\"} 2"));
  EXPECT_TRUE(Contains(text, "limbic_recruit_episodes_total{robot=\"r0\"} 3"));
  EXPECT_TRUE(Contains(text, "limbic_recruit_last_wait_seconds{robot=\"r0\"} 21.5"));
  EXPECT_TRUE(Contains(text, "limbic_recruit_rejected_total{robot=\"r2\",reason=\"malformed\"} 1"));
  EXPECT_EQ(text.find("limbic_recruit_shame{robot=\"r0\"}"), std::string::npos) << "the requester has no SHAME";
  // Silent recruiters are withdrawn, like every streaming robot value.
  EXPECT_EQ(RenderText(c.Snapshot(20.0)).find("limbic_recruit_shame{"), std::string::npos);
}

TEST(CollectorTest, ShortArraysExportWhatIsThere) {
  MetricsCollector c;
  AffectValues a;
  a.emotions_combined = {0.5, 0.25};  // a sender with fewer emotions: only anger and fear
  c.OnAffect("r1", a, 0.0);
  const auto families = c.Snapshot(0.0);
  for (const auto& f : families) {
    if (f.name == "limbic_robot_emotion") {
      EXPECT_EQ(f.samples.size(), 2u);
    }
  }
}

TEST(CollectorTest, StreamingRobotValuesAreWithdrawnWhenStale) {
  MetricsCollector c;  // robot_stale_after_s = 5
  c.OnTruth("r1", {0.3, 0.0, false}, 100.0);
  c.OnCollision("r1", {false, 4}, 100.0);
  EXPECT_TRUE(Contains(RenderText(c.Snapshot(105.0)), "limbic_robot_speed_meters_per_second{robot=\"r1\"} 0.3"));
  const std::string later = RenderText(c.Snapshot(105.1));
  EXPECT_EQ(later.find("limbic_robot_speed_meters_per_second{"), std::string::npos);
  // Counters stay: a silent robot has not un-collided.
  EXPECT_TRUE(Contains(later, "limbic_robot_collisions_total{robot=\"r1\"} 4"));
}

// Issue 18: contacts by kind per robot of a team, from ground truth.
TEST(CollectorTest, ContactsAreCountedPerRobotWithRobotsApartFromTheWorld) {
  MetricsCollector c;
  c.OnTruth("r1", {0.3, 0.0, false, 0, 4}, 100.0);
  c.OnTruth("r2", {0.0, 0.0, true, 2, 1}, 100.0);
  const std::string text = RenderText(c.Snapshot(100.5));
  EXPECT_TRUE(Contains(text, "limbic_robot_contacts_total{robot=\"r1\",kind=\"robot\"} 0")) << text;
  EXPECT_TRUE(Contains(text, "limbic_robot_contacts_total{robot=\"r1\",kind=\"world\"} 4")) << text;
  EXPECT_TRUE(Contains(text, "limbic_robot_contacts_total{robot=\"r2\",kind=\"robot\"} 2")) << text;
  EXPECT_TRUE(Contains(text, "limbic_robot_contacts_total{robot=\"r2\",kind=\"world\"} 1")) << text;
}

TEST(CollectorTest, ServiceUpTurnsZeroAfterThreeSecondsOfSilence) {
  MetricsCollector c;
  HeartbeatValues hb;
  hb.service = "r1/planner";
  hb.loop_time_buckets = {0, 0, 4, 0, 0, 0, 0, 0, 0, 1, 0};  // 4 ticks <= 1 ms, 1 tick in (0.1, 0.5]
  hb.loop_time_mean_s = 0.05;
  hb.overruns = 1;
  hb.receive_losses = {{"r1/odom", 4, 6}};
  c.OnHeartbeat(hb, 50.0);
  std::string text = RenderText(c.Snapshot(53.0));
  EXPECT_TRUE(Contains(text, "limbic_service_up{service=\"r1/planner\"} 1"));
  EXPECT_TRUE(Contains(text, "limbic_service_heartbeat_age_seconds{service=\"r1/planner\"} 3"));
  EXPECT_TRUE(Contains(text, "limbic_service_loop_time_seconds_bucket{service=\"r1/planner\",le=\"0.001\"} 4"));
  EXPECT_TRUE(Contains(text, "limbic_service_loop_time_seconds_bucket{service=\"r1/planner\",le=\"0.1\"} 4"));
  EXPECT_TRUE(Contains(text, "limbic_service_loop_time_seconds_bucket{service=\"r1/planner\",le=\"0.5\"} 5"));
  EXPECT_TRUE(Contains(text, "limbic_service_loop_time_seconds_count{service=\"r1/planner\"} 5"));
  EXPECT_TRUE(Contains(text, "limbic_service_loop_time_seconds_sum{service=\"r1/planner\"} 0.25"));  // 5 x 0.05
  EXPECT_TRUE(Contains(text, "limbic_service_overruns_total{service=\"r1/planner\"} 1"));
  EXPECT_TRUE(
      Contains(text, "limbic_bus_receive_losses_total{service=\"r1/planner\",topic=\"r1/odom\",reason=\"gap\"} 4"));
  EXPECT_TRUE(
      Contains(text, "limbic_bus_receive_losses_total{service=\"r1/planner\",topic=\"r1/odom\",reason=\"tail\"} 6"));
  text = RenderText(c.Snapshot(53.5));
  EXPECT_TRUE(Contains(text, "limbic_service_up{service=\"r1/planner\"} 0"));
  EXPECT_TRUE(Contains(text, "limbic_service_heartbeat_age_seconds{service=\"r1/planner\"} 3.5"));
  EXPECT_EQ(text.find("limbic_service_loop_time_seconds_bucket{"), std::string::npos);  // not frozen
  EXPECT_EQ(text.find("limbic_service_overruns_total{"), std::string::npos);
}

// Issue 23 item 2: what went through shared memory, per service, for the services that use it — and nothing for
// those that do not (no series that would read as "0 through shared memory" for a service on sockets only).
TEST(CollectorTest, SharedMemoryCountsPerServiceOnlyWhereUsed) {
  MetricsCollector c;
  HeartbeatValues mapper;
  mapper.service = "r1/mapper";
  mapper.shm = HeartbeatValues::SharedMemory{true, 614, 1280, 2, 1};
  c.OnHeartbeat(mapper, 10.0);
  HeartbeatValues planner;
  planner.service = "r1/planner";
  c.OnHeartbeat(planner, 10.0);
  HeartbeatValues lost = mapper;
  lost.service = "r1/hwio";
  lost.shm->active = false;
  c.OnHeartbeat(lost, 10.0);
  const std::string text = RenderText(c.Snapshot(10.5));
  EXPECT_TRUE(Contains(text, "limbic_shm_active{service=\"r1/mapper\"} 1")) << text;
  EXPECT_TRUE(Contains(text, "limbic_shm_active{service=\"r1/hwio\"} 0")) << text;
  EXPECT_TRUE(Contains(text, "limbic_shm_messages_total{service=\"r1/mapper\",kind=\"sent\"} 614")) << text;
  EXPECT_TRUE(Contains(text, "limbic_shm_messages_total{service=\"r1/mapper\",kind=\"received\"} 1280")) << text;
  EXPECT_TRUE(Contains(text, "limbic_shm_fallbacks_total{service=\"r1/mapper\"} 2")) << text;
  EXPECT_TRUE(Contains(text, "limbic_shm_malformed_total{service=\"r1/mapper\"} 1")) << text;
  EXPECT_TRUE(Contains(text, "# TYPE limbic_shm_messages_total counter")) << text;
  EXPECT_EQ(text.find("limbic_shm_active{service=\"r1/planner\"}"), std::string::npos) << text;
  EXPECT_EQ(text.find("limbic_shm_messages_total{service=\"r1/planner\""), std::string::npos) << text;
}

TEST(CollectorTest, StoppingHeartbeatMeansDown) {
  MetricsCollector c;
  HeartbeatValues hb;
  hb.service = "r1/mapper";
  hb.stopping = true;
  c.OnHeartbeat(hb, 0.0);
  EXPECT_TRUE(Contains(RenderText(c.Snapshot(0.1)), "limbic_service_up{service=\"r1/mapper\"} 0"));
}

TEST(CollectorTest, BusCountsPerTopicAndReason) {
  MetricsCollector c;
  c.OnBusStats({{{"r1/scan", 120, 48000, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10}}, 7, 2}, 0.0);
  std::string text = RenderText(c.Snapshot(1.0));
  EXPECT_TRUE(Contains(text, "limbic_bus_up 1"));
  EXPECT_TRUE(Contains(text, "limbic_bus_messages_total{topic=\"r1/scan\"} 120"));
  EXPECT_TRUE(Contains(text, "limbic_bus_bytes_total{topic=\"r1/scan\"} 48000"));
  EXPECT_TRUE(Contains(text, "limbic_bus_drops_total{topic=\"r1/scan\",reason=\"malformed\"} 1"));
  EXPECT_TRUE(Contains(text, "limbic_bus_drops_total{topic=\"r1/scan\",reason=\"wrong_type\"} 2"));
  EXPECT_TRUE(Contains(text, "limbic_bus_drops_total{topic=\"r1/scan\",reason=\"oversize\"} 3"));
  EXPECT_TRUE(Contains(text, "limbic_bus_drops_total{topic=\"r1/scan\",reason=\"gap\"} 4"));
  EXPECT_TRUE(Contains(text, "limbic_bus_drops_total{topic=\"r1/scan\",reason=\"fault\"} 6"));
  EXPECT_TRUE(Contains(text, "limbic_bus_drops_total{topic=\"r1/scan\",reason=\"invalid\"} 10"));
  EXPECT_TRUE(Contains(text, "limbic_bus_fault_effects_total{topic=\"r1/scan\",effect=\"delayed\"} 7"));
  EXPECT_TRUE(Contains(text, "limbic_bus_fault_effects_total{topic=\"r1/scan\",effect=\"duplicated\"} 8"));
  EXPECT_TRUE(Contains(text, "limbic_bus_fault_effects_total{topic=\"r1/scan\",effect=\"corrupted\"} 9"));
  EXPECT_TRUE(Contains(text, "limbic_bus_duplicates_total{topic=\"r1/scan\"} 5"));
  EXPECT_TRUE(Contains(text, "limbic_bus_subscribers 7"));
  text = RenderText(c.Snapshot(3.5));
  EXPECT_TRUE(Contains(text, "limbic_bus_up 0"));
  EXPECT_EQ(text.find("limbic_bus_messages_total{"), std::string::npos);
}

// A direct topic (docs/protocol.md §13, "Counts"): the broker's row holds its publishers' counts and its receivers'
// drops summed by reason, tail included, exported like the broker's own.
TEST(CollectorTest, ADirectTopicsReceiverDropsAreExportedByReason) {
  MetricsCollector c;
  TopicValues direct{.topic = "r1/odom",
                     .messages = 500,
                     .bytes = 32000,
                     .drops_malformed = 10,
                     .drops_wrong_type = 6,
                     .drops_oversize = 0,
                     .drops_gap = 3,
                     .drops_invalid = 4,
                     .drops_tail = 2};
  c.OnBusStats({{direct}, 2, 0}, 0.0);
  const std::string text = RenderText(c.Snapshot(0.5));
  EXPECT_TRUE(Contains(text, "limbic_bus_messages_total{topic=\"r1/odom\"} 500"));
  EXPECT_TRUE(Contains(text, "limbic_bus_drops_total{topic=\"r1/odom\",reason=\"malformed\"} 10"));
  EXPECT_TRUE(Contains(text, "limbic_bus_drops_total{topic=\"r1/odom\",reason=\"wrong_type\"} 6"));
  EXPECT_TRUE(Contains(text, "limbic_bus_drops_total{topic=\"r1/odom\",reason=\"invalid\"} 4"));
  EXPECT_TRUE(Contains(text, "limbic_bus_drops_total{topic=\"r1/odom\",reason=\"gap\"} 3"));
  EXPECT_TRUE(Contains(text, "limbic_bus_drops_total{topic=\"r1/odom\",reason=\"tail\"} 2"));
  EXPECT_TRUE(Contains(text, "limbic_bus_drops_total{topic=\"r1/odom\",reason=\"oversize\"} 0"));
}

TEST(CollectorTest, TopicLabelSetIsBounded) {
  CollectorOptions options;
  options.max_topics = 2;
  MetricsCollector c(options);
  c.OnBusStats({{{"a", 1, 1, 0, 0, 0, 0, 0}, {"b", 1, 1, 0, 0, 0, 0, 0}, {"c", 1, 1, 0, 0, 0, 0, 0}}, 0, 0}, 0.0);
  const std::string text = RenderText(c.Snapshot(0.0));
  EXPECT_EQ(text.find("topic=\"c\""), std::string::npos);
  EXPECT_TRUE(Contains(text, "limbic_exporter_ignored_total{kind=\"topic\"} 1"));
}

TEST(CollectorTest, FaultsAreActiveFromStartForTheirDurationOrUntilCleared) {
  MetricsCollector c;
  c.OnFault({"noise", "SensorNoise", "r1", 2.0, 5.0, false}, 10.0);  // active in [12, 17)
  c.OnFault({"drop", "CommDrop", "", 0.0, 0.0, false}, 10.0);        // until cleared, every robot
  std::string text = RenderText(c.Snapshot(11.0));
  EXPECT_TRUE(Contains(text, "limbic_faults_active{kind=\"SensorNoise\",robot=\"r1\"} 0"));
  EXPECT_TRUE(Contains(text, "limbic_faults_active{kind=\"CommDrop\",robot=\"all\"} 1"));
  EXPECT_TRUE(Contains(text, "limbic_faults_in_effect 1"));
  text = RenderText(c.Snapshot(12.0));
  EXPECT_TRUE(Contains(text, "limbic_faults_active{kind=\"SensorNoise\",robot=\"r1\"} 1"));
  EXPECT_TRUE(Contains(text, "limbic_faults_in_effect 2"));
  text = RenderText(c.Snapshot(17.0));
  EXPECT_TRUE(Contains(text, "limbic_faults_active{kind=\"SensorNoise\",robot=\"r1\"} 0"));
  c.OnFault({"drop", "", "", 0.0, 0.0, true}, 18.0);
  text = RenderText(c.Snapshot(18.0));
  EXPECT_TRUE(Contains(text, "limbic_faults_active{kind=\"CommDrop\",robot=\"all\"} 0"));
  EXPECT_TRUE(Contains(text, "limbic_faults_in_effect 0"));
  EXPECT_TRUE(Contains(text, "limbic_faults_injected_total{kind=\"CommDrop\"} 1"));
}

TEST(CollectorTest, PlanTimesFillTheHistogramOnlyOnNewPlans) {
  MetricsCollector c;                                   // bounds 0.001, 0.002, 0.005, ...
  c.OnPath("r1", {true, true, 0.00390625, 0.0}, 0.0);   // 2^-8 s: in (0.002, 0.005]
  c.OnPath("r1", {true, false, 0.00390625, 0.0}, 0.1);  // same plan, published again: not observed twice
  c.OnPath("r1", {true, true, 0.001953125, 0.0}, 0.2);  // 2^-9 s: in (0.001, 0.002]
  const std::string text = RenderText(c.Snapshot(0.2));
  EXPECT_TRUE(Contains(text, "limbic_robot_plan_duration_seconds_bucket{robot=\"r1\",le=\"0.001\"} 0"));
  EXPECT_TRUE(Contains(text, "limbic_robot_plan_duration_seconds_bucket{robot=\"r1\",le=\"0.002\"} 1"));
  EXPECT_TRUE(Contains(text, "limbic_robot_plan_duration_seconds_bucket{robot=\"r1\",le=\"0.005\"} 2"));
  EXPECT_TRUE(Contains(text, "limbic_robot_plan_duration_seconds_sum{robot=\"r1\"} 0.005859375"));
  EXPECT_TRUE(Contains(text, "limbic_robot_plan_time_seconds{robot=\"r1\"} 0.001953125"));
}

TEST(CollectorTest, RunMetricsCountTraversalsByResult) {
  MetricsCollector c;
  c.OnRunMetrics("r1", {1, true, 61.0, 2, 1.9, 0.35, 0.02, 0.4, 20.0}, 0.0);
  c.OnRunMetrics("r1", {2, false, 600.0, 9, 0.9, 0.05, 0.02, 0.5, 30.0}, 1.0);
  const std::string text = RenderText(c.Snapshot(100.0));
  EXPECT_TRUE(Contains(text, "limbic_run_traversals_total{robot=\"r1\",result=\"success\"} 1"));
  EXPECT_TRUE(Contains(text, "limbic_run_traversals_total{robot=\"r1\",result=\"failure\"} 1"));
  EXPECT_TRUE(Contains(text, "limbic_run_last_completion_time_seconds{robot=\"r1\"} 600"));
  EXPECT_TRUE(Contains(text, "limbic_robot_iteration{robot=\"r1\"} 2"));  // no mission status: from the last run
}

TEST(CollectorTest, MissionStatusGivesDistanceAndIteration) {
  MetricsCollector c;
  c.OnMission("r2", {3, 10, 4.25, 12.0, false}, 0.0);
  const std::string text = RenderText(c.Snapshot(1.0));
  EXPECT_TRUE(Contains(text, "limbic_robot_distance_to_goal_meters{robot=\"r2\"} 4.25"));
  EXPECT_TRUE(Contains(text, "limbic_robot_iteration{robot=\"r2\"} 3"));
  EXPECT_TRUE(Contains(text, "limbic_robot_iterations_planned{robot=\"r2\"} 10"));
}

TEST(CollectorTest, RobotLabelSetIsBounded) {
  CollectorOptions options;
  options.max_robots = 1;
  MetricsCollector c(options);
  c.OnTruth("r1", {}, 0.0);
  c.OnTruth("r2", {}, 0.0);
  EXPECT_EQ(c.Robots(), std::vector<std::string>{"r1"});
}

TEST(DiscoveryTest, RobotsFromInstancesAndTopics) {
  EXPECT_EQ(RobotOfInstance("r1/planner"), "r1");
  EXPECT_EQ(RobotOfInstance("bus"), std::nullopt);
  EXPECT_EQ(RobotOfTopic("r7/affect"), "r7");
  EXPECT_EQ(RobotOfTopic("r7/scan"), std::nullopt);
  EXPECT_EQ(RobotOfTopic("health/metrics"), std::nullopt);
  EXPECT_EQ(RobotOfTopic("faults"), std::nullopt);
}

}  // namespace
}  // namespace limbic::metrics
