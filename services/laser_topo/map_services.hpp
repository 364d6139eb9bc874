// The map layer split into the processes of spec reactive-topological §5.1 — perception, mapper, planner —
// and the reactive layer's side of it, transport-free (the bus wiring is services/laser_topo/*_wiring.cpp and
// services/laser_nav/wiring.cpp; the messages are §5.2's, messages/laser/topo_*.fbs).
//
//   PerceiveScan   (perception, every scan): Resolve_Obstacles → Find_Features → Classify_Area (§3.2–3.4) and
//                  the goal flags of the environment information (§2.3) Eq. 6-1 needs.
//   TopoMapper     (mapper, every scan): Update_Topological_Map with self-localisation (§3.5–3.8, §3.10), the
//                  exit tries the reactive layer reports (§3.10's two-tries rule), when to send the map.
//   PlanForRequest (planner, on request): SolveMap (Eq. 6-1, §3.9) from the requested node.
//   RemoteMapLayer (reactive): the case-based controller's CaseOverride fed from the bus — the newest
//                  CurrentNode (cycle k−1's, §5.3) and Paths; at a selection point where the matcher picks
//                  Random or Repulsion (A30) it takes over with a path it already holds for the current node,
//                  else it asks for one and takes over when it arrives. It never waits: without a mapper or
//                  planner it never takes over, and the controller is the case-based controller (§5.3).
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "services/laser_nav/controllers.hpp"
#include "services/laser_nav/environment_info.hpp"
#include "services/laser_topo/memory_controller.hpp"
#include "services/laser_topo/perception.hpp"
#include "services/laser_topo/planner.hpp"
#include "services/laser_topo/topo_map.hpp"

namespace limbic::laser {

// ---- perception -------------------------------------------------------------------------------------------

struct PerceivedScan {
  std::vector<TopoObstacle> obstacles;
  std::vector<Feature> features;
  int classified = -1;
  bool goal_in_sight = false;  // Clear-to-goal or Senses-goal
};

// One scan through §3.2–3.4; `env` tracks the environment information across scans (call in cycle order).
PerceivedScan PerceiveScan(const SensorFrame& frame, EnvironmentTracker& env, const TopoPerceptionOptions& options);

// ---- mapper -----------------------------------------------------------------------------------------------

struct TopoMapperOptions {
  TopoMapOptions map;
  int map_every_cycles = 1;  // §5.3: the mapper may run at 50 Hz (2)
  int snapshot_every = 10;   // scans between map snapshots when nothing structural changed (10 Hz)
};

void ValidateTopoMapperOptions(const TopoMapperOptions& options);

class TopoMapper {
 public:
  explicit TopoMapper(const TopoMapperOptions& options);

  // One scan's features (PerceiveScan) at odometric position `odom` of cycle `cycle`. The map frame is
  // odometry + offset (§3.7).
  const MapUpdate& Update(const std::vector<Feature>& features, int classified, Vec2 odom, bool goal_in_sight,
                          int64_t cycle);
  // §5.2 ExitAttempt (Started): one more try through exit `sector` of `node`, and the two-tries rule (§3.10).
  // False, and nothing changes, for a node or an exit slot the map does not have (a stale or forged message).
  bool CountAttempt(int node, int sector);
  // Whether the map should go out now: a node was created or became current, a try was counted, or
  // `snapshot_every` scans passed since the last snapshot. SnapshotSent() after sending it.
  bool SnapshotDue() const;
  void SnapshotSent();

  const TopoMap& map() const { return map_; }
  TopoMap& mutable_map() { return map_; }
  Vec2 offset() const { return offset_; }
  const MapUpdate& last_update() const { return update_; }
  uint32_t version() const { return version_; }
  int64_t attempts_refused() const { return attempts_refused_; }

 private:
  TopoMapperOptions options_;
  TopoMap map_;
  MapUpdate update_;
  Vec2 offset_;
  uint32_t version_ = 0;
  int scans_since_snapshot_ = 0;
  bool structural_change_ = true;  // the first scan sends the (empty) map
  int64_t attempts_refused_ = 0;
};

// ---- planner ----------------------------------------------------------------------------------------------

// Eq. 6-1 from node `start`; an invalid path (no usable exit) for a start the map does not have.
MapPath PlanForRequest(const TopoMap& map, int start, Vec2 goal, bool goal_in_sight, const PlannerOptions& options);

// ---- reactive side ----------------------------------------------------------------------------------------

enum class PlanReason { kBehaviourFailing = 0, kOffPath = 1, kNewTerritory = 2, kStartup = 3 };

struct PlanRequestOut {
  uint32_t request_id = 0;
  int current_node = -1;
  Vec2 goal;
  bool goal_in_sight = false;
  PlanReason reason = PlanReason::kBehaviourFailing;
};

struct ExitAttemptOut {
  int node = -1;
  int sector = -1;
};

struct RemoteMapStats {
  int64_t requests = 0;        // PlanRequests sent
  int64_t plans = 0;           // paths handed to the map-following case
  int64_t no_path = 0;         // answers without a usable exit, or a failure with no current node yet
  int64_t late_takeovers = 0;  // take-overs between selection points (the answer came after the request)
  int64_t stale_paths = 0;     // Paths dropped: not the answer to the outstanding request, or for another node
  int64_t reached = 0, new_node = 0, timeouts = 0, off_path = 0;
  int64_t map_news = 0;  // CurrentNode messages used
};

class RemoteMapLayer : public CaseOverride {
 public:
  explicit RemoteMapLayer(const MemoryOptions& options);

  // Before the controller's step: the mapper's newest CurrentNode when a new one arrived (cycle k−1's).
  void OnCurrentNode(const MapUpdate& update, Vec2 offset);
  // A Path arrived (map frame). False when it answers no outstanding request (dropped, counted).
  bool OnPath(uint32_t request_id, int start_node, const MapPath& path);
  // After the controller's step: what to send (and forget).
  std::vector<PlanRequestOut> TakeRequests();
  std::vector<ExitAttemptOut> TakeAttempts();

  void Observe(const SensorFrame& frame, const EnvironmentInfo& env) override;
  bool TakeOver(const SensorFrame& frame, const EnvironmentInfo& env) override;
  bool TakeOverBetweenSelections(const SensorFrame& frame, const EnvironmentInfo& env) override;
  bool Guide(const SensorFrame& frame, const EnvironmentInfo& env, Vec2* waypoint) override;
  ControlGains gains() const override { return options_.follow_gains; }

  const RemoteMapStats& stats() const { return stats_; }
  int current_node() const { return current_; }
  bool following() const { return follower_.active(); }

 private:
  void Request(const SensorFrame& frame, const EnvironmentInfo& env, PlanReason reason);
  bool Start(const SensorFrame& frame);

  MemoryOptions options_;
  MapFollower follower_;
  MapUpdate news_;  // the newest CurrentNode not yet seen by a step
  bool have_news_ = false;
  MapUpdate update_;  // what this cycle's step sees (news once, then "no change")
  int current_ = -1;
  Vec2 offset_;
  uint32_t next_request_id_ = 1;
  uint32_t outstanding_ = 0;  // the request a Path must answer (0: none)
  bool answer_ready_ = false;
  int answer_start_ = -1;
  MapPath answer_;
  MapPath following_;  // the path being followed (its exit: one attempt per exit, §3.10)
  std::vector<PlanRequestOut> requests_;
  std::vector<ExitAttemptOut> attempts_;
  RemoteMapStats stats_;
};

// The controller with memory whose map layer is across the bus: a case-based controller with a
// RemoteMapLayer installed.
class RemoteMemoryController : public HeadingController {
 public:
  explicit RemoteMemoryController(const MemoryOptions& options);
  RemoteMemoryController(const RemoteMemoryController&) = delete;
  RemoteMemoryController& operator=(const RemoteMemoryController&) = delete;

  double Step(const SensorFrame& frame) override;
  CaseBasedController& cbr() { return *cbr_; }
  RemoteMapLayer& layer() { return *layer_; }

 private:
  std::unique_ptr<RemoteMapLayer> layer_;
  std::unique_ptr<CaseBasedController> cbr_;
};

}  // namespace limbic::laser
