// Weighted-product objective (spec §4.3, eq. 5.10) and the deterministic argmax both reactive
// layers use.
#pragma once

#include <span>
#include <string>
#include <vector>

namespace limbic::controller {

// One objective term: its weight W_i and its value f_i, both in [0, 1].
struct WeightedTerm {
  double weight = 0.0;
  double value = 1.0;
};

// Clamps a weight to [0, cap] (the spec caps weights at 0.99 so that lower-priority terms can still
// rank options a dominant term rejects; ControlParameters::weight_cap).
double CapWeight(double weight, double cap);

// One factor of eq. 5.10: 1 − W·(1 − f). The weight is used as given (cap it first with CapWeight).
inline double ProductFactor(double weight, double value) { return 1.0 - weight * (1.0 - value); }

// f = Π_i (1 − W_i·(1 − f_i))   (eq. 5.10). Each weight is capped with CapWeight(W_i, weight_cap).
double WeightedProduct(std::span<const WeightedTerm> terms, double weight_cap);

// f = Σ W_i f_i / Σ W_i   (eq. 5.11), for comparison only (the reactive layers use the product).
// Returns 0 when every weight is 0.
double WeightedSum(std::span<const WeightedTerm> terms);

// How argmax chooses among options whose objective equals the maximum (spec §4.3: "not specified").
enum class TieBreak {
  kFirstMaximum,      // the first maximum in candidate order (default)
  kClosestToCurrent,  // the maximum with the smallest distance to the current state; equal
                      // distances → first
};
// The option's names, in the enum's order (controller live parameter `tie_break`).
inline const std::vector<std::string> kTieBreakNames = {"first", "closest"};
// Throws std::invalid_argument naming the choices for anything else.
TieBreak ParseTieBreak(const std::string& name);

// Index of the maximum of `values` (−1 when empty). Values within `tolerance` of the maximum count
// as ties. For kClosestToCurrent, `distance_to_current[i]` is option i's distance to the current
// state (same size as `values`); for kFirstMaximum it is ignored and may be empty.
int ArgMax(std::span<const double> values, TieBreak tie_break, std::span<const double> distance_to_current = {},
           double tolerance = 1e-12);

}  // namespace limbic::controller
