#include "tools/limbic/session.hpp"

#include <cstdlib>
#include <stdexcept>

namespace limbic::cli {

std::string DefaultBus() {
  const char* env = std::getenv("LIMBIC_BUS");
  return env ? env : "ipc:///tmp/limbic/bus";
}

Session::Session(const std::string& address, const std::string& name, bus::CurveClientKeys curve)
    : address_(address),
      curve_(curve.enabled()),
      // The tools publish through the broker whatever LIMBIC_BUS_PATH says: `limbic pub` sends once and checks that
      // the message came back through the bus, which a direct publisher's first message does not (its subscribers
      // connect only when the broker has told them where, docs/protocol.md §13).
      node_(context_, address, {.name = name, .curve = std::move(curve), .data_path = bus::DataPath::kBroker}) {
  node_.Subscribe<msg::BusStats>("bus/stats", [this](const bus::Message<msg::BusStats>& m) {
    topics_.clear();
    if (m.msg.topics()) {
      for (const auto* t : *m.msg.topics()) {
        TopicInfo info;
        info.type = t->type() ? t->type()->str() : "";
        info.messages = t->messages();
        info.bytes = t->bytes();
        info.drops_malformed = t->drops_malformed();
        info.drops_wrong_type = t->drops_wrong_type();
        info.drops_oversize = t->drops_oversize();
        info.drops_invalid = t->drops_invalid();
        info.drops_fault = t->fault_drops();
        info.last_seen_ns = t->last_seen_ns();
        if (t->publishers()) {
          for (const auto* source : *t->publishers()) info.publishers.push_back(source->str());
        }
        info.subscribers = t->subscribers();
        info.drops =
            info.drops_malformed + info.drops_wrong_type + info.drops_oversize + info.drops_invalid + info.drops_fault;
        topics_[t->topic()->str()] = info;
      }
    }
    ++stats_seen_;
  });
}

void Session::WatchReceiveLosses() {
  node_.SubscribeAny("health/", [this](const bus::RawMessage& m) {
    if (std::string_view(m.type.identifier) != messages::Traits<msg::Heartbeat>::kIdentifier) return;
    const auto* hb = flatbuffers::GetRoot<msg::Heartbeat>(m.data);
    auto& lost = losses_[hb->service() ? hb->service()->str() : m.topic];
    lost.clear();
    if (hb->topics() == nullptr) return;
    for (const auto* t : *hb->topics()) {
      if (t->topic() && t->direction() && t->direction()->string_view() == "in") {
        lost[t->topic()->str()] = t->drops_gap() + t->drops_tail();
      }
    }
  });
}

std::map<std::string, uint64_t> Session::ReceiveLosses() const {
  std::map<std::string, uint64_t> total;
  for (const auto& [service, topics] : losses_) {
    for (const auto& [topic, lost] : topics) total[topic] += lost;
  }
  return total;
}

bool Session::NextStats(std::chrono::milliseconds timeout) {
  const uint64_t before = stats_seen_;
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (std::chrono::steady_clock::now() < deadline) {
    node_.Poll(std::chrono::milliseconds(20));
    if (stats_seen_ > before) return true;
  }
  return false;
}

void Session::Connect(std::chrono::milliseconds timeout) {
  if (!NextStats(timeout)) {
    throw std::runtime_error("cannot reach the bus at " + address_ +
                             (curve_ ? " (is limbic-bus running, and are these CURVE keys admitted?)"
                                     : " (is limbic-bus running? set --bus or LIMBIC_BUS; a CURVE broker needs "
                                       "--curve-keys or LIMBIC_CURVE_KEYS)"));
  }
}

std::vector<std::string> Session::SimilarTopics(const std::string& topic) const {
  const bool internal = topic.rfind(bus::kHighWaterPrefix, 0) == 0;
  std::vector<std::string> close;
  for (const auto& [name, info] : topics_) {
    if (!internal && name.rfind(bus::kHighWaterPrefix, 0) == 0) continue;
    if (name.find(topic) != std::string::npos || topic.find(name) != std::string::npos) close.push_back(name);
  }
  return close;
}

}  // namespace limbic::cli
