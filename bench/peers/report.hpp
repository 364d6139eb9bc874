// What transport_peers measured, summarised over interleaved rounds and written as a Markdown table and CSV
// (issue 23 item 4). Pure: no clock, no transport; transport_peers.cpp fills the samples.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace limbic::peers {

enum class Kind { kRoundTrip, kThroughput };

// One contender as the table names it.
struct ContenderInfo {
  std::string key;          // flag value and CSV key: "zmq-ipc"
  std::string name;         // table label: "raw ZeroMQ PUB/SUB, ipc"
  std::string baseline;     // key of the raw ZeroMQ contender its ratios divide by ("" = none)
  std::string unavailable;  // non-empty: not measured, and why ("not built yet (issue 23 item 5)")
};

// One contender, one kind, one message size, one round.
struct Sample {
  std::string contender;
  Kind kind = Kind::kRoundTrip;
  size_t size_index = 0;
  int round = 0;
  bool ok = false;
  std::string note;   // !ok: why (skipped, timed out)
  size_t bytes = 0;   // the real message size (limbic's smallest message is larger than 64 B)
  double p50_us = 0;  // round trip
  double p99_us = 0;
  double msgs_per_s = 0;  // throughput: messages received / (last receive − first send)
  uint64_t sent = 0;
  uint64_t received = 0;
};

// A contender's figures at one size and kind, over the rounds it succeeded in.
struct Cell {
  size_t rounds = 0;      // rounds with a figure
  double value = 0;       // median of p50_us (round trip) or msgs_per_s (throughput)
  double p99_us = 0;      // round trip: median of p99_us
  double ratio = 0;       // median over rounds of value / baseline's value in the same round (NaN: none)
  double worst_loss = 0;  // throughput: the largest (sent − received) / sent of any round
  size_t bytes = 0;       // the largest real message size seen
  std::string note;       // no figure: the last reason given
};

// cells[contender][kind][size_index] for `contenders` in order.
struct Summary {
  std::vector<size_t> sizes;  // nominal message sizes, bytes
  int rounds = 0;
  std::vector<ContenderInfo> contenders;
  std::vector<std::vector<std::vector<Cell>>> cells;  // [contender][0 round trip, 1 throughput][size]
  const Cell& At(size_t contender, Kind kind, size_t size_index) const {
    return cells[contender][kind == Kind::kRoundTrip ? 0 : 1][size_index];
  }
};

// Medians per contender, kind and size; each ratio is formed within a round (contender / its baseline, both
// succeeded in that round) before the median is taken, so a slow round slows both sides of its ratio alike.
Summary Summarize(const std::vector<ContenderInfo>& contenders, const std::vector<size_t>& sizes, int rounds,
                  const std::vector<Sample>& samples);

// The order in which round `round` runs `n` contenders: 0..n−1 rotated left by `round` (so each contender is
// first once every n rounds and none always follows the same neighbour's warm caches).
std::vector<size_t> RotatedOrder(size_t n, int round);

// "64 B", "1 KiB", "64 KiB", "1.5 KiB".
std::string SizeLabel(size_t bytes);
// "1.93 M", "812 k", "950".
std::string RateLabel(double msgs_per_s);

struct ReportContext {
  std::string date;     // as given on the command line, e.g. "2026-11-27"
  std::string machine;  // e.g. "2-core VM"
  std::string command;  // the command line that produced it
};

// The Markdown report: a round-trip table (p50 with its ratio, p99) and a throughput table (msgs/s with its
// ratio and loss), one row per contender, unavailable ones listed with the reason.
std::string MarkdownReport(const Summary& summary, const ReportContext& context);
// One line per contender, kind and size: key,name,kind,size,bytes,rounds,p50_us,p99_us,msgs_per_s,ratio,
// worst_loss,note (empty fields where they do not apply).
std::string SummaryCsv(const Summary& summary);
// Every sample, one line each (the rounds behind the medians).
std::string SamplesCsv(const std::vector<Sample>& samples, const std::vector<size_t>& sizes);

// Does /proc/net/route's text (`table`) route the IPv4 multicast group `group` (host byte order, e.g.
// 0xEFFF4C43 for 239.255.76.67) through the loopback interface "lo"? The most specific matching route
// decides. LCM runs only then: its UDP multicast then never leaves the machine.
bool MulticastRoutedToLoopback(std::string_view table, uint32_t group);

}  // namespace limbic::peers
