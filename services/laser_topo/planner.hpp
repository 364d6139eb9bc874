// Path planning through the topological map and the map-following case (spec reactive-topological
// §3.9, §3.11, thesis Ch. 6).
//   SolveMap (Eq. 6-1): a flood (Dijkstra) from the current node over links of cost 1 + linkrange; for
//     every reached node n and every usable exit k
//       W = LW(n) + goal_range(n) + 100·int(angdiff(goal_bearing(n), exit_bearing_k) / 22.5) + gis(n),
//     gis = −300 when the goal is in sight (n current and Clear-to-goal/Senses-goal now, or n.goal_seen);
//     the lowest W wins: path = node middles current → n, the exit's gap midpoint, a pass-through point
//     50 cm beyond (A28, §3.9 [A]).
//   MapFollower (§3.11, A29): temporary goals along the path; a way-point is reached within 20 cm or
//     when its node is current; trajectory optimisation drives straight to the furthest way-point the
//     laser shows a clear line to; the case ends at the final way-point, on a new node, or after 30 s;
//     entering a known node off the path asks for a new plan.
#pragma once

#include <vector>

#include "services/laser_sim/laser_types.hpp"
#include "services/laser_topo/topo_map.hpp"

namespace limbic::laser {

struct PlannerOptions {
  double link_cost = 1.0;         // [T] 1 per link
  double sector_penalty = 100.0;  // [T] 100 per 22.5°
  double sector_deg = 22.5;       // [T]
  double goal_in_sight = -300.0;  // [T]
  double usable_prob = 10.0;      // [A] A27
  double pass_through_cm = 50.0;  // [A]
  int max_waypoints = 200;        // [T]
};

struct Waypoint {
  int node = -1;  // −1: the exit's gap or the pass-through point
  Vec2 position;  // map frame
};

struct MapPath {
  bool valid = false;  // false: no usable exit anywhere (fall back to Random)
  std::vector<Waypoint> waypoints;
  int exit_node = -1;
  int exit_sector = -1;
  double weight = 0.0;
};

// Eq. 6-1 over the map from `start`; `goal_in_sight_now` is Clear-to-goal or Senses-goal this cycle.
MapPath SolveMap(const TopoMap& map, int start, Vec2 goal, bool goal_in_sight_now, const PlannerOptions& options = {});

struct MapFollowOptions {
  double reach_cm = 20.0;        // [A] A29
  double max_time_s = 30.0;      // [A] A29
  bool robust_clearance = true;  // [A] §3.11: every beam within ±atan(15 / range) must clear
  double half_width_cm = 15.0;   // the robot's radius
};

class MapFollower {
 public:
  enum class Status { kFollowing, kReached, kNewNode, kTimeout, kOffPath, kIdle };

  explicit MapFollower(const MapFollowOptions& options = {}) : options_(options) {}
  void Start(const MapPath& path, double time_s);
  void Stop() { active_ = false; }
  bool active() const { return active_; }
  // One cycle: advances past reached way-points, optimises the trajectory against the scan, and says
  // whether the case goes on. `pose` in the map frame.
  Status Step(const RangeScan& scan, Vec2 pose, double time_s, const MapUpdate& update);
  Vec2 target() const { return path_.waypoints[target_].position; }
  int target_index() const { return target_; }
  const MapPath& path() const { return path_; }
  // Way-points skipped by the trajectory optimisation so far.
  int skipped() const { return skipped_; }

 private:
  bool Clear(const RangeScan& scan, Vec2 pose, Vec2 point) const;

  MapFollowOptions options_;
  MapPath path_;
  int target_ = 0;
  double started_s_ = 0.0;
  bool active_ = false;
  int skipped_ = 0;
};

// Counts how a map-following case ended (reached its last way-point, came onto a new node, ran out of time) in
// `stats`, for both map layers (in process and across the bus); kFollowing and kOffPath are the caller's to
// handle. Returns true while still following.
template <typename Stats>
bool CountFollowing(MapFollower::Status status, Stats* stats) {
  switch (status) {
    case MapFollower::Status::kFollowing:
      return true;
    case MapFollower::Status::kReached:
      ++stats->reached;
      break;
    case MapFollower::Status::kNewNode:
      ++stats->new_node;
      break;
    case MapFollower::Status::kTimeout:
      ++stats->timeouts;
      break;
    case MapFollower::Status::kOffPath:
    case MapFollower::Status::kIdle:
      break;
  }
  return false;
}

// How a map-following case's end reads as §5.2's ExitResult for the exit it was heading for: Reached when it
// got to the final way-point (the pass-through point beyond the exit's gap, §3.9), Abandoned when it ended on
// a new node short of it or ran out of time. False for a case still following, off its path (a re-plan decides
// whether the attempt goes on) or idle.
inline bool AttemptOutcome(MapFollower::Status status, ExitOutcome* outcome) {
  switch (status) {
    case MapFollower::Status::kReached:
      *outcome = ExitOutcome::kReached;
      return true;
    case MapFollower::Status::kNewNode:
    case MapFollower::Status::kTimeout:
      *outcome = ExitOutcome::kAbandoned;
      return true;
    case MapFollower::Status::kFollowing:
    case MapFollower::Status::kOffPath:
    case MapFollower::Status::kIdle:
      break;
  }
  return false;
}

}  // namespace limbic::laser
