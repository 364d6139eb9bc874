// The broker's table of subscribers (issue 16): who is connected, what each subscribed to, and how
// many bytes the broker holds for each. No transport here: the ZeroMQ broker (broker.hpp) keys it by
// ROUTER routing id and calls it for every subscription, delivery and departure.
//
// Byte bound: a message is admitted for a subscriber only if what the broker already holds for it
// plus the message (payload + topic + kMessageOverhead) stays within `queue_bytes`; otherwise it is
// dropped for that subscriber alone and counted (drop-newest, as ZeroMQ's high-water mark did). The
// bytes held are released when the transport has finished with the message (written to the socket,
// or discarded when the subscriber left) — from whichever thread that happens on, hence the atomic.
#pragma once

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

namespace limbic::bus {

struct SubscriberLimits {
  size_t queue_bytes = 64u << 20;  // per subscriber; 0 = no limit (an in-process lockstep run never drops)
  // Of that, at most this much state (message_class.hpp: values where only the latest matters); events have
  // the whole queue_bytes. A subscriber that falls behind loses state first (counted), events only when the
  // whole queue is full. 0 = no separate bound for state. Ignored when queue_bytes is 0.
  size_t state_queue_bytes = 8u << 20;
  size_t max_subscribers = 4096;  // a new one beyond it is refused (counted) until one leaves
  size_t max_prefixes = 1024;     // subscriptions one subscriber may hold
  // A subscriber that unsubscribes and subscribes to a prefix again within this of its last replay of
  // that prefix gets the next one when it has passed (once): a client cycling its subscription cannot
  // make the broker copy the latched store over and over. Other subscribers are not affected.
  std::chrono::milliseconds replay_holdoff{1000};
};

// What ZeroMQ spends on one queued message besides its bytes (message, content and pipe entries):
// counted so that a queue of tiny messages is bounded in real memory too.
inline constexpr size_t kMessageOverhead = 128;

class SubscriberTable {
 public:
  // Bytes held for one subscriber. Shared with the messages in flight: it outlives the subscriber's
  // entry while the transport still holds some of its messages.
  struct Account {
    std::atomic<size_t> bytes{0};
    std::atomic<size_t> state_bytes{0};  // the part of `bytes` that is state
  };
  struct Subscriber {
    std::string id;
    std::set<std::string> prefixes;
    std::shared_ptr<Account> account = std::make_shared<Account>();
    uint64_t delivered = 0;
    uint64_t dropped = 0;        // over its byte budget (state and events)
    uint64_t dropped_state = 0;  // of those, state over its state budget or the whole one
    uint64_t replays = 0;        // subscriptions that found latched values
    std::map<std::string, std::chrono::steady_clock::time_point> last_replay;  // per prefix
    std::set<std::string> deferred;                                            // replays waiting for their holdoff
  };
  enum class Subscribed {
    kNew,       // a new subscription: replay the latched values under it to this subscriber
    kRepeated,  // it already had it: nothing to replay
    kRefused,   // too many subscribers or prefixes (counted)
  };

  explicit SubscriberTable(SubscriberLimits limits = {});

  Subscribed Subscribe(const std::string& id, const std::string& prefix);
  void Unsubscribe(const std::string& id, const std::string& prefix);
  // Should the latched values under `prefix` (just subscribed, Subscribed::kNew) be replayed to `s`
  // now? No: deferred (counted) until the holdoff since its last replay of that prefix has passed.
  bool ReplayNow(Subscriber& s, const std::string& prefix, std::chrono::steady_clock::time_point now);
  // Calls fn(subscriber, prefix) for each deferred replay now due and still subscribed.
  template <typename Fn>
  void ForEachDueReplay(std::chrono::steady_clock::time_point now, Fn&& fn) {
    if (deferred_count_ == 0) return;
    for (auto& [id, s] : subscribers_) {
      for (auto it = s->deferred.begin(); it != s->deferred.end();) {
        auto& last = s->last_replay[*it];
        if (now - last < limits_.replay_holdoff) {
          ++it;
          continue;
        }
        last = now;
        const std::string prefix = *it;
        it = s->deferred.erase(it);
        --deferred_count_;
        if (s->prefixes.count(prefix)) fn(*s, prefix);
      }
    }
  }
  // Forgets replay times older than the holdoff (called now and then).
  void AgeReplays(std::chrono::steady_clock::time_point now);
  // It left (the transport could not reach it): its entry goes; bytes in flight are released by the
  // transport as it discards them.
  bool Remove(const std::string& id);
  Subscriber* Find(const std::string& id);
  // Subscribers whose subscriptions match `topic` (prefix match, each once). Valid until the next
  // change to the table.
  const std::vector<Subscriber*>& Matching(const std::string& topic);

  // May `bytes` more be held for `s` (`state`: a state message, within state_queue_bytes too)? Yes: they are
  // counted as held (released by Release with the same `state`). No: a drop is counted for `s`.
  bool Admit(Subscriber& s, size_t bytes, bool state = false);
  static void Release(Account& account, size_t bytes, bool state = false) {
    account.bytes.fetch_sub(bytes, std::memory_order_relaxed);
    if (state) account.state_bytes.fetch_sub(bytes, std::memory_order_relaxed);
  }

  size_t size() const { return subscribers_.size(); }
  const SubscriberLimits& limits() const { return limits_; }
  template <typename Fn>
  void ForEach(Fn&& fn) {
    for (auto& [id, s] : subscribers_) fn(*s);
  }
  // Totals for the heartbeat.
  size_t HeldBytes() const;
  uint64_t dropped() const { return dropped_; }
  uint64_t dropped_state() const { return dropped_state_; }
  uint64_t refused() const { return refused_; }
  uint64_t departed() const { return departed_; }
  uint64_t replays_deferred() const { return replays_deferred_; }

 private:
  SubscriberLimits limits_;
  std::unordered_map<std::string, std::unique_ptr<Subscriber>> subscribers_;
  // topic -> who wants it; cleared whenever a subscription or a subscriber changes.
  std::unordered_map<std::string, std::vector<Subscriber*>> matching_;
  uint64_t dropped_ = 0;
  uint64_t dropped_state_ = 0;
  uint64_t refused_ = 0;
  uint64_t departed_ = 0;
  uint64_t replays_deferred_ = 0;
  size_t deferred_count_ = 0;  // entries in every subscriber's `deferred`
};

}  // namespace limbic::bus
