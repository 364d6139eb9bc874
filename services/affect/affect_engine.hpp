// The affect engine of spec §5: per control cycle, stimuli → global and mapped emotions → moods →
// drives → control parameters, plus the emotion cost layer for the planner. Transport-free:
// main.cpp converts messages to AffectInputs and AffectOutputs back to messages.
//
// Inputs (AffectInputs, one per tick): time, pose estimate and speed, the directional controller's
//   candidate headings and raw obstacle distances, the collision event and switch positions, this
//   cycle's IR obstacle points, goal progress, map-update statistics, the path's max cost, and p_e.
// Outputs (AffectOutputs): every intermediate quantity of the AffectState message, the complete
//   ControlParameters and the emotion layer.
// Implements eqs. 8.1–8.14 (stimuli), 8.17–8.21 (DWS), Table 8.3 (global emotions), 8.22–8.24 and
// Table 8.4 (mapped emotions), §5.4.2 (emotion layer), Table 8.6 (moods), 8.25–8.27 and Table 8.5
// (drives), 8.15–8.16 and Table 8.2 (parameters); or the companion paper's earlier model (spec
// §6.4).
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "common/geometry/geometry.hpp"
#include "common/types/control_parameters.hpp"
#include "common/types/navigation.hpp"
#include "common/types/sensing.hpp"
#include "services/affect/affect_config.hpp"
#include "services/affect/affect_ids.hpp"
#include "services/affect/dynamic_weighted_sum.hpp"
#include "services/affect/emotion_maps.hpp"
#include "services/affect/parameter_mapping.hpp"
#include "services/affect/stimuli.hpp"

namespace limbic::affect {

// Progress on the current navigation instruction (achievement, eq. 8.8).
struct GoalProgress {
  double t_0 = 0.0;                // time the instruction was received (s)
  double distance_at_start = 0.0;  // d_g(t_0) (m)
  double distance_now = 0.0;       // d_g(t_c) (m)
};

// Everything one affect cycle reads. Spans are borrowed for the duration of Step() only.
struct AffectInputs {
  double time = 0.0;                           // t_c, simulated time (s)
  geometry::Pose2 pose;                        // pose estimate; θ is the robot heading θ_F
  double speed = 0.0;                          // linear speed estimate (m/s), for the stuck window
  std::span<const double> headings;            // directional controller's candidate headings θ_k (world, rad)
  std::span<const double> obstacle_distances;  // its raw sensor-based d_o(θ_k) (m), same length
  CollisionEvent collision;                    // pain (speed_before) and error
  std::span<const geometry::Vec2> collision_switch_points;  // triggered switches, world frame
                                                            // (CollisionSwitchPoints); empty → contact_point is used
  std::span<const geometry::Vec2> ir_points;                // this cycle's IR obstacle points, world frame
  std::optional<GoalProgress> goal;                         // none → achievement 0
  MapUpdateStats map_stats;                                 // mismatch cells, mean p_e, density
  double map_reset_time = 0.0;                              // when the maps were last reset (learning's t_e origin)
  std::optional<double> path_max_cost;                      // latest path's max filtered cost; none → cost 0
  std::span<const double> p_e;                              // exploration map on the engine's grid; empty → layer 0
};

// Everything one affect cycle produces (spec §1.4 AffectState, ControlParams, EmotionCostLayer).
struct AffectOutputs {
  double time = 0.0;
  StimulusArray stimuli_raw{};
  StimulusArray stimuli_normalised{};  // after eq. 8.1 and the inversion of eq. 8.2
  StimulusArray stimuli_damped{};
  EmotionArray emotions_global{};    // E_G
  EmotionArray emotions_mapped{};    // E_M (eq. 8.23)
  EmotionArray emotions_combined{};  // E (eq. 8.24)
  MoodArray moods{};                 // M (damped mood state)
  MoodArray moods_used{};            // min(1, w·M), what bounds the drives and gates the layer
  DriveArray drives_emotional{};     // D_E, the DWS output
  DriveArray drives{};               // final D after bounds, weight k and switches
  double d_min = 0.5;                // eq. 8.26
  double d_max = 0.5;                // eq. 8.25
  ControlParameters parameters;
  EmotionLayer emotion_layer;
  bool emotion_layer_zero = false;  // the layer is disabled (configuration or no grid): every cell 0
  bool operator==(const AffectOutputs&) const = default;
};

// All mutable state of the engine (replayable, comparable).
struct AffectState {
  int64_t ticks = 0;
  StimulusArray stimuli_damped{};
  StuckWindowState stuck;
  std::array<std::vector<double>, kNumEmotions> emotion_maps;  // e_M per emotion, grid order
  MoodArray moods{};
  // Previous DWS outputs, used only with ZeroWeightPolicy::kHoldPrevious.
  EmotionArray previous_emotions{};
  MoodArray previous_mood_targets{};
  DriveArray previous_drives{};
  bool operator==(const AffectState&) const = default;
};

// Runs the affect model of one robot. Deterministic: the same inputs from the same state give
// bit-identical outputs.
class AffectEngine {
 public:
  // `grid` is the mapper's grid (emotion maps and the layer live on it); it may be empty (no maps).
  // Throws std::invalid_argument if the tables are inconsistent.
  AffectEngine(AffectConfig config, geometry::GridSpec grid);

  // One affect cycle. Never lets a non-finite number into its state or outputs (issue 15): inputs are
  // checked first, and state and outputs after the cycle (stimuli, emotions, moods, drives, the
  // parameters through limbic::ValidateParameters, the emotion layer). On a violation the engine keeps
  // its last good state (emotion map cells that went non-finite are reset to 0), returns its last good
  // outputs (time updated; the base parameters before any good cycle) and fault() says why, so the
  // service can report itself degraded. fault() is "" after a good cycle.
  AffectOutputs Step(const AffectInputs& inputs);
  const std::string& fault() const { return fault_; }

  // Back to the initial state (start of a run: maps cleared, moods at their initial value).
  void Reset();

  const AffectState& state() const { return state_; }
  void set_state(AffectState state);
  const AffectConfig& config() const { return config_; }
  const geometry::GridSpec& grid() const { return grid_; }
  // Equilibrium drive D0 (0.5 survival, 0 strategic).
  double Equilibrium(int drive) const { return config_.tables.drives[drive].equilibrium; }

 private:
  void ComputeStimuli(const AffectInputs& in, AffectOutputs* out);
  void ComputeEmotions(const AffectInputs& in, AffectOutputs* out);
  void ComputeMoodsAndDrives(AffectOutputs* out);
  void ComputeEmotionLayer(const AffectInputs& in, AffectOutputs* out);
  AffectOutputs Refuse(const AffectInputs& in, std::string why);

  AffectConfig config_;
  geometry::GridSpec grid_;
  // Derived once from the tables and the control period.
  std::array<DynamicWeightedSum, kNumEmotions> emotion_dws_;
  std::array<DynamicWeightedSum, kNumMoods> mood_dws_;
  std::array<DynamicWeightedSum, kNumDrives> drive_dws_;
  std::array<double, kNumStimuli> alpha_growth_{}, alpha_decay_{};
  std::array<EmotionMapRates, kNumEmotions> map_rates_{};
  std::array<double, kNumMoods> mood_alpha_growth_{}, mood_alpha_decay_{};
  std::array<Valence, kNumEmotions> valence_{};
  // Table 8.2 and the companion model's reactive rows with their fields looked up once (same bits as by name).
  ResolvedParameterMappings parameter_mappings_, companion_mappings_;
  // Whether a cycle reads AffectInputs::p_e: only the thesis layer, when enabled, weighs by it (§5.4.2). Otherwise
  // its cells are not checked either (issue 18: a grid-sized finiteness pass per cycle over an input never read).
  bool reads_p_e_ = false;
  // Per emotion: its map holds +0 in every cell (derived from state_, not part of it; kept by Reset, set_state and
  // every map update). Such a map updated with E_G = +0 stays +0 and reads back +0 (ComputeEmotions), so the
  // update is skipped (issue 18: fixed emotions at 0, the constant configuration, updated seven maps of zeros).
  std::array<bool, kNumEmotions> map_zero_{};
  // Per emotion: γ_2 (the rate a map decays with, eq. 8.22) in [0, 1], which the skip above needs.
  std::array<bool, kNumEmotions> decay_in_unit_{};
  AffectState state_;
  StuckWindowUndo stuck_undo_;  // Step's rollback of state_.stuck (no copy of the window each cycle)
  std::string fault_;
  std::optional<AffectOutputs> last_good_;
  // This cycle's emotion layer is the disabled one, all zeros by construction (ComputeEmotionLayer): it needs no
  // finiteness check, and last_good_ keeps it empty rather than a copy of the grid's zeros (refilled by Refuse).
  // Issue 18 (performance): the constant configuration copied and checked a grid of zeros every cycle.
  bool layer_zero_ = false;
  bool last_good_layer_zero_ = false;
};

}  // namespace limbic::affect
