#include "services/explore/resource_feedback.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace limbic::explore {

void Validate(const FeedbackOptions& o) {
  auto bad = [](const std::string& what) { throw std::invalid_argument("resource feedback: " + what); };
  if (!(o.budget > 0) || !std::isfinite(o.budget)) bad("budget must be > 0");
  if (!(o.low > 0 && o.low <= o.target && o.target <= o.high)) bad("need 0 < low <= target <= high");
  for (const RateBounds& b : o.bounds) {
    if (!(b.min_hz > 0) || !(b.nominal_hz >= b.min_hz) || !std::isfinite(b.nominal_hz))
      bad("rates need 0 < min_hz <= nominal_hz");
  }
}

RetuneResult Retune(const ExecutorLoad& load, const FeedbackOptions& o) {
  Validate(o);
  std::array<double, kActivities> cost{};  // CPU s per call
  RetuneResult r;
  double total = 0.0;
  for (int a = 0; a < kActivities; ++a) {
    if (!(load.share[a] >= 0) || !std::isfinite(load.share[a]))
      throw std::invalid_argument("resource feedback: bad share");
    if (!(load.rate_hz[a] > 0) || !std::isfinite(load.rate_hz[a]))
      throw std::invalid_argument("resource feedback: bad rate");
    cost[a] = load.share[a] / load.rate_hz[a];
    r.rate_hz[a] = load.rate_hz[a];
    total += load.share[a];
  }
  const double target = o.target * o.budget;
  if (total > o.high * o.budget) {
    // Shed load: planning, then sensing, then actuation.
    double excess = total - target;
    for (int a : {kPlanning, kSensing, kActuation}) {
      if (excess <= 0 || cost[a] <= 0) continue;
      const double lowest = o.bounds[a].min_hz;
      const double cut_hz = std::min(r.rate_hz[a] - lowest, excess / cost[a]);
      if (cut_hz <= 0) continue;
      r.rate_hz[a] -= cut_hz;
      excess -= cut_hz * cost[a];
    }
  } else if (total < o.low * o.budget) {
    // Headroom: back towards nominal, actuation first.
    double room = target - total;
    for (int a : {kActuation, kSensing, kPlanning}) {
      if (room <= 0) break;
      const double want_hz = o.bounds[a].nominal_hz - r.rate_hz[a];
      if (want_hz <= 0) continue;
      const double add_hz = cost[a] > 0 ? std::min(want_hz, room / cost[a]) : want_hz;
      r.rate_hz[a] += add_hz;
      room -= add_hz * cost[a];
    }
  }
  for (int a = 0; a < kActivities; ++a) {
    r.predicted_share += cost[a] * r.rate_hz[a];
    r.changed = r.changed || r.rate_hz[a] != load.rate_hz[a];
  }
  return r;
}

}  // namespace limbic::explore
