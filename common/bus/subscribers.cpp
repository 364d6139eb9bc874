#include "common/bus/subscribers.hpp"

#include "common/bus/bus.hpp"

namespace limbic::bus {

SubscriberTable::SubscriberTable(SubscriberLimits limits) : limits_(limits) {}

SubscriberTable::Subscribed SubscriberTable::Subscribe(const std::string& id, const std::string& prefix) {
  auto it = subscribers_.find(id);
  if (it == subscribers_.end()) {
    if (subscribers_.size() >= limits_.max_subscribers) {
      ++refused_;
      return Subscribed::kRefused;
    }
    it = subscribers_.emplace(id, std::make_unique<Subscriber>()).first;
    it->second->id = id;
  }
  Subscriber& s = *it->second;
  if (s.prefixes.count(prefix)) return Subscribed::kRepeated;
  if (s.prefixes.size() >= limits_.max_prefixes) {
    ++refused_;
    return Subscribed::kRefused;
  }
  s.prefixes.insert(prefix);
  matching_.clear();
  return Subscribed::kNew;
}

void SubscriberTable::Unsubscribe(const std::string& id, const std::string& prefix) {
  auto it = subscribers_.find(id);
  if (it == subscribers_.end()) return;
  if (it->second->prefixes.erase(prefix)) matching_.clear();
}

bool SubscriberTable::ReplayNow(Subscriber& s, const std::string& prefix, std::chrono::steady_clock::time_point now) {
  auto last = s.last_replay.find(prefix);
  if (last != s.last_replay.end() && now - last->second < limits_.replay_holdoff) {
    if (s.deferred.insert(prefix).second) {
      ++deferred_count_;
      ++replays_deferred_;
    }
    return false;
  }
  s.last_replay[prefix] = now;
  return true;
}

void SubscriberTable::AgeReplays(std::chrono::steady_clock::time_point now) {
  for (auto& [id, s] : subscribers_) {
    for (auto it = s->last_replay.begin(); it != s->last_replay.end();) {
      const bool stale = now - it->second >= limits_.replay_holdoff && !s->deferred.count(it->first);
      it = stale ? s->last_replay.erase(it) : std::next(it);
    }
  }
}

bool SubscriberTable::Remove(const std::string& id) {
  auto it = subscribers_.find(id);
  if (it == subscribers_.end()) return false;
  deferred_count_ -= it->second->deferred.size();
  subscribers_.erase(it);
  ++departed_;
  matching_.clear();
  return true;
}

SubscriberTable::Subscriber* SubscriberTable::Find(const std::string& id) {
  auto it = subscribers_.find(id);
  return it == subscribers_.end() ? nullptr : it->second.get();
}

const std::vector<SubscriberTable::Subscriber*>& SubscriberTable::Matching(const std::string& topic) {
  auto cached = matching_.find(topic);
  if (cached != matching_.end()) return cached->second;
  // The cache holds at most as many topics as the broker tracks; a flood of names starts it over.
  if (matching_.size() >= kMaxTrackedTopics) matching_.clear();
  std::vector<Subscriber*> who;
  for (auto& [id, s] : subscribers_) {
    for (const auto& p : s->prefixes) {
      if (topic.compare(0, p.size(), p) == 0) {
        who.push_back(s.get());
        break;
      }
    }
  }
  return matching_.emplace(topic, std::move(who)).first->second;
}

bool SubscriberTable::Admit(Subscriber& s, size_t bytes, bool state) {
  const size_t held = s.account->bytes.load(std::memory_order_relaxed);
  const bool full = limits_.queue_bytes > 0 && held + bytes > limits_.queue_bytes;
  const bool state_full = state && limits_.queue_bytes > 0 && limits_.state_queue_bytes > 0 &&
                          s.account->state_bytes.load(std::memory_order_relaxed) + bytes > limits_.state_queue_bytes;
  if (full || state_full) {
    ++s.dropped;
    ++dropped_;
    if (state) {
      ++s.dropped_state;
      ++dropped_state_;
    }
    return false;
  }
  s.account->bytes.fetch_add(bytes, std::memory_order_relaxed);
  if (state) s.account->state_bytes.fetch_add(bytes, std::memory_order_relaxed);
  ++s.delivered;
  return true;
}

size_t SubscriberTable::HeldBytes() const {
  size_t total = 0;
  for (const auto& [id, s] : subscribers_) total += s->account->bytes.load(std::memory_order_relaxed);
  return total;
}

}  // namespace limbic::bus
