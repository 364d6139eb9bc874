// The mission's explore mode (issue 18), without the bus: the waypoint follower and what the mission does around
// it. The manager's `finished` stops the robot once and for good (an inactive goal where it stands; a lockstep run
// ends there); every goal gets a fresh instruction id; a report goes out when something changed and otherwise
// every `report_every` ticks. Arrival is judged on the true position (the simulator's: what was explored is the
// truth's business); the report carries the robot's own estimate (odometry), which is what a robot could tell.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "services/explore/task_manager.hpp"

namespace limbic::explore {

// The latest task from the manager (`<robot>/explore/task`).
struct ExplorerTask {
  bool finished = false;  // the exploration is over
  int64_t task_id = -1;   // ≤ 0: none yet
  int environment = -1;
  std::vector<Vec2> waypoints;
};

struct ExplorerGoal {
  bool active = false;          // false: stop (no goal)
  Vec2 target{0, 0};            // the waypoint, or where the robot stands when inactive
  int64_t instruction_id = -1;  // fresh per active goal; -1 inactive
  double distance = 0.0;        // m from the true position to the target
};

// What the explorer reports (`<robot>/explore/report`); the manager reads it as an ExplorerReport.
struct ExplorerProgress {
  Vec2 position{0, 0};  // the estimate (odometry), the truth when there is none yet
  int64_t task_id = -1;
  int waypoints_done = 0;
  int skipped = 0;
  bool task_done = false;
};

struct ExplorerOutputs {
  std::optional<ExplorerGoal> goal;        // publish (latched) when set
  std::optional<ExplorerProgress> report;  // publish when set
  bool finished_now = false;               // the manager said finished this tick: stop (and end a lockstep run)
  bool task_taken = false;                 // a new task was taken this tick (log it)
};

class Explorer {
 public:
  // Throws std::invalid_argument for invalid follower options or report_every < 1.
  Explorer(const FollowerOptions& follow, int report_every);

  // One tick: the latest task (nullopt: none received), the true position and the odometry estimate (nullopt: none).
  ExplorerOutputs Step(int64_t tick, double time, const std::optional<ExplorerTask>& task, const Vec2& truth,
                       const std::optional<Vec2>& estimate);

  const WaypointFollower& follower() const { return follower_; }
  bool finished() const { return finished_; }

 private:
  WaypointFollower follower_;
  int report_every_;
  int64_t instruction_ = 0;
  bool finished_ = false;
  int64_t last_report_tick_ = 0;
  bool reported_ = false;
};

}  // namespace limbic::explore
