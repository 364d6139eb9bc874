// Experiment definitions (spec §6.4): a named, seeded YAML file in experiments/<chapter>/<name>.yaml
// naming the environment sets, environments, runs, traversals, the configurations compared and an
// optional parameter sweep. Loaded strictly (unknown key -> config::ConfigError naming file and key).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "common/types/control_parameters.hpp"

namespace limbic::experiment {

// The affect configuration name meaning "no affect engine": parameters are ControlParameters{} plus
// the configuration's overrides, constant for the whole run (Chapters 6 and 7).
inline constexpr char kNoAffect[] = "none";

// One thing a sweep sets, to `scale * value + offset`.
// `path` is a ControlParameters field ("w_v4"), "affect.<key.path>" (an affect-config override such
// as "affect.drives.safety.fixed") or "option.<name>" (a mission/world option, see kOptionNames).
struct SweepTarget {
  std::string path;
  double scale = 1.0;
  double offset = 0.0;
};

// A swept quantity: one value per step, applied to every target (e.g. M -> W_θ4 = 0.5M, W_θ5 = 0.5M,
// W_θ6 = 0.75M, or W_v2 = W_θ2).
struct Sweep {
  std::string name;  // display name and the "name=value" key in results (e.g. "W_v4", "M")
  std::vector<SweepTarget> targets;
  std::vector<double> values;
};

// One configuration compared in an experiment.
struct Configuration {
  std::string label;                           // [A-Za-z0-9_]+, unique within the experiment
  std::string affect = kNoAffect;              // affect configuration name ("constant", ...) or "none"
  std::map<std::string, double> parameters;    // ControlParameters field -> value
  std::vector<std::string> affect_overrides;   // "key.path=value", applied after the named file
  std::map<std::string, std::string> options;  // mission/controller/world options (kOptionNames)
};

// Several robots in one world (issue 18 item 1): `robots: {count: 3, starts: [[x, y, theta], ...], goals:
// [[x, y], ...]}`. Without starts/goals the simulator places them (sim::PlaceTeam: robot r1 on the
// environment's start and goal, the others apart around them); with them, one entry per robot, in every
// environment of the experiment. runs.csv has a row per robot and traversal; summary.csv and the report's
// summary are robot r1's, the report's "Per robot" section each robot's; each robot's collisions with robots
// and with the world are in its ground truth.
struct Team {
  int count = 1;                            // 1..16
  std::vector<std::vector<double>> starts;  // empty, or count entries of x, y[, theta]
  std::vector<std::vector<double>> goals;   // empty, or count entries of x, y
  // Issue 18 item 2: robot descriptions (configs/robots names or .yaml paths), one for all or one per robot;
  // empty: every robot is MARVIN. A configuration's `body` option overrides it (one body for every robot).
  std::vector<std::string> bodies;
  // Issue 19 item 5, mixed crowds: each robot's navigator, "hybrid" (mapper, planner, affect, controller) or
  // "crowd" (limbic-crowd-nav: b_nav with the emotion table), one for all or one per robot; empty: hybrid. A
  // configuration's `navigators` option overrides it.
  std::vector<std::string> navigators;
  // "x,y,theta;..." and "x,y;..." as the simulator's starts/goals options take them ("" when not given).
  std::string StartsOption() const;
  std::string GoalsOption() const;
  std::string BodiesOption() const;      // "marvin,itchy" ("" when not given)
  std::string NavigatorsOption() const;  // "hybrid,crowd" ("" when not given)
};

// A whole experiment, as loaded (defaults already merged into every configuration).
struct ExperimentDefinition {
  std::string name;               // equals the file stem; what `limbic experiment run NAME` takes
  std::string description;        // what it reproduces and every choice made where §6.4 is ambiguous
  std::string chapter;            // "6", "7", "9", "10", "companion" or "test"
  std::string source;             // file it was loaded from
  uint64_t seed = 1;              // base seed of the run seeds
  uint64_t environment_seed = 1;  // world seed of sim::GenerateEnvironment (same worlds everywhere)
  std::vector<char> sets;         // 'A'..'G'
  std::vector<int> environments;  // 0..19
  int runs_per_environment = 1;
  int iterations = 1;  // traversals per run (maps kept across them, §6.1)
  int trace_runs = 1;  // runs per (configuration, swept value, set) that record trace files
  // MCAP recordings of every message of a run, as recordings/<run_id>.mcap beside runs.csv (issue 17):
  // "none", "traced" (the runs that record trace files) or "all".
  std::string record = "none";
  std::vector<Configuration> configurations;
  std::optional<Sweep> sweep;
  Team team;

  // Runs = configurations × sweep values × sets × environments × runs_per_environment.
  int RunCount() const;
};

// Option names accepted in `options:` and their kinds. Booleans: prebuilt_map (the mapper starts
// with the true map), danger_pretag (unseen obstacles pre-marked on the danger map),
// wrong_map_all_free (map starts all free and mapping is disabled), human_flee_extension (§3.4: anger >
// 0.75 sends humans within 5 m away). Enumeration: velocity_goal_source = path | goal_bearing (goal
// bearing fed straight to the velocity layer, Ch. 6). Numbers: goal_tolerance (m, default 0.35),
// timeout (s, default 600); boolean hold_danger_weight (planner W_p2 = max since the instruction); number
// map_point_inset (m taken off r_o around the map's virtual obstacle points,
// default 0 = spec; issue 14); enumeration danger_point = surface | contact | sensed | sector (where a collision
// marks the danger map, mapper default surface; issue 14); enumeration danger_forget = none | free_space |
// seen_free_space | body (whether collision danger cells are cleared, mapper default none; issue 14); enumeration
// map_danger_point = centre | site (where map-based avoidance stands a collision danger cell, controller default
// centre; issue 14). Text: body (a
// robot description for every robot of the run, issue 18); navigators ("hybrid,crowd,...": each robot's navigator,
// one for all or one per robot; issue 19 item 5); enumeration crowd_mode = off | on | invisible (the crowd robots'
// emotions, limbic-crowd-nav's mode).
const std::vector<std::string>& OptionNames();

// Loads one definition file. Throws config::ConfigError naming the file and key for unknown keys,
// bad values, unknown parameter names, bad set letters, environments outside 0..19, etc.
ExperimentDefinition LoadExperiment(const std::string& path);

// The shipped experiments directory (experiments in limbic's data, common/paths) unless LIMBIC_EXPERIMENTS_DIR
// names another.
std::string DefaultExperimentDir();

// The sub-folder of recruitment experiments (spec affective-recruitment §7), run by `limbic recruit
// experiment`; ListExperimentFiles skips it.
inline constexpr char kRecruitmentDir[] = "recruitment";

// The sub-folder of laser navigator experiments (spec reactive-topological §4), run by `limbic laser
// experiment`; ListExperimentFiles skips it too.
inline constexpr char kLaserDir[] = "laser";

// The sub-folder of crowd experiments (issue 19, spec multi-robot §2), run by `limbic crowd experiment`;
// ListExperimentFiles skips it too.
inline constexpr char kCrowdDir[] = "crowd";

// The sub-folder of exploration experiments (issue 18 items 4–5, spec multi-robot §1), run by `limbic explore
// experiment`; ListExperimentFiles skips it too.
inline constexpr char kExploreDir[] = "explore";

// Every *.yaml under `dir` (recursively, except kRecruitmentDir, kLaserDir, kCrowdDir and kExploreDir), sorted by
// path.
std::vector<std::string> ListExperimentFiles(const std::string& dir = DefaultExperimentDir());

// Finds an experiment by name (file stem, e.g. "ch10_integrated"), by "<chapter dir>/<name>", or by a
// path ending in .yaml. Throws config::ConfigError when it is missing or ambiguous.
ExperimentDefinition FindExperiment(const std::string& name_or_path, const std::string& dir = DefaultExperimentDir());

// Writes every ControlParameters field named in `overrides` into `params`; throws
// std::invalid_argument for an unknown field or a non-integral value for an int field.
void ApplyParameterOverrides(const std::map<std::string, double>& overrides, ControlParameters* params);

// True when `name` is a ControlParameters field; `is_int` tells whether it is an int field.
bool IsParameterName(const std::string& name, bool* is_int = nullptr);

// Shortest text that reads back as the same double ("0.25", "3", "-0.5", "1e-05").
std::string FormatNumber(double value);

// The effective definition as YAML-like text, for the log at start.
std::string DescribeExperiment(const ExperimentDefinition& definition);

}  // namespace limbic::experiment
