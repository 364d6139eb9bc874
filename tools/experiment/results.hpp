// Per-iteration results (runs.csv): one row per run × traversal with the metrics of §6.1. CSV with a
// header line and RFC 4180 quoting; appended run by run so an interrupted experiment resumes.
#pragma once

#include <cstdint>
#include <mutex>
#include <set>
#include <string>
#include <vector>

namespace limbic::experiment {

// One traversal of one run (§6.1 metrics). Coverage is cumulative over the run (§8 items 9, 13).
struct IterationRow {
  std::string run_id;
  std::string experiment;
  std::string config;
  char set = 'B';
  int env = 0;
  int repeat = 0;
  uint64_t seed = 0;
  std::string sweep;               // "name=value" ("" without a sweep)
  double sweep_value = 0.0;        // numeric value of the swept quantity
  int iteration = 1;               // 1-based traversal number
  double completion_time_s = 0.0;  // 600 on timeout
  bool success = false;
  int collisions = 0;               // contact events (§8 item 15)
  double collisions_per_min = 0.0;  // collisions ÷ (completion time / 60)
  double mean_velocity = 0.0;       // m/s
  double exec_time_ratio = 0.0;     // control + affect compute time ÷ simulated time (§8 item 14)
  double coverage = 0.0;            // cumulative exploration coverage at the end of this traversal
  double distance_travelled = 0.0;  // m
  int contact_cycles = 0;           // cycles in contact (§8 item 15, logged beside the events)
  // "ok": a traversal's metrics. "error": the run ended because a step threw (issue 15): one row per
  // run, iteration 0, no metrics, the message in `error`. Never data: ReadRuns keeps these apart.
  std::string status = "ok";
  std::string error;
  // Which robot of the run the row is about (issue 18 item 1): "r1" for a single robot; a team's run has
  // one row per robot and traversal. Files written before this column read as "r1".
  std::string robot = "r1";

  bool operator==(const IterationRow&) const = default;
};

// The header line of runs.csv (column names in IterationRow order).
const std::vector<std::string>& RunsCsvColumns();

// One CSV record with RFC 4180 quoting (fields containing , " CR or LF are quoted, " doubled), no
// line terminator.
std::string CsvLine(const std::vector<std::string>& fields);
// Splits CSV text into records (quoted fields may span lines). A final record without a line
// terminator is returned too; `*last_complete` tells whether the text ended with one.
std::vector<std::vector<std::string>> ParseCsv(const std::string& text, bool* last_complete = nullptr);

std::string FormatRow(const IterationRow& row);  // one CSV line, no terminator

// The robot whose rows are an experiment's results in summary.csv and the report's tables: r1, which
// travels between the environment's start and goal exactly as a single robot does.
inline constexpr const char* kLeadRobot = "r1";

// Rows read from a runs.csv.
struct RunsFile {
  std::vector<IterationRow> rows;       // status ok, robot r1 (kLeadRobot), file order; a later (run_id,
                                        // iteration) replaces an earlier one
  std::vector<IterationRow> team_rows;  // status ok, the other robots of team runs (r2..rN), likewise
  std::vector<IterationRow> errors;     // status error: runs that ended with a failing step (not data)
  int skipped_lines = 0;                // malformed or torn records (e.g. a write cut by a kill)
};

// Reads a runs.csv. A missing file gives no rows. Throws std::runtime_error for a header that is
// not RunsCsvColumns() (a file from before the status and error columns reads as all ok).
RunsFile ReadRuns(const std::string& path);

// Writes rows (header first), replacing the file atomically (WriteFileAtomically).
void WriteRuns(const std::string& path, const std::vector<IterationRow>& rows);

// Appends the rows of one finished run whole or not at all (AppendWhole): writes the header first if
// the file is new or empty, and first cuts off a torn last row left by a kill. Throws
// std::runtime_error if the existing header differs, or naming the file and the cause (errno) if the
// write fails.
void AppendRows(const std::string& path, const std::vector<IterationRow>& rows);

// Thread-safe appender for parallel workers of one process (one AppendRows per finished run).
class RunsAppender {
 public:
  explicit RunsAppender(std::string path) : path_(std::move(path)) {}
  void Append(const std::vector<IterationRow>& rows);
  const std::string& path() const { return path_; }

 private:
  std::string path_;
  std::mutex mutex_;
};

// Run ids with all `iterations` traversals (1..iterations) in runs.csv, or with an error row: the runs a
// resumed experiment skips (a lockstep run is deterministic: it would fail again; delete the error row
// to retry it). A run with missing traversals (interrupted) is run again; ReadRuns keeps its newer rows.
std::set<std::string> FinishedRuns(const std::string& runs_csv, int iterations);

struct MergeResult {
  std::string experiment;
  int rows = 0;            // rows written
  int runs = 0;            // distinct run ids written
  int duplicate_runs = 0;  // run ids dropped because an earlier directory had them
  int trace_files = 0;     // trace_*.csv, affect_*.csv and failed_*.csv copied
};

// Concatenates <dir>/runs.csv of every dir into <out_dir>/runs.csv (created), keeping each run_id
// from the first directory that has it, and copies trace_*.csv / affect_*.csv / failed_*.csv files
// not already in out_dir. Throws std::runtime_error if the files come from different experiments or
// a directory has no runs.csv.
MergeResult Merge(const std::vector<std::string>& dirs, const std::string& out_dir);

}  // namespace limbic::experiment
