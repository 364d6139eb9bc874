#include "services/laser_topo/map_services.hpp"

#include <cmath>
#include <limits>
#include <stdexcept>
#include <utility>

namespace limbic::laser {

PerceivedScan PerceiveScan(const SensorFrame& f, EnvironmentTracker& env, const TopoPerceptionOptions& options) {
  PerceivedScan out;
  const EnvironmentInfo& info = env.Update(f);
  out.goal_in_sight = info.clear_to_goal || info.senses_goal;
  out.obstacles = ResolveObstacles(f.ranges, options);
  out.features = FindFeatures(out.obstacles, options);
  out.classified = ClassifyArea(out.features);
  return out;
}

void ValidateTopoMapperOptions(const TopoMapperOptions& o) {
  ValidateTopoMapOptions(o.map);
  if (o.map_every_cycles < 1) throw std::invalid_argument("mapper: map_every_cycles must be >= 1");
  if (o.snapshot_every < 1) throw std::invalid_argument("mapper: snapshot_every must be >= 1");
}

TopoMapper::TopoMapper(const TopoMapperOptions& options) : options_(options), map_(options.map) {
  ValidateTopoMapperOptions(options);
}

const MapUpdate& TopoMapper::Update(const std::vector<Feature>& features, int classified, Vec2 odom, bool goal_in_sight,
                                    int64_t cycle) {
  // As MapLayer::Observe (memory_controller.cpp), with the features from the perception process.
  update_ = MapUpdate{};
  update_.current = map_.current();
  ++scans_since_snapshot_;
  if (cycle % options_.map_every_cycles != 0) return update_;
  update_ = map_.Update(features, classified, odom + offset_, goal_in_sight);
  if (update_.corrected) offset_ = offset_ + update_.correction;
  if (update_.created || update_.changed) structural_change_ = true;
  return update_;
}

bool TopoMapper::CountAttempt(int node, int sector) {
  if (node < 0 || node >= static_cast<int>(map_.nodes().size()) || sector < 0 || sector >= 8 ||
      !map_.nodes()[node].exits[sector].filled) {
    ++attempts_refused_;
    return false;
  }
  ++map_.mutable_nodes()[node].exits[sector].tries;
  map_.MaskExits(node);  // §3.10: masked after two tries
  structural_change_ = true;
  return true;
}

bool TopoMapper::SnapshotDue() const { return structural_change_ || scans_since_snapshot_ >= options_.snapshot_every; }

void TopoMapper::SnapshotSent() {
  ++version_;
  scans_since_snapshot_ = 0;
  structural_change_ = false;
}

MapPath PlanForRequest(const TopoMap& map, int start, Vec2 goal, bool goal_in_sight, const PlannerOptions& options) {
  if (start < 0 || start >= static_cast<int>(map.nodes().size())) return MapPath{};
  return SolveMap(map, start, goal, goal_in_sight, options);
}

RemoteMapLayer::RemoteMapLayer(const MemoryOptions& options) : options_(options), follower_(options.follow) {}

void RemoteMapLayer::OnCurrentNode(const MapUpdate& update, Vec2 offset) {
  news_ = update;
  have_news_ = true;
  offset_ = offset;
  ++stats_.map_news;
}

bool RemoteMapLayer::OnPath(uint32_t request_id, int start_node, const MapPath& path) {
  if (outstanding_ == 0 || request_id != outstanding_) {
    ++stats_.stale_paths;
    return false;
  }
  outstanding_ = 0;
  answer_ready_ = true;
  answer_start_ = start_node;
  answer_ = path;
  return true;
}

std::vector<PlanRequestOut> RemoteMapLayer::TakeRequests() { return std::exchange(requests_, {}); }
std::vector<ExitAttemptOut> RemoteMapLayer::TakeAttempts() { return std::exchange(attempts_, {}); }

void RemoteMapLayer::Observe(const SensorFrame&, const EnvironmentInfo&) {
  // Each CurrentNode is seen by one step: the follower reacts to "created" or "changed" once.
  if (have_news_) {
    update_ = news_;
    have_news_ = false;
  } else {
    update_ = MapUpdate{};
    update_.current = current_;
  }
  current_ = update_.current;
}

void RemoteMapLayer::Request(const SensorFrame& f, const EnvironmentInfo& env, PlanReason reason) {
  PlanRequestOut r;
  r.request_id = next_request_id_++;
  r.current_node = current_;
  r.goal = f.goal;
  r.goal_in_sight = env.clear_to_goal || env.senses_goal;
  r.reason = reason;
  requests_.push_back(r);
  outstanding_ = r.request_id;  // a newer request supersedes an unanswered one
  answer_ready_ = false;
  ++stats_.requests;
}

bool RemoteMapLayer::Start(const SensorFrame& f) {
  answer_ready_ = false;
  if (!answer_.valid) {
    ++stats_.no_path;
    return false;
  }
  if (answer_start_ != current_) {  // planned from a node the robot has left since
    ++stats_.stale_paths;
    return false;
  }
  // One attempt per exit (exittrys, §3.10): the mapper counts it; a re-plan toward the same exit is the same one.
  if (!(following_.valid && following_.exit_node == answer_.exit_node &&
        following_.exit_sector == answer_.exit_sector)) {
    attempts_.push_back({answer_.exit_node, answer_.exit_sector});
  }
  following_ = answer_;
  follower_.Start(answer_, f.time_s);
  ++stats_.plans;
  return true;
}

bool RemoteMapLayer::TakeOver(const SensorFrame& f, const EnvironmentInfo& env) {
  if (current_ < 0) {  // no map (yet, or no mapper): the reactive behaviour goes on
    ++stats_.no_path;
    return false;
  }
  following_ = MapPath{};  // a fresh attempt: forget the previous path's exit (as MapLayer::TakeOver)
  if (answer_ready_ && answer_start_ == current_) return Start(f);
  Request(f, env, PlanReason::kBehaviourFailing);
  return false;
}

bool RemoteMapLayer::TakeOverBetweenSelections(const SensorFrame& f, const EnvironmentInfo&) {
  if (!answer_ready_) return false;
  if (!Start(f)) return false;
  ++stats_.late_takeovers;
  return true;
}

bool RemoteMapLayer::Guide(const SensorFrame& f, const EnvironmentInfo& env, Vec2* waypoint) {
  if (!follower_.active()) return false;
  const Vec2 pose = Vec2{f.odom.x_cm, f.odom.y_cm} + offset_;
  const MapFollower::Status status = follower_.Step(f.ranges, pose, f.time_s, update_);
  if (status == MapFollower::Status::kOffPath) {
    // §3.11: through a node not on the path: plan again from here. The answer comes cycles later, so
    // the case hands back now and takes over again when it arrives.
    ++stats_.off_path;
    follower_.Stop();
    Request(f, env, PlanReason::kOffPath);
    return false;
  }
  if (!CountFollowing(status, &stats_)) return false;
  *waypoint = follower_.target() - offset_;  // map frame → odometry frame
  return true;
}

RemoteMemoryController::RemoteMemoryController(const MemoryOptions& options) {
  ValidateMemoryOptions(options);
  layer_ = std::make_unique<RemoteMapLayer>(options);
  cbr_ = std::make_unique<CaseBasedController>(options.cbr);
  cbr_->SetOverride(layer_.get());
}

double RemoteMemoryController::Step(const SensorFrame& f) {
  if (!Usable(f)) return std::numeric_limits<double>::quiet_NaN();
  return cbr_->Step(f);
}

}  // namespace limbic::laser
