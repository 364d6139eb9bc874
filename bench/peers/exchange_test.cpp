#include "bench/peers/exchange.hpp"

#include <gtest/gtest.h>

#include <condition_variable>
#include <deque>
#include <mutex>
#include <sstream>
#include <thread>

namespace limbic::peers {
namespace {

using namespace std::chrono_literals;

// Two in-memory queues, "ping" (A → B) and "pong" (B → A); `drop_every` > 0 loses every n-th data message A
// sends (a lossy transport).
struct FakeWire {
  std::mutex mutex;
  std::condition_variable changed;
  std::deque<Received> queues[2];
  int drop_every = 0;
  int data_sent = 0;
};

class FakeLink : public Link {
 public:
  FakeLink(FakeWire& wire, Side side) : wire_(wire), side_(side) {}
  size_t Send(uint64_t seq, size_t bytes) override {
    std::lock_guard lock(wire_.mutex);
    if (side_ == Side::kA && seq < kControl && wire_.drop_every > 0 && ++wire_.data_sent % wire_.drop_every == 0) {
      return bytes;
    }
    wire_.queues[side_ == Side::kA ? 0 : 1].push_back({seq, bytes});
    wire_.changed.notify_all();
    return bytes;
  }
  std::optional<Received> Receive(std::chrono::milliseconds timeout) override {
    std::unique_lock lock(wire_.mutex);
    auto& queue = wire_.queues[side_ == Side::kA ? 1 : 0];
    if (!wire_.changed.wait_for(lock, timeout, [&] { return !queue.empty(); })) return std::nullopt;
    const Received r = queue.front();
    queue.pop_front();
    return r;
  }

 private:
  FakeWire& wire_;
  Side side_;
};

ExchangeOptions SmallOptions() {
  ExchangeOptions options;
  options.sizes = {64, 1024};
  options.samples = 20;
  options.warmup = 2;
  options.messages = 100;
  options.discovery = 2000ms;
  options.sink_idle = 100ms;
  return options;
}

std::vector<std::vector<std::string>> Lines(const std::string& text) {
  std::vector<std::vector<std::string>> lines;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream words(line);
    std::vector<std::string> w;
    std::string word;
    while (words >> word) w.push_back(word);
    lines.push_back(w);
  }
  return lines;
}

TEST(Exchange, PingAndEchoReportEverySize) {
  FakeWire wire;
  FakeLink a(wire, Side::kA), b(wire, Side::kB);
  const ExchangeOptions options = SmallOptions();
  std::ostringstream ping_out, echo_out;
  int echo_status = -1;
  std::thread echo([&] { echo_status = RunEcho(b, options, echo_out); });
  EXPECT_EQ(RunPing(a, options, ping_out), 0);
  echo.join();
  EXPECT_EQ(echo_status, 0);  // ended by the stop message
  const auto lines = Lines(ping_out.str());
  ASSERT_EQ(lines.size(), 2u) << ping_out.str();
  EXPECT_EQ(lines[0][0], "rtt");
  EXPECT_EQ(lines[0][1], "0");
  EXPECT_EQ(lines[0][2], "64");
  EXPECT_EQ(lines[0][5], "20");
  EXPECT_EQ(lines[1][2], "1024");
  EXPECT_LE(std::stod(lines[1][3]), std::stod(lines[1][4]));  // p50 ≤ p99
}

TEST(Exchange, BlastAndSinkCountEveryMessage) {
  FakeWire wire;
  FakeLink a(wire, Side::kA), b(wire, Side::kB);
  const ExchangeOptions options = SmallOptions();
  std::ostringstream blast_out, sink_out;
  int sink_status = -1;
  std::thread sink([&] { sink_status = RunSink(b, options, sink_out); });
  EXPECT_EQ(RunBlast(a, options, blast_out), 0);
  sink.join();
  EXPECT_EQ(sink_status, 0);
  const auto sent = Lines(blast_out.str()), received = Lines(sink_out.str());
  ASSERT_EQ(sent.size(), 2u) << blast_out.str();
  ASSERT_EQ(received.size(), 2u) << sink_out.str();
  EXPECT_EQ(sent[0][0], "sent");
  EXPECT_EQ(sent[0][4], "100");
  EXPECT_EQ(received[0][0], "recv");
  EXPECT_EQ(received[0][3], "100");
  EXPECT_GE(std::stoll(received[0][4]), std::stoll(sent[0][3]));  // last receive after the first send
}

// A lossy transport: the sink stops at the end marker and reports what arrived.
TEST(Exchange, SinkReportsWhatALossyTransportDelivered) {
  FakeWire wire;
  wire.drop_every = 10;
  FakeLink a(wire, Side::kA), b(wire, Side::kB);
  ExchangeOptions options = SmallOptions();
  options.sizes = {64};
  std::ostringstream blast_out, sink_out;
  std::thread sink([&] { RunSink(b, options, sink_out); });
  EXPECT_EQ(RunBlast(a, options, blast_out), 0);
  sink.join();
  EXPECT_EQ(Lines(sink_out.str())[0][3], "90");
}

// Without the end marker (lost) the sink stops sink_idle after the last message.
TEST(Exchange, SinkStopsAfterIdleWhenTheEndMarkerIsLost) {
  FakeWire wire;
  FakeLink a(wire, Side::kA), b(wire, Side::kB);
  ExchangeOptions options = SmallOptions();
  options.sizes = {64};
  for (uint64_t i = 0; i < 40; ++i) a.Send(i, 64);  // data of size 0, then nothing
  std::ostringstream sink_out;
  const auto start = std::chrono::steady_clock::now();
  EXPECT_EQ(RunSink(b, options, sink_out), 0);
  EXPECT_GE(std::chrono::steady_clock::now() - start, options.sink_idle);
  EXPECT_EQ(Lines(sink_out.str())[0][3], "40");
}

// Messages left over from another size are not counted as this size's.
TEST(Exchange, SinkCountsOnlyItsOwnSize) {
  FakeWire wire;
  FakeLink a(wire, Side::kA), b(wire, Side::kB);
  ExchangeOptions options = SmallOptions();
  options.sizes = {64, 1024};
  for (uint64_t i = 0; i < 10; ++i) a.Send(i, 64);  // size 0
  a.Send(kEnd, 16);
  for (uint64_t i = 0; i < 5; ++i) a.Send(kSizeStride + i, 1024);  // size 1
  for (uint64_t i = 10; i < 13; ++i) a.Send(i, 64);                // late ones of size 0
  a.Send(kEnd, 16);
  std::ostringstream sink_out;
  EXPECT_EQ(RunSink(b, options, sink_out), 0);
  const auto lines = Lines(sink_out.str());
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(lines[0][3], "10");
  EXPECT_EQ(lines[1][3], "5");
  EXPECT_EQ(lines[1][2], "1024");
}

TEST(Exchange, SilentPeerEndsWithAFailLine) {
  FakeWire wire;
  FakeLink a(wire, Side::kA);
  ExchangeOptions options = SmallOptions();
  options.discovery = 100ms;
  std::ostringstream out;
  EXPECT_EQ(RunPing(a, options, out), 1);
  EXPECT_EQ(out.str(), "fail 0 no echo within 100 ms\n");
  std::ostringstream blast_out;
  EXPECT_EQ(RunBlast(a, options, blast_out), 1);
  EXPECT_EQ(blast_out.str(), "fail 0 the sink did not answer within 100 ms\n");
}

}  // namespace
}  // namespace limbic::peers
