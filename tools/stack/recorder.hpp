// The recorder: a lockstep participant that collects one run's results in memory for the experiment
// runner — the mission's metrics per traversal, contact cycles, and for traced runs the true
// trajectory, the affect state and the mapper's final occupancy grid; for every run, the thinned
// paths of the traversals that failed. No files, no transport of its own: it reads the bus like any
// service and fills a Recording the caller shares with it.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "common/geometry/geometry.hpp"
#include "common/runtime/runtime.hpp"
#include "services/mission/mission.hpp"
#include "tools/experiment/traces.hpp"

namespace limbic::stack {

// What the recorder collects besides the metrics (which it always collects).
struct RecorderOptions {
  bool trajectory = false;           // true pose samples (ground truth)
  double trajectory_period_s = 0.1;  // sample spacing in simulated time (≥ the control period)
  bool affect = false;               // affect samples
  double affect_period_s = 0.5;
  bool map = false;           // follow the mapper's patches and keep the final occupancy grid (costs a replica)
  bool localisation = false;  // compare hwio's pose estimate (<robot>/odom) with the truth every tick
  // Keep each traversal's path thinned in memory (experiment::PathDecimator) and hand over the
  // paths of the traversals that time out, with where they stopped: the report's failures section
  // needs them for every run, traced or not. Cheap: one distance test per tick, ≤ 1,000 points
  // held.
  bool failed_paths = true;
};

// The pose estimate every service navigates by against the true pose, over a whole run.
struct LocalisationRecord {
  int64_t ticks = 0;                  // ticks with both an estimate and the truth
  double max_position_error_m = 0.0;  // max |estimate − truth| over those ticks
  double max_heading_error_rad = 0.0;
  double final_position_error_m = 0.0;
  int64_t contact_cycles = 0;  // ticks the true robot was in contact
  uint64_t pushes = 0;         // pushes by people (ground truth)
};

// One finished traversal as the mission published it (r1/metrics), plus the cycles in contact
// counted from ground truth since the previous traversal ended (§8 item 15).
struct RecordedTraversal {
  mission::TraversalMetrics metrics;
  int contact_cycles = 0;
};

// Filled by the recorder's host thread while the run goes on; read it only after the run returned
// (runtime::RunInProcess joins the thread, which orders the writes before the read).
struct Recording {
  std::vector<RecordedTraversal> traversals;  // in traversal order
  bool run_finished = false;                  // the mission reported its last traversal
  int64_t ticks = 0;                          // ticks the recorder stepped
  std::vector<experiment::TrajectorySample> trajectory;
  std::vector<experiment::AffectSample> affect;
  geometry::GridSpec grid;                          // of `occupancy`
  std::vector<double> occupancy;                    // p_o at the end of the run (empty unless options.map)
  LocalisationRecord localisation;                  // filled when options.localisation
  std::vector<experiment::FailedTraversal> failed;  // traversals that timed out (options.failed_paths)
};

// The recorder service for the robot it is hosted for. Same-tick inputs: <robot>/truth,
// <robot>/mission (published every tick, after the tick's metrics, on the mission's one socket, so a
// tick's RunMetrics has always arrived when its MissionStatus has), <robot>/affect (if recorded) and
// <robot>/map/patch (if the map is recorded); <robot>/metrics is read same-tick without being
// awaited (it is published only when a traversal ends).
runtime::ServiceDefinition RecorderService(RecorderOptions options, std::shared_ptr<Recording> sink);

}  // namespace limbic::stack
