// limbic-laser (`limbic laser ...`): the laser navigator of spec reactive-topological — its experiments
// (E1–E4), the evolution of the network controller, one world, one episode, and pictures of worlds with
// trajectories.
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <memory>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "common/config/config.hpp"
#include "common/flags/flags.hpp"
#include "services/laser_nav/vector_field.hpp"
#include "services/laser_sim/office.hpp"
#include "sim/environment.hpp"
#include "tools/laser/laser_evolve.hpp"
#include "tools/laser/laser_experiment.hpp"
#include "tools/laser/laser_render.hpp"
#include "tools/laser/laser_summary.hpp"

namespace limbic::laser {
namespace {

namespace fs = std::filesystem;

using flags::UsageError;

const char* kUsage = R"(usage: limbic laser <command> [options]

The laser navigator (spec reactive-topological): 660 cm rooms of circular obstacles at 15–35 % density, a
360-beam laser and compass, and reactive controllers at 100 Hz — static (Eq. 4-1), case-based (Appendix A)
the evolved feed-forward network (trained by symbiotic evolution) and the recurrent network attempt (E5,
the same evolution).

commands:
  experiment list                          the laser experiments (E1–E7): name, section, episodes
  experiment run NAME [--jobs N] [--out DIR] [--limit-worlds N] [--set LABEL.KEY=VALUE ...]
                                           run one; writes DIR/runs.csv (E1: worlds.csv), summary.csv,
                                           summary.md and trajectory_*.svg; prints the summary. An
                                           evolution (E4) first evolves (as `evolve`, resuming from
                                           DIR/checkpoint.txt), then tests each generation's best network.
                                           --set: a controller setting of the configuration LABEL, e.g.
                                           E9's --set nn.network=e4/networks/generation_100.txt
  evolve NAME [--jobs N] [--out DIR] [--generations N] [--stop-after K] [--fresh]
                                           symbiotic evolution of an evolution definition: per-generation
                                           progress with ETA, DIR/generations.csv, DIR/checkpoint.txt
                                           after every generation (a rerun resumes from it; --fresh starts
                                           over), DIR/networks/generation_NNN.txt (each generation's best),
                                           DIR/progress.md (first vs last 5 generations: progressed?)
  evolve NAME --out DIR (--shard K/N | --collate N) [--jobs N]
                                           on a cluster (one Slurm array task per shard): evaluate shard K
                                           of N of the next generation into DIR/shards/, then collate the N
                                           shards into that generation (the same as an unsharded one);
                                           repeat per generation
  world --density D --index I [--salt S] [--out FILE]
                                           generate one world (and save it as text)
  episode (--density D | --office SET) --index I [--controller static|cbr|nn|rnn|memory] [--network FILE]
          [--seed N] [--laser-error M] [--out FILE.svg]
                                           one episode: its metrics, and optionally its picture (nn and
                                           rnn need --network, a file written by evolve). --office:
                                           environment I of the hybrid navigator's set SET (A, B, C, F,
                                           G; --salt is its seed, 1 as in every navigation experiment)
                                           instead of a room
  render (--density D --index I [--salt S] | --office SET --index I | --world FILE) --out FILE.svg
         [--controller static|cbr|nn|rnn|memory] [--network FILE]
                                           a world with its optimal path (magenta) and, with a
                                           controller, the robot's trajectory (blue) and first scan (red)
  field (--density D --index I [--salt S] | --office SET --index I | --world FILE) [--out FILE.svg]
        [--csv FILE] [--cell CM] [--gg G] [--og G] [--s CM] [--threshold DEG]
                                           E2c: the static law's resultant with NG = 0 at every 10 cm
                                           cell where the robot fits (noise-free laser; defaults GG 6,
                                           OG 5, S 250) and its potential minima: cells whose neighbour's
                                           heading differs by more than 150 deg, grouped into places;
                                           the picture draws the headings and the minima (red)

examples:
  limbic laser experiment list
  limbic laser experiment run laser_e3_case_based --jobs 2 --limit-worlds 20 --out /tmp/e3
  limbic laser evolve laser_e4_smoke --out /tmp/e4s
  limbic laser evolve laser_e4_evolution --jobs 2 --stop-after 1 --out /tmp/e4   # one generation; rerun resumes
  limbic laser episode --density 15 --index 0 --controller nn --network /tmp/e4s/networks/generation_002.txt
  limbic laser evolve laser_e5_smoke --out /tmp/e5s
  limbic laser episode --density 15 --index 0 --controller rnn --network /tmp/e5s/networks/generation_003.txt
  limbic laser evolve laser_e4_smoke --out /tmp/e4sh --shard 1/2
  limbic laser evolve laser_e4_smoke --out /tmp/e4sh --shard 2/2   # then:
  limbic laser evolve laser_e4_smoke --out /tmp/e4sh --collate 2
  limbic laser world --density 25 --index 134 --out w135.txt
  limbic laser episode --density 15 --index 0 --controller cbr
  limbic laser render --density 20 --index 68 --controller cbr --out world69.svg
  limbic laser episode --office B --index 4 --controller cbr --out office_b4.svg
  limbic laser field --density 15 --index 134 --out field135.svg
  limbic laser field --density 35 --index 0 --og 7 --gg 6 --csv field.csv
)";

bool IsHelp(const std::string& a) { return a == "--help" || a == "-h" || a == "help"; }

void Write(const std::string& path, const std::string& text) {
  std::ofstream out(path);
  if (!(out << text) || !out.flush()) throw std::runtime_error("cannot write " + path);
}

int CmdExperimentList() {
  std::cout << std::left << std::setw(28) << "NAME" << std::setw(10) << "SECTION" << std::setw(12) << "EPISODES"
            << "DESCRIPTION\n";
  int bad = 0;
  for (const std::string& file : ListLaserExperimentFiles()) {
    try {
      const LaserExperiment e = LoadLaserExperiment(file);
      std::string d = e.description;
      for (char& c : d)
        if (c == '\n') c = ' ';
      if (d.size() > 80) d = d.substr(0, 77) + "...";
      std::cout << std::left << std::setw(28) << e.name << std::setw(10) << e.section << std::setw(12)
                << e.EpisodeCount() << d << "\n";
    } catch (const std::exception& ex) {
      ++bad;
      std::cerr << "limbic laser: error: " << ex.what() << "\n";
    }
  }
  return bad ? 1 : 0;
}

int CmdExperimentRun(const std::vector<std::string>& args) {
  std::string name, out_dir;
  RunOptions options;
  options.jobs = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  for (size_t i = 0; i < args.size(); ++i) {
    if (IsHelp(args[i])) {
      std::cout << kUsage;
      return 0;
    } else if (args[i] == "--jobs") {
      options.jobs = flags::ParseInt("--jobs", flags::NextValue(args, &i), 1, 1024);
    } else if (args[i] == "--out") {
      out_dir = flags::NextValue(args, &i);
    } else if (args[i] == "--limit-worlds") {
      options.limit_worlds = flags::ParseInt("--limit-worlds", flags::NextValue(args, &i), 1);
    } else if (args[i] == "--set") {
      options.overrides.push_back(flags::NextValue(args, &i));
    } else if (args[i].rfind("-", 0) == 0) {
      throw UsageError("experiment run: unknown option '" + args[i] + "' (see --help)");
    } else if (name.empty()) {
      name = args[i];
    } else {
      throw UsageError("experiment run takes one name, got '" + name + "' and '" + args[i] + "'");
    }
  }
  if (name.empty()) throw UsageError("experiment run needs a name (limbic laser experiment list)");
  LaserExperiment e;
  try {
    e = FindLaserExperiment(name);
  } catch (const config::ConfigError& err) {
    throw UsageError(err.what());
  }
  if (out_dir.empty()) out_dir = "results/" + e.name;
  std::error_code ec;
  fs::create_directories(out_dir, ec);
  if (ec || !fs::is_directory(out_dir)) throw std::runtime_error("cannot create output directory " + out_dir);
  options.out_dir = out_dir;
  const int worlds = options.limit_worlds > 0 ? std::min(options.limit_worlds, e.worlds) : e.worlds;
  std::cerr << e.name << " (" << e.source << "): " << e.densities.size() << " densities x " << worlds << " worlds"
            << (e.kind == "episodes" ? " x " + std::to_string(e.configurations.size()) + " configurations" : "")
            << " with " << options.jobs << " jobs -> " << out_dir << "\n";
  if (e.kind == "evolution") {
    const RunOutput out = RunEvolutionExperiment(e, options);
    std::ifstream summary(fs::path(out_dir) / "summary.md");
    if (summary) std::cout << summary.rdbuf() << "\n";
    std::ifstream progress(fs::path(out_dir) / "progress.md");
    if (progress) std::cout << progress.rdbuf();
    std::cout << "\nevolution log " << (fs::path(out_dir) / "generations.csv").string() << "; " << out.episodes.size()
              << " test episodes in " << std::fixed << std::setprecision(1) << out.wall_s << " s; results in "
              << out_dir << "\n";
    return 0;
  }
  const RunOutput out = RunLaserExperiment(e, options);
  std::ifstream summary(fs::path(out_dir) / "summary.md");
  std::cout << summary.rdbuf();
  std::cout << "\n"
            << (e.kind == "episodes" ? out.episodes.size() : out.worlds.size())
            << (e.kind == "episodes" ? " episodes" : " worlds") << " in " << std::fixed << std::setprecision(1)
            << out.wall_s << " s; results in " << out_dir << "\n";
  return 0;
}

int CmdEvolve(const std::vector<std::string>& args) {
  std::string name, out_dir;
  EvolveOptions options;
  options.jobs = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  bool fresh = false;
  int shard_k = 0, shard_n = 0, collate = 0;
  for (size_t i = 0; i < args.size(); ++i) {
    if (IsHelp(args[i])) {
      std::cout << kUsage;
      return 0;
    } else if (args[i] == "--jobs") {
      options.jobs = flags::ParseInt("--jobs", flags::NextValue(args, &i), 1, 1024);
    } else if (args[i] == "--out") {
      out_dir = flags::NextValue(args, &i);
    } else if (args[i] == "--generations") {
      options.generations = flags::ParseInt("--generations", flags::NextValue(args, &i), 1, 100000);
    } else if (args[i] == "--stop-after") {
      options.stop_after = flags::ParseInt("--stop-after", flags::NextValue(args, &i), 1, 100000);
    } else if (args[i] == "--fresh") {
      fresh = true;
    } else if (args[i] == "--shard") {
      const std::string text = flags::NextValue(args, &i);
      const size_t slash = text.find('/');
      if (slash == std::string::npos) throw UsageError("--shard expects K/N (e.g. 2/8), got '" + text + "'");
      shard_n = flags::ParseInt("--shard N", text.substr(slash + 1), 1, 100000);
      shard_k = flags::ParseInt("--shard K", text.substr(0, slash), 1, shard_n);
    } else if (args[i] == "--collate") {
      collate = flags::ParseInt("--collate", flags::NextValue(args, &i), 1, 100000);
    } else if (args[i].rfind("-", 0) == 0) {
      throw UsageError("evolve: unknown option '" + args[i] + "' (see --help)");
    } else if (name.empty()) {
      name = args[i];
    } else {
      throw UsageError("evolve takes one name, got '" + name + "' and '" + args[i] + "'");
    }
  }
  if (name.empty()) throw UsageError("evolve needs an evolution definition (limbic laser experiment list)");
  LaserExperiment e;
  try {
    e = FindLaserExperiment(name);
  } catch (const config::ConfigError& err) {
    throw UsageError(err.what());
  }
  if (e.kind != "evolution") throw UsageError(e.name + " is not an evolution (kind: " + e.kind + ")");
  if (out_dir.empty()) out_dir = "results/" + e.name;
  std::error_code ec;
  fs::create_directories(out_dir, ec);
  if (ec || !fs::is_directory(out_dir)) throw std::runtime_error("cannot create output directory " + out_dir);
  if ((shard_n > 0 || collate > 0) &&
      (fresh || options.stop_after > 0 || options.generations > 0 || (shard_n > 0 && collate > 0))) {
    throw UsageError("--shard and --collate take no --fresh, --stop-after, --generations or each other");
  }
  if (shard_n > 0) {
    const std::string file = EvolveShard(e, out_dir, shard_k, shard_n, options.jobs, true);
    std::cout << e.name << ": shard " << shard_k << "/" << shard_n << " written to " << file << "\n";
    return 0;
  }
  if (collate > 0) {
    const EvolutionState state = CollateShards(e, out_dir, collate);
    const GenerationRecord& r = state.records.back();
    std::cout << e.name << ": generation " << r.generation << "/" << e.evolution.generations << " collated from "
              << collate << " shards: best fitness " << r.best_fitness << ", mean fitness " << r.mean_fitness << "\n";
    return 0;
  }
  if (fresh) fs::remove(fs::path(out_dir) / "checkpoint.txt", ec);
  options.out_dir = out_dir;
  options.resume = !fresh;
  const EvolutionState state = Evolve(e, options);
  const int total = options.generations > 0 ? options.generations : e.evolution.generations;
  std::cout << e.name << ": " << state.generation << "/" << total << " generations";
  if (!state.records.empty()) {
    const GenerationRecord& r = state.records.back();
    std::cout << "; generation " << r.generation << ": best fitness " << r.best_fitness << " (solved "
              << r.best_solved_pct << " % of its worlds), mean fitness " << r.mean_fitness << ", " << r.wall_s << " s";
  }
  std::cout << "\nlog " << (fs::path(out_dir) / "generations.csv").string() << ", checkpoint "
            << (fs::path(out_dir) / "checkpoint.txt").string() << "\n";
  return 0;
}

struct WorldChoice {
  double density = 15;
  int index = 0;
  uint64_t salt = 1;
  std::string file;
  char office = 0;  // a set letter: the hybrid navigator's environment `index` of that set (salt = its seed)
  bool given = false;
};

// Takes --density/--index/--salt/--world at args[*i]; returns whether it did.
bool TakeWorldFlag(const std::vector<std::string>& args, size_t* i, WorldChoice* w) {
  const std::string& a = args[*i];
  if (a == "--density") {
    w->density = flags::ParseFiniteNumber(a, flags::NextValue(args, i));
  } else if (a == "--index") {
    w->index = flags::ParseInt(a, flags::NextValue(args, i), 0);
  } else if (a == "--salt") {
    w->salt = static_cast<uint64_t>(flags::ParseInteger(a, flags::NextValue(args, i), 0));
  } else if (a == "--world") {
    w->file = flags::NextValue(args, i);
  } else if (a == "--office") {
    const std::string set = flags::NextValue(args, i);
    if (set.size() != 1 || !sim::IsValidSetLetter(set[0])) throw UsageError("--office takes a set letter A..G");
    w->office = set[0];
  } else {
    return false;
  }
  w->given = true;
  return true;
}

World MakeWorld(const WorldChoice& w) {
  if (w.office && !w.file.empty()) throw UsageError("--office and --world are two different worlds: give one");
  if (!w.file.empty()) {
    std::ifstream in(w.file);
    if (!in) throw std::runtime_error(w.file + ": cannot open");
    World world = LoadWorld(in, w.file);
    if (world.optimal_path_cm <= 0.0) world.optimal_path_cm = OptimalPath(world).length_cm;
    return world;
  }
  try {
    return MakeLaserWorld({w.density, w.index, w.salt, w.office});
  } catch (const std::invalid_argument& e) {
    throw UsageError(e.what());
  }
}

void PrintWorld(const World& w) {
  if (w.surroundings) {
    std::cout << "world: " << w.name << " (" << w.width / 100.0 << " m × " << w.height / 100.0 << " m), start ("
              << w.start.x << ", " << w.start.y << "), goal (" << w.goal.x << ", " << w.goal.y << ") cm, optimal path "
              << w.optimal_path_cm << " cm\n";
    return;
  }
  std::cout << "world: density " << w.density_pct << " % (realised " << std::fixed << std::setprecision(2)
            << w.realised_pct << " %), index " << w.id << " (No. " << w.id + 1 << "), " << w.obstacles.size()
            << " obstacles, start (" << w.start.x << ", " << w.start.y << "), goal (" << w.goal.x << ", " << w.goal.y
            << "), optimal path " << w.optimal_path_cm << " cm, draws " << w.attempts << "\n";
}

int CmdWorld(const std::vector<std::string>& args) {
  WorldChoice choice;
  std::string out;
  for (size_t i = 0; i < args.size(); ++i) {
    if (IsHelp(args[i])) {
      std::cout << kUsage;
      return 0;
    }
    if (TakeWorldFlag(args, &i, &choice)) continue;
    if (args[i] == "--out") {
      out = flags::NextValue(args, &i);
      continue;
    }
    throw UsageError("world: unknown option '" + args[i] + "' (see --help)");
  }
  if (choice.office && !out.empty()) {
    throw UsageError("world --out saves a room of circles; an office is regenerated from --office SET --index I");
  }
  const World w = MakeWorld(choice);
  PrintWorld(w);
  if (!out.empty()) {
    std::ostringstream text;
    SaveWorld(w, text);
    Write(out, text.str());
    std::cout << "saved " << out << "\n";
  }
  return 0;
}

// `episode` and `render` share their flags: a world, a controller, a seed, an SVG file.
int CmdEpisodeOrRender(const std::vector<std::string>& args, bool render) {
  WorldChoice choice;
  std::string controller = render ? "" : "cbr", out, laser_error = "uniform", network;
  uint64_t seed = 1;
  for (size_t i = 0; i < args.size(); ++i) {
    if (IsHelp(args[i])) {
      std::cout << kUsage;
      return 0;
    }
    if (TakeWorldFlag(args, &i, &choice)) continue;
    if (args[i] == "--controller") {
      controller = flags::NextValue(args, &i);
      if (controller != "static" && controller != "cbr" && controller != "nn" && controller != "rnn" &&
          controller != "memory") {
        throw UsageError("--controller must be static, cbr, nn, rnn or memory");
      }
    } else if (args[i] == "--network") {
      network = flags::NextValue(args, &i);
    } else if (args[i] == "--seed") {
      seed = static_cast<uint64_t>(flags::ParseInteger("--seed", flags::NextValue(args, &i), 0));
    } else if (args[i] == "--laser-error") {
      laser_error = flags::NextValue(args, &i);
    } else if (args[i] == "--out") {
      out = flags::NextValue(args, &i);
    } else {
      throw UsageError(std::string(render ? "render" : "episode") + ": unknown option '" + args[i] + "'");
    }
  }
  if (!network.empty() && controller != "nn" && controller != "rnn") {
    throw UsageError("--network is for --controller nn or rnn");
  }
  if (render && out.empty()) throw UsageError("render needs --out FILE.svg");
  if (render && !choice.given)
    throw UsageError("render needs --density D --index I, --office SET --index I or --world FILE");
  LaserExperiment e;
  e.name = render ? "render" : "episode";
  try {
    e.episode.laser.error_model = ParseLaserErrorModel(laser_error);
  } catch (const std::invalid_argument& err) {
    throw UsageError(err.what());
  }
  const World w = MakeWorld(choice);
  PrintWorld(w);
  RenderLayers layers;
  layers.optimal_path = OptimalPath(w).path;
  layers.title = w.surroundings ? w.name
                                : "density " + std::to_string(static_cast<int>(w.density_pct)) + " %, world No. " +
                                      std::to_string(w.id + 1);
  std::shared_ptr<const TopoMap> map;  // outlives the episode's row: the picture is drawn below
  if (!controller.empty()) {
    e.controller = controller;
    LaserConfiguration c;
    c.label = controller;
    c.controller = controller;
    c.network_given = !network.empty();
    if (controller == "nn") {
      if (network.empty()) throw UsageError("--controller nn needs --network FILE (written by limbic laser evolve)");
      c.nn_options.network = LoadNetworkFile(network);
    }
    if (controller == "rnn") {
      if (network.empty()) throw UsageError("--controller rnn needs --network FILE (written by limbic laser evolve)");
      c.rnn_options.network = LoadRecurrentNetworkFile(network);
    }
    const EpisodeRow row = RunLaserEpisode(e, c, w, seed, !out.empty());
    const EpisodeResult& r = row.result;
    std::cout << controller << ": " << (r.solved ? "solved" : "not solved") << " in " << std::setprecision(2)
              << r.time_s << " s, path " << r.path_cm << " cm (optimal " << r.optimal_cm << "), efficiency "
              << 100.0 * r.efficiency << " %, collisions " << r.collisions << ", closest contact "
              << r.closest_contact_cm << " cm, final distance to goal " << r.final_goal_distance_cm << " cm";
    if (controller == "cbr" || controller == "memory") std::cout << ", case switches " << row.case_switches;
    std::cout << "\n";
    if (controller == "cbr" || controller == "memory") {
      const CaseLibrary cases = AppendixA();
      std::cout << "time per case:";
      for (size_t k = 0; k < cases.size(); ++k)
        std::cout << " " << cases[k].name << " " << row.time_in_case_s[k] << " s";
      if (controller == "memory") std::cout << " MapFollowing " << row.time_in_case_s[cases.size()] << " s";
      std::cout << "\n";
    }
    if (controller == "memory") {
      const MapLayerStats& m = row.map_stats;
      std::cout << "map: " << row.map_nodes << " nodes, " << row.links_per_node << " links per node; plans " << m.plans
                << " (no path " << m.no_path << "), exits reached " << m.reached << ", ended on a new node "
                << m.new_node << ", timeouts " << m.timeouts << ", re-plans " << m.replans << ", pose corrections "
                << m.corrections << "\n";
    }
    if (controller == "nn") {
      const double cycles = static_cast<double>(std::max<int64_t>(1, row.gates.evaluations));
      std::cout << "gates passed per cycle:";
      for (int k = 0; k < kNnInputs; ++k)
        std::cout << " " << kNetworkInputNames[k] << " " << row.gates.input_passed[k] / cycles;
      for (int k = 0; k < kNnOutputs; ++k)
        std::cout << " " << kNetworkOutputNames[k] << " " << row.gates.output_passed[k] / cycles;
      std::cout << "\n";
    }
    layers.trajectory = r.trajectory;
    map = row.map;
    layers.map = map.get();
    layers.title += ", " + controller + (r.solved ? " (solved)" : " (not solved)");
    LaserScanner scanner(w, {LaserErrorModel::kNone, 2, false}, 1);
    scanner.Scan(w.start, &layers.scan);
    layers.scan_origin = w.start;
    layers.show_scan = true;
  }
  if (!out.empty()) {
    Write(out, RenderWorldSvg(w, layers));
    std::cout << "wrote " << out << "\n";
  }
  return 0;
}

// E2c: the static law's vector field with NG = 0 over one world, and its potential minima.
int CmdField(const std::vector<std::string>& args) {
  WorldChoice choice;
  VectorFieldOptions o;
  std::string out, csv;
  for (size_t i = 0; i < args.size(); ++i) {
    if (IsHelp(args[i])) {
      std::cout << kUsage;
      return 0;
    }
    if (TakeWorldFlag(args, &i, &choice)) continue;
    const std::string& a = args[i];
    if (a == "--cell") {
      o.cell_cm = flags::ParseFiniteNumber(a, flags::NextValue(args, &i));
    } else if (a == "--gg") {
      o.gains.gg = flags::ParseFiniteNumber(a, flags::NextValue(args, &i));
    } else if (a == "--og") {
      o.gains.og = flags::ParseFiniteNumber(a, flags::NextValue(args, &i));
    } else if (a == "--s") {
      o.gains.s_cm = flags::ParseFiniteNumber(a, flags::NextValue(args, &i));
    } else if (a == "--threshold") {
      o.minimum_angle_deg = flags::ParseFiniteNumber(a, flags::NextValue(args, &i));
    } else if (a == "--out") {
      out = flags::NextValue(args, &i);
    } else if (a == "--csv") {
      csv = flags::NextValue(args, &i);
    } else {
      throw UsageError("field: unknown option '" + a + "' (see --help)");
    }
  }
  if (!choice.given) throw UsageError("field needs --density D --index I, --office SET --index I or --world FILE");
  try {
    ValidateVectorFieldOptions(o);
  } catch (const std::invalid_argument& e) {
    throw UsageError(e.what());
  }
  const World w = MakeWorld(choice);
  PrintWorld(w);
  const VectorField f = ComputeVectorField(w, o);
  const std::vector<MinimumRegion> regions = MinimumRegions(f);
  std::cout << "field (GG " << o.gains.gg << ", OG " << o.gains.og << ", S " << o.gains.s_cm << " cm, NG 0) on " << f.nx
            << " x " << f.ny << " cells of " << f.cell_cm << " cm: " << f.free_cells << " where the robot fits, "
            << f.minima << " potential-minimum cells (neighbours > " << o.minimum_angle_deg << " deg apart) in "
            << regions.size() << " places\n";
  for (size_t k = 0; k < regions.size() && k < 10; ++k) {
    std::cout << "  " << regions[k].cells << " cells around (" << std::lround(regions[k].centroid.x) << ", "
              << std::lround(regions[k].centroid.y) << ") cm\n";
  }
  if (regions.size() > 10) std::cout << "  ... and " << regions.size() - 10 << " more\n";
  if (!csv.empty()) {
    std::ostringstream text;
    text << "x_cm,y_cm,free,heading_deg,rx,ry,minimum\n";
    text.precision(10);
    for (int j = 0; j < f.ny; ++j) {
      for (int i = 0; i < f.nx; ++i) {
        const size_t k = f.Index(i, j);
        const Vec2 c = f.Centre(i, j);
        text << c.x << "," << c.y << "," << int{f.free[k]} << ",";
        if (!std::isnan(f.heading_deg[k])) text << f.heading_deg[k];
        text << "," << f.resultant[k].x << "," << f.resultant[k].y << "," << int{f.minimum[k]} << "\n";
      }
    }
    Write(csv, text.str());
    std::cout << "wrote " << csv << "\n";
  }
  if (!out.empty()) {
    RenderLayers layers;
    layers.field = &f;
    layers.title = (w.surroundings ? w.name
                                   : "density " + std::to_string(static_cast<int>(w.density_pct)) + " %, world No. " +
                                         std::to_string(w.id + 1)) +
                   ": field with NG = 0, " + std::to_string(regions.size()) + " potential minima";
    Write(out, RenderWorldSvg(w, layers));
    std::cout << "wrote " << out << "\n";
  }
  return 0;
}

int Main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  if (args.empty() || IsHelp(args[0])) {
    (args.empty() ? std::cerr : std::cout) << kUsage;
    return args.empty() ? 2 : 0;
  }
  const std::string command = args[0];
  args.erase(args.begin());
  return flags::RunTool("limbic laser", [&] {
    if (command == "experiment") {
      if (args.empty()) throw UsageError("experiment needs list or run");
      const std::string sub = args[0];
      args.erase(args.begin());
      if (sub == "list") return CmdExperimentList();
      if (sub == "run") return CmdExperimentRun(args);
      if (IsHelp(sub)) {
        std::cout << kUsage;
        return 0;
      }
      throw UsageError("unknown experiment command '" + sub + "' (list | run)");
    }
    if (command == "evolve") return CmdEvolve(args);
    if (command == "world") return CmdWorld(args);
    if (command == "episode") return CmdEpisodeOrRender(args, false);
    if (command == "render") return CmdEpisodeOrRender(args, true);
    if (command == "field") return CmdField(args);
    throw UsageError("unknown command '" + command + "' (experiment | evolve | world | episode | render | field)");
  });
}

}  // namespace
}  // namespace limbic::laser

int main(int argc, char** argv) { return limbic::laser::Main(argc, argv); }
