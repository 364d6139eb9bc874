#include "services/crowd/emotions.hpp"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cmath>
#include <set>
#include <stdexcept>

#include "common/config/config.hpp"

namespace limbic::crowd {
namespace {

void RequireEmotions(bool ok, const char* what) {
  if (!ok) throw std::invalid_argument(std::string("crowd: ") + what);
}

double FiniteNumber(config::StrictMap& map, const std::string& key, double fallback) {
  double v = fallback;
  map.Optional(key, &v);
  if (!std::isfinite(v)) map.Fail(key, "must be a finite number");
  return v;
}

ParameterShift ParseShift(config::StrictMap& parent, const std::string& key) {
  ParameterShift s;
  if (!parent.Has(key)) return s;
  config::StrictMap m = parent.Child(key);
  s.caution = FiniteNumber(m, "caution", 0);
  s.margin = FiniteNumber(m, "margin", 0);
  s.optimal_speed = FiniteNumber(m, "optimal_speed", 0);
  s.half_fov = FiniteNumber(m, "fov_deg", 0) * geometry::kPi / 180.0;
  return s;
}

EmotionTable Parse(YAML::Node root, const std::string& source) {
  config::StrictMap top(root, source);
  EmotionTable table;
  top.Optional("nearby_emotion", &table.nearby_emotion);
  table.max_task_delay = FiniteNumber(top, "max_task_delay", table.max_task_delay);
  if (table.max_task_delay <= 0) top.Fail("max_task_delay", "must be > 0");
  if (top.Has("limits")) {
    config::StrictMap l = top.Child("limits");
    ParameterLimits& x = table.limits;
    x.min_caution = FiniteNumber(l, "min_caution", x.min_caution);
    x.max_caution = FiniteNumber(l, "max_caution", x.max_caution);
    x.max_margin = FiniteNumber(l, "max_margin", x.max_margin);
    x.min_optimal_speed = FiniteNumber(l, "min_optimal_speed", x.min_optimal_speed);
    x.max_optimal_speed = FiniteNumber(l, "max_optimal_speed", x.max_optimal_speed);
    x.min_half_fov = FiniteNumber(l, "min_fov_deg", x.min_half_fov * 180 / geometry::kPi) * geometry::kPi / 180;
    x.max_half_fov = FiniteNumber(l, "max_fov_deg", x.max_half_fov * 180 / geometry::kPi) * geometry::kPi / 180;
    if (!(x.min_caution > 0 && x.min_caution <= x.max_caution)) l.Fail("min_caution", "must be > 0 and <= max_caution");
    if (x.max_margin < 0) l.Fail("max_margin", "must be >= 0");
    if (!(x.min_optimal_speed >= 0 && x.min_optimal_speed <= x.max_optimal_speed))
      l.Fail("min_optimal_speed", "must be >= 0 and <= max_optimal_speed");
    if (!(x.min_half_fov > 0 && x.min_half_fov <= x.max_half_fov && x.max_half_fov <= geometry::kPi + 1e-12))
      l.Fail("min_fov_deg", "must satisfy 0 < min_fov_deg <= max_fov_deg <= 180");
  }
  if (!top.Has("emotions")) top.Fail("emotions", "is required but missing");
  std::set<std::string> names;
  const auto& mu_names = InternalStateNames();
  for (config::StrictMap e : top.ChildList("emotions")) {
    EmotionSpec spec;
    spec.name = e.Required<std::string>("name");
    if (spec.name.empty() || !names.insert(spec.name).second) e.Fail("name", "is empty or repeated");
    if (e.Has("inputs")) {
      config::StrictMap in = e.Child("inputs");
      for (const std::string& key : in.Keys()) {
        const auto it = std::find(mu_names.begin(), mu_names.end(), key);
        if (it == mu_names.end()) {
          in.Fail(key,
                  "is not a component of mu (efficacy, free_space, nearby_frustration, task_delay, "
                  "extra_rotations)");
        }
        spec.weights[static_cast<size_t>(it - mu_names.begin())] = FiniteNumber(in, key, 0);
      }
    }
    spec.bias = FiniteNumber(e, "bias", 0);
    spec.on = e.Has("on") ? FiniteNumber(e, "on", 0) : (e.Fail("on", "is required but missing"), 0.0);
    spec.off = FiniteNumber(e, "off", spec.on);
    if (spec.off > spec.on) e.Fail("off", "must be <= on (hysteresis)");
    spec.damping = FiniteNumber(e, "damping", spec.damping);
    if (spec.damping < 0) e.Fail("damping", "must be >= 0 (s)");
    spec.shift = ParseShift(e, "shift");
    spec.seen = ParseShift(e, "seen");
    table.emotions.push_back(spec);
  }
  if (table.emotions.empty()) top.Fail("emotions", "must list at least one emotion");
  top.Finish();
  table.nearby_index = table.Find(table.nearby_emotion);
  if (!table.nearby_emotion.empty() && table.nearby_index < 0)
    throw config::ConfigError(source + ": nearby_emotion '" + table.nearby_emotion + "' is not in emotions");
  return table;
}

}  // namespace

const std::array<std::string, kInternalStateSize>& InternalStateNames() {
  static const std::array<std::string, kInternalStateSize> names{"efficacy", "free_space", "nearby_frustration",
                                                                 "task_delay", "extra_rotations"};
  return names;
}

std::array<double, kInternalStateSize> AsArray(const InternalState& m) {
  return {m.efficacy, m.free_space, m.nearby_frustration, m.task_delay, m.extra_rotations};
}

InternalState ComputeInternalState(const InternalStateInput& in) {
  RequireEmotions(in.position.allFinite() && in.velocity.allFinite() && in.target.allFinite(),
                  "position, velocity and target must be finite");
  for (double v : {in.optimal_speed, in.max_free_distance, in.horizon, in.time, in.task_start, in.minimal_time,
                   in.heading, in.desired_heading}) {
    RequireEmotions(std::isfinite(v), "internal state inputs must be finite");
  }
  RequireEmotions(in.horizon > 0, "horizon must be > 0");
  RequireEmotions(in.minimal_time >= 0, "minimal time must be >= 0");
  RequireEmotions(
      in.visible_neighbours >= 0 && in.visible_frustrated >= 0 && in.visible_frustrated <= in.visible_neighbours,
      "neighbour counts must satisfy 0 <= frustrated <= visible");
  InternalState mu;
  // μ_eff = (v_opt · v)/v_opt, v_opt pointing at the target (see EfficacyScale).
  const Vec2 to_target = in.target - in.position;
  const double dist = to_target.norm();
  if (dist > 0 && in.optimal_speed > 0) {
    const double projection = in.velocity.dot(to_target / dist);
    mu.efficacy = in.efficacy_scale == EfficacyScale::kSpeed ? projection : projection / in.optimal_speed;
  }
  mu.free_space = std::clamp(in.max_free_distance / in.horizon, 0.0, 1.0);  // μ_fs = max_β D(β)/H
  mu.nearby_frustration =
      in.visible_neighbours > 0 ? static_cast<double>(in.visible_frustrated) / in.visible_neighbours : 0.0;
  mu.task_delay = in.minimal_time > 0 ? (in.time - in.task_start - in.minimal_time) / in.minimal_time : 0.0;
  mu.extra_rotations = geometry::AngleDistance(in.heading, in.desired_heading);  // ||α − α_des||
  return mu;
}

int EmotionTable::Find(const std::string& name) const {
  for (size_t i = 0; i < emotions.size(); ++i)
    if (emotions[i].name == name) return static_cast<int>(i);
  return -1;
}

EmotionTable LoadEmotionTable(const std::string& path) { return Parse(config::LoadFile(path), path); }

EmotionTable ParseEmotionTable(const std::string& yaml_text, const std::string& source) {
  YAML::Node root;
  try {
    root = YAML::Load(yaml_text);
  } catch (const YAML::Exception& e) {
    throw config::ConfigError(source + ": " + e.what());
  }
  return Parse(root, source);
}

void UpdateEmotions(const EmotionTable& table, const InternalState& mu, double dt, EmotionState* state) {
  RequireEmotions(std::isfinite(dt) && dt > 0, "dt must be finite and > 0");
  auto m = AsArray(mu);
  for (double v : m) RequireEmotions(std::isfinite(v), "mu must be finite");
  m[3] = std::clamp(m[3], -1.0, table.max_task_delay);  // μ_td: −1 at T_n, clipped above
  const size_t n = table.emotions.size();
  state->activation.resize(n, 0.0);
  for (size_t e = 0; e < n; ++e) {
    const EmotionSpec& spec = table.emotions[e];
    double x = spec.bias;
    for (int i = 0; i < kInternalStateSize; ++i) x += spec.weights[i] * m[i];
    // Damping: first-order low pass, exact over dt (damping 0 = follows x at once).
    const double keep = spec.damping > 0 ? std::exp(-dt / spec.damping) : 0.0;
    state->activation[e] = x + (state->activation[e] - x) * keep;
  }
  int best = -1;
  for (size_t e = 0; e < n; ++e) {
    if (state->activation[e] < table.emotions[e].on) continue;
    if (best < 0 || state->activation[e] > state->activation[best]) best = static_cast<int>(e);
  }
  const int current = state->active;
  if (current >= 0 && current < static_cast<int>(n) && state->activation[current] >= table.emotions[current].off) {
    if (best >= 0 && best != current && state->activation[best] > state->activation[current]) state->active = best;
    return;
  }
  state->active = best;
}

BNavParams ModulatedParams(const EmotionTable& table, const BNavParams& base, int active,
                           std::span<const int> seen_counts) {
  BNavParams p = base;
  auto apply = [&p](const ParameterShift& s) {
    p.caution += s.caution;
    p.margin += s.margin;
    p.optimal_speed += s.optimal_speed;
    p.half_fov += s.half_fov;
  };
  if (active >= 0 && active < static_cast<int>(table.emotions.size())) apply(table.emotions[active].shift);
  for (size_t e = 0; e < seen_counts.size() && e < table.emotions.size(); ++e) {
    if (seen_counts[e] <= 0) continue;
    ParameterShift s = table.emotions[e].seen;
    s.margin = 0;  // the seen margin goes around that neighbour only (Neighbour::extra_margin)
    apply(s);
  }
  const ParameterLimits& l = table.limits;
  p.caution = std::clamp(p.caution, l.min_caution, l.max_caution);
  p.margin = std::clamp(p.margin, 0.0, l.max_margin);
  p.optimal_speed = std::clamp(p.optimal_speed, l.min_optimal_speed, l.max_optimal_speed);
  p.half_fov = std::clamp(p.half_fov, l.min_half_fov, l.max_half_fov);
  return p;
}

}  // namespace limbic::crowd
