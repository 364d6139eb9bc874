// Laser navigator experiments (spec reactive-topological §4): E1 the world library, E2 the static
// controller's sweep with the performance index (Eq. 4-3), E3 the case-based controller — as seeded
// YAML definitions in experiments/laser/, run in process over a thread pool, one row per episode.
//
// Why not the navigation runner (tools/experiment): its definitions, runs and rows are built around
// the hybrid navigator (environment sets A–G, ControlParameters, traversals, an in-process service
// stack); a laser episode has none of them and takes milliseconds. `limbic experiment list` lists these
// definitions too and `limbic experiment run NAME` hands them to `limbic laser experiment run`.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "services/laser_nav/controllers.hpp"
#include "services/laser_sim/episode.hpp"
#include "services/laser_sim/laser_world.hpp"

namespace limbic::laser {

// One configuration of the controller (a sweep point, or the only one).
struct LaserConfiguration {
  std::string label;
  StaticOptions static_options;  // controller: static
  CbrOptions cbr_options;        // controller: cbr
};

struct LaserExperiment {
  std::string name;  // file stem
  std::string section;
  std::string description;
  std::string source;
  std::string kind = "episodes";      // worlds (E1) | episodes (E2, E3)
  std::string controller = "static";  // static | cbr
  uint64_t seed = 1;                  // episode seeds (laser errors, noise vectors)
  uint64_t library_salt = 1;          // world libraries
  std::vector<double> densities{15, 20, 25, 30, 35};
  int first_world = 0;
  int worlds = 500;  // per density
  EpisodeOptions episode;
  WorldOptions world;
  std::vector<LaserConfiguration> configurations;
  int trajectories = 0;                 // SVG pictures of the first N worlds of the first density, per configuration
  std::vector<std::string> sweep_keys;  // the swept keys, in order (for the summary's columns)

  int64_t EpisodeCount() const;
};

// Loads a definition strictly (unknown key → config::ConfigError naming the file and key path).
LaserExperiment LoadLaserExperiment(const std::string& path);
std::string DefaultLaserExperimentDir();  // experiments/laser in limbic's data, or $LIMBIC_LASER_EXPERIMENTS_DIR
std::vector<std::string> ListLaserExperimentFiles(const std::string& dir = DefaultLaserExperimentDir());
LaserExperiment FindLaserExperiment(const std::string& name_or_path,
                                    const std::string& dir = DefaultLaserExperimentDir());

// One episode's row (runs.csv).
struct EpisodeRow {
  std::string configuration;
  double density = 0;
  int world = 0;
  uint64_t seed = 0;
  EpisodeResult result;
  int64_t case_switches = 0;
  std::vector<double> time_in_case_s;  // CBR: seconds per case (library order)
  int64_t rejected_frames = 0;
};

// One world's row (worlds.csv, E1).
struct WorldRow {
  double density = 0;
  int world = 0;
  double realised_pct = 0;
  double optimal_path_cm = 0;
  int obstacles = 0;
  int attempts = 0;
};

// Runs one episode of `configuration` in `world` (no threads; for tests and `limbic laser episode`).
EpisodeRow RunLaserEpisode(const LaserExperiment& experiment, const LaserConfiguration& configuration,
                           const World& world, uint64_t seed, bool keep_trajectory);

// The episode seed of (density, world): the same for every configuration (common random numbers).
uint64_t EpisodeSeed(uint64_t experiment_seed, double density, int world);

struct RunOptions {
  int jobs = 1;
  int limit_worlds = 0;  // 0: the definition's count
  std::string out_dir;
  bool progress = true;
};

struct RunOutput {
  std::vector<EpisodeRow> episodes;
  std::vector<WorldRow> worlds;
  double wall_s = 0.0;
};

// Runs the whole experiment over `jobs` threads (one task per world: every configuration runs on it),
// writes OUT/runs.csv (or worlds.csv), OUT/summary.csv, OUT/summary.md and the trajectory pictures,
// and returns the rows.
RunOutput RunLaserExperiment(const LaserExperiment& experiment, const RunOptions& options);

}  // namespace limbic::laser
