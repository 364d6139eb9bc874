#include "bench/peers/report.hpp"

#include <gtest/gtest.h>

#include <cmath>

namespace limbic::peers {
namespace {

Sample RoundTrip(const std::string& key, size_t size_index, int round, double p50, double p99 = 0) {
  Sample s;
  s.contender = key;
  s.kind = Kind::kRoundTrip;
  s.size_index = size_index;
  s.round = round;
  s.ok = true;
  s.bytes = size_index == 0 ? 64 : 1024;
  s.p50_us = p50;
  s.p99_us = p99;
  return s;
}

Sample Throughput(const std::string& key, int round, double rate, uint64_t sent, uint64_t received) {
  Sample s;
  s.contender = key;
  s.kind = Kind::kThroughput;
  s.round = round;
  s.ok = true;
  s.bytes = 64;
  s.msgs_per_s = rate;
  s.sent = sent;
  s.received = received;
  return s;
}

std::vector<ContenderInfo> TwoContenders() {
  return {{"zmq-ipc", "raw ZeroMQ PUB/SUB, ipc", "zmq-ipc", ""}, {"limbic-ipc", "limbic broker, ipc", "zmq-ipc", ""}};
}

// The ratio is formed within each round, then the median taken: rounds (raw, limbic) = (10, 20), (40, 44),
// (12, 18) give ratios 2.0, 1.1, 1.5 → median 1.5, although the medians of the figures (12, 20) give 1.67.
TEST(Summarize, RatioIsTheMedianOfPerRoundRatios) {
  const std::vector<Sample> samples = {RoundTrip("zmq-ipc", 0, 0, 10), RoundTrip("limbic-ipc", 0, 0, 20),
                                       RoundTrip("zmq-ipc", 0, 1, 40), RoundTrip("limbic-ipc", 0, 1, 44),
                                       RoundTrip("zmq-ipc", 0, 2, 12), RoundTrip("limbic-ipc", 0, 2, 18)};
  const Summary summary = Summarize(TwoContenders(), {64}, 3, samples);
  const Cell& limbic = summary.At(1, Kind::kRoundTrip, 0);
  EXPECT_EQ(limbic.rounds, 3u);
  EXPECT_DOUBLE_EQ(limbic.value, 20.0);
  EXPECT_DOUBLE_EQ(limbic.ratio, 1.5);
  EXPECT_DOUBLE_EQ(summary.At(0, Kind::kRoundTrip, 0).ratio, 1.0);
}

// A round in which the baseline failed gives the contender a figure but no ratio for that round.
TEST(Summarize, RoundWithoutBaselineHasNoRatio) {
  std::vector<Sample> samples = {RoundTrip("zmq-ipc", 0, 0, 10), RoundTrip("limbic-ipc", 0, 0, 30),
                                 RoundTrip("limbic-ipc", 0, 1, 12)};
  Sample failed;
  failed.contender = "zmq-ipc";
  failed.round = 1;
  failed.note = "timed out";
  samples.push_back(failed);
  const Summary summary = Summarize(TwoContenders(), {64}, 2, samples);
  EXPECT_EQ(summary.At(1, Kind::kRoundTrip, 0).rounds, 2u);
  EXPECT_DOUBLE_EQ(summary.At(1, Kind::kRoundTrip, 0).value, 21.0);
  EXPECT_DOUBLE_EQ(summary.At(1, Kind::kRoundTrip, 0).ratio, 3.0);
  EXPECT_EQ(summary.At(0, Kind::kRoundTrip, 0).rounds, 1u);
}

TEST(Summarize, ThroughputKeepsTheWorstLoss) {
  const std::vector<Sample> samples = {
      Throughput("zmq-ipc", 0, 2e6, 100, 100), Throughput("limbic-ipc", 0, 1e6, 100, 97),
      Throughput("zmq-ipc", 1, 1e6, 100, 100), Throughput("limbic-ipc", 1, 1e6, 100, 99)};
  const Summary summary = Summarize(TwoContenders(), {64}, 2, samples);
  const Cell& limbic = summary.At(1, Kind::kThroughput, 0);
  EXPECT_DOUBLE_EQ(limbic.value, 1e6);
  EXPECT_DOUBLE_EQ(limbic.ratio, 0.75);  // median of 0.5 and 1.0
  EXPECT_DOUBLE_EQ(limbic.worst_loss, 0.03);
  EXPECT_DOUBLE_EQ(summary.At(0, Kind::kThroughput, 0).worst_loss, 0.0);
}

TEST(Summarize, NoSamplesKeepsTheLastReason) {
  Sample skipped;
  skipped.contender = "limbic-ipc";
  skipped.note = "skipped: no route";
  const Summary summary = Summarize(TwoContenders(), {64}, 1, {skipped});
  EXPECT_EQ(summary.At(1, Kind::kRoundTrip, 0).rounds, 0u);
  EXPECT_EQ(summary.At(1, Kind::kRoundTrip, 0).note, "skipped: no route");
  EXPECT_TRUE(std::isnan(summary.At(1, Kind::kRoundTrip, 0).ratio));
}

TEST(RotatedOrder, EachContenderLeadsOnceEveryNRounds) {
  EXPECT_EQ(RotatedOrder(4, 0), (std::vector<size_t>{0, 1, 2, 3}));
  EXPECT_EQ(RotatedOrder(4, 1), (std::vector<size_t>{1, 2, 3, 0}));
  EXPECT_EQ(RotatedOrder(4, 5), (std::vector<size_t>{1, 2, 3, 0}));
  EXPECT_TRUE(RotatedOrder(0, 3).empty());
}

TEST(Labels, SizesAndRates) {
  EXPECT_EQ(SizeLabel(64), "64 B");
  EXPECT_EQ(SizeLabel(1024), "1 KiB");
  EXPECT_EQ(SizeLabel(65536), "64 KiB");
  EXPECT_EQ(SizeLabel(1536), "1.5 KiB");
  EXPECT_EQ(RateLabel(1.934e6), "1.93 M");
  EXPECT_EQ(RateLabel(812345), "812 k");
  EXPECT_EQ(RateLabel(45678), "45.7 k");
  EXPECT_EQ(RateLabel(950), "950");
}

TEST(MarkdownReport, RowsRatiosUnavailableContendersAndSizeNotes) {
  auto contenders = TwoContenders();
  contenders.push_back({"limbic-direct", "limbic direct", "zmq-ipc", "not built yet (issue 23 item 5)"});
  std::vector<Sample> samples = {RoundTrip("zmq-ipc", 0, 0, 10, 15), RoundTrip("limbic-ipc", 0, 0, 20, 31),
                                 Throughput("zmq-ipc", 0, 2e6, 100, 100), Throughput("limbic-ipc", 0, 1e6, 100, 98)};
  samples[1].bytes = 112;
  const Summary summary = Summarize(contenders, {64}, 1, samples);
  const std::string md = MarkdownReport(summary, {"2026-11-27", "2-core VM", "transport_peers --rounds 1"});
  EXPECT_NE(md.find("# Transport peers, 2026-11-27, 2-core VM"), std::string::npos) << md;
  EXPECT_NE(md.find("`transport_peers --rounds 1`"), std::string::npos);
  EXPECT_NE(md.find("| contender | ratio to | 64 B | p99 64 B |"), std::string::npos) << md;
  EXPECT_NE(md.find("| raw ZeroMQ PUB/SUB, ipc | — | 10.0 (1.00×) | 15.0 |"), std::string::npos) << md;
  EXPECT_NE(md.find("| limbic broker, ipc | raw ZeroMQ PUB/SUB, ipc | 20.0 (2.00×) | 31.0 |"), std::string::npos) << md;
  EXPECT_NE(md.find("| limbic broker, ipc | raw ZeroMQ PUB/SUB, ipc | 1.00 M (0.50×), 2.0 % lost |"), std::string::npos)
      << md;
  EXPECT_NE(md.find("| limbic direct | raw ZeroMQ PUB/SUB, ipc | not built yet (issue 23 item 5) | |"),
            std::string::npos)
      << md;
  EXPECT_NE(md.find("- limbic broker, ipc: 64 B → 112 B"), std::string::npos) << md;
}

// A contender skipped at every size for one reason (a missing daemon or route) gets that reason once.
TEST(MarkdownReport, OneReasonForARowSkippedAtEverySize) {
  std::vector<Sample> samples = {RoundTrip("zmq-ipc", 0, 0, 10), RoundTrip("zmq-ipc", 1, 0, 11)};
  for (size_t z : {0u, 1u}) {
    Sample skipped;
    skipped.contender = "limbic-ipc";
    skipped.size_index = z;
    skipped.note = "skipped: no daemon";
    samples.push_back(skipped);
  }
  const std::string md = MarkdownReport(Summarize(TwoContenders(), {64, 1024}, 1, samples), {});
  EXPECT_NE(md.find("| limbic broker, ipc | raw ZeroMQ PUB/SUB, ipc | skipped: no daemon | | | |\n"), std::string::npos)
      << md;
}

TEST(MarkdownReport, CountsRoundsWhenSomeFailed) {
  Sample failed;
  failed.contender = "limbic-ipc";
  failed.round = 1;
  failed.note = "timed out";
  const Summary summary =
      Summarize(TwoContenders(), {64}, 2, {RoundTrip("zmq-ipc", 0, 0, 10), RoundTrip("limbic-ipc", 0, 0, 20), failed});
  EXPECT_NE(MarkdownReport(summary, {}).find("20.0 (2.00×) [1/2 rounds]"), std::string::npos);
}

TEST(Csv, SummaryAndSamples) {
  auto contenders = TwoContenders();
  contenders.push_back({"lcm", "LCM, \"udpm\"", "zmq-tcp", "skipped, no route"});
  const std::vector<Sample> samples = {RoundTrip("zmq-ipc", 0, 0, 10, 15), Throughput("zmq-ipc", 0, 2e6, 100, 100)};
  const std::string csv = SummaryCsv(Summarize(contenders, {64}, 1, samples));
  EXPECT_EQ(csv.substr(0, csv.find('\n')),
            "key,name,kind,size,bytes,rounds,p50_us,p99_us,msgs_per_s,ratio,worst_loss,note");
  EXPECT_NE(csv.find("zmq-ipc,\"raw ZeroMQ PUB/SUB, ipc\",round_trip,64,64,1,10,15,,1,,\n"), std::string::npos) << csv;
  EXPECT_NE(csv.find("zmq-ipc,\"raw ZeroMQ PUB/SUB, ipc\",throughput,64,64,1,,,2e+06,1,0,\n"), std::string::npos)
      << csv;
  EXPECT_NE(csv.find("lcm,\"LCM, \"\"udpm\"\"\",round_trip,64,,0,,,,,,\"skipped, no route\"\n"), std::string::npos)
      << csv;
  const std::string rows = SamplesCsv(samples, {64});
  EXPECT_NE(rows.find("0,zmq-ipc,round_trip,64,1,64,10,15,,,,\n"), std::string::npos) << rows;
  EXPECT_NE(rows.find("0,zmq-ipc,throughput,64,1,64,,,2e+06,100,100,\n"), std::string::npos) << rows;
}

constexpr const char* kRouteHeader =
    "Iface\tDestination\tGateway \tFlags\tRefCnt\tUse\tMetric\tMask\t\tMTU\tWindow\tIRTT\n";

TEST(MulticastRoutedToLoopback, FollowsTheMostSpecificRoute) {
  const uint32_t lcm_group = 0xEFFF4C43;  // 239.255.76.67
  const std::string default_only =
      std::string(kRouteHeader) + "eth0\t00000000\t010200C0\t0003\t0\t0\t0\t00000000\t0\t0\t0\n";
  EXPECT_FALSE(MulticastRoutedToLoopback(default_only, lcm_group));
  // sudo ip route add 224.0.0.0/4 dev lo
  const std::string with_lo = default_only + "lo\t000000E0\t00000000\t0001\t0\t0\t0\t000000F0\t0\t0\t0\n";
  EXPECT_TRUE(MulticastRoutedToLoopback(with_lo, lcm_group));
  EXPECT_FALSE(MulticastRoutedToLoopback(with_lo, 0x08080808));
  // A more specific route for 239.0.0.0/8 through eth0 wins over lo's /4.
  const std::string narrower = with_lo + "eth0\t000000EF\t00000000\t0001\t0\t0\t0\t000000FF\t0\t0\t0\n";
  EXPECT_FALSE(MulticastRoutedToLoopback(narrower, lcm_group));
  EXPECT_FALSE(MulticastRoutedToLoopback("", lcm_group));
}

}  // namespace
}  // namespace limbic::peers
