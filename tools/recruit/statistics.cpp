#include "tools/recruit/statistics.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <stdexcept>

namespace limbic::recruit {

int Bias(const std::vector<int>& counts, int requests) {
  if (counts.empty()) throw std::invalid_argument("bias needs at least one recruitable robot");
  const double mu = static_cast<double>(requests) / static_cast<double>(counts.size());
  int b = 0;
  for (int nu : counts) {
    const double excess = nu - mu;
    if (excess > 0.0) b += static_cast<int>(std::floor(excess));
  }
  return b;
}

RankSumResult RankSum(const std::vector<double>& x, const std::vector<double>& y) {
  if (x.empty() || y.empty()) throw std::invalid_argument("rank-sum test needs two non-empty samples");
  struct Item {
    double v;
    bool from_x;
  };
  std::vector<Item> pooled;
  for (double v : x) pooled.push_back({v, true});
  for (double v : y) pooled.push_back({v, false});
  for (const Item& i : pooled)
    if (std::isnan(i.v)) throw std::invalid_argument("rank-sum test got a NaN value");
  std::sort(pooled.begin(), pooled.end(), [](const Item& a, const Item& b) { return a.v < b.v; });
  const double n = static_cast<double>(pooled.size());
  double w = 0.0, tie_term = 0.0;
  for (size_t i = 0; i < pooled.size();) {
    size_t j = i;
    while (j < pooled.size() && pooled[j].v == pooled[i].v) ++j;
    const double average_rank = (static_cast<double>(i + 1) + static_cast<double>(j)) / 2.0;
    const double t = static_cast<double>(j - i);
    tie_term += t * t * t - t;
    for (size_t k = i; k < j; ++k)
      if (pooled[k].from_x) w += average_rank;
    i = j;
  }
  const double nx = static_cast<double>(x.size()), ny = static_cast<double>(y.size());
  RankSumResult r;
  r.w = w;
  r.mean_w = nx * (nx + ny + 1.0) / 2.0;
  const double variance = n > 1.0 ? nx * ny / 12.0 * ((n + 1.0) - tie_term / (n * (n - 1.0))) : 0.0;
  r.sigma = std::sqrt(std::max(0.0, variance));
  if (r.sigma <= 0.0) return r;  // every value equal: no evidence of a difference
  const double d = w - r.mean_w;
  const double sign = d > 0.0 ? 1.0 : (d < 0.0 ? -1.0 : 0.0);
  r.z = (d - 0.5 * sign) / r.sigma;
  r.p = std::erfc(std::fabs(r.z) / std::sqrt(2.0));
  return r;
}

double BonferroniThreshold(double alpha, int comparisons) {
  if (comparisons < 1) throw std::invalid_argument("Bonferroni needs at least one comparison");
  return alpha / comparisons;
}

double RelativeImprovement(double mean_a, double mean_b) {
  if (mean_b == 0.0) return std::numeric_limits<double>::quiet_NaN();
  return 1.0 - mean_a / mean_b;
}

Summary Summarise(std::vector<double> values) {
  Summary s;
  s.n = static_cast<int>(values.size());
  if (values.empty()) return s;
  std::sort(values.begin(), values.end());
  s.mean = std::accumulate(values.begin(), values.end(), 0.0) / s.n;
  double ss = 0.0;
  for (double v : values) ss += (v - s.mean) * (v - s.mean);
  s.sd = s.n > 1 ? std::sqrt(ss / (s.n - 1)) : 0.0;
  const auto quantile = [&](double q) {
    const double pos = q * (s.n - 1);
    const size_t lo = static_cast<size_t>(std::floor(pos));
    const size_t hi = std::min(values.size() - 1, lo + 1);
    return values[lo] + (pos - lo) * (values[hi] - values[lo]);
  };
  s.min = values.front();
  s.max = values.back();
  s.q1 = quantile(0.25);
  s.median = quantile(0.5);
  s.q3 = quantile(0.75);
  return s;
}

}  // namespace limbic::recruit
