// The adaptive reactive controller with memory (spec reactive-topological §2.8, thesis Ch. 6): the
// case-based controller (§2.4) plus the topological map built on the fly from every scan (§3.2–3.8,
// §3.10) and the planner (§3.9), consulted only when the reactive behaviour fails — at a selection
// point where the matcher would choose Random or Repulsion (A30) the robot plans through the map
// (Eq. 6-1) and runs the map-following case (§3.11) instead.
//
// MapLayer is that map half as one plain object (perception → map → planner → follower) behind the
// CaseOverride hook; MemoryController owns a CaseBasedController with a MapLayer installed.
//
// Pose: the map frame is the odometry frame corrected by self-localisation (§3.7): p_est = odometry +
// offset; a correction from a revisited node adds to the offset (heading is never corrected).
//
// Inputs: SensorFrame per cycle. Outputs: desired heading; the map, plans and their outcomes.
#pragma once

#include <cstdint>
#include <memory>

#include "services/laser_nav/controllers.hpp"
#include "services/laser_topo/perception.hpp"
#include "services/laser_topo/planner.hpp"
#include "services/laser_topo/topo_map.hpp"

namespace limbic::laser {

struct MemoryOptions {
  CbrOptions cbr;
  TopoPerceptionOptions perception;
  TopoMapOptions map;
  PlannerOptions planner;
  MapFollowOptions follow;
  // A29: the map-following case's parameters — Squeezing-like, the goal being the current way-point.
  ControlGains follow_gains{7.0, 3.0, 0.0, 2.5, 250.0, 0.0, 0.0};
  int map_every_cycles = 1;  // the mapper's decimation (§5.3: it may run at 50 Hz); 1 = every scan
  // [A, off by default] Also end the map-following case when the robot has stood still (< 5 cm/s) for 1 s
  // since the case started: a way-point it is pinned short of (the stopping-distance law holds it in front
  // of an obstacle) would otherwise hold it for the whole 30 s of A29.
  bool end_when_stalled = false;
  double stall_speed_cms = 5.0;
  double stall_time_s = 1.0;
};

void ValidateMemoryOptions(const MemoryOptions& options);

struct MapLayerStats {
  int64_t plans = 0;        // paths handed to the map-following case
  int64_t no_path = 0;      // failures with no usable exit (Random/Repulsion as usual)
  int64_t reached = 0;      // map-following ended at the final way-point (exit passed)
  int64_t new_node = 0;     //                      on new territory
  int64_t timeouts = 0;     //                      after 30 s
  int64_t replans = 0;      // off the path: planned again
  int64_t stalled = 0;      //                      standing still for 1 s (end_when_stalled)
  int64_t corrections = 0;  // self-localisation calibrations
  int64_t map_updates = 0;  // scans that updated the map
  int64_t exits_started = 0, exits_reached = 0, exits_abandoned = 0;  // §5.2 ExitAttempt/ExitResult
};

// Where the map layer's CPU time goes (E8), in nanoseconds of the clock the caller hands to MeasureCost (the
// algorithm reads no clock itself: runs stay reproducible); measured only when asked for (a read costs ~25 ns,
// a few per cycle).
struct MapLayerCost {
  int64_t perception_ns = 0;  // Resolve_Obstacles, Find_Features, Classify_Area (§3.2–3.4)
  int64_t mapping_ns = 0;     // Update_Topological_Map with self-localisation (§3.5–3.8)
  int64_t planning_ns = 0;    // SolveMap (Eq. 6-1)
  int64_t following_ns = 0;   // the map-following case: way-points and trajectory optimisation (§3.11)
};

class MapLayer : public CaseOverride {
 public:
  explicit MapLayer(const MemoryOptions& options, TopoMap map = TopoMap{});

  void Observe(const SensorFrame& frame, const EnvironmentInfo& env) override;
  bool TakeOver(const SensorFrame& frame, const EnvironmentInfo& env) override;
  bool Guide(const SensorFrame& frame, const EnvironmentInfo& env, Vec2* waypoint) override;
  ControlGains gains() const override { return options_.follow_gains; }

  const TopoMap& map() const { return map_; }
  TopoMap& mutable_map() { return map_; }
  const MapLayerStats& stats() const { return stats_; }
  const MapFollower& follower() const { return follower_; }
  Vec2 pose_offset() const { return offset_; }
  const MapUpdate& last_update() const { return update_; }
  // `now_ns`: a monotonic clock in nanoseconds (nullptr: no measurement).
  void MeasureCost(int64_t (*now_ns)()) { now_ns_ = now_ns; }
  const MapLayerCost& cost() const { return cost_; }

 private:
  bool Plan(const SensorFrame& frame, const EnvironmentInfo& env);
  // Ends the open exit attempt, if any, with `outcome` (§5.2 ExitResult → exittrys, §3.10).
  void EndAttempt(ExitOutcome outcome);
  // Reports how the map-following case ended; false when it goes on.
  bool Following(MapFollower::Status status);
  Vec2 Pose(const SensorFrame& frame) const { return Vec2{frame.odom.x_cm, frame.odom.y_cm} + offset_; }

  MemoryOptions options_;
  TopoMap map_;
  MapFollower follower_;
  MapUpdate update_;
  Vec2 offset_;
  MapLayerStats stats_;
  int64_t still_cycles_ = 0;                     // since the map-following case (re)started
  int attempt_node_ = -1, attempt_sector_ = -1;  // the exit being attempted (-1: none)
  int64_t (*now_ns_)() = nullptr;
  MapLayerCost cost_;
};

class MemoryController : public HeadingController {
 public:
  // `map`: a map retained from an earlier run (E7); the robot starts relocating in it.
  explicit MemoryController(const MemoryOptions& options, TopoMap map = TopoMap{});
  MemoryController(const MemoryController&) = delete;
  MemoryController& operator=(const MemoryController&) = delete;

  double Step(const SensorFrame& frame) override;
  const CaseBasedController& cbr() const { return *cbr_; }
  const MapLayer& layer() const { return *layer_; }
  void MeasureCost(int64_t (*now_ns)()) { layer_->MeasureCost(now_ns); }

 private:
  std::unique_ptr<MapLayer> layer_;
  std::unique_ptr<CaseBasedController> cbr_;
};

}  // namespace limbic::laser
