#include "services/laser_topo/memory_controller.hpp"

#include <cmath>
#include <limits>
#include <stdexcept>

namespace limbic::laser {
namespace {

// Adds the time from construction to destruction, read from `now_ns`, to *sink (nothing when now_ns is null).
class StageTimer {
 public:
  StageTimer(int64_t (*now_ns)(), int64_t* sink) : now_ns_(now_ns), sink_(sink), start_(now_ns ? now_ns() : 0) {}
  ~StageTimer() {
    if (now_ns_) *sink_ += now_ns_() - start_;
  }
  StageTimer(const StageTimer&) = delete;
  StageTimer& operator=(const StageTimer&) = delete;

 private:
  int64_t (*now_ns_)();
  int64_t* sink_;
  int64_t start_;
};

}  // namespace

void ValidateMemoryOptions(const MemoryOptions& o) {
  ValidateCbrOptions(o.cbr);
  ValidateTopoPerceptionOptions(o.perception);
  ValidateTopoMapOptions(o.map);
  if (o.map_every_cycles < 1) throw std::invalid_argument("memory controller: map_every_cycles must be >= 1");
  if (!(o.follow.reach_cm > 0.0 && o.follow.max_time_s > 0.0)) {
    throw std::invalid_argument("memory controller: reach_cm and max_time_s must be > 0");
  }
  const ControlGains& g = o.follow_gains;
  if (!(g.np_s > 0.0 && g.s_cm > 0.0 && g.s_cm <= kMaxRangeCm)) {
    throw std::invalid_argument("memory controller: map-following NP must be > 0 and S in (0, 250]");
  }
}

MapLayer::MapLayer(const MemoryOptions& options, TopoMap map)
    : options_(options), map_(options.map), follower_(options.follow) {
  // A retained map's nodes (E7) under this controller's map options (the map's own were the defaults: options.map
  // — self_localise, max_exit_tries, reached_is_not_a_try — went unused).
  map_.mutable_nodes() = std::move(map.mutable_nodes());
  map_.Relocate();
}

void MapLayer::Observe(const SensorFrame& f, const EnvironmentInfo& env) {
  update_ = MapUpdate{};
  update_.current = map_.current();
  if (f.cycle % options_.map_every_cycles != 0) return;
  // §2.8: Resolve_Obstacles → Find_Features → Classify_Area → Update_Topological_Map.
  std::vector<Feature> features;
  int classified = -1;
  {
    StageTimer timer(now_ns_, &cost_.perception_ns);
    const std::vector<TopoObstacle> obstacles = ResolveObstacles(f.ranges, options_.perception);
    features = FindFeatures(obstacles, options_.perception);
    classified = ClassifyArea(features);
  }
  {
    StageTimer timer(now_ns_, &cost_.mapping_ns);
    update_ = map_.Update(features, classified, Pose(f), env.clear_to_goal || env.senses_goal);
  }
  if (update_.updated) ++stats_.map_updates;
  if (update_.corrected) {
    offset_ = offset_ + update_.correction;
    ++stats_.corrections;
  }
}

bool MapLayer::Plan(const SensorFrame& f, const EnvironmentInfo& env) {
  MapPath path;
  {
    StageTimer timer(now_ns_, &cost_.planning_ns);
    path = SolveMap(map_, map_.current(), f.goal, env.clear_to_goal || env.senses_goal, options_.planner);
  }
  if (!path.valid) {
    ++stats_.no_path;
    EndAttempt(ExitOutcome::kAbandoned);
    return false;
  }
  // An attempt through this exit (exittrys; masked after two by §3.10); a re-plan toward the same exit
  // is the same attempt, one toward another exit gives the previous one up.
  if (!(attempt_node_ == path.exit_node && attempt_sector_ == path.exit_sector)) {
    EndAttempt(ExitOutcome::kAbandoned);
    map_.RecordExitAttempt(path.exit_node, path.exit_sector, ExitOutcome::kStarted);
    attempt_node_ = path.exit_node;
    attempt_sector_ = path.exit_sector;
    ++stats_.exits_started;
  }
  follower_.Start(path, f.time_s);
  ++stats_.plans;
  still_cycles_ = 0;
  return true;
}

void MapLayer::EndAttempt(ExitOutcome outcome) {
  if (attempt_node_ < 0) return;
  map_.RecordExitAttempt(attempt_node_, attempt_sector_, outcome);
  ++(outcome == ExitOutcome::kReached ? stats_.exits_reached : stats_.exits_abandoned);
  attempt_node_ = attempt_sector_ = -1;
}

bool MapLayer::Following(MapFollower::Status status) {
  ExitOutcome outcome = ExitOutcome::kAbandoned;
  if (AttemptOutcome(status, &outcome)) EndAttempt(outcome);
  return CountFollowing(status, &stats_);
}

bool MapLayer::TakeOver(const SensorFrame& f, const EnvironmentInfo& env) {
  EndAttempt(ExitOutcome::kAbandoned);  // a fresh attempt: the previous path's exit is done with
  if (map_.current() < 0) {
    ++stats_.no_path;
    return false;
  }
  follower_.Start(MapPath{}, f.time_s);
  return Plan(f, env);
}

bool MapLayer::Guide(const SensorFrame& f, const EnvironmentInfo& env, Vec2* waypoint) {
  const Vec2 pose = Pose(f);
  still_cycles_ = std::fabs(f.odom.v_cms) < options_.stall_speed_cms ? still_cycles_ + 1 : 0;
  if (options_.end_when_stalled && static_cast<double>(still_cycles_) * kControlPeriodS >= options_.stall_time_s) {
    follower_.Stop();
    ++stats_.stalled;
    EndAttempt(ExitOutcome::kAbandoned);
    return false;
  }
  MapFollower::Status status;
  {
    StageTimer timer(now_ns_, &cost_.following_ns);
    status = follower_.Step(f.ranges, pose, f.time_s, update_);
  }
  if (status == MapFollower::Status::kOffPath) {
    // §3.11: through a node that is not on the path: a new path from here.
    ++stats_.replans;
    if (!Plan(f, env)) return false;
    const MapFollower::Status again = follower_.Step(f.ranges, pose, f.time_s, update_);
    if (again != MapFollower::Status::kFollowing) {
      ExitOutcome outcome = ExitOutcome::kAbandoned;
      if (AttemptOutcome(again, &outcome)) EndAttempt(outcome);
      return false;
    }
  } else if (!Following(status)) {
    return false;
  }
  *waypoint = follower_.target() - offset_;  // map frame → odometry frame
  return true;
}

MemoryController::MemoryController(const MemoryOptions& options, TopoMap map) {
  ValidateMemoryOptions(options);
  layer_ = std::make_unique<MapLayer>(options, std::move(map));
  cbr_ = std::make_unique<CaseBasedController>(options.cbr);
  cbr_->SetOverride(layer_.get());
}

double MemoryController::Step(const SensorFrame& f) {
  if (!Usable(f)) return std::numeric_limits<double>::quiet_NaN();
  return cbr_->Step(f);
}

}  // namespace limbic::laser
