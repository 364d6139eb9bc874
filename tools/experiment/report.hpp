// The experiment report: summary.csv, per_traversal.csv and a self-contained report.html (inline
// CSS and SVG, no scripts, no external assets) with the §7 experiment-summary plots, per-traversal
// curves and table, example paths over the occupancy map, the affect time series of a run, and a
// failures section listing every failed traversal with where it stopped and its path.
#pragma once

#include <string>
#include <vector>

#include "tools/experiment/results.hpp"
#include "tools/experiment/summary.hpp"
#include "tools/experiment/traces.hpp"

namespace limbic::experiment {

struct ReportOptions {
  std::vector<std::string> config_order;  // configurations listed first, in this order
  int max_paths = 4;                      // example paths drawn (trace files, in run-id order)
  int max_affect_runs = 2;                // affect time series drawn
  int histogram_bins = 20;
  // Path pictures in the failures section (every failure is listed in its table either way). About
  // 16 KB of SVG each: 500 keep a report of a badly failing experiment under ~10 MB.
  int max_failure_pictures = 500;
};

// Everything one report shows (already read from disk).
struct ReportInputs {
  std::string experiment;               // "" = taken from the rows
  std::string description;              // optional text under the title
  std::vector<IterationRow> rows;       // robot r1's (kLeadRobot): the experiment's results
  std::vector<IterationRow> team_rows;  // the other robots of team runs: the report's "Per robot" section
  std::vector<RunTrace> paths;
  std::vector<AffectTrace> affect;
  std::vector<FailureTrace> failures;            // failed_*.csv of the folder
  std::vector<std::string> failure_file_errors;  // failed_*.csv that could not be read: "file: reason"
  std::vector<std::string> recordings;           // MCAP files relative to the report (recordings/<run_id>.mcap)
};

// A rough class of where and how a failed traversal stopped, from its recorded path and collisions
// (the categories of issue 14's analysis). The rules, in this order:
//   pinned     — kPinnedCollisions or more collision events in the traversal, or in contact for
//                kPinnedContactCycles control cycles or more (60 s: the criterion that still holds if a
//                long contact with one object counts as a single collision event);
//   stopped near the goal — moved less than kStillMetres over the last kStillWindowS seconds and
//                ended within kNearGoalMetres of the goal (often: the robot believed it had
//                arrived);
//   stopped    — moved less than kStillMetres over the last kStillWindowS seconds, further away;
//   wandering  — still moving when the timeout came;
//   unknown    — no path recorded (a folder written before failed_*.csv existed).
enum class FailureKind { kPinned, kStoppedNearGoal, kStopped, kWandering, kUnknown };
inline constexpr int kPinnedCollisions = 100;
inline constexpr int kPinnedContactCycles = 600;
inline constexpr double kStillMetres = 0.5;
inline constexpr double kStillWindowS = 60.0;
inline constexpr double kNearGoalMetres = 1.0;
const char* FailureKindName(FailureKind kind);

// How far the path's last pose lies from the farthest pose of the final `window_s` seconds (the
// last pose kept before the window included: the decimated path keeps a pose only after a move of
// its spacing, so the robot stood within one spacing of it when the window began). 0 for an empty
// path.
double MovedOverLast(const std::vector<TrajectorySample>& path, double window_s);

// `traversal` may be null (no path recorded).
FailureKind ClassifyFailure(const FailedTraversal* traversal, int collisions, int contact_cycles);

// The SVG map of one failed traversal: walls, its path with a cross where it stopped.
std::string RenderFailurePathSvg(const FailureTrace& run, const FailedTraversal& traversal);

// The HTML document. Pure: the walls of example paths come from
// sim::GenerateEnvironment(trace.set, trace.env, trace.environment_seed).
std::string RenderReportHtml(const ReportInputs& inputs, const ReportOptions& options = {});

// The SVG panels of one affect trace: stimuli, emotions, moods, survival drives inside their
// D_min..D_max band, strategic drives.
std::string RenderAffectPanels(const AffectTrace& trace);

// The SVG map of one trace: walls, occupancy as grey squares, trajectory with a heading arrow
// every 5 s.
std::string RenderPathSvg(const RunTrace& trace);

struct ReportResult {
  std::string summary_csv;
  std::string per_traversal_csv;  // "" when no run has more than one traversal (nothing written)
  std::string report_html;
  int rows = 0;
  int runs = 0;
  int skipped_lines = 0;                // torn or malformed runs.csv records ignored
  std::vector<std::string> cut_traces;  // trace files that end before their end marker: skipped
};

// Reads <dir>/runs.csv and the trace_*.csv / affect_*.csv / failed_*.csv files in dir, writes
// <dir>/summary.csv, <dir>/per_traversal.csv (runs of several traversals) and <dir>/report.html, each
// replaced whole or not at all. An unreadable failed_*.csv is named in the report, not fatal; a cut
// trace file is skipped and listed in cut_traces. Throws std::runtime_error when runs.csv is missing or
// unreadable, or a write fails (naming the file and the cause).
ReportResult Report(const std::string& dir, const ReportOptions& options = {});

}  // namespace limbic::experiment
