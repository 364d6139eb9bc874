#include "common/bus/forwarding.hpp"

#include "messages/validate.hpp"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <stdexcept>

namespace limbic::bus {

Forwarding::Forwarding(size_t max_payload) : max_payload_(max_payload) {
  std::random_device rd;
  incarnation_ = (static_cast<uint64_t>(rd()) << 32) ^ rd();
  started_ = std::chrono::steady_clock::now();
}

bool Forwarding::Untracked(const std::string& topic) const {
  return counts_.size() >= kMaxTrackedTopics && counts_.find(topic) == counts_.end();
}

void Forwarding::Drop(const std::string& topic, uint64_t TopicCounters::*reason, const char* why) {
  const std::string& key = Untracked(topic) ? std::string(kOverflowTopic) : topic;
  ++(counts_[key].*reason);
  uint64_t suppressed = 0;
  if (drop_log_[key].Allow(&suppressed)) {
    LIMBIC_LOG(kWarning) << "dropped a message on '" << topic << "': " << why
                         << (suppressed ? " (" + std::to_string(suppressed) + " more since last report)" : "");
  }
}

Forwarding::Verdict Forwarding::Admit(const std::string& topic, const uint8_t* data, size_t size,
                                      std::vector<CommOutgoing>* out) {
  if (Untracked(topic)) {
    Drop(topic, &TopicCounters::drops_malformed, "one topic too many (a flood of invented topic names?)");
    return Verdict::kDrop;
  }
  if (size > max_payload_) {
    Drop(topic, &TopicCounters::drops_oversize, "payload above the size cap");
    return Verdict::kDrop;
  }
  const messages::MessageType* type = messages::FindByIdentifier(messages::IdentifierOf(data, size));
  if (type == nullptr) {
    Drop(topic, &TopicCounters::drops_wrong_type, "unknown buffer identifier");
    return Verdict::kDrop;
  }
  if (!type->verify(data, size)) {
    Drop(topic, &TopicCounters::drops_malformed, "failed FlatBuffers verification");
    return Verdict::kDrop;
  }
  const msg::Header* header = messages::HeaderOf(data);
  if (header == nullptr || header->source() == nullptr) {
    Drop(topic, &TopicCounters::drops_malformed, "message without a header");
    return Verdict::kDrop;
  }
  // One type per topic (issue 15, finding 6): a NavGoal on r1/odom was forwarded to every receiver and
  // dropped by each, invisible where users look. The broker now drops it once, and says so.
  // Declared (DeclareType, or limbic's topic naming convention), else fixed by the first valid message.
  auto known = types_.find(topic);
  if (known == types_.end()) {
    if (const messages::MessageType* conventional = messages::ConventionalType(topic)) {
      known = types_.emplace(topic, conventional).first;
    }
  }
  if (known != types_.end() && known->second != type) {
    Drop(topic, &TopicCounters::drops_wrong_type,
         ("the topic carries " + std::string(known->second->name) + ", got " + type->name).c_str());
    return Verdict::kDrop;
  }
  if (const std::string invalid = messages::ValidateValues(*type, data, size); !invalid.empty()) {
    Drop(topic, &TopicCounters::drops_invalid, ("invalid value: " + invalid).c_str());
    return Verdict::kDrop;
  }
  if (known == types_.end()) types_.emplace(topic, type);
  auto& c = counts_[topic];
  ++c.messages;
  c.bytes += size;
  c.last_seen_ns = Node::WallNowNs();
  if (header->latched()) latched_[topic].assign(data, data + size);
  if (topic == "faults") HandleFaultCommand(data, size);
  if (topic == "clock" && ObserveRunClock(data, size) && comm_faults_.delayed_count() > 0) {
    // The run clock advanced: what a delay held until now goes out just before the Clock that releases
    // it, so every receiver has it before any step of that tick runs, whatever the transport.
    out->clear();
    comm_faults_.Expire(run_clock_s_);
    comm_faults_.Release(run_clock_s_, out);
    if (!out->empty()) {
      out->push_back(CommOutgoing{topic, std::vector<uint8_t>(data, data + size)});
      return Verdict::kFaulted;
    }
  }
  if (!comm_faults_.Affects(topic)) return Verdict::kForward;
  out->clear();
  comm_faults_.Process(FaultClockS(), topic, data, size, out);
  return Verdict::kFaulted;
}

void Forwarding::DeclareType(const std::string& topic, const std::string& type_name) {
  const messages::MessageType* type = messages::FindByName(type_name);
  if (type == nullptr) throw std::invalid_argument("unknown message type '" + type_name + "' for topic " + topic);
  types_[topic] = type;
}

double Forwarding::FaultClockS() const {
  if (run_clock_) return run_clock_s_;
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - started_).count();
}

bool Forwarding::ObserveRunClock(const uint8_t* data, size_t size) {
  if (messages::IdentifierOf(data, size) != std::string_view(messages::Traits<msg::Clock>::kIdentifier)) return false;
  const auto* clock = flatbuffers::GetRoot<msg::Clock>(data);
  if (!clock->lockstep()) return false;
  if (!run_clock_) {
    // From the first lockstep Clock on (a probe: time 0), the run clock replaces the steady one. A rule
    // added before it kept max(start_s, steady time) as its start: send faults once the run is probing.
    run_clock_ = true;
    run_clock_s_ = 0.0;
  }
  // Stamps are the tick's simulated time (tick x period); probes (tick -1) carry 0. Never backwards.
  if (!clock->probe() && clock->header() != nullptr) {
    run_clock_s_ = std::max(run_clock_s_, static_cast<double>(clock->header()->stamp_ns()) * 1e-9);
  }
  return true;
}

void Forwarding::HandleFaultCommand(const uint8_t* data, size_t size) {
  if (messages::IdentifierOf(data, size) != std::string_view(messages::Traits<msg::FaultCommand>::kIdentifier)) return;
  const auto* command = flatbuffers::GetRoot<msg::FaultCommand>(data);
  const std::string id = command->id() ? command->id()->str() : "";
  if (command->clear()) {
    if (id.empty()) comm_faults_.ClearAll();
    else comm_faults_.Clear(id);
    return;
  }
  auto rule = CommFaultFromMsg(*command);
  if (!rule) return;  // not a communication fault: hwio's or a service's
  std::string reason = rule->topic == "faults" ? "the faults topic itself cannot be faulted" : "";
  if (reason.empty() && comm_faults_.Add(*rule, FaultClockS(), &reason)) {
    LIMBIC_LOG(kInfo) << "communication fault '" << id << "' on '" << rule->topic << "' active";
  } else {
    LIMBIC_LOG(kWarning) << "rejected communication fault '" << id << "': " << reason;
  }
}

std::chrono::milliseconds Forwarding::ReleaseDelayed(std::chrono::milliseconds timeout,
                                                     std::vector<CommOutgoing>* out) {
  out->clear();
  if (comm_faults_.rule_count() == 0 && comm_faults_.delayed_count() == 0) return timeout;
  const double now = FaultClockS();
  comm_faults_.Expire(now);
  comm_faults_.Release(now, out);
  if (const auto next = comm_faults_.NextRelease()) {
    const auto wait = std::chrono::milliseconds(static_cast<int64_t>(std::ceil((*next - now) * 1000.0)));
    timeout = std::clamp(wait, std::chrono::milliseconds(0), timeout);
  }
  return timeout;
}

void Forwarding::BuildStats(flatbuffers::FlatBufferBuilder& fbb) {
  auto TypeOf = [&](const std::string& topic) -> const char* {
    auto it = types_.find(topic);
    return it == types_.end() ? "" : it->second->name;
  };
  fbb.Clear();
  auto header = msg::CreateHeaderDirect(fbb, Node::WallNowNs(), -1, ++stats_seq_, "bus", false, incarnation_);
  std::vector<flatbuffers::Offset<msg::TopicStats>> topics;
  const auto& fault_counts = comm_faults_.counters();
  for (const auto& [topic, c] : counts_) {
    const auto f = fault_counts.find(topic);
    const CommFaultCounters faults = f == fault_counts.end() ? CommFaultCounters{} : f->second;
    topics.push_back(msg::CreateTopicStatsDirect(fbb, topic.c_str(), TypeOf(topic), "broker", c.messages, c.bytes,
                                                 c.drops_malformed, c.drops_wrong_type, c.drops_oversize,
                                                 c.drops_gap, c.duplicates, c.last_seen_ns,
                                                 faults.dropped + faults.overflowed, faults.delayed,
                                                 faults.duplicated, faults.corrupted, c.drops_invalid));
  }
  auto vector = fbb.CreateVector(topics);
  fbb.Finish(msg::CreateBusStats(fbb, header, vector, 0, static_cast<int>(latched_.size())),
             messages::Traits<msg::BusStats>::kIdentifier);
}

void Forwarding::BuildHeartbeat(flatbuffers::FlatBufferBuilder& fbb, uint64_t forwarded, uint64_t rejected_clients) {
  fbb.Clear();
  auto header = msg::CreateHeaderDirect(fbb, Node::WallNowNs(), -1, ++heartbeat_seq_, "bus", false, incarnation_);
  const double uptime = std::chrono::duration<double>(std::chrono::steady_clock::now() - started_).count();
  std::vector<flatbuffers::Offset<msg::Counter>> counters{
      msg::CreateCounterDirect(fbb, "forwarded", static_cast<double>(forwarded)),
      msg::CreateCounterDirect(fbb, "latched_topics", static_cast<double>(latched_.size())),
      msg::CreateCounterDirect(fbb, "rejected_clients", static_cast<double>(rejected_clients))};
  auto hb = msg::CreateHeartbeatDirect(fbb, header, "bus", msg::ServiceState::Running, "realtime", -1, uptime, 0, 0,
                                       0, nullptr, 0, &counters, nullptr, static_cast<int>(getpid()));
  fbb.Finish(hb, messages::Traits<msg::Heartbeat>::kIdentifier);
}

}  // namespace limbic::bus
