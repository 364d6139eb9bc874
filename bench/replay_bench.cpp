// Replay against the broker (issue 17: "replaying a recording at --rate 0 sustains at least the
// broker's own throughput"), measured side by side in one run: the same messages (count and size),
// the same machine moment.
//
//   build/bench/replay_bench [--benchmark_filter=64] [--benchmark_repetitions=3]
//
// Per iteration, three figures over the same verified ObstacleSet messages of the asked size (each
// with its own seq and stamp, so a compressed chunk is no trivial run of copies):
//   broker_msgs_per_s  the broker's own throughput: a bus::Node sends the prebuilt messages with
//   SendRaw
//                      (the cheapest publisher there is) through bus::Broker (the class behind
//                      limbic-bus, on its own thread and context, verifying every payload) to a
//                      plain ZeroMQ DEALER subscriber that only counts (the cheapest subscriber), first
//                      send to last arrival. Publisher and subscriber cost next to nothing, so the
//                      broker is what limits.
//   replay_msgs_per_s  the same messages recorded with bag::BagWriter (zstd, 1 MiB chunks: what
//                      `limbic record` writes), then played by bag::Player at rate 0 (what `limbic
//                      play
//                      --rate 0` runs: open, map, decompress, check CRCs, select, send with
//                      Node::SendRaw) through a fresh broker to the same counting subscriber; from
//                      the start of the pass to the last arrival.
//   player_msgs_per_s  bag::Player alone (send = count bytes): the player's own ceiling;
//   player_cpu_msgs_per_s  the same per second of the player thread's CPU time (what it would reach
//   with a
//                      core of its own).
//   ratio              replay / broker (each the best of two alternated runs). At least ~1 means
//   the player is not what limits a replay.
// The subscriber receives every message (high-water marks 0 everywhere; a missing one fails the
// run).
#include <benchmark/benchmark.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include "common/bus/broker.hpp"
#include "common/bus/bus.hpp"
#include "messages/messages.hpp"
#include "tools/bag/bag_player.hpp"
#include "tools/bag/bag_writer.hpp"

namespace limbic {
namespace {

using Clock = std::chrono::steady_clock;
using namespace std::chrono_literals;

int64_t NowNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now().time_since_epoch()).count();
}

constexpr char kTopic[] = "bench/replay";

// CPU seconds of the calling thread: on a shared machine the wall-clock rate says as much about the
// neighbours as about the code.
double ThreadCpuS() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

// `count` verified ObstacleSet messages of about `target` bytes each (never less than the
// smallest), seq 1..N.
std::vector<std::vector<uint8_t>> Messages(size_t target, int count) {
  // `padding` points (16 B each, finite, as the broker's value rules demand).
  auto build = [](size_t padding, uint64_t seq) {
    flatbuffers::FlatBufferBuilder fbb(padding * 16 + 256);
    auto header = msg::CreateHeaderDirect(fbb, static_cast<int64_t>(seq) * 1'000'000, static_cast<int64_t>(seq), seq,
                                          "bench", false, 1);
    std::vector<msg::Vec2> points;
    for (size_t i = 0; i < padding; ++i)
      points.emplace_back(0.01 * static_cast<double>((seq + i) % 977), 0.02 * static_cast<double>(i));
    fbb.Finish(msg::CreateObstacleSetDirect(fbb, header, &points, nullptr, 0),
               messages::Traits<msg::ObstacleSet>::kIdentifier);
    return std::vector<uint8_t>(fbb.GetBufferPointer(), fbb.GetBufferPointer() + fbb.GetSize());
  };
  size_t padding = 0;
  const size_t base = build(0, 1).size();
  if (target > base) padding = target - base;
  padding /= 16;
  while (padding > 0 && build(padding, 1).size() > target) --padding;
  std::vector<std::vector<uint8_t>> out;
  out.reserve(static_cast<size_t>(count));
  for (int i = 0; i < count; ++i) out.push_back(build(padding, static_cast<uint64_t>(i) + 1));
  return out;
}

bus::NodeOptions FastNode(const char* name) {
  bus::NodeOptions options;
  options.name = name;
  options.send_hwm = options.receive_hwm = 0;
  options.latched_resend = 0ms;
  return options;
}

// A broker on its own thread and context, and a plain SUB socket on its output that counts messages
// of kTopic on its own thread. `Run(send)` waits until the subscription is in place (a warm-up
// message arrives), calls `send`, and returns messages per second from the call to the
// `expected`-th arrival.
class BrokerRig {
 public:
  BrokerRig()
      : address_("ipc:///tmp/limbic-replay-bench-" + std::to_string(::getpid()) + "-" + std::to_string(++count_)) {
    bus::BrokerOptions options;
    options.address = address_;
    options.send_hwm = options.receive_hwm = 0;
    broker_ = std::make_unique<bus::Broker>(broker_context_, options);
    broker_thread_ = std::thread([this] { broker_->Run(stop_); });
  }
  ~BrokerRig() {
    stop_ = true;
    broker_thread_.join();
  }
  const std::string& address() const { return address_; }

  template <typename Send>
  double Run(bus::Node& warm_sender, const std::vector<uint8_t>& warm, int64_t expected, Send&& send) {
    std::atomic<int64_t> received{0}, last_ns{0};
    std::atomic<bool> ready{false}, give_up{false};
    std::thread reader([&] {
      // The broker's subscriber protocol by hand (a DEALER; "\x01PREFIX" subscribes, see
      // common/bus/broker.hpp): the cheapest subscriber that still gets every message.
      zmq::socket_t sub(sub_context_, zmq::socket_type::dealer);
      sub.set(zmq::sockopt::linger, 0);
      sub.set(zmq::sockopt::rcvhwm, 0);
      sub.connect(bus::ResolveBusAddress(address_).backend);
      const std::string subscribe = std::string(1, '\x01') + "bench/";
      sub.send(zmq::buffer(subscribe), zmq::send_flags::none);
      zmq::message_t topic, body;
      const auto deadline = Clock::now() + 120s;
      while (Clock::now() < deadline && !give_up.load()) {
        if (!sub.recv(topic, zmq::recv_flags::dontwait)) {
          zmq::pollitem_t items[] = {{sub.handle(), 0, ZMQ_POLLIN, 0}};
          zmq::poll(items, 1, 10ms);
          continue;
        }
        if (!topic.more()) {  // a control frame: a ping, or "resubscribe" from a broker that lost us
          if (topic.size() == 1 && topic.data<char>()[0] == '\x01') {
            sub.send(zmq::buffer(subscribe), zmq::send_flags::none);
          }
          continue;
        }
        if (!sub.recv(body)) continue;
        while (body.more()) (void)sub.recv(body);
        if (topic.to_string_view() == "bench/warm") {
          ready = true;
          continue;
        }
        if (received.fetch_add(1) + 1 == expected) {
          last_ns = NowNs();
          return;
        }
      }
    });
    for (int i = 0; i < 2000 && !ready.load(); ++i) {
      warm_sender.SendRaw("bench/warm", warm.data(), warm.size());
      std::this_thread::sleep_for(5ms);
    }
    std::this_thread::sleep_for(50ms);  // warm-up messages drained
    const int64_t t0 = NowNs();
    send();
    // Everything sent: wait for the last arrival (or give up after the deadline).
    const auto deadline = Clock::now() + 120s;
    while (received.load() < expected && Clock::now() < deadline) std::this_thread::sleep_for(1ms);
    give_up = true;
    reader.join();
    if (received.load() < expected) return 0.0;
    return static_cast<double>(expected) / (static_cast<double>(last_ns.load() - t0) * 1e-9);
  }

 private:
  static inline int count_ = 0;
  std::string address_;
  zmq::context_t broker_context_{1}, sub_context_{1};
  std::unique_ptr<bus::Broker> broker_;
  std::atomic<bool> stop_{false};
  std::thread broker_thread_;
};

// Args: message size in bytes, message count.
void BM_ReplayVsBroker(benchmark::State& state) {
  const size_t size = static_cast<size_t>(state.range(0));
  const int count = static_cast<int>(state.range(1));
  const auto messages = Messages(size, count);
  const std::vector<uint8_t> warm = Messages(size, 1)[0];
  const std::string path =
      (std::filesystem::temp_directory_path() / ("replay_bench_" + std::to_string(::getpid()) + ".mcap")).string();
  {
    bag::BagWriter writer({.path = path});
    uint64_t t = 1'700'000'000'000'000'000ull;
    for (const auto& m : messages) writer.Write(kTopic, m.data(), m.size(), t += 1000);
    writer.Close();
  }
  const auto file_bytes = std::filesystem::file_size(path);
  double broker_rate = 0, replay_rate = 0, player_rate = 0, player_cpu_rate = 0;
  auto broker_run = [&] {
    BrokerRig rig;
    zmq::context_t context(1);
    bus::Node pub(context, rig.address(), FastNode("bench"));
    return rig.Run(pub, warm, count, [&] {
      for (const auto& m : messages) pub.SendRaw(kTopic, m.data(), m.size());
    });
  };
  auto replay_run = [&] {
    BrokerRig rig;
    zmq::context_t context(1);
    bus::Node node(context, rig.address(), FastNode("limbic-play"));
    return rig.Run(node, warm, count, [&] {
      bag::Player player({path}, {.rate = 0}, [&](const std::string& topic, std::span<const uint8_t> data) {
        node.SendRaw(topic, data.data(), data.size());
      });
      const std::atomic<bool> stop{false};
      const auto problems = player.PlayPass(stop);
      if (!problems.empty()) state.SkipWithError(problems.front().c_str());
    });
  };
  for (auto _ : state) {
    // Alternated and each taken at its best of two, so neither gains from going second (warm page
    // cache, allocator) or loses to a burst of load from elsewhere on a shared machine.
    for (int round = 0; round < 2; ++round) {
      broker_rate = std::max(broker_rate, broker_run());
      replay_rate = std::max(replay_rate, replay_run());
    }
    {
      uint64_t bytes = 0;
      bag::Player player({path}, {.rate = 0},
                         [&](const std::string&, std::span<const uint8_t> data) { bytes += data.size(); });
      const std::atomic<bool> stop{false};
      const auto t0 = Clock::now();
      const double cpu0 = ThreadCpuS();
      player.PlayPass(stop);
      const double s = std::chrono::duration<double>(Clock::now() - t0).count();
      player_rate = static_cast<double>(player.played()) / s;
      player_cpu_rate = static_cast<double>(player.played()) / (ThreadCpuS() - cpu0);
      benchmark::DoNotOptimize(bytes);
    }
  }
  std::filesystem::remove(path);
  if (broker_rate == 0 || replay_rate == 0) {
    state.SkipWithError("not every message arrived");
    return;
  }
  state.counters["bytes"] = static_cast<double>(messages[0].size());
  state.counters["file_MB"] = static_cast<double>(file_bytes) * 1e-6;
  state.counters["broker_msgs_per_s"] = broker_rate;
  state.counters["replay_msgs_per_s"] = replay_rate;
  state.counters["player_msgs_per_s"] = player_rate;
  state.counters["player_cpu_msgs_per_s"] = player_cpu_rate;
  state.counters["ratio"] = replay_rate / broker_rate;
}
BENCHMARK(BM_ReplayVsBroker)
    ->Args({64, 200000})
    ->Args({1024, 100000})
    ->Iterations(1)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

// The player alone (send = count bytes), per chunk compression: where its time goes (perf record
// this one: `--benchmark_filter=PlayerAlone`). Args: message size, count, compression (0 none, 1
// zstd, 2 lz4).
void BM_PlayerAlone(benchmark::State& state) {
  const auto messages = Messages(static_cast<size_t>(state.range(0)), static_cast<int>(state.range(1)));
  const auto compression = static_cast<mcap::Compression>(state.range(2));
  const std::string path =
      (std::filesystem::temp_directory_path() / ("replay_bench_alone_" + std::to_string(::getpid()) + ".mcap"))
          .string();
  {
    bag::BagWriter writer({.path = path, .compression = compression});
    uint64_t t = 1'700'000'000'000'000'000ull;
    for (const auto& m : messages) writer.Write(kTopic, m.data(), m.size(), t += 1000);
    writer.Close();
  }
  uint64_t played = 0, bytes = 0;
  for (auto _ : state) {
    bag::Player player({path}, {.rate = 0},
                       [&](const std::string&, std::span<const uint8_t> data) { bytes += data.size(); });
    const std::atomic<bool> stop{false};
    player.PlayPass(stop);
    played += player.played();
  }
  std::filesystem::remove(path);
  benchmark::DoNotOptimize(bytes);
  state.counters["msgs_per_s"] = benchmark::Counter(static_cast<double>(played), benchmark::Counter::kIsRate);
  state.SetLabel(mcap::CompressionName(compression)[0] ? mcap::CompressionName(compression) : "none");
}
BENCHMARK(BM_PlayerAlone)->ArgsProduct({{64, 1024}, {100000}, {0, 1, 2}})->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace
}  // namespace limbic

BENCHMARK_MAIN();
