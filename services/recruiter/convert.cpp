#include "services/recruiter/convert.hpp"

#include <cmath>
#include <limits>

namespace limbic::recruit {

flatbuffers::Offset<msg::RecruitMessage> ToMsg(flatbuffers::FlatBufferBuilder& fbb,
                                               flatbuffers::Offset<msg::Header> header, const Message& m) {
  const auto percept = m.type == MsgType::kHelp ? fbb.CreateString(m.percept) : 0;
  msg::RecruitMessageBuilder b(fbb);
  b.add_header(header);
  b.add_type(static_cast<msg::RecruitType>(m.type));
  b.add_sender_id(m.sender);
  b.add_recipient_id(m.recipient);
  b.add_request_id(m.request_id);
  b.add_msg_id(m.msg_id);
  b.add_stamp_s(m.stamp_s);
  if (m.type == MsgType::kHelp) {
    b.add_percept(percept);
    b.add_location_x(m.location.x);
    b.add_location_y(m.location.y);
    b.add_threshold_override(m.threshold_override.value_or(std::numeric_limits<double>::quiet_NaN()));
    b.add_help_index(m.help_index);
  }
  b.add_eta_s(m.eta_s);
  b.add_responder_id(m.responder_id);
  b.add_lease_s(m.lease_s);
  return b.Finish();
}

Message FromMsg(const msg::RecruitMessage& m) {
  Message out;
  out.type = static_cast<MsgType>(m.type());
  out.sender = m.sender_id();
  out.recipient = m.recipient_id();
  out.request_id = m.request_id();
  out.msg_id = m.msg_id();
  out.stamp_s = m.stamp_s();
  out.percept = m.percept() ? m.percept()->str() : "";
  out.location = {m.location_x(), m.location_y()};
  if (!std::isnan(m.threshold_override())) out.threshold_override = m.threshold_override();
  out.help_index = m.help_index();
  out.eta_s = m.eta_s();
  out.responder_id = m.responder_id();
  out.lease_s = m.lease_s();
  return out;
}

flatbuffers::Offset<msg::RecruitState> ToMsg(flatbuffers::FlatBufferBuilder& fbb,
                                             flatbuffers::Offset<msg::Header> header, const AgentTelemetry& t) {
  const auto role = fbb.CreateString(t.role);
  const auto strategy = fbb.CreateString(t.strategy);
  const auto responder = fbb.CreateString(t.responder_state);
  const auto requester = fbb.CreateString(t.requester_state);
  const auto decision = fbb.CreateString(t.last_decision);
  const auto tx = fbb.CreateVector(t.transmissions);
  msg::RecruitStateBuilder b(fbb);
  b.add_header(header);
  b.add_robot_id(t.robot_id);
  b.add_role(role);
  b.add_strategy(strategy);
  b.add_x(t.position.x);
  b.add_y(t.position.y);
  b.add_shame(t.shame);
  b.add_shame_now(t.shame_now);
  b.add_threshold(t.threshold);
  b.add_responder_state(responder);
  b.add_requester_state(requester);
  b.add_last_decision(decision);
  b.add_helps_received(t.helps_received);
  b.add_helps_ignored(t.helps_ignored);
  b.add_accepts_sent(t.accepts_sent);
  b.add_times_recruited(t.times_recruited);
  b.add_episodes_completed(t.episodes_completed);
  b.add_last_wait_s(t.last_wait_s);
  b.add_transmissions(tx);
  b.add_malformed(t.malformed);
  b.add_out_of_order(t.out_of_order);
  b.add_duplicates(t.duplicates);
  b.add_restarts(t.restarts);
  b.add_lease_lapses(t.lease_lapses);
  return b.Finish();
}

AgentTelemetry FromMsg(const msg::RecruitState& m) {
  const auto str = [](const flatbuffers::String* s) { return s ? s->str() : std::string(); };
  AgentTelemetry t;
  t.robot_id = m.robot_id();
  t.role = str(m.role());
  t.strategy = str(m.strategy());
  t.position = {m.x(), m.y()};
  t.shame = m.shame();
  t.shame_now = m.shame_now();
  t.threshold = m.threshold();
  t.responder_state = str(m.responder_state());
  t.requester_state = str(m.requester_state());
  t.last_decision = str(m.last_decision());
  t.helps_received = m.helps_received();
  t.helps_ignored = m.helps_ignored();
  t.accepts_sent = m.accepts_sent();
  t.times_recruited = m.times_recruited();
  t.episodes_completed = m.episodes_completed();
  t.last_wait_s = m.last_wait_s();
  t.transmissions.assign(kMsgTypeCount, 0);
  if (m.transmissions())
    for (flatbuffers::uoffset_t i = 0; i < m.transmissions()->size() && i < kMsgTypeCount; ++i)
      t.transmissions[i] = m.transmissions()->Get(i);
  t.malformed = m.malformed();
  t.out_of_order = m.out_of_order();
  t.duplicates = m.duplicates();
  t.restarts = m.restarts();
  t.lease_lapses = m.lease_lapses();
  return t;
}

flatbuffers::Offset<msg::RadioStats> ToMsg(flatbuffers::FlatBufferBuilder& fbb, flatbuffers::Offset<msg::Header> header,
                                           const RadioCounts& counts, const RadioOptions& options) {
  std::vector<flatbuffers::Offset<msg::RadioRobotCounts>> robots;
  for (const auto& [id, per_type] : counts.attempts_by_robot) {
    const auto attempts = fbb.CreateVector(std::vector<uint64_t>(per_type.begin(), per_type.end()));
    robots.push_back(msg::CreateRadioRobotCounts(fbb, id, attempts));
  }
  const auto robots_vec = fbb.CreateVector(robots);
  const auto attempts = fbb.CreateVector(std::vector<uint64_t>(counts.attempts.begin(), counts.attempts.end()));
  const auto dropped = fbb.CreateVector(std::vector<uint64_t>(counts.dropped.begin(), counts.dropped.end()));
  return msg::CreateRadioStats(fbb, header, attempts, dropped, robots_vec, counts.out_of_range, options.loss,
                               options.unicast);
}

RadioCounts FromMsg(const msg::RadioStats& m) {
  RadioCounts c;
  const auto copy = [](const flatbuffers::Vector<uint64_t>* v, std::array<uint64_t, kMsgTypeCount>* out) {
    if (!v) return;
    for (flatbuffers::uoffset_t i = 0; i < v->size() && i < kMsgTypeCount; ++i) (*out)[i] = v->Get(i);
  };
  copy(m.attempts(), &c.attempts);
  copy(m.dropped(), &c.dropped);
  if (m.robots())
    for (const auto* r : *m.robots()) copy(r->attempts(), &c.attempts_by_robot[r->robot_id()]);
  c.out_of_range = m.out_of_range();
  return c;
}

}  // namespace limbic::recruit
