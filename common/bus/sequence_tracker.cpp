#include "common/bus/sequence_tracker.hpp"

#include <algorithm>

#include "common/log/log.hpp"

namespace limbic::bus {

SequenceTracker::State& SequenceTracker::Find(std::string_view topic, std::string_view source, bool* fresh) {
  return FindEntry(topic, source, fresh).second;
}

std::pair<const SequenceTracker::Key, SequenceTracker::State>& SequenceTracker::FindEntry(std::string_view topic,
                                                                                          std::string_view source,
                                                                                          bool* fresh) {
  const Less::View key{topic, source};
  auto found = sources_.find(key);
  *fresh = found == sources_.end();
  if (*fresh) {
    if (sources_.size() >= max_sources_) {
      LIMBIC_LOG(kWarning) << "more than " << max_sources_
                           << " (topic, sender) pairs: restarting gap, duplicate and tail-loss tracking";
      sources_.clear();
      ++restarts_;
    }
    found = sources_.emplace(Key{std::string(topic), std::string(source)}, State{}).first;
  }
  return *found;
}

uint64_t SequenceTracker::Settle(State& s) {
  if (s.claim <= s.accounted) return 0;
  const uint64_t lost = s.claim - s.accounted;
  s.accounted = s.claim;  // the floor stays: (floor, accounted] may still arrive late
  return lost;
}

SequenceTracker::Outcome SequenceTracker::OnMessage(std::string_view topic, std::string_view source,
                                                    uint64_t incarnation, uint64_t seq) {
  bool fresh = false;
  State& s = Find(topic, source, &fresh);
  return Apply(s, fresh, incarnation, seq);
}

SequenceTracker::Outcome SequenceTracker::OnMessage(Hint& hint, std::string_view topic, std::string_view source,
                                                    uint64_t incarnation, uint64_t seq) {
  using Entry = decltype(sources_)::value_type;
  // Elements of a std::map stay where they are until erased, and the table is only ever cleared (a restart).
  if (const auto* entry = static_cast<const Entry*>(hint.entry);
      entry != nullptr && hint.restarts == restarts_ && entry->first.source == source && entry->first.topic == topic) {
    return Apply(const_cast<Entry*>(entry)->second, /*fresh=*/false, incarnation, seq);
  }
  bool fresh = false;
  auto& entry = FindEntry(topic, source, &fresh);
  hint.entry = &entry;
  hint.restarts = restarts_;  // after FindEntry, which may have restarted the tracking
  return Apply(entry.second, fresh, incarnation, seq);
}

SequenceTracker::Outcome SequenceTracker::Apply(State& s, bool fresh, uint64_t incarnation, uint64_t seq) {
  Outcome out;
  if (fresh || s.incarnation != incarnation) {
    // First contact (or a restarted publisher): nothing before it is counted; the old life's pending claim is
    // settled, since its report arrived behind the data it claimed.
    if (!fresh) out.tail = Settle(s);
    s = State{incarnation, seq, seq, seq, 0};
    return out;
  }
  if (seq <= s.delivered) {
    out.deliver = false;  // a latched re-send or replay we already have
    return out;
  }
  if (seq > s.accounted) {
    out.gap = seq - s.accounted - 1;
    s.accounted = seq;
  } else if (seq > s.floor) {
    out.tail_recovered = 1;  // counted lost at the tail, arrived late (a delay fault): delivered after all
  }
  // else: before first contact (a report's claim came first): delivered, nothing counted.
  s.delivered = seq;
  s.floor = std::max(s.floor, seq);
  return out;
}

SequenceTracker::Outcome SequenceTracker::OnReport(std::string_view topic, std::string_view source,
                                                   uint64_t incarnation, uint64_t last_seq) {
  Outcome out;
  out.deliver = false;
  bool fresh = false;
  State& s = Find(topic, source, &fresh);
  if (fresh || s.incarnation != incarnation) {
    // First contact by report: what it claims is history (we may have joined after it was sent).
    if (!fresh) out.tail = Settle(s);
    s = State{incarnation, 0, last_seq, last_seq, last_seq};
    return out;
  }
  // This report came behind everything sent before it, and the previous claim is a full period older.
  out.tail = Settle(s);
  s.claim = std::max(s.claim, last_seq);
  return out;
}

}  // namespace limbic::bus
