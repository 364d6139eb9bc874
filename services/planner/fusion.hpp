// Map fusion by weighted probabilistic OR (spec §4.1, eqs. 5.3–5.4), used for the planning map and for the
// emotion layer (§5.4.2).
#pragma once

#include <initializer_list>
#include <span>

namespace limbic::planner {

// One step of eq. 5.4: m_f ← m_f + W·m − W·m_f·m. Starting from m_f = 0 the first step gives W_1·m_1 and
// the second gives eq. 5.3, so a fold over the layers is the whole fusion.
inline double ProbabilisticOrStep(double fused, double weight, double value) {
  return fused + weight * value - weight * fused * value;
}

// A weight and the value of one layer at one cell.
struct WeightedValue {
  double weight = 0.0;
  double value = 0.0;
};

// Eqs. 5.3/5.4 at one cell over any number of (weight, value) pairs, in order. Empty → 0.
double FuseProbabilisticOr(std::initializer_list<WeightedValue> terms);
double FuseProbabilisticOr(std::span<const WeightedValue> terms);

// A weight and a whole grid layer (one value per cell).
struct WeightedLayer {
  double weight = 0.0;
  std::span<const double> values;
};

// Eqs. 5.3/5.4 cell by cell into `out` (out.size() cells). Throws std::invalid_argument when a layer's size
// differs from out.size().
void FuseProbabilisticOr(std::span<const WeightedLayer> layers, std::span<double> out);

}  // namespace limbic::planner
