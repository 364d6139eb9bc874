// Crowd experiments (issue 19 item 4; spec multi-robot §2 "experiments to support"): seeded YAML definitions in
// experiments/crowd/ — a scenario (antipodal swap, corridor crossing, doorway bottleneck), crowd sizes, emotion modes
// (off / on / invisible) and seeds — run in process over a thread pool, one row per run, a summary per (N, mode)
// and an SVG report (trajectories, an emotion timeline per robot, the metrics against N).
//
// Why not the navigation runner (tools/experiment): its runs are built around the hybrid navigator (environment
// sets, ControlParameters, a service stack per robot); a crowd run is a lockstep world of b_nav robots that takes
// milliseconds. `limbic experiment list` names these definitions and `limbic experiment run NAME` hands them to
// `limbic crowd experiment run`, as it does for the laser and recruitment experiments.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "services/crowd/crowd_world.hpp"

namespace limbic::crowd {

struct CrowdExperiment {
  std::string name;  // file stem
  std::string description;
  std::string source;
  std::string scenario = "antipodal";
  std::vector<int> robots{4, 8, 16, 32};
  std::vector<EmotionMode> modes{EmotionMode::kOff, EmotionMode::kOn, EmotionMode::kInvisible};
  int seeds = 20;
  uint64_t first_seed = 1;
  std::string emotions;  // the emotion table (path, relative to the source tree unless absolute)
  CrowdOptions run;      // dt, time limit, deadlock timeout, goal tolerance (mode set per run)
  BNavParams robot;      // the base parameters of every robot

  int64_t RunCount() const { return static_cast<int64_t>(robots.size() * modes.size()) * seeds; }
};

// Loads a definition strictly: unknown keys, bad numbers (NaN, out of range), an unknown scenario or mode, an
// emotion table that does not load → config::ConfigError naming the file and key.
CrowdExperiment LoadCrowdExperiment(const std::string& path);
std::string DefaultCrowdExperimentDir();  // <source>/experiments/crowd, or $LIMBIC_CROWD_EXPERIMENTS_DIR
std::string DataRoot();  // limbic's data (common/paths: the source tree in a build): the shipped emotion table
std::vector<std::string> ListCrowdExperimentFiles(const std::string& dir = DefaultCrowdExperimentDir());
CrowdExperiment FindCrowdExperiment(const std::string& name_or_path,
                                    const std::string& dir = DefaultCrowdExperimentDir());

// One run's row.
struct CrowdRunRow {
  int robots = 0;
  EmotionMode mode = EmotionMode::kOn;
  uint64_t seed = 0;
  CrowdMetrics metrics;
};

struct CrowdRunOptions {
  int jobs = 1;
  int max_seeds = 0;  // > 0: only the first max_seeds seeds (quick looks)
  bool quiet = false;
};

struct CrowdRunOutput {
  std::vector<CrowdRunRow> rows;  // in definition order: robots × modes × seeds
  std::vector<std::string> emotion_names;
  // The first seed of the largest crowd with emotions on (or the first mode run): for the report's pictures.
  Scenario picture_scenario;
  std::vector<TrajectorySample> picture_trajectory;
  EmotionMode picture_mode = EmotionMode::kOn;
};

CrowdRunOutput RunCrowdExperiment(const CrowdExperiment& e, const CrowdRunOptions& options);

// runs.csv: one row per run (scenario, robots, mode, seed, all_done, makespan, mean and max completion, robot and
// wall collisions, deadlocked robots, mean efficacy, the fraction of time of each emotion and of none).
std::string RunsCsv(const CrowdExperiment& e, const CrowdRunOutput& out);
// completions.csv: one row per robot per run (robots, mode, seed, robot, completion time; empty when unfinished).
std::string CompletionsCsv(const CrowdRunOutput& out);
// summary.md: per N and mode, means with standard deviations over the seeds, and runs finished / total.
std::string SummaryMarkdown(const CrowdExperiment& e, const CrowdRunOutput& out);
// report.svg: trajectories of the picture run coloured by emotion, an emotion timeline per robot, and makespan,
// collisions and deadlocks against N per mode.
std::string ReportSvg(const CrowdExperiment& e, const CrowdRunOutput& out);

}  // namespace limbic::crowd
