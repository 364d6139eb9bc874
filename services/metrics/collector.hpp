// MetricsCollector: turns decoded limbic messages into metric families at scrape time.
//
// Inputs:  values of AffectState, ControlParams, GroundTruth, CollisionEvent, Path, MissionStatus,
//          RunMetrics (per robot), Heartbeat (per service), BusStats (per topic), FaultCommand — each with
//          the time it was received (`now_s`, seconds on any monotonic clock).
// Outputs: Snapshot(now_s): the families listed in docs/metrics.md. Liveness is judged at snapshot time:
//          a service whose last heartbeat is older than `service_stale_after_s` reports up = 0 and its
//          load series disappear; streaming robot values older than `robot_stale_after_s` disappear too,
//          so Prometheus marks them stale instead of drawing frozen values.
// Not thread-safe: the exporter guards it with a mutex (see prometheus_bridge.hpp).
#pragma once

#include <limits>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "services/metrics/metric_model.hpp"
#include "services/metrics/values.hpp"

namespace limbic::metrics {

struct CollectorOptions {
  double service_stale_after_s = 3.0;  // heartbeat older than this: up = 0 (heartbeats come at 1 Hz)
  double robot_stale_after_s = 5.0;    // streaming robot values older than this are withdrawn
  double bus_stale_after_s = 3.0;      // bus/stats older than this: limbic_bus_up = 0, topics withdrawn
  // Upper bounds of the heartbeat loop-time buckets; must mirror runtime::kLoopTimeBucketsS (main.cpp
  // passes the runtime's array; this default is the same list).
  std::vector<double> loop_time_bounds_s = {0.0001, 0.0005, 0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.5};
  // Buckets of the planner compute-time histogram (observed on every new plan).
  std::vector<double> plan_time_bounds_s = {0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1.0, 2.0};
  // Bounds on label sets: values beyond these are ignored and counted in limbic_exporter_ignored_total.
  size_t max_robots = 16;
  size_t max_services = 256;
  size_t max_topics = 1024;
};

// All mutable state of the collector (one struct, so a test can inspect or copy it).
struct CollectorState {
  struct Robot {
    std::optional<AffectValues> affect;
    double affect_s = 0;
    std::optional<ParameterValues> params;
    double params_s = 0;
    std::optional<TruthValues> truth;
    double truth_s = 0;
    std::optional<PathValues> path;
    double path_s = 0;
    std::optional<MissionValues> mission;
    double mission_s = 0;
    std::optional<RunValues> last_run;  // event-based: kept until the next traversal ends
    uint64_t collisions = 0;            // counter (from hwio's event_count)
    bool has_collisions = false;
    std::vector<uint64_t> plan_time_buckets;  // per bucket of plan_time_bounds_s, plus +Inf
    double plan_time_sum_s = 0;
    bool has_plans = false;
    uint64_t traversals_success = 0, traversals_failure = 0;
    std::optional<RecruitValues> recruit;
    double recruit_s = 0;
  };
  struct Service {
    HeartbeatValues heartbeat;
    double received_s = 0;
  };
  struct Fault {
    std::string kind, robot;
    double start_s = 0;
    double end_s = std::numeric_limits<double>::infinity();
  };
  std::map<std::string, Robot> robots;
  std::map<std::string, Service> services;
  std::map<std::string, TopicValues> topics;
  BusValues bus;
  double bus_received_s = -std::numeric_limits<double>::infinity();
  bool has_bus = false;
  std::map<std::string, Fault> faults;                         // by fault id
  std::set<std::pair<std::string, std::string>> fault_series;  // (kind, robot label) seen so far
  std::map<std::string, uint64_t> faults_injected;             // by kind
  std::map<std::string, uint64_t> ignored;                     // by kind: robot | service | topic
  uint64_t messages = 0;
};

class MetricsCollector {
 public:
  explicit MetricsCollector(CollectorOptions options = {});

  void OnAffect(const std::string& robot, const AffectValues& v, double now_s);
  void OnParameters(const std::string& robot, const ParameterValues& v, double now_s);
  void OnTruth(const std::string& robot, const TruthValues& v, double now_s);
  void OnCollision(const std::string& robot, const CollisionValues& v, double now_s);
  void OnPath(const std::string& robot, const PathValues& v, double now_s);
  void OnMission(const std::string& robot, const MissionValues& v, double now_s);
  void OnRunMetrics(const std::string& robot, const RunValues& v, double now_s);
  // A recruiter's RecruitState (`rc/state/<id>`); `robot` is "r<id>".
  void OnRecruit(const std::string& robot, const RecruitValues& v, double now_s);
  void OnHeartbeat(const HeartbeatValues& v, double now_s);
  void OnBusStats(const BusValues& v, double now_s);
  void OnFault(const FaultValues& v, double now_s);

  // Every family limbic exports, evaluated at `now_s` (same clock as the On* calls).
  std::vector<MetricFamily> Snapshot(double now_s) const;

  std::vector<std::string> Robots() const;
  const CollectorState& state() const { return state_; }
  const CollectorOptions& options() const { return options_; }

 private:
  CollectorState::Robot* FindOrAddRobot(const std::string& robot);

  CollectorOptions options_;
  CollectorState state_;
};

// Robot of a service instance ("r1/planner" -> "r1"; "bus" -> nullopt).
std::optional<std::string> RobotOfInstance(const std::string& instance);
// Robot of a per-robot topic the exporter reads ("r2/affect" -> "r2"; "r2/scan" or "faults" -> nullopt).
std::optional<std::string> RobotOfTopic(const std::string& topic);
// The per-robot topic names the exporter reads: affect, params, truth, collision, path, mission, metrics.
const std::vector<std::string>& RobotTopicNames();

}  // namespace limbic::metrics
