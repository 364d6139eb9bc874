// Node's side of the high-water reports (issue 23 item 3; docs/protocol.md "Losses"): sending one per published
// topic, and counting the tail losses a received one confirms. Apart from bus.cpp so that the per-message path
// there (MakeHeader, Dispatch) is compiled as it was: with a second caller of msg::CreateHeader in the same file,
// GCC stopped inlining it into MakeHeader (+48 instructions per published message under callgrind).
#include <algorithm>

#include "common/bus/bus.hpp"

namespace limbic::bus {
namespace {

// One HighWaterReport on `topic` into `fbb`, numbered by the topic's own report sequence (subscribers tell a lost
// report from a late one): a periodic report (header tick 0), a welcome (kWelcomeTick) or a lockstep tick report
// (`tick_done` >= 0, header tick the same).
void BuildReport(flatbuffers::FlatBufferBuilder& fbb, uint64_t& report_seq, const std::string& source,
                 uint64_t incarnation, int64_t header_tick, const std::string& topic, uint64_t last_seq,
                 bool marks_ticks, int64_t tick_done) {
  fbb.Clear();
  const auto header = msg::CreateHeader(fbb, Node::WallNowNs(), header_tick, ++report_seq, fbb.CreateString(source),
                                        /*latched=*/false, incarnation);
  fbb.Finish(msg::CreateHighWaterReport(fbb, header, fbb.CreateString(topic), last_seq, marks_ticks, tick_done),
             messages::Traits<msg::HighWaterReport>::kIdentifier);
}

// The report on `report_topic` (kHighWaterPrefix + its topic), never blocking: the same socket as the topic's data,
// so it leaves behind every message it speaks for.
void SendReport(zmq::socket_t& out, const std::string& report_topic, const flatbuffers::FlatBufferBuilder& fbb) {
  out.send(zmq::buffer(report_topic), zmq::send_flags::sndmore | zmq::send_flags::dontwait);
  out.send(zmq::const_buffer(fbb.GetBufferPointer(), fbb.GetSize()), zmq::send_flags::dontwait);
}

}  // namespace

void Node::SendHighWaterReports() {
  if (local_mode_) return;  // nothing is lost in process
  std::string topic(kHighWaterPrefix);
  for (auto& slot : publishers_) {
    if (slot.seq == 0) continue;  // nothing published yet
    BuildReport(fbb_, high_water_seq_[slot.topic], options_.name, incarnation_, 0, slot.topic, slot.seq, false, -1);
    topic.resize(kHighWaterPrefix.size());
    topic += slot.topic;
    // Not counted as sent on the topic (nor as a topic of this node's own). On the direct path: its data socket,
    // where subscribers subscribed bus/hwm/T beside T.
    SendReport(slot.direct ? data_pub_ : pub_, topic, fbb_);
    if (send_observer_) send_observer_(topic, nullptr);
  }
}

bool Node::SendWelcome(std::string_view topic) {
  std::string report_topic(kHighWaterPrefix);
  report_topic += topic;
  bool sent = false;
  for (auto& slot : publishers_) {
    if (!slot.direct || slot.topic != topic) continue;
    sent = true;
    // As a periodic report (its own sequence, the last seq sent, behind the data), stamped kWelcomeTick.
    BuildReport(fbb_, high_water_seq_[slot.topic], options_.name, incarnation_, kWelcomeTick, slot.topic, slot.seq,
                marks_ticks_, -1);
    SendReport(data_pub_, report_topic, fbb_);
    if (send_observer_) send_observer_(report_topic, nullptr);
  }
  return sent;
}

void Node::SendTickDone(int64_t tick) {
  if (local_mode_) return;  // in process, a delivery is a call: nothing can overtake it
  std::string topic(kHighWaterPrefix);
  for (auto& slot : publishers_) {
    if (!slot.direct) continue;  // the broker path keeps the order with `clock` itself (one pipe from the broker)
    // As a periodic report (its own sequence, the last seq sent, behind the data), with the tick it closes.
    BuildReport(fbb_, high_water_seq_[slot.topic], options_.name, incarnation_, tick, slot.topic, slot.seq,
                marks_ticks_, tick);
    topic.resize(kHighWaterPrefix.size());
    topic += slot.topic;
    SendReport(data_pub_, topic, fbb_);
    if (send_observer_) send_observer_(topic, nullptr);
  }
}

bool Node::TickDone(const std::string& topic, int64_t tick, std::string* waiting) const {
  // Most nodes have no direct publisher that marks ticks (every node of an in-process run): no hash of the topic.
  if (tick_marks_.empty()) return true;
  auto it = tick_marks_.find(topic);
  if (it == tick_marks_.end()) return true;
  bool done = true;
  for (const auto& [source, mark] : it->second) {
    if (mark.tick >= tick) continue;
    done = false;
    if (waiting == nullptr) break;
    *waiting += (waiting->empty() ? "" : ", ") + topic + " from " + source + " (tick " + std::to_string(mark.tick) +
                " reported)";
  }
  return done;
}

void Node::HandleReport(const std::string& topic, const uint8_t* data, size_t size, bool admitted,
                        const std::shared_ptr<const std::vector<uint8_t>>* shared) {
  const std::string_view reported = std::string_view(topic).substr(kHighWaterPrefix.size());
  // Counted for a topic this node receives (the broker's prefix match also brings "bus/hwm/r1/scanner" to a
  // subscriber of "r1/scan"); handed on to subscriptions that asked for reports by name.
  bool tracked = false;
  bool asked = false;
  for (const auto& s : subscriptions_) {
    if (s.exact ? reported == s.topic : reported.starts_with(s.topic)) tracked = true;
    if (s.topic.starts_with("bus/hwm") && (s.exact ? topic == s.topic : topic.starts_with(s.topic))) asked = true;
  }
  if (!tracked && !asked) return;
  if (size > messages::kMaxPayloadBytes) {
    CountDrop(topic, &TopicCounters::drops_oversize, "payload above the size cap");
    return;
  }
  const messages::MessageType* type = messages::FindByIdentifier(messages::IdentifierOf(data, size));
  if (type == nullptr || std::string_view(type->identifier) != messages::Traits<msg::HighWaterReport>::kIdentifier) {
    CountDrop(topic, &TopicCounters::drops_wrong_type, "expected a HighWaterReport (HWMR)");
    return;
  }
  if (!admitted && !type->verify(data, size)) {
    CountDrop(topic, &TopicCounters::drops_malformed, "failed FlatBuffers verification");
    return;
  }
  if (!admitted) {
    if (const std::string invalid = messages::ValidateValues(*type, data, size); !invalid.empty()) {
      CountDrop(topic, &TopicCounters::drops_invalid, ("invalid value: " + invalid).c_str());
      return;
    }
  }
  const auto* report = flatbuffers::GetRoot<msg::HighWaterReport>(data);
  const msg::Header* header = report->header();
  if (header == nullptr || header->source() == nullptr || report->topic() == nullptr) {
    CountDrop(topic, &TopicCounters::drops_malformed, "a report without a header or topic");
    return;
  }
  if (report->topic()->string_view() != reported) {
    CountDrop(topic, &TopicCounters::drops_malformed, "a report about another topic than its own");
    return;
  }
  if (tracked && header->tick() == kWelcomeTick) {
    // A direct publisher has applied our subscription to `reported` (DirectLinksReady).
    auto it = welcomed_.find(reported);
    if (it == welcomed_.end() && links_.EndpointsOf(std::string(reported)) > 0) {
      it = welcomed_.emplace(std::string(reported), std::set<std::string>{}).first;
    }
    if (it != welcomed_.end() && it->second.size() < kMaxWelcomes) {
      it->second.insert(header->source()->str() + '\0' + std::to_string(header->incarnation()));
    }
  }
  if (tracked && header->tick() == kWelcomeTick && report->marks_ticks()) {
    // A lockstep participant: its tick reports are waited for from now on (TickDone). A welcome again from the same
    // incarnation (the re-welcome, a second subscription) keeps the tick it has reported.
    auto marks = tick_marks_.find(reported);
    if (marks == tick_marks_.end() && welcomed_.count(reported)) {
      marks = tick_marks_.emplace(std::string(reported), std::map<std::string, TickMark, std::less<>>{}).first;
    }
    if (marks != tick_marks_.end()) {
      auto& by_source = marks->second;
      auto mark = by_source.find(header->source()->string_view());
      if (mark == by_source.end() && by_source.size() < kMaxWelcomes) {
        by_source.emplace(header->source()->str(), TickMark{header->incarnation(), -1});
      } else if (mark != by_source.end() && mark->second.incarnation != header->incarnation()) {
        mark->second = TickMark{header->incarnation(), -1};  // restarted: the old incarnation reports no more
      }
    }
  }
  if (tracked && report->tick_done() >= 0) {
    if (auto marks = tick_marks_.find(reported); marks != tick_marks_.end()) {
      auto mark = marks->second.find(header->source()->string_view());
      if (mark != marks->second.end() && mark->second.incarnation == header->incarnation()) {
        mark->second.tick = std::max(mark->second.tick, report->tick_done());
      }
    }
  }
  if (tracked) {
    const SequenceTracker::Outcome seq =
        sequences_.OnReport(reported, header->source()->string_view(), header->incarnation(), report->last_seq());
    if (seq.tail > 0) Received(std::string(reported)).drops_tail += seq.tail;
  }
  if (!asked) return;
  const RawMessage raw{topic, *type, *header, data, size, shared};
  for (const auto& s : subscriptions_) {
    if (!s.topic.starts_with("bus/hwm") || !(s.exact ? topic == s.topic : topic.starts_with(s.topic))) continue;
    try {
      s.handler(raw);
    } catch (const std::exception& e) {
      LIMBIC_LOG(kError) << "handler for '" << topic << "' threw: " << e.what();
    }
  }
}

}  // namespace limbic::bus
