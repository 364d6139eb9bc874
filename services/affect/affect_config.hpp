// The affect model's tables (Tables 8.1–8.6, all data) and a named configuration (which model,
// which switches), both loaded strictly from YAML files in services/affect/config/ (spec §8 item
// 6).
//
// Layout: config/tables.yaml holds the model's tables; every other file there is a configuration
// that names its tables file (relative to itself) and sets switches. A configuration may start from
// another with `base: <name or path>`: the base is applied first, then this file's keys on top.
#pragma once

#include <array>
#include <optional>
#include <string>
#include <vector>

#include "common/types/control_parameters.hpp"
#include "services/affect/affect_ids.hpp"
#include "services/affect/dynamic_weighted_sum.hpp"

namespace limbic::affect {

// ---------------------------------------------------------------------------------------------------
// Tables (config/tables.yaml)

// Table 8.1: one stimulus's normalisation thresholds and damping factors (per reference period).
struct StimulusParams {
  double s_min = 0.0;
  double s_max = 1.0;
  bool invert = false;        // eq. 8.2 (stuck)
  double alpha_growth = 1.0;  // α_1, used when S_norm > S_damp; 1 = undamped
  double alpha_decay = 1.0;   // α_2
};

struct StimulusTables {
  std::array<StimulusParams, kNumStimuli> params;
  double danger_kappa_theta = 0.5;        // κ_θ of eq. 8.4
  double danger_distance_max = 1.5;       // d_D(max) (m)
  double stuck_window = 30.0;             // t_n (s)
  double mismatch_w_m1 = 0.5;             // W_m1 of eq. 8.12 (s_o < p_o)
  double mismatch_w_m2 = 1.0;             // W_m2
  double error_no_points_distance = 3.0;  // d_c when a collision happens with no IR point at all (m)
};

enum class Valence { kPositive, kNegative };

// Table 8.3 (DWS of the damped stimuli) and Table 8.4 (emotion map) for one emotion.
struct EmotionTable {
  Valence valence = Valence::kNegative;
  std::vector<DwsTerm> inputs;  // DwsTerm::source is a StimulusId
  double gamma_growth = 0.1;    // γ_1 of eq. 8.22 (when e_M < E_G)
  double gamma_decay = 0.01;    // γ_2
  double phi = 0.5;             // φ of eq. 8.24: weight of the global intensity
};

// Table 8.6 for one mood (DWS of the combined emotions, then damped).
struct MoodTable {
  std::vector<DwsTerm> inputs;  // DwsTerm::source is an EmotionId
  double alpha_growth = 0.002;
  double alpha_decay = 0.001;
  double initial = 0.5;
};

enum class DriveKind { kSurvival, kStrategic };

// Table 8.5 for one drive.
struct DriveTable {
  DriveKind kind = DriveKind::kSurvival;
  std::vector<DwsTerm> inputs;     // DwsTerm::source is an EmotionId
  double equilibrium = 0.5;        // D0: 0.5 survival, 0 strategic
  double zero_weight_value = 0.5;  // output when every DWS weight is 0 (spec §8 item 30)
};

// One row of Table 8.2 (eqs. 8.15–8.16): `source` (a DriveId, or an EmotionId in the companion
// model) moves ControlParameters field `parameter` from p1 (source 0) to p2 (source 1) with
// curvature exponent.
struct ParameterMapping {
  int source = 0;
  std::string parameter;
  double p1 = 0.0;
  double p2 = 1.0;
  double exponent = 0.0;
};

// The earlier model of the companion paper (spec §6.4, last block).
struct CompanionTables {
  std::vector<ParameterMapping> reactive;  // source = EmotionId of a global (reactive) emotion
  double w7 = 0.8;                         // W_7, deliberative fear
  double w8 = 0.35;                        // W_8, deliberative (1 − surprise)
  double w9 = 0.2;                         // W_9, deliberative happiness (negative = sadness)
};

struct ModelTables {
  std::string source;             // file the tables came from
  double reference_period = 0.1;  // s: the period the damping factors are given for (§1.2)
  StimulusTables stimuli;
  std::array<EmotionTable, kNumEmotions> emotions;
  double emotion_map_radius = 1.0;  // r_M (m)
  std::array<MoodTable, kNumMoods> moods;
  std::array<DriveTable, kNumDrives> drives;
  std::vector<ParameterMapping> parameters;  // Table 8.2; source = DriveId
  CompanionTables companion2006;
};

// ---------------------------------------------------------------------------------------------------
// Configuration (config/<name>.yaml)

enum class AffectModel {
  kThesis,         // `thesis`: stimuli → emotions → moods → drives → parameters (spec §5)
  kCompanion2006,  // `companion2006`: reactive fear/anger set v_L and r_o; deliberative maps bias
                   // planning
};

enum class EmotionMapUpdate {
  kInterpreted,  // eq. 8.22 with γ' = γ(1 − d²/r_M²) as one blend factor (spec §8 item 5, default)
  kLiteral,      // e ← γ(1 − d²/r_M²)·E_G + (1 − γ)·e as printed
};

enum class ZeroWeightPolicy {
  kFallback,      // Σ W = 0 returns the table's zero_weight_value (0.5 survival, 0 otherwise; default)
  kHoldPrevious,  // ... returns the function's previous output
};

struct EmotionSwitch {
  bool enabled = true;          // false = held at 0 (same as fixed: 0)
  std::optional<double> phi;    // overrides Table 8.4's φ (Ch. 9 sweeps; φ = 1 disables the map)
  std::optional<double> fixed;  // holds E_G = E at this value (Ch. 9: "anger fixed at 0.5")
};

struct MoodSwitch {
  double weight = 1.0;          // w_mood: M_used = min(1, w·M) (Ch. 9.2.3, 10.3.3)
  std::optional<double> fixed;  // manual mood override (§9.2.1): constant, no dynamics
};

struct DriveSwitch {
  bool enabled = true;          // false = held at equilibrium D0
  double weight = 1.0;          // k: D_used = D0 + k·(D − D0) (spec §5.6, §8 item 35)
  std::optional<double> fixed;  // drive held at this value (Ch. 9 single-drive sweeps, Ch. 10 baseline)
};

struct AffectConfig {
  std::string name;                // as requested (e.g. "affective" or a path)
  std::vector<std::string> files;  // configuration files applied, base first
  AffectModel model = AffectModel::kThesis;
  ModelTables tables;
  double control_period = 0.1;  // T (s); damping factors are rescaled from tables.reference_period
  DominanceForm dominance = DominanceForm::kCorrected;           // spec §8 item 3
  EmotionMapUpdate map_update = EmotionMapUpdate::kInterpreted;  // spec §8 item 5
  ZeroWeightPolicy zero_weight = ZeroWeightPolicy::kFallback;    // spec §8 item 30
  bool modulate_parameters = true;    // false: parameters = base_parameters (the "emotions disabled" runs)
  ControlParameters base_parameters;  // unmodulated parameters keep these values (W_p4 lives here)
  std::array<EmotionSwitch, kNumEmotions> emotions;
  std::array<MoodSwitch, kNumMoods> moods;
  std::array<DriveSwitch, kNumDrives> drives;
  bool emotion_layer_enabled = true;  // false: the emotion layer is all zeros
  std::array<bool, kNumEmotions> emotion_layer_maps{true, true, true, true, true, true, true};  // §8 item 21
};

// The shipped configuration directory (services/affect/config in limbic's data, common/paths), unless the
// environment variable LIMBIC_AFFECT_CONFIG_DIR names another.
std::string DefaultConfigDir();

// Loads and validates a tables file. Throws config::ConfigError naming the file and key.
ModelTables LoadModelTables(const std::string& path);

// Loads a configuration by name ("affective", "personality/neurotic") relative to `config_dir`, or
// by path (anything ending in .yaml). `overrides` are `key.path=value` assignments (command line
// --set) applied to the named file's document. Throws config::ConfigError naming the file and key.
AffectConfig LoadAffectConfig(const std::string& name_or_path, const std::string& config_dir = DefaultConfigDir(),
                              const std::vector<std::string>& overrides = {});

// The effective configuration as YAML-like text, for the log at start.
std::string DescribeConfig(const AffectConfig& config);

}  // namespace limbic::affect
