#include "services/laser_topo/map_services.hpp"

#include <algorithm>
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
  if (update_.corrected) {
    offset_ = offset_ + update_.correction;
    ++corrections_;
    corrected_node_ = update_.current;
  }
  if (update_.revisit) revisited_.push_back(update_.current);
  return update_;
}

std::vector<NodeUpdate> TopoMapper::TakeUpdates() {
  // Compared with what the last updates said, so no change can go unsent (a counted try, a mask, a link
  // added at the old node when a new one is made, the statistics of the current node every scan).
  std::vector<NodeUpdate> out;
  const std::vector<TopoNode>& nodes = map_.nodes();
  for (size_t i = published_.size(); i < nodes.size(); ++i) out.push_back({++update_seq_, MapOp::kCreate, nodes[i]});
  for (size_t i = 0; i < published_.size(); ++i) {
    if (nodes[i] == published_[i]) continue;
    const bool revisit = std::find(revisited_.begin(), revisited_.end(), static_cast<int>(i)) != revisited_.end();
    out.push_back({++update_seq_, revisit ? MapOp::kMergeRevisit : MapOp::kUpdate, nodes[i]});
  }
  published_ = nodes;
  revisited_.clear();
  return out;
}

bool TopoMapper::RecordAttempt(int node, int sector, ExitOutcome outcome) {
  if (!map_.RecordExitAttempt(node, sector, outcome)) {
    ++attempts_refused_;
    return false;
  }
  ++attempts_[static_cast<size_t>(outcome)];
  return true;
}

bool TopoMapper::SnapshotDue() const { return first_snapshot_ || scans_since_snapshot_ >= options_.snapshot_every; }

void TopoMapper::SnapshotSent() {
  ++version_;
  scans_since_snapshot_ = 0;
  first_snapshot_ = false;
}

MapPath PlanForRequest(const TopoMap& map, int start, Vec2 goal, bool goal_in_sight, const PlannerOptions& options) {
  if (start < 0 || start >= static_cast<int>(map.nodes().size())) return MapPath{};
  return SolveMap(map, start, goal, goal_in_sight, options);
}

MapReplica::Result MapReplica::Apply(const NodeUpdate& u) {
  if (u.seq <= seq_ || held_.count(u.seq)) {
    ++stats_.stale;
    return Result::kStale;
  }
  if (u.seq != seq_ + 1 || broken_) {
    // A gap (or the copy already waits for a snapshot): keep it for when the sequence is whole again.
    if (whole()) ++stats_.gaps;
    if (held_.size() >= kMaxHeld) {
      ++stats_.dropped;
    } else {
      held_.emplace(u.seq, u);
      ++stats_.held;
    }
    return Result::kHeld;
  }
  if (!ApplyInOrder(u)) return Result::kRefused;
  Drain();
  return Result::kApplied;
}

bool MapReplica::ApplyInOrder(const NodeUpdate& u) {
  auto& nodes = map_.mutable_nodes();
  const int size = static_cast<int>(nodes.size());
  const int id = u.node.id;
  bool ok = u.op == MapOp::kCreate ? id == size : id >= 0 && id < size;
  const int after = u.op == MapOp::kCreate ? size + 1 : size;
  for (const NodeLink& l : u.node.links) ok = ok && l.to >= 0 && l.to < after && l.to != id;
  if (!ok) {
    ++stats_.refused;
    if (whole()) ++stats_.gaps;
    broken_ = true;
    return false;
  }
  if (u.op == MapOp::kCreate) {
    nodes.push_back(u.node);
  } else {
    nodes[id] = u.node;
  }
  seq_ = u.seq;
  ++stats_.applied;
  return true;
}

void MapReplica::Drain() {
  while (!broken_ && !held_.empty() && held_.begin()->first == seq_ + 1) {
    const NodeUpdate next = std::move(held_.begin()->second);
    held_.erase(held_.begin());
    ApplyInOrder(next);
  }
}

bool MapReplica::Reset(std::vector<TopoNode> nodes, uint32_t update_seq) {
  if (whole() && update_seq < seq_) return false;
  map_.mutable_nodes() = std::move(nodes);
  seq_ = update_seq;
  broken_ = false;
  while (!held_.empty() && held_.begin()->first <= seq_) {
    held_.erase(held_.begin());
    ++stats_.dropped;
  }
  ++stats_.snapshots;
  Drain();
  return true;
}

void TopoPlanner::OnRequest(const PlanRequestOut& request) { request_ = request; }

std::optional<PlanAnswer> TopoPlanner::Answer() {
  if (!request_) return std::nullopt;
  if (!replica_.whole()) {
    ++waited_;
    return std::nullopt;
  }
  PlanAnswer a;
  a.request_id = request_->request_id;
  a.start_node = request_->current_node;
  a.path = PlanForRequest(replica_.map(), request_->current_node, request_->goal, request_->goal_in_sight, options_);
  a.map_seq = replica_.seq();
  request_.reset();
  ++answered_;
  if (!a.path.valid) ++no_path_;
  return a;
}

RemoteMapLayer::RemoteMapLayer(const MemoryOptions& options) : options_(options), follower_(options.follow) {}

void RemoteMapLayer::OnCurrentNode(const MapUpdate& update) {
  news_ = update;
  have_news_ = true;
  ++stats_.map_news;
}

void RemoteMapLayer::OnEstimatedPose(Vec2 estimate, Vec2 odom) { offset_ = estimate - odom; }

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
    EndAttempt(ExitOutcome::kAbandoned);
    return false;
  }
  if (answer_start_ != current_) {  // planned from a node the robot has left since
    ++stats_.stale_paths;
    return false;
  }
  // One attempt per exit (exittrys, §3.10): the mapper counts it; a re-plan toward the same exit is the same one,
  // one toward another exit gives the previous one up.
  if (!(attempt_node_ == answer_.exit_node && attempt_sector_ == answer_.exit_sector)) {
    EndAttempt(ExitOutcome::kAbandoned);
    attempts_.push_back({answer_.exit_node, answer_.exit_sector, ExitOutcome::kStarted});
    attempt_node_ = answer_.exit_node;
    attempt_sector_ = answer_.exit_sector;
  }
  follower_.Start(answer_, f.time_s);
  ++stats_.plans;
  return true;
}

void RemoteMapLayer::EndAttempt(ExitOutcome outcome) {
  if (attempt_node_ < 0) return;
  attempts_.push_back({attempt_node_, attempt_sector_, outcome});
  ++(outcome == ExitOutcome::kReached ? stats_.exits_reached : stats_.exits_abandoned);
  attempt_node_ = attempt_sector_ = -1;
}

bool RemoteMapLayer::TakeOver(const SensorFrame& f, const EnvironmentInfo& env) {
  EndAttempt(ExitOutcome::kAbandoned);  // a fresh attempt: the previous path's exit is done with
  if (current_ < 0) {                   // no map (yet, or no mapper): the reactive behaviour goes on
    ++stats_.no_path;
    return false;
  }
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
  ExitOutcome outcome = ExitOutcome::kAbandoned;
  if (AttemptOutcome(status, &outcome)) EndAttempt(outcome);
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
