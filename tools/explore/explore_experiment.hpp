// `limbic explore`: the heterogeneous exploration experiments of issue 18 item 5 (spec multi-robot §1). Each run is a
// whole team in lockstep in one process (tools/stack with StackSpec::explore): every robot's full stack in explore
// mode plus the exploration task manager, which writes the run's measures.
#pragma once

#include <atomic>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace limbic::explore {

struct TeamConfig {
  std::string label;
  std::vector<std::string> bodies;  // one per robot (configs/robots names)
};

struct ExploreExperiment {
  std::string name;
  std::string source;
  std::string description;
  uint64_t seed = 1;
  std::vector<char> sets{'B'};
  int first_environment = 0;
  int last_environment = 0;
  int seeds = 1;  // runs per (set, environment, team)
  double time_limit_s = 300.0;
  std::string affect = "constant";
  std::vector<std::string> options;  // further stack options, "service.key=value"
  std::vector<TeamConfig> teams;

  int RunCount() const;
};

// experiments/explore (LIMBIC_EXPLORE_EXPERIMENTS_DIR overrides).
std::string DefaultExploreExperimentDir();
// Strict: an unknown key, a bad set letter, an empty team or an unknown body is a config::ConfigError naming the
// file and the key.
ExploreExperiment LoadExploreExperiment(const std::string& path);
// By name (in DefaultExploreExperimentDir) or by path.
ExploreExperiment FindExploreExperiment(const std::string& name_or_path);

struct ExploreRunSpec {
  std::string run_id;
  char set = 'B';
  int environment = 0;
  uint64_t seed = 1;
  int team = 0;  // index into teams
};
std::vector<ExploreRunSpec> ExpandRuns(const ExploreExperiment& e);

// One run's row as the task manager wrote it (services/explore RunCsvRow), parsed.
struct ExploreRunResult {
  std::string run_id, configuration, bodies;
  char set = 'B';
  int environment = 0;
  uint64_t seed = 0;
  int robots = 0;
  bool all_done = false;
  double end_time_s = 0, final_coverage = 0;
  std::optional<double> time_to_90_s;
  double robot_collisions = 0, world_collisions = 0, tasks_sent = 0, reports_received = 0, maps_received = 0;
  double allocation_changes = 0, released_early = 0, unreachable_tiles = 0, distance_m = 0;
  std::vector<double> world_collisions_by_robot;  // in the order of `bodies`
  std::string error;                              // the run failed: why
};

struct ExploreOutput {
  std::vector<ExploreRunResult> runs;
  // run_id -> trace rows (time, coverage, x1, y1, ...)
  std::map<std::string, std::vector<std::vector<double>>> traces;
};

// Runs every run (in parallel over `jobs` threads, each run on one thread), writing the task managers' files under
// `work_dir`; `limit` > 0 runs only the first `limit` runs. Progress lines go to stderr.
ExploreOutput RunExploreExperiment(const ExploreExperiment& e, const std::string& work_dir, int jobs, int limit,
                                   const std::atomic<bool>& stop);

// Reads a task manager's run row (header + one row). Throws std::runtime_error for a malformed file.
ExploreRunResult ReadRunCsv(const std::string& path);

std::string RunsCsv(const ExploreOutput& out);
// The table per (set, team): runs, final coverage, coverage at 60/120/180/240 s, runs reaching 90 % and the mean time
// to it, collisions (robot–robot, robot–world), messages (tasks + reports, maps), allocation changes.
std::string SummaryMarkdown(const ExploreExperiment& e, const ExploreOutput& out);
// Each robot's path in its colour over the environment, for the first run of every (set, environment, team).
std::map<std::string, std::string> PathSvgs(const ExploreExperiment& e, const ExploreOutput& out);

}  // namespace limbic::explore
