#include "services/recruiter/recruiter_options.hpp"

#include <set>

namespace limbic::recruit {

void LoadAgentOptions(config::StrictMap& map, AgentOptions* o) {
  int id = static_cast<int>(o->id);
  if (map.Optional("id", &id) && (id < 0)) map.Fail("id", "must be >= 0");
  o->id = static_cast<RobotId>(id);
  std::string role = o->uav ? "uav" : "ugv";
  map.Optional("role", &role);
  if (role != "uav" && role != "ugv") map.Fail("role", "must be uav or ugv, got '" + role + "'");
  o->uav = role == "uav";
  map.Optional("x", &o->start.x);
  map.Optional("y", &o->start.y);
  if (map.Optional("speed", &o->speed) && !(o->speed > 0.0)) map.Fail("speed", "must be positive");
  std::string strategy = "affective";
  map.Optional("strategy", &strategy);
  RecruiterOptions& r = o->recruiter;
  if (strategy == "affective") {
    r.strategy = Strategy::kAffective;
    r.shame.fitness = FitnessModel::Linear(0.5);
  } else if (strategy == "affective_sq") {
    r.strategy = Strategy::kAffective;
    r.shame.fitness = FitnessModel::InverseSquare(2.5);
  } else if (strategy == "greedy") {
    r.strategy = Strategy::kGreedy;
  } else if (strategy == "random") {
    r.strategy = Strategy::kRandom;
  } else {
    map.Fail("strategy", "must be affective, affective_sq, greedy or random, got '" + strategy + "'");
  }
  std::vector<std::vector<double>> waypoints;
  if (map.Optional("waypoints", &waypoints)) {
    o->waypoints.clear();
    for (const auto& w : waypoints) {
      if (w.size() != 2) map.Fail("waypoints", "each waypoint is [x, y]");
      o->waypoints.push_back({w[0], w[1]});
    }
  }
  map.Optional("first_request_s", &o->first_request_s);
  if (map.Optional("pause_after_s", &o->pause_after_s) && !(o->pause_after_s >= 0.0))
    map.Fail("pause_after_s", "must be >= 0");
  if (map.Optional("pauses_after_s", &o->pauses_after_s)) {
    for (double p : o->pauses_after_s)
      if (!(p >= 0.0)) map.Fail("pauses_after_s", "every pause must be >= 0");
  }
  if (map.Optional("episodes", &o->episodes) && o->episodes < 0) map.Fail("episodes", "must be >= 0");
  map.Optional("percept", &o->percept);
  if (map.Optional("arrival_radius", &o->arrival_radius) && !(o->arrival_radius > 0.0))
    map.Fail("arrival_radius", "must be positive");
  const auto positive = [&](const std::string& key, double* v) {
    if (map.Optional(key, v) && !(*v > 0.0)) map.Fail(key, "must be positive");
  };
  positive("help_retry_s", &r.help_retry_s);
  positive("other_timeout_s", &r.other_timeout_s);
  if (map.Optional("accept_grace_s", &r.accept_grace_s) && !(r.accept_grace_s >= 0.0))
    map.Fail("accept_grace_s", "must be >= 0");
  std::string window;
  if (map.Optional("selection_window", &window)) {
    try {
      r.selection = ParseSelectionWindow(window);
    } catch (const std::invalid_argument& e) {
      map.Fail("selection_window", e.what());
    }
  }
  positive("lease_s", &r.lease_s);
  if (map.Optional("lease_renewals", &r.lease_renewals) && r.lease_renewals < 0)
    map.Fail("lease_renewals", "must be >= 0");
  if (map.Optional("task_s", &r.task_s) && !(r.task_s >= 0.0)) map.Fail("task_s", "must be >= 0");
  map.Optional("threshold", &r.shame.threshold);
  positive("c", &r.shame.c);
  if (map.Optional("decay_per_s", &r.shame.decay_per_s) && !(r.shame.decay_per_s >= 0.0))
    map.Fail("decay_per_s", "must be >= 0");
  map.Optional("accrue_while_busy", &r.shame.accrue_while_busy);
  map.Optional("seed", &r.seed);
}

void LoadRadioOptions(config::StrictMap& map, RadioOptions* o, std::vector<RobotId>* team) {
  std::vector<int> ids;
  map.Optional("robots", &ids);
  std::set<int> unique;
  for (int id : ids) {
    if (id < 0) map.Fail("robots", "ids must be >= 0");
    if (!unique.insert(id).second) map.Fail("robots", "repeats id " + std::to_string(id));
    team->push_back(static_cast<RobotId>(id));
  }
  if (map.Optional("loss", &o->loss) && !(o->loss >= 0.0 && o->loss <= 1.0)) map.Fail("loss", "must be in [0, 1]");
  std::string text;
  if (map.Optional("loss_model", &text)) {
    try {
      o->loss_model = ParseLossModel(text);
    } catch (const std::invalid_argument& e) {
      map.Fail("loss_model", e.what());
    }
  }
  if (map.Optional("loss_per", &text)) {
    if (text == "transmission")
      o->granularity = RadioOptions::Granularity::kPerTransmission;
    else if (text == "receiver")
      o->granularity = RadioOptions::Granularity::kPerReceiver;
    else
      map.Fail("loss_per", "must be transmission or receiver");
  }
  map.Optional("ge_p_good_to_bad", &o->ge_p_good_to_bad);
  map.Optional("ge_p_bad_to_good", &o->ge_p_bad_to_good);
  map.Optional("ge_loss_good", &o->ge_loss_good);
  map.Optional("ge_loss_bad", &o->ge_loss_bad);
  if (map.Optional("latency_s", &o->latency_s) && !(o->latency_s >= 0.0)) map.Fail("latency_s", "must be >= 0");
  if (map.Optional("latency_jitter_s", &o->latency_jitter_s) && !(o->latency_jitter_s >= 0.0))
    map.Fail("latency_jitter_s", "must be >= 0");
  if (map.Optional("range", &o->range) && !(o->range > 0.0)) map.Fail("range", "must be positive");
  if (map.Optional("mode", &text)) {
    if (text != "broadcast" && text != "unicast") map.Fail("mode", "must be broadcast or unicast");
    o->unicast = text == "unicast";
  }
  map.Optional("seed", &o->seed);
}

}  // namespace limbic::recruit
