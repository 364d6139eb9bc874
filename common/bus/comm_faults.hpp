// Communication faults the broker applies to one topic's traffic: drop, delay, duplicate, corrupt (issue 8).
//
// Inputs: rules (from FaultCommand messages of kind Comm* on `faults`), then each forwarded message with
// the broker's monotonic time in seconds. Outputs: the copies to forward now (none, one or two, possibly
// with flipped bytes) and, from Release(), delayed copies whose time has come. Pure: time is a value, and
// each rule owns a std::mt19937_64 seeded from the rule's seed, so a run replays exactly.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <random>
#include <string>
#include <vector>

namespace limbic::msg {
struct FaultCommand;
}

namespace limbic::bus {

enum class CommFaultKind { kDrop, kDelay, kDuplicate, kCorrupt };

// One rule on one topic (exact name).
struct CommFaultRule {
  std::string id{};  // adding an id again replaces the rule
  CommFaultKind kind = CommFaultKind::kDrop;
  std::string topic{};
  double probability = 1.0;  // drop, duplicate, corrupt: chance per message; delay: ignored (every message)
  double delay_s = 0.0;      // delay: seconds each message is held back
  int corrupt_bytes = 1;     // corrupt: bytes flipped per corrupted message
  double start_s = 0.0;      // active on [start, start + duration); a start in the past = when added
  double duration_s = 0.0;   // 0: until cleared
  uint64_t seed = 0;
};

struct CommFaultsOptions {
  size_t max_delayed = 10000;  // messages held for delay at most; beyond this a new delayed one is dropped
};

// One message leaving the fault stage.
struct CommOutgoing {
  std::string topic;
  std::vector<uint8_t> payload;
};

// Per-topic effect counts.
struct CommFaultCounters {
  uint64_t dropped = 0;
  uint64_t delayed = 0;
  uint64_t duplicated = 0;
  uint64_t corrupted = 0;
  uint64_t overflowed = 0;  // delayed messages dropped because the delay queue was full
};

// Applies the active rules to messages in the broker's forward path.
class CommFaults {
 public:
  explicit CommFaults(CommFaultsOptions options = {});

  // Adds (or replaces, by id) a rule at time `now_s`; returns false with `reason` if invalid.
  bool Add(CommFaultRule rule, double now_s, std::string* reason = nullptr);
  void Clear(const std::string& id);
  void ClearAll();
  // Removes rules whose window has ended.
  void Expire(double now_s);

  // True if any rule names `topic` (the fast path skips Process otherwise).
  bool Affects(const std::string& topic) const { return rules_by_topic_.count(topic) != 0; }
  // One message at `now_s`: appends what to forward now to `out` (drop: nothing; duplicate: two copies).
  void Process(double now_s, const std::string& topic, const uint8_t* data, size_t size,
               std::vector<CommOutgoing>* out);
  // Appends the delayed messages due at `now_s` (in order of release time, then arrival).
  void Release(double now_s, std::vector<CommOutgoing>* out);
  // Release time of the earliest held message, if any.
  std::optional<double> NextRelease() const;

  size_t rule_count() const { return rules_.size(); }
  size_t delayed_count() const { return delayed_.size(); }
  const std::map<std::string, CommFaultCounters>& counters() const { return counters_; }

 private:
  struct ActiveRule {
    CommFaultRule rule;
    double start = 0.0;  // effective start
    std::mt19937_64 rng;
  };
  bool Active(const ActiveRule& r, double now_s) const;
  void Reindex();

  CommFaultsOptions options_;
  std::map<std::string, ActiveRule> rules_;                         // by id
  std::map<std::string, std::vector<std::string>> rules_by_topic_;  // topic -> ids
  std::multimap<double, CommOutgoing> delayed_;                     // release time -> message (stable order)
  std::map<std::string, CommFaultCounters> counters_;
};

// The rule a FaultCommand of kind CommDrop/CommDelay/CommDuplicate/CommCorrupt describes (magnitude: delay
// in s, or bytes flipped for corrupt, default 1); nullopt for any other kind or a clear command.
std::optional<CommFaultRule> CommFaultFromMsg(const msg::FaultCommand& command);

}  // namespace limbic::bus
