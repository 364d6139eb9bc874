#include "common/stats/proportion.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

namespace limbic::stats {

Proportion WilsonInterval(int successes, int trials, double z) {
  if (trials < 0 || successes < 0 || successes > trials) {
    throw std::invalid_argument("WilsonInterval: " + std::to_string(successes) + " successes of " +
                                std::to_string(trials) + " trials");
  }
  Proportion p;
  p.successes = successes;
  p.trials = trials;
  if (trials == 0) {
    p.estimate = p.low = p.high = std::numeric_limits<double>::quiet_NaN();
    return p;
  }
  const double n = trials;
  const double phat = successes / n;
  const double z2 = z * z;
  const double denominator = 1.0 + z2 / n;
  const double centre = (phat + z2 / (2.0 * n)) / denominator;
  const double half = z / denominator * std::sqrt(phat * (1.0 - phat) / n + z2 / (4.0 * n * n));
  p.estimate = phat;
  // At 0 or n successes the interval touches 0 or 1 exactly; clamp the rounding error there.
  p.low = successes == 0 ? 0.0 : std::max(0.0, centre - half);
  p.high = successes == trials ? 1.0 : std::min(1.0, centre + half);
  return p;
}

}  // namespace limbic::stats
