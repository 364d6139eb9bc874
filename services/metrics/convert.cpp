#include "services/metrics/convert.hpp"

#include <algorithm>
#include <cmath>

#include "common/convert/convert.hpp"
#include "common/types/control_parameters.hpp"
#include "services/recruiter/convert.hpp"

namespace limbic::metrics {
namespace {

std::vector<double> Doubles(const flatbuffers::Vector<double>* v) {
  return v ? std::vector<double>(v->begin(), v->end()) : std::vector<double>{};
}
std::string Str(const flatbuffers::String* s) { return s ? s->str() : std::string(); }

}  // namespace

AffectValues FromMsg(const msg::AffectState& m) {
  AffectValues a;
  a.model = Str(m.model());
  a.stimuli_raw = Doubles(m.stimuli_raw());
  a.stimuli_norm = Doubles(m.stimuli_norm());
  a.stimuli_damped = Doubles(m.stimuli_damped());
  a.emotions_global = Doubles(m.emotions_global());
  a.emotions_mapped = Doubles(m.emotions_mapped());
  a.emotions_combined = Doubles(m.emotions_combined());
  a.moods = Doubles(m.moods());
  a.drives_emotional = Doubles(m.drives_emotional());
  a.drives = Doubles(m.drives());
  a.drive_min = m.drive_min();
  a.drive_max = m.drive_max();
  return a;
}

ParameterValues FromMsg(const msg::ControlParams& m) {
  const ControlParameters p = convert::FromMsg(m);
  ParameterValues values;
#define LIMBIC_METRICS_PARAMETER(type, name) values.emplace_back(#name, static_cast<double>(p.name));
  LIMBIC_CONTROL_PARAMETER_FIELDS(LIMBIC_METRICS_PARAMETER)
#undef LIMBIC_METRICS_PARAMETER
  return values;
}

TruthValues FromMsg(const msg::GroundTruth& m) {
  return {m.v(), m.omega(), m.in_contact(), m.robot_collisions(), m.world_collisions()};
}

CollisionValues FromMsg(const msg::CollisionEvent& m) { return {m.occurred(), m.event_count()}; }

PathValues FromMsg(const msg::Path& m) { return {m.success(), m.replanned(), m.plan_time_s(), m.max_cost()}; }

MissionValues FromMsg(const msg::MissionStatus& m) {
  return {m.iteration(), m.iterations(), m.distance_to_goal(), m.elapsed_s(), m.finished()};
}

RunValues FromMsg(const msg::RunMetrics& m) {
  return {m.iteration(),     m.success(),         m.completion_time_s(), m.collisions(),        m.collisions_per_min(),
          m.mean_velocity(), m.exec_time_ratio(), m.coverage(),          m.distance_travelled()};
}

HeartbeatValues FromMsg(const msg::Heartbeat& m) {
  HeartbeatValues h;
  h.service = Str(m.service());
  h.stopping = m.state() == msg::ServiceState::Stopping;
  // Failing is degraded too (issue 15): its steps keep throwing.
  h.degraded = m.state() == msg::ServiceState::Degraded || m.state() == msg::ServiceState::Failing;
  h.tick = m.tick();
  h.uptime_s = m.uptime_s();
  h.loop_time_last_s = m.loop_time_last_s();
  h.loop_time_mean_s = m.loop_time_mean_s();
  if (m.loop_time_buckets()) h.loop_time_buckets.assign(m.loop_time_buckets()->begin(), m.loop_time_buckets()->end());
  h.overruns = m.overruns();
  if (m.counters()) {
    // runtime::Host::PublishHeartbeat's names; a service without shared memory sends none of them.
    for (const auto* c : *m.counters()) {
      const std::string name = Str(c->name());
      if (!name.starts_with("shm_")) continue;
      if (!h.shm) h.shm.emplace();
      const double value = std::isfinite(c->value()) && c->value() > 0 ? c->value() : 0.0;
      const auto count = static_cast<uint64_t>(std::min(value, 1e18));
      if (name == "shm_active") h.shm->active = value > 0;
      if (name == "shm_sent") h.shm->sent = count;
      if (name == "shm_received") h.shm->received = count;
      if (name == "shm_fallbacks") h.shm->fallbacks = count;
      if (name == "shm_malformed") h.shm->malformed = count;
    }
  }
  if (m.topics()) {
    for (const auto* t : *m.topics()) {
      if (Str(t->direction()) == "in") h.receive_losses.push_back({Str(t->topic()), t->drops_gap(), t->drops_tail()});
    }
  }
  return h;
}

BusValues FromMsg(const msg::BusStats& m) {
  BusValues b;
  b.subscribers = m.subscribers();
  b.latched_topics = m.latched_topics();
  if (m.topics()) {
    for (const auto* t : *m.topics()) {
      b.topics.push_back(TopicValues{Str(t->topic()), t->messages(), t->bytes(), t->drops_malformed(),
                                     t->drops_wrong_type(), t->drops_oversize(), t->drops_gap(), t->duplicates(),
                                     t->fault_drops(), t->fault_delays(), t->fault_duplicates(), t->fault_corruptions(),
                                     t->drops_invalid(), t->drops_tail()});
    }
  }
  return b;
}

FaultValues FromMsg(const msg::FaultCommand& m, double stamp_s) {
  FaultValues f;
  f.id = Str(m.id());
  const char* kind = msg::EnumNameFaultKind(m.kind());
  f.kind = (kind && *kind) ? kind : "Unknown";
  f.robot = Str(m.robot());
  f.delay_s = m.start_s() > stamp_s ? m.start_s() - stamp_s : 0.0;
  f.duration_s = m.duration_s();
  f.clear = m.clear();
  return f;
}

RecruitValues FromMsg(const msg::RecruitState& m) {
  // One decoding of RecruitState (the recruiter's own, with its per-type transmission table); the exporter
  // keeps the part it serves.
  const recruit::AgentTelemetry t = recruit::FromMsg(m);
  return {.role = t.role,
          .responder_state = t.responder_state,
          .requester_state = t.requester_state,
          .shame_now = t.shame_now,
          .threshold = t.threshold,
          .last_wait_s = t.last_wait_s,
          .helps_ignored = t.helps_ignored,
          .times_recruited = t.times_recruited,
          .episodes = t.episodes_completed,
          .malformed = t.malformed,
          .out_of_order = t.out_of_order,
          .transmissions = t.transmissions};
}

}  // namespace limbic::metrics
