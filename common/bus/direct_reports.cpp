#include "common/bus/direct_reports.hpp"

#include <algorithm>

namespace limbic::bus {
namespace {

// Within one life of a reporter: each count the highest reported (never back).
void Raise(TopicCounters& kept, const TopicCounters& c) {
  kept.messages = std::max(kept.messages, c.messages);
  kept.bytes = std::max(kept.bytes, c.bytes);
  kept.drops_malformed = std::max(kept.drops_malformed, c.drops_malformed);
  kept.drops_wrong_type = std::max(kept.drops_wrong_type, c.drops_wrong_type);
  kept.drops_oversize = std::max(kept.drops_oversize, c.drops_oversize);
  kept.drops_gap = std::max(kept.drops_gap, c.drops_gap);
  kept.drops_invalid = std::max(kept.drops_invalid, c.drops_invalid);
  kept.drops_tail = std::max(kept.drops_tail, c.drops_tail);
  kept.duplicates = std::max(kept.duplicates, c.duplicates);
}

}  // namespace

DirectReports::Reporter& DirectReports::Find(Topic& topic, std::map<std::string, Reporter>& reporters,
                                             const std::string& service, uint64_t incarnation) {
  auto it = reporters.find(service);
  if (it != reporters.end()) {
    Reporter& r = it->second;
    if (incarnation != 0 && r.incarnation != 0 && incarnation != r.incarnation) {
      // Restarted: its counts start again from zero; what it reported before stays in the sum.
      AddCounts(topic.retired, r.counts);
      r.counts = {};
      ++set_aside_;
    }
    if (incarnation != 0) r.incarnation = incarnation;
    return r;
  }
  if (reporters.size() >= kMaxReportersPerTopic) {
    // The one heard from least recently makes room, its counts kept (a linear scan, only at the bound).
    auto oldest = std::min_element(reporters.begin(), reporters.end(), [](const auto& a, const auto& b) {
      return a.second.last_report_ns < b.second.last_report_ns;
    });
    AddCounts(topic.retired, oldest->second.counts);
    reporters.erase(oldest);
    ++set_aside_;
  }
  Reporter& r = reporters[service];
  r.incarnation = incarnation;
  return r;
}

void DirectReports::NoteSent(const std::string& topic, const std::string& service, uint64_t incarnation,
                             uint64_t messages, uint64_t bytes, int64_t stamp_ns, int64_t now_ns) {
  Topic& t = topics_[topic];
  Reporter& r = Find(t, t.publishers, service, incarnation);
  if (messages > r.counts.messages) r.last_change_ns = stamp_ns;
  TopicCounters sent;
  sent.messages = messages;
  sent.bytes = bytes;
  Raise(r.counts, sent);
  r.last_report_ns = now_ns;
  t.last_report_ns = std::max(t.last_report_ns, now_ns);
}

void DirectReports::NoteReceived(const std::string& topic, const std::string& service, uint64_t incarnation,
                                 const TopicCounters& counts, int64_t now_ns) {
  Topic& t = topics_[topic];
  Reporter& r = Find(t, t.receivers, service, incarnation);
  TopicCounters dropped = counts;
  dropped.messages = dropped.bytes = 0;  // what it received: the publishers' counts stand for the topic
  Raise(r.counts, dropped);
  r.last_report_ns = now_ns;
  t.last_report_ns = std::max(t.last_report_ns, now_ns);
}

std::vector<Forwarding::ReportedTopic> DirectReports::Collect(int64_t now_ns,
                                                              const std::function<bool(const std::string&)>& offered) {
  const auto older_than = [&](int64_t t, double seconds) { return now_ns - t > static_cast<int64_t>(seconds * 1e9); };
  std::vector<Forwarding::ReportedTopic> out;
  for (auto it = topics_.begin(); it != topics_.end();) {
    const Topic& t = it->second;
    // Like the broker's own counts, a direct topic's stay listed after its publishers have gone (cumulative, marked
    // stale by the tools) until idle for topic_ttl_s — all of its counts at once, so no sum shrinks on the way out.
    if (!offered(it->first) && older_than(t.last_report_ns, limits_.topic_ttl_s)) {
      it = topics_.erase(it);
      continue;
    }
    Forwarding::ReportedTopic r{it->first};
    TopicCounters sent = t.retired;
    for (const auto& [service, p] : t.publishers) {
      AddCounts(sent, p.counts);
      r.last_seen_ns = std::max(r.last_seen_ns, p.last_change_ns);
      if (!older_than(p.last_report_ns, limits_.publisher_idle_s)) r.publishers.push_back(service);
    }
    r.messages = sent.messages;
    r.bytes = sent.bytes;
    // retired holds both directions' counts: a publisher's drops are zero, a receiver's messages are not kept.
    r.received = sent;
    r.received.messages = r.received.bytes = 0;
    for (const auto& [service, receiver] : t.receivers) AddCounts(r.received, receiver.counts);
    out.push_back(std::move(r));
    ++it;
  }
  return out;
}

}  // namespace limbic::bus
