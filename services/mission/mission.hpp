// The navigation task (§3.5, §6.1): traversals back and forth between start and goal, arrival and
// timeout detection, and the metrics of each traversal.
//
// Inputs per tick: simulated time, the TRUE pose and speed (mission may read ground truth), whether a
// new collision event started, map coverage, and the compute time of control and affect this tick.
// Outputs: the goal when it changes, and a metrics row when a traversal ends.
#pragma once

#include <cstdint>
#include <optional>

#include "common/geometry/geometry.hpp"
#include "common/types/navigation.hpp"

namespace limbic::mission {

struct MissionOptions {
  int iterations = 9;            // traversals per run; 0 = back and forth until stopped
  double goal_tolerance = 0.35;  // arrival when the true distance to the goal is below this (§8 item 12)
  double timeout_s = 600.0;      // per traversal; a timeout counts as failure with 600 s (§6.1)
};

struct MissionInputs {
  double time = 0.0;  // simulated time (s)
  double dt = 0.1;    // control period (s)
  geometry::Pose2 true_pose;
  double true_speed = 0.0;      // m/s
  bool new_collision = false;   // a contact event started this tick (§8 item 15)
  double coverage = 0.0;        // cumulative over the run (§8 items 9, 13)
  double compute_time_s = 0.0;  // control + affect compute time this tick (§8 item 14)
};

struct TraversalMetrics {
  int iteration = 0;               // 1-based
  double completion_time_s = 0.0;  // timeout_s on failure
  bool success = false;
  int collisions = 0;
  double collisions_per_min = 0.0;
  double mean_velocity = 0.0;    // mean true linear speed (m/s)
  double exec_time_ratio = 0.0;  // compute time / simulated time
  double coverage = 0.0;
  double distance_travelled = 0.0;  // m
  bool run_finished = false;        // the last traversal of the run
};

struct MissionOutputs {
  std::optional<NavigationGoal> new_goal;  // set when the instruction changes
  std::optional<TraversalMetrics> finished;
  bool active = false;  // a traversal is under way
  double distance_to_goal = 0.0;
};

struct MissionState {
  int iteration = 0;  // current traversal (0 before the first)
  bool done = false;
  NavigationGoal goal;
  double started_at = 0.0;
  int collisions = 0;
  double speed_sum = 0.0;
  int64_t samples = 0;
  double compute_s = 0.0;
  double distance = 0.0;
  bool operator==(const MissionState&) const = default;
};

class MissionTracker {
 public:
  MissionTracker(MissionOptions options, geometry::Vec2 start, geometry::Vec2 goal);
  MissionOutputs Step(const MissionInputs& in);
  const MissionState& state() const { return state_; }
  const MissionOptions& options() const { return options_; }
  // A live change (issue 15); throws std::invalid_argument as the constructor does. Takes effect at once:
  // the traversal under way is judged by the new tolerance and timeout, and ends the run if it is now the
  // last one.
  void SetOptions(const MissionOptions& options);
  // A restarted mission carries on from the state its predecessor published (issue 15 finding 9): the
  // traversal under way keeps its number and running sums, and started `elapsed_s` before `now_s`
  // (elapsed in the predecessor plus the time it was down), so it is neither numbered from 1 again nor
  // counted complete on the strength of its second half. Throws std::invalid_argument for a state that
  // cannot be resumed (negative counts, non-finite sums, elapsed < 0).
  void Resume(const MissionState& saved, double elapsed_s, double now_s);

 private:
  void BeginTraversal(const MissionInputs& in, MissionOutputs* out);

  MissionOptions options_;
  geometry::Vec2 start_;
  geometry::Vec2 goal_;
  MissionState state_;
};

}  // namespace limbic::mission
