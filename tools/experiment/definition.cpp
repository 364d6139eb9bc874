#include "tools/experiment/definition.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <set>
#include <sstream>
#include <stdexcept>

#include "common/config/config.hpp"
#include "common/paths/paths.hpp"
#include "common/regex/regex.hpp"
#include "common/robot/robot_description.hpp"
#include "services/controller/directional_controller.hpp"
#include "services/crowd/crowd_world.hpp"
#include "services/mapper/occupancy_mapper.hpp"
#include "sim/team.hpp"

namespace limbic::experiment {
namespace {

namespace fs = std::filesystem;
using config::ConfigError;
using config::StrictMap;

enum class OptionKind {
  kBool,
  kNumber,
  kGoalSource,
  kPath,
  kDangerPoint,
  kDangerForget,
  kMapDangerPoint,
  kBody,
  kNavigators,
  kCrowdMode
};

const std::map<std::string, OptionKind>& OptionKinds() {
  static const std::map<std::string, OptionKind> kinds = {
      {"prebuilt_map", OptionKind::kBool},
      {"danger_pretag", OptionKind::kBool},
      {"wrong_map_all_free", OptionKind::kBool},
      {"human_flee_extension", OptionKind::kBool},
      {"velocity_goal_source", OptionKind::kGoalSource},
      {"goal_tolerance", OptionKind::kNumber},
      {"timeout", OptionKind::kNumber},
      {"fault_script", OptionKind::kPath},
      {"map_point_inset", OptionKind::kNumber},
      {"tricycle_turn", OptionKind::kBool},
      {"candidate_outline", OptionKind::kBool},
      {"hold_danger_weight", OptionKind::kBool},
      {"danger_point", OptionKind::kDangerPoint},
      {"danger_forget", OptionKind::kDangerForget},
      {"map_danger_point", OptionKind::kMapDangerPoint},
      {"body", OptionKind::kBody},
      {"navigators", OptionKind::kNavigators},
      {"crowd_mode", OptionKind::kCrowdMode},
  };
  return kinds;
}

// Whether `parse` (a service's option parser, throwing std::invalid_argument) accepts `value`.
template <typename Parse>
bool Accepted(Parse parse, const std::string& value) {
  try {
    parse(value);
    return true;
  } catch (const std::invalid_argument&) {
    return false;
  }
}

// A navigator list (robots: navigators, or a configuration's navigators option): one for all robots or one per
// robot, each hybrid or crowd; returns an error text or "".
std::string CheckNavigators(const std::vector<std::string>& navigators, int robots) {
  if (navigators.size() != 1 && navigators.size() != static_cast<size_t>(robots)) {
    return "must list one navigator for all robots or one per robot (" + std::to_string(robots) + "), not " +
           std::to_string(navigators.size());
  }
  for (const auto& n : navigators) {
    if (n != "hybrid" && n != "crowd") return "navigators are hybrid or crowd, got '" + n + "'";
  }
  return "";
}

// Checks and normalises one option value; returns an error text or "".
std::string CheckOption(const std::string& name, std::string* value) {
  const auto it = OptionKinds().find(name);
  if (it == OptionKinds().end()) return "is not a known option";
  switch (it->second) {
    case OptionKind::kPath:
      // A timed fault script for hwio (issue 8); relative paths are taken from limbic's data (common/paths:
      // the source tree in a build, <prefix>/share/limbic installed), where the shipped scripts are.
      if (value->empty()) return "needs a file";
      if (value->front() != '/') *value = (paths::DataDir() / *value).string();
      if (!std::filesystem::exists(*value)) return "names no file: " + *value;
      return "";
    case OptionKind::kBool:
      if (*value == "true" || *value == "false") return "";
      return "must be true or false, got '" + *value + "'";
    case OptionKind::kGoalSource:
      if (*value == "path" || *value == "goal_bearing") return "";
      return "must be path or goal_bearing, got '" + *value + "'";
    // Enumerations: the service's own parser decides (one list of names, the service's).
    case OptionKind::kDangerPoint:
      return Accepted(mapper::ParseDangerPoint, *value)
                 ? ""
                 : "must be surface, contact, sensed or sector, got '" + *value + "'";
    case OptionKind::kDangerForget:
      return Accepted(mapper::ParseDangerForget, *value)
                 ? ""
                 : "must be none, free_space, seen_free_space or body, got '" + *value + "'";
    case OptionKind::kMapDangerPoint:
      return Accepted(controller::ParseMapDangerPoint, *value) ? "" : "must be centre or site, got '" + *value + "'";
    case OptionKind::kNavigators: {
      // "hybrid,crowd,...": the count against the team is checked with the configuration (CheckNavigators).
      for (const auto& n : sim::SplitList(*value)) {
        if (n != "hybrid" && n != "crowd") return "lists navigators hybrid or crowd, got '" + n + "'";
      }
      return sim::SplitList(*value).empty() ? "needs hybrid or crowd (one for all, or one per robot)" : "";
    }
    case OptionKind::kCrowdMode:
      return Accepted(crowd::EmotionModeFromName, *value)
                 ? ""
                 : "must be one of the crowd robots' emotion modes (off, on, invisible), got '" + *value + "'";
    case OptionKind::kBody:
      // A robot description (issue 18): every robot of the run has this body. Loaded now so that a bad name or
      // file fails the definition, not a run.
      try {
        robot::LoadRobotDescription(*value);
      } catch (const config::ConfigError& e) {
        return std::string("names no usable robot description: ") + e.what();
      }
      return "";
    case OptionKind::kNumber: {
      char* end = nullptr;
      const double v = std::strtod(value->c_str(), &end);
      if (value->empty() || *end != '\0' || !std::isfinite(v) || v <= 0)
        return "must be a positive number, got '" + *value + "'";
      return "";
    }
  }
  return "";
}

bool ValidLabel(const std::string& label) {
  static const regex::Regex re("[A-Za-z0-9_]+");
  return re.Match(label).has_value();
}

// A configuration block (the `defaults:` block or one entry of `configurations:`), merged onto `into`.
void LoadConfigurationBlock(StrictMap& map, Configuration* into) {
  map.Optional("affect", &into->affect);
  if (map.Has("parameters")) {
    StrictMap params = map.Child("parameters");
    for (const std::string& key : params.Keys()) {
      bool is_int = false;
      if (!IsParameterName(key, &is_int)) params.Fail(key, "is not a ControlParameters field");
      double value = 0;
      params.Optional(key, &value);
      if (is_int && value != std::round(value)) params.Fail(key, "must be an integer");
      into->parameters[key] = value;
    }
  }
  std::vector<std::string> overrides;
  if (map.Optional("affect_overrides", &overrides)) {
    for (const auto& o : overrides) {
      const auto eq = o.find('=');
      if (eq == std::string::npos || eq == 0)
        map.Fail("affect_overrides", "entry '" + o + "' is not of the form key.path=value");
      into->affect_overrides.push_back(o);
    }
  }
  if (map.Has("options")) {
    StrictMap options = map.Child("options");
    for (const std::string& key : options.Keys()) {
      std::string value;
      options.Optional(key, &value);
      const std::string error = CheckOption(key, &value);
      if (!error.empty()) options.Fail(key, error);
      into->options[key] = value;
    }
  }
}

std::vector<double> LoadValues(StrictMap& sweep, const std::string& key) {
  YAML::Node node;
  sweep.Optional(key, &node);
  std::vector<double> values;
  if (node.IsSequence()) {
    try {
      values = node.as<std::vector<double>>();
    } catch (const YAML::Exception&) {
      sweep.Fail(key, "must be a list of numbers");
    }
  } else if (node.IsMap()) {
    StrictMap range(node, sweep.source(), sweep.KeyPath(key));
    const double start = range.Required<double>("start");
    const double stop = range.Required<double>("stop");
    const double step = range.Required<double>("step");
    range.Finish();
    if (!(step > 0) || stop < start) sweep.Fail(key, "needs step > 0 and stop >= start");
    const int n = static_cast<int>(std::floor((stop - start) / step + 1e-9)) + 1;
    for (int i = 0; i < n; ++i) {
      // Round to 12 significant digits so 0.1·3 prints as 0.3 in run ids.
      const double v = start + i * step;
      values.push_back(std::stod(FormatNumber(std::round(v * 1e12) / 1e12)));
    }
  } else {
    sweep.Fail(key, "must be a list of numbers or {start, stop, step}");
  }
  if (values.empty()) sweep.Fail(key, "must not be empty");
  std::set<std::string> seen;
  for (double v : values) {
    if (!seen.insert(FormatNumber(v)).second) sweep.Fail(key, "repeats the value " + FormatNumber(v));
  }
  return values;
}

Sweep LoadSweep(StrictMap& map) {
  Sweep sweep;
  sweep.name = map.Required<std::string>("name");
  if (!ValidLabel(sweep.name)) map.Fail("name", "must match [A-Za-z0-9_]+");
  YAML::Node set = YAML::Node();
  if (!map.Optional("set", &set) || !set.IsSequence() || set.size() == 0)
    map.Fail("set", "must be a non-empty list of parameter paths or {path, scale, offset}");
  for (size_t i = 0; i < set.size(); ++i) {
    SweepTarget target;
    if (set[i].IsScalar()) {
      target.path = set[i].as<std::string>();
    } else if (set[i].IsMap()) {
      StrictMap entry(set[i], map.source(), map.KeyPath("set") + "[" + std::to_string(i) + "]");
      target.path = entry.Required<std::string>("path");
      entry.Optional("scale", &target.scale);
      entry.Optional("offset", &target.offset);
      entry.Finish();
    } else {
      map.Fail("set", "entries must be a path or {path, scale, offset}");
    }
    const std::string where = "set[" + std::to_string(i) + "]";
    if (target.path.rfind("affect.", 0) == 0) {
      if (target.path.size() <= 7) map.Fail(where, "needs a key path after 'affect.'");
    } else if (target.path.rfind("option.", 0) == 0) {
      const std::string name = target.path.substr(7);
      const auto it = OptionKinds().find(name);
      if (it == OptionKinds().end() || it->second != OptionKind::kNumber)
        map.Fail(where, "'" + name + "' is not a numeric option");
    } else if (!IsParameterName(target.path)) {
      map.Fail(where, "'" + target.path + "' is neither a ControlParameters field, affect.<key> nor option.<name>");
    }
    sweep.targets.push_back(target);
  }
  sweep.values = LoadValues(map, "values");
  return sweep;
}

std::vector<int> LoadEnvironments(StrictMap& map) {
  if (!map.Has("environments")) {
    std::vector<int> all(20);
    for (int i = 0; i < 20; ++i) all[i] = i;
    return all;
  }
  YAML::Node node;
  map.Optional("environments", &node);
  std::vector<int> envs;
  if (node.IsScalar() && node.as<std::string>() == "all") {
    for (int i = 0; i < 20; ++i) envs.push_back(i);
  } else if (node.IsSequence()) {
    try {
      envs = node.as<std::vector<int>>();
    } catch (const YAML::Exception&) {
      map.Fail("environments", "must be 'all', a list of indices or {first, last}");
    }
  } else if (node.IsMap()) {
    StrictMap range(node, map.source(), map.KeyPath("environments"));
    const int first = range.Required<int>("first");
    const int last = range.Required<int>("last");
    range.Finish();
    for (int i = first; i <= last; ++i) envs.push_back(i);
  } else {
    map.Fail("environments", "must be 'all', a list of indices or {first, last}");
  }
  if (envs.empty()) map.Fail("environments", "must not be empty");
  std::set<int> seen;
  for (int e : envs) {
    if (e < 0 || e > 19) map.Fail("environments", "index " + std::to_string(e) + " is outside 0..19");
    if (!seen.insert(e).second) map.Fail("environments", "repeats index " + std::to_string(e));
  }
  return envs;
}

}  // namespace

int ExperimentDefinition::RunCount() const {
  const int values = sweep ? static_cast<int>(sweep->values.size()) : 1;
  return static_cast<int>(configurations.size()) * values * static_cast<int>(sets.size()) *
         static_cast<int>(environments.size()) * runs_per_environment;
}

const std::vector<std::string>& OptionNames() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> n;
    for (const auto& [k, v] : OptionKinds()) n.push_back(k);
    return n;
  }();
  return names;
}

bool IsParameterName(const std::string& name, bool* is_int) {
  struct Field {
    const char* name;
    bool is_int;
  };
  static const Field kFields[] = {
#define LIMBIC_FIELD(type, field) {#field, std::is_same_v<type, int>},
      LIMBIC_CONTROL_PARAMETER_FIELDS(LIMBIC_FIELD)
#undef LIMBIC_FIELD
  };
  for (const Field& f : kFields) {
    if (name == f.name) {
      if (is_int) *is_int = f.is_int;
      return true;
    }
  }
  return false;
}

void ApplyParameterOverrides(const std::map<std::string, double>& overrides, ControlParameters* params) {
  for (const auto& [name, value] : overrides) {
    bool is_int = false;
    if (!IsParameterName(name, &is_int)) throw std::invalid_argument("'" + name + "' is not a ControlParameters field");
    if (is_int && value != std::round(value))
      throw std::invalid_argument("'" + name + "' must be an integer, got " + FormatNumber(value));
    bool done = false;
#define LIMBIC_FIELD(type, field)                                          \
  if (!done && name == #field) {                                           \
    params->field = static_cast<type>(is_int ? std::round(value) : value); \
    done = true;                                                           \
  }
    LIMBIC_CONTROL_PARAMETER_FIELDS(LIMBIC_FIELD)
#undef LIMBIC_FIELD
  }
}

std::string FormatNumber(double value) {
  if (value == 0) return "0";  // also folds -0
  char buffer[64];
  const auto result = std::to_chars(buffer, buffer + sizeof(buffer), value);
  return std::string(buffer, result.ptr);
}

ExperimentDefinition LoadExperiment(const std::string& path) {
  StrictMap map(config::LoadFile(path), path);
  ExperimentDefinition def;
  def.source = path;
  def.name = map.Required<std::string>("name");
  const std::string stem = fs::path(path).stem().string();
  if (def.name != stem) map.Fail("name", "'" + def.name + "' must equal the file name '" + stem + "'");
  def.description = map.Required<std::string>("description");
  def.chapter = map.Required<std::string>("chapter");
  static const std::set<std::string> kChapters = {"6", "7", "9", "10", "companion", "test"};
  if (!kChapters.count(def.chapter)) map.Fail("chapter", "must be 6, 7, 9, 10, companion or test");
  def.seed = map.Required<uint64_t>("seed");
  map.Optional("environment_seed", &def.environment_seed);

  const auto sets = map.Required<std::vector<std::string>>("sets");
  if (sets.empty()) map.Fail("sets", "must not be empty");
  for (const auto& s : sets) {
    if (s.size() != 1 || s[0] < 'A' || s[0] > 'G') map.Fail("sets", "'" + s + "' is not a set A..G");
    if (std::count(def.sets.begin(), def.sets.end(), s[0])) map.Fail("sets", "repeats set " + s);
    def.sets.push_back(s[0]);
  }
  def.environments = LoadEnvironments(map);
  map.Optional("runs_per_environment", &def.runs_per_environment);
  if (def.runs_per_environment < 1) map.Fail("runs_per_environment", "must be at least 1");
  def.iterations = map.Required<int>("iterations");
  if (def.iterations < 1) map.Fail("iterations", "must be at least 1");
  map.Optional("trace_runs", &def.trace_runs);
  if (def.trace_runs < 0) map.Fail("trace_runs", "must be >= 0");
  map.Optional("record", &def.record);
  if (def.record != "none" && def.record != "traced" && def.record != "all") {
    map.Fail("record", "must be none, traced or all");
  }

  if (map.Has("robots")) {
    StrictMap team = map.Child("robots");
    def.team.count = team.Required<int>("count");
    if (def.team.count < 1 || def.team.count > 16) team.Fail("count", "must be 1..16");
    auto points = [&](const char* key, size_t min_n, size_t max_n, std::vector<std::vector<double>>* out) {
      if (!team.Optional(key, out)) return;
      if (out->size() != static_cast<size_t>(def.team.count)) {
        team.Fail(key, "must list one entry per robot (" + std::to_string(def.team.count) + "), not " +
                           std::to_string(out->size()));
      }
      for (const auto& p : *out) {
        if (p.size() < min_n || p.size() > max_n)
          team.Fail(key, min_n == max_n ? "entries are [x, y]" : "entries are [x, y] or [x, y, theta]");
        for (double v : p) {
          if (!std::isfinite(v)) team.Fail(key, "must hold finite numbers");
        }
      }
    };
    points("starts", 2, 3, &def.team.starts);
    points("goals", 2, 2, &def.team.goals);
    // Issue 18 item 2: a body per robot (robot descriptions), or one for all.
    if (team.Optional("bodies", &def.team.bodies)) {
      if (def.team.bodies.size() != 1 && def.team.bodies.size() != static_cast<size_t>(def.team.count)) {
        team.Fail("bodies", "must list one description for all robots or one per robot (" +
                                std::to_string(def.team.count) + "), not " + std::to_string(def.team.bodies.size()));
      }
      for (const auto& b : def.team.bodies) {
        try {
          robot::LoadRobotDescription(b);
        } catch (const config::ConfigError& e) {
          team.Fail("bodies", e.what());
        }
      }
    }
    if (team.Optional("navigators", &def.team.navigators)) {
      const std::string error = CheckNavigators(def.team.navigators, def.team.count);
      if (!error.empty()) team.Fail("navigators", error);
    }
  }

  Configuration defaults;
  if (map.Has("defaults")) {
    StrictMap block = map.Child("defaults");
    if (block.Has("label")) block.Fail("label", "belongs to a configuration, not to defaults");
    LoadConfigurationBlock(block, &defaults);
  }
  std::vector<StrictMap> configs = map.ChildList("configurations");
  if (configs.empty()) {
    if (map.Has("configurations")) map.Fail("configurations", "must not be empty");
    defaults.label = "default";
    def.configurations.push_back(defaults);
  }
  std::set<std::string> labels;
  for (size_t i = 0; i < configs.size(); ++i) {
    Configuration c = defaults;
    c.label = configs[i].Required<std::string>("label");
    if (!ValidLabel(c.label)) configs[i].Fail("label", "'" + c.label + "' must match [A-Za-z0-9_]+");
    if (!labels.insert(c.label).second) configs[i].Fail("label", "'" + c.label + "' is repeated");
    LoadConfigurationBlock(configs[i], &c);
    def.configurations.push_back(c);
  }
  for (const auto& c : def.configurations) {
    if (c.affect == kNoAffect && !c.affect_overrides.empty())
      map.Fail("configurations", "'" + c.label + "' has affect_overrides but affect: none");
    const auto navigators = c.options.find("navigators");
    if (navigators != c.options.end()) {
      const std::string error = CheckNavigators(sim::SplitList(navigators->second), def.team.count);
      if (!error.empty()) map.Fail("configurations", "'" + c.label + "' option navigators " + error);
    }
    const std::vector<std::string> used =
        navigators != c.options.end() ? sim::SplitList(navigators->second) : def.team.navigators;
    if (c.options.count("crowd_mode") && std::find(used.begin(), used.end(), "crowd") == used.end())
      map.Fail("configurations", "'" + c.label + "' sets crowd_mode but none of its robots is a crowd robot");
  }
  if (map.Has("sweep")) {
    StrictMap sweep = map.Child("sweep");
    def.sweep = LoadSweep(sweep);
    for (const auto& t : def.sweep->targets) {
      if (t.path.rfind("affect.", 0) != 0) continue;
      for (const auto& c : def.configurations) {
        if (c.affect == kNoAffect)
          map.Fail("sweep", "sets '" + t.path + "' but configuration '" + c.label + "' has no affect");
      }
    }
  }
  map.Finish();
  return def;
}

namespace {
std::string PointsOption(const std::vector<std::vector<double>>& points) {
  std::string out;
  for (const auto& p : points) {
    if (!out.empty()) out += ";";
    for (size_t i = 0; i < p.size(); ++i) out += (i ? "," : "") + FormatNumber(p[i]);
  }
  return out;
}
}  // namespace

std::string Team::StartsOption() const { return PointsOption(starts); }
namespace {
std::string CommaList(const std::vector<std::string>& items) {
  std::string out;
  for (const auto& b : items) out += (out.empty() ? "" : ",") + b;
  return out;
}
}  // namespace

std::string Team::BodiesOption() const { return CommaList(bodies); }
std::string Team::NavigatorsOption() const { return CommaList(navigators); }
std::string Team::GoalsOption() const { return PointsOption(goals); }

std::string DefaultExperimentDir() { return paths::DataPath("experiments", "LIMBIC_EXPERIMENTS_DIR").string(); }

std::vector<std::string> ListExperimentFiles(const std::string& dir) {
  std::vector<std::string> files;
  if (!fs::is_directory(dir)) throw ConfigError(dir + ": no such experiments directory");
  for (auto it = fs::recursive_directory_iterator(dir); it != fs::recursive_directory_iterator(); ++it) {
    // experiments/recruitment and experiments/laser hold `limbic recruit` and `limbic laser` definitions
    // (other formats, other runners).
    if (it->is_directory() && (it->path().filename() == kRecruitmentDir || it->path().filename() == kLaserDir ||
                               it->path().filename() == kCrowdDir || it->path().filename() == kExploreDir)) {
      it.disable_recursion_pending();
      continue;
    }
    if (it->is_regular_file() && it->path().extension() == ".yaml") files.push_back(it->path().string());
  }
  std::sort(files.begin(), files.end());
  return files;
}

ExperimentDefinition FindExperiment(const std::string& name_or_path, const std::string& dir) {
  if (name_or_path.size() > 5 && name_or_path.ends_with(".yaml")) return LoadExperiment(name_or_path);
  std::vector<std::string> matches;
  for (const auto& file : ListExperimentFiles(dir)) {
    const fs::path p(file);
    const std::string relative = fs::relative(p, dir).replace_extension().generic_string();
    if (p.stem().string() == name_or_path || relative == name_or_path) matches.push_back(file);
  }
  if (matches.empty())
    throw ConfigError("no experiment named '" + name_or_path + "' in " + dir + " (limbic experiment list shows them)");
  if (matches.size() > 1)
    throw ConfigError("experiment name '" + name_or_path + "' is ambiguous: " + matches[0] + ", " + matches[1]);
  return LoadExperiment(matches[0]);
}

std::string DescribeExperiment(const ExperimentDefinition& d) {
  std::ostringstream out;
  out << "experiment: " << d.name << "  (chapter " << d.chapter << ", " << d.source << ")\n";
  out << "seed: " << d.seed << "  environment_seed: " << d.environment_seed << "\n";
  out << "sets: ";
  for (char s : d.sets) out << s;
  out << "  environments: " << d.environments.size() << "  runs_per_environment: " << d.runs_per_environment
      << "  iterations: " << d.iterations << "\n";
  if (d.team.count > 1 || !d.team.bodies.empty() || !d.team.navigators.empty()) {
    out << "robots: " << d.team.count << "  starts: " << (d.team.starts.empty() ? "placed" : d.team.StartsOption())
        << "  goals: " << (d.team.goals.empty() ? "placed" : d.team.GoalsOption())
        << "  bodies: " << (d.team.bodies.empty() ? "marvin" : d.team.BodiesOption())
        << "  navigators: " << (d.team.navigators.empty() ? "hybrid" : d.team.NavigatorsOption()) << "\n";
  }
  for (const auto& c : d.configurations) {
    out << "configuration " << c.label << ": affect " << c.affect;
    for (const auto& [k, v] : c.parameters) out << "  " << k << "=" << FormatNumber(v);
    for (const auto& o : c.affect_overrides) out << "  affect." << o;
    for (const auto& [k, v] : c.options) out << "  " << k << ":" << v;
    out << "\n";
  }
  if (d.sweep) {
    out << "sweep " << d.sweep->name << ":";
    for (const auto& t : d.sweep->targets)
      out << " " << t.path << "=" << FormatNumber(t.scale) << "*v+" << FormatNumber(t.offset);
    out << "  values";
    for (double v : d.sweep->values) out << " " << FormatNumber(v);
    out << "\n";
  }
  out << "runs: " << d.RunCount() << "  traversals: " << d.RunCount() * d.iterations << "\n";
  return out.str();
}

}  // namespace limbic::experiment
