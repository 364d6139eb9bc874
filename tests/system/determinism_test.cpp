// Issue 6 item 4: the same run (set, environment, seed, configuration) gives identical run metrics in
// one process (over the in-memory bus experiments use, and over ZeroMQ inproc://), as separate
// processes over ipc://, and over tcp://; and (issue 23 item 1) with the processes on the direct data path
// (LIMBIC_BUS_PATH=direct: the broker as directory only) over ipc:// and tcp://.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <optional>
#include <sstream>
#include <thread>

#include "common/bus/shm.hpp"
#include "common/runtime/in_process.hpp"
#include "tests/testing/private_shm.hpp"
#include "tests/testing/process.hpp"
#include "tools/stack/stack.hpp"

namespace limbic {
namespace {

using namespace std::chrono_literals;

std::string g_isolation = "not tried";  // "" once this process has its own /dev/shm and /tmp (main)

// The metrics rows without the execution time ratio (column 11), which is wall-clock time.
std::vector<std::string> DeterministicRows(const std::string& path) {
  std::ifstream in(path);
  std::vector<std::string> rows;
  for (std::string line; std::getline(in, line);) {
    std::vector<std::string> cells;
    std::stringstream ss(line);
    for (std::string cell; std::getline(ss, cell, ',');) cells.push_back(cell);
    std::string row;
    for (size_t i = 0; i < cells.size(); ++i) {
      if (i != 11) row += cells[i] + ";";
    }
    rows.push_back(row);
  }
  return rows;
}

enum class Path { kBroker, kDirect };
// Large messages (scans, maps) through shared memory (needs a RouDi): with a socket copy (LIMBIC_SHM=1) or alone
// (LIMBIC_SHM=only).
enum class Shm { kOff, kMirrored, kOnly };

std::vector<std::string> RunSeparateProcesses(const stack::StackSpec& spec, const std::string& bus,
                                              const testing::TempDir& dir, const std::string& name,
                                              Path path = Path::kBroker, Shm shm = Shm::kOff,
                                              std::vector<std::string>* logs = nullptr) {
  testing::ChildProcess broker({testing::Bin("limbic-bus"), "--bus", bus}, dir / (name + "-bus.log"));
  std::vector<std::pair<std::string, std::unique_ptr<testing::ChildProcess>>> services;
  // The services inherit the environment: each node reads its data path from it (bus::DataPathFromEnvironment).
  // Named either way: direct is the default, and the run under test must not depend on it.
  std::optional<testing::ScopedEnvironment> bus_path;
  bus_path.emplace("LIMBIC_BUS_PATH", path == Path::kDirect ? "direct" : "broker");
  std::optional<testing::ScopedEnvironment> shared_memory;
  shared_memory.emplace("LIMBIC_SHM", shm == Shm::kOnly ? "only" : shm == Shm::kMirrored ? "1" : "0");
  for (const auto& [service, argv] : stack::StackCommands(spec, testing::BinDir(), bus)) {
    services.emplace_back(service,
                          std::make_unique<testing::ChildProcess>(argv, dir / (name + "-" + service + ".log")));
  }
  bus_path.reset();
  shared_memory.reset();
  for (auto& [service, s] : services) EXPECT_EQ(s->Wait(120s), 0) << name << ": " << service << "\n" << s->Log();
  if (logs != nullptr) {
    for (auto& [service, s] : services) logs->push_back(service + ":\n" + s->Log());
  }
  broker.Signal(SIGTERM);
  broker.Wait(5s);
  return DeterministicRows(spec.metrics_csv);
}

struct Case {
  char set;
  int index;
  const char* config;
};

std::vector<std::string> RunInProcessOverZeroMq(const stack::StackSpec& spec) {
  runtime::InProcessOptions options;
  options.transport = runtime::InProcessTransport::kZeroMq;
  std::atomic<bool> stop{false};
  EXPECT_EQ(runtime::RunInProcess("inproc://determinism", stack::BuildStack(spec), stop, options), 0);
  return DeterministicRows(spec.metrics_csv);
}

// One traversal of set B's environment 0, seed 7, in at most 3,000 ticks (300 s simulated).
stack::StackSpec OneTraversalOfB0() {
  stack::StackSpec spec;
  spec.set = 'B';
  spec.index = 0;
  spec.iterations = 1;
  spec.seed = 7;
  spec.max_ticks = 3000;
  return spec;
}

// Every case runs in one process over the in-memory bus (the reference) and over ZeroMQ inproc, then as separate
// processes: the first case over ipc and tcp on both data paths, the others on the default (direct) over ipc and on
// the broker path over tcp — each transport and each path with every case, without the whole cross product (the
// 45-minute CI budget: 12 runs of separate processes took 90 s of the suite).
TEST(Determinism, SameRunMetricsInProcessOverIpcAndOverTcp) {
  testing::TempDir dir;
  const Case cases[] = {{'B', 0, "affective"}, {'D', 1, "affective"}, {'G', 2, "constant"}};
  for (const Case& c : cases) {
    const bool every_combination = &c == &cases[0];
    stack::StackSpec spec;
    spec.set = c.set;
    spec.index = c.index;
    spec.affect_config = c.config;
    spec.iterations = 1;
    spec.seed = 7;
    spec.max_ticks = 3000;  // a short run: up to 300 s simulated
    const std::string name = std::string(1, c.set) + std::to_string(c.index);
    spec.metrics_csv = dir / (name + "-inproc.csv");
    ASSERT_EQ(stack::RunInProcess(spec), 0);
    const auto inproc = DeterministicRows(spec.metrics_csv);
    ASSERT_EQ(inproc.size(), 2u) << name << ": expected one traversal";
    spec.metrics_csv = dir / (name + "-zmq.csv");
    EXPECT_EQ(RunInProcessOverZeroMq(spec), inproc) << name;
    std::cout << name << " (" << c.config << "): " << inproc[1] << "\n";
    if (every_combination) {
      spec.metrics_csv = dir / (name + "-ipc.csv");
      EXPECT_EQ(RunSeparateProcesses(spec, "ipc://" + dir / (name + "-bus"), dir, name + "-ipc"), inproc) << name;
      spec.metrics_csv = dir / (name + "-tcp-direct.csv");
      EXPECT_EQ(RunSeparateProcesses(spec, "tcp://127.0.0.1:" + std::to_string(testing::FreeTcpPortPair()), dir,
                                     name + "-tcp-direct", Path::kDirect),
                inproc)
          << name;
    }
    spec.metrics_csv = dir / (name + "-ipc-direct.csv");
    EXPECT_EQ(RunSeparateProcesses(spec, "ipc://" + dir / (name + "-dbus"), dir, name + "-ipc-direct", Path::kDirect),
              inproc)
        << name;
    spec.metrics_csv = dir / (name + "-tcp.csv");
    EXPECT_EQ(
        RunSeparateProcesses(spec, "tcp://127.0.0.1:" + std::to_string(testing::FreeTcpPortPair()), dir, name + "-tcp"),
        inproc)
        << name;
  }
}

// Issue 18 item 1: three robots in one world (one simulator, each robot its own hwio, mapper, planner,
// affect, controller and mission) give the same metrics, robot by robot, in one process (in-memory bus and
// ZeroMQ inproc), as 19 processes over ipc:// (broker path) and over tcp:// (direct path).
TEST(Determinism, ThreeRobotsInOneWorldSameMetricsInProcessOverIpcAndOverTcp) {
  testing::TempDir dir;
  stack::StackSpec spec = OneTraversalOfB0();
  spec.robots = 3;
  // Every robot ends its traversal (arrived or timed out) within the run's 1300 ticks, so each writes a row: 120 s
  // simulated, where r3 needs 231 s to arrive (measured 2026-11-28), so the rows hold arrivals and a time-out. Half the
  // run it used to be (the 45-minute CI budget); the robots meet in the first minute.
  spec.max_ticks = 1300;
  spec.options = {"mission.timeout_s=120"};
  const std::vector<std::string> robots{"r1", "r2", "r3"};
  auto rows = [&] {
    std::vector<std::vector<std::string>> out;
    for (const auto& r : robots) out.push_back(DeterministicRows(stack::MetricsCsvFor(spec, r)));
    return out;
  };
  spec.metrics_csv = dir / "team-inproc.csv";
  ASSERT_EQ(stack::RunInProcess(spec), 0);
  const auto inproc = rows();
  for (size_t i = 0; i < robots.size(); ++i) ASSERT_EQ(inproc[i].size(), 2u) << robots[i] << ": expected one traversal";
  EXPECT_NE(inproc[0][1], inproc[1][1]) << "two robots with identical metrics: are they really apart?";
  spec.metrics_csv = dir / "team-zmq.csv";
  RunInProcessOverZeroMq(spec);
  EXPECT_EQ(rows(), inproc);
  for (size_t i = 0; i < robots.size(); ++i) std::cout << robots[i] << ": " << inproc[i][1] << "\n";
  spec.metrics_csv = dir / "team-ipc.csv";
  RunSeparateProcesses(spec, "ipc://" + dir / "team-bus", dir, "team-ipc");
  EXPECT_EQ(rows(), inproc);
  spec.metrics_csv = dir / "team-tcp-direct.csv";
  RunSeparateProcesses(spec, "tcp://127.0.0.1:" + std::to_string(testing::FreeTcpPortPair()), dir, "team-tcp-direct",
                       Path::kDirect);
  EXPECT_EQ(rows(), inproc);
}

// The totals of the services' "shared memory: N messages sent, M received, F sent over the socket path ..., X
// malformed" lines (bus::Node's summary as it ends), and how many services said shared memory was on.
struct ShmTotals {
  uint64_t sent = 0, received = 0, fallbacks = 0, malformed = 0;
  int on = 0, summaries = 0;
};
ShmTotals SumShmSummaries(const std::vector<std::string>& logs) {
  ShmTotals t;
  for (const std::string& log : logs) {
    if (log.find("shared memory: on") != std::string::npos) ++t.on;
    for (size_t at = log.find("shared memory: "); at != std::string::npos; at = log.find("shared memory: ", at + 1)) {
      unsigned long long sent = 0, received = 0, fallbacks = 0, malformed = 0;
      if (std::sscanf(log.c_str() + at,
                      "shared memory: %llu messages sent, %llu received, %llu sent over the socket path for want of a "
                      "chunk, %llu malformed",
                      &sent, &received, &fallbacks, &malformed) == 4) {
        ++t.summaries;
        t.sent += sent;
        t.received += received;
        t.fallbacks += fallbacks;
        t.malformed += malformed;
      }
    }
  }
  return t;
}

// Issue 23 items 2 and 5: the same run with the large messages (the range scans, the maps) through shared memory —
// separate processes with a RouDi of the test's own, on the direct path with the default socket copy (which each
// reader drops as a duplicate of the chunk it took first), then on the broker path with shared memory alone — gives
// the in-process metrics. The services' summaries show that shared memory carried them: a run that quietly fell back
// to the socket path would pass the comparison and fail here.
TEST(Determinism, SameRunMetricsWithLargeMessagesThroughSharedMemory) {
#ifndef LIMBIC_HAVE_SHM
  GTEST_SKIP() << "this build has no shared-memory transport (libiceoryx-posh-dev was not found when configuring)";
#endif
  if (testing::RouDiProgram().empty()) GTEST_SKIP() << "iox-roudi is not installed (tools/setup-debian.sh iceoryx)";
  if (!g_isolation.empty() && bus::ShmRuntime::RouDiRunning()) {
    GTEST_SKIP() << "a RouDi this test did not start runs on this host, and no private one is possible (" << g_isolation
                 << ")";
  }
  testing::TempDir dir;
  testing::ChildProcess roudi({testing::RouDiProgram(), "-m", "off", "-l", "info"}, dir / "roudi.log");
  ASSERT_TRUE(testing::WaitFor([&] { return bus::ShmRuntime::RouDiRunning() || !roudi.Running(); }, 10s) &&
              bus::ShmRuntime::RouDiRunning())
      << roudi.Log();
  stack::StackSpec spec = OneTraversalOfB0();
  spec.affect_config = "affective";
  spec.metrics_csv = dir / "inproc.csv";
  ASSERT_EQ(stack::RunInProcess(spec), 0);
  const auto inproc = DeterministicRows(spec.metrics_csv);
  ASSERT_EQ(inproc.size(), 2u) << "expected one traversal";
  for (const Path path : {Path::kDirect, Path::kBroker}) {
    const std::string name = path == Path::kDirect ? "shm-mirrored-direct" : "shm-only-broker";
    std::vector<std::string> logs;
    spec.metrics_csv = dir / (name + ".csv");
    EXPECT_EQ(RunSeparateProcesses(spec, "ipc://" + dir / (name + "-bus"), dir, name, path,
                                   path == Path::kDirect ? Shm::kMirrored : Shm::kOnly, &logs),
              inproc)
        << name;
    const ShmTotals shm = SumShmSummaries(logs);
    std::cout << name << ": " << shm.on << " of " << logs.size() << " services on shared memory, " << shm.sent
              << " messages sent through it, " << shm.received << " received\n";
    EXPECT_EQ(shm.on, static_cast<int>(logs.size())) << name << ": every service should have said so";
    EXPECT_EQ(shm.summaries, static_cast<int>(logs.size())) << name;
    // At least a range scan a tick (the simulator's): the mission says how many ticks the run took.
    int ticks = 0;
    for (const std::string& log : logs) {
      if (const size_t at = log.find("lockstep: run finished after "); at != std::string::npos) {
        ticks = std::atoi(log.c_str() + at + std::strlen("lockstep: run finished after "));
      }
    }
    EXPECT_GT(ticks, 100) << name;
    EXPECT_GE(shm.sent, static_cast<uint64_t>(ticks)) << name << ": the scans and maps went elsewhere";
    EXPECT_GE(shm.received, shm.sent) << name << ": every scan and map has a subscriber on this host";
    EXPECT_EQ(shm.fallbacks, 0u) << name;
    EXPECT_EQ(shm.malformed, 0u) << name;
  }
}

// Issue 15 item 6 (finding 8): communication faults take time from the run's clock. A lockstep
// participant, r1/faulter, publishes these at tick 0; the broker (or the in-memory bus) applies them on
// [2 s, 62 s) of simulated time. Only feedback (previous-tick) topics: faulting a same-tick input would
// stall the run by design. Every kind: drop, delay (released just before the tick that is due), duplicate,
// corrupt (most corrupted payloads fail verification at the receiver and are dropped there).
runtime::ServiceDefinition FaulterService() {
  return {"faulter", "test: sends communication faults at tick 0", [](runtime::ServiceContext& ctx) {
            auto out = ctx.AddOutput<msg::FaultCommand>("faults");
            ctx.AddStep({}, [out](const runtime::TickInfo& tick) {
              if (tick.tick != 0) return;
              struct Rule {
                const char* id;
                msg::FaultKind kind;
                const char* topic;
                double magnitude, probability;
                uint64_t seed;
              };
              const Rule rules[] = {
                  {"drop-wheels", msg::FaultKind::CommDrop, "r1/wheels", 0, 0.3, 11},
                  {"delay-direction", msg::FaultKind::CommDelay, "r1/control/direction", 0.25, 0, 0},
                  {"dup-affect", msg::FaultKind::CommDuplicate, "r1/affect", 0, 0.5, 12},
                  {"corrupt-velocity", msg::FaultKind::CommCorrupt, "r1/control/velocity", 1, 0.2, 13}};
              for (const Rule& r : rules) {
                out->Publish(tick, [&](flatbuffers::FlatBufferBuilder& fbb, auto header) {
                  return msg::CreateFaultCommandDirect(fbb, header, r.id, r.kind, "r1", -1, -1, -1, r.topic, nullptr,
                                                       2.0, 60.0, r.magnitude, r.probability, r.seed, false);
                });
              }
            });
          }};
}

TEST(Determinism, SameRunMetricsWithCommunicationFaultsTwiceInProcessOverIpcAndOverTcp) {
  testing::TempDir dir;
  stack::StackSpec spec = OneTraversalOfB0();
  spec.metrics_csv = dir / "clean.csv";
  ASSERT_EQ(stack::RunInProcess(spec), 0);
  const auto clean = DeterministicRows(spec.metrics_csv);

  // In one process: the stack plus the faulter, over the in-memory bus (twice) and over ZeroMQ.
  auto run_in_process = [&](const std::string& csv, runtime::InProcessTransport transport) {
    spec.metrics_csv = csv;
    auto services = stack::BuildStack(spec);
    runtime::HostedService faulter{FaulterService(), {}};
    faulter.options.robot = spec.robot;
    services.push_back(faulter);
    for (auto& s : services) {
      if (s.options.coordinate) s.options.participants.push_back("r1/faulter");
    }
    runtime::InProcessOptions options;
    options.transport = transport;
    std::atomic<bool> stop{false};
    static int counter = 0;
    EXPECT_EQ(runtime::RunInProcess("inproc://faults-" + std::to_string(counter++), services, stop, options), 0);
    return DeterministicRows(csv);
  };
  const auto first = run_in_process(dir / "faults-1.csv", runtime::InProcessTransport::kDirect);
  ASSERT_EQ(first.size(), 2u);
  EXPECT_NE(first, clean) << "the faults changed nothing: the comparisons below would prove nothing";
  EXPECT_EQ(run_in_process(dir / "faults-2.csv", runtime::InProcessTransport::kDirect), first);
  EXPECT_EQ(run_in_process(dir / "faults-zmq.csv", runtime::InProcessTransport::kZeroMq), first);

  // Separate processes: the faulter is hosted here, on the same bus, as one more lockstep participant.
  // On the direct path too (issue 23 item 1): `clock` goes through the broker there as well, which applies the faults
  // on the run clock, and each topic a fault names moves to the broker before the fault's window opens.
  auto run_processes = [&](const std::string& bus, const std::string& name, Path path = Path::kBroker) {
    spec.metrics_csv = dir / (name + ".csv");
    testing::ChildProcess broker({testing::Bin("limbic-bus"), "--bus", bus}, dir / (name + "-bus.log"));
    std::vector<std::unique_ptr<testing::ChildProcess>> services;
    if (path == Path::kDirect) ::setenv("LIMBIC_BUS_PATH", "direct", 1);
    for (auto [service, argv] : stack::StackCommands(spec, testing::BinDir(), bus)) {
      for (size_t i = 0; i + 1 < argv.size(); ++i) {
        if (argv[i] == "--participants") argv[i + 1] += ",r1/faulter";
      }
      services.push_back(std::make_unique<testing::ChildProcess>(argv, dir / (name + "-" + service + ".log")));
    }
    zmq::context_t context;
    runtime::HostOptions options;
    options.robot = spec.robot;
    options.bus = bus;
    options.mode = runtime::Mode::kLockstep;
    runtime::Host faulter(context, options, FaulterService());
    if (path == Path::kDirect) ::unsetenv("LIMBIC_BUS_PATH");
    std::atomic<bool> stop{false};
    std::thread thread([&] { faulter.Run(stop); });
    for (auto& s : services) EXPECT_EQ(s->Wait(180s), 0) << s->Log();
    stop = true;
    thread.join();
    broker.Signal(SIGTERM);
    broker.Wait(5s);
    return DeterministicRows(spec.metrics_csv);
  };
  EXPECT_EQ(run_processes("ipc://" + dir / "faults-bus", "faults-ipc"), first);
  EXPECT_EQ(run_processes("tcp://127.0.0.1:" + std::to_string(testing::FreeTcpPortPair()), "faults-tcp"), first);
  std::cout << "with communication faults: " << first[1] << "\n  without: " << clean[1] << "\n";
  EXPECT_EQ(run_processes("ipc://" + dir / "faults-dbus", "faults-ipc-direct", Path::kDirect), first);
}

}  // namespace
}  // namespace limbic

// A private /dev/shm and /tmp for this process and the services it starts (tests/testing/private_shm.hpp): the
// shared-memory run's RouDi meets no other. Harmless to the other tests (their files live in /tmp either way).
int main(int argc, char** argv) {
  limbic::g_isolation = limbic::testing::UsePrivateShmAndTmp();
  ::testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
