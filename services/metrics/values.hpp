// What the exporter needs from each message, as plain values (filled by convert.cpp from FlatBuffers,
// or by hand in tests). Array orders follow messages/affect.fbs.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace limbic::metrics {

// AffectState (affect.fbs): stimuli [9], emotions [7], moods [2], drives [6].
struct AffectValues {
  std::string model;
  std::vector<double> stimuli_raw, stimuli_norm, stimuli_damped;
  std::vector<double> emotions_global, emotions_mapped, emotions_combined;
  std::vector<double> moods;
  std::vector<double> drives_emotional;  // D_E
  std::vector<double> drives;            // D, bounded by [drive_min, drive_max] for the survival drives
  double drive_min = 0.0;                // D_min (eq. 8.26)
  double drive_max = 0.0;                // D_max (eq. 8.25)
};

// RecruitState of one robot's recruiter (issue 20): its SHAME and what it transmitted.
struct RecruitValues {
  std::string role, responder_state, requester_state;
  double shame_now = 0.0, threshold = 0.0, last_wait_s = 0.0;
  uint64_t helps_ignored = 0, times_recruited = 0, episodes = 0, malformed = 0, out_of_order = 0;
  std::vector<uint64_t> transmissions;  // per protocol message type: HELP, ACCEPT, RESPONDER, ARRIVAL, AGREE, ACKACK
};

// ControlParams: every modulated parameter by its field name (w_v1, n_theta, ...).
using ParameterValues = std::vector<std::pair<std::string, double>>;

// GroundTruth of one robot.
struct TruthValues {
  double v = 0.0;      // m/s
  double omega = 0.0;  // rad/s
  bool in_contact = false;
  uint64_t robot_collisions = 0;  // contact events with other robots (issue 18)
  uint64_t world_collisions = 0;  // contact events with walls, obstacles and people
};

// CollisionEvent: hwio's running count of collision events.
struct CollisionValues {
  bool occurred = false;
  uint64_t event_count = 0;
};

// Path: the planner's last compute time.
struct PathValues {
  bool success = false;
  bool replanned = false;
  double plan_time_s = 0.0;
  double max_cost = 0.0;
};

// MissionStatus (1 Hz).
struct MissionValues {
  int iteration = 0;
  int iterations = 0;
  double distance_to_goal = 0.0;  // m
  double elapsed_s = 0.0;
  bool finished = false;
};

// RunMetrics: one finished traversal.
struct RunValues {
  int iteration = 0;
  bool success = false;
  double completion_time_s = 0.0;
  int collisions = 0;
  double collisions_per_min = 0.0;
  double mean_velocity = 0.0;
  double exec_time_ratio = 0.0;
  double coverage = 0.0;
  double distance_travelled = 0.0;
};

// Heartbeat of one service instance.
struct HeartbeatValues {
  std::string service;    // instance, e.g. "r1/planner"
  bool stopping = false;  // state Stopping: the service is shutting down
  bool degraded = false;
  int64_t tick = 0;
  double uptime_s = 0.0;
  double loop_time_last_s = 0.0;
  double loop_time_mean_s = 0.0;
  std::vector<uint64_t> loop_time_buckets;  // per bucket of runtime::kLoopTimeBucketsS, plus +Inf
  uint64_t overruns = 0;
  // What the service lost receiving, per topic it receives (issue 23 item 3; docs/protocol.md "Losses").
  struct ReceiveLosses {
    std::string topic;
    uint64_t gap = 0;   // sequence gaps between messages that arrived
    uint64_t tail = 0;  // after the last one that arrived, from the publishers' HighWaterReports
  };
  std::vector<ReceiveLosses> receive_losses;
  // Shared memory (issue 23 item 2; the heartbeat's shm_* counters), present only for a service that asked for it.
  struct SharedMemory {
    bool active = false;  // false once RouDi was lost (or never answered)
    uint64_t sent = 0, received = 0, fallbacks = 0, malformed = 0;
  };
  std::optional<SharedMemory> shm;
};

// The broker's counts for one topic. A topic on the direct data path, which the broker does not carry, has its
// publishers' counts and its receivers' drops summed (docs/protocol.md §13, "Counts"): gap and tail only there.
struct TopicValues {
  std::string topic;
  uint64_t messages = 0;
  uint64_t bytes = 0;
  uint64_t drops_malformed = 0;
  uint64_t drops_wrong_type = 0;
  uint64_t drops_oversize = 0;
  uint64_t drops_gap = 0;
  uint64_t duplicates = 0;
  // Communication faults the broker applied (issue 8).
  uint64_t fault_drops = 0;
  uint64_t fault_delays = 0;
  uint64_t fault_duplicates = 0;
  uint64_t fault_corruptions = 0;
  uint64_t drops_invalid = 0;  // values out of their declared range (issue 15)
  uint64_t drops_tail = 0;     // receivers' tail losses (a direct topic's; docs/protocol.md §12)
};

// BusStats from the broker (1 Hz).
struct BusValues {
  std::vector<TopicValues> topics;
  int subscribers = 0;
  int latched_topics = 0;
};

// FaultCommand: a fault to inject or clear.
struct FaultValues {
  std::string id;
  std::string kind;         // FaultKind name, e.g. "SensorNoise"
  std::string robot;        // "" = every robot
  double delay_s = 0.0;     // from receipt until the fault starts (start_s after the message stamp)
  double duration_s = 0.0;  // 0: until cleared
  bool clear = false;       // clear the fault `id` (all when id is empty)
};

}  // namespace limbic::metrics
