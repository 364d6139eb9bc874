// The task manager of heterogeneous exploration (multi-robot spec §1): it holds the team's merged map, allocates
// local environments to explorers by auction, and gives each explorer its task — a two-tier A* approach to the
// environment followed by line-scanning lanes inside it — until every environment is done.
//
// Negotiation rule (the spec says "planners negotiate and allocate"; the rule is ours, README.md): a sequential
// single-item auction. Every idle explorer bids, for every open tile, its coarse-tier travel cost from the tile it
// is in; the lowest bid over all (explorer, tile) pairs wins (ties: lower robot index, then lower tile id), and the
// winner's local environment is the open tiles of its block (ShapeFor: sized to its sensing and processing) around
// that tile. The winner leaves the auction and the rest bid again, until nobody is idle or no tile is open.
// An environment is given back — and its holder bids again — when all its tiles are done (explored to
// done_fraction, by anyone) or the explorer reports its task finished (its lanes driven; what is left is marked
// done). Each award is an allocation change.
//
// Bids come either from the robots over the bus (ManagerInputs::bids: the costs each computed with RobotBidder from
// the manager's Call) or, as before, from the manager itself on their behalf; with the same costs the auction
// awards the same.
//
// Inputs per step: time, the merged maps, each explorer's report (position, task, progress), the bids if any.
// Outputs: new tasks, and whether exploration is finished.
#pragma once

#include <cstdint>
#include <limits>
#include <optional>
#include <vector>

#include "services/explore/line_scan.hpp"
#include "services/explore/local_environments.hpp"
#include "services/explore/two_tier_astar.hpp"

namespace limbic::explore {

enum class TileStatus : uint8_t { kOpen, kHeld, kDone };

// One bidder of the auction: its coarse-tier costs to every tile and its block shape.
struct Bidder {
  int robot = 0;
  std::vector<double> costs;  // per tile; +∞ where unreachable
  BlockShape shape;
};

struct Award {
  int robot = 0;
  int anchor = 0;          // the tile it won
  std::vector<int> tiles;  // its local environment: the open tiles of its block around the anchor
  double bid = 0.0;
};

// The sequential single-item auction above. Awarded tiles become kHeld in `status`. Bidders without a finite bid
// win nothing.
std::vector<Award> Auction(const Partition& partition, std::vector<TileStatus>* status,
                           const std::vector<Bidder>& bidders);

struct ManagerOptions {
  int lanes = 2;                  // lanes of line scanning per environment side (EnvironmentSide)
  double done_fraction = 0.9;     // a tile is done when this fraction of its open cells is explored
  double waypoint_spacing = 2.0;  // m between waypoints of the approach path
  // Lane ends a body's circumscribed radius, plus its turning radius when it cannot turn on the spot, clear of the
  // outer wall and of known obstacles (LineScanOptions::end_clearance). false: ends in the cells nearest the walls
  // (before 2026-11-27; the measured tables of explore_teams and explore_teams_wide were made so, and their definitions
  // keep it).
  bool lane_ends_clear = true;
  // With lane_ends_clear: the arena's free interior (ArenaInterior of the world; LineScanOptions::interior_min/max).
  // Unbounded by default.
  Vec2 interior_min{-std::numeric_limits<double>::infinity(), -std::numeric_limits<double>::infinity()};
  Vec2 interior_max{std::numeric_limits<double>::infinity(), std::numeric_limits<double>::infinity()};
  KnowledgeOptions knowledge;
  TwoTierOptions planning;  // its clearance_radius is replaced by each explorer's own
};
// Throws std::invalid_argument naming the field.
void Validate(const ManagerOptions& options);

// What an explorer last said about itself (ExploreReport).
struct ExplorerReport {
  bool valid = false;  // false: nothing heard yet (it does not bid)
  Vec2 position{0, 0};
  int64_t task_id = -1;
  int waypoints_done = 0;
  bool task_done = false;
};

struct ExploreTask {
  int robot = 0;
  int64_t task_id = 0;
  int environment = -1;    // the anchor tile
  std::vector<int> tiles;  // the local environment
  std::vector<Vec2> waypoints;
  int approach = 0;  // the first `approach` waypoints lead to the environment, the rest are lanes
};

struct ManagerInputs {
  double time = 0.0;
  const mapper::GridMaps* maps = nullptr;  // merged (MergeMaps); required
  std::vector<ExplorerReport> reports;     // one per explorer, in the team's order
  // Bidding by the robots (bidding.hpp): per explorer, the costs it bid in the round just closed (nullopt: no bid,
  // so it is left out of this auction). nullptr: the manager bids on every idle explorer's behalf from its report.
  const std::vector<std::optional<std::vector<double>>>* bids = nullptr;
};

struct ManagerOutputs {
  std::vector<ExploreTask> new_tasks;
  bool finished = false;  // every tile done
};

// What a restarted manager finds of its predecessor (realtime; the wiring reads it from the latched
// `<robot>/explore/task` the killed manager left on the bus): the last task it gave one robot.
struct PredecessorTask {
  int64_t task_id = -1;
  int environment = -1;
  std::vector<int> tiles;
  std::vector<Vec2> waypoints;
  int approach = 0;
  int allocation_changes = 0;  // the predecessor's count when it sent the task
};

// A restarted manager's decision about a robot's predecessor task (TaskManager::TakeOver).
enum class Takeover : uint8_t {
  kWait,      // the robot has not reported yet: decide when it has (it is not idle meanwhile: it bids for nothing)
  kAdopted,   // its report says the task is under way: the manager holds its tiles for it, as its predecessor did
  kDeclined,  // its report says it finished that task or holds another: it is idle and bids like anyone
};

struct ManagerState {
  std::vector<TileStatus> status;
  std::vector<int> holder;             // per tile: the robot holding it (-1)
  std::vector<int64_t> task;           // per robot: its task under way (-1: idle)
  std::vector<std::vector<int>> held;  // per robot: its environment's tiles
  int64_t next_task_id = 1;
  int allocation_changes = 0;  // awards
  int released_early = 0;      // environments given back because others explored them
  int unreachable = 0;         // tiles marked done because no approach path reached them
  int adopted = 0;             // tasks taken over from a predecessor (TakeOver)
  std::vector<int> awards;     // per robot: its awards (allocation_changes by robot, this manager's own)
  bool operator==(const ManagerState&) const = default;
};

class TaskManager {
 public:
  // Throws std::invalid_argument for an empty team or invalid options.
  TaskManager(const GridSpec& grid, std::vector<ExplorerProfile> team, const ManagerOptions& options = {});
  ManagerOutputs Step(const ManagerInputs& in);
  // The explorers that would bid now: no environment held, a report heard, a position inside the grid.
  std::vector<bool> Idle(const std::vector<ExplorerReport>& reports) const;
  // A call for bids over the coarse tier of `maps` (the merged map).
  BidCall Call(const mapper::GridMaps& maps, int64_t round, int64_t deadline_tick) const;

  // A restarted manager takes over (README "The manager killed mid-run"): given the task its predecessor last gave
  // `robot` and the robot's latest report, it adopts the task when the robot reports it under way (same id, not
  // done): the task's tiles that are still open become held by the robot, as before the crash, and nobody else is
  // allocated them. Either way (adopted or declined) task ids continue above the predecessor's and the allocation
  // count from its count. kWait while the robot has not reported. A task whose tiles are not this partition's
  // (another world or configuration) or that another robot holds is declined. `adopted` (may be null) receives the
  // task to send again under this manager (the robot ignores a task id it holds: nothing changes for it).
  // `task` null: none was found (a first start, or the predecessor's was `finished`): kDeclined once it has reported.
  Takeover TakeOver(int robot, const PredecessorTask* task, const ExplorerReport& report, ExploreTask* adopted);

  const Partition& partition() const { return partition_; }
  const std::vector<ExplorerProfile>& team() const { return team_; }
  const std::vector<BlockShape>& shapes() const { return shapes_; }
  const ManagerState& state() const { return state_; }
  int TilesDone() const;

 private:
  void Release(int robot, bool mark_done);
  // The task for an award, or nullopt when the environment cannot be reached.
  std::optional<ExploreTask> MakeTask(const Award& award, const Vec2& position, const mapper::GridMaps& maps);

  std::vector<ExplorerProfile> team_;
  ManagerOptions options_;
  Partition partition_;
  std::vector<BlockShape> shapes_;
  ManagerState state_;
};

// The explorer's side (the mission's explore mode): it drives its task's waypoints one after another, a waypoint
// being reached within `tolerance` of the true position, or skipped after `waypoint_timeout_s`.
struct FollowerOptions {
  double tolerance = 0.6;            // m
  double waypoint_timeout_s = 60.0;  // s per waypoint
};

struct FollowerOutputs {
  std::optional<Vec2> new_goal;  // the waypoint to head for, when it changes
  bool stop = false;             // the task is done: stop (no goal)
  bool progress = false;         // waypoints_done or task_done changed (report it)
};

class WaypointFollower {
 public:
  explicit WaypointFollower(const FollowerOptions& options = {});
  // A new task (a task id already held is ignored). Returns whether it was taken.
  bool Assign(int64_t task_id, std::vector<Vec2> waypoints, double time);
  FollowerOutputs Step(const Vec2& position, double time);

  int64_t task_id() const { return task_id_; }
  int waypoints_done() const { return index_; }
  bool task_done() const { return done_; }
  int skipped() const { return skipped_; }  // of the task under way (≤ waypoints_done)

 private:
  FollowerOptions options_;
  int64_t task_id_ = -1;
  std::vector<Vec2> waypoints_;
  int index_ = 0;
  double since_ = 0.0;
  bool done_ = false;
  bool announce_ = false;
  int skipped_ = 0;
};

}  // namespace limbic::explore
