// Mapped emotions of spec §5.4 (thesis §8.3.2): one grid map e_M per emotion, updated around the
// robot (eq. 8.22), read back as a local intensity E_M (eq. 8.23), and fused into the planner's
// emotion cost layer (§5.4.2), or the companion paper's additive planner bias.
#pragma once

#include <array>
#include <span>
#include <vector>

#include "common/geometry/geometry.hpp"
#include "services/affect/affect_config.hpp"
#include "services/affect/affect_ids.hpp"

namespace limbic::affect {

// One cell within r_M of the robot and its proximity weight 1 − d²/r_M².
struct NearbyCell {
  int index = 0;
  double weight = 0.0;
};

// Cells of `grid` whose centre lies strictly within `radius` of `position` (row-major order).
std::vector<NearbyCell> CellsWithinRadius(const geometry::GridSpec& grid, const geometry::Vec2& position,
                                          double radius);

// Growth/decay rates of one emotion's map (already rescaled to the control period).
struct EmotionMapRates {
  double gamma_growth = 0.1;
  double gamma_decay = 0.01;
};

// Eq. 8.22 on the `nearby` cells of one map: γ = γ_1 if e_M < E_G, else γ_2.
// kInterpreted: e ← γ'·E_G + (1 − γ')·e with γ' = γ·w (spec §8 item 5); e tends to E_G.
// kLiteral:     e ← γ·w·E_G + (1 − γ)·e as printed; e tends to w·E_G.
void UpdateEmotionMap(std::span<const NearbyCell> nearby, double global_intensity, const EmotionMapRates& rates,
                      EmotionMapUpdate form, std::vector<double>* map);

// Eq. 8.23: Σ w·e_M / Σ w over the nearby cells; 0 when there are none (robot off the grid).
double LocalMappedIntensity(std::span<const NearbyCell> nearby, const std::vector<double>& map);

// How the planner must combine the emotion layer with its other maps.
enum class EmotionLayerFusion {
  kProbabilisticOr,  // thesis: one more map in the weighted probabilistic OR (eq. 5.4) with weight
                     // W_p4
  kAdditive,         // companion 2006: c_e = p_o + W_p4·layer (the layer may be negative)
};

// The planner's emotion cost layer on the emotion-map grid (row-major, GridSpec::Index order).
struct EmotionLayer {
  geometry::GridSpec grid;
  std::vector<double> cost;
  EmotionLayerFusion fusion = EmotionLayerFusion::kProbabilisticOr;
  bool operator==(const EmotionLayer&) const = default;
};

// Decides whether a layer differs from the last one published (affect.emotion_layer_publish=on_change). A disabled
// layer (the engine's all-zero one, AffectOutputs::emotion_layer_zero) is remembered by its grid and fusion alone,
// and two of them on the same grid compare without reading their cells (issue 18: comparing and keeping a copy of
// 2,220 zeros a robot a tick was 0.3 M instructions and a sixth of the affect step's cache misses in a 16-robot
// lockstep tick).
class LayerChangeFilter {
 public:
  // True when `layer` differs from the last layer passed here (always for the first); it then becomes the last.
  // `all_zero` promises that every cell of `layer.cost` is 0 (cost may then be left unread).
  bool Changed(const EmotionLayer& layer, bool all_zero);

 private:
  bool any_ = false;
  bool last_zero_ = false;
  EmotionLayer last_;  // cost empty when last_zero_
};

// §5.4.2: N = OR of the included negative maps (weights 1); P = 1 − OR of the included positive
// maps; layer = (W_N·N + W_P·P − W_N·W_P·N·P)·p_e with W_N = M_neg·(1 − S_cost), W_P = M_pos·(1 −
// S_cost). A group with no included map contributes nothing (its weight is taken as 0). Empty p_e →
// all zeros. `cost` is resized to the map size.
void BuildThesisEmotionLayer(const std::array<std::vector<double>, kNumEmotions>& maps,
                             const std::array<Valence, kNumEmotions>& valence,
                             const std::array<bool, kNumEmotions>& include, double mood_positive, double mood_negative,
                             double cost_damped, std::span<const double> p_e, std::vector<double>* cost);

// Companion paper: bias = (w7·e_fear + w8·(1 − e_surprise) − w9·(e_happiness − e_sadness))·(1 −
// e_anger) per cell, from the deliberative (mapped) emotions. Values lie in [−w9, w7 + w8].
void BuildCompanionEmotionLayer(const std::array<std::vector<double>, kNumEmotions>& maps,
                                const CompanionTables& tables, std::vector<double>* cost);

}  // namespace limbic::affect
