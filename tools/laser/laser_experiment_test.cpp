#include "tools/laser/laser_experiment.hpp"

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>

#include "common/config/config.hpp"
#include "tools/laser/laser_render.hpp"
#include "tools/laser/laser_summary.hpp"
#include "tools/laser/laser_test_support.hpp"

namespace limbic::laser {
namespace {

namespace fs = std::filesystem;

using test_support::ReadFile;
using test_support::RunCommand;
using test_support::TempDir;

std::string WriteYaml(const fs::path& dir, const std::string& name, const std::string& body) {
  const fs::path file = dir / (name + ".yaml");
  std::ofstream(file) << "name: " << name << "\n" << body;
  return file.string();
}

TEST(LaserSummary, WilsonAndTIntervals) {
  const Interval w = WilsonInterval(8, 10);
  EXPECT_DOUBLE_EQ(w.mean, 0.8);
  EXPECT_NEAR(w.low, 0.4902, 1e-4);
  EXPECT_NEAR(w.high, 0.9433, 1e-4);
  EXPECT_DOUBLE_EQ(WilsonInterval(10, 10).high, 1.0);
  EXPECT_EQ(WilsonInterval(0, 0).n, 0);
  const Interval m = MeanInterval({1, 2, 3});
  EXPECT_DOUBLE_EQ(m.mean, 2.0);
  EXPECT_NEAR(m.high - m.mean, 4.303 / std::sqrt(3.0), 1e-9);  // t(2) · s/√n
  EXPECT_EQ(MeanInterval({5}).low, 5.0);
  EXPECT_EQ(MeanInterval({}).n, 0);
}

TEST(LaserSummary, PerformanceIndexOfEq43AndTheNormalisedSum) {
  EXPECT_DOUBLE_EQ(PerformanceIndex(100, 100, 10), 9e7);
  EXPECT_DOUBLE_EQ(PerformanceIndex(50, 80, 20), 2500.0 * 80 * 80);
  LaserExperiment e;
  e.densities = {15, 35};
  e.configurations = {{"a"}, {"b"}};
  auto row = [](const std::string& c, double d, bool solved, double eff, double t) {
    EpisodeRow r;
    r.configuration = c;
    r.density = d;
    r.result.solved = solved;
    r.result.efficiency = eff;
    r.result.time_s = t;
    return r;
  };
  // a: both solved at 15 %, one of two at 35 %; b: one of two at 15 %, both at 35 % (slower).
  const std::vector<EpisodeRow> rows = {row("a", 15, true, 0.9, 10), row("a", 15, true, 0.9, 10),
                                        row("a", 35, true, 0.8, 20), row("a", 35, false, 0, 200),
                                        row("b", 15, true, 0.9, 10), row("b", 15, false, 0, 200),
                                        row("b", 35, true, 0.8, 40), row("b", 35, true, 0.8, 40)};
  const LaserSummary s = Summarise(e, rows);
  ASSERT_EQ(s.cells.size(), 4u);
  EXPECT_DOUBLE_EQ(s.cells[0].performance_index, PerformanceIndex(100, 90, 10));
  EXPECT_DOUBLE_EQ(s.cells[1].performance_index, PerformanceIndex(50, 80, 20));
  EXPECT_DOUBLE_EQ(s.cells[3].performance_index, PerformanceIndex(100, 80, 40));
  EXPECT_DOUBLE_EQ(s.cells[0].normalised_index, 1.0);
  EXPECT_DOUBLE_EQ(s.cells[2].normalised_index, 0.25);  // 50² vs 100² at equal efficiency and time
  EXPECT_DOUBLE_EQ(s.cells[3].normalised_index, 1.0);
  EXPECT_NEAR(s.totals[0].summed_normalised_index, 1.0 + PerformanceIndex(50, 80, 20) / PerformanceIndex(100, 80, 40),
              1e-12);
  EXPECT_DOUBLE_EQ(s.totals[1].summed_normalised_index, 1.25);
  EXPECT_EQ(s.optimum, "a");  // 1 + 1/3 against 0.25 + 1
  EXPECT_NE(SummaryMarkdown(e, s).find("Optimum configuration: **a**"), std::string::npos);
}

TEST(LaserExperimentDefinition, SweepExpandsAndEveryShippedFileLoads) {
  const fs::path dir = TempDir("defs");
  const LaserExperiment e = LoadLaserExperiment(
      WriteYaml(dir, "sweep", "controller: static\nsweep: {og: [3, 5], ng: [1, 2, 3]}\nworlds: {count: 2}\n"));
  ASSERT_EQ(e.configurations.size(), 6u);
  EXPECT_EQ(e.configurations[0].label, "OG=3 NG=1");
  EXPECT_EQ(e.configurations[5].static_options.gains.og, 5);
  EXPECT_EQ(e.configurations[5].static_options.gains.ng, 3);
  EXPECT_EQ(e.EpisodeCount(), 5 * 2 * 6);
  int shipped = 0;
  for (const auto& file : ListLaserExperimentFiles(std::string(LIMBIC_SOURCE_ROOT) + "/experiments/laser")) {
    EXPECT_NO_THROW(LoadLaserExperiment(file)) << file;
    ++shipped;
  }
  EXPECT_GE(shipped, 4);
  fs::remove_all(dir);
}

TEST(LaserExperimentDefinition, BadDefinitionsNameTheKey) {
  const fs::path dir = TempDir("bad");
  auto fails_with = [&](const std::string& name, const std::string& body, const std::string& needle) {
    try {
      LoadLaserExperiment(WriteYaml(dir, name, body));
      ADD_FAILURE() << name << " loaded";
    } catch (const config::ConfigError& e) {
      EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
    }
  };
  fails_with("typo", "controler: static\n", "controler");
  fails_with("density", "densities: [10]\n", "densities");
  fails_with("nan_gain", "static: {og: .nan}\n", "og");
  fails_with("form", "sweep: {weight_form: [cubic]}\n", "weight_form");
  fails_with("other", "controller: cbr\nstatic: {og: 3}\n", "static");
  fails_with("tgg", "static: {tgg: 2}\n", "tgg");
  fails_with("limit", "episode: {time_limit_s: -1}\n", "time_limit_s");
  fails_with("kind", "kind: movies\n", "kind");
  EXPECT_THROW(LoadLaserExperiment((dir / "missing.yaml").string()), config::ConfigError);
  fs::remove_all(dir);
}

// E5 (§2.7): the recurrent network's keys are checked as strictly as the others.
TEST(LaserExperimentDefinition, RecurrentDefinitionsAreLoadedStrictly) {
  const fs::path dir = TempDir("rnn");
  auto fails_with = [&](const std::string& name, const std::string& body, const std::string& needle) {
    try {
      LoadLaserExperiment(WriteYaml(dir, name, body));
      ADD_FAILURE() << name << " loaded";
    } catch (const config::ConfigError& e) {
      EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
    }
  };
  const std::string evolution = "kind: evolution\ncontroller: rnn\n";
  fails_with("rnn_key", evolution + "rnn: {sector: min}\n", "unknown rnn controller key 'sector'");
  fails_with("rnn_value", evolution + "rnn: {sectors: max}\n", "sectors must be min or mean, got 'max'");
  fails_with("rnn_frame", evolution + "rnn: {frame: robot}\n", "frame must be world or body");
  fails_with("rnn_big", evolution + "evolution: {network_neurons: 51}\n", "network_neurons");
  fails_with("rnn_zero", evolution + "evolution: {network_neurons: 0}\n", "network_neurons");
  fails_with("rnn_small_population", evolution + "evolution: {network_neurons: 10, population: 8}\n",
             "at least one network's 10 neurons");
  fails_with("rnn_bad_evolution_key", evolution + "evolution: {neurons: 10}\n", "neurons");
  fails_with("nn_neurons", "kind: evolution\ncontroller: nn\nevolution: {network_neurons: 5}\n",
             "is for controller: rnn");
  fails_with("rnn_with_nn_block", evolution + "nn: {output_scale: 3}\n", "is for another controller");
  fails_with("rnn_episodes_without_network", "controller: rnn\nworlds: {count: 1}\n", "controller rnn needs a network");
  fails_with("rnn_missing_network", "controller: rnn\nrnn: {network: nowhere.txt}\n", "nowhere.txt: cannot open");
  // A network file with a wrong neuron count is refused at load, naming the file.
  std::ofstream(dir / "three.txt") << "recurrent_network 3\n";
  fails_with("rnn_short_network", "controller: rnn\nrnn: {network: three.txt}\n", "declares 3 neurons, found 0");
  // The defaults: 50 neurons per network unless said otherwise.
  const LaserExperiment e = LoadLaserExperiment(WriteYaml(dir, "rnn_ok", evolution + "rnn: {sectors: mean}\n"));
  EXPECT_EQ(e.evolution.sane.network_size, kRnnMaxNeurons);
  EXPECT_EQ(e.configurations.front().rnn_options.sectors, SectorReduction::kMean);
  EXPECT_EQ(e.configurations.front().rnn_options.frame, RnnFrame::kWorld);
  fs::remove_all(dir);
}

TEST(LaserRender, DrawsObstaclesPathsAndScan) {
  const World w = GenerateWorld(15, 0);
  RenderLayers layers;
  layers.title = "a <b>";
  layers.optimal_path = OptimalPath(w).path;
  layers.trajectory = {{w.start.x, w.start.y}, {w.start.x, w.start.y + 50}};
  const std::string svg = RenderWorldSvg(w, layers);
  size_t circles = 0;
  for (size_t p = svg.find("<circle"); p != std::string::npos; p = svg.find("<circle", p + 1)) ++circles;
  EXPECT_EQ(circles, w.obstacles.size() + 1);  // obstacles and the start
  EXPECT_NE(svg.find("magenta"), std::string::npos);
  EXPECT_NE(svg.find("blue"), std::string::npos);
  EXPECT_NE(svg.find("a &lt;b&gt;"), std::string::npos);
}

// E6/E7 in process: memory: false is the case-based controller exactly; with map runs the second run starts
// from the first run's map; the map statistics reach runs.csv and summary.md, the map the pictures.
TEST(LaserMemory, WithAndWithoutTheMapAndARetainedMap) {
  const fs::path dir = TempDir("memory");
  const LaserExperiment cbr = LoadLaserExperiment(WriteYaml(
      dir, "plain", "controller: cbr\ndensities: [25]\nworlds: {first: 2, count: 1}\nepisode: {time_limit_s: 20}\n"));
  const LaserExperiment mem = LoadLaserExperiment(
      WriteYaml(dir, "mem",
                "controller: memory\ndensities: [25]\nworlds: {first: 2, count: 1}\nepisode: {time_limit_s: 20}\n"
                "sweep: {memory: [false, true]}\nmap_runs: 2\nsnapshot_every_s: 10\ntrajectories: 1\n"));
  ASSERT_EQ(mem.configurations.size(), 2u);
  RunOptions o;
  o.progress = false;
  const RunOutput plain = RunLaserExperiment(cbr, o);
  o.out_dir = (dir / "out").string();
  fs::create_directories(o.out_dir);
  const RunOutput out = RunLaserExperiment(mem, o);
  ASSERT_EQ(plain.episodes.size(), 1u);
  ASSERT_EQ(out.episodes.size(), 4u);  // 2 configurations × 2 runs
  EXPECT_EQ(out.episodes[0].configuration, "memory=false run 1");
  EXPECT_EQ(out.episodes[3].configuration, "memory=true run 2");
  for (int k : {0, 1}) {  // without the map: the case-based controller, cycle for cycle, in both runs
    EXPECT_EQ(out.episodes[k].result.cycles, plain.episodes[0].result.cycles);
    EXPECT_EQ(out.episodes[k].result.path_cm, plain.episodes[0].result.path_cm);
    EXPECT_EQ(out.episodes[k].map_nodes, 0);
  }
  const EpisodeRow& first = out.episodes[2];
  const EpisodeRow& second = out.episodes[3];
  EXPECT_GT(first.map_nodes, 1);
  EXPECT_GE(second.map_nodes, first.map_nodes);  // it starts from the first run's map
  EXPECT_GT(first.map_stats.map_updates, 0);
  const std::string runs = ReadFile(fs::path(o.out_dir) / "runs.csv");
  EXPECT_NE(runs.find("t_MapFollowing,run,map_nodes,links_per_node,plans"), std::string::npos);
  const std::string md = ReadFile(fs::path(o.out_dir) / "summary.md");
  EXPECT_NE(md.find("nodes per world"), std::string::npos);
  EXPECT_NE(md.find("memory=true run 2"), std::string::npos);
  const std::string svg = ReadFile(fs::path(o.out_dir) / "trajectory_memory_true_run_2_d25_w3.svg");
  EXPECT_NE(svg.find("orange"), std::string::npos);  // links
  EXPECT_NE(svg.find("<title>node 0"), std::string::npos);
  EXPECT_TRUE(fs::exists(fs::path(o.out_dir) / "snapshot_memory_true_run_1_d25_w3_t0010.svg"));
  auto fails_with = [&](const std::string& name, const std::string& body, const std::string& needle) {
    try {
      LoadLaserExperiment(WriteYaml(dir, name, body));
      ADD_FAILURE() << name << " loaded";
    } catch (const config::ConfigError& e) {
      EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
    }
  };
  fails_with("runs", "controller: cbr\nmap_runs: 2\n", "map_runs");
  fails_with("zero", "controller: memory\nmap_runs: 0\n", "map_runs");
  fails_with("key", "controller: memory\nmemory: {frobnicate: 1}\n", "unknown memory controller key 'frobnicate'");
  fails_with("every", "controller: memory\nmemory: {map_every_cycles: 0}\n", "map_every_cycles");
  fs::remove_all(dir);
}

// The runner end to end through `limbic laser` (seconds): rows, summary, pictures, and its errors.
// E9: `compare` runs several controllers side by side on the same worlds and seeds; the nn entry gets its
// network at run time (--set nn.network=FILE), and without one the run is refused before any episode.
TEST(LaserCompare, ControllersSideBySideWithTheirOwnSettings) {
  const fs::path dir = TempDir("compare");
  std::mt19937_64 rng(5);
  Network net;
  for (Neuron& n : net) n = RandomNeuron(rng);
  {
    std::ofstream out(dir / "net.txt");
    SaveNetwork(net, out);
  }
  const std::string file = WriteYaml(dir, "cmp", R"(section: "E9"
description: four controllers
densities: [20]
worlds: {first: 0, count: 2}
episode: {time_limit_s: 8}
compare:
  - {label: static, controller: static, og: 7, ng: 1}
  - {label: cbr, controller: cbr}
  - {label: nn, controller: nn}
  - {label: memory, controller: memory, end_when_stalled: true}
)");
  const LaserExperiment e = LoadLaserExperiment(file);
  EXPECT_EQ(e.controller, "compare");
  ASSERT_EQ(e.configurations.size(), 4u);
  EXPECT_EQ(e.configurations[0].controller, "static");
  EXPECT_DOUBLE_EQ(e.configurations[0].static_options.gains.og, 7.0);
  EXPECT_DOUBLE_EQ(e.configurations[0].static_options.gains.ng, 1.0);
  EXPECT_TRUE(e.configurations[3].memory_options.end_when_stalled);
  EXPECT_FALSE(e.configurations[2].network_given);

  RunOptions options;
  options.jobs = 2;
  options.progress = false;
  options.out_dir = (dir / "out").string();
  fs::create_directories(options.out_dir);
  EXPECT_THROW(RunLaserExperiment(e, options), config::ConfigError);  // nn has no network
  EXPECT_FALSE(fs::exists(dir / "out" / "runs.csv"));
  options.overrides = {"nn.network=" + (dir / "net.txt").string()};
  const RunOutput out = RunLaserExperiment(e, options);
  ASSERT_EQ(out.episodes.size(), 8u);  // 4 configurations × 2 worlds
  for (const EpisodeRow& r : out.episodes) EXPECT_GT(r.result.cycles, 0) << r.configuration;
  // Each controller as it runs alone: the static entry's row is the static controller's with OG 7, NG 1.
  LaserExperiment alone = e;
  alone.controller = "static";
  LaserConfiguration s = e.configurations[0];
  const World w = GenerateWorld(20, 0, e.library_salt, e.world);
  const EpisodeRow reference = RunLaserEpisode(alone, s, w, EpisodeSeed(e.seed, 20, 0), false);
  EXPECT_EQ(out.episodes[0].configuration, "static");
  EXPECT_EQ(out.episodes[0].result.cycles, reference.result.cycles);
  EXPECT_DOUBLE_EQ(out.episodes[0].result.path_cm, reference.result.path_cm);
  const std::string md = ReadFile(dir / "out" / "summary.md");
  EXPECT_NE(md.find("## Across the controllers (E9)"), std::string::npos) << md;
  EXPECT_NE(md.find("| density | static | cbr | nn | memory |"), std::string::npos) << md;

  // A relative file on the command line is relative to the working directory (not to the definition's).
  {
    const fs::path here = fs::current_path();
    fs::create_directories(dir / "cwd");
    fs::copy_file(dir / "net.txt", dir / "cwd" / "mine.txt");
    fs::current_path(dir / "cwd");
    LaserExperiment relative = e;
    EXPECT_NO_THROW(ApplyConfigurationOverrides(&relative, {"nn.network=mine.txt"}));
    EXPECT_TRUE(relative.configurations[2].network_given);
    EXPECT_EQ(relative.configurations[2].nn_options.network, net);
    EXPECT_THROW(ApplyConfigurationOverrides(&relative, {"nn.network=net.txt"}), config::ConfigError);  // not here
    fs::current_path(here);
  }
  // Overrides that cannot apply are refused by name.
  options.overrides = {"rnn.network=x"};
  EXPECT_THROW(RunLaserExperiment(e, options), config::ConfigError);
  options.overrides = {"cbr.no_such_key=1"};
  EXPECT_THROW(RunLaserExperiment(e, options), config::ConfigError);
  options.overrides = {"nn.network"};
  EXPECT_THROW(RunLaserExperiment(e, options), config::ConfigError);
  options.overrides = {"nn.network=" + (dir / "missing.txt").string()};
  EXPECT_THROW(RunLaserExperiment(e, options), config::ConfigError);
  // Bad compare definitions.
  EXPECT_THROW(
      LoadLaserExperiment(WriteYaml(dir, "c1", "controller: cbr\ncompare:\n  - {label: a, controller: cbr}\n")),
      config::ConfigError);
  EXPECT_THROW(LoadLaserExperiment(WriteYaml(
                   dir, "c2", "compare:\n  - {label: a, controller: cbr}\n  - {label: a, controller: static}\n")),
               config::ConfigError);
  EXPECT_THROW(LoadLaserExperiment(WriteYaml(dir, "c3", "compare:\n  - {label: a, controller: fuzzy}\n")),
               config::ConfigError);
  EXPECT_THROW(LoadLaserExperiment(WriteYaml(dir, "c4", "compare:\n  - {label: a, controller: cbr, og: 3}\n")),
               config::ConfigError);
  EXPECT_THROW(
      LoadLaserExperiment(WriteYaml(dir, "c5", "compare:\n  - {label: a, controller: cbr}\nsweep: {og: [1]}\n")),
      config::ConfigError);
  fs::remove_all(dir);
}

// E8: the memory controller's CPU time split by stage and its map weighed; only for controller memory.
TEST(LaserCost, StagesAreTimedAndTheMapWeighed) {
  const fs::path dir = TempDir("cost");
  const std::string file = WriteYaml(dir, "cost", R"(section: "E8"
description: cost
controller: memory
cost: true
densities: [25]
worlds: {first: 3, count: 1}
episode: {time_limit_s: 30}
)");
  const LaserExperiment e = LoadLaserExperiment(file);
  EXPECT_TRUE(e.cost);
  RunOptions options;
  options.progress = false;
  options.out_dir = (dir / "out").string();
  fs::create_directories(options.out_dir);
  const RunOutput out = RunLaserExperiment(e, options);
  ASSERT_EQ(out.episodes.size(), 1u);
  const EpisodeRow& r = out.episodes[0];
  ASSERT_GT(r.map_nodes, 0) << "pick a world where the map layer builds a map";
  EXPECT_GT(r.cost.sim_ns, 0);
  EXPECT_GT(r.cost.map.perception_ns, 0);
  EXPECT_GT(r.cost.map.mapping_ns, 0);
  // The map layer's stages are part of the controller's step.
  EXPECT_LT(r.cost.map.perception_ns + r.cost.map.mapping_ns + r.cost.map.planning_ns + r.cost.map.following_ns,
            r.cost.controller_ns);
  EXPECT_GE(r.cost.bytes_per_node_memory, static_cast<double>(sizeof(TopoNode)));
  EXPECT_GT(r.cost.bytes_per_node_bus, 0.0);
  // The same episode without timing is the same episode (the clock only watches).
  LaserExperiment untimed = e;
  untimed.cost = false;
  const EpisodeRow plain = RunMemoryEpisode(untimed, e.configurations[0], GenerateWorld(25, 3, e.library_salt, e.world),
                                            EpisodeSeed(e.seed, 25, 3), false, TopoMap{});
  EXPECT_EQ(plain.result.cycles, r.result.cycles);
  EXPECT_DOUBLE_EQ(plain.result.path_cm, r.result.path_cm);
  EXPECT_EQ(plain.cost.controller_ns, 0);
  const std::string md = ReadFile(dir / "out" / "summary.md");
  EXPECT_NE(md.find("## Cost (E8)"), std::string::npos) << md;
  EXPECT_NE(ReadFile(dir / "out" / "runs.csv").find("perception_ns"), std::string::npos);
  EXPECT_THROW(LoadLaserExperiment(WriteYaml(dir, "c2", "controller: cbr\ncost: true\n")), config::ConfigError);
  fs::remove_all(dir);
}

// E2c (kind: field): every world's potential minima, the per-density summary and the pictures.
TEST(LaserField, MinimaPerWorldSummaryAndPictures) {
  const fs::path dir = TempDir("field");
  const std::string file = WriteYaml(dir, "field", R"(section: "E2c"
description: field
kind: field
densities: [15, 35]
worlds: {first: 0, count: 2}
field: {cell_cm: 20, og: 7}
trajectories: 1
)");
  const LaserExperiment e = LoadLaserExperiment(file);
  EXPECT_EQ(e.EpisodeCount(), 4);
  EXPECT_EQ(e.field.cell_cm, 20.0);
  EXPECT_EQ(e.field.gains.og, 7.0);
  RunOptions options;
  options.progress = false;
  options.jobs = 2;
  options.out_dir = (dir / "out").string();
  fs::create_directories(options.out_dir);
  const RunOutput out = RunLaserExperiment(e, options);
  ASSERT_EQ(out.worlds.size(), 4u);
  for (const WorldRow& r : out.worlds) {
    // The experiment's numbers are the library's own field, computed again here.
    VectorFieldOptions o;
    o.cell_cm = 20.0;
    o.gains.og = 7.0;
    const VectorField f = ComputeVectorField(GenerateWorld(r.density, r.world, e.library_salt, e.world), o);
    EXPECT_EQ(r.free_cells, f.free_cells);
    EXPECT_EQ(r.minimum_cells, f.minima);
    const std::vector<MinimumRegion> places = MinimumRegions(f);
    EXPECT_EQ(r.minimum_places, static_cast<int>(places.size()));
    const World w = GenerateWorld(r.density, r.world, e.library_salt, e.world);
    int near = 0;
    for (const MinimumRegion& p : places) near += Norm(p.centroid - w.goal) <= 50.0;
    EXPECT_EQ(r.minimum_places_near_goal, near);
    EXPECT_GT(r.free_cells, 0);
  }
  const std::string csv = ReadFile(dir / "out" / "fields.csv");
  EXPECT_NE(csv.find("minimum_places"), std::string::npos) << csv;
  EXPECT_EQ(std::count(csv.begin(), csv.end(), '\n'), 5);
  const std::string md = ReadFile(dir / "out" / "summary.md");
  EXPECT_NE(md.find("places per world"), std::string::npos) << md;
  EXPECT_NE(md.find("away from the goal"), std::string::npos) << md;
  EXPECT_NE(md.find("| 35 | 2 |"), std::string::npos) << md;
  EXPECT_TRUE(fs::exists(dir / "out" / "field_d15_w1.svg"));
  EXPECT_FALSE(fs::exists(dir / "out" / "field_d15_w2.svg"));
  EXPECT_NE(ReadFile(dir / "out" / "field_d15_w1.svg").find("marker-end"), std::string::npos);
  // Field settings are checked, and only where they mean something.
  EXPECT_THROW(LoadLaserExperiment(WriteYaml(dir, "f2", "kind: field\nfield: {threshold_deg: 190}\n")),
               config::ConfigError);
  EXPECT_THROW(LoadLaserExperiment(WriteYaml(dir, "f3", "kind: field\nfield: {cel_cm: 10}\n")), config::ConfigError);
  EXPECT_THROW(LoadLaserExperiment(WriteYaml(dir, "f4", "controller: static\nfield: {cell_cm: 10}\n")),
               config::ConfigError);
  fs::remove_all(dir);
}

// E3's case studies: every episode classified, counts in the summary, pictures of the first failures.
TEST(LaserCaseStudies, EveryEpisodeIsClassifiedAndFailuresAreDrawn) {
  const fs::path dir = TempDir("cases");
  const std::string file = WriteYaml(dir, "cases", R"(section: "E3"
description: cases
controller: cbr
densities: [35]
worlds: {first: 0, count: 4}
episode: {time_limit_s: 40}
case_studies: {pictures: 1}
field: {cell_cm: 20}
)");
  const LaserExperiment e = LoadLaserExperiment(file);
  ASSERT_TRUE(e.case_studies);
  RunOptions options;
  options.progress = false;
  options.jobs = 2;
  options.out_dir = (dir / "out").string();
  fs::create_directories(options.out_dir);
  const RunOutput out = RunLaserExperiment(e, options);
  ASSERT_EQ(out.episodes.size(), 4u);
  int unsolved = 0;
  for (const EpisodeRow& r : out.episodes) {
    EXPECT_EQ(r.failure == "solved", r.result.solved) << r.failure;
    EXPECT_FALSE(r.failure.empty());
    EXPECT_TRUE(r.result.trajectory.empty());  // drawn and let go
    if (r.result.solved) {
      EXPECT_EQ(r.minima_visits, 0);
    }
    if (!r.result.solved) {
      ++unsolved;
      const fs::path picture =
          dir / "out" / ("case_" + r.failure + "_cbr_d35_w" + std::to_string(r.world + 1) + ".svg");
      bool first_of_kind = true;
      for (const EpisodeRow& q : out.episodes) {
        if (&q == &r) break;
        if (q.failure == r.failure) first_of_kind = false;
      }
      EXPECT_EQ(fs::exists(picture), first_of_kind) << picture;
    }
  }
  EXPECT_GT(unsolved, 0) << "pick worlds where the case-based controller fails within 40 s";
  const std::string runs = ReadFile(dir / "out" / "runs.csv");
  EXPECT_NE(runs.find(",failure,minima_visits"), std::string::npos);
  const std::string md = ReadFile(dir / "out" / "summary.md");
  EXPECT_NE(md.find("## Failure case studies (E3)"), std::string::npos) << md;
  EXPECT_THROW(LoadLaserExperiment(WriteYaml(dir, "c2", "kind: field\ncase_studies: {pictures: 1}\n")),
               config::ConfigError);
  EXPECT_THROW(LoadLaserExperiment(WriteYaml(dir, "c3", "controller: cbr\ncase_studies: {circulating_factor: 0.5}\n")),
               config::ConfigError);
  fs::remove_all(dir);
}

TEST(LaserCli, SmokeExperimentWritesRowsSummaryAndPictures) {
  const std::string exe = std::string(LIMBIC_BUILD_BIN_DIR) + "/limbic-laser";
  const fs::path out = TempDir("smoke");
  std::string text;
  ASSERT_EQ(RunCommand(exe + " experiment run laser_smoke --jobs 2 --out " + out.string(), &text), 0) << text;
  const std::string runs = ReadFile(out / "runs.csv");
  EXPECT_EQ(std::count(runs.begin(), runs.end(), '\n'), 1 + 2 * 3 * 2);  // header + densities × worlds × OG
  EXPECT_NE(ReadFile(out / "summary.md").find("OG=5"), std::string::npos);
  EXPECT_NE(text.find("Optimum configuration"), std::string::npos);
  EXPECT_TRUE(fs::exists(out / "trajectory_OG_3_d15_w1.svg"));
  // The same seeds give the same rows.
  const fs::path again = TempDir("smoke2");
  ASSERT_EQ(RunCommand(exe + " experiment run laser_smoke --jobs 1 --out " + again.string(), &text), 0) << text;
  EXPECT_EQ(ReadFile(again / "runs.csv"), runs);
  EXPECT_EQ(RunCommand(exe + " experiment run no_such_thing --out " + out.string(), &text), 2);
  EXPECT_NE(text.find("no laser experiment named 'no_such_thing'"), std::string::npos) << text;
  EXPECT_EQ(RunCommand(exe + " experiment run laser_smoke --jobs 0", &text), 2);
  EXPECT_EQ(RunCommand(exe + " world --density 50 --index 1", &text), 2);
  EXPECT_NE(text.find("outside 15..35"), std::string::npos) << text;
  EXPECT_EQ(RunCommand(exe + " world --density nan --index 1", &text), 2);
  EXPECT_NE(text.find("--density needs a finite number, got 'nan'"), std::string::npos) << text;
  EXPECT_EQ(RunCommand(exe + " world --density 20 --index 1x", &text), 2);
  EXPECT_EQ(RunCommand(exe + " world --world " + (out / "missing.txt").string(), &text), 1);
  EXPECT_EQ(
      RunCommand(exe + " render --density 20 --index 3 --controller cbr --out " + (out / "w.svg").string(), &text), 0)
      << text;
  EXPECT_NE(ReadFile(out / "w.svg").find("<svg"), std::string::npos);
  // E2c for one world: the places are printed, the picture and the table written; bad values are refused.
  EXPECT_EQ(RunCommand(exe + " field --density 15 --index 0 --cell 20 --out " + (out / "f.svg").string() + " --csv " +
                           (out / "f.csv").string(),
                       &text),
            0)
      << text;
  EXPECT_NE(text.find("potential-minimum cells"), std::string::npos) << text;
  EXPECT_NE(ReadFile(out / "f.svg").find("potential minima"), std::string::npos);
  EXPECT_NE(ReadFile(out / "f.csv").find("x_cm,y_cm,free,heading_deg"), std::string::npos);
  EXPECT_EQ(RunCommand(exe + " field --density 15 --index 0 --threshold 0", &text), 2);
  EXPECT_NE(text.find("minimum_angle_deg"), std::string::npos) << text;
  EXPECT_EQ(RunCommand(exe + " field --cell 20", &text), 2);  // no world
  EXPECT_EQ(RunCommand(exe + " frobnicate", &text), 2);
  // `limbic experiment` lists the laser experiments and hands them to `limbic laser`.
  const std::string runner = std::string(LIMBIC_BUILD_BIN_DIR) + "/limbic-experiment";
  if (fs::exists(runner)) {
    EXPECT_EQ(RunCommand(runner + " list", &text), 0) << text;
    EXPECT_NE(text.find("laser_e3_case_based"), std::string::npos);
    EXPECT_NE(text.find("laser_e5_recurrent"), std::string::npos);
    const fs::path via = out / "via";
    EXPECT_EQ(RunCommand(runner + " run laser_smoke --jobs 1 --out " + via.string(), &text), 0) << text;
    EXPECT_EQ(ReadFile(via / "runs.csv"), runs);
  }
  fs::remove_all(out);
  fs::remove_all(again);
}

}  // namespace
}  // namespace limbic::laser
