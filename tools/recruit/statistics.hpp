// Metrics and statistics of spec affective-recruitment §6: bias B (M3), the two-sided Wilcoxon
// rank-sum test with tie and continuity correction (M5; MATLAB ranksum 'approximate'), Bonferroni
// thresholds and relative improvements.
#pragma once

#include <map>
#include <vector>

namespace limbic::recruit {

// M3: B = Σ_i f(i, μ), f = ⌊ν_i − μ⌋ when ν_i − μ > 0, else 0; μ = n / k (n requests, k robots).
// `counts` holds ν_i for the k recruitable robots (zeros included). Throws std::invalid_argument when
// `counts` is empty.
int Bias(const std::vector<int>& counts, int requests);

struct RankSumResult {
  double w = 0.0;       // sum of the ranks of x in the pooled sample (average ranks for ties)
  double mean_w = 0.0;  // n_x (n_x + n_y + 1) / 2
  double sigma = 0.0;   // tie-corrected standard deviation
  double z = 0.0;       // (W − μ_W − 0.5·sign(W − μ_W)) / σ
  double p = 1.0;       // erfc(|z| / √2), two-sided
};
// Two-sided Wilcoxon rank-sum (§6 M5). Both samples need at least one value (std::invalid_argument
// otherwise); NaN values are rejected the same way. When every value is equal (σ = 0), p = 1.
RankSumResult RankSum(const std::vector<double>& x, const std::vector<double>& y);

// Bonferroni-corrected threshold: alpha / comparisons (0.01/30 = 0.00033, 0.01/15 = 0.00066).
double BonferroniThreshold(double alpha, int comparisons);

// Relative improvement of A over B: 1 − mean_A / mean_B (§6, §7.7). NaN when mean_B is 0.
double RelativeImprovement(double mean_a, double mean_b);

struct Summary {
  int n = 0;
  double mean = 0, sd = 0, min = 0, q1 = 0, median = 0, q3 = 0, max = 0;
};
// Mean, sample sd, and the quartiles (linear interpolation between order statistics).
Summary Summarise(std::vector<double> values);

}  // namespace limbic::recruit
