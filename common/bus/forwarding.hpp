// What a broker does with each message, without the transport: verify, count, latch, apply
// communication faults, and describe itself (bus/stats, health/bus). The ZeroMQ broker (broker.hpp)
// and the in-memory exchange for one thread (local_bus.hpp) both forward through it, so the two
// transports drop, count and latch identically.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "common/bus/bus.hpp"
#include "common/bus/comm_faults.hpp"

namespace limbic::bus {

// What a client may make the broker hold (issue 16 finding 2: 4,096 invented names filled the topic
// table for good; one 134 KB snapshot latched under many names took the broker to 608 MB).
struct ForwardingLimits {
  size_t latched_topic_bytes = 8u << 20;   // a larger latched payload is forwarded, not kept
  size_t latched_total_bytes = 64u << 20;  // beyond it the oldest stored latched values are evicted
  // A topic without traffic this long leaves the table once it is three quarters full (latched
  // publishers re-send every second, so a live topic is never idle this long); after topic_ttl_s it
  // leaves whatever the table holds.
  double topic_idle_s = 10.0;
  double topic_ttl_s = 600.0;
  // A publisher (header `source`) not heard on a topic for this long is no longer listed as one
  // (`bus/stats` TopicStats.publishers, `limbic topic info`): a process that exited leaves the list.
  double publisher_idle_s = 10.0;
};

// Publishers named per topic at most (a client inventing a source per message evicts the oldest).
inline constexpr size_t kMaxPublishersPerTopic = 32;

// What the limits did, for the heartbeat and the tests.
struct ForwardingLimitCounters {
  uint64_t topics_evicted = 0;   // aged out of the table
  uint64_t untracked = 0;        // forwarded while the table was full (counted under kOverflowTopic)
  uint64_t latched_evicted = 0;  // oldest latched values dropped to stay under latched_total_bytes
  uint64_t latched_refused = 0;  // latched payloads above latched_topic_bytes (forwarded, not kept)
};

// sum += every count of `c` (messages, bytes, drops by reason, duplicates; last_seen_ns is not a count): the one
// place bus/stats rows are summed (a direct topic's reporters, DirectReports; a topic both paths carry, BuildStats).
void AddCounts(TopicCounters& sum, const TopicCounters& c);

class Forwarding {
  struct TopicRefs;  // below

 public:
  enum class Verdict {
    kDrop,     // bad message: counted and logged
    kForward,  // forward the message as it is
    kFaulted,  // a communication fault applies: forward the copies in `out` instead (maybe none)
  };

  explicit Forwarding(size_t max_payload = messages::kMaxPayloadBytes, ForwardingLimits limits = {});

  // One message from a publisher. A topic's type is declared (DeclareType, or by limbic's topic naming
  // convention: messages::ConventionalType), else fixed by its first valid message: a payload of another
  // type is dropped as `wrong_type`, one whose values break its type's rules (messages/validate.hpp) as
  // `invalid`. While the table holds kMaxTrackedTopics topics, a message on a new topic is still verified
  // and forwarded, but counted under kOverflowTopic and never latched. Handles FaultCommands on `faults`
  // (communication faults).
  // `built_and_checked`: the bytes come straight from a FlatBufferBuilder in this process whose values the
  // typed publisher already checked (bus::Publisher<T>::Publish on a LocalBus) — well-formed by construction
  // and sane by that check, so the verifier and the value rules are not run twice. Everything else (size cap,
  // one type per topic, counts, latching, faults) applies as to any message. Never set for bytes that crossed
  // a process boundary or came from SendRaw.
  // `hint` (optional, one per topic, kept by the caller): where this topic's entries were found last time, so a
  // sender that keeps one per topic (a LocalBus channel) skips the hash lookup; checked before use (the same topic,
  // no entry erased since), found again otherwise. The outcome is the same with or without it.
  struct Hint {
    TopicRefs* refs = nullptr;
    uint64_t epoch = 0;  // refs_epoch_ when found
  };
  Verdict Admit(const std::string& topic, const uint8_t* data, size_t size, std::vector<CommOutgoing>* out,
                bool built_and_checked = false, Hint* hint = nullptr);
  // Fixes `topic`'s type before any traffic (e.g. "limbic.msg.NavGoal" or "NavGoal"). Throws
  // std::invalid_argument for an unknown type.
  void DeclareType(const std::string& topic, const std::string& type_name);
  // Is `topic`'s type fixed (declared, or by a first valid message)? Its conventional type does not count.
  bool HasType(const std::string& topic) const { return types_.count(topic) != 0; }
  // A message whose framing was wrong before a payload could be looked at.
  void Drop(const std::string& topic, uint64_t TopicCounters::*reason, const char* why);
  // Delayed copies now due; returns the time until the next one (capped at `timeout`).
  std::chrono::milliseconds ReleaseDelayed(std::chrono::milliseconds timeout, std::vector<CommOutgoing>* out);

  // Calls fn(topic, payload) for every latched value whose topic starts with `prefix` (a late joiner).
  template <typename Fn>
  void ForEachLatched(const std::string& prefix, Fn&& fn) const {
    for (auto it = latched_.lower_bound(prefix); it != latched_.end(); ++it) {
      if (it->first.compare(0, prefix.size(), prefix) != 0) break;
      fn(it->first, it->second.payload);
    }
  }

  // Ages idle topics out of the table (ForwardingLimits). Called about once a second (the broker's
  // statistics period); `now_ns` is wall time as in TopicCounters::last_seen_ns.
  void AgeTopics(int64_t now_ns);

  // The broker's own messages, built into `fbb` (finished, with identifier). `subscribers`: the host's
  // count; `subscribers_of(topic)`: its subscriber connections covering `topic` (none: 0).
  // `direct`: topics on the direct data path (docs/protocol.md §13, "Counts"), which the broker does not carry, with
  // the counts their publishers and receivers reported in their heartbeats (DirectReports); listed with direction
  // "direct"; a topic the broker has counted too is one row with both added (direction "broker" once the broker has
  // forwarded any of it).
  struct ReportedTopic {
    std::string topic;
    uint64_t messages = 0;
    uint64_t bytes = 0;
    int64_t last_seen_ns = 0;  // when a heartbeat last showed the count grow
    std::vector<std::string> publishers;
    const char* type = nullptr;  // as its publishers declared it (kTopicType); null: the type seen forwarded, if any
    // Summed over its receivers' `in` rows: what they dropped, by reason (gap and tail included), and duplicates.
    // Each receiver counts what reached it, so a bad message sent to n receivers counts n times. Its messages, bytes
    // and last_seen_ns are unused (the publishers' counts above stand for the topic).
    TopicCounters received;
  };
  void BuildStats(flatbuffers::FlatBufferBuilder& fbb, int subscribers = 0,
                  const std::function<int(const std::string&)>& subscribers_of = nullptr,
                  const std::vector<ReportedTopic>& direct = {});
  // `extra`: further counters of the host (the broker's subscriber table).
  void BuildHeartbeat(flatbuffers::FlatBufferBuilder& fbb, uint64_t forwarded, uint64_t rejected_clients,
                      const std::vector<std::pair<std::string, double>>& extra = {});

  const std::map<std::string, TopicCounters>& counts() const { return counts_; }
  // The sources heard on `topic` within ForwardingLimits::publisher_idle_s (as of the last AgeTopics).
  std::vector<std::string> Publishers(const std::string& topic) const;
  size_t latched_topics() const { return latched_.size(); }
  size_t latched_bytes() const { return latched_bytes_; }
  const ForwardingLimitCounters& limit_counters() const { return limit_counters_; }
  const CommFaults& comm_faults() const { return comm_faults_; }

 private:
  bool Untracked(const std::string& topic) const;  // new topic, and the tables are full (kMaxTrackedTopics)
  void Latch(const std::string& topic, const uint8_t* data, size_t size);
  void ForgetTopic(const std::string& topic);
  void NotePublisher(const std::string& topic, std::string_view source, int64_t now_ns);
  static void NoteSource(std::vector<std::pair<std::string, int64_t>>& sources, std::string_view source,
                         int64_t now_ns);

  struct LatchedValue {
    std::vector<uint8_t> payload;
    uint64_t order = 0;  // when stored: the oldest goes first
  };
  void HandleFaultCommand(const uint8_t* data, size_t size);
  // Communication faults take time from the run's clock (issue 15 item 6): in a lockstep run, the
  // simulated time of the newest lockstep Clock on `clock` (0 from the first probe); before any, and in
  // realtime, the steady clock since this broker started. So a lockstep run with faults replays exactly,
  // whatever the transport and however loaded the machine.
  double FaultClockS() const;
  // Reads a Clock on `clock`; true if it is a lockstep one (the run clock is then set from it).
  bool ObserveRunClock(const uint8_t* data, size_t size);

  size_t max_payload_;
  std::map<std::string, TopicCounters> counts_;
  std::map<std::string, int64_t> last_drop_ns_;  // per topic: bad traffic keeps a topic in the table
  // Per topic: its publishers (header `source`) and when each was last heard. Hashed, and a short
  // vector scanned by string_view: one lookup per forwarded message, no allocation once known.
  std::unordered_map<std::string, std::vector<std::pair<std::string, int64_t>>> publishers_;
  ForwardingLimits limits_;
  std::map<std::string, LatchedValue> latched_;
  size_t latched_bytes_ = 0;
  uint64_t latch_order_ = 0;
  ForwardingLimitCounters limit_counters_;
  std::map<std::string, const messages::MessageType*> types_;  // per topic: declared, or its first valid message
  std::map<std::string, log::RateLimiter> drop_log_;
  std::chrono::steady_clock::time_point started_;
  uint64_t stats_seq_ = 0;
  uint64_t heartbeat_seq_ = 0;
  uint64_t incarnation_ = 0;
  CommFaults comm_faults_;
  // A tracked topic's entries in counts_, types_ and publishers_, found with one hash lookup per message instead
  // of three ordered-map lookups, a hash lookup and an emplace (which built and freed a node per message). Filled
  // once the topic's type is fixed; an entry leaves with any of the three (ForgetTopic, AgeTopics), as the
  // references would dangle.
  struct TopicRefs {
    TopicCounters* counts = nullptr;
    const std::string* topic = nullptr;  // its key in refs_
    std::map<std::string, const messages::MessageType*>::iterator type;
    std::vector<std::pair<std::string, int64_t>>* sources = nullptr;
  };
  std::unordered_map<std::string, TopicRefs> refs_;
  uint64_t refs_epoch_ = 0;  // one more whenever an entry leaves refs_: every Hint found before is stale
  // `topic`'s entry in refs_ (null: not tracked yet), through `hint` when it is current.
  TopicRefs* FindRefs(const std::string& topic, Hint* hint);
  bool run_clock_ = false;  // a lockstep clock has been seen
  double run_clock_s_ = 0.0;
};

}  // namespace limbic::bus
