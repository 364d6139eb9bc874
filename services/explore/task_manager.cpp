#include "services/explore/task_manager.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

namespace limbic::explore {

std::vector<Award> Auction(const Partition& partition, std::vector<TileStatus>* status,
                           const std::vector<Bidder>& bidders) {
  std::vector<Award> awards;
  std::vector<bool> in_auction(bidders.size(), true);
  for (;;) {
    // The lowest bid over every (bidder, open tile) pair; ties to the earlier bidder, then the lower tile id.
    double best = std::numeric_limits<double>::infinity();
    int best_bidder = -1, best_tile = -1;
    for (size_t b = 0; b < bidders.size(); ++b) {
      if (!in_auction[b]) continue;
      for (size_t t = 0; t < status->size(); ++t) {
        if ((*status)[t] != TileStatus::kOpen) continue;
        const double bid = bidders[b].costs.at(t);
        if (bid < best) {
          best = bid;
          best_bidder = static_cast<int>(b);
          best_tile = static_cast<int>(t);
        }
      }
    }
    if (best_bidder < 0) return awards;
    Award award;
    award.robot = bidders[best_bidder].robot;
    award.anchor = best_tile;
    award.bid = best;
    for (int t : partition.BlockOf(best_tile, bidders[best_bidder].shape)) {
      if ((*status)[t] != TileStatus::kOpen) continue;
      (*status)[t] = TileStatus::kHeld;
      award.tiles.push_back(t);
    }
    awards.push_back(std::move(award));
    in_auction[best_bidder] = false;
  }
}

void Validate(const ManagerOptions& o) {
  auto bad = [](const std::string& field, double v) {
    throw std::invalid_argument("explore task manager: " + field + " out of range (got " + std::to_string(v) + ")");
  };
  if (o.lanes < 1) bad("lanes", o.lanes);
  if (!(o.done_fraction > 0.0 && o.done_fraction <= 1.0)) bad("done_fraction", o.done_fraction);
  if (!(o.waypoint_spacing > 0.0) || !std::isfinite(o.waypoint_spacing)) bad("waypoint_spacing", o.waypoint_spacing);
  if (!(o.knowledge.explored_threshold > 0.0 && o.knowledge.explored_threshold <= 1.0))
    bad("explored_threshold", o.knowledge.explored_threshold);
  if (o.interior_min.hasNaN() || o.interior_max.hasNaN() || !(o.interior_min.x() < o.interior_max.x()) ||
      !(o.interior_min.y() < o.interior_max.y()))
    throw std::invalid_argument("explore task manager: the arena's interior must have min < max in x and y");
  Validate(o.planning);
}

TaskManager::TaskManager(const GridSpec& grid, std::vector<ExplorerProfile> team, const ManagerOptions& options)
    : team_(std::move(team)), options_(options), partition_(Partition::ForTeam(grid, team_, options.lanes)) {
  Validate(options);
  options_.knowledge.occupied_threshold = options.planning.occupancy_threshold;  // one T_o
  for (const auto& p : team_) shapes_.push_back(partition_.ShapeFor(p, options.lanes));
  const size_t tiles = partition_.tiles().size();
  state_.status.assign(tiles, TileStatus::kOpen);
  state_.holder.assign(tiles, -1);
  state_.task.assign(team_.size(), -1);
  state_.held.assign(team_.size(), {});
  state_.awards.assign(team_.size(), 0);
}

int TaskManager::TilesDone() const {
  return static_cast<int>(std::count(state_.status.begin(), state_.status.end(), TileStatus::kDone));
}

void TaskManager::Release(int robot, bool mark_done) {
  for (int t : state_.held[robot]) {
    if (state_.holder[t] != robot) continue;
    state_.holder[t] = -1;
    if (state_.status[t] == TileStatus::kHeld) state_.status[t] = mark_done ? TileStatus::kDone : TileStatus::kOpen;
  }
  state_.held[robot].clear();
  state_.task[robot] = -1;
}

std::optional<ExploreTask> TaskManager::MakeTask(const Award& award, const Vec2& position,
                                                 const mapper::GridMaps& maps) {
  const ExplorerProfile& profile = team_[award.robot];
  int x0 = partition_.grid().width, y0 = partition_.grid().height, x1 = 0, y1 = 0;
  for (int t : award.tiles) {
    const Tile& tile = partition_.tile(t);
    x0 = std::min(x0, tile.x0);
    y0 = std::min(y0, tile.y0);
    x1 = std::max(x1, tile.x1);
    y1 = std::max(y1, tile.y1);
  }
  std::vector<bool> mine(partition_.tiles().size(), false);
  for (int t : award.tiles) mine[t] = true;
  LineScanOptions scan;
  scan.sensing_range = profile.sensing_range;
  scan.knowledge = options_.knowledge;
  scan.end_clearance = options_.lane_ends_clear ? profile.clearance_radius + profile.turning_radius : 0.0;
  if (options_.lane_ends_clear) {
    scan.interior_min = options_.interior_min;
    scan.interior_max = options_.interior_max;
  }
  const auto lanes = Lanes(
      maps, x0, y0, x1, y1, [&](const Cell& c) { return mine[partition_.TileOf(c)]; }, scan);
  const std::vector<Vec2> lane_points = LineScanWaypoints(lanes, position);
  if (lane_points.empty()) return std::nullopt;
  TwoTierOptions planning = options_.planning;
  planning.clearance_radius = profile.clearance_radius;
  const TwoTierPlanner planner(partition_, maps, planning);
  const TwoTierResult approach = planner.Plan(position, lane_points.front());
  if (!approach.success) return std::nullopt;
  ExploreTask task;
  task.robot = award.robot;
  task.task_id = state_.next_task_id++;
  task.environment = award.anchor;
  task.tiles = award.tiles;
  task.waypoints = Waypoints(partition_.grid(), approach.fine.cells, options_.waypoint_spacing);
  if (!task.waypoints.empty()) task.waypoints.pop_back();  // the last one is the first lane end, below
  task.approach = static_cast<int>(task.waypoints.size());
  task.waypoints.insert(task.waypoints.end(), lane_points.begin(), lane_points.end());
  return task;
}

ManagerOutputs TaskManager::Step(const ManagerInputs& in) {
  if (in.maps == nullptr) throw std::invalid_argument("explore task manager: no maps");
  if (!(in.maps->spec == partition_.grid())) throw std::invalid_argument("explore task manager: maps of another grid");
  if (in.reports.size() != team_.size()) {
    throw std::invalid_argument("explore task manager: " + std::to_string(in.reports.size()) + " reports for " +
                                std::to_string(team_.size()) + " explorers");
  }
  if (in.bids != nullptr && in.bids->size() != team_.size())
    throw std::invalid_argument("explore task manager: bids for another team size");
  const mapper::GridMaps& maps = *in.maps;
  ManagerOutputs out;
  // 0. A task id a robot reports is never issued again: the robot ignores a task whose id it already holds (a
  // manager restarted without its predecessor's state would otherwise hand out 1, 2, ... again, and a robot given
  // its current id would keep driving its old lanes while the new environment stayed held for it).
  for (const ExplorerReport& rep : in.reports) {
    if (rep.valid && rep.task_id >= state_.next_task_id) state_.next_task_id = rep.task_id + 1;
  }
  // 1. Tiles explored well enough are done, whoever explored them.
  for (const Tile& t : partition_.tiles()) {
    if (state_.status[t.id] != TileStatus::kDone &&
        ExploredFraction(t, maps, options_.knowledge) >= options_.done_fraction) {
      state_.status[t.id] = TileStatus::kDone;
    }
  }
  // 2. Environments come back: the explorer finished its lanes, or every tile of it is done.
  for (size_t r = 0; r < team_.size(); ++r) {
    if (state_.task[r] < 0) continue;
    const ExplorerReport& rep = in.reports[r];
    const bool finished = rep.valid && rep.task_id == state_.task[r] && rep.task_done;
    bool all_done = true;
    for (int t : state_.held[r]) all_done = all_done && state_.status[t] == TileStatus::kDone;
    if (finished) {
      Release(static_cast<int>(r), /*mark_done=*/true);
    } else if (all_done) {
      ++state_.released_early;
      Release(static_cast<int>(r), /*mark_done=*/true);
    }
  }
  // 3. Idle explorers bid; awards that cannot be reached are marked done and the auction runs again.
  const std::vector<bool> idle = Idle(in.reports);
  const size_t tiles = partition_.tiles().size();
  for (int round = 0; round < static_cast<int>(tiles) + 1; ++round) {
    std::vector<Bidder> bidders;
    std::optional<TwoTierPlanner> coarse;
    for (size_t r = 0; r < team_.size(); ++r) {
      if (!idle[r] || state_.task[r] >= 0) continue;
      if (in.bids != nullptr) {  // the robots bid: only what arrived counts
        const auto& bid = (*in.bids)[r];
        if (bid && bid->size() == tiles) bidders.push_back({static_cast<int>(r), *bid, shapes_[r]});
        continue;
      }
      const int from = partition_.TileAt(in.reports[r].position);
      if (!coarse) coarse.emplace(partition_, maps, options_.planning);
      bidders.push_back({static_cast<int>(r), coarse->CoarseCostsFrom(from), shapes_[r]});
    }
    if (bidders.empty()) break;
    const std::vector<Award> awards = Auction(partition_, &state_.status, bidders);
    if (awards.empty()) break;
    bool retry = false;
    for (const Award& a : awards) {
      std::optional<ExploreTask> task = MakeTask(a, in.reports[a.robot].position, maps);
      if (!task) {
        for (int t : a.tiles) state_.status[t] = TileStatus::kDone;
        state_.unreachable += static_cast<int>(a.tiles.size());
        retry = true;
        continue;
      }
      for (int t : a.tiles) state_.holder[t] = a.robot;
      state_.held[a.robot] = a.tiles;
      state_.task[a.robot] = task->task_id;
      ++state_.allocation_changes;
      ++state_.awards[a.robot];
      out.new_tasks.push_back(std::move(*task));
    }
    if (!retry) break;
  }
  out.finished = TilesDone() == static_cast<int>(partition_.tiles().size());
  return out;
}

std::vector<bool> TaskManager::Idle(const std::vector<ExplorerReport>& reports) const {
  std::vector<bool> idle(team_.size(), false);
  for (size_t r = 0; r < team_.size() && r < reports.size(); ++r) {
    idle[r] = state_.task[r] < 0 && reports[r].valid && partition_.TileAt(reports[r].position) >= 0;
  }
  return idle;
}

BidCall TaskManager::Call(const mapper::GridMaps& maps, int64_t round, int64_t deadline_tick) const {
  BidCall call;
  call.round = round;
  call.deadline_tick = deadline_tick;
  call.grid = partition_.grid();
  call.tile_cells = partition_.tile_cells();
  call.graph = TwoTierPlanner(partition_, maps, options_.planning).Graph();
  return call;
}

Takeover TaskManager::TakeOver(int robot, const PredecessorTask* found, const ExplorerReport& report,
                               ExploreTask* adopted) {
  if (robot < 0 || robot >= static_cast<int>(team_.size()))
    throw std::invalid_argument("explore task manager: no robot " + std::to_string(robot));
  if (!report.valid) return Takeover::kWait;
  if (found == nullptr) return Takeover::kDeclined;
  const PredecessorTask& task = *found;
  state_.next_task_id = std::max({state_.next_task_id, task.task_id + 1, report.task_id + 1});
  state_.allocation_changes = std::max(state_.allocation_changes, task.allocation_changes);
  const int tiles = static_cast<int>(partition_.tiles().size());
  bool usable = task.task_id > 0 && report.task_id == task.task_id && !report.task_done && state_.task[robot] < 0 &&
                !task.tiles.empty() && task.approach >= 0 && task.approach <= static_cast<int>(task.waypoints.size());
  for (int t : task.tiles) usable = usable && t >= 0 && t < tiles && state_.holder[t] < 0;
  if (!usable) return Takeover::kDeclined;
  for (int t : task.tiles) {
    state_.holder[t] = robot;
    if (state_.status[t] == TileStatus::kOpen) state_.status[t] = TileStatus::kHeld;
  }
  state_.held[robot] = task.tiles;
  state_.task[robot] = task.task_id;
  ++state_.adopted;
  if (adopted != nullptr) {
    *adopted = ExploreTask{robot, task.task_id, task.environment, task.tiles, task.waypoints, task.approach};
  }
  return Takeover::kAdopted;
}

WaypointFollower::WaypointFollower(const FollowerOptions& options) : options_(options) {
  if (!(options.tolerance > 0) || !(options.waypoint_timeout_s > 0)) {
    throw std::invalid_argument("explore: waypoint tolerance and timeout must be positive");
  }
}

bool WaypointFollower::Assign(int64_t task_id, std::vector<Vec2> waypoints, double time) {
  if (task_id == task_id_) return false;
  task_id_ = task_id;
  waypoints_ = std::move(waypoints);
  index_ = 0;
  skipped_ = 0;  // per task, like waypoints_done
  since_ = time;
  done_ = false;
  announce_ = true;
  return true;
}

FollowerOutputs WaypointFollower::Step(const Vec2& position, double time) {
  FollowerOutputs out;
  if (task_id_ < 0 || done_) return out;
  bool advanced = announce_;
  out.progress = announce_;  // a new task is reported at once
  announce_ = false;
  while (index_ < static_cast<int>(waypoints_.size())) {
    const bool reached = (waypoints_[index_] - position).norm() < options_.tolerance;
    const bool timed_out = time - since_ >= options_.waypoint_timeout_s;
    if (!reached && !timed_out) break;
    skipped_ += reached ? 0 : 1;
    ++index_;
    since_ = time;
    advanced = true;
    out.progress = true;
  }
  if (index_ >= static_cast<int>(waypoints_.size())) {
    done_ = true;
    out.stop = true;
    out.progress = true;
  } else if (advanced) {
    out.new_goal = waypoints_[index_];
  }
  return out;
}

}  // namespace limbic::explore
