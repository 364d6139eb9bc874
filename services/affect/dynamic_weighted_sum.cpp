#include "services/affect/dynamic_weighted_sum.hpp"

#include <cmath>
#include <stdexcept>
#include <string>

namespace limbic::affect {

namespace {

// F_i of eq. 8.17: the rule's output contribution.
double RuleOutput(double intensity, int logic) { return (logic == 1 || logic == 2) ? 1.0 - intensity : intensity; }

// M_i of eq. 8.18: how "enabled" the rule is. X = 0 means linear (spec §8 item 4).
double RuleActivation(double intensity, int logic, double exponent) {
  const double base = (logic == 2 || logic == 3) ? 1.0 - intensity : intensity;
  if (exponent == 0.0 || exponent == 1.0) return base;
  return std::pow(base, exponent);
}

}  // namespace

DynamicWeightedSum::DynamicWeightedSum(std::vector<DwsTerm> terms, DominanceForm form)
    : terms_(std::move(terms)), form_(form) {
  for (size_t i = 0; i < terms_.size(); ++i) {
    const DwsTerm& t = terms_[i];
    if (t.logic < 0 || t.logic > 3) {
      throw std::invalid_argument("DWS term " + std::to_string(i) + ": logic tag must be 0..3");
    }
    if (t.w_min < 0.0 || t.w_max < 0.0) {
      throw std::invalid_argument("DWS term " + std::to_string(i) + ": weights must be >= 0");
    }
    if (t.exponent < 0.0) {
      throw std::invalid_argument("DWS term " + std::to_string(i) + ": exponent must be >= 0");
    }
    if (t.Dominant()) {
      if (dominant_ >= 0) throw std::invalid_argument("DWS: more than one dominant term (w_min = 1)");
      dominant_ = static_cast<int>(i);
    }
  }
}

double DynamicWeightedSum::Evaluate(std::span<const double> intensities, double fallback) const {
  double f_dominant = 0.0;
  if (dominant_ >= 0) {
    const DwsTerm& d = terms_[dominant_];
    f_dominant = RuleOutput(intensities[d.source], d.logic);
  }
  double weighted = 0.0;
  double total_weight = 0.0;
  for (size_t i = 0; i < terms_.size(); ++i) {
    const DwsTerm& t = terms_[i];
    const double intensity = intensities[t.source];
    const double f = RuleOutput(intensity, t.logic);
    double m = RuleActivation(intensity, t.logic, t.exponent);
    if (dominant_ >= 0 && static_cast<int>(i) != dominant_) {
      // Eq. 8.21. Corrected: rules that lower the output (L ∈ {1,3}) act only while the dominant
      // input is high; rules that raise it (L ∈ {0,2}) only while it is low. Printed: the reverse.
      const bool lowers = (t.logic == 1 || t.logic == 3);
      const bool scale_by_f = (form_ == DominanceForm::kCorrected) ? lowers : !lowers;
      m *= scale_by_f ? f_dominant : 1.0 - f_dominant;
    }
    const double w = (1.0 - m) * t.w_min + m * t.w_max;  // eq. 8.19
    weighted += w * f;
    total_weight += w;
  }
  if (total_weight <= 0.0) return fallback;  // spec §8 item 30
  return weighted / total_weight;            // eq. 8.20
}

}  // namespace limbic::affect
