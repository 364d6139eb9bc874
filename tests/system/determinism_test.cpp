// Issue 6 item 4: the same run (set, environment, seed, configuration) gives identical run metrics in
// one process (over the in-memory bus experiments use, and over ZeroMQ inproc://), as separate
// processes over ipc://, and over tcp://; and (issue 23 item 1) with the processes on the direct data path
// (LIMBIC_BUS_PATH=direct: the broker as directory only) over ipc:// and tcp://.
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <optional>
#include <sstream>
#include <thread>

#include "common/runtime/in_process.hpp"
#include "tests/testing/process.hpp"
#include "tools/stack/stack.hpp"

namespace limbic {
namespace {

using namespace std::chrono_literals;

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

std::vector<std::string> RunSeparateProcesses(const stack::StackSpec& spec, const std::string& bus,
                                              const testing::TempDir& dir, const std::string& name,
                                              Path path = Path::kBroker) {
  testing::ChildProcess broker({testing::Bin("limbic-bus"), "--bus", bus}, dir / (name + "-bus.log"));
  std::vector<std::pair<std::string, std::unique_ptr<testing::ChildProcess>>> services;
  // The services inherit the environment: each node reads its data path from it (bus::DataPathFromEnvironment).
  // Named either way: direct is the default, and the run under test must not depend on it.
  std::optional<testing::ScopedEnvironment> bus_path;
  bus_path.emplace("LIMBIC_BUS_PATH", path == Path::kDirect ? "direct" : "broker");
  for (const auto& [service, argv] : stack::StackCommands(spec, testing::BinDir(), bus)) {
    services.emplace_back(service,
                          std::make_unique<testing::ChildProcess>(argv, dir / (name + "-" + service + ".log")));
  }
  bus_path.reset();
  for (auto& [service, s] : services) EXPECT_EQ(s->Wait(120s), 0) << name << ": " << service << "\n" << s->Log();
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
  stack::StackSpec spec;
  spec.set = 'B';
  spec.index = 0;
  spec.robots = 3;
  spec.iterations = 1;
  spec.seed = 7;
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
  stack::StackSpec spec;
  spec.set = 'B';
  spec.index = 0;
  spec.iterations = 1;
  spec.seed = 7;
  spec.max_ticks = 3000;
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
