#include "services/explore/executor_load.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>
#include <stdexcept>

namespace limbic::explore {
namespace {

bool FiniteNonNegative(double v) { return std::isfinite(v) && v >= 0; }

std::string Text(double v) {
  std::ostringstream out;
  out.precision(6);
  out << v;
  return out.str();
}

}  // namespace

ExecutorLoadEstimator::ExecutorLoadEstimator(std::array<std::vector<std::string>, kActivities> services,
                                             EstimatorOptions options)
    : options_(options) {
  if (!(options.period_s > 0) || !std::isfinite(options.period_s))
    throw std::invalid_argument("executor load: period_s must be > 0");
  if (!(options.stale_s > 0) || !std::isfinite(options.stale_s))
    throw std::invalid_argument("executor load: stale_s must be > 0");
  for (int a = 0; a < kActivities; ++a) {
    if (services[a].empty()) throw std::invalid_argument("executor load: every activity needs a service");
    for (const std::string& name : services[a]) {
      if (name.empty()) throw std::invalid_argument("executor load: empty service name");
      for (const Track& t : tracks_) {
        if (t.service == name) throw std::invalid_argument("executor load: service '" + name + "' listed twice");
      }
      tracks_.push_back({name, a, std::nullopt, std::nullopt});
    }
  }
}

bool ExecutorLoadEstimator::Add(const std::string& service, const ServiceSample& s) {
  auto it = std::find_if(tracks_.begin(), tracks_.end(), [&](const Track& t) { return t.service == service; });
  const bool calls_ok = std::isnan(s.calls) || FiniteNonNegative(s.calls);
  if (it == tracks_.end() || !std::isfinite(s.received_s) || s.tick < 0 || !FiniteNonNegative(s.cpu_s) || !calls_ok) {
    ++refused_;
    return false;
  }
  Track& t = *it;
  if (t.last && (s.tick < t.last->tick || s.cpu_s < t.last->cpu_s ||
                 (!std::isnan(s.calls) && !std::isnan(t.last->calls) && s.calls < t.last->calls))) {
    // Restarted: its counters began again; the interval across the restart means nothing.
    ++restarts_;
    t.previous.reset();
    t.last = s;
    return true;
  }
  if (t.last && s.tick == t.last->tick) {
    t.last->received_s = s.received_s;  // no simulated time passed (a paused run): fresh, nothing to measure
    return true;
  }
  t.previous = t.last;
  t.last = s;
  return true;
}

std::optional<ExecutorLoad> ExecutorLoadEstimator::Estimate(double now_s,
                                                            const std::array<double, kActivities>& commanded_hz) const {
  ExecutorLoad load;
  std::array<bool, kActivities> counted{};
  for (const Track& t : tracks_) {
    if (!t.previous || !t.last || now_s - t.last->received_s > options_.stale_s) return std::nullopt;
    const double dt = static_cast<double>(t.last->tick - t.previous->tick) * options_.period_s;
    load.share[t.activity] += (t.last->cpu_s - t.previous->cpu_s) / dt;
    if (!std::isnan(t.last->calls) && !std::isnan(t.previous->calls)) {
      const double calls = t.last->calls - t.previous->calls;
      if (calls > 0) {
        load.rate_hz[t.activity] += calls / dt;
        counted[t.activity] = true;
      }
    }
  }
  for (int a = 0; a < kActivities; ++a) {
    if (!counted[a]) load.rate_hz[a] = commanded_hz[a];
  }
  return load;
}

void ExecutorLoadEstimator::Restart() {
  for (Track& t : tracks_) {
    t.previous.reset();
    t.last.reset();
  }
}

double PlannerCapFor(double rate_hz, double nominal_hz) { return rate_hz >= nominal_hz ? 0.0 : rate_hz; }

int FullMapPeriodFor(double rate_hz, double period_s) {
  if (!(rate_hz > 0) || !(period_s > 0)) throw std::invalid_argument("full map period: rate and period must be > 0");
  return std::max(1, static_cast<int>(std::lround(1.0 / (rate_hz * period_s))));
}

void Validate(const ResourceFeedbackOptions& o) {
  Validate(o.retune);
  for (double b : o.budgets) {
    if (!(b > 0) || !std::isfinite(b)) throw std::invalid_argument("resource feedback: budgets must be > 0");
  }
  if (!(o.estimator.period_s > 0) || !(o.estimator.stale_s > 0))
    throw std::invalid_argument("resource feedback: period_s and stale_s must be > 0");
  if (!(o.reply_timeout_s > 0) || !std::isfinite(o.reply_timeout_s))
    throw std::invalid_argument("resource feedback: reply_timeout_s must be > 0");
  if (!(o.refusal_hold_s >= 0) || !(o.refusal_hold_max_s >= o.refusal_hold_s) || !std::isfinite(o.refusal_hold_max_s))
    throw std::invalid_argument("resource feedback: 0 <= refusal_hold_s <= refusal_hold_max_s (finite)");
}

ResourceFeedback::ResourceFeedback(int robots, std::array<std::vector<std::string>, kActivities> services,
                                   const ResourceFeedbackOptions& options)
    : options_(options) {
  Validate(options);
  if (robots < 1) throw std::invalid_argument("resource feedback: no robots");
  if (!options.budgets.empty() && static_cast<int>(options.budgets.size()) != robots)
    throw std::invalid_argument("resource feedback: one budget for all robots or one each");
  for (int r = 0; r < robots; ++r) {
    Robot robot{ExecutorLoadEstimator(services, options.estimator), {}, options.retune};
    if (!options.budgets.empty()) robot.retune.budget = options.budgets[r];
    for (int a = 0; a < kActivities; ++a) robot.commanded[a] = options.retune.bounds[a].nominal_hz;
    robots_.push_back(std::move(robot));
  }
}

bool ResourceFeedback::Heartbeat(int robot, const std::string& service, const ServiceSample& sample) {
  if (robot < 0 || robot >= static_cast<int>(robots_.size())) return false;
  return robots_[robot].estimator.Add(service, sample);
}

std::vector<ParameterSet> ResourceFeedback::Step(double now_s) {
  for (auto it = pending_.begin(); it != pending_.end();) {
    if (now_s - it->second.sent_s < options_.reply_timeout_s) {
      ++it;
      continue;
    }
    ++counters_.sets_unanswered;
    Refused(it->second.set, now_s);
    it = pending_.erase(it);
  }
  std::vector<ParameterSet> sets;
  for (size_t r = 0; r < robots_.size(); ++r) {
    Robot& robot = robots_[r];
    const std::optional<ExecutorLoad> load = robot.estimator.Estimate(now_s, robot.commanded);
    if (!load) {
      ++counters_.no_estimate;
      continue;
    }
    const RetuneResult result = Retune(*load, robot.retune);
    // A change is one the services can take (the mapper's period is whole ticks), against what is commanded.
    bool changed = false;
    for (Activity a : {kPlanning, kSensing}) {
      // Retune moves the measured rate; the command moves the same way from where it stands (a planner held
      // below its cap by t_r measures less than the cap: raising that measured rate must not lower the cap).
      if (result.rate_hz[a] == load->rate_hz[a]) continue;
      if (Held(static_cast<int>(r), a, now_s)) {
        ++counters_.sets_held;  // refused lately: the command stays as it is until the hold ends
        continue;
      }
      double hz = result.rate_hz[a] < load->rate_hz[a] ? std::min(result.rate_hz[a], robot.commanded[a])
                                                       : std::max(result.rate_hz[a], robot.commanded[a]);
      ParameterSet set;
      set.robot = static_cast<int>(r);
      set.activity = a;
      set.previous_hz = robot.commanded[a];
      if (a == kPlanning) {
        hz = std::min(hz, robot.retune.bounds[a].nominal_hz);
        set.service = "planner";
        set.parameter = "max_replan_hz";
        set.value = Text(PlannerCapFor(hz, robot.retune.bounds[a].nominal_hz));
      } else {
        const int period = FullMapPeriodFor(hz, options_.estimator.period_s);
        hz = 1.0 / (period * options_.estimator.period_s);
        set.service = "mapper";
        set.parameter = "full_map_period";
        set.value = std::to_string(period);
      }
      if (std::abs(hz - robot.commanded[a]) <= 1e-9 * std::max(1.0, hz)) continue;
      set.new_hz = hz;
      robot.commanded[a] = hz;
      sets.push_back(std::move(set));
      changed = true;
    }
    if (changed) {
      ++counters_.retunes;
      robot.estimator.Restart();
    }
  }
  counters_.sets_sent += sets.size();
  return sets;
}

void ResourceFeedback::Sent(uint64_t request_id, const ParameterSet& set, double now_s) {
  if (set.robot < 0 || set.robot >= static_cast<int>(robots_.size()))
    throw std::invalid_argument("resource feedback: a set for no robot");
  pending_[request_id] = Pending{set, now_s};
}

std::optional<ParameterSet> ResourceFeedback::Reply(uint64_t request_id, bool accepted, double now_s) {
  const auto it = pending_.find(request_id);
  if (it == pending_.end()) return std::nullopt;
  ParameterSet set = std::move(it->second.set);
  pending_.erase(it);
  if (accepted) {
    robots_[set.robot].refusals[set.activity] = 0;
  } else {
    ++counters_.sets_refused;
    Refused(set, now_s);
  }
  return set;
}

void ResourceFeedback::Refused(const ParameterSet& set, double now_s) {
  Robot& robot = robots_[set.robot];
  robot.commanded[set.activity] = set.previous_hz;
  const int k = std::min(++robot.refusals[set.activity], 30);
  robot.held_until_s[set.activity] =
      now_s + std::min(options_.refusal_hold_s * std::ldexp(1.0, k - 1), options_.refusal_hold_max_s);
}

bool ResourceFeedback::Held(int robot, Activity a, double now_s) const {
  return now_s < robots_.at(robot).held_until_s[a];
}

FeedbackCounters ResourceFeedback::counters() const {
  FeedbackCounters c = counters_;
  for (const Robot& r : robots_) c.samples_refused += r.estimator.refused();
  return c;
}

}  // namespace limbic::explore
