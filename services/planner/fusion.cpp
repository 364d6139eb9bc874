#include "services/planner/fusion.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace limbic::planner {

double FuseProbabilisticOr(std::span<const WeightedValue> terms) {
  double fused = 0.0;
  for (const WeightedValue& t : terms) fused = ProbabilisticOrStep(fused, t.weight, t.value);
  return fused;
}

double FuseProbabilisticOr(std::initializer_list<WeightedValue> terms) {
  return FuseProbabilisticOr(std::span<const WeightedValue>(terms.begin(), terms.size()));
}

void FuseProbabilisticOr(std::span<const WeightedLayer> layers, std::span<double> out) {
  for (const WeightedLayer& layer : layers) {
    if (layer.values.size() != out.size()) {
      throw std::invalid_argument("FuseProbabilisticOr: layer of " + std::to_string(layer.values.size()) +
                                  " cells, expected " + std::to_string(out.size()));
    }
  }
  std::fill(out.begin(), out.end(), 0.0);
  for (const WeightedLayer& layer : layers) {
    const double w = layer.weight;
    for (size_t i = 0; i < out.size(); ++i) out[i] = ProbabilisticOrStep(out[i], w, layer.values[i]);
  }
}

}  // namespace limbic::planner
