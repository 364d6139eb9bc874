#include "common/bus/comm_faults.hpp"

#include <algorithm>
#include <cmath>

#include "messages/messages.hpp"

namespace limbic::bus {

CommFaults::CommFaults(CommFaultsOptions options) : options_(options) {}

bool CommFaults::Add(CommFaultRule rule, double now_s, std::string* reason) {
  auto fail = [&](const std::string& why) {
    if (reason) *reason = why;
    return false;
  };
  if (rule.topic.empty()) return fail("a communication fault needs a topic");
  if (!(rule.probability >= 0.0 && rule.probability <= 1.0)) return fail("probability must be in [0, 1]");
  if (rule.kind == CommFaultKind::kDelay) {
    if (!(rule.delay_s > 0.0) || !std::isfinite(rule.delay_s)) return fail("a delay must be positive");
    if (rule.probability == 0.0) rule.probability = 1.0;  // unset: every message
  } else if (rule.probability == 0.0) {
    return fail("probability must be above 0");
  }
  if (rule.kind == CommFaultKind::kCorrupt && rule.corrupt_bytes < 1) rule.corrupt_bytes = 1;
  if (!(rule.duration_s >= 0.0)) return fail("duration must be >= 0");
  ActiveRule active{std::move(rule), 0.0, {}};
  active.start = std::max(active.rule.start_s, now_s);
  active.rng.seed(active.rule.seed);
  const std::string id = active.rule.id;
  rules_.insert_or_assign(id, std::move(active));
  Reindex();
  return true;
}

void CommFaults::Clear(const std::string& id) {
  if (rules_.erase(id)) Reindex();
}

void CommFaults::ClearAll() {
  rules_.clear();
  rules_by_topic_.clear();
}

void CommFaults::Expire(double now_s) {
  bool changed = false;
  for (auto it = rules_.begin(); it != rules_.end();) {
    const auto& r = it->second;
    if (r.rule.duration_s > 0.0 && now_s >= r.start + r.rule.duration_s) {
      it = rules_.erase(it);
      changed = true;
    } else {
      ++it;
    }
  }
  if (changed) Reindex();
}

void CommFaults::Reindex() {
  rules_by_topic_.clear();
  for (const auto& [id, r] : rules_) rules_by_topic_[r.rule.topic].push_back(id);
}

bool CommFaults::Active(const ActiveRule& r, double now_s) const {
  return now_s >= r.start && (r.rule.duration_s <= 0.0 || now_s < r.start + r.rule.duration_s);
}

void CommFaults::Process(double now_s, const std::string& topic, const uint8_t* data, size_t size,
                         std::vector<CommOutgoing>* out) {
  auto found = rules_by_topic_.find(topic);
  if (found == rules_by_topic_.end()) {
    out->push_back({topic, std::vector<uint8_t>(data, data + size)});
    return;
  }
  auto& counters = counters_[topic];
  // Each active rule draws from its own generator once per message (plus corrupt positions), in a fixed
  // order: drop, corrupt, duplicate, delay. A dropped message draws nothing from the later rules.
  std::vector<ActiveRule*> by_kind[4];
  for (const auto& id : found->second) {
    ActiveRule& r = rules_.at(id);
    if (Active(r, now_s)) by_kind[static_cast<int>(r.rule.kind)].push_back(&r);
  }
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  for (ActiveRule* r : by_kind[static_cast<int>(CommFaultKind::kDrop)]) {
    if (unit(r->rng) < r->rule.probability) {
      ++counters.dropped;
      return;
    }
  }
  std::vector<uint8_t> payload(data, data + size);
  for (ActiveRule* r : by_kind[static_cast<int>(CommFaultKind::kCorrupt)]) {
    if (unit(r->rng) < r->rule.probability && !payload.empty()) {
      std::uniform_int_distribution<size_t> position(0, payload.size() - 1);
      std::uniform_int_distribution<int> mask(1, 255);  // never 0: the byte always changes
      for (int i = 0; i < r->rule.corrupt_bytes; ++i) payload[position(r->rng)] ^= static_cast<uint8_t>(mask(r->rng));
      ++counters.corrupted;
    }
  }
  int copies = 1;
  for (ActiveRule* r : by_kind[static_cast<int>(CommFaultKind::kDuplicate)]) {
    if (unit(r->rng) < r->rule.probability) {
      copies = 2;
      ++counters.duplicated;
    }
  }
  double delay = 0.0;
  for (ActiveRule* r : by_kind[static_cast<int>(CommFaultKind::kDelay)]) {
    if (unit(r->rng) < r->rule.probability) delay = std::max(delay, r->rule.delay_s);
  }
  for (int c = 0; c < copies; ++c) {
    if (delay > 0.0) {
      if (delayed_.size() >= options_.max_delayed) {
        ++counters.overflowed;
        continue;
      }
      ++counters.delayed;
      delayed_.emplace(now_s + delay, CommOutgoing{topic, payload});
    } else {
      out->push_back({topic, payload});
    }
  }
}

void CommFaults::Release(double now_s, std::vector<CommOutgoing>* out) {
  auto end = delayed_.upper_bound(now_s);
  for (auto it = delayed_.begin(); it != end; ++it) out->push_back(std::move(it->second));
  delayed_.erase(delayed_.begin(), end);
}

std::optional<double> CommFaults::NextRelease() const {
  if (delayed_.empty()) return std::nullopt;
  return delayed_.begin()->first;
}

std::optional<CommFaultRule> CommFaultFromMsg(const msg::FaultCommand& command) {
  if (command.clear()) return std::nullopt;
  CommFaultRule rule;
  switch (command.kind()) {
    case msg::FaultKind::CommDrop:
      rule.kind = CommFaultKind::kDrop;
      break;
    case msg::FaultKind::CommDelay:
      rule.kind = CommFaultKind::kDelay;
      break;
    case msg::FaultKind::CommDuplicate:
      rule.kind = CommFaultKind::kDuplicate;
      break;
    case msg::FaultKind::CommCorrupt:
      rule.kind = CommFaultKind::kCorrupt;
      break;
    default:
      return std::nullopt;
  }
  rule.id = command.id() ? command.id()->str() : "";
  rule.topic = command.topic() ? command.topic()->str() : "";
  rule.probability = command.probability();
  if (rule.kind == CommFaultKind::kDelay) rule.delay_s = command.magnitude();
  if (rule.kind == CommFaultKind::kCorrupt && command.magnitude() >= 1.0) {
    rule.corrupt_bytes = static_cast<int>(std::min(command.magnitude(), 1e6));
  }
  rule.start_s = command.start_s();
  rule.duration_s = command.duration_s();
  rule.seed = command.seed();
  return rule;
}

}  // namespace limbic::bus
