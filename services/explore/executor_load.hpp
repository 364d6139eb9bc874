// Resource-utilisation feedback, measured and applied (multi-robot spec §1: "a resource utilisation feedback
// mechanism on the task managers tunes each executor's planning, sensing and actuation rates as the task
// progresses"). Retune (resource_feedback.hpp) decides new rates from measured shares; this file measures the
// shares from the executors' heartbeats and turns the decisions into the settings the services take.
//
// Measure (ExecutorLoadEstimator): every service's heartbeat carries the CPU seconds its steps have used since it
// started (`step_cpu_s`), its tick, and a count of the activity's calls (the planner's `plans`, the mapper's
// `full_maps`). Between two heartbeats of a service, over the simulated time Δt = Δtick·T they cover:
//   share  = Δcpu / Δt     (CPU s per simulated s: the share a robot running in real time would need)
//   rate   = Δcalls / Δt   (calls per simulated s)
// An activity's share is the sum over its services (planning: the planner; sensing: the mapper, and hwio when
// configured; actuation: the controller); its rate is its counting service's, or the rate last commanded when
// nothing was called in the interval. Simulated time rather than wall time, so that a lockstep run faster than
// real time measures what the robot would need, and rates compare with the planner's simulated-time timer.
//
// Apply (ResourceFeedback): for each robot with a fresh estimate it runs Retune; a changed rate becomes
//   planning → the planner's live `max_replan_hz` (0, no cap, at or above the nominal rate);
//   sensing  → the mapper's live `full_map_period` = max(1, round(1 / (rate·T))) ticks (the rate it stands for
//              is then 1 / (period·T));
//   actuation → nothing: its bounds are fixed at nominal (min = nominal), safety last.
// After a change the robot's measurements start again (two heartbeats taken at the new rates before the next
// decision). A refused set puts the commanded rate back and is counted.
//
// Refused and unanswered sets (README "A refused live set"): a service may refuse a set — another or older
// implementation without the parameter ("no parameter 'max_replan_hz' in r1/planner"), or a value outside its
// range — or never answer (gone, or its reply lost). Retune would then ask for the same change at every fresh
// estimate, and the same set would be refused every few seconds for the rest of the run. So a refused set, or one
// unanswered after reply_timeout_s, puts the command back and holds that robot's activity: no set of it for
// refusal_hold_s, doubling with each refusal in a row up to refusal_hold_max_s (a service that was upgraded or
// restarted meanwhile is asked again). An accepted set ends the run of refusals. The robot's other activities are
// tuned as before.
//
// Inputs: heartbeat samples (with the manager's wall time of receipt), the manager's wall time at each decision,
// the sets sent (with their request ids) and the replies. Outputs: parameter sets to send, counters.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "services/explore/resource_feedback.hpp"

namespace limbic::explore {

// One heartbeat of one service, as the estimator reads it. Missing numbers are NaN.
struct ServiceSample {
  double received_s = 0.0;  // manager's wall time of receipt (staleness)
  int64_t tick = 0;         // the service's tick
  double cpu_s = 0.0;       // cumulative CPU seconds of its steps (heartbeat counter step_cpu_s)
  double calls = 0.0;       // cumulative calls of the activity it counts (plans, full_maps); NaN: counts none
};

struct EstimatorOptions {
  double period_s = 0.1;  // T: the services' tick period (s of simulated time per tick)
  double stale_s = 3.0;   // a service whose last heartbeat is older than this (wall s) gives no estimate
};

class ExecutorLoadEstimator {
 public:
  // services[a]: the names of the services that make up activity a (e.g. {"planner"}, {"mapper"}, {"controller"});
  // every activity needs at least one. Throws std::invalid_argument for bad options or an empty activity.
  ExecutorLoadEstimator(std::array<std::vector<std::string>, kActivities> services, EstimatorOptions options);

  // Takes one heartbeat. Returns false for a sample it refuses: a service it does not know, a non-finite or
  // negative figure (counted in refused()). A tick or CPU figure below the last one is a restarted service: its
  // measurement starts again (counted in restarts()). A sample of the same tick only refreshes its freshness.
  bool Add(const std::string& service, const ServiceSample& sample);

  // The load over each service's last interval, or nullopt when some service has no interval yet or its last
  // heartbeat is older than stale_s at `now_s`. `commanded_hz`: the rates last commanded, used for an activity
  // whose counting service made no call in its interval (and for an activity without one).
  std::optional<ExecutorLoad> Estimate(double now_s, const std::array<double, kActivities>& commanded_hz) const;

  // Forgets every interval (after a retune: the next estimate is measured at the new rates).
  void Restart();

  uint64_t refused() const { return refused_; }
  uint64_t restarts() const { return restarts_; }

 private:
  struct Track {
    std::string service;
    int activity = 0;
    std::optional<ServiceSample> previous, last;
  };
  std::vector<Track> tracks_;
  EstimatorOptions options_;
  uint64_t refused_ = 0;
  uint64_t restarts_ = 0;
};

// A parameter set for one robot's service.
struct ParameterSet {
  int robot = 0;
  Activity activity = kPlanning;
  std::string service;    // "planner", "mapper"
  std::string parameter;  // "max_replan_hz", "full_map_period"
  std::string value;      // YAML scalar
  double previous_hz = 0.0;
  double new_hz = 0.0;
};

// The planner's cap for a planning rate: 0 (no cap) at or above nominal.
double PlannerCapFor(double rate_hz, double nominal_hz);
// The mapper's full-map period (ticks) for a sensing rate at tick period `period_s`: max(1, round(1/(rate·T))).
int FullMapPeriodFor(double rate_hz, double period_s);

struct ResourceFeedbackOptions {
  FeedbackOptions retune;       // budget (one for all robots unless `budgets`), thresholds, bounds per activity
  std::vector<double> budgets;  // per robot (empty: retune.budget for every robot)
  EstimatorOptions estimator;
  double reply_timeout_s = 5.0;       // wall s: a set unanswered this long counts as refused (unanswered)
  double refusal_hold_s = 30.0;       // wall s without a set of an activity after its first refusal in a row
  double refusal_hold_max_s = 600.0;  // the hold doubles with each refusal in a row, up to this
};
// Throws std::invalid_argument naming the field.
void Validate(const ResourceFeedbackOptions& options);

struct FeedbackCounters {
  uint64_t retunes = 0;          // decisions that changed a robot's rates
  uint64_t sets_sent = 0;        // parameter sets sent
  uint64_t sets_refused = 0;     // refused by the service (its commanded rate put back)
  uint64_t sets_unanswered = 0;  // no reply within reply_timeout_s (put back like a refusal)
  uint64_t sets_held = 0;        // changes not sent because the activity is held after a refusal
  uint64_t no_estimate = 0;      // decisions skipped for a robot without a fresh estimate (stale or missing data)
  uint64_t samples_refused = 0;  // heartbeats refused by the estimators
};

class ResourceFeedback {
 public:
  // `services`: as for ExecutorLoadEstimator, the same for every robot. Throws std::invalid_argument.
  ResourceFeedback(int robots, std::array<std::vector<std::string>, kActivities> services,
                   const ResourceFeedbackOptions& options);

  bool Heartbeat(int robot, const std::string& service, const ServiceSample& sample);
  // One decision round at the manager's wall time `now_s`: sets unanswered for reply_timeout_s are given up (put
  // back, held), then the parameter sets to send. Send each with a request id and report it with Sent.
  std::vector<ParameterSet> Step(double now_s);
  // A set went out as request `request_id` at `now_s`.
  void Sent(uint64_t request_id, const ParameterSet& set, double now_s);
  // The reply to request `request_id`: the set it answers, or nullopt for a request that is not an outstanding set
  // of ours (another client's, e.g. `limbic param`, or one already given up). A refusal puts the robot's commanded
  // rate for that activity back and holds the activity (see above); an acceptance ends its run of refusals.
  std::optional<ParameterSet> Reply(uint64_t request_id, bool accepted, double now_s);
  // Whether robot `robot`'s activity `a` is held after a refusal at `now_s`.
  bool Held(int robot, Activity a, double now_s) const;
  size_t outstanding() const { return pending_.size(); }

  const std::array<double, kActivities>& commanded(int robot) const { return robots_.at(robot).commanded; }
  FeedbackCounters counters() const;

 private:
  struct Robot {
    ExecutorLoadEstimator estimator;
    std::array<double, kActivities> commanded{};
    FeedbackOptions retune;
    std::array<int, kActivities> refusals{};  // in a row
    std::array<double, kActivities> held_until_s{};
  };
  struct Pending {
    ParameterSet set;
    double sent_s = 0.0;
  };
  void Refused(const ParameterSet& set, double now_s);
  std::vector<Robot> robots_;
  std::map<uint64_t, Pending> pending_;
  ResourceFeedbackOptions options_;
  FeedbackCounters counters_;
};

}  // namespace limbic::explore
