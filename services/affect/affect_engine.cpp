#include "services/affect/affect_engine.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <stdexcept>
#include <string>

#include "services/affect/parameter_mapping.hpp"

namespace limbic::affect {

AffectEngine::AffectEngine(AffectConfig config, geometry::GridSpec grid) : config_(std::move(config)), grid_(grid) {
  if (grid_.CellCount() < 0) throw std::invalid_argument("AffectEngine: grid has a negative size");
  const ModelTables& t = config_.tables;
  const double period = config_.control_period;
  const double reference = t.reference_period;
  for (int s = 0; s < kNumStimuli; ++s) {
    alpha_growth_[s] = RescaleDampingFactor(t.stimuli.params[s].alpha_growth, period, reference);
    alpha_decay_[s] = RescaleDampingFactor(t.stimuli.params[s].alpha_decay, period, reference);
  }
  for (int e = 0; e < kNumEmotions; ++e) {
    for (const DwsTerm& term : t.emotions[e].inputs) {
      if (term.source < 0 || term.source >= kNumStimuli) throw std::invalid_argument("emotion input out of range");
    }
    emotion_dws_[e] = DynamicWeightedSum(t.emotions[e].inputs, config_.dominance);
    map_rates_[e] = {RescaleDampingFactor(t.emotions[e].gamma_growth, period, reference),
                     RescaleDampingFactor(t.emotions[e].gamma_decay, period, reference)};
    valence_[e] = t.emotions[e].valence;
    decay_in_unit_[e] = map_rates_[e].gamma_decay >= 0.0 && map_rates_[e].gamma_decay <= 1.0;
  }
  for (int m = 0; m < kNumMoods; ++m) {
    for (const DwsTerm& term : t.moods[m].inputs) {
      if (term.source < 0 || term.source >= kNumEmotions) throw std::invalid_argument("mood input out of range");
    }
    mood_dws_[m] = DynamicWeightedSum(t.moods[m].inputs, config_.dominance);
    mood_alpha_growth_[m] = RescaleDampingFactor(t.moods[m].alpha_growth, period, reference);
    mood_alpha_decay_[m] = RescaleDampingFactor(t.moods[m].alpha_decay, period, reference);
  }
  for (int d = 0; d < kNumDrives; ++d) {
    for (const DwsTerm& term : t.drives[d].inputs) {
      if (term.source < 0 || term.source >= kNumEmotions) throw std::invalid_argument("drive input out of range");
    }
    drive_dws_[d] = DynamicWeightedSum(t.drives[d].inputs, config_.dominance);
  }
  for (const ParameterMapping& row : t.parameters) {
    if (!IsControlParameter(row.parameter) || row.source < 0 || row.source >= kNumDrives) {
      throw std::invalid_argument("parameter mapping row for '" + row.parameter + "' is invalid");
    }
  }
  for (const ParameterMapping& row : t.companion2006.reactive) {
    if (!IsControlParameter(row.parameter) || row.source < 0 || row.source >= kNumEmotions) {
      throw std::invalid_argument("companion mapping row for '" + row.parameter + "' is invalid");
    }
  }
  parameter_mappings_ = ResolvedParameterMappings(t.parameters);
  companion_mappings_ = ResolvedParameterMappings(t.companion2006.reactive);
  reads_p_e_ = config_.model != AffectModel::kCompanion2006 && config_.emotion_layer_enabled && grid_.CellCount() > 0;
  Reset();
}

void AffectEngine::Reset() {
  state_ = AffectState{};
  for (auto& map : state_.emotion_maps) map.assign(static_cast<size_t>(grid_.CellCount()), 0.0);
  for (int m = 0; m < kNumMoods; ++m) state_.moods[m] = config_.tables.moods[m].initial;
  for (int d = 0; d < kNumDrives; ++d) state_.previous_drives[d] = config_.tables.drives[d].zero_weight_value;
  map_zero_.fill(true);
}

namespace {

bool AllPositiveZero(const std::vector<double>& map) {
  return std::all_of(map.begin(), map.end(), [](double v) { return std::bit_cast<uint64_t>(v) == 0; });
}

}  // namespace

void AffectEngine::set_state(AffectState state) {
  state_ = std::move(state);
  for (int e = 0; e < kNumEmotions; ++e) map_zero_[e] = AllPositiveZero(state_.emotion_maps[e]);
}

namespace {

// The first non-finite value among inputs the engine integrates, named; "" if all are finite. p_e is checked only
// when the cycle reads it (`reads_p_e`).
std::string NonFiniteInput(const AffectInputs& in, bool reads_p_e) {
  auto bad = [](double v) { return !std::isfinite(v); };
  if (bad(in.time)) return "time";
  if (bad(in.pose.x) || bad(in.pose.y) || bad(in.pose.theta)) return "pose";
  if (bad(in.speed)) return "speed";
  for (double v : in.headings)
    if (bad(v)) return "headings";
  for (double v : in.obstacle_distances)
    if (std::isnan(v)) return "obstacle_distances";  // +inf: nothing seen
  if (bad(in.collision.speed_before) || bad(in.collision.contact_point.x()) || bad(in.collision.contact_point.y())) {
    return "collision";
  }
  for (const auto& p : in.collision_switch_points)
    if (bad(p.x()) || bad(p.y())) return "collision_switch_points";
  for (const auto& p : in.ir_points)
    if (bad(p.x()) || bad(p.y())) return "ir_points";
  if (in.goal && (bad(in.goal->t_0) || bad(in.goal->distance_at_start) || bad(in.goal->distance_now))) return "goal";
  if (bad(in.map_stats.mean_p_e) || bad(in.map_stats.density)) return "map_stats";
  for (const auto& c : in.map_stats.updated_cells)
    if (bad(c.s_o) || bad(c.p_o_before)) return "map_stats.updated_cells";
  if (bad(in.map_reset_time)) return "map_reset_time";
  if (in.path_max_cost && bad(*in.path_max_cost)) return "path_max_cost";
  if (reads_p_e) {
    for (double v : in.p_e)
      if (bad(v)) return "p_e";
  }
  return "";
}

template <size_t N>
bool AllFinite(const std::array<double, N>& a) {
  return std::all_of(a.begin(), a.end(), [](double v) { return std::isfinite(v); });
}

// The first non-finite quantity of a cycle's outputs or of the small state, named; "" if all are good.
std::string NonFiniteResult(const AffectOutputs& out, const AffectState& state, bool layer_zero) {
  const std::pair<const char*, bool> checks[] = {
      {"stimuli_raw", AllFinite(out.stimuli_raw)},
      {"stimuli_normalised", AllFinite(out.stimuli_normalised)},
      {"stimuli_damped", AllFinite(out.stimuli_damped) && AllFinite(state.stimuli_damped)},
      {"emotions", AllFinite(out.emotions_global) && AllFinite(out.emotions_mapped) &&
                       AllFinite(out.emotions_combined) && AllFinite(state.previous_emotions)},
      {"moods", AllFinite(out.moods) && AllFinite(out.moods_used) && AllFinite(state.moods) &&
                    AllFinite(state.previous_mood_targets)},
      {"drives", AllFinite(out.drives_emotional) && AllFinite(out.drives) && AllFinite(state.previous_drives) &&
                     std::isfinite(out.d_min) && std::isfinite(out.d_max)},
  };
  for (const auto& [name, ok] : checks) {
    if (!ok) return std::string(name) + " not finite";
  }
  if (!layer_zero) {
    for (double v : out.emotion_layer.cost) {
      if (!std::isfinite(v)) return "emotion layer not finite";
    }
  }
  try {
    ValidateParameters(out.parameters);
  } catch (const std::invalid_argument& e) {
    return std::string("parameters out of range: ") + e.what();
  }
  return "";
}

}  // namespace

AffectOutputs AffectEngine::Refuse(const AffectInputs& in, std::string why) {
  fault_ = std::move(why);
  AffectOutputs out;
  if (last_good_) {
    out = *last_good_;
    if (last_good_layer_zero_) out.emotion_layer.cost.assign(static_cast<size_t>(std::max(0, grid_.CellCount())), 0.0);
  } else {
    out.parameters = config_.base_parameters;
    out.emotion_layer.grid = grid_;
    out.emotion_layer.cost.assign(static_cast<size_t>(std::max(0, grid_.CellCount())), 0.0);
    out.emotion_layer_zero = true;
  }
  out.time = in.time;
  return out;
}

AffectOutputs AffectEngine::Step(const AffectInputs& in) {
  if (!in.p_e.empty() && in.p_e.size() != static_cast<size_t>(grid_.CellCount())) {
    throw std::invalid_argument("AffectInputs.p_e has " + std::to_string(in.p_e.size()) +
                                " cells; the affect grid has " + std::to_string(grid_.CellCount()));
  }
  if (in.headings.size() != in.obstacle_distances.size()) {
    throw std::invalid_argument("AffectInputs: headings and obstacle_distances differ in length");
  }
  if (const std::string what = NonFiniteInput(in, reads_p_e_); !what.empty()) {
    return Refuse(in, "input " + what + " not finite: cycle skipped");
  }
  // Everything of the state but the emotion maps (grid-sized, checked only on a violation): cheap to
  // keep for a rollback. The stuck window is not copied: its StuckStimulus call records what it changes
  // (stuck_undo_).
  const int64_t ticks = state_.ticks;
  const StimulusArray stimuli_damped = state_.stimuli_damped;
  const MoodArray moods = state_.moods;
  const EmotionArray previous_emotions = state_.previous_emotions;
  const MoodArray previous_mood_targets = state_.previous_mood_targets;
  const DriveArray previous_drives = state_.previous_drives;
  AffectOutputs out;
  out.time = in.time;
  ComputeStimuli(in, &out);
  ComputeEmotions(in, &out);
  ComputeMoodsAndDrives(&out);
  ComputeEmotionLayer(in, &out);
  ++state_.ticks;
  if (std::string why = NonFiniteResult(out, state_, layer_zero_); !why.empty()) {
    state_.ticks = ticks;
    state_.stimuli_damped = stimuli_damped;
    stuck_undo_.Restore(&state_.stuck);
    state_.moods = moods;
    state_.previous_emotions = previous_emotions;
    state_.previous_mood_targets = previous_mood_targets;
    state_.previous_drives = previous_drives;
    for (auto& map : state_.emotion_maps) {
      for (double& v : map) {
        if (!std::isfinite(v)) v = 0.0;
      }
    }
    return Refuse(in, why + ": kept the last good state");
  }
  fault_.clear();
  if (layer_zero_) {
    // Kept without its zeros: the copy of a grid-sized vector per cycle was most of what a disabled layer cost.
    std::vector<double> cost = std::move(out.emotion_layer.cost);
    last_good_ = out;
    out.emotion_layer.cost = std::move(cost);
  } else {
    last_good_ = out;
  }
  last_good_layer_zero_ = layer_zero_;
  return out;
}

void AffectEngine::ComputeStimuli(const AffectInputs& in, AffectOutputs* out) {
  const StimulusTables& t = config_.tables.stimuli;
  StimulusArray& raw = out->stimuli_raw;
  raw[kDanger] =
      DangerStimulus(in.headings, in.obstacle_distances, in.pose.theta, t.danger_kappa_theta, t.danger_distance_max);
  raw[kStuck] = StuckStimulus(in.time, in.speed, in.pose.theta, t.stuck_window, &state_.stuck, &stuck_undo_);
  raw[kPain] = PainStimulus(in.collision);
  raw[kAchievement] =
      in.goal ? AchievementStimulus(in.goal->distance_at_start, in.goal->distance_now, in.goal->t_0, in.time) : 0.0;
  raw[kDensity] = in.map_stats.density;
  raw[kLearning] = LearningStimulus(in.map_stats.mean_p_e, in.time - in.map_reset_time);
  raw[kMismatch] = MismatchStimulus(in.map_stats.updated_cells, t.mismatch_w_m1, t.mismatch_w_m2);
  raw[kCost] = in.path_max_cost.value_or(0.0);
  raw[kError] = ErrorStimulus(in.collision, in.collision_switch_points, in.ir_points, t.error_no_points_distance);

  for (int s = 0; s < kNumStimuli; ++s) {
    const StimulusParams& p = t.params[s];
    double norm = NormaliseStimulus(raw[s], p.s_min, p.s_max);
    if (p.invert) norm = 1.0 - norm;
    out->stimuli_normalised[s] = norm;
    state_.stimuli_damped[s] = DampStimulus(norm, state_.stimuli_damped[s], alpha_growth_[s], alpha_decay_[s]);
  }
  out->stimuli_damped = state_.stimuli_damped;
}

void AffectEngine::ComputeEmotions(const AffectInputs& in, AffectOutputs* out) {
  const bool hold = config_.zero_weight == ZeroWeightPolicy::kHoldPrevious;
  // Overrides: a disabled emotion is held at 0, a fixed one at its value (global and combined
  // alike).
  std::array<std::optional<double>, kNumEmotions> held;
  for (int e = 0; e < kNumEmotions; ++e) {
    const EmotionSwitch& sw = config_.emotions[e];
    if (!sw.enabled)
      held[e] = 0.0;
    else if (sw.fixed)
      held[e] = *sw.fixed;
    out->emotions_global[e] =
        held[e] ? *held[e] : emotion_dws_[e].Evaluate(out->stimuli_damped, hold ? state_.previous_emotions[e] : 0.0);
  }
  state_.previous_emotions = out->emotions_global;

  // A map of +0 everywhere with E_G = +0: eq. 8.22 takes γ_2 (e < E_G is false) and gives γ'·(+0) + (1 − γ')·(+0)
  // = +0 with γ' = γ_2·w in [0, 1] (or γ_2·w·(+0) + (1 − γ_2)·(+0) = +0 as printed), and eq. 8.23 gives +0 (a sum
  // of w·(+0) over positive weights, or 0 without cells): the same bits without touching the map.
  std::array<bool, kNumEmotions> unchanged{};
  bool any_update = false;
  for (int e = 0; e < kNumEmotions; ++e) {
    unchanged[e] = map_zero_[e] && decay_in_unit_[e] && std::bit_cast<uint64_t>(out->emotions_global[e]) == 0;
    any_update = any_update || !unchanged[e];
  }
  const std::vector<NearbyCell> nearby =
      any_update ? CellsWithinRadius(grid_, in.pose.Position(), config_.tables.emotion_map_radius)
                 : std::vector<NearbyCell>{};
  for (int e = 0; e < kNumEmotions; ++e) {
    if (unchanged[e]) {
      out->emotions_mapped[e] = 0.0;
    } else {
      UpdateEmotionMap(nearby, out->emotions_global[e], map_rates_[e], config_.map_update, &state_.emotion_maps[e]);
      out->emotions_mapped[e] = LocalMappedIntensity(nearby, state_.emotion_maps[e]);
      map_zero_[e] = false;  // conservatively: it may hold zeros again, but is no longer known to
    }
    const double phi = config_.emotions[e].phi.value_or(config_.tables.emotions[e].phi);
    out->emotions_combined[e] =
        held[e] ? *held[e] : phi * out->emotions_global[e] + (1.0 - phi) * out->emotions_mapped[e];  // eq. 8.24
  }
}

void AffectEngine::ComputeMoodsAndDrives(AffectOutputs* out) {
  const ModelTables& t = config_.tables;
  if (config_.model == AffectModel::kCompanion2006) {
    // The earlier model has no moods or drives: report moods 0 and drives at equilibrium.
    out->moods = {0.0, 0.0};
    out->moods_used = {0.0, 0.0};
    out->d_min = out->d_max = 0.5;
    for (int d = 0; d < kNumDrives; ++d) out->drives_emotional[d] = out->drives[d] = t.drives[d].equilibrium;
    out->parameters = config_.modulate_parameters
                          ? companion_mappings_.Apply(out->emotions_global, config_.base_parameters)
                          : config_.base_parameters;
    return;
  }

  const bool hold = config_.zero_weight == ZeroWeightPolicy::kHoldPrevious;
  for (int m = 0; m < kNumMoods; ++m) {
    const MoodSwitch& sw = config_.moods[m];
    if (sw.fixed) {
      state_.moods[m] = *sw.fixed;
    } else {
      const double target = mood_dws_[m].Evaluate(out->emotions_combined, hold ? state_.previous_mood_targets[m] : 0.0);
      state_.previous_mood_targets[m] = target;
      state_.moods[m] = DampStimulus(target, state_.moods[m], mood_alpha_growth_[m], mood_alpha_decay_[m]);
    }
    out->moods[m] = state_.moods[m];
    out->moods_used[m] = std::min(1.0, sw.weight * state_.moods[m]);
  }
  out->d_max = (1.0 + out->moods_used[kPositiveMood]) / 2.0;  // eq. 8.25
  out->d_min = (1.0 - out->moods_used[kNegativeMood]) / 2.0;  // eq. 8.26

  for (int d = 0; d < kNumDrives; ++d) {
    const DriveTable& dt = t.drives[d];
    const DriveSwitch& sw = config_.drives[d];
    const double emotional =
        drive_dws_[d].Evaluate(out->emotions_combined, hold ? state_.previous_drives[d] : dt.zero_weight_value);
    state_.previous_drives[d] = emotional;
    out->drives_emotional[d] = emotional;
    double drive = dt.kind == DriveKind::kSurvival ? out->d_min + (out->d_max - out->d_min) * emotional  // eq. 8.27
                                                   : emotional;
    drive = dt.equilibrium + sw.weight * (drive - dt.equilibrium);  // D_used = D0 + k(D − D0)
    if (!sw.enabled) drive = dt.equilibrium;
    if (sw.fixed) drive = *sw.fixed;
    out->drives[d] = drive;
  }
  out->parameters = config_.modulate_parameters ? parameter_mappings_.Apply(out->drives, config_.base_parameters)
                                                : config_.base_parameters;
}

void AffectEngine::ComputeEmotionLayer(const AffectInputs& in, AffectOutputs* out) {
  EmotionLayer& layer = out->emotion_layer;
  layer.grid = grid_;
  const size_t cells = static_cast<size_t>(grid_.CellCount());
  layer_zero_ = !(config_.emotion_layer_enabled && cells > 0);
  out->emotion_layer_zero = layer_zero_;
  if (config_.model == AffectModel::kCompanion2006) {
    layer.fusion = EmotionLayerFusion::kAdditive;
    if (config_.emotion_layer_enabled && cells > 0) {
      BuildCompanionEmotionLayer(state_.emotion_maps, config_.tables.companion2006, &layer.cost);
    } else {
      layer.cost.assign(cells, 0.0);
    }
    return;
  }
  layer.fusion = EmotionLayerFusion::kProbabilisticOr;
  if (config_.emotion_layer_enabled && cells > 0) {
    BuildThesisEmotionLayer(state_.emotion_maps, valence_, config_.emotion_layer_maps, out->moods_used[kPositiveMood],
                            out->moods_used[kNegativeMood], out->stimuli_damped[kCost], in.p_e, &layer.cost);
  } else {
    layer.cost.assign(cells, 0.0);
  }
}

}  // namespace limbic::affect
