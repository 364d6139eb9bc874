#include "common/bus/forwarding.hpp"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <stdexcept>

#include "messages/validate.hpp"

namespace limbic::bus {

void AddCounts(TopicCounters& sum, const TopicCounters& c) {
  sum.messages += c.messages;
  sum.bytes += c.bytes;
  sum.drops_malformed += c.drops_malformed;
  sum.drops_wrong_type += c.drops_wrong_type;
  sum.drops_oversize += c.drops_oversize;
  sum.drops_gap += c.drops_gap;
  sum.drops_invalid += c.drops_invalid;
  sum.drops_tail += c.drops_tail;
  sum.duplicates += c.duplicates;
}

Forwarding::Forwarding(size_t max_payload, ForwardingLimits limits) : max_payload_(max_payload), limits_(limits) {
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
  last_drop_ns_[key] = Node::WallNowNs();  // a topic with only bad traffic is not idle either
  uint64_t suppressed = 0;
  if (drop_log_[key].Allow(&suppressed)) {
    LIMBIC_LOG(kWarning) << "dropped a message on '" << topic << "': " << why
                         << (suppressed ? " (" + std::to_string(suppressed) + " more since last report)" : "");
  }
}

Forwarding::Verdict Forwarding::Admit(const std::string& topic, const uint8_t* data, size_t size,
                                      std::vector<CommOutgoing>* out, bool built_and_checked, Hint* hint) {
  if (size > max_payload_) {
    Drop(topic, &TopicCounters::drops_oversize, "payload above the size cap");
    return Verdict::kDrop;
  }
  TopicRefs* const refs = FindRefs(topic, hint);
  // A tracked topic's type is fixed: a payload with its identifier is of that type, without the registry's search.
  const std::string_view identifier = messages::IdentifierOf(data, size);
  const messages::MessageType* type = refs != nullptr && identifier == refs->type->second->identifier
                                          ? refs->type->second
                                          : messages::FindByIdentifier(identifier);
  if (type == nullptr) {
    Drop(topic, &TopicCounters::drops_wrong_type, "unknown buffer identifier");
    return Verdict::kDrop;
  }
  if (!built_and_checked && !type->verify(data, size)) {
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
  const messages::MessageType* expected = nullptr;
  auto known = types_.end();
  if (refs != nullptr) {
    expected = refs->type->second;
  } else if (known = types_.find(topic); known != types_.end()) {
    expected = known->second;
  } else {
    expected = messages::ConventionalType(topic);
  }
  if (expected != nullptr && expected != type) {
    Drop(topic, &TopicCounters::drops_wrong_type,
         ("the topic carries " + std::string(expected->name) + ", got " + type->name).c_str());
    return Verdict::kDrop;
  }
  if (!built_and_checked) {
    if (const std::string invalid = messages::ValidateValues(*type, data, size); !invalid.empty()) {
      Drop(topic, &TopicCounters::drops_invalid, ("invalid value: " + invalid).c_str());
      return Verdict::kDrop;
    }
  }
  if (refs != nullptr) {
    // A known, tracked topic: the same counting, source noting and latching as below, without the lookups.
    TopicCounters& c = *refs->counts;
    ++c.messages;
    c.bytes += size;
    c.last_seen_ns = Node::CoarseWallNowNs();
    NoteSource(*refs->sources, header->source()->string_view(), c.last_seen_ns);
    if (header->latched()) Latch(topic, data, size);
  } else {
    const bool tracked = !Untracked(topic);
    // A full table no longer refuses new topics (it did until the broker restarted): the message goes
    // on, counted in bulk, and AgeTopics makes room again.
    auto& c = counts_[tracked ? topic : std::string(kOverflowTopic)];
    ++c.messages;
    c.bytes += size;
    c.last_seen_ns = Node::CoarseWallNowNs();
    if (!tracked) {
      ++limit_counters_.untracked;
    } else {
      NotePublisher(topic, header->source()->string_view(), c.last_seen_ns);
      if (header->latched()) Latch(topic, data, size);
      if (known == types_.end()) known = types_.emplace(topic, type).first;  // fixed by its first valid message
      const auto added = refs_.emplace(topic, TopicRefs{&c, nullptr, known, &publishers_[topic]}).first;
      added->second.topic = &added->first;
      if (hint != nullptr) *hint = Hint{&added->second, refs_epoch_};
    }
  }
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

Forwarding::TopicRefs* Forwarding::FindRefs(const std::string& topic, Hint* hint) {
  // The elements of an unordered_map stay where they are until erased (a rehash moves none), and every erase
  // counts in refs_epoch_.
  if (hint != nullptr && hint->refs != nullptr && hint->epoch == refs_epoch_ && *hint->refs->topic == topic) {
    return hint->refs;
  }
  const auto it = refs_.find(topic);
  if (it == refs_.end()) return nullptr;
  if (hint != nullptr) *hint = Hint{&it->second, refs_epoch_};
  return &it->second;
}

void Forwarding::DeclareType(const std::string& topic, const std::string& type_name) {
  const messages::MessageType* type = messages::FindByName(type_name);
  if (type == nullptr) throw std::invalid_argument("unknown message type '" + type_name + "' for topic " + topic);
  types_[topic] = type;
}

void Forwarding::Latch(const std::string& topic, const uint8_t* data, size_t size) {
  auto it = latched_.find(topic);
  if (it != latched_.end()) {
    latched_bytes_ -= it->second.payload.size();
    latched_.erase(it);
  }
  if (size > limits_.latched_topic_bytes) {
    // Forwarded, not kept: a late joiner gets it from the publisher's own re-send. The older value is
    // gone too, so nobody is handed a stale one.
    ++limit_counters_.latched_refused;
    return;
  }
  // The oldest stored values go first until the new one fits (a linear scan: it runs only at the cap,
  // over at most kMaxTrackedTopics entries).
  while (!latched_.empty() && latched_bytes_ + size > limits_.latched_total_bytes) {
    auto oldest = latched_.begin();
    for (auto j = latched_.begin(); j != latched_.end(); ++j) {
      if (j->second.order < oldest->second.order) oldest = j;
    }
    latched_bytes_ -= oldest->second.payload.size();
    latched_.erase(oldest);
    ++limit_counters_.latched_evicted;
  }
  // A fresh vector, not assign(): capacity left over from a larger earlier value would escape the count.
  latched_.emplace(topic, LatchedValue{std::vector<uint8_t>(data, data + size), ++latch_order_});
  latched_bytes_ += size;
}

// The bytes of a publisher's name kept (a longer header source is cut): with kMaxPublishersPerTopic the
// broker's memory for names stays bounded (kMaxTrackedTopics x 32 x 64 B) whatever a client sends.
constexpr size_t kMaxPublisherNameBytes = 64;

void Forwarding::NotePublisher(const std::string& topic, std::string_view source, int64_t now_ns) {
  NoteSource(publishers_[topic], source, now_ns);
}

void Forwarding::NoteSource(std::vector<std::pair<std::string, int64_t>>& sources, std::string_view source,
                            int64_t now_ns) {
  source = source.substr(0, kMaxPublisherNameBytes);
  for (auto& [name, last_ns] : sources) {
    if (name == source) {
      last_ns = now_ns;
      return;
    }
  }
  if (sources.size() >= kMaxPublishersPerTopic) {
    sources.erase(std::min_element(sources.begin(), sources.end(),
                                   [](const auto& a, const auto& b) { return a.second < b.second; }));
  }
  sources.emplace_back(std::string(source), now_ns);
}

std::vector<std::string> Forwarding::Publishers(const std::string& topic) const {
  std::vector<std::string> names;
  if (auto it = publishers_.find(topic); it != publishers_.end()) {
    for (const auto& [name, last_ns] : it->second) names.push_back(name);
  }
  std::sort(names.begin(), names.end());
  return names;
}

void Forwarding::ForgetTopic(const std::string& topic) {
  refs_epoch_ += refs_.erase(topic);
  counts_.erase(topic);
  publishers_.erase(topic);
  last_drop_ns_.erase(topic);
  types_.erase(topic);
  drop_log_.erase(topic);
  if (auto it = latched_.find(topic); it != latched_.end()) {
    latched_bytes_ -= it->second.payload.size();
    latched_.erase(it);
  }
}

void Forwarding::AgeTopics(int64_t now_ns) {
  const bool crowded = counts_.size() >= kMaxTrackedTopics * 3 / 4;
  const auto idle_ns = static_cast<int64_t>((crowded ? limits_.topic_idle_s : limits_.topic_ttl_s) * 1e9);
  std::vector<std::string> idle;
  for (const auto& [topic, c] : counts_) {
    // The overflow bucket and the fault topic stay.
    if (topic == kOverflowTopic || topic == "faults") continue;
    const auto dropped = last_drop_ns_.find(topic);
    const int64_t last = std::max(c.last_seen_ns, dropped == last_drop_ns_.end() ? int64_t{0} : dropped->second);
    if (now_ns - last > idle_ns) idle.push_back(topic);
  }
  for (const auto& topic : idle) ForgetTopic(topic);
  limit_counters_.topics_evicted += idle.size();
  // A publisher that went quiet (exited, or stopped sending) leaves the topic's list.
  const auto publisher_idle_ns = static_cast<int64_t>(limits_.publisher_idle_s * 1e9);
  for (auto it = publishers_.begin(); it != publishers_.end();) {
    auto& sources = it->second;
    sources.erase(std::remove_if(sources.begin(), sources.end(),
                                 [&](const auto& s) { return now_ns - s.second > publisher_idle_ns; }),
                  sources.end());
    if (sources.empty()) refs_epoch_ += refs_.erase(it->first);  // its reference to the list would dangle
    it = sources.empty() ? publishers_.erase(it) : std::next(it);
  }
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
    if (id.empty())
      comm_faults_.ClearAll();
    else
      comm_faults_.Clear(id);
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

void Forwarding::BuildStats(flatbuffers::FlatBufferBuilder& fbb, int subscribers,
                            const std::function<int(const std::string&)>& subscribers_of,
                            const std::vector<ReportedTopic>& direct) {
  auto TypeOf = [&](const std::string& topic) -> const char* {
    auto it = types_.find(topic);
    return it == types_.end() ? "" : it->second->name;
  };
  fbb.Clear();
  auto header = msg::CreateHeaderDirect(fbb, Node::WallNowNs(), -1, ++stats_seq_, "bus", false, incarnation_);
  std::vector<flatbuffers::Offset<msg::TopicStats>> topics;
  const auto& fault_counts = comm_faults_.counters();
  std::map<std::string, const ReportedTopic*> direct_of;
  for (const auto& r : direct) direct_of[r.topic] = &r;
  for (const auto& [topic, c] : counts_) {
    const auto f = fault_counts.find(topic);
    const CommFaultCounters faults = f == fault_counts.end() ? CommFaultCounters{} : f->second;
    auto publishers = Publishers(topic);
    // A topic with direct publishers that the broker also carries (a broker-path publisher, a tool's send, a drop
    // it counted): one row with both — the broker's counts and drops, the direct publishers' counts and names, and
    // the drops its receivers reported (what the broker forwarded it had checked, so theirs are the direct path's).
    TopicCounters sum = c;
    const char* direction = "broker";
    if (const auto d = direct_of.find(topic); d != direct_of.end()) {
      const ReportedTopic& r = *d->second;
      sum.messages += r.messages;
      sum.bytes += r.bytes;
      sum.last_seen_ns = std::max(sum.last_seen_ns, r.last_seen_ns);
      AddCounts(sum, r.received);  // its messages and bytes are zero
      for (const auto& name : r.publishers) {
        if (std::find(publishers.begin(), publishers.end(), name) == publishers.end()) publishers.push_back(name);
      }
      if (c.messages == 0) direction = "direct";
    }
    std::vector<flatbuffers::Offset<flatbuffers::String>> names;
    for (const auto& name : publishers) names.push_back(fbb.CreateString(name));
    topics.push_back(msg::CreateTopicStatsDirect(
        fbb, topic.c_str(), TypeOf(topic), direction, sum.messages, sum.bytes, sum.drops_malformed,
        sum.drops_wrong_type, sum.drops_oversize, sum.drops_gap, sum.duplicates, sum.last_seen_ns,
        faults.dropped + faults.overflowed, faults.delayed, faults.duplicated, faults.corrupted, sum.drops_invalid,
        &names, subscribers_of ? subscribers_of(topic) : 0, sum.drops_tail));
  }
  for (const auto& r : direct) {
    if (counts_.count(r.topic)) continue;
    std::vector<flatbuffers::Offset<flatbuffers::String>> names;
    for (const auto& name : r.publishers) names.push_back(fbb.CreateString(name));
    const TopicCounters& d = r.received;
    topics.push_back(msg::CreateTopicStatsDirect(
        fbb, r.topic.c_str(), r.type != nullptr ? r.type : TypeOf(r.topic), "direct", r.messages, r.bytes,
        d.drops_malformed, d.drops_wrong_type, d.drops_oversize, d.drops_gap, d.duplicates, r.last_seen_ns, 0, 0, 0, 0,
        d.drops_invalid, &names, subscribers_of ? subscribers_of(r.topic) : 0, d.drops_tail));
  }
  auto vector = fbb.CreateVector(topics);
  fbb.Finish(msg::CreateBusStats(fbb, header, vector, subscribers, static_cast<int>(latched_.size())),
             messages::Traits<msg::BusStats>::kIdentifier);
}

void Forwarding::BuildHeartbeat(flatbuffers::FlatBufferBuilder& fbb, uint64_t forwarded, uint64_t rejected_clients,
                                const std::vector<std::pair<std::string, double>>& extra) {
  fbb.Clear();
  auto header = msg::CreateHeaderDirect(fbb, Node::WallNowNs(), -1, ++heartbeat_seq_, "bus", false, incarnation_);
  const double uptime = std::chrono::duration<double>(std::chrono::steady_clock::now() - started_).count();
  std::vector<flatbuffers::Offset<msg::Counter>> counters{
      msg::CreateCounterDirect(fbb, "forwarded", static_cast<double>(forwarded)),
      msg::CreateCounterDirect(fbb, "latched_topics", static_cast<double>(latched_.size())),
      msg::CreateCounterDirect(fbb, "rejected_clients", static_cast<double>(rejected_clients)),
      msg::CreateCounterDirect(fbb, "topics", static_cast<double>(counts_.size())),
      msg::CreateCounterDirect(fbb, "topics_evicted", static_cast<double>(limit_counters_.topics_evicted)),
      msg::CreateCounterDirect(fbb, "untracked_messages", static_cast<double>(limit_counters_.untracked)),
      msg::CreateCounterDirect(fbb, "latched_bytes", static_cast<double>(latched_bytes_)),
      msg::CreateCounterDirect(fbb, "latched_evicted", static_cast<double>(limit_counters_.latched_evicted)),
      msg::CreateCounterDirect(fbb, "latched_refused", static_cast<double>(limit_counters_.latched_refused))};
  for (const auto& [name, value] : extra) counters.push_back(msg::CreateCounterDirect(fbb, name.c_str(), value));
  auto hb = msg::CreateHeartbeatDirect(fbb, header, "bus", msg::ServiceState::Running, "realtime", -1, uptime, 0, 0, 0,
                                       nullptr, 0, &counters, nullptr, static_cast<int>(getpid()));
  fbb.Finish(hb, messages::Traits<msg::Heartbeat>::kIdentifier);
}

}  // namespace limbic::bus
