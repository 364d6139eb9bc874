// Issue 6 item 4: the same run (set, environment, seed, configuration) gives identical run metrics in
// one process (over the in-memory bus experiments use, and over ZeroMQ inproc://), as separate
// processes over ipc://, and over tcp://.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "tests/testing/process.hpp"
#include "common/runtime/in_process.hpp"
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

std::vector<std::string> RunSeparateProcesses(const stack::StackSpec& spec, const std::string& bus,
                                              const testing::TempDir& dir, const std::string& name) {
  testing::ChildProcess broker({testing::Bin("limbic-bus"), "--bus", bus}, dir / (name + "-bus.log"));
  std::vector<std::unique_ptr<testing::ChildProcess>> services;
  for (const auto& [service, argv] : stack::StackCommands(spec, testing::BinDir(), bus)) {
    services.push_back(std::make_unique<testing::ChildProcess>(argv, dir / (name + "-" + service + ".log")));
  }
  for (auto& s : services) EXPECT_EQ(s->Wait(120s), 0) << s->Log();
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

TEST(Determinism, SameRunMetricsInProcessOverIpcAndOverTcp) {
  testing::TempDir dir;
  const Case cases[] = {{'B', 0, "affective"}, {'D', 1, "affective"}, {'G', 2, "constant"}};
  for (const Case& c : cases) {
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
    spec.metrics_csv = dir / (name + "-ipc.csv");
    const auto ipc = RunSeparateProcesses(spec, "ipc://" + dir / (name + "-bus"), dir, name + "-ipc");
    spec.metrics_csv = dir / (name + "-tcp.csv");
    const auto tcp = RunSeparateProcesses(spec, "tcp://127.0.0.1:" + std::to_string(testing::FreeTcpPortPair()), dir,
                                         name + "-tcp");
    EXPECT_EQ(ipc, inproc) << name;
    EXPECT_EQ(tcp, inproc) << name;
    std::cout << name << " (" << c.config << "): " << inproc[1] << "\n";
  }
}

}  // namespace
}  // namespace limbic
