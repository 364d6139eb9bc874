// The map layer split into the processes of spec reactive-topological §5.1 — perception, mapper, planner —
// and the reactive layer's side of it, transport-free (the bus wiring is services/laser_topo/*_wiring.cpp and
// services/laser_nav/wiring.cpp; the messages are §5.2's, messages/laser/topo_*.fbs).
//
//   PerceiveScan   (perception, every scan): Resolve_Obstacles → Find_Features → Classify_Area (§3.2–3.4) and
//                  the goal flags of the environment information (§2.3) Eq. 6-1 needs.
//   TopoMapper     (mapper, every scan): Update_Topological_Map with self-localisation (§3.5–3.8, §3.10), the
//                  exit attempts and results the reactive layer reports (§3.10's two-tries rule), one
//                  TopoMapUpdate per node that changed (§5.2 item 11), and when to send the whole map.
//   MapReplica     (planner): the mapper's map rebuilt from those updates, in sequence; after a missed one it is
//                  not whole until the missing update or the next snapshot arrives.
//   TopoPlanner    (planner, on request): SolveMap (Eq. 6-1, §3.9) from the requested node, on a whole map
//                  only — a request waits while the copy has a hole.
//   RemoteMapLayer (reactive): the case-based controller's CaseOverride fed from the bus — the newest
//                  CurrentNode (cycle k−1's, §5.3) and Paths; at a selection point where the matcher picks
//                  Random or Repulsion (A30) it takes over with a path it already holds for the current node,
//                  else it asks for one and takes over when it arrives. It never waits: without a mapper or
//                  planner it never takes over, and the controller is the case-based controller (§5.3).
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
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
  // Scans between whole-map snapshots (1 s): every change goes out as a TopoMapUpdate at once; the snapshot is
  // for late joiners and for a receiver that missed an update.
  int snapshot_every = 100;
};

// §5.2 item 11: what happened to a node.
enum class MapOp { kCreate = 0, kUpdate = 1, kMergeRevisit = 2 };

// One TopoMapUpdate: the node's fields after the change; `seq` counts updates from 1 without a gap.
struct NodeUpdate {
  uint32_t seq = 0;
  MapOp op = MapOp::kUpdate;
  TopoNode node;
};

void ValidateTopoMapperOptions(const TopoMapperOptions& options);

class TopoMapper {
 public:
  explicit TopoMapper(const TopoMapperOptions& options);

  // One scan's features (PerceiveScan) at odometric position `odom` of cycle `cycle`. The map frame is
  // odometry + offset (§3.7).
  const MapUpdate& Update(const std::vector<Feature>& features, int classified, Vec2 odom, bool goal_in_sight,
                          int64_t cycle);
  // §5.2 ExitAttempt/ExitResult for exit `sector` of `node` (TopoMap::RecordExitAttempt: Started counts a try
  // and applies the two-tries rule of §3.10, Reached takes it back, Abandoned leaves it). False, and nothing
  // changes, for a node or an exit slot the map does not have (a stale or forged message): counted as refused.
  bool RecordAttempt(int node, int sector, ExitOutcome outcome);
  // The nodes that changed since the last call, one update each (§5.2 item 11): new nodes first, then the
  // others, each in id order (so every link names a node the receiver has), numbered on from update_seq().
  // MergeRevisit for a node the robot came back to in this scan, Update for any other change.
  std::vector<NodeUpdate> TakeUpdates();
  // The last update's seq (0: none yet): a snapshot sent after TakeUpdates includes every update up to it.
  uint32_t update_seq() const { return update_seq_; }
  // Whether the whole map should go out now: the first scan, then every `snapshot_every` scans.
  // SnapshotSent() after sending it.
  bool SnapshotDue() const;
  void SnapshotSent();

  const TopoMap& map() const { return map_; }
  TopoMap& mutable_map() { return map_; }
  Vec2 offset() const { return offset_; }
  // §5.2 EstimatedPose: the pose after self-localisation (§3.7), odometry plus every correction so far.
  Vec2 Estimate(Vec2 odom) const { return odom + offset_; }
  int64_t corrections() const { return corrections_; }
  int corrected_node() const { return corrected_node_; }  // the node of the last calibration (-1: none)
  const MapUpdate& last_update() const { return update_; }
  uint32_t version() const { return version_; }
  int64_t attempts_refused() const { return attempts_refused_; }
  // Accepted ExitAttempt messages by state (ExitOutcome's order).
  const std::array<int64_t, 3>& attempts() const { return attempts_; }

 private:
  TopoMapperOptions options_;
  TopoMap map_;
  MapUpdate update_;
  Vec2 offset_;
  int64_t corrections_ = 0;
  int corrected_node_ = -1;
  uint32_t version_ = 0;
  int scans_since_snapshot_ = 0;
  bool first_snapshot_ = true;  // the first scan sends the (empty) map
  int64_t attempts_refused_ = 0;
  std::vector<TopoNode> published_;  // the nodes as the last updates said them
  std::vector<int> revisited_;       // nodes that became current again by a revisit since TakeUpdates
  uint32_t update_seq_ = 0;
  std::array<int64_t, 3> attempts_{};
};

// §5.2 PlanRequest (reactive → planner).
enum class PlanReason { kBehaviourFailing = 0, kOffPath = 1, kNewTerritory = 2, kStartup = 3 };

struct PlanRequestOut {
  uint32_t request_id = 0;
  int current_node = -1;
  Vec2 goal;
  bool goal_in_sight = false;
  PlanReason reason = PlanReason::kBehaviourFailing;
};

// ---- planner ----------------------------------------------------------------------------------------------

// Eq. 6-1 from node `start`; an invalid path (no usable exit) for a start the map does not have.
MapPath PlanForRequest(const TopoMap& map, int start, Vec2 goal, bool goal_in_sight, const PlannerOptions& options);

struct MapReplicaStats {
  int64_t applied = 0;    // updates applied in sequence
  int64_t stale = 0;      // older than the copy (a duplicate, or included in a snapshot already)
  int64_t held = 0;       // arrived after a gap: kept until the missing ones or a snapshot
  int64_t dropped = 0;    // held ones beyond max_held, and held ones a snapshot covered
  int64_t refused = 0;    // in sequence but inconsistent with the copy (a Create that is not the next id, an
                          // Update of a node it does not have, a link to one): the copy waits for a snapshot
  int64_t gaps = 0;       // times the copy lost its wholeness
  int64_t snapshots = 0;  // snapshots taken
};

// The planner's copy of the mapper's map (§5.2 item 11): built from TopoMapUpdates applied strictly in
// sequence, reset by a TopoMapSnapshot. A gap in the sequence makes it not whole — it never plans on a map
// with a hole — until the missing updates arrive (out of order) or a snapshot covers them.
class MapReplica {
 public:
  enum class Result { kApplied, kStale, kHeld, kRefused };
  static constexpr size_t kMaxHeld = 4096;

  Result Apply(const NodeUpdate& update);
  // A snapshot that includes the updates up to `update_seq`. Ignored (false) when the copy is whole and
  // already past it.
  bool Reset(std::vector<TopoNode> nodes, uint32_t update_seq);
  bool whole() const { return held_.empty() && !broken_; }
  const TopoMap& map() const { return map_; }
  uint32_t seq() const { return seq_; }
  const MapReplicaStats& stats() const { return stats_; }

 private:
  bool ApplyInOrder(const NodeUpdate& update);  // false: inconsistent (broken_)
  void Drain();                                 // applies held updates that now follow in sequence

  TopoMap map_;
  uint32_t seq_ = 0;
  std::map<uint32_t, NodeUpdate> held_;
  bool broken_ = false;
  MapReplicaStats stats_;
};

struct PlanAnswer {
  uint32_t request_id = 0;
  int start_node = -1;
  MapPath path;
  uint32_t map_seq = 0;  // the last map update the plan saw
};

// The planner process's logic (§5.1): the replica, the outstanding PlanRequest (a newer one supersedes it),
// and Eq. 6-1 when the map is whole.
class TopoPlanner {
 public:
  explicit TopoPlanner(const PlannerOptions& options) : options_(options) {}
  MapReplica& replica() { return replica_; }
  const MapReplica& replica() const { return replica_; }
  void OnRequest(const PlanRequestOut& request);
  // Once per tick, after the tick's updates: the answer to the outstanding request, or nothing (no request,
  // or the copy has a hole: the request waits for the missing update or a snapshot).
  std::optional<PlanAnswer> Answer();
  int64_t answered() const { return answered_; }
  int64_t no_path() const { return no_path_; }
  int64_t waited() const { return waited_; }  // ticks a request waited for a whole map

 private:
  PlannerOptions options_;
  MapReplica replica_;
  std::optional<PlanRequestOut> request_;
  int64_t answered_ = 0, no_path_ = 0, waited_ = 0;
};

// ---- reactive side ----------------------------------------------------------------------------------------

struct ExitAttemptOut {
  int node = -1;
  int sector = -1;
  ExitOutcome outcome = ExitOutcome::kStarted;
};

struct RemoteMapStats {
  int64_t requests = 0;        // PlanRequests sent
  int64_t plans = 0;           // paths handed to the map-following case
  int64_t no_path = 0;         // answers without a usable exit, or a failure with no current node yet
  int64_t late_takeovers = 0;  // take-overs between selection points (the answer came after the request)
  int64_t stale_paths = 0;     // Paths dropped: not the answer to the outstanding request, or for another node
  int64_t reached = 0, new_node = 0, timeouts = 0, off_path = 0;
  int64_t map_news = 0;                            // CurrentNode messages used
  int64_t exits_reached = 0, exits_abandoned = 0;  // ExitResults sent
};

class RemoteMapLayer : public CaseOverride {
 public:
  explicit RemoteMapLayer(const MemoryOptions& options);

  // Before the controller's step: the mapper's newest CurrentNode when a new one arrived (cycle k−1's).
  void OnCurrentNode(const MapUpdate& update);
  // The mapper's newest EstimatedPose (§5.2, §3.7): `estimate` corrects the odometry reading `odom`. The
  // correction (a constant between calibrations) applies to this cycle's odometry: the map-following case's
  // way-points and reach test (§3.11) use the corrected pose.
  void OnEstimatedPose(Vec2 estimate, Vec2 odom);
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
  // Sends the ExitResult of the open attempt, if any (§5.2).
  void EndAttempt(ExitOutcome outcome);

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
  int attempt_node_ = -1, attempt_sector_ = -1;  // the exit of the open attempt (-1: none; one per exit, §3.10)
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
