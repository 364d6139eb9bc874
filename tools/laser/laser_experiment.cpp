#include "tools/laser/laser_experiment.hpp"

#include <algorithm>
#include <atomic>
#include <cctype>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <mutex>
#include <sstream>
#include <thread>

#include "common/config/config.hpp"
#include "common/paths/paths.hpp"
#include "services/laser_topo/convert.hpp"
#include "sim/random.hpp"
#include "tools/laser/laser_render.hpp"
#include "tools/laser/laser_summary.hpp"

namespace limbic::laser {
namespace {

namespace fs = std::filesystem;
using config::ConfigError;
using config::StrictMap;

double ToNumber(const std::string& key, const std::string& text, const std::string& source) {
  try {
    size_t used = 0;
    const double v = std::stod(text, &used);
    if (used == text.size() && std::isfinite(v)) return v;
  } catch (const std::exception&) {
  }
  throw ConfigError(source + ": '" + key + "' must be a finite number, got '" + text + "'");
}

bool ToBool(const std::string& key, const std::string& text, const std::string& source) {
  if (text == "true") return true;
  if (text == "false") return false;
  throw ConfigError(source + ": '" + key + "' must be true or false, got '" + text + "'");
}

// The case-based controller's keys (controller cbr, and the cbr part of controller memory).
void ApplyCbrSetting(const std::string& who, const std::string& key, const std::string& value,
                     const std::string& source, CbrOptions* cbr) {
  auto number = [&] { return ToNumber(key, value, source); };
  CbrOptions& o = *cbr;
  if (key == "weight_form")
    o.weight.form = ParseWeightForm(value);
  else if (key == "k_obs")
    o.weight.k_obs = number();
  else if (key == "w_contact")
    o.weight.w_contact = number();
  else if (key == "np_unit_s")
    o.match.np_unit_s = number();
  else if (key == "selection_period_s")
    o.selection_period_s = number();
  else if (key == "long_period_s")
    o.long_period_s = number();
  else if (key == "wallcrawl_literal_match")
    o.match.wallcrawl_literal_match = ToBool(key, value, source);
  else if (key == "wallcrawl_when_stuck")
    o.match.wallcrawl_when_stuck = ToBool(key, value, source);
  else if (key == "binaries") {
    if (value == "minus_one_dont_care")
      o.match.binaries = BinaryEncoding::kMinusOneDontCare;
    else if (value == "zero_dont_care")
      o.match.binaries = BinaryEncoding::kZeroDontCare;
    else
      throw ConfigError(source + ": 'binaries' must be minus_one_dont_care or zero_dont_care");
  } else {
    throw ConfigError(source + ": unknown " + who + " controller key '" + key + "'");
  }
}

// A network file (limbic laser evolve writes them) named in a definition, relative to the definition's
// directory, read by `load` (LoadNetworkFile, LoadRecurrentNetworkFile).
template <typename Load>
auto LoadDefinitionNetwork(const std::string& value, const std::string& source, Load load) {
  fs::path file(value);
  if (file.is_relative()) file = fs::path(source).parent_path() / file;
  try {
    return load(file.string());
  } catch (const std::runtime_error& e) {
    throw ConfigError(source + ": 'network': " + e.what());
  }
}

// Applies one controller setting (from the `static:`/`cbr:` block or a sweep) to a configuration.
void ApplySetting(const std::string& controller, const std::string& key, const std::string& value,
                  const std::string& source, LaserConfiguration* c) {
  auto number = [&] { return ToNumber(key, value, source); };
  try {
    if (controller == "static") {
      ControlGains& g = c->static_options.gains;
      ObstacleWeightOptions& w = c->static_options.weight;
      if (key == "gg")
        g.gg = number();
      else if (key == "og")
        g.og = number();
      else if (key == "ng")
        g.ng = number();
      else if (key == "np_s")
        g.np_s = number();
      else if (key == "s_cm")
        g.s_cm = number();
      else if (key == "weight_form")
        w.form = ParseWeightForm(value);
      else if (key == "k_obs")
        w.k_obs = number();
      else if (key == "w_contact")
        w.w_contact = number();
      else
        throw ConfigError(source + ": unknown static controller key '" + key + "'");
      return;
    }
    if (controller == "nn") {
      NeuralOptions& o = c->nn_options;
      if (key == "weight_form")
        o.weight.form = ParseWeightForm(value);
      else if (key == "k_obs")
        o.weight.k_obs = number();
      else if (key == "w_contact")
        o.weight.w_contact = number();
      else if (key == "np_s")
        o.np_s = number();
      else if (key == "s_cm")
        o.s_cm = number();
      else if (key == "output_scale")
        o.output_scale = number();
      else if (key == "wander_window_s")
        o.environment.wander_window_s = number();
      else if (key == "literal_integer_division")
        o.literal_integer_division = ToBool(key, value, source);
      else if (key == "network") {
        o.network = LoadDefinitionNetwork(value, source, LoadNetworkFile);
        c->network_given = true;
      } else
        throw ConfigError(source + ": unknown nn controller key '" + key + "'");
      return;
    }
    if (controller == "rnn") {
      RecurrentOptions& o = c->rnn_options;
      if (key == "sectors")
        o.sectors = ParseSectorReduction(value);
      else if (key == "frame")
        o.frame = ParseRnnFrame(value);
      else if (key == "network") {
        o.network = LoadDefinitionNetwork(value, source, LoadRecurrentNetworkFile);
        c->network_given = true;
      } else
        throw ConfigError(source + ": unknown rnn controller key '" + key + "'");
      return;
    }
    if (controller == "memory") {
      MemoryOptions& m = c->memory_options;
      if (key == "memory")
        c->memory_enabled = ToBool(key, value, source);
      else if (key == "map_every_cycles")
        m.map_every_cycles = static_cast<int>(number());
      else if (key == "self_localise")
        m.map.self_localise = ToBool(key, value, source);
      else if (key == "max_exit_tries")
        m.map.max_exit_tries = static_cast<int>(number());
      else if (key == "reached_is_not_a_try")
        m.map.reached_is_not_a_try = ToBool(key, value, source);
      else if (key == "follow_time_s")
        m.follow.max_time_s = number();
      else if (key == "waypoint_reach_cm")
        m.follow.reach_cm = number();
      else if (key == "robust_clearance")
        m.follow.robust_clearance = ToBool(key, value, source);
      else if (key == "follow_gg")
        m.follow_gains.gg = number();
      else if (key == "follow_og")
        m.follow_gains.og = number();
      else if (key == "end_when_stalled")
        m.end_when_stalled = ToBool(key, value, source);
      else
        ApplyCbrSetting("memory", key, value, source, &m.cbr);
      return;
    }
    ApplyCbrSetting("cbr", key, value, source, &c->cbr_options);
  } catch (const std::invalid_argument& e) {
    throw ConfigError(source + ": '" + key + "': " + e.what());
  }
}

std::string SettingLabel(const std::string& key, const std::string& value) {
  std::string k = key;
  if (k == "gg" || k == "og" || k == "ng") std::transform(k.begin(), k.end(), k.begin(), ::toupper);
  return k + "=" + value;
}

std::string FileSafe(const std::string& s) {
  std::string out;
  for (char c : s) out += std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '-' ? c : '_';
  return out;
}

std::string RunLabel(const std::string& label, int run, int runs) {
  return runs > 1 ? label + " run " + std::to_string(run) : label;
}

std::string Num(double v) {
  std::ostringstream s;
  s << std::setprecision(10) << v;
  return s.str();
}

}  // namespace

int64_t LaserExperiment::EpisodeCount() const {
  const int64_t worlds_total = static_cast<int64_t>(densities.size()) * worlds;
  if (kind == "evolution") {
    const int64_t evaluated = evolution.evaluate_best == "every"  ? evolution.generations
                              : evolution.evaluate_best == "last" ? 1
                                                                  : 0;
    return static_cast<int64_t>(evolution.generations) * evolution.sane.networks * evolution.worlds_per_generation +
           evaluated * worlds_total;
  }
  return kind == "worlds" || kind == "field" ? worlds_total
                                             : worlds_total * static_cast<int64_t>(configurations.size());
}

LaserExperiment LoadLaserExperiment(const std::string& path) {
  StrictMap map(config::LoadFile(path), path);
  LaserExperiment e;
  e.source = path;
  e.name = map.Required<std::string>("name");
  if (e.name != fs::path(path).stem().string()) {
    throw ConfigError(path + ": 'name' must equal the file name (" + fs::path(path).stem().string() + ")");
  }
  map.Optional("section", &e.section);
  map.Optional("description", &e.description);
  map.Optional("kind", &e.kind);
  if (e.kind != "worlds" && e.kind != "episodes" && e.kind != "evolution" && e.kind != "field") {
    map.Fail("kind", "must be worlds, episodes, evolution or field");
  }
  const bool compare = map.Has("compare");
  if (compare && map.Has("controller")) map.Fail("controller", "is given per entry of compare");
  if (compare) e.controller = "compare";
  map.Optional("controller", &e.controller);
  if (e.controller != "static" && e.controller != "cbr" && e.controller != "nn" && e.controller != "rnn" &&
      e.controller != "memory" && e.controller != "compare") {
    map.Fail("controller", "must be static, cbr, nn, rnn or memory");
  }
  if (e.kind == "evolution" && e.controller != "nn" && e.controller != "rnn") {
    map.Fail("controller", "must be nn or rnn for kind: evolution");
  }
  // The recurrent network's size when evolved (§2.7 [A]): the 50-neuron limit unless the definition
  // says otherwise; the feed-forward network has 5 [T].
  if (e.controller == "rnn") e.evolution.sane.network_size = kRnnMaxNeurons;
  if (map.Has("evolution")) {
    if (e.kind != "evolution") map.Fail("evolution", "is for kind: evolution");
    StrictMap v = map.Child("evolution");
    EvolutionSettings& s = e.evolution;
    v.Optional("generations", &s.generations);
    v.Optional("population", &s.sane.population);
    v.Optional("networks", &s.sane.networks);
    v.Optional("worlds_per_generation", &s.worlds_per_generation);
    if (v.Has("training_densities")) s.training_densities = v.Required<std::vector<double>>("training_densities");
    v.Optional("training_first", &s.training_first);
    v.Optional("training_per_density", &s.training_per_density);
    v.Optional("time_limit_s", &s.time_limit_s);
    v.Optional("reproduce_fraction", &s.sane.reproduce_fraction);
    v.Optional("mate_window", &s.sane.mate_window);
    v.Optional("type_mutation", &s.sane.type_mutation);
    v.Optional("value_mutation", &s.sane.value_mutation);
    v.Optional("evaluate_best", &s.evaluate_best);
    v.Optional("laser_cache", &s.laser_cache);
    if (v.Has("network_neurons")) {
      if (e.controller != "rnn") v.Fail("network_neurons", "is for controller: rnn (the feed-forward network has 5)");
      v.Optional("network_neurons", &s.sane.network_size);
      if (s.sane.network_size < 1 || s.sane.network_size > kRnnMaxNeurons) {
        v.Fail("network_neurons", "must be 1.." + std::to_string(kRnnMaxNeurons) + " (§2.7)");
      }
    }
    try {
      ValidateSaneOptions(s.sane);
    } catch (const std::invalid_argument& err) {
      v.Fail("population", err.what());
    }
    if (s.generations < 1) v.Fail("generations", "must be >= 1");
    if (s.training_densities.empty()) v.Fail("training_densities", "must list at least one density");
    for (double d : s.training_densities) {
      if (!(d >= kMinDensityPct && d <= kMaxDensityPct)) v.Fail("training_densities", "must be within 15..35 %");
    }
    if (s.training_first < 0 || s.training_per_density < 1) {
      v.Fail("training_per_density", "needs training_first >= 0 and training_per_density >= 1");
    }
    const int library = static_cast<int>(s.training_densities.size()) * s.training_per_density;
    if (s.worlds_per_generation < 1 || s.worlds_per_generation > library) {
      v.Fail("worlds_per_generation", "must be 1.." + std::to_string(library) + " (the training library)");
    }
    if (!(std::isfinite(s.time_limit_s) && s.time_limit_s > 0.0)) v.Fail("time_limit_s", "must be > 0 s");
    if (s.evaluate_best != "every" && s.evaluate_best != "last" && s.evaluate_best != "none") {
      v.Fail("evaluate_best", "must be every, last or none");
    }
  }
  map.Optional("seed", &e.seed);
  map.Optional("library_salt", &e.library_salt);
  if (map.Has("densities")) e.densities = map.Required<std::vector<double>>("densities");
  if (e.densities.empty()) map.Fail("densities", "must list at least one density");
  for (double d : e.densities) {
    if (!(d >= kMinDensityPct && d <= kMaxDensityPct)) map.Fail("densities", "must be within 15..35 %");
  }
  {
    StrictMap w = map.Child("worlds");
    w.Optional("first", &e.first_world);
    w.Optional("count", &e.worlds);
    if (e.first_world < 0 || e.worlds < 1) map.Fail("worlds", "needs first >= 0 and count >= 1");
  }
  {
    StrictMap ep = map.Child("episode");
    ep.Optional("time_limit_s", &e.episode.time_limit_s);
    ep.Optional("goal_radius_cm", &e.episode.goal_radius_cm);
    ep.Optional("slip_fraction", &e.episode.slip_fraction);
    std::string error_model;
    if (ep.Optional("laser_error", &error_model)) {
      try {
        e.episode.laser.error_model = ParseLaserErrorModel(error_model);
      } catch (const std::invalid_argument& err) {
        ep.Fail("laser_error", err.what());
      }
    }
    ep.Optional("laser_cache", &e.episode.laser.cache);
    ep.Optional("v_max_cms", &e.episode.motion.v_max_cms);
    e.episode.motion.v_wheel_max_cms = e.episode.motion.v_max_cms;
    ep.Optional("k_heading_per_s", &e.episode.motion.k_heading_per_s);
    try {
      ValidateEpisodeOptions(e.episode);
    } catch (const std::invalid_argument& err) {
      throw ConfigError(path + ": episode: " + err.what());
    }
  }
  map.Optional("trajectories", &e.trajectories);
  if (map.Has("case_studies")) {
    if (e.kind != "episodes") map.Fail("case_studies", "is for kind: episodes");
    StrictMap c = map.Child("case_studies");
    e.case_studies = true;
    c.Optional("pictures", &e.case_pictures);
    c.Optional("visit_radius_cm", &e.failure.visit_radius_cm);
    c.Optional("min_dwell_s", &e.failure.min_dwell_s);
    c.Optional("pinned_radius_cm", &e.failure.pinned_radius_cm);
    c.Optional("circulating_factor", &e.failure.circulating_factor);
    if (e.case_pictures < 0) c.Fail("pictures", "must be >= 0");
    try {
      ValidateFailureOptions(e.failure);
    } catch (const std::invalid_argument& err) {
      throw ConfigError(path + ": case_studies: " + err.what());
    }
  }
  if (map.Has("field")) {
    if (e.kind != "field" && !e.case_studies) map.Fail("field", "is for kind: field and case_studies");
    StrictMap f = map.Child("field");
    f.Optional("cell_cm", &e.field.cell_cm);
    f.Optional("gg", &e.field.gains.gg);
    f.Optional("og", &e.field.gains.og);
    f.Optional("s_cm", &e.field.gains.s_cm);
    f.Optional("threshold_deg", &e.field.minimum_angle_deg);
    f.Optional("goal_radius_cm", &e.field.goal_radius_cm);
  }
  if (e.kind == "field" || e.case_studies) {
    try {
      ValidateVectorFieldOptions(e.field);
    } catch (const std::invalid_argument& err) {
      throw ConfigError(path + ": field: " + err.what());
    }
  }
  if (map.Optional("cost", &e.cost) && e.cost && e.controller != "memory") {
    map.Fail("cost", "is for controller: memory (E8 times the map layer's stages)");
  }
  if (map.Has("map_runs") || map.Has("snapshot_every_s")) {
    if (e.controller != "memory") map.Fail("map_runs", "map_runs and snapshot_every_s are for controller: memory");
    map.Optional("map_runs", &e.map_runs);
    map.Optional("snapshot_every_s", &e.snapshot_every_s);
    if (e.map_runs < 1) map.Fail("map_runs", "must be >= 1");
    if (!(std::isfinite(e.snapshot_every_s) && e.snapshot_every_s >= 0.0)) {
      map.Fail("snapshot_every_s", "must be >= 0");
    }
  }
  if (compare) {
    // E9: several controllers side by side, each entry a configuration with its own controller and settings.
    if (e.kind != "episodes") map.Fail("compare", "is for kind: episodes");
    if (map.Has("sweep")) map.Fail("sweep", "cannot be combined with compare");
    for (StrictMap entry : map.ChildList("compare")) {
      LaserConfiguration c;
      c.label = entry.Required<std::string>("label");
      c.controller = entry.Required<std::string>("controller");
      if (c.controller != "static" && c.controller != "cbr" && c.controller != "nn" && c.controller != "rnn" &&
          c.controller != "memory") {
        entry.Fail("controller", "must be static, cbr, nn, rnn or memory");
      }
      for (const LaserConfiguration& other : e.configurations) {
        if (other.label == c.label) entry.Fail("label", "'" + c.label + "' is used twice");
      }
      for (const std::string& key : entry.Keys()) {
        if (key != "label" && key != "controller") {
          ApplySetting(c.controller, key, entry.Required<std::string>(key), path, &c);
        }
      }
      e.configurations.push_back(c);
    }
    if (e.configurations.empty()) map.Fail("compare", "needs at least one entry");
    for (const std::string other : {"static", "cbr", "nn", "rnn", "memory"}) {
      if (map.Has(other)) map.Fail(other, "is given per entry of compare");
    }
  }
  LaserConfiguration base;
  base.label = e.controller;
  base.controller = e.controller;
  if (!compare && map.Has(e.controller)) {
    StrictMap block = map.Child(e.controller);
    for (const std::string& key : block.Keys()) {
      ApplySetting(e.controller, key, block.Required<std::string>(key), path, &base);
    }
  }
  for (const std::string other : {"static", "cbr", "nn", "rnn", "memory"}) {
    if (!compare && other != e.controller && map.Has(other)) {
      map.Fail(other, "is for another controller (controller: " + e.controller + ")");
    }
  }
  if (!compare) e.configurations = {base};
  if (map.Has("sweep")) {
    StrictMap sweep = map.Child("sweep");
    for (const std::string& key : sweep.Keys()) {
      const auto values = sweep.Required<std::vector<std::string>>(key);
      if (values.empty()) sweep.Fail(key, "needs at least one value");
      e.sweep_keys.push_back(key);
      std::vector<LaserConfiguration> next;
      for (const LaserConfiguration& c : e.configurations) {
        for (const std::string& v : values) {
          LaserConfiguration n = c;
          ApplySetting(e.controller, key, v, path, &n);
          n.label = (c.label == e.controller ? "" : c.label + " ") + SettingLabel(key, v);
          next.push_back(n);
        }
      }
      e.configurations = std::move(next);
    }
  }
  map.Finish();
  for (const LaserConfiguration& c : e.configurations) ValidateConfiguration(e, c, path);
  return e;
}

void ValidateConfiguration(const LaserExperiment& e, const LaserConfiguration& c, const std::string& source) {
  try {
    if (c.controller == "static")
      ValidateStaticOptions(c.static_options);
    else if (c.controller == "cbr")
      ValidateCbrOptions(c.cbr_options);
    else if (c.controller == "memory")
      ValidateMemoryOptions(c.memory_options);
    else if (c.controller == "rnn") {
      // Evolved networks come from the run; episodes need the network file.
      if (e.kind != "evolution" && c.rnn_options.network.empty()) {
        throw ConfigError(source + ": controller rnn needs a network (rnn: {network: FILE})");
      }
      if (e.kind != "evolution") ValidateRecurrentOptions(c.rnn_options);
    } else
      ValidateNeuralOptions(c.nn_options);
  } catch (const std::invalid_argument& err) {
    throw ConfigError(source + ": configuration " + c.label + ": " + err.what());
  }
}

void ApplyConfigurationOverrides(LaserExperiment* e, const std::vector<std::string>& overrides) {
  for (const std::string& o : overrides) {
    const size_t dot = o.find('.'), eq = o.find('=');
    if (dot == std::string::npos || eq == std::string::npos || dot > eq || dot == 0 || eq == dot + 1) {
      throw ConfigError("--set '" + o + "': expected LABEL.KEY=VALUE (e.g. nn.network=e4/networks/generation_100.txt)");
    }
    const std::string label = o.substr(0, dot), key = o.substr(dot + 1, eq - dot - 1);
    std::string value = o.substr(eq + 1);
    // A file on the command line is the user's: relative to the working directory, not to the definition.
    if (key == "network" && !value.empty()) value = fs::absolute(value).string();
    bool found = false;
    for (LaserConfiguration& c : e->configurations) {
      if (c.label != label) continue;
      found = true;
      ApplySetting(c.controller, key, value, "--set " + o, &c);
      ValidateConfiguration(*e, c, "--set " + o);
    }
    if (!found) {
      std::string labels;
      for (const LaserConfiguration& c : e->configurations) labels += (labels.empty() ? "" : ", ") + c.label;
      throw ConfigError("--set '" + o + "': no configuration '" + label + "' (this experiment has: " + labels + ")");
    }
  }
}

std::string DefaultLaserExperimentDir() {
  return paths::DataPath("experiments/laser", "LIMBIC_LASER_EXPERIMENTS_DIR").string();
}

std::vector<std::string> ListLaserExperimentFiles(const std::string& dir) {
  if (!fs::is_directory(dir)) throw ConfigError(dir + ": no such experiments directory");
  std::vector<std::string> files;
  for (const auto& entry : fs::directory_iterator(dir)) {
    if (entry.is_regular_file() && entry.path().extension() == ".yaml") files.push_back(entry.path().string());
  }
  std::sort(files.begin(), files.end());
  return files;
}

LaserExperiment FindLaserExperiment(const std::string& name_or_path, const std::string& dir) {
  if (name_or_path.ends_with(".yaml")) return LoadLaserExperiment(name_or_path);
  const fs::path file = fs::path(dir) / (name_or_path + ".yaml");
  if (!fs::exists(file)) {
    throw ConfigError("no laser experiment named '" + name_or_path + "' in " + dir +
                      " (limbic laser experiment list shows them)");
  }
  return LoadLaserExperiment(file.string());
}

uint64_t EpisodeSeed(uint64_t experiment_seed, double density, int world) {
  return sim::DeriveSeed(experiment_seed, WorldSeed(density, world, 0x1a5e7));
}

EpisodeRow RunLaserEpisode(const LaserExperiment& experiment, const LaserConfiguration& configuration,
                           const World& world, uint64_t seed, bool keep_trajectory) {
  EpisodeOptions options = experiment.episode;
  options.trajectory_every = keep_trajectory ? 10 : 0;
  LaserEpisode episode(world, options, seed);
  EpisodeRow row;
  row.configuration = configuration.label;
  row.density = world.density_pct;
  row.world = world.id;
  row.seed = seed;
  const std::string& controller = configuration.controller.empty() ? experiment.controller : configuration.controller;
  if ((controller == "nn" || controller == "rnn") && !configuration.network_given) {
    throw ConfigError("configuration " + configuration.label + ": controller " + controller +
                      " needs a network file (in the definition, or --set " + configuration.label + ".network=FILE)");
  }
  if (controller == "static") {
    StaticOptions o = configuration.static_options;
    o.seed = sim::DeriveSeed(seed, 3);
    StaticController c(o);
    while (!episode.done()) episode.Advance(c.Step(episode.frame()));
    row.rejected_frames = c.rejected_frames();
  } else if (controller == "nn") {
    NeuralOptions o = configuration.nn_options;
    o.seed = sim::DeriveSeed(seed, 3);
    NeuralController c(o);
    while (!episode.done()) episode.Advance(c.Step(episode.frame()));
    row.gates = c.gate_counts();
    row.rejected_frames = c.rejected_frames();
  } else if (controller == "rnn") {
    RecurrentController c(configuration.rnn_options);
    while (!episode.done()) episode.Advance(c.Step(episode.frame()));
    row.rejected_frames = c.rejected_frames();
  } else if (controller == "memory") {
    return RunMemoryEpisode(experiment, configuration, world, seed, keep_trajectory, TopoMap{});
  } else {
    CbrOptions o = configuration.cbr_options;
    o.seed = sim::DeriveSeed(seed, 3);
    CaseBasedController c(o);
    while (!episode.done()) episode.Advance(c.Step(episode.frame()));
    row.case_switches = c.switches();
    for (int64_t n : c.cycles_in_case()) row.time_in_case_s.push_back(static_cast<double>(n) * kControlPeriodS);
    row.rejected_frames = c.rejected_frames();
  }
  row.result = episode.Result();
  return row;
}

namespace {

int64_t MonotonicNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

// The size of the map as the mapper service sends it (a TopoMapSnapshot, §5.2).
size_t MapSnapshotBytes(const TopoMap& map) {
  flatbuffers::FlatBufferBuilder fbb;
  const auto header = msg::CreateHeaderDirect(fbb, 0, 0, 0, "r1/laser_mapper", false, 0);
  fbb.Finish(ToMsg(fbb, header, map, 1), messages::Traits<msg::TopoMapSnapshot>::kIdentifier);
  return fbb.GetSize();
}

}  // namespace

EpisodeRow RunMemoryEpisode(const LaserExperiment& experiment, const LaserConfiguration& configuration,
                            const World& world, uint64_t seed, bool keep_trajectory, const TopoMap& map,
                            const MapSnapshot& on_snapshot) {
  EpisodeOptions options = experiment.episode;
  options.trajectory_every = keep_trajectory || on_snapshot ? 10 : 0;
  LaserEpisode episode(world, options, seed);
  EpisodeRow row;
  row.configuration = configuration.label;
  row.density = world.density_pct;
  row.world = world.id;
  row.seed = seed;
  MemoryOptions o = configuration.memory_options;
  o.cbr.seed = sim::DeriveSeed(seed, 3);  // as controller cbr: memory: false is that controller exactly
  const int64_t snapshot_cycles =
      on_snapshot && experiment.snapshot_every_s > 0.0
          ? std::max<int64_t>(1, std::llround(experiment.snapshot_every_s / kControlPeriodS))
          : 0;
  auto record = [&](const CaseBasedController& c) {
    row.case_switches = c.switches();
    for (int64_t n : c.cycles_in_case()) row.time_in_case_s.push_back(static_cast<double>(n) * kControlPeriodS);
    row.rejected_frames = c.rejected_frames();
  };
  if (!configuration.memory_enabled) {
    CaseBasedController c(o.cbr);
    while (!episode.done()) episode.Advance(c.Step(episode.frame()));
    record(c);
  } else {
    MemoryController c(o, map);
    c.MeasureCost(experiment.cost ? &MonotonicNs : nullptr);
    using Clock = std::chrono::steady_clock;
    auto ns = [](Clock::time_point a, Clock::time_point b) {
      return std::chrono::duration_cast<std::chrono::nanoseconds>(b - a).count();
    };
    while (!episode.done()) {
      if (experiment.cost) {
        const Clock::time_point t0 = Clock::now();
        const double heading = c.Step(episode.frame());
        const Clock::time_point t1 = Clock::now();
        episode.Advance(heading);
        row.cost.controller_ns += ns(t0, t1);
        row.cost.sim_ns += ns(t1, Clock::now());
      } else {
        episode.Advance(c.Step(episode.frame()));
      }
      if (snapshot_cycles > 0 && episode.frame().cycle % snapshot_cycles == 0 && !episode.done()) {
        on_snapshot(episode.frame().time_s, episode.Result().trajectory, c.layer().map());
      }
    }
    record(c.cbr());
    row.rejected_frames += c.rejected_frames();
    row.map_stats = c.layer().stats();
    row.map_nodes = static_cast<int>(c.layer().map().nodes().size());
    row.links_per_node = c.layer().map().LinksPerNode();
    row.map = std::make_shared<const TopoMap>(c.layer().map());
    if (experiment.cost) {
      row.cost.map = c.layer().cost();
      const auto& nodes = c.layer().map().nodes();
      if (!nodes.empty()) {
        double bytes = 0;
        for (const TopoNode& n : nodes) bytes += sizeof(TopoNode) + n.links.size() * sizeof(NodeLink);
        row.cost.bytes_per_node_memory = bytes / static_cast<double>(nodes.size());
        row.cost.bytes_per_node_bus = static_cast<double>(MapSnapshotBytes(c.layer().map())) / nodes.size();
      }
    }
  }
  row.result = episode.Result();
  if (on_snapshot && row.map) on_snapshot(row.result.time_s, row.result.trajectory, *row.map);
  if (!keep_trajectory) row.result.trajectory.clear();
  return row;
}

namespace {

void WriteFile(const fs::path& path, const std::string& text) {
  std::ofstream out(path);
  if (!(out << text) || !out.flush()) throw std::runtime_error("cannot write " + path.string());
}

std::string RunsCsv(const LaserExperiment& e, const std::vector<EpisodeRow>& rows) {
  std::ostringstream s;
  s << "experiment,configuration,density,world,seed,solved,time_s,path_cm,optimal_cm,efficiency,collisions,"
       "closest_contact_cm,final_goal_distance_cm,cycles,case_switches,rejected_frames";
  const CaseLibrary cases = AppendixA();
  if (e.controller == "cbr" || e.controller == "memory") {
    for (const Case& c : cases) s << ",t_" << c.name;
  }
  if (e.controller == "memory") {
    s << ",t_MapFollowing,run,map_nodes,links_per_node,plans,no_path,exits_reached,ended_new_node,timeouts,replans,"
         "pose_corrections,map_updates,stalled";
  }
  if (e.cost) {
    s << ",sim_ns,controller_ns,perception_ns,mapping_ns,planning_ns,following_ns,bytes_per_node_memory,"
         "bytes_per_node_bus";
  }
  if (e.case_studies) s << ",failure,minima_visits";
  if (e.controller == "nn") {
    for (const char* name : kNetworkInputNames) s << ",pass_" << name;
    for (const char* name : kNetworkOutputNames) s << ",pass_" << name;
  }
  s << "\n";
  for (const EpisodeRow& r : rows) {
    const EpisodeResult& x = r.result;
    s << e.name << "," << r.configuration << "," << Num(r.density) << "," << r.world << "," << r.seed << ","
      << (x.solved ? 1 : 0) << "," << Num(x.time_s) << "," << Num(x.path_cm) << "," << Num(x.optimal_cm) << ","
      << Num(x.efficiency) << "," << x.collisions << "," << Num(x.closest_contact_cm) << ","
      << Num(x.final_goal_distance_cm) << "," << x.cycles << "," << r.case_switches << "," << r.rejected_frames;
    if (e.controller == "cbr" || e.controller == "memory") {
      for (size_t i = 0; i < cases.size(); ++i) s << "," << Num(i < r.time_in_case_s.size() ? r.time_in_case_s[i] : 0);
    }
    if (e.controller == "memory") {
      const MapLayerStats& m = r.map_stats;
      s << "," << Num(cases.size() < r.time_in_case_s.size() ? r.time_in_case_s[cases.size()] : 0) << "," << r.run
        << "," << r.map_nodes << "," << Num(r.links_per_node) << "," << m.plans << "," << m.no_path << "," << m.reached
        << "," << m.new_node << "," << m.timeouts << "," << m.replans << "," << m.corrections << "," << m.map_updates;
    }
    if (e.cost) {
      const EpisodeCost& k = r.cost;
      s << "," << k.sim_ns << "," << k.controller_ns << "," << k.map.perception_ns << "," << k.map.mapping_ns << ","
        << k.map.planning_ns << "," << k.map.following_ns << "," << Num(k.bytes_per_node_memory) << ","
        << Num(k.bytes_per_node_bus);
    }
    if (e.case_studies) s << "," << r.failure << "," << r.minima_visits;
    if (e.controller == "nn") {
      // Gates passed per control cycle (E4's input-usage analysis: which inputs the evolved gates pass).
      const double cycles = std::max<int64_t>(1, r.gates.evaluations);
      for (int64_t n : r.gates.input_passed) s << "," << Num(n / cycles);
      for (int64_t n : r.gates.output_passed) s << "," << Num(n / cycles);
    }
    s << "\n";
  }
  return s.str();
}

std::string WorldsCsv(const LaserExperiment& e, const std::vector<WorldRow>& rows) {
  std::ostringstream s;
  const bool field = e.kind == "field";
  s << "experiment,density,world,realised_pct,optimal_path_cm,obstacles,attempts"
    << (field ? ",free_cells,minimum_cells,minimum_places,minimum_places_near_goal" : "") << "\n";
  for (const WorldRow& r : rows) {
    s << e.name << "," << Num(r.density) << "," << r.world << "," << Num(r.realised_pct) << ","
      << Num(r.optimal_path_cm) << "," << r.obstacles << "," << r.attempts;
    if (field) {
      s << "," << r.free_cells << "," << r.minimum_cells << "," << r.minimum_places << ","
        << r.minimum_places_near_goal;
    }
    s << "\n";
  }
  return s.str();
}

}  // namespace

RunOutput RunLaserExperiment(const LaserExperiment& definition, const RunOptions& options) {
  const auto started = std::chrono::steady_clock::now();
  LaserExperiment e = definition;
  ApplyConfigurationOverrides(&e, options.overrides);
  if (e.kind == "episodes") {
    for (const LaserConfiguration& c : e.configurations) {  // said once, before any thread starts
      if ((c.controller == "nn" || c.controller == "rnn") && !c.network_given) {
        throw ConfigError(e.name + ": configuration " + c.label + " (controller " + c.controller +
                          ") needs a network file: name it in the definition or pass --set " + c.label +
                          ".network=FILE (limbic laser evolve writes networks/generation_NNN.txt)");
      }
    }
  }
  const int worlds = options.limit_worlds > 0 ? std::min(options.limit_worlds, e.worlds) : e.worlds;
  struct Task {
    double density;
    int world;
  };
  std::vector<Task> tasks;
  for (double d : e.densities)
    for (int w = 0; w < worlds; ++w) tasks.push_back({d, e.first_world + w});
  struct TaskResult {
    WorldRow world;
    std::vector<EpisodeRow> episodes;
    std::string error;
  };
  std::vector<TaskResult> results(tasks.size());
  std::atomic<size_t> next{0};
  std::atomic<size_t> done{0};
  std::mutex progress_mutex;
  const bool episodes = e.kind == "episodes";
  auto worker = [&] {
    for (size_t t = next++; t < tasks.size(); t = next++) {
      TaskResult& r = results[t];
      try {
        const World world = GenerateWorld(tasks[t].density, tasks[t].world, e.library_salt, e.world);
        r.world = {tasks[t].density,
                   tasks[t].world,
                   world.realised_pct,
                   world.optimal_path_cm,
                   static_cast<int>(world.obstacles.size()),
                   world.attempts};
        if (e.kind == "field") {
          const VectorField field = ComputeVectorField(world, e.field);
          const std::vector<MinimumRegion> places = MinimumRegions(field);
          r.world.minimum_places = static_cast<int>(places.size());
          r.world.minimum_places_near_goal = 0;
          for (const MinimumRegion& place : places) {
            if (Norm(place.centroid - world.goal) <= e.world.free_radius_cm) {
              ++r.world.minimum_places_near_goal;
            }
          }
          r.world.minimum_cells = field.minima;
          r.world.free_cells = field.free_cells;
          if (tasks[t].density == e.densities.front() && tasks[t].world - e.first_world < e.trajectories &&
              !options.out_dir.empty()) {
            RenderLayers layers;
            layers.title = e.name + ": " + Num(tasks[t].density) + " % world No. " +
                           std::to_string(tasks[t].world + 1) + ", NG = 0, " + std::to_string(places.size()) +
                           " potential minima";
            layers.field = &field;
            WriteFile(fs::path(options.out_dir) /
                          ("field_d" + Num(tasks[t].density) + "_w" + std::to_string(tasks[t].world + 1) + ".svg"),
                      RenderWorldSvg(world, layers));
          }
        }
        if (episodes) {
          const bool traced =
              tasks[t].density == e.densities.front() && tasks[t].world - e.first_world < e.trajectories;
          const uint64_t seed = EpisodeSeed(e.seed, tasks[t].density, tasks[t].world);
          const bool pictures = traced && !options.out_dir.empty();
          for (const LaserConfiguration& c : e.configurations) {
            if (c.controller != "memory") {
              r.episodes.push_back(RunLaserEpisode(e, c, world, seed, traced || e.case_studies));
              continue;
            }
            // E6/E7: the controller with memory; with map_runs > 1 each run starts from the map the
            // earlier runs on this world built (the same episode seed: only the map differs).
            TopoMap retained;
            for (int run = 1; run <= e.map_runs; ++run) {
              const std::string label = RunLabel(c.label, run, e.map_runs);
              MapSnapshot snapshot;
              if (pictures && e.snapshot_every_s > 0.0) {
                snapshot = [&](double time_s, const std::vector<Vec2>& trajectory, const TopoMap& map) {
                  RenderLayers layers;
                  layers.title = e.name + " " + label + ": " + Num(tasks[t].density) + " % world No. " +
                                 std::to_string(tasks[t].world + 1) + ", t = " + Num(std::round(time_s * 10) / 10) +
                                 " s, " + std::to_string(map.nodes().size()) + " nodes";
                  layers.trajectory = trajectory;
                  layers.map = &map;
                  std::ostringstream stem;
                  stem << "snapshot_" << FileSafe(label) << "_d" << Num(tasks[t].density) << "_w" << tasks[t].world + 1
                       << "_t" << std::setw(4) << std::setfill('0') << std::llround(time_s) << ".svg";
                  WriteFile(fs::path(options.out_dir) / stem.str(), RenderWorldSvg(world, layers));
                };
              }
              EpisodeRow row = RunMemoryEpisode(e, c, world, seed, traced || e.case_studies, retained, snapshot);
              row.configuration = label;
              row.run = run;
              if (row.map) retained = *row.map;
              r.episodes.push_back(std::move(row));
            }
          }
          if (pictures) {
            const FloodResult flood = OptimalPath(world, e.world);
            for (const EpisodeRow& row : r.episodes) {
              RenderLayers layers;
              std::ostringstream title;
              title << e.name << " " << row.configuration << ": " << Num(row.density) << " % world No. "
                    << row.world + 1 << (row.result.solved ? ", solved in " : ", not solved, ")
                    << Num(std::round(row.result.time_s * 10) / 10) << " s, efficiency "
                    << Num(std::round(row.result.efficiency * 1000) / 10) << " %";
              if (row.map) title << ", " << row.map_nodes << " nodes";
              layers.title = title.str();
              layers.optimal_path = flood.path;
              layers.trajectory = row.result.trajectory;
              layers.map = row.map.get();
              WriteFile(fs::path(options.out_dir) / ("trajectory_" + FileSafe(row.configuration) + "_d" +
                                                     Num(row.density) + "_w" + std::to_string(row.world + 1) + ".svg"),
                        RenderWorldSvg(world, layers));
            }
          }
          const bool any_unsolved = std::any_of(r.episodes.begin(), r.episodes.end(),
                                                [](const EpisodeRow& row) { return !row.result.solved; });
          if (e.case_studies) {
            // E3's case studies: each episode read against the places of this world's static field (computed only
            // when an episode failed here: a solved one needs no places).
            const std::vector<MinimumRegion> places =
                any_unsolved ? MinimumRegions(ComputeVectorField(world, e.field)) : std::vector<MinimumRegion>{};
            for (EpisodeRow& row : r.episodes) {
              FailureOptions failure = e.failure;
              failure.sample_s = 0.1;  // every 10th 10 ms pose (RunLaserEpisode's trajectory)
              const FailureAnalysis analysis = ClassifyFailure(row.result, places, failure);
              row.failure = FailureKindName(analysis.kind);
              if (!row.result.solved) row.minima_visits = static_cast<int>(analysis.visits.size());
            }
          }
          for (EpisodeRow& row : r.episodes) {
            // Case studies keep the unsolved episodes' paths for their pictures (drawn once all worlds are done).
            if (!e.case_studies || row.result.solved) row.result.trajectory.clear();
            row.map.reset();
          }
        }
      } catch (const std::exception& ex) {
        r.error = ex.what();
      }
      const size_t n = ++done;
      if (options.progress) {
        std::lock_guard<std::mutex> lock(progress_mutex);
        if (n == tasks.size() || n % std::max<size_t>(1, tasks.size() / 50) == 0) {
          const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
          const double eta = elapsed / static_cast<double>(n) * static_cast<double>(tasks.size() - n);
          std::cerr << "\r" << e.name << ": " << n << "/" << tasks.size() << " worlds, " << std::llround(elapsed)
                    << " s, ETA " << std::llround(eta) << " s   " << std::flush;
        }
      }
    }
  };
  std::vector<std::thread> threads;
  for (int j = 0; j < std::max(1, options.jobs); ++j) threads.emplace_back(worker);
  for (auto& th : threads) th.join();
  if (options.progress) std::cerr << "\n";
  RunOutput out;
  std::vector<std::string> errors;
  for (size_t t = 0; t < results.size(); ++t) {
    if (!results[t].error.empty()) {
      errors.push_back(Num(tasks[t].density) + " % world " + std::to_string(tasks[t].world) + ": " + results[t].error);
      continue;
    }
    out.worlds.push_back(results[t].world);
    for (auto& row : results[t].episodes) out.episodes.push_back(std::move(row));
  }
  // With map_runs > 1 every run of a configuration is summarised as a configuration of its own.
  LaserExperiment summarised = e;
  if (e.controller == "memory" && e.map_runs > 1) {
    summarised.configurations.clear();
    for (const LaserConfiguration& c : e.configurations) {
      for (int run = 1; run <= e.map_runs; ++run) {
        summarised.configurations.push_back(c);
        summarised.configurations.back().label = RunLabel(c.label, run, e.map_runs);
      }
    }
  }
  // Rows in configuration order, then density and world (the tasks' order within a configuration).
  std::stable_sort(out.episodes.begin(), out.episodes.end(), [&](const EpisodeRow& a, const EpisodeRow& b) {
    auto index = [&](const std::string& label) {
      for (size_t i = 0; i < summarised.configurations.size(); ++i)
        if (summarised.configurations[i].label == label) return i;
      return summarised.configurations.size();
    };
    return index(a.configuration) < index(b.configuration);
  });
  if (e.case_studies) {
    // The first `case_pictures` episodes of each failure kind, in row order (the same whatever the threads did).
    std::map<std::string, int> drawn;
    for (EpisodeRow& row : out.episodes) {
      if (row.result.solved || options.out_dir.empty() || drawn[row.failure] >= e.case_pictures) continue;
      ++drawn[row.failure];
      const World world = GenerateWorld(row.density, row.world, e.library_salt, e.world);
      const VectorField field = ComputeVectorField(world, e.field);
      RenderLayers layers;
      layers.title = e.name + " " + row.configuration + ": " + Num(row.density) + " % world No. " +
                     std::to_string(row.world + 1) + ", " + row.failure + " (" + std::to_string(row.minima_visits) +
                     " visits to minima), path " + Num(std::round(row.result.path_cm)) + " cm";
      layers.field = &field;
      layers.trajectory = row.result.trajectory;
      WriteFile(fs::path(options.out_dir) / ("case_" + row.failure + "_" + FileSafe(row.configuration) + "_d" +
                                             Num(row.density) + "_w" + std::to_string(row.world + 1) + ".svg"),
                RenderWorldSvg(world, layers));
    }
    for (EpisodeRow& row : out.episodes) row.result.trajectory.clear();
  }
  out.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  if (!options.out_dir.empty()) {
    const fs::path dir(options.out_dir);
    if (episodes) {
      WriteFile(dir / "runs.csv", RunsCsv(e, out.episodes));
      const LaserSummary summary = Summarise(summarised, out.episodes);
      WriteFile(dir / "summary.csv", SummaryCsv(summary));
      std::string md = SummaryMarkdown(summarised, summary);
      if (e.controller == "memory") md += MapSummaryMarkdown(summarised, out.episodes);
      if (e.cost) md += CostSummaryMarkdown(summarised, out.episodes);
      if (e.case_studies) md += FailureSummaryMarkdown(summarised, out.episodes);
      WriteFile(dir / "summary.md", md);
    } else if (e.kind == "field") {
      WriteFile(dir / "fields.csv", WorldsCsv(e, out.worlds));
      WriteFile(dir / "summary.csv", FieldSummaryCsv(out.worlds));
      WriteFile(dir / "summary.md", FieldSummaryMarkdown(e, out.worlds));
    } else {
      WriteFile(dir / "worlds.csv", WorldsCsv(e, out.worlds));
      WriteFile(dir / "summary.csv", WorldSummaryCsv(out.worlds));
      WriteFile(dir / "summary.md", WorldSummaryMarkdown(e, out.worlds));
    }
  }
  if (!errors.empty()) {
    std::string msg = std::to_string(errors.size()) + " world(s) failed: " + errors.front();
    throw std::runtime_error(msg);
  }
  return out;
}

}  // namespace limbic::laser
