#include "common/stats/quantile.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

namespace limbic::stats {

double Quantile(std::vector<double> values, double q) {
  if (!(q >= 0.0 && q <= 1.0)) throw std::invalid_argument("quantile " + std::to_string(q) + " is outside [0, 1]");
  if (values.empty()) return std::numeric_limits<double>::quiet_NaN();
  std::sort(values.begin(), values.end());
  const double h = static_cast<double>(values.size() - 1) * q;
  const size_t below = static_cast<size_t>(std::floor(h));
  if (below + 1 >= values.size()) return values.back();
  return values[below] + (h - static_cast<double>(below)) * (values[below + 1] - values[below]);
}

double Median(std::vector<double> values) { return Quantile(std::move(values), 0.5); }

}  // namespace limbic::stats
