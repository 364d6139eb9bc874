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
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "services/laser_nav/controllers.hpp"
#include "services/laser_nav/neural_network.hpp"
#include "services/laser_nav/recurrent_network.hpp"
#include "services/laser_nav/sane.hpp"
#include "services/laser_nav/vector_field.hpp"
#include "services/laser_sim/episode.hpp"
#include "services/laser_sim/laser_world.hpp"
#include "services/laser_topo/memory_controller.hpp"
#include "tools/laser/failure_cases.hpp"

namespace limbic::laser {

// One configuration of the controller (a sweep point, or the only one).
struct LaserConfiguration {
  std::string label;
  std::string controller;        // static | cbr | nn | rnn | memory (E9's `compare` gives each its own)
  bool network_given = false;    // nn/rnn: a `network` file was named (an episode needs one)
  StaticOptions static_options;  // controller: static
  CbrOptions cbr_options;        // controller: cbr
  NeuralOptions nn_options;      // controller: nn (the network, or evolved ones for E4)
  RecurrentOptions rnn_options;  // controller: rnn (the recurrent network, or evolved ones for E5)
  MemoryOptions memory_options;  // controller: memory (its cbr part takes the cbr keys)
  bool memory_enabled = true;    // memory: false runs the same case-based controller without the map layer
};

// Symbiotic evolution of the network controller (kind: evolution; spec §2.6, E4; with controller: rnn
// the recurrent network of §2.7, E5, by the same loop). The experiment's
// densities, worlds and episode settings are the test libraries each generation's best network is
// evaluated on; these settings are the training run.
struct EvolutionSettings {
  SaneOptions sane;
  int generations = 100;                                   // [T]
  int worlds_per_generation = 20;                          // [T] drawn from the training library
  std::vector<double> training_densities{15, 20, 25, 30};  // [T] 15–30 %
  int training_first = 500;                                // A23: indices 500–599 of each test library
  int training_per_density = 100;                          // [T] 400 worlds
  double time_limit_s = 60.0;                              // A22: 6000 cycles during evolution
  std::string evaluate_best = "every";                     // every | last | none: which generations' best networks
  // Training scans from the §1.5.4 cache (3 cm cells), shared by the 500 networks on each drawn world:
  // the thesis' own speed-up; the test episodes use the experiment's episode settings.
  bool laser_cache = true;
};

struct LaserExperiment {
  std::string name;  // file stem
  std::string section;
  std::string description;
  std::string source;
  std::string kind = "episodes";      // worlds (E1) | episodes (E2, E3) | evolution (E4, E5) | field (E2c)
  std::string controller = "static";  // static | cbr | nn | rnn | memory | compare (E9: one per configuration)
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
  EvolutionSettings evolution;          // kind: evolution
  // controller: memory — runs per world with the map retained from the previous run (E7: the first run
  // starts without a map, each later one with the map the earlier runs built); 1 = a fresh map each time.
  int map_runs = 1;
  double snapshot_every_s = 0.0;  // E7: an SVG of trajectory and map every this many seconds (0: none)
  bool cost = false;              // E8 (controller memory): time each stage, weigh the map; summary.md says it
  VectorFieldOptions field;       // kind: field (E2c): the static law's field with NG = 0 and its potential minima
  // E3's failure case studies (kind: episodes): every unsolved episode classified against the world's field
  // (failure_cases.hpp; the field with `field`'s settings), counts in summary.md, and pictures of the first
  // `case_pictures` episodes of each failure kind (case_<kind>_*.svg: field, minima, trajectory).
  bool case_studies = false;
  FailureOptions failure;
  int case_pictures = 2;

  int64_t EpisodeCount() const;
};

// Loads a definition strictly (unknown key → config::ConfigError naming the file and key path).
LaserExperiment LoadLaserExperiment(const std::string& path);
// Throws config::ConfigError naming `source` and the configuration when its controller's options are invalid.
void ValidateConfiguration(const LaserExperiment& experiment, const LaserConfiguration& configuration,
                           const std::string& source);
// Applies RunOptions::overrides (LABEL.KEY=VALUE); throws config::ConfigError for a malformed one, a label
// no configuration has, or a key or value its controller refuses.
void ApplyConfigurationOverrides(LaserExperiment* experiment, const std::vector<std::string>& overrides);
std::string DefaultLaserExperimentDir();  // experiments/laser in limbic's data, or $LIMBIC_LASER_EXPERIMENTS_DIR
std::vector<std::string> ListLaserExperimentFiles(const std::string& dir = DefaultLaserExperimentDir());
LaserExperiment FindLaserExperiment(const std::string& name_or_path,
                                    const std::string& dir = DefaultLaserExperimentDir());

// E8: where one episode's CPU time went (nanoseconds, monotonic clock) and what its map weighs.
struct EpisodeCost {
  int64_t sim_ns = 0;                // the simulator: motion law, collisions, laser (LaserEpisode::Advance)
  int64_t controller_ns = 0;         // the whole controller step, map layer included
  MapLayerCost map;                  // the map layer's stages (part of controller_ns)
  double bytes_per_node_memory = 0;  // sizeof(TopoNode) + its links, per node
  double bytes_per_node_bus = 0;     // a TopoMapSnapshot message (§5.2) of the final map, per node
};

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
  GateCounts gates;  // nn: how often each input's and output's gates passed (E4 input usage)
  // memory: the map layer's statistics, and the map itself when the trajectory is kept (pictures).
  int run = 1;  // which of the map_runs on this world
  int map_nodes = 0;
  double links_per_node = 0.0;
  MapLayerStats map_stats;
  std::shared_ptr<const TopoMap> map;
  EpisodeCost cost;  // measured when the experiment says `cost: true` (E8)
  // case_studies (E3): how the episode ended (FailureKindName) and, for an unsolved one, how many minima it dwelt
  // at (0 for a solved one: its world's field is computed only when an episode there failed).
  std::string failure;
  int minima_visits = 0;
};

// One world's row (worlds.csv, E1).
struct WorldRow {
  double density = 0;
  int world = 0;
  double realised_pct = 0;
  double optimal_path_cm = 0;
  int obstacles = 0;
  int attempts = 0;
  // kind: field (E2c): the potential minima of the static law's field in this world (-1: not computed).
  int minimum_places = -1;
  int minimum_places_near_goal = -1;  // centred within the goal's free half-disc (the goal-wall balance)
  int minimum_cells = -1;
  int free_cells = -1;
};

// Runs one episode of `configuration` in `world` (no threads; for tests and `limbic laser episode`).
EpisodeRow RunLaserEpisode(const LaserExperiment& experiment, const LaserConfiguration& configuration,
                           const World& world, uint64_t seed, bool keep_trajectory);
// The same for controller memory, starting from `map` (a map retained from an earlier run, or empty).
// `on_snapshot` (optional) is called every `snapshot_every_s` with the time, the trajectory so far and
// the map. The row's `map` holds the final map.
using MapSnapshot = std::function<void(double time_s, const std::vector<Vec2>& trajectory, const TopoMap& map)>;
EpisodeRow RunMemoryEpisode(const LaserExperiment& experiment, const LaserConfiguration& configuration,
                            const World& world, uint64_t seed, bool keep_trajectory, const TopoMap& map,
                            const MapSnapshot& on_snapshot = {});

// The episode seed of (density, world): the same for every configuration (common random numbers).
uint64_t EpisodeSeed(uint64_t experiment_seed, double density, int world);

struct RunOptions {
  int jobs = 1;
  // LABEL.KEY=VALUE: a controller setting for the configuration LABEL (e.g. E9's "nn.network=FILE", the
  // best network of an E4 run, which no definition can name before that run exists).
  std::vector<std::string> overrides;
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
