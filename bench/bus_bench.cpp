// The bus against raw libzmq (issue 2 item 7): one-way latency (p50, p99) of 64 B, 1 KiB and 64 KiB
// messages and the throughput of 64 B messages, through the broker over ipc:// and tcp://, each
// beside a plain libzmq PUB -> SUB pair on the same transport measured in the same run.
//
//   build-perf/bench/bus_bench [benchmark flags]
//
// Setup: the broker (bus::Broker, the class behind limbic-bus) runs on its own thread of this
// process with its own ZeroMQ context; publisher and subscriber are bus::Nodes with a context each,
// so every message crosses the transport twice (publisher -> broker -> subscriber) through the same
// I/O threads as between three processes. The raw pair has a context per socket too (two
// processes). The broker verifies each payload, and so does the subscribing node. The payload is a
// Heartbeat whose `mode` string pads it to the size asked for (a GridMap's vectors must now match its
// grid, issue 15) (64 B asks for less than the smallest
// message with a header: the smallest is used; `bytes` gives the real size). The raw pair sends the
// same number of bytes as [topic][payload] frames. Latency is measured one message at a time (the
// next is sent once the previous arrived), with the send time in the message and the same steady
// clock on both sides. Counters: p50_us/p99_us (broker), raw_p50_us/raw_p99_us, ratio_p50 = broker
// / raw; throughput: msgs_per_s (broker), raw_msgs_per_s.
#include <benchmark/benchmark.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "common/bus/broker.hpp"
#include "common/bus/bus.hpp"
#include "tests/testing/process.hpp"

namespace limbic {
namespace {

using Clock = std::chrono::steady_clock;
using namespace std::chrono_literals;

int64_t NowNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now().time_since_epoch()).count();
}

std::string BusAddress(int transport) {
  const int pid = static_cast<int>(getpid());
  static int instance = 0;
  ++instance;
  if (transport == 0) return "ipc:///tmp/limbic-bus-bench-" + std::to_string(pid) + "-" + std::to_string(instance);
  // The broker binds p and p + 1: ask the kernel for a free pair (ports derived from the pid could land
  // on one a connection holds, and the benchmark then died with "Address already in use").
  return "tcp://127.0.0.1:" + std::to_string(testing::FreeTcpPortPair());
}
// Raw pair endpoint on the same transport.
std::string RawAddress(int transport) {
  const int pid = static_cast<int>(getpid());
  static int instance = 0;
  ++instance;
  if (transport == 0) return "ipc:///tmp/limbic-raw-bench-" + std::to_string(pid) + "-" + std::to_string(instance);
  return "tcp://127.0.0.1:*";  // the kernel picks a free port; the subscriber reads it back
}

// Builds the payload: `padding` bytes of `mode` string.
flatbuffers::Offset<msg::Heartbeat> BuildPayload(flatbuffers::FlatBufferBuilder& fbb,
                                                 flatbuffers::Offset<msg::Header> header, size_t padding) {
  const std::string filler(padding, 'x');
  return msg::CreateHeartbeatDirect(fbb, header, "bench", msg::ServiceState::Running, filler.c_str());
}

// Size of the whole message (as the node builds it) for `padding` bytes of padding.
size_t MessageSize(size_t padding) {
  flatbuffers::FlatBufferBuilder fbb;
  auto header = msg::CreateHeaderDirect(fbb, NowNs(), 1, 1, "bench", false, 1);
  fbb.Finish(BuildPayload(fbb, header, padding), messages::Traits<msg::Heartbeat>::kIdentifier);
  return fbb.GetSize();
}
// The padding that makes the message about `target` bytes (never less than the smallest message).
size_t PaddingFor(size_t target) {
  size_t padding = 0;
  const size_t base = MessageSize(0);
  if (target > base) padding = target - base;
  while (padding > 0 && MessageSize(padding) > target) --padding;
  return padding;
}

double Percentile(std::vector<double> v, double q) {
  std::sort(v.begin(), v.end());
  return v[static_cast<size_t>(q * static_cast<double>(v.size() - 1))];
}

// A broker on its own thread and context.
class BrokerThread {
 public:
  explicit BrokerThread(const std::string& address) {
    bus::BrokerOptions options;
    options.address = address;
    options.send_hwm = options.receive_hwm = 0;  // throughput runs send faster than anyone reads
    broker_ = std::make_unique<bus::Broker>(context_, options);
    thread_ = std::thread([this] { broker_->Run(stop_); });
  }
  ~BrokerThread() {
    stop_ = true;
    thread_.join();
  }

 private:
  zmq::context_t context_{1};
  std::unique_ptr<bus::Broker> broker_;
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

bus::NodeOptions BenchNodeOptions(const char* name) {
  bus::NodeOptions options;
  options.name = name;
  options.send_hwm = options.receive_hwm = 0;
  options.latched_resend = 0ms;
  return options;
}

constexpr int kLatencySamples = 2000;
constexpr int kThroughputMessages = 200000;

std::vector<double> BrokerLatencies(int transport, size_t padding, size_t* bytes) {
  const std::string address = BusAddress(transport);
  BrokerThread broker(address);
  zmq::context_t pub_context(1), sub_context(1);
  bus::Node pub(pub_context, address, BenchNodeOptions("bench"));
  bus::Node sub(sub_context, address, BenchNodeOptions("sink"));
  auto publisher = pub.Advertise<msg::Heartbeat>("bench/lat");
  std::vector<double> latencies;
  int64_t received_tick = -2;
  sub.Subscribe<msg::Heartbeat>("bench/lat", [&](const bus::Message<msg::Heartbeat>& m) {
    const int64_t now = NowNs();
    received_tick = m.header.tick();
    *bytes = m.size;
    if (m.header.tick() >= 0) latencies.push_back(static_cast<double>(now - m.header.stamp_ns()) * 1e-3);
  });
  // Until the subscription has reached the publisher through the broker.
  for (int i = 0; i < 500 && received_tick == -2; ++i) {
    publisher.Publish(NowNs(), -1, [&](auto& fbb, auto header) { return BuildPayload(fbb, header, padding); });
    sub.Poll(10ms);
  }
  for (int64_t i = 0; i < kLatencySamples; ++i) {
    publisher.Publish(NowNs(), i, [&](auto& fbb, auto header) { return BuildPayload(fbb, header, padding); });
    const auto deadline = Clock::now() + 1s;
    while (received_tick != i && Clock::now() < deadline) sub.Poll(100ms);
  }
  return latencies;
}

// A raw PUB -> SUB pair; `fn(pub, sub)` runs once the subscription works.
template <typename Fn>
void WithRawPair(int transport, Fn&& fn) {
  // A context each, as two processes would have (each with its own I/O thread).
  zmq::context_t pub_context(1), sub_context(1);
  zmq::socket_t pub(pub_context, zmq::socket_type::pub);
  zmq::socket_t sub(sub_context, zmq::socket_type::sub);
  for (zmq::socket_t* s : {&pub, &sub}) s->set(zmq::sockopt::linger, 0);
  pub.set(zmq::sockopt::sndhwm, 0);
  sub.set(zmq::sockopt::rcvhwm, 0);
  pub.bind(RawAddress(transport));
  sub.connect(pub.get(zmq::sockopt::last_endpoint));
  sub.set(zmq::sockopt::subscribe, "bench/");
  zmq::message_t frame;
  for (int i = 0; i < 500; ++i) {
    pub.send(zmq::str_buffer("bench/warm"), zmq::send_flags::sndmore);
    pub.send(zmq::str_buffer("x"), zmq::send_flags::none);
    zmq::pollitem_t items[] = {{sub.handle(), 0, ZMQ_POLLIN, 0}};
    zmq::poll(items, 1, 10ms);
    if (items[0].revents & ZMQ_POLLIN) break;
  }
  while (sub.recv(frame, zmq::recv_flags::dontwait)) {
  }
  fn(pub, sub);
}

std::vector<double> RawLatencies(int transport, size_t bytes) {
  std::vector<double> latencies;
  WithRawPair(transport, [&](zmq::socket_t& pub, zmq::socket_t& sub) {
    std::vector<uint8_t> payload(std::max<size_t>(bytes, 8), 0);
    zmq::message_t topic, body;
    for (int i = 0; i < kLatencySamples; ++i) {
      const int64_t t0 = NowNs();
      std::memcpy(payload.data(), &t0, 8);
      pub.send(zmq::str_buffer("bench/lat"), zmq::send_flags::sndmore);
      pub.send(zmq::buffer(payload), zmq::send_flags::none);
      if (!sub.recv(topic) || !sub.recv(body)) break;
      int64_t sent = 0;
      std::memcpy(&sent, body.data(), 8);
      latencies.push_back(static_cast<double>(NowNs() - sent) * 1e-3);
    }
  });
  return latencies;
}

// Args: transport (0 ipc, 1 tcp), target message size in bytes.
void BM_OneWayLatency(benchmark::State& state) {
  const int transport = static_cast<int>(state.range(0));
  const size_t padding = PaddingFor(static_cast<size_t>(state.range(1)));
  std::vector<double> broker, raw;
  size_t bytes = 0;
  for (auto _ : state) {
    broker = BrokerLatencies(transport, padding, &bytes);
    raw = RawLatencies(transport, bytes);
  }
  if (broker.empty() || raw.empty()) {
    state.SkipWithError("no messages arrived");
    return;
  }
  state.counters["bytes"] = static_cast<double>(bytes);
  state.counters["p50_us"] = Percentile(broker, 0.5);
  state.counters["p99_us"] = Percentile(broker, 0.99);
  state.counters["raw_p50_us"] = Percentile(raw, 0.5);
  state.counters["raw_p99_us"] = Percentile(raw, 0.99);
  state.counters["ratio_p50"] = Percentile(broker, 0.5) / Percentile(raw, 0.5);
  state.SetLabel(transport == 0 ? "ipc" : "tcp");
}
BENCHMARK(BM_OneWayLatency)
    ->ArgsProduct({{0, 1}, {64, 1024, 65536}})
    ->Iterations(1)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

double BrokerThroughput(int transport, size_t padding) {
  const std::string address = BusAddress(transport);
  BrokerThread broker(address);
  zmq::context_t pub_context(1), sub_context(1);
  std::atomic<int64_t> received{0};
  std::atomic<bool> ready{false}, done{false};
  std::atomic<int64_t> last_ns{0};
  std::thread reader([&] {
    bus::Node sub(sub_context, address, BenchNodeOptions("sink"));
    sub.Subscribe<msg::Heartbeat>("bench/tp", [&](const bus::Message<msg::Heartbeat>& m) {
      if (m.header.tick() < 0) {
        ready = true;
        return;
      }
      if (received.fetch_add(1) + 1 == kThroughputMessages) last_ns = NowNs();
    });
    const auto deadline = Clock::now() + 60s;
    while (received.load() < kThroughputMessages && !done.load() && Clock::now() < deadline) sub.Poll(10ms, 100000);
  });
  bus::Node pub(pub_context, address, BenchNodeOptions("bench"));
  auto publisher = pub.Advertise<msg::Heartbeat>("bench/tp");
  for (int i = 0; i < 1000 && !ready.load(); ++i) {
    publisher.Publish(NowNs(), -1, [&](auto& fbb, auto header) { return BuildPayload(fbb, header, padding); });
    std::this_thread::sleep_for(5ms);
  }
  std::this_thread::sleep_for(20ms);  // warm-up messages drained
  const int64_t t0 = NowNs();
  for (int64_t i = 0; i < kThroughputMessages; ++i) {
    publisher.Publish(t0, i, [&](auto& fbb, auto header) { return BuildPayload(fbb, header, padding); });
  }
  reader.join();
  done = true;
  if (received.load() < kThroughputMessages) return 0.0;
  return kThroughputMessages / (static_cast<double>(last_ns.load() - t0) * 1e-9);
}

double RawThroughput(int transport, size_t bytes) {
  double rate = 0.0;
  WithRawPair(transport, [&](zmq::socket_t& pub, zmq::socket_t& sub) {
    std::atomic<int64_t> last_ns{0};
    std::thread reader([&] {
      zmq::message_t topic, body;
      for (int i = 0; i < kThroughputMessages; ++i) {
        if (!sub.recv(topic) || !sub.recv(body)) return;
      }
      last_ns = NowNs();
    });
    std::vector<uint8_t> payload(bytes, 0);
    const int64_t t0 = NowNs();
    for (int i = 0; i < kThroughputMessages; ++i) {
      pub.send(zmq::str_buffer("bench/tp"), zmq::send_flags::sndmore);
      pub.send(zmq::buffer(payload), zmq::send_flags::none);
    }
    reader.join();
    rate = kThroughputMessages / (static_cast<double>(last_ns.load() - t0) * 1e-9);
  });
  return rate;
}

// Args: transport (0 ipc, 1 tcp). 64 B messages.
void BM_Throughput64B(benchmark::State& state) {
  const int transport = static_cast<int>(state.range(0));
  const size_t padding = PaddingFor(64);
  double broker = 0, raw = 0;
  for (auto _ : state) {
    broker = BrokerThroughput(transport, padding);
    raw = RawThroughput(transport, MessageSize(padding));
  }
  state.counters["bytes"] = static_cast<double>(MessageSize(padding));
  state.counters["msgs_per_s"] = broker;
  state.counters["raw_msgs_per_s"] = raw;
  state.counters["ratio"] = raw > 0 ? broker / raw : 0.0;
  state.SetLabel(transport == 0 ? "ipc" : "tcp");
}
BENCHMARK(BM_Throughput64B)->Arg(0)->Arg(1)->Iterations(1)->Unit(benchmark::kMillisecond)->UseRealTime();

// The cost of a bound direct XPUB in a receiver's poll set (docs/protocol.md §13, "Lockstep": the welcome put every
// direct publisher's data socket into each Poll's wait). The same receive loop three times, the order rotating per
// round: a direct publisher sends one message, the receiver's Poll waits for it (zmq_poll over its sockets) and
// drains it; the receiver is a broker-path node (poll set: DEALER, data SUB), a direct node that has advertised a
// topic of its own nobody reads, with its XPUB in the wait set (NodeOptions::direct_subscription_watch long), or the
// same past that watch (0: the XPUB bound but not waited on). Per round and variant: one-way p50 and this thread's
// CPU time per message (publish, Poll and dispatch; the I/O threads' work is not in it). Counters: medians over the
// rounds, and the medians of the per-round differences to the broker-path receiver.
struct PollRound {
  double p50_us = 0;
  double cpu_ns_per_message = 0;
};

int64_t ThreadCpuNs() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return static_cast<int64_t>(t.tv_sec) * 1000000000 + t.tv_nsec;
}

enum class Receiver { kNoXpub, kXpubWatched, kXpubPastWatch };

PollRound DirectReceiveRound(const std::string& address, Receiver receiver, int samples) {
  const bool receiver_has_xpub = receiver != Receiver::kNoXpub;
  zmq::context_t pub_context(1), sub_context(1);
  bus::NodeOptions pub_options = BenchNodeOptions("bench");
  pub_options.data_path = bus::DataPath::kDirect;
  bus::Node pub(pub_context, address, pub_options);
  bus::NodeOptions sub_options = BenchNodeOptions("sink");
  sub_options.data_path = receiver_has_xpub ? bus::DataPath::kDirect : bus::DataPath::kBroker;
  sub_options.direct_subscription_watch = receiver == Receiver::kXpubWatched ? std::chrono::hours(1) : 0ms;
  bus::Node sub(sub_context, address, sub_options);
  // Advertising a direct topic binds the receiver's XPUB (and puts it into its Poll's wait set).
  (void)sub.Advertise<msg::Heartbeat>("bench/own");
  auto publisher = pub.Advertise<msg::Heartbeat>("bench/poll");
  std::vector<double> latencies;
  latencies.reserve(static_cast<size_t>(samples));
  int64_t received_tick = -2;
  sub.Subscribe<msg::Heartbeat>("bench/poll", [&](const bus::Message<msg::Heartbeat>& m) {
    received_tick = m.header.tick();
    if (m.header.tick() >= 0) latencies.push_back(static_cast<double>(NowNs() - m.header.stamp_ns()) * 1e-3);
  });
  // Until the directory has linked the receiver to the publisher's data socket.
  for (int i = 0; i < 500 && received_tick == -2; ++i) {
    publisher.Publish(NowNs(), -1, [&](auto& fbb, auto header) { return BuildPayload(fbb, header, 0); });
    sub.Poll(10ms);
    pub.Poll(0ms);
  }
  const int64_t cpu0 = ThreadCpuNs();
  for (int64_t i = 0; i < samples; ++i) {
    publisher.Publish(NowNs(), i, [&](auto& fbb, auto header) { return BuildPayload(fbb, header, 0); });
    const auto deadline = Clock::now() + 1s;
    while (received_tick != i && Clock::now() < deadline) sub.Poll(100ms);
  }
  const int64_t cpu = ThreadCpuNs() - cpu0;
  PollRound round;
  if (latencies.size() != static_cast<size_t>(samples) || !sub.direct_links().endpoints() ||
      (receiver_has_xpub && sub.data_endpoint().empty())) {
    return round;  // zeros: reported as an error
  }
  round.p50_us = Percentile(latencies, 0.5);
  round.cpu_ns_per_message = static_cast<double>(cpu) / samples;
  return round;
}

// Args: rounds (each: the three receivers, 2,000 messages each, the order rotating). 64 B messages over ipc.
void BM_DirectPollWithXpub(benchmark::State& state) {
  const int rounds = static_cast<int>(state.range(0));
  constexpr Receiver kReceivers[] = {Receiver::kNoXpub, Receiver::kXpubWatched, Receiver::kXpubPastWatch};
  constexpr const char* kNames[] = {"without_xpub", "xpub_watched", "xpub_past_watch"};
  std::vector<double> p50[3], cpu[3], p50_delta[3], cpu_delta[3];
  for (auto _ : state) {
    const std::string address = BusAddress(0);
    BrokerThread broker(address);
    for (int r = 0; r < rounds; ++r) {
      PollRound round[3];
      for (int k = 0; k < 3; ++k) {
        const int v = (r + k) % 3;
        round[v] = DirectReceiveRound(address, kReceivers[v], kLatencySamples);
        if (round[v].p50_us == 0) {
          state.SkipWithError("a round lost messages or had no direct link");
          return;
        }
      }
      for (int v = 0; v < 3; ++v) {
        p50[v].push_back(round[v].p50_us);
        cpu[v].push_back(round[v].cpu_ns_per_message);
        p50_delta[v].push_back(round[v].p50_us - round[0].p50_us);
        cpu_delta[v].push_back(round[v].cpu_ns_per_message - round[0].cpu_ns_per_message);
      }
    }
  }
  for (int v = 0; v < 3; ++v) {
    state.counters[std::string("p50_us_") + kNames[v]] = Percentile(p50[v], 0.5);
    state.counters[std::string("cpu_ns_") + kNames[v]] = Percentile(cpu[v], 0.5);
    if (v > 0) {
      state.counters[std::string("p50_delta_us_") + kNames[v]] = Percentile(p50_delta[v], 0.5);
      state.counters[std::string("cpu_delta_ns_") + kNames[v]] = Percentile(cpu_delta[v], 0.5);
    }
  }
  state.SetLabel("ipc, 64 B, medians over rounds");
}
BENCHMARK(BM_DirectPollWithXpub)->Arg(15)->Iterations(1)->Unit(benchmark::kMillisecond)->UseRealTime();

// One round of one receiver (Arg: 0 without an XPUB, 1 its XPUB watched, 2 past the watch), for instruction counts:
//   valgrind --tool=callgrind --toggle-collect='limbic::bus::Node::Poll*' build/bench/bus_bench
//     --benchmark_filter='DirectPollOneReceiver/1$'
// (Node::Poll's instructions, the wait included, over the round's 2,000 messages and its warm-up.)
void BM_DirectPollOneReceiver(benchmark::State& state) {
  const auto receiver = static_cast<Receiver>(state.range(0));
  PollRound round;
  for (auto _ : state) {
    const std::string address = BusAddress(0);
    BrokerThread broker(address);
    round = DirectReceiveRound(address, receiver, kLatencySamples);
  }
  if (round.p50_us == 0) state.SkipWithError("the round lost messages or had no direct link");
  state.counters["p50_us"] = round.p50_us;
  state.counters["cpu_ns"] = round.cpu_ns_per_message;
}
BENCHMARK(BM_DirectPollOneReceiver)->DenseRange(0, 2)->Iterations(1)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace
}  // namespace limbic

BENCHMARK_MAIN();
