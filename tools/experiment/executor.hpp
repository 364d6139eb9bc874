// The experiment executor: turns a RunSpec into the in-process lockstep stack (tools/stack), runs
// it with a recorder participant that hands the results back in memory, and runs many of them in
// parallel worker threads, appending each finished run's rows to runs.csv (and its trace files)
// so an interrupted experiment resumes where it stopped.
#pragma once

#include <atomic>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "tools/experiment/expand.hpp"
#include "tools/experiment/progress.hpp"
#include "tools/experiment/results.hpp"
#include "tools/experiment/traces.hpp"
#include "tools/stack/stack.hpp"

namespace limbic::experiment {

// The stack of one run: set, environment, environment_seed → env_seed, run seed, traversals, the
// affect configuration (kNoAffect = services/affect/config/none.yaml) with RunSpec::AffectOverrides()
// (the parameter overrides as base_parameters.<field>), and the options: prebuilt_map, danger_pretag,
// wrong_map_all_free → mapper; human_flee_extension → simulator.humans_flee; velocity_goal_source
// (path | goal_bearing) → controller.velocity_goal (directional | goal_bearing); goal_tolerance and
// timeout → mission; map_point_inset → controller.map_point_inset; hold_danger_weight →
// planner.danger_weight (traversal_max | live); danger_point (surface | contact | sensed | sector) →
// mapper.danger_point; danger_forget (none | free_space | seen_free_space | body) → mapper.danger_forget. max_ticks is
// a safety stop well past iterations × timeout. No recorder is set. Throws std::invalid_argument for an option the
// executor does not know.
stack::StackSpec StackSpecFor(const RunSpec& run);

// Everything one run produced.
struct RunOutcome {
  bool ok = false;                       // every traversal reported and the stack exited cleanly
  bool abandoned = false;                // stopped from outside before it finished
  bool config_error = false;             // the stack refused its configuration (every run would fail alike)
  bool step_error = false;               // a service's step threw: the run ended with status `error` (issue 15)
  std::string error;                     // why not ok
  std::vector<IterationRow> rows;        // one per robot and traversal, r1 first (only when ok)
  std::optional<RunTrace> trace;         // when run.record_trace
  std::optional<AffectTrace> affect;     // when run.record_trace
  std::optional<FailureTrace> failures;  // when a traversal failed (every run, traced or not)
  double wall_s = 0.0;
};

// The runs.csv rows of one run from what its recorder collected.
// `robot` names the robot whose recording it is (kLeadRobot for r1, the others of a team by name).
std::vector<IterationRow> RowsFromRecording(const RunSpec& run, const stack::Recording& recording,
                                            const std::string& robot = kLeadRobot);
// A crowd robot's rows (issue 19 item 5) have no coverage (it builds no map) and no execution ratio (no
// controller or affect engine): NaN, which the summaries count as not measured ("-"), not as 0.
void MarkUnmeasured(const stack::StackSpec& spec, std::vector<IterationRow>* rows);
// The single runs.csv row of a run that a failing step ended: status "error", iteration 0, no metrics.
IterationRow ErrorRow(const RunSpec& run, const std::string& error);

// Runs one run in this thread (the stack's services get threads of their own). Setting `abandon`
// stops it early (outcome.abandoned). Never throws for a failed run: see outcome.error.
// `bag_path`: where to write the run's MCAP recording when run.record_bag ("" = nowhere).
// `customize` (tests) adjusts the stack's services first (stack::StackSpec::customize).
using StackCustomizer = std::function<void(std::vector<runtime::HostedService>&)>;
RunOutcome ExecuteRun(const RunSpec& run, const std::atomic<bool>& abandon, const std::string& bag_path = "",
                      const StackCustomizer& customize = {});

// recordings/<run_id>.mcap: where a run's recording goes, relative to the output directory.
std::string RecordingFileName(const std::string& run_id);

struct ExecutorOptions {
  int jobs = 0;               // parallel runs; 0 = std::thread::hardware_concurrency()
  std::string out_dir;        // runs.csv and trace files go here (must exist)
  StackCustomizer customize;  // tests: see ExecuteRun
};

struct ExecutionSummary {
  int finished = 0;                 // runs whose rows were appended
  int failed = 0;                   // runs that ended without all their traversals (not appended: a re-run retries)
  int errored = 0;                  // runs a failing step ended: one status=error row with the message in runs.csv
  int abandoned = 0;                // runs stopped by `abandon`
  int not_started = 0;              // runs never started because of `stop_new` or a configuration error
  std::vector<std::string> errors;  // "run_id: reason", first few
  double wall_s = 0.0;
};

// Runs `runs` in options.jobs worker threads. Each finished run writes its trace files (if any, and
// failed_<run_id>.csv if a traversal failed) and then appends its rows to <out_dir>/runs.csv in one
// write. `stop_new` set: no further run starts (runs in flight finish); `abandon` set: runs in
// flight are stopped and not written. A configuration error stops new runs too. `on_done`
// (optional, called under a lock) sees every run as it ends, e.g. for the progress bar.
ExecutionSummary ExecuteRuns(const std::vector<RunSpec>& runs, const ExecutorOptions& options,
                             const std::atomic<bool>& stop_new, const std::atomic<bool>& abandon,
                             const std::function<void(const RunSpec&, const RunOutcome&)>& on_done = {});

}  // namespace limbic::experiment
