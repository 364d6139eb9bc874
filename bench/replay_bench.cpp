// Replay against the broker (issue 17: "replaying a recording at --rate 0 sustains at least the
// broker's own throughput"), measured side by side in one run: the same messages (count and size),
// the same machine moment.
//
//   build/bench/replay_bench --benchmark_filter=Vs          # the comparison (about 30 s)
//   build/bench/replay_bench --benchmark_filter=PlayerAlone # the player's own cost, per compression
//   build/bench/replay_bench --benchmark_filter=Through     # each side alone (for perf record)
//
// BM_ReplayVsBroker, over the same verified ObstacleSet messages of the asked size (each with its
// own seq and stamp, so a compressed chunk is no trivial run of copies):
//   broker_msgs_per_s  the broker's own throughput: a bus::Node sends the prebuilt messages with
//                      SendRaw (the cheapest publisher there is) through bus::Broker (the class behind
//                      limbic-bus, on its own thread and context, verifying every payload) to a
//                      DEALER subscriber that only counts (the cheapest subscriber), first send to
//                      last arrival. Publisher and subscriber cost next to nothing: the broker limits.
//   replay_msgs_per_s  the same messages recorded with bag::BagWriter (zstd, 1 MiB chunks: what
//                      `limbic record` writes), then played by bag::Player at rate 0 (what `limbic
//                      play --rate 0` runs: open, map, decompress and check CRCs on its read-ahead
//                      thread, select, send with Node::SendShared, i.e. from the chunk without a
//                      copy) through a fresh broker to the same counting subscriber; from the start
//                      of the pass to the last arrival.
//   ratio              replay / broker, each the best of kRounds (5) alternated runs; ratio_min,
//                      ratio_median, ratio_max: over the per-round pairs, each pair run back to back
//                      (the median is the steadiest figure on a shared machine, the spread shows
//                      how shared it was).
//   broker_cpu_us, replay_cpu_us  CPU seconds of the whole process (publisher or player, broker,
//                      subscriber, ZeroMQ's I/O threads) per message delivered, the least of the
//                      rounds: what a message costs the machine end to end, much less disturbed by
//                      the neighbours than a rate. On two busy cores, rate ~ cores / CPU per message.
//   broker_send_ms, replay_send_ms  how long the publisher took to hand every message over (best
//                      round); the rest of the run is the broker draining its queue.
//   player_cpu_msgs_per_s  bag::Player alone (send = count bytes) per second of process CPU.
// The subscriber receives every message (high-water marks 0 everywhere; a missing one fails the
// run).
#include <benchmark/benchmark.h>
#include <sys/resource.h>
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

// CPU seconds of the whole process (every thread, user and system).
double ProcessCpuS() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
         static_cast<double>(u.ru_utime.tv_usec + u.ru_stime.tv_usec) * 1e-6;
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
  // The last Run: seconds `send` took, and CPU seconds of the process from the send to the last
  // arrival.
  double last_send_s() const { return last_send_s_; }
  double last_cpu_s() const { return last_cpu_s_; }

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
    const double cpu0 = ProcessCpuS();
    send();
    last_send_s_ = static_cast<double>(NowNs() - t0) * 1e-9;
    // Everything sent: wait for the last arrival (or give up after the deadline).
    const auto deadline = Clock::now() + 120s;
    while (received.load() < expected && Clock::now() < deadline) std::this_thread::sleep_for(1ms);
    last_cpu_s_ = ProcessCpuS() - cpu0;
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
  double last_send_s_ = 0, last_cpu_s_ = 0;
};

// One run of BM_ReplayVsBroker's publisher or player through a fresh broker.
struct RunFigures {
  double rate = 0;    // messages per second delivered, 0 if some never arrived
  double send_s = 0;  // the publisher's part
  double cpu_s = 0;   // the process's CPU from the send to the last arrival
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
  auto broker_run = [&] {
    BrokerRig rig;
    zmq::context_t context(1);
    bus::Node pub(context, rig.address(), FastNode("bench"));
    const double rate = rig.Run(pub, warm, count, [&] {
      for (const auto& m : messages) pub.SendRaw(kTopic, m.data(), m.size());
    });
    return RunFigures{rate, rig.last_send_s(), rig.last_cpu_s()};
  };
  auto replay_run = [&] {
    BrokerRig rig;
    zmq::context_t context(1);
    bus::Node node(context, rig.address(), FastNode("limbic-play"));
    const double rate = rig.Run(node, warm, count, [&] {
      bag::Player player({path}, {.rate = 0},
                         [&](const std::string& topic, std::span<const uint8_t> data,
                             const std::shared_ptr<const void>& owner) { node.SendShared(topic, data, owner); });
      const std::atomic<bool> stop{false};
      const auto problems = player.PlayPass(stop);
      if (!problems.empty()) state.SkipWithError(problems.front().c_str());
    });
    return RunFigures{rate, rig.last_send_s(), rig.last_cpu_s()};
  };
  constexpr int kRounds = 5;
  RunFigures best_broker, best_replay;
  double broker_cpu = 1e9, replay_cpu = 1e9, player_cpu_rate = 0;
  std::vector<double> ratios;  // per round: replay / broker, run back to back
  for (auto _ : state) {
    // Alternated, so neither gains from going second (warm page cache, allocator) or loses to a
    // burst of load from elsewhere on a shared machine; rates taken at their best.
    for (int round = 0; round < kRounds; ++round) {
      const RunFigures b = broker_run(), r = replay_run();
      if (b.rate == 0 || r.rate == 0) {
        state.SkipWithError("not every message arrived");
        return;
      }
      if (b.rate > best_broker.rate) best_broker = b;
      if (r.rate > best_replay.rate) best_replay = r;
      broker_cpu = std::min(broker_cpu, b.cpu_s / count);
      replay_cpu = std::min(replay_cpu, r.cpu_s / count);
      ratios.push_back(r.rate / b.rate);
    }
    {
      uint64_t bytes = 0;
      bag::Player player({path}, {.rate = 0},
                         [&](const std::string&, std::span<const uint8_t> data, const std::shared_ptr<const void>&) {
                           bytes += data.size();
                         });
      const std::atomic<bool> stop{false};
      const double cpu0 = ProcessCpuS();
      player.PlayPass(stop);
      player_cpu_rate = static_cast<double>(player.played()) / (ProcessCpuS() - cpu0);
      benchmark::DoNotOptimize(bytes);
    }
  }
  std::filesystem::remove(path);
  state.counters["bytes"] = static_cast<double>(messages[0].size());
  state.counters["file_MB"] = static_cast<double>(file_bytes) * 1e-6;
  state.counters["broker_msgs_per_s"] = best_broker.rate;
  state.counters["replay_msgs_per_s"] = best_replay.rate;
  state.counters["ratio"] = best_replay.rate / best_broker.rate;
  std::sort(ratios.begin(), ratios.end());
  state.counters["ratio_min"] = ratios.front();
  state.counters["ratio_median"] = ratios[ratios.size() / 2];
  state.counters["ratio_max"] = ratios.back();
  state.counters["broker_cpu_us"] = broker_cpu * 1e6;
  state.counters["replay_cpu_us"] = replay_cpu * 1e6;
  state.counters["broker_send_ms"] = best_broker.send_s * 1e3;
  state.counters["replay_send_ms"] = best_replay.send_s * 1e3;
  state.counters["player_cpu_msgs_per_s"] = player_cpu_rate;
}
BENCHMARK(BM_ReplayVsBroker)
    ->Args({64, 200000})
    ->Args({1024, 100000})
    ->Iterations(1)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

// One side of BM_ReplayVsBroker alone, repeated, so a profiler sees it apart from the other:
//   perf record -g build/bench/replay_bench --benchmark_filter='Through/1024/100000/1'
// Args: message size, count, what (0: the prebuilt publisher, 1: the player of a zstd recording, 2:
// the same player without its read-ahead thread, 3: the prebuilt publisher sending without a copy,
// Node::SendShared, as the player does: how much of the difference is the copy).
// msgs_per_s: the best run; cpu_us: process CPU per message delivered, the least of the runs.
void BM_Through(benchmark::State& state) {
  const size_t size = static_cast<size_t>(state.range(0));
  const int count = static_cast<int>(state.range(1));
  const bool replay = state.range(2) == 1 || state.range(2) == 2, read_ahead = state.range(2) == 1;
  const bool shared = state.range(2) == 3;
  const auto messages = Messages(size, count);
  const std::vector<uint8_t> warm = Messages(size, 1)[0];
  const std::string path =
      (std::filesystem::temp_directory_path() / ("replay_bench_through_" + std::to_string(::getpid()) + ".mcap"))
          .string();
  if (replay) {
    bag::BagWriter writer({.path = path});
    uint64_t t = 1'700'000'000'000'000'000ull;
    for (const auto& m : messages) writer.Write(kTopic, m.data(), m.size(), t += 1000);
    writer.Close();
  }
  double best = 0, cpu = 1e9;
  for (auto _ : state) {
    BrokerRig rig;
    zmq::context_t context(1);
    bus::Node node(context, rig.address(), FastNode(replay ? "limbic-play" : "bench"));
    const double rate = rig.Run(node, warm, count, [&] {
      if (shared) {
        // One owner for them all (a chunk's messages share theirs), never freed: they outlive the run.
        const std::shared_ptr<const void> owner(&messages, [](const void*) {});
        for (const auto& m : messages) node.SendShared(kTopic, m, owner);
        return;
      }
      if (!replay) {
        for (const auto& m : messages) node.SendRaw(kTopic, m.data(), m.size());
        return;
      }
      bag::Player player({path}, {.rate = 0, .read_ahead = read_ahead},
                         [&](const std::string& topic, std::span<const uint8_t> data,
                             const std::shared_ptr<const void>& owner) { node.SendShared(topic, data, owner); });
      const std::atomic<bool> stop{false};
      player.PlayPass(stop);
    });
    if (rate == 0) {
      state.SkipWithError("not every message arrived");
      break;
    }
    best = std::max(best, rate);
    cpu = std::min(cpu, rig.last_cpu_s() / count);
  }
  std::filesystem::remove(path);
  state.counters["msgs_per_s"] = best;
  state.counters["cpu_us"] = cpu * 1e6;
  state.SetLabel(shared ? "broker, shared" : !replay ? "broker" : read_ahead ? "replay" : "replay, no read-ahead");
}
BENCHMARK(BM_Through)
    ->ArgsProduct({{64, 1024}, {100000}, {0, 1, 2, 3}})
    ->Iterations(3)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

// The player alone (send = count bytes), per chunk compression: where its time goes (perf record
// this one: `--benchmark_filter=PlayerAlone`). Args: message size, count, compression (0 none, 1
// zstd, 2 lz4), read-ahead thread (1) or none (0). msgs_per_s: wall-clock rate; cpu_ns: process CPU per message (the
// read-ahead thread included); sender_cpu_ns: CPU per message of the thread that calls `send` (what is left on the
// sending thread once decompression and CRCs run ahead on their own).
void BM_PlayerAlone(benchmark::State& state) {
  const auto messages = Messages(static_cast<size_t>(state.range(0)), static_cast<int>(state.range(1)));
  const auto compression = static_cast<mcap::Compression>(state.range(2));
  const bool read_ahead = state.range(3) == 1;
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
  double cpu = 0, sender_cpu = 0;
  for (auto _ : state) {
    bag::Player player({path}, {.rate = 0, .read_ahead = read_ahead},
                       [&](const std::string&, std::span<const uint8_t> data, const std::shared_ptr<const void>&) {
                         bytes += data.size();
                       });
    const std::atomic<bool> stop{false};
    const double cpu0 = ProcessCpuS(), thread0 = ThreadCpuS();
    player.PlayPass(stop);
    cpu += ProcessCpuS() - cpu0;
    sender_cpu += ThreadCpuS() - thread0;
    played += player.played();
  }
  std::filesystem::remove(path);
  benchmark::DoNotOptimize(bytes);
  state.counters["msgs_per_s"] = benchmark::Counter(static_cast<double>(played), benchmark::Counter::kIsRate);
  state.counters["cpu_ns"] = cpu * 1e9 / static_cast<double>(played);
  state.counters["sender_cpu_ns"] = sender_cpu * 1e9 / static_cast<double>(played);
  state.SetLabel(std::string(mcap::CompressionName(compression)[0] ? mcap::CompressionName(compression) : "none") +
                 (read_ahead ? ", read-ahead" : ""));
}
BENCHMARK(BM_PlayerAlone)
    ->ArgsProduct({{64, 1024}, {100000}, {0, 1, 2}, {1, 0}})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

}  // namespace
}  // namespace limbic

BENCHMARK_MAIN();
