#pragma once

namespace limbic::stats {

// A binomial proportion's confidence interval (both ends in [0, 1]).
struct Proportion {
  int successes = 0;
  int trials = 0;
  double estimate = 0.0;  // successes / trials (NaN without trials)
  double low = 0.0;       // NaN without trials
  double high = 0.0;
};

// The Wilson score interval (Wilson 1927) for `successes` of `trials` at the two-sided normal
// quantile z (1.959964 for 95 %): centre (p̂ + z²/2n) / (1 + z²/n), half-width z/(1 +
// z²/n)·√(p̂(1−p̂)/n + z²/4n²). Unlike the normal (Wald) interval it stays inside [0, 1] and is not
// zero-width at 0 or n successes, which is where navigation results sit. Throws
// std::invalid_argument for successes outside 0..trials. The one implementation every experiment
// summary uses (hybrid navigator, laser navigator).
Proportion WilsonInterval(int successes, int trials, double z = 1.959963984540054);

}  // namespace limbic::stats
