#include "services/affect/emotion_maps.hpp"

#include <algorithm>
#include <cmath>

namespace limbic::affect {

std::vector<NearbyCell> CellsWithinRadius(const geometry::GridSpec& grid, const geometry::Vec2& position,
                                          double radius) {
  std::vector<NearbyCell> cells;
  if (grid.CellCount() <= 0) return cells;
  const geometry::Cell lo = grid.CellOf(position - geometry::Vec2(radius, radius));
  const geometry::Cell hi = grid.CellOf(position + geometry::Vec2(radius, radius));
  const double r2 = radius * radius;
  for (int iy = std::max(lo.iy, 0); iy <= std::min(hi.iy, grid.height - 1); ++iy) {
    for (int ix = std::max(lo.ix, 0); ix <= std::min(hi.ix, grid.width - 1); ++ix) {
      const geometry::Cell c{ix, iy};
      const double d2 = (grid.Center(c) - position).squaredNorm();
      if (d2 < r2) cells.push_back({grid.Index(c), 1.0 - d2 / r2});
    }
  }
  return cells;
}

void UpdateEmotionMap(std::span<const NearbyCell> nearby, double global_intensity, const EmotionMapRates& rates,
                      EmotionMapUpdate form, std::vector<double>* map) {
  for (const NearbyCell& c : nearby) {
    double& e = (*map)[c.index];
    const double gamma = e < global_intensity ? rates.gamma_growth : rates.gamma_decay;
    if (form == EmotionMapUpdate::kInterpreted) {
      const double blend = gamma * c.weight;
      e = blend * global_intensity + (1.0 - blend) * e;
    } else {
      e = gamma * c.weight * global_intensity + (1.0 - gamma) * e;
    }
  }
}

double LocalMappedIntensity(std::span<const NearbyCell> nearby, const std::vector<double>& map) {
  double weighted = 0.0;
  double total = 0.0;
  for (const NearbyCell& c : nearby) {
    weighted += c.weight * map[c.index];
    total += c.weight;
  }
  return total > 0.0 ? weighted / total : 0.0;
}

void BuildThesisEmotionLayer(const std::array<std::vector<double>, kNumEmotions>& maps,
                             const std::array<Valence, kNumEmotions>& valence,
                             const std::array<bool, kNumEmotions>& include, double mood_positive, double mood_negative,
                             double cost_damped, std::span<const double> p_e, std::vector<double>* cost) {
  const size_t n = maps[0].size();
  cost->assign(n, 0.0);
  if (p_e.empty()) return;
  bool any_negative = false, any_positive = false;
  for (int e = 0; e < kNumEmotions; ++e) {
    if (!include[e]) continue;
    (valence[e] == Valence::kNegative ? any_negative : any_positive) = true;
  }
  const double w_n = any_negative ? mood_negative * (1.0 - cost_damped) : 0.0;
  const double w_p = any_positive ? mood_positive * (1.0 - cost_damped) : 0.0;
  for (size_t i = 0; i < n; ++i) {
    double negative = 0.0, positive = 0.0;
    for (int e = 0; e < kNumEmotions; ++e) {
      if (!include[e]) continue;
      const double v = maps[e][i];
      double& group = valence[e] == Valence::kNegative ? negative : positive;
      group = group + v - group * v;  // eqs. 5.3/5.4 with weight 1
    }
    const double p = 1.0 - positive;
    const double fused = w_n * negative + w_p * p - w_n * w_p * negative * p;
    (*cost)[i] = fused * p_e[i];
  }
}

void BuildCompanionEmotionLayer(const std::array<std::vector<double>, kNumEmotions>& maps,
                                const CompanionTables& tables, std::vector<double>* cost) {
  const size_t n = maps[0].size();
  cost->resize(n);
  for (size_t i = 0; i < n; ++i) {
    const double happiness = maps[kHappiness][i] - maps[kSadness][i];  // E_H: negative = sadness
    (*cost)[i] = (tables.w7 * maps[kFear][i] + tables.w8 * (1.0 - maps[kSurprise][i]) - tables.w9 * happiness) *
                 (1.0 - maps[kAnger][i]);
  }
}

bool LayerChangeFilter::Changed(const EmotionLayer& layer, bool all_zero) {
  bool same = false;
  if (any_ && last_.grid == layer.grid && last_.fusion == layer.fusion) {
    if (last_zero_ && all_zero) {
      same = true;
    } else if (last_zero_) {
      same = std::all_of(layer.cost.begin(), layer.cost.end(), [](double v) { return v == 0.0; });
    } else if (all_zero) {
      same = std::all_of(last_.cost.begin(), last_.cost.end(), [](double v) { return v == 0.0; });
    } else {
      same = last_.cost == layer.cost;
    }
  }
  if (same) return false;
  any_ = true;
  last_zero_ = all_zero;
  last_.grid = layer.grid;
  last_.fusion = layer.fusion;
  if (all_zero) {
    last_.cost.clear();
  } else {
    last_.cost = layer.cost;
  }
  return true;
}

}  // namespace limbic::affect
