// What the services' heartbeats say about the topics on the direct data path, which the broker does not carry
// (issue 23 item 1; docs/protocol.md §13, "Counts"): per topic, its publishers' `out` counts (messages, bytes) and
// its receivers' `in` counts (drops by reason, duplicates), each summed over the services reporting them — the
// broker's bus/stats row of the topic, so `limbic topics` and the metrics exporter show a direct topic's drops as
// they show those the broker counted itself. A plain class over plain data: the broker parses the heartbeats.
//
// A sum never goes back while the topic is listed (they are counters, and Prometheus reads a decrease as a restart):
// a service that has gone keeps its last counts in it; one that restarts (a new `incarnation` in its heartbeat's
// header, whose counts start again from zero) has what it reported before kept aside and added; and within one life
// each count is the highest the service has reported — a tail loss that a receiver takes back when the message
// arrives late after all (§12) stays counted here, while its own heartbeat (LOST RECEIVING) shows the correction.
//
// Bounded whatever a client reports: at most kMaxReportersPerTopic services per topic and direction (beyond it the
// one heard from least recently is set aside, its counts kept in the sum), and the caller notes only topics the
// directory offers; a topic no longer offered leaves once no report on it has arrived for
// ForwardingLimits::topic_ttl_s (600 s), as an idle topic leaves the broker's own table.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "common/bus/forwarding.hpp"

namespace limbic::bus {

inline constexpr size_t kMaxReportersPerTopic = 256;

class DirectReports {
 public:
  explicit DirectReports(ForwardingLimits limits = {}) : limits_(limits) {}

  // One `out` row of `service`'s heartbeat (a publisher of `topic`): its messages and bytes sent so far.
  // `incarnation`: its header's (0: unknown, taken as the same as before); `stamp_ns`: the heartbeat's stamp (when
  // the count last grew, for bus/stats' last_seen_ns); `now_ns`: when it arrived (the broker's wall clock).
  void NoteSent(const std::string& topic, const std::string& service, uint64_t incarnation, uint64_t messages,
                uint64_t bytes, int64_t stamp_ns, int64_t now_ns);
  // One `in` row of `service`'s heartbeat (a receiver of `topic`): its drops by reason (gap and tail included) and
  // duplicates so far (`counts.messages`, `bytes` and `last_seen_ns` are not used: the publishers' counts stand for
  // the topic).
  void NoteReceived(const std::string& topic, const std::string& service, uint64_t incarnation,
                    const TopicCounters& counts, int64_t now_ns);

  // One row per reported topic for Forwarding::BuildStats: the sums, the publishers heard within
  // ForwardingLimits::publisher_idle_s, and last_seen_ns. Topics that `offered` (the directory offers it now) denies
  // and that no report has reached for topic_ttl_s are forgotten first. The type is left to the caller.
  std::vector<Forwarding::ReportedTopic> Collect(int64_t now_ns,
                                                 const std::function<bool(const std::string&)>& offered);

  bool Reported(const std::string& topic) const { return topics_.count(topic) != 0; }
  size_t topics() const { return topics_.size(); }
  uint64_t set_aside() const { return set_aside_; }  // restarts and reporters over the bound, since start

 private:
  struct Reporter {
    uint64_t incarnation = 0;
    int64_t last_report_ns = 0;  // arrival of its last heartbeat
    int64_t last_change_ns = 0;  // stamp of the heartbeat that last showed its message count grow (publishers)
    TopicCounters counts;
  };
  struct Topic {
    std::map<std::string, Reporter> publishers;  // service -> its latest `out` row
    std::map<std::string, Reporter> receivers;   // service -> its latest `in` row
    TopicCounters retired;                       // of reporters that restarted or were set aside: kept in the sums
    int64_t last_report_ns = 0;
  };
  // `service`'s entry in `reporters`, set aside first if it restarted; room made if it is new.
  Reporter& Find(Topic& topic, std::map<std::string, Reporter>& reporters, const std::string& service,
                 uint64_t incarnation);

  ForwardingLimits limits_;
  std::map<std::string, Topic> topics_;
  uint64_t set_aside_ = 0;
};

}  // namespace limbic::bus
