#include "services/metrics/collector.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <stdexcept>

namespace limbic::metrics {
namespace {

// Names of the AffectState arrays (messages/affect.fbs).
constexpr std::array<const char*, 9> kStimuli = {"danger",   "stuck",    "pain", "achievement", "density",
                                                 "learning", "mismatch", "cost", "error"};
constexpr std::array<const char*, 7> kEmotions = {"anger",     "fear",     "happiness", "sadness",
                                                  "curiosity", "surprise", "confusion"};
constexpr std::array<const char*, 2> kMoods = {"positive", "negative"};
constexpr std::array<const char*, 6> kDrives = {"safety",      "speed",  "efficiency",
                                                "exploration", "action", "introspection"};

MetricFamily Family(const char* name, const char* help, MetricType type = MetricType::kGauge) {
  return MetricFamily{name, help, type, {}};
}

void Add(MetricFamily& f, Labels labels, double value) { f.samples.push_back(Sample{std::move(labels), value, {}}); }

// One sample per array element, labelled `label_name` = names[i]; extra elements beyond the names are
// ignored (a newer schema), missing ones are simply absent.
template <size_t N>
void AddArray(MetricFamily& f, const std::string& robot, const char* label_name,
              const std::array<const char*, N>& names, const std::vector<double>& values, const char* kind,
              size_t limit = N) {
  for (size_t i = 0; i < std::min({values.size(), names.size(), limit}); ++i) {
    Labels labels = {{"robot", robot}, {label_name, names[i]}};
    if (kind != nullptr) labels.emplace_back("kind", kind);
    Add(f, std::move(labels), values[i]);
  }
}

bool Fresh(double received_s, double now_s, double limit_s) { return now_s - received_s <= limit_s; }

}  // namespace

MetricsCollector::MetricsCollector(CollectorOptions options) : options_(std::move(options)) {
  auto increasing = [](const std::vector<double>& b) {
    return std::adjacent_find(b.begin(), b.end(), std::greater_equal<double>()) == b.end();
  };
  if (!increasing(options_.loop_time_bounds_s) || !increasing(options_.plan_time_bounds_s)) {
    throw std::invalid_argument("metrics: histogram bucket bounds must be strictly increasing");
  }
}

CollectorState::Robot* MetricsCollector::FindOrAddRobot(const std::string& robot) {
  ++state_.messages;
  auto it = state_.robots.find(robot);
  if (it != state_.robots.end()) return &it->second;
  if (state_.robots.size() >= options_.max_robots) {
    ++state_.ignored["robot"];
    return nullptr;
  }
  auto& r = state_.robots[robot];
  r.plan_time_buckets.assign(options_.plan_time_bounds_s.size() + 1, 0);
  return &r;
}

void MetricsCollector::OnAffect(const std::string& robot, const AffectValues& v, double now_s) {
  if (auto* r = FindOrAddRobot(robot)) {
    r->affect = v;
    r->affect_s = now_s;
  }
}

void MetricsCollector::OnRecruit(const std::string& robot, const RecruitValues& v, double now_s) {
  if (auto* r = FindOrAddRobot(robot)) {
    r->recruit = v;
    r->recruit_s = now_s;
  }
}

void MetricsCollector::OnParameters(const std::string& robot, const ParameterValues& v, double now_s) {
  if (auto* r = FindOrAddRobot(robot)) {
    r->params = v;
    r->params_s = now_s;
  }
}

void MetricsCollector::OnTruth(const std::string& robot, const TruthValues& v, double now_s) {
  if (auto* r = FindOrAddRobot(robot)) {
    r->truth = v;
    r->truth_s = now_s;
  }
}

void MetricsCollector::OnCollision(const std::string& robot, const CollisionValues& v, double now_s) {
  if (auto* r = FindOrAddRobot(robot)) {
    // hwio's count restarts at 0 when hwio restarts; Prometheus treats a decrease as a counter reset.
    r->collisions = v.event_count;
    r->has_collisions = true;
  }
}

void MetricsCollector::OnPath(const std::string& robot, const PathValues& v, double now_s) {
  auto* r = FindOrAddRobot(robot);
  if (r == nullptr) return;
  r->path = v;
  r->path_s = now_s;
  if (!v.replanned) return;
  const auto& bounds = options_.plan_time_bounds_s;
  const size_t bucket = std::lower_bound(bounds.begin(), bounds.end(), v.plan_time_s) - bounds.begin();
  ++r->plan_time_buckets[bucket];
  r->plan_time_sum_s += v.plan_time_s;
  r->has_plans = true;
}

void MetricsCollector::OnMission(const std::string& robot, const MissionValues& v, double now_s) {
  if (auto* r = FindOrAddRobot(robot)) {
    r->mission = v;
    r->mission_s = now_s;
  }
}

void MetricsCollector::OnRunMetrics(const std::string& robot, const RunValues& v, double now_s) {
  if (auto* r = FindOrAddRobot(robot)) {
    r->last_run = v;
    ++(v.success ? r->traversals_success : r->traversals_failure);
  }
}

void MetricsCollector::OnHeartbeat(const HeartbeatValues& v, double now_s) {
  ++state_.messages;
  if (v.service.empty()) return;
  if (!state_.services.count(v.service) && state_.services.size() >= options_.max_services) {
    ++state_.ignored["service"];
    return;
  }
  auto& s = state_.services[v.service];
  s.heartbeat = v;
  s.received_s = now_s;
}

void MetricsCollector::OnBusStats(const BusValues& v, double now_s) {
  ++state_.messages;
  state_.bus = BusValues{{}, v.subscribers, v.latched_topics};
  state_.bus_received_s = now_s;
  state_.has_bus = true;
  for (const auto& t : v.topics) {
    if (!state_.topics.count(t.topic) && state_.topics.size() >= options_.max_topics) {
      ++state_.ignored["topic"];
      continue;
    }
    state_.topics[t.topic] = t;
  }
}

void MetricsCollector::OnFault(const FaultValues& v, double now_s) {
  ++state_.messages;
  if (v.clear) {
    if (v.id.empty())
      state_.faults.clear();
    else
      state_.faults.erase(v.id);
    return;
  }
  CollectorState::Fault f;
  f.kind = v.kind.empty() ? "None" : v.kind;
  f.robot = v.robot.empty() ? "all" : v.robot;
  f.start_s = now_s + std::max(0.0, v.delay_s);
  if (v.duration_s > 0) f.end_s = f.start_s + v.duration_s;
  if (state_.fault_series.size() < options_.max_robots * 32 || state_.fault_series.count({f.kind, f.robot})) {
    state_.fault_series.insert({f.kind, f.robot});
  } else {
    ++state_.ignored["fault"];
    return;
  }
  ++state_.faults_injected[f.kind];
  state_.faults[v.id] = f;
}

std::vector<std::string> MetricsCollector::Robots() const {
  std::vector<std::string> robots;
  for (const auto& [name, r] : state_.robots) robots.push_back(name);
  return robots;
}

std::vector<MetricFamily> MetricsCollector::Snapshot(double now_s) const {
  // --- Robots ---
  auto stimulus = Family("limbic_robot_stimulus", "Affect stimulus by stage: raw, normalized or damped.");
  auto emotion = Family("limbic_robot_emotion", "Emotion intensity by kind: global, mapped or combined.");
  auto mood = Family("limbic_robot_mood", "Mood value: positive or negative.");
  auto drive = Family("limbic_robot_drive",
                      "Drive value by kind: emotional (D_E) or bounded (D; survival drives lie in [D_min, D_max]).");
  auto drive_min = Family("limbic_robot_drive_min", "Lower bound D_min of the survival drives (eq. 8.26).");
  auto drive_max = Family("limbic_robot_drive_max", "Upper bound D_max of the survival drives (eq. 8.25).");
  auto affect_model = Family("limbic_robot_affect_model_info", "Affect configuration in use (value 1).");
  auto parameter = Family("limbic_robot_parameter", "Current value of a modulated control parameter (ControlParams).");
  auto speed = Family("limbic_robot_speed_meters_per_second", "True linear speed of the robot (ground truth).");
  auto angular = Family("limbic_robot_angular_speed_radians_per_second", "True angular speed (ground truth).");
  auto contact = Family("limbic_robot_in_contact", "1 while the robot touches an obstacle (ground truth).");
  auto collisions = Family("limbic_robot_collisions_total", "Collision events reported by hwio.", MetricType::kCounter);
  auto contacts = Family("limbic_robot_contacts_total",
                         "Contact events by what was touched: kind=robot (another robot of the team) or kind=world "
                         "(walls, obstacles, people), from the simulator's ground truth.",
                         MetricType::kCounter);
  auto distance = Family("limbic_robot_distance_to_goal_meters", "Distance from the robot to its current goal.");
  auto iteration = Family("limbic_robot_iteration", "Current traversal (iteration) of the mission.");
  auto iterations = Family("limbic_robot_iterations_planned", "Traversals the mission will run.");
  auto elapsed = Family("limbic_robot_traversal_elapsed_seconds", "Time since the current traversal started.");
  auto plan_last = Family("limbic_robot_plan_time_seconds", "Compute time of the planner's last plan.");
  auto plan_hist = Family("limbic_robot_plan_duration_seconds", "Planner compute time, observed on every new plan.",
                          MetricType::kHistogram);
  auto path_ok = Family("limbic_robot_path_success", "1 when the last planning attempt found a path.");
  auto traversals =
      Family("limbic_run_traversals_total", "Finished traversals by result: success or failure.", MetricType::kCounter);
  auto run_time = Family("limbic_run_last_completion_time_seconds",
                         "Completion time of the last finished traversal (600 on timeout).");
  auto run_rate = Family("limbic_run_last_collisions_per_minute", "Collision rate of the last finished traversal.");
  auto run_speed = Family("limbic_run_last_mean_speed_meters_per_second", "Mean speed of the last traversal.");
  auto run_cov = Family("limbic_run_last_coverage_ratio", "Map coverage after the last traversal (0-1).");
  auto run_exec = Family("limbic_run_last_exec_time_ratio",
                         "Compute time of control and affect over simulated time, last traversal.");
  auto run_dist = Family("limbic_run_last_distance_travelled_meters", "Distance travelled in the last traversal.");

  // Recruitment (issue 20): SHAME per robot for operators (spec affective-recruitment §9.5).
  auto shame = Family("limbic_recruit_shame", "SHAME s_i of a recruiter now (decay since its last HELP applied).");
  auto shame_threshold = Family("limbic_recruit_shame_threshold", "SHAME threshold t: above it the robot answers.");
  auto recruit_state =
      Family("limbic_recruit_state", "1 for the recruiter's current responder (UGV) or requester (UAV) state.");
  auto recruit_tx =
      Family("limbic_recruit_transmissions_total",
             "Protocol messages a robot transmitted, per kind: HELP, ACCEPT, RESPONDER, ARRIVAL, AGREE, ACKACK.",
             MetricType::kCounter);
  auto recruited = Family("limbic_recruit_recruited_total", "Times the robot was chosen (RESPONDER naming it).",
                          MetricType::kCounter);
  auto ignored_helps =
      Family("limbic_recruit_helps_ignored_total", "HELPs the robot heard and did not answer.", MetricType::kCounter);
  auto recruit_episodes =
      Family("limbic_recruit_episodes_total", "Recruitments a requester completed (ACKACK).", MetricType::kCounter);
  auto recruit_wait = Family("limbic_recruit_last_wait_seconds", "Wait of the requester's last recruitment (M2).");
  auto recruit_rejected =
      Family("limbic_recruit_rejected_total",
             "Protocol messages counted and ignored, per reason: malformed or out_of_order.", MetricType::kCounter);
  const double stale = options_.robot_stale_after_s;
  for (const auto& [name, r] : state_.robots) {
    if (r.recruit && Fresh(r.recruit_s, now_s, stale)) {
      static const char* kTypes[] = {"HELP", "ACCEPT", "RESPONDER", "ARRIVAL", "AGREE", "ACKACK"};
      const RecruitValues& v = *r.recruit;
      const Labels robot = {{"robot", name}};
      const bool uav = v.role == "uav";
      if (!uav) {
        Add(shame, robot, v.shame_now);
        Add(shame_threshold, robot, v.threshold);
        Add(recruited, robot, static_cast<double>(v.times_recruited));
        Add(ignored_helps, robot, static_cast<double>(v.helps_ignored));
      } else {
        Add(recruit_episodes, robot, static_cast<double>(v.episodes));
        if (std::isfinite(v.last_wait_s)) Add(recruit_wait, robot, v.last_wait_s);
      }
      Add(recruit_state, {{"robot", name}, {"state", uav ? v.requester_state : v.responder_state}}, 1.0);
      for (size_t i = 0; i < std::min<size_t>(6, v.transmissions.size()); ++i)
        Add(recruit_tx, {{"robot", name}, {"kind", kTypes[i]}}, static_cast<double>(v.transmissions[i]));
      Add(recruit_rejected, {{"robot", name}, {"reason", "malformed"}}, static_cast<double>(v.malformed));
      Add(recruit_rejected, {{"robot", name}, {"reason", "out_of_order"}}, static_cast<double>(v.out_of_order));
    }
    const Labels robot = {{"robot", name}};
    if (r.affect && Fresh(r.affect_s, now_s, stale)) {
      const auto& a = *r.affect;
      AddArray(stimulus, name, "stimulus", kStimuli, a.stimuli_raw, "raw");
      AddArray(stimulus, name, "stimulus", kStimuli, a.stimuli_norm, "normalized");
      AddArray(stimulus, name, "stimulus", kStimuli, a.stimuli_damped, "damped");
      AddArray(emotion, name, "emotion", kEmotions, a.emotions_global, "global");
      AddArray(emotion, name, "emotion", kEmotions, a.emotions_mapped, "mapped");
      AddArray(emotion, name, "emotion", kEmotions, a.emotions_combined, "combined");
      AddArray(mood, name, "mood", kMoods, a.moods, nullptr);
      AddArray(drive, name, "drive", kDrives, a.drives_emotional, "emotional");
      AddArray(drive, name, "drive", kDrives, a.drives, "bounded");
      Add(drive_min, robot, a.drive_min);
      Add(drive_max, robot, a.drive_max);
      if (!a.model.empty()) Add(affect_model, {{"robot", name}, {"model", a.model}}, 1.0);
    }
    if (r.params && Fresh(r.params_s, now_s, stale)) {
      for (const auto& [p, value] : *r.params) Add(parameter, {{"robot", name}, {"parameter", p}}, value);
    }
    if (r.truth && Fresh(r.truth_s, now_s, stale)) {
      Add(speed, robot, r.truth->v);
      Add(angular, robot, r.truth->omega);
      Add(contact, robot, r.truth->in_contact ? 1.0 : 0.0);
    }
    if (r.has_collisions) Add(collisions, robot, static_cast<double>(r.collisions));
    if (r.truth) {  // counters stay when the robot falls silent
      Add(contacts, {{"robot", name}, {"kind", "robot"}}, static_cast<double>(r.truth->robot_collisions));
      Add(contacts, {{"robot", name}, {"kind", "world"}}, static_cast<double>(r.truth->world_collisions));
    }
    if (r.mission && Fresh(r.mission_s, now_s, stale)) {
      Add(distance, robot, r.mission->distance_to_goal);
      Add(iteration, robot, r.mission->iteration);
      Add(iterations, robot, r.mission->iterations);
      Add(elapsed, robot, r.mission->elapsed_s);
    } else if (r.last_run) {
      // Between status messages (or without a mission service) the last finished traversal tells it.
      Add(iteration, robot, r.last_run->iteration);
    }
    if (r.path && Fresh(r.path_s, now_s, stale)) {
      Add(plan_last, robot, r.path->plan_time_s);
      Add(path_ok, robot, r.path->success ? 1.0 : 0.0);
    }
    if (r.has_plans) {
      plan_hist.samples.push_back(Sample{
          robot, 0.0, HistogramFromBucketCounts(options_.plan_time_bounds_s, r.plan_time_buckets, r.plan_time_sum_s)});
    }
    if (r.last_run) {
      const auto& run = *r.last_run;
      Add(traversals, {{"robot", name}, {"result", "success"}}, static_cast<double>(r.traversals_success));
      Add(traversals, {{"robot", name}, {"result", "failure"}}, static_cast<double>(r.traversals_failure));
      Add(run_time, robot, run.completion_time_s);
      Add(run_rate, robot, run.collisions_per_min);
      Add(run_speed, robot, run.mean_velocity);
      Add(run_cov, robot, run.coverage);
      Add(run_exec, robot, run.exec_time_ratio);
      Add(run_dist, robot, run.distance_travelled);
    }
  }

  // --- Services ---
  auto up = Family("limbic_service_up", "1 while the service's heartbeat is fresh and it is not stopping, else 0.");
  auto age = Family("limbic_service_heartbeat_age_seconds", "Time since the service's last heartbeat arrived.");
  auto loop =
      Family("limbic_service_loop_time_seconds", "Time a service tick took (all steps).", MetricType::kHistogram);
  auto loop_last = Family("limbic_service_loop_time_last_seconds", "Time the service's last tick took.");
  auto overruns =
      Family("limbic_service_overruns_total", "Ticks that took longer than the period.", MetricType::kCounter);
  auto tick = Family("limbic_service_tick", "Last tick the service reported.");
  auto receive_losses = Family("limbic_bus_receive_losses_total",
                               "Messages a service never received, per topic and reason: gap = missing between two "
                               "that arrived, tail = sent after the last one that arrived (docs/protocol.md, Losses).",
                               MetricType::kCounter);
  auto degraded = Family("limbic_service_degraded",
                         "1 while the service reports the Degraded or Failing state (a step threw, or it refused a "
                         "non-finite state); its heartbeat names the reason (limbic nodes).");
  auto shm_active = Family("limbic_shm_active",
                           "1 while the service's large messages go through shared memory; 0 once it lost RouDi "
                           "(or never reached it) and uses the socket path. Only services started with --shm.");
  auto shm_messages =
      Family("limbic_shm_messages_total",
             "Messages a service sent into (kind = sent) or received from (kind = received) shared memory.",
             MetricType::kCounter);
  auto shm_fallbacks = Family("limbic_shm_fallbacks_total",
                              "Messages meant for shared memory that went over the socket path: no chunk to be had.",
                              MetricType::kCounter);
  auto shm_malformed = Family("limbic_shm_malformed_total",
                              "Shared-memory chunks whose frame or payload failed the checks.", MetricType::kCounter);
  for (const auto& [name, s] : state_.services) {
    const Labels service = {{"service", name}};
    const double heartbeat_age = now_s - s.received_s;
    const bool fresh = heartbeat_age <= options_.service_stale_after_s;
    Add(up, service, fresh && !s.heartbeat.stopping ? 1.0 : 0.0);
    Add(age, service, heartbeat_age);
    if (!fresh) continue;  // never export frozen load figures
    const auto& hb = s.heartbeat;
    if (hb.loop_time_buckets.size() == options_.loop_time_bounds_s.size() + 1) {
      uint64_t n = 0;
      for (uint64_t c : hb.loop_time_buckets) n += c;
      loop.samples.push_back(Sample{service, 0.0,
                                    HistogramFromBucketCounts(options_.loop_time_bounds_s, hb.loop_time_buckets,
                                                              hb.loop_time_mean_s * static_cast<double>(n))});
    }
    Add(loop_last, service, hb.loop_time_last_s);
    Add(overruns, service, static_cast<double>(hb.overruns));
    Add(tick, service, static_cast<double>(hb.tick));
    Add(degraded, service, hb.degraded ? 1.0 : 0.0);
    for (const auto& t : hb.receive_losses) {
      Add(receive_losses, {{"service", name}, {"topic", t.topic}, {"reason", "gap"}}, static_cast<double>(t.gap));
      Add(receive_losses, {{"service", name}, {"topic", t.topic}, {"reason", "tail"}}, static_cast<double>(t.tail));
    }
    if (hb.shm) {
      Add(shm_active, service, hb.shm->active ? 1.0 : 0.0);
      Add(shm_messages, {{"service", name}, {"kind", "sent"}}, static_cast<double>(hb.shm->sent));
      Add(shm_messages, {{"service", name}, {"kind", "received"}}, static_cast<double>(hb.shm->received));
      Add(shm_fallbacks, service, static_cast<double>(hb.shm->fallbacks));
      Add(shm_malformed, service, static_cast<double>(hb.shm->malformed));
    }
  }

  // --- Bus ---
  auto bus_up = Family("limbic_bus_up", "1 while the broker's bus/stats are fresh, else 0.");
  auto messages =
      Family("limbic_bus_messages_total", "Messages the broker forwarded, per topic.", MetricType::kCounter);
  auto bytes = Family("limbic_bus_bytes_total", "Payload bytes the broker forwarded, per topic.", MetricType::kCounter);
  auto drops = Family("limbic_bus_drops_total",
                      "Messages dropped, per topic and reason: malformed, wrong_type (not the topic's type), "
                      "oversize, invalid (a value out of its declared range), fault (an injected communication "
                      "fault), gap and tail (lost on the way). By the broker on the topics it carries; on a direct "
                      "topic by its receivers, summed over them (a message dropped by n receivers counts n), gap "
                      "and tail only there (per service for every topic: limbic_bus_receive_losses_total).",
                      MetricType::kCounter);
  auto duplicates =
      Family("limbic_bus_duplicates_total", "Latched replays already seen, per topic.", MetricType::kCounter);
  auto fault_effects = Family("limbic_bus_fault_effects_total",
                              "Messages an injected communication fault delayed, duplicated or corrupted, per topic.",
                              MetricType::kCounter);
  auto subscribers = Family("limbic_bus_subscribers", "Subscriptions the broker knows.");
  auto latched = Family("limbic_bus_latched_topics", "Latched topics the broker keeps.");
  if (state_.has_bus) {
    const bool fresh = Fresh(state_.bus_received_s, now_s, options_.bus_stale_after_s);
    Add(bus_up, {}, fresh ? 1.0 : 0.0);
    if (fresh) {
      Add(subscribers, {}, state_.bus.subscribers);
      Add(latched, {}, state_.bus.latched_topics);
      for (const auto& [name, t] : state_.topics) {
        const Labels topic = {{"topic", name}};
        Add(messages, topic, static_cast<double>(t.messages));
        Add(bytes, topic, static_cast<double>(t.bytes));
        Add(duplicates, topic, static_cast<double>(t.duplicates));
        const std::pair<const char*, uint64_t> reasons[] = {{"malformed", t.drops_malformed},
                                                            {"wrong_type", t.drops_wrong_type},
                                                            {"oversize", t.drops_oversize},
                                                            {"invalid", t.drops_invalid},
                                                            {"gap", t.drops_gap},
                                                            {"tail", t.drops_tail},
                                                            {"fault", t.fault_drops}};
        for (const auto& [reason, count] : reasons) {
          Add(drops, {{"topic", name}, {"reason", reason}}, static_cast<double>(count));
        }
        const std::pair<const char*, uint64_t> effects[] = {
            {"delayed", t.fault_delays}, {"duplicated", t.fault_duplicates}, {"corrupted", t.fault_corruptions}};
        for (const auto& [effect, count] : effects) {
          Add(fault_effects, {{"topic", name}, {"effect", effect}}, static_cast<double>(count));
        }
      }
    }
  }

  // --- Faults ---
  auto active =
      Family("limbic_faults_active", "Faults in effect now, per kind and target robot (\"all\": every robot).");
  // Named limbic_faults_active_count until issue 22: promtool reserves _count for histograms and summaries.
  auto active_count = Family("limbic_faults_in_effect", "Faults in effect now, all kinds together.");
  auto injected = Family("limbic_faults_injected_total", "Fault commands received, per kind.", MetricType::kCounter);
  std::map<std::pair<std::string, std::string>, int> counts;
  for (const auto& key : state_.fault_series) counts[key] = 0;
  int total = 0;
  for (const auto& [id, f] : state_.faults) {
    if (f.start_s <= now_s && now_s < f.end_s) {
      ++counts[{f.kind, f.robot}];
      ++total;
    }
  }
  for (const auto& [key, n] : counts) Add(active, {{"kind", key.first}, {"robot", key.second}}, n);
  Add(active_count, {}, total);
  for (const auto& [kind, n] : state_.faults_injected) Add(injected, {{"kind", kind}}, static_cast<double>(n));

  // --- The exporter itself ---
  auto handled =
      Family("limbic_exporter_messages_total", "Messages the exporter has turned into metrics.", MetricType::kCounter);
  auto ignored = Family("limbic_exporter_ignored_total",
                        "Values ignored to keep label sets bounded, per kind: robot, service, topic, fault.",
                        MetricType::kCounter);
  Add(handled, {}, static_cast<double>(state_.messages));
  for (const auto& [kind, n] : state_.ignored) Add(ignored, {{"kind", kind}}, static_cast<double>(n));

  std::vector<MetricFamily> families = {stimulus,      emotion,         mood,      drive,         drive_min,
                                        drive_max,     affect_model,    parameter, speed,         angular,
                                        contact,       collisions,      contacts,  distance,      iteration,
                                        iterations,    elapsed,         plan_last, plan_hist,     path_ok,
                                        traversals,    run_time,        run_rate,  run_speed,     run_cov,
                                        run_exec,      run_dist,        up,        age,           loop,
                                        loop_last,     overruns,        tick,      degraded,      receive_losses,
                                        bus_up,        messages,        bytes,     drops,         duplicates,
                                        fault_effects, subscribers,     latched,   active,        active_count,
                                        injected,      handled,         ignored,   shame,         shame_threshold,
                                        recruit_state, recruit_tx,      recruited, ignored_helps, recruit_episodes,
                                        recruit_wait,  recruit_rejected};
  for (MetricFamily* shm : {&shm_active, &shm_messages, &shm_fallbacks, &shm_malformed}) {
    families.push_back(std::move(*shm));
  }
  return families;
}

std::optional<std::string> RobotOfInstance(const std::string& instance) {
  const auto slash = instance.find('/');
  if (slash == std::string::npos || slash == 0) return std::nullopt;
  return instance.substr(0, slash);
}

const std::vector<std::string>& RobotTopicNames() {
  static const std::vector<std::string> names = {"affect", "params",  "truth",  "collision",
                                                 "path",   "mission", "metrics"};
  return names;
}

std::optional<std::string> RobotOfTopic(const std::string& topic) {
  const auto slash = topic.find('/');
  if (slash == std::string::npos || slash == 0) return std::nullopt;
  const std::string name = topic.substr(slash + 1);
  const auto& names = RobotTopicNames();
  if (std::find(names.begin(), names.end(), name) == names.end()) return std::nullopt;
  const std::string robot = topic.substr(0, slash);
  // Global namespaces that are not robots.
  if (robot == "health" || robot == "bus" || robot == "param" || robot == "lockstep") return std::nullopt;
  return robot;
}

}  // namespace limbic::metrics
