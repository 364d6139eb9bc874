#include "services/affect/affect_config.hpp"

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <set>
#include <sstream>
#include <stdexcept>

#include "common/config/config.hpp"
#include "common/paths/paths.hpp"
#include "services/affect/parameter_mapping.hpp"

namespace limbic::affect {

namespace fs = std::filesystem;
using config::ConfigError;
using config::StrictMap;

namespace {

template <size_t N>
int RequireName(StrictMap& map, const std::string& key, const std::array<std::string_view, N>& names,
                const std::string& what) {
  const auto name = map.Required<std::string>(key);
  const auto index = IndexOfName(names, name);
  if (!index) {
    std::string known;
    for (const auto& n : names) known += (known.empty() ? "" : ", ") + std::string(n);
    map.Fail(key, "names an unknown " + what + " '" + name + "' (known: " + known + ")");
  }
  return *index;
}

void RequireRange(StrictMap& map, const std::string& key, double value, double lo, double hi, bool lo_open,
                  const std::string& range_text) {
  const bool ok = (lo_open ? value > lo : value >= lo) && value <= hi && std::isfinite(value);
  if (!ok) {
    std::ostringstream got;
    got << value;
    map.Fail(key, "must be in " + range_text + " (got " + got.str() + ")");
  }
}

double RequireAlpha(StrictMap& map, const std::string& key) {
  const auto value = map.Required<double>(key);
  RequireRange(map, key, value, 0.0, 1.0, /*lo_open=*/true, "(0, 1]");
  return value;
}

// A list of DWS inputs; sources are names from `names`.
template <size_t N>
std::vector<DwsTerm> LoadDwsTerms(StrictMap& parent, const std::string& key,
                                  const std::array<std::string_view, N>& names, const std::string& what) {
  if (!parent.Has(key)) parent.Fail(key, "is required but missing");
  std::vector<DwsTerm> terms;
  int dominant = 0;
  for (StrictMap& item : parent.ChildList(key)) {
    DwsTerm t;
    t.source = RequireName(item, "input", names, what);
    t.w_min = item.Required<double>("w_min");
    t.w_max = item.Required<double>("w_max");
    t.exponent = item.Required<double>("exponent");
    t.logic = item.Required<int>("logic");
    if (t.w_min < 0) item.Fail("w_min", "must be >= 0");
    if (t.w_max < 0) item.Fail("w_max", "must be >= 0");
    if (t.exponent < 0) item.Fail("exponent", "must be >= 0 (0 = linear)");
    if (t.logic < 0 || t.logic > 3) item.Fail("logic", "must be 0, 1, 2 or 3");
    if (t.Dominant()) ++dominant;
    terms.push_back(t);
  }
  if (terms.empty()) parent.Fail(key, "must list at least one input");
  if (dominant > 1) parent.Fail(key, "has " + std::to_string(dominant) + " dominant inputs (w_min = 1); at most one");
  return terms;
}

StimulusParams LoadStimulus(StrictMap& m) {
  StimulusParams p;
  p.s_min = m.Required<double>("s_min");
  p.s_max = m.Required<double>("s_max");
  if (!(p.s_max > p.s_min)) m.Fail("s_max", "must be greater than s_min");
  p.invert = m.Required<bool>("invert");
  p.alpha_growth = RequireAlpha(m, "alpha_growth");
  p.alpha_decay = RequireAlpha(m, "alpha_decay");
  return p;
}

ParameterMapping LoadMapping(StrictMap& m, int source) {
  ParameterMapping row;
  row.source = source;
  row.parameter = m.Required<std::string>("parameter");
  if (!IsControlParameter(row.parameter)) {
    m.Fail("parameter", "'" + row.parameter + "' is not a ControlParameters field");
  }
  row.p1 = m.Required<double>("p1");
  row.p2 = m.Required<double>("p2");
  row.exponent = m.Required<double>("exponent");
  return row;
}

std::optional<double> OptionalNullable(StrictMap& m, const std::string& key, double lo, double hi) {
  YAML::Node node;
  if (!m.Optional(key, &node)) return std::nullopt;  // absent: keep whatever the caller had
  if (node.IsNull()) return std::nullopt;
  double value = 0.0;
  try {
    value = node.as<double>();
  } catch (const YAML::Exception&) {
    m.Fail(key, "must be a number or null");
  }
  std::ostringstream range;
  range << "[" << lo << ", " << hi << "]";
  RequireRange(m, key, value, lo, hi, false, range.str());
  return value;
}

// Reads a nullable key: absent leaves *out unchanged, null clears it, a number sets it.
void ApplyNullable(StrictMap& m, const std::string& key, double lo, double hi, std::optional<double>* out) {
  if (!m.Has(key)) return;
  *out = OptionalNullable(m, key, lo, hi);
}

std::string DirectoryOf(const std::string& path) {
  const fs::path parent = fs::path(path).parent_path();
  return parent.empty() ? std::string(".") : parent.string();
}

bool LooksLikePath(const std::string& s) { return s.size() > 5 && s.substr(s.size() - 5) == ".yaml"; }

std::string ResolveConfigPath(const std::string& name_or_path, const std::string& config_dir) {
  if (LooksLikePath(name_or_path)) return name_or_path;
  return (fs::path(config_dir) / (name_or_path + ".yaml")).string();
}

// Applies one configuration file onto *config (base first, recursively).
void ApplyConfigFile(const std::string& path, const std::string& config_dir, const std::vector<std::string>& overrides,
                     int depth, AffectConfig* config) {
  if (depth > 8) throw ConfigError(path + ": 'base' chain deeper than 8 files (a cycle?)");
  YAML::Node doc = config::LoadFile(path);
  for (const auto& o : overrides) config::ApplyOverride(doc, o);
  StrictMap root(doc, path);

  std::string base;
  if (root.Optional("base", &base)) {
    const std::string base_path =
        LooksLikePath(base) ? (fs::path(DirectoryOf(path)) / base).string() : ResolveConfigPath(base, config_dir);
    ApplyConfigFile(base_path, config_dir, {}, depth + 1, config);
  }
  config->files.push_back(path);

  std::string tables;
  if (root.Optional("tables", &tables)) {
    config->tables = LoadModelTables((fs::path(DirectoryOf(path)) / tables).string());
  }
  std::string model;
  if (root.Optional("model", &model)) {
    if (model == "thesis")
      config->model = AffectModel::kThesis;
    else if (model == "companion2006")
      config->model = AffectModel::kCompanion2006;
    else
      root.Fail("model", "must be 'thesis' or 'companion2006' (got '" + model + "')");
  }
  if (root.Optional("control_period", &config->control_period) && !(config->control_period > 0)) {
    root.Fail("control_period", "must be > 0");
  }
  std::string text;
  if (root.Optional("dominance", &text)) {
    if (text == "corrected")
      config->dominance = DominanceForm::kCorrected;
    else if (text == "printed")
      config->dominance = DominanceForm::kPrinted;
    else
      root.Fail("dominance", "must be 'corrected' or 'printed'");
  }
  if (root.Optional("emotion_map_update", &text)) {
    if (text == "interpreted")
      config->map_update = EmotionMapUpdate::kInterpreted;
    else if (text == "literal")
      config->map_update = EmotionMapUpdate::kLiteral;
    else
      root.Fail("emotion_map_update", "must be 'interpreted' or 'literal'");
  }
  if (root.Optional("zero_weight", &text)) {
    if (text == "fallback")
      config->zero_weight = ZeroWeightPolicy::kFallback;
    else if (text == "hold_previous")
      config->zero_weight = ZeroWeightPolicy::kHoldPrevious;
    else
      root.Fail("zero_weight", "must be 'fallback' or 'hold_previous'");
  }
  root.Optional("modulate_parameters", &config->modulate_parameters);
  if (root.Has("base_parameters")) {
    StrictMap params = root.Child("base_parameters");
    LoadControlParameters(params, &config->base_parameters);
  }
  if (root.Has("emotions")) {
    StrictMap emotions = root.Child("emotions");
    for (int e = 0; e < kNumEmotions; ++e) {
      const std::string name(kEmotionNames[e]);
      if (!emotions.Has(name)) continue;
      StrictMap m = emotions.Child(name);
      EmotionSwitch& s = config->emotions[e];
      m.Optional("enabled", &s.enabled);
      ApplyNullable(m, "phi", 0.0, 1.0, &s.phi);
      ApplyNullable(m, "fixed", 0.0, 1.0, &s.fixed);
    }
  }
  if (root.Has("moods")) {
    StrictMap moods = root.Child("moods");
    for (int i = 0; i < kNumMoods; ++i) {
      const std::string name(kMoodNames[i]);
      if (!moods.Has(name)) continue;
      StrictMap m = moods.Child(name);
      MoodSwitch& s = config->moods[i];
      if (m.Optional("weight", &s.weight) && !(s.weight >= 0)) m.Fail("weight", "must be >= 0");
      ApplyNullable(m, "fixed", 0.0, 1.0, &s.fixed);
    }
  }
  if (root.Has("drives")) {
    StrictMap drives = root.Child("drives");
    for (int d = 0; d < kNumDrives; ++d) {
      const std::string name(kDriveNames[d]);
      if (!drives.Has(name)) continue;
      StrictMap m = drives.Child(name);
      DriveSwitch& s = config->drives[d];
      m.Optional("enabled", &s.enabled);
      if (m.Optional("weight", &s.weight)) RequireRange(m, "weight", s.weight, 0.0, 1.0, false, "[0, 1]");
      ApplyNullable(m, "fixed", 0.0, 1.0, &s.fixed);
    }
  }
  if (root.Has("emotion_layer")) {
    StrictMap layer = root.Child("emotion_layer");
    layer.Optional("enabled", &config->emotion_layer_enabled);
    std::vector<std::string> maps;
    if (layer.Optional("maps", &maps)) {
      config->emotion_layer_maps.fill(false);
      for (const auto& name : maps) {
        const auto index = IndexOfName(kEmotionNames, name);
        if (!index) layer.Fail("maps", "names an unknown emotion '" + name + "'");
        config->emotion_layer_maps[*index] = true;
      }
    }
  }
  root.Finish();
}

}  // namespace

std::string DefaultConfigDir() {
  return paths::DataPath("services/affect/config", "LIMBIC_AFFECT_CONFIG_DIR").string();
}

ModelTables LoadModelTables(const std::string& path) {
  StrictMap root(config::LoadFile(path), path);
  ModelTables t;
  t.source = path;
  t.reference_period = root.Required<double>("reference_period");
  if (!(t.reference_period > 0)) root.Fail("reference_period", "must be > 0");

  StrictMap stimuli = root.Child("stimuli");
  for (int s = 0; s < kNumStimuli; ++s) {
    const std::string name(kStimulusNames[s]);
    if (!stimuli.Has(name)) stimuli.Fail(name, "is required but missing");
    StrictMap m = stimuli.Child(name);
    t.stimuli.params[s] = LoadStimulus(m);
    switch (s) {
      case kDanger:
        t.stimuli.danger_kappa_theta = m.Required<double>("kappa_theta");
        t.stimuli.danger_distance_max = m.Required<double>("distance_max");
        if (!(t.stimuli.danger_distance_max > 0)) m.Fail("distance_max", "must be > 0");
        break;
      case kStuck:
        t.stimuli.stuck_window = m.Required<double>("window");
        if (!(t.stimuli.stuck_window > 0)) m.Fail("window", "must be > 0");
        break;
      case kMismatch:
        t.stimuli.mismatch_w_m1 = m.Required<double>("w_m1");
        t.stimuli.mismatch_w_m2 = m.Required<double>("w_m2");
        if (t.stimuli.mismatch_w_m1 < 0) m.Fail("w_m1", "must be >= 0");
        if (t.stimuli.mismatch_w_m2 < 0) m.Fail("w_m2", "must be >= 0");
        break;
      case kError:
        t.stimuli.error_no_points_distance = m.Required<double>("no_points_distance");
        break;
      default:
        break;
    }
  }

  t.emotion_map_radius = root.Required<double>("emotion_map_radius");
  if (!(t.emotion_map_radius > 0)) root.Fail("emotion_map_radius", "must be > 0");
  StrictMap emotions = root.Child("emotions");
  for (int e = 0; e < kNumEmotions; ++e) {
    const std::string name(kEmotionNames[e]);
    if (!emotions.Has(name)) emotions.Fail(name, "is required but missing");
    StrictMap m = emotions.Child(name);
    EmotionTable& et = t.emotions[e];
    const auto valence = m.Required<std::string>("valence");
    if (valence == "positive")
      et.valence = Valence::kPositive;
    else if (valence == "negative")
      et.valence = Valence::kNegative;
    else
      m.Fail("valence", "must be 'positive' or 'negative'");
    et.inputs = LoadDwsTerms(m, "inputs", kStimulusNames, "stimulus");
    if (!m.Has("map")) m.Fail("map", "is required but missing");
    StrictMap map = m.Child("map");
    et.gamma_growth = RequireAlpha(map, "gamma_growth");
    et.gamma_decay = RequireAlpha(map, "gamma_decay");
    et.phi = map.Required<double>("phi");
    RequireRange(map, "phi", et.phi, 0.0, 1.0, false, "[0, 1]");
  }

  StrictMap moods = root.Child("moods");
  for (int i = 0; i < kNumMoods; ++i) {
    const std::string name(kMoodNames[i]);
    if (!moods.Has(name)) moods.Fail(name, "is required but missing");
    StrictMap m = moods.Child(name);
    MoodTable& mt = t.moods[i];
    mt.alpha_growth = RequireAlpha(m, "alpha_growth");
    mt.alpha_decay = RequireAlpha(m, "alpha_decay");
    mt.initial = m.Required<double>("initial");
    RequireRange(m, "initial", mt.initial, 0.0, 1.0, false, "[0, 1]");
    mt.inputs = LoadDwsTerms(m, "inputs", kEmotionNames, "emotion");
  }

  StrictMap drives = root.Child("drives");
  for (int d = 0; d < kNumDrives; ++d) {
    const std::string name(kDriveNames[d]);
    if (!drives.Has(name)) drives.Fail(name, "is required but missing");
    StrictMap m = drives.Child(name);
    DriveTable& dt = t.drives[d];
    const auto kind = m.Required<std::string>("kind");
    if (kind == "survival") {
      dt.kind = DriveKind::kSurvival;
      dt.equilibrium = 0.5;
    } else if (kind == "strategic") {
      dt.kind = DriveKind::kStrategic;
      dt.equilibrium = 0.0;
    } else {
      m.Fail("kind", "must be 'survival' or 'strategic'");
    }
    dt.zero_weight_value = m.Required<double>("zero_weight_value");
    RequireRange(m, "zero_weight_value", dt.zero_weight_value, 0.0, 1.0, false, "[0, 1]");
    dt.inputs = LoadDwsTerms(m, "inputs", kEmotionNames, "emotion");
  }

  if (!root.Has("parameters")) root.Fail("parameters", "is required but missing");
  std::set<std::string> mapped;
  for (StrictMap& row : root.ChildList("parameters")) {
    const int drive = RequireName(row, "drive", kDriveNames, "drive");
    ParameterMapping mapping = LoadMapping(row, drive);
    if (!mapped.insert(mapping.parameter).second) {
      row.Fail("parameter", "'" + mapping.parameter + "' is mapped by more than one row");
    }
    t.parameters.push_back(std::move(mapping));
  }

  StrictMap companion = root.Child("companion2006");
  mapped.clear();
  for (StrictMap& row : companion.ChildList("reactive")) {
    const int emotion = RequireName(row, "emotion", kEmotionNames, "emotion");
    ParameterMapping mapping = LoadMapping(row, emotion);
    if (!mapped.insert(mapping.parameter).second) {
      row.Fail("parameter", "'" + mapping.parameter + "' is mapped by more than one row");
    }
    t.companion2006.reactive.push_back(std::move(mapping));
  }
  StrictMap bias = companion.Child("planner_bias");
  t.companion2006.w7 = bias.Required<double>("w7");
  t.companion2006.w8 = bias.Required<double>("w8");
  t.companion2006.w9 = bias.Required<double>("w9");

  root.Finish();
  return t;
}

AffectConfig LoadAffectConfig(const std::string& name_or_path, const std::string& config_dir,
                              const std::vector<std::string>& overrides) {
  AffectConfig config;
  config.name = name_or_path;
  ApplyConfigFile(ResolveConfigPath(name_or_path, config_dir), config_dir, overrides, 0, &config);
  if (config.tables.source.empty()) {
    throw ConfigError(config.files.back() + ": key 'tables' is required (in this file or a base)");
  }
  return config;
}

std::string DescribeConfig(const AffectConfig& c) {
  auto num = [](double v) {
    std::ostringstream s;
    s << v;
    return s.str();
  };
  auto opt = [&](const std::optional<double>& v) { return v ? num(*v) : std::string("none"); };
  std::ostringstream out;
  out << "affect configuration '" << c.name << "'\n  files:";
  for (const auto& f : c.files) out << " " << f;
  out << "\n  tables: " << c.tables.source
      << "\n  model: " << (c.model == AffectModel::kThesis ? "thesis" : "companion2006")
      << "\n  control_period: " << c.control_period
      << "\n  dominance: " << (c.dominance == DominanceForm::kCorrected ? "corrected" : "printed")
      << "\n  emotion_map_update: " << (c.map_update == EmotionMapUpdate::kInterpreted ? "interpreted" : "literal")
      << "\n  zero_weight: " << (c.zero_weight == ZeroWeightPolicy::kFallback ? "fallback" : "hold_previous")
      << "\n  modulate_parameters: " << (c.modulate_parameters ? "true" : "false")
      << "\n  emotion_layer: enabled=" << (c.emotion_layer_enabled ? "true" : "false") << " maps=";
  for (int e = 0; e < kNumEmotions; ++e) {
    if (c.emotion_layer_maps[e]) out << kEmotionNames[e] << ",";
  }
  out << "\n  emotions:";
  for (int e = 0; e < kNumEmotions; ++e) {
    const auto& s = c.emotions[e];
    out << "\n    " << kEmotionNames[e] << ": enabled=" << (s.enabled ? "true" : "false")
        << " phi=" << num(s.phi.value_or(c.tables.emotions[e].phi)) << " fixed=" << opt(s.fixed);
  }
  out << "\n  moods:";
  for (int i = 0; i < kNumMoods; ++i) {
    out << "\n    " << kMoodNames[i] << ": weight=" << num(c.moods[i].weight) << " fixed=" << opt(c.moods[i].fixed);
  }
  out << "\n  drives:";
  for (int d = 0; d < kNumDrives; ++d) {
    const auto& s = c.drives[d];
    out << "\n    " << kDriveNames[d] << ": enabled=" << (s.enabled ? "true" : "false") << " weight=" << num(s.weight)
        << " fixed=" << opt(s.fixed);
  }
  out << "\n  base_parameters:";
  for (std::string_view name : ControlParameterNames()) {
    out << " " << name << "=" << num(GetControlParameter(name, c.base_parameters));
  }
  out << "\n";
  return out.str();
}

}  // namespace limbic::affect
