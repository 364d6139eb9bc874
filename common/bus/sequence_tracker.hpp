// What a receiver knows of each publisher's sequence on each topic, and what it has lost (issue 23
// item 3; docs/protocol.md, "Losses"). Plain data in, counts out: no transport, no clock.
//
// Inputs: every delivered-or-not data message's (topic, source, incarnation, seq) from its header, and every
// HighWaterReport's (topic, source, incarnation, last_seq) — "I have sent up to last_seq".
// Outputs, per call: deliver or not (a duplicate is not), and the losses newly counted:
//   gap  — seqs skipped between two that arrived (s > accounted + 1: s - accounted - 1 of them);
//   tail — seqs a report claimed that never arrived after the last delivered one. A claim is counted only
//          when the NEXT report from the same publisher arrives (a full report period for anything still
//          in flight, e.g. held by a delay fault, to land); a claim left pending when the publisher
//          restarts (a new incarnation appears) is settled then. A claim pending when the publisher stops
//          for good is never settled: it is not counted (nothing tells a lost tail from a late one).
//   tail_recovered — a message counted lost at the tail that arrived after all: delivered, and one
//          tail loss taken back.
// Counting starts at first contact with a (topic, source, incarnation): what came before it — a late
// joiner's missed history, a restarted publisher's previous life, a report's claim seen before any data —
// is never counted as lost.
//
// Per source, three marks: delivered <= floor <= accounted. Every seq <= accounted is delivered, counted
// lost, or from before first contact; the seqs in (floor, accounted] are the ones counted lost at the tail
// that may still arrive. Messages arriving out of order below the last delivered one are duplicates (as
// a gap, once counted, is never taken back).
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <utility>

namespace limbic::bus {

class SequenceTracker {
 public:
  struct Outcome {
    bool deliver = true;          // false: a duplicate (a latched re-send or replay already seen)
    uint64_t gap = 0;             // newly counted lost between two delivered messages
    uint64_t tail = 0;            // newly counted lost at the tail (a confirmed claim)
    uint64_t tail_recovered = 0;  // 1: this message had been counted lost at the tail
  };

  // Tracks at most `max_sources` (topic, source) pairs; one more restarts tracking (counted in restarts()).
  explicit SequenceTracker(size_t max_sources = 16384) : max_sources_(max_sources) {}

  // Where the last message of one (topic, source) found its state: a receiver that keeps one per topic finds the
  // state of a topic's usual publisher without searching the table (issue 18: the search was 2-3 % of a lockstep
  // team's time). Checked before use — the same topic and source, and no restart of the tracking since — so a hint
  // of another topic, another publisher or a cleared table only costs the search it would have saved.
  struct Hint {
    const void* entry = nullptr;  // the table's element (its key and state)
    uint64_t restarts = 0;        // restarts() when it was found
  };

  Outcome OnMessage(std::string_view topic, std::string_view source, uint64_t incarnation, uint64_t seq);
  // As above; `hint` is used when it names (topic, source) and updated otherwise.
  Outcome OnMessage(Hint& hint, std::string_view topic, std::string_view source, uint64_t incarnation, uint64_t seq);
  Outcome OnReport(std::string_view topic, std::string_view source, uint64_t incarnation, uint64_t last_seq);

  size_t size() const { return sources_.size(); }
  uint64_t restarts() const { return restarts_; }

 private:
  struct Key {
    std::string topic;
    std::string source;
  };
  // Orders keys by (topic, source) and finds one from string views: a message's source is looked up without
  // building a std::string for it.
  struct Less {
    using is_transparent = void;
    using View = std::pair<std::string_view, std::string_view>;
    static View Of(const Key& k) { return {k.topic, k.source}; }
    static const View& Of(const View& v) { return v; }
    template <typename A, typename B>
    bool operator()(const A& a, const B& b) const {
      return Of(a) < Of(b);
    }
  };
  struct State {
    uint64_t incarnation = 0;
    uint64_t delivered = 0;  // the last seq delivered (0: none yet)
    uint64_t floor = 0;      // (floor, accounted]: counted lost at the tail, may still arrive
    uint64_t accounted = 0;
    uint64_t claim = 0;  // the last report's claim, settled by the next report (0: none)
  };

  // The state of (topic, source); `fresh` set when it was not tracked.
  State& Find(std::string_view topic, std::string_view source, bool* fresh);
  std::pair<const Key, State>& FindEntry(std::string_view topic, std::string_view source, bool* fresh);
  // A message's outcome, given its (topic, source)'s state.
  static Outcome Apply(State& s, bool fresh, uint64_t incarnation, uint64_t seq);
  // Counts what `s`'s pending claim says was lost beyond what is accounted for.
  static uint64_t Settle(State& s);

  size_t max_sources_;
  std::map<Key, State, Less> sources_;
  uint64_t restarts_ = 0;
};

}  // namespace limbic::bus
