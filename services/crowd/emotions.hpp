// The crowd robots' internal state μ and their emotions from a table (issue 19; spec multi-robot §2).
//
// μ(t) ∈ R⁵ (spec table): efficacy, free space, nearby frustration, task delay, extra rotations — computed every
// tick by ComputeInternalState. An emotion is a thresholded, damped linear function of μ (its weights and bias,
// low-pass time constant, on/off thresholds with hysteresis), and the active emotion shifts η, m_a, v_opt and ψ.
// A neighbour's visible emotion adds to the margin the observer keeps around it and may shift the observer's own
// parameters (yielding); it also feeds μ_nf. All of it is data (configs/crowd/emotions.yaml), none of it code.
#pragma once

#include <array>
#include <span>
#include <string>
#include <vector>

#include "services/crowd/bnav.hpp"

namespace limbic::crowd {

// μ, in the order of the spec's table.
struct InternalState {
  double efficacy = 0.0;            // μ_eff
  double free_space = 0.0;          // μ_fs ∈ [0, 1]
  double nearby_frustration = 0.0;  // μ_nf ∈ [0, 1]
  double task_delay = 0.0;          // μ_td
  double extra_rotations = 0.0;     // μ_rot ∈ [0, π]
};
inline constexpr int kInternalStateSize = 5;
// The names used in the table ("efficacy", "free_space", "nearby_frustration", "task_delay", "extra_rotations").
const std::array<std::string, kInternalStateSize>& InternalStateNames();
std::array<double, kInternalStateSize> AsArray(const InternalState& mu);

// How μ_eff is scaled. The spec writes (v_opt · v)/v_opt with v_opt a vector towards the target: literally the
// projection of the velocity on the target direction in m/s (kSpeed). A table of thresholds wants a number that
// means the same at every v_opt, so the default divides once more by |v_opt|: 1 = full optimal speed straight at
// the target, 0 = no progress, −1 = full speed away (kFraction).
enum class EfficacyScale { kFraction, kSpeed };

// What ComputeInternalState needs at one tick.
struct InternalStateInput {
  Vec2 position{0, 0};
  Vec2 velocity{0, 0};           // v(t), the true (or odometric) velocity
  Vec2 target{0, 0};             // q_n
  double optimal_speed = 0.0;    // v_opt(t), the current (modulated) value
  double max_free_distance = 0;  // max_β D(β) (from b_nav)
  double horizon = 1.0;          // H
  int visible_neighbours = 0;    // |N(t)|
  int visible_frustrated = 0;    // |{a ∈ N(t) : e_t(a) = frustration}|
  double time = 0.0;             // t (s)
  double task_start = 0.0;       // T_n: when the current target was given (the previous one reached)
  double minimal_time = 0.0;     // Δ_n = ||p(T_n) − q_{n+1}|| / v_opt (s)
  double heading = 0.0;          // α(t)
  double desired_heading = 0.0;  // α_des(t)
  EfficacyScale efficacy_scale = EfficacyScale::kFraction;
};

// The spec's table. μ_nf = 0 with no neighbour in view; μ_td = 0 while Δ_n = 0 (target where the robot stood);
// μ_eff = 0 at v_opt = 0 or on the target. Throws std::invalid_argument for non-finite inputs, negative counts or
// more frustrated than visible neighbours, a non-positive horizon or a negative Δ_n.
InternalState ComputeInternalState(const InternalStateInput& in);

// Additive changes to the four modulated parameters (the table's "shift" and "seen" blocks). half_fov in radians
// (the YAML gives fov_deg).
struct ParameterShift {
  double caution = 0.0;        // η (s)
  double margin = 0.0;         // m_a (m)
  double optimal_speed = 0.0;  // v_opt (m/s)
  double half_fov = 0.0;       // ψ (rad)
};

// One emotion of the table.
struct EmotionSpec {
  std::string name;
  std::array<double, kInternalStateSize> weights{};  // x = bias + Σ w_i μ_i
  double bias = 0.0;
  double on = 0.5;       // becomes active when its damped activation reaches `on` …
  double off = 0.3;      // … and stays active until it falls below `off` (off ≤ on)
  double damping = 1.0;  // s, time constant of the activation's low-pass filter (0: none)
  ParameterShift shift;  // applied to the robot while this emotion is active
  // Applied by an observer that sees a neighbour showing this emotion: `seen.margin` is added to m_a around that
  // neighbour only; the other fields shift the observer's own parameters (once, however many show it).
  ParameterShift seen;
};

// Bounds the modulated parameters are clamped into after the shifts.
struct ParameterLimits {
  double min_caution = 0.1, max_caution = 5.0;
  double max_margin = 1.0;
  double min_optimal_speed = 0.05, max_optimal_speed = 1.0;
  double min_half_fov = 0.2, max_half_fov = geometry::kPi;
};

// The table: emotions in priority order (ties go to the earlier one), and which of them μ_nf counts.
struct EmotionTable {
  std::vector<EmotionSpec> emotions;
  std::string nearby_emotion = "frustration";
  int nearby_index = -1;  // index of nearby_emotion in `emotions` (-1: none, μ_nf is always 0)
  // μ_td and μ_rot are clipped into these before the weighted sum, so one stuck robot's huge delay cannot
  // saturate everything for minutes after it frees itself.
  double max_task_delay = 5.0;
  ParameterLimits limits;

  int Find(const std::string& name) const;  // index or -1
};

// Parses a table (see configs/crowd/emotions.yaml for the format) with the strict loader: unknown keys, missing
// weights' names, non-finite numbers, off > on, negative damping, duplicate names and an unknown nearby emotion
// are errors naming the file and the key. Throws config::ConfigError.
EmotionTable LoadEmotionTable(const std::string& path);
EmotionTable ParseEmotionTable(const std::string& yaml_text, const std::string& source);

// The emotion state of one robot: activations and the active emotion (-1: none). All of it, so runs replay.
struct EmotionState {
  std::vector<double> activation;
  int active = -1;
};

// Advances the activations by dt with μ and picks the active emotion: the current one stays while its
// activation ≥ off; otherwise (or when another emotion's activation is ≥ its own on and higher than the current
// one's) the emotion with the highest activation ≥ on takes over; none if no activation reaches its on.
// Throws std::invalid_argument for a non-finite μ or dt ≤ 0.
void UpdateEmotions(const EmotionTable& table, const InternalState& mu, double dt, EmotionState* state);

// The parameters a robot navigates with: `base` shifted by its active emotion (if any) and by the `seen` shifts of
// the emotions its visible neighbours show (seen_counts[e] = how many show emotion e; may be empty), clamped into
// the table's limits (margin ≥ 0).
BNavParams ModulatedParams(const EmotionTable& table, const BNavParams& base, int active,
                           std::span<const int> seen_counts);

}  // namespace limbic::crowd
