#include "services/controller/weighted_product.hpp"

#include <algorithm>
#include <stdexcept>

#include "common/types/option_names.hpp"

namespace limbic::controller {

TieBreak ParseTieBreak(const std::string& name) {
  return types::EnumFromName<TieBreak>(kTieBreakNames, name, "tie_break");
}

double CapWeight(double weight, double cap) { return std::clamp(weight, 0.0, std::max(cap, 0.0)); }

double WeightedProduct(std::span<const WeightedTerm> terms, double weight_cap) {
  double f = 1.0;
  for (const WeightedTerm& t : terms) f *= ProductFactor(CapWeight(t.weight, weight_cap), t.value);
  return f;
}

double WeightedSum(std::span<const WeightedTerm> terms) {
  double num = 0.0, den = 0.0;
  for (const WeightedTerm& t : terms) {
    num += t.weight * t.value;
    den += t.weight;
  }
  return den > 0.0 ? num / den : 0.0;
}

int ArgMax(std::span<const double> values, TieBreak tie_break, std::span<const double> distance_to_current,
           double tolerance) {
  if (values.empty()) return -1;
  int best = 0;
  for (int i = 1; i < static_cast<int>(values.size()); ++i) {
    if (values[i] > values[best]) best = i;
  }
  if (tie_break == TieBreak::kFirstMaximum) {
    // First option within tolerance of the maximum.
    for (int i = 0; i < static_cast<int>(values.size()); ++i) {
      if (values[i] >= values[best] - tolerance) return i;
    }
    return best;
  }
  if (distance_to_current.size() != values.size()) {
    throw std::invalid_argument("ArgMax: kClosestToCurrent needs one distance per option");
  }
  const double max_value = values[best];
  int chosen = -1;
  for (int i = 0; i < static_cast<int>(values.size()); ++i) {
    if (values[i] < max_value - tolerance) continue;
    if (chosen < 0 || distance_to_current[i] < distance_to_current[chosen]) chosen = i;
  }
  return chosen;
}

}  // namespace limbic::controller
