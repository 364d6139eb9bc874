// The dynamic weighted sum (DWS) of spec §5.2 (thesis §8.3.1): the one function that maps stimuli
// to emotions, emotions to moods and emotions to drives.
#pragma once

#include <span>
#include <vector>

namespace limbic::affect {

// Which way round the dominance step (eq. 8.21) scales the other inputs (spec §8 item 3).
enum class DominanceForm {
  kCorrected,  // M_i ← F_D·M_i for L ∈ {1,3}, (1 − F_D)·M_i for L ∈ {0,2} (default, recommended)
  kPrinted,    // the thesis as printed: the two cases swapped
};

// One input of a DWS: where its intensity comes from and its four parameters.
struct DwsTerm {
  int source = 0;         // index into the intensity array passed to Evaluate (a stimulus or an emotion)
  double w_min = 0.0;     // W_i(min): weight when the rule's antecedent is "disabled"
  double w_max = 1.0;     // W_i(max): weight when it is "enabled"
  double exponent = 0.0;  // X_i; 0 (and 1) mean linear (spec §8 item 4)
  int logic = 0;          // L_i: 0 high→high, 1 high→low, 2 low→high, 3 low→low

  bool Dominant() const { return w_min == 1.0; }  // "an input with W_min = 1 is dominant"
  bool operator==(const DwsTerm&) const = default;
};

// Evaluates eqs. 8.17–8.21 for a fixed list of terms.
// Inputs: the intensity array (each in [0,1]) indexed by DwsTerm::source, and the value to return
// when every weight is 0 (spec §8 item 30: the caller decides — 0.5 for survival drives, 0
// otherwise, or the previous output). Output: Σ W_j·F_j / Σ W_i in [0,1].
class DynamicWeightedSum {
 public:
  DynamicWeightedSum() = default;
  // Throws std::invalid_argument on a logic tag outside 0..3, a negative weight or exponent, or
  // more than one dominant term (the config loader reports these with file and key first).
  explicit DynamicWeightedSum(std::vector<DwsTerm> terms, DominanceForm form = DominanceForm::kCorrected);

  double Evaluate(std::span<const double> intensities, double fallback) const;

  const std::vector<DwsTerm>& terms() const { return terms_; }
  int dominant_index() const { return dominant_; }  // -1 when no term is dominant

 private:
  std::vector<DwsTerm> terms_;
  DominanceForm form_ = DominanceForm::kCorrected;
  int dominant_ = -1;
};

}  // namespace limbic::affect
