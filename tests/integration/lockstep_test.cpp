// Lockstep determinism: the toy pipeline with feedback gives the same output hash run after run, in
// one process over inproc://, and as separate processes over ipc:// and tcp://.
#include <gtest/gtest.h>

#include <fstream>

#include "common/runtime/in_process.hpp"
#include "tests/testing/process.hpp"
#include "tests/toy/toy_services.hpp"

namespace limbic {
namespace {

using namespace std::chrono_literals;
constexpr int kTicks = 300;
const char* kParticipants = "source,scale,sink";

std::string ReadHash(const std::string& path) {
  std::ifstream in(path);
  std::string hash, ticks;
  in >> hash >> ticks;
  return ticks == std::to_string(kTicks) ? hash : "incomplete(" + ticks + ")";
}

std::string RunInProcessPipeline(const testing::TempDir& dir, const std::string& name, int seed) {
  std::vector<runtime::HostedService> services;
  auto make = [&](const char* role) {
    runtime::HostedService s{*toy::FindToyService(role), {}};
    s.options.robot = "";
    return s;
  };
  auto source = make("source");
  source.options.coordinate = true;
  source.options.participants = {"source", "scale", "sink"};
  source.options.max_ticks = kTicks;
  source.options.overrides = {"seed=" + std::to_string(seed)};
  auto sink = make("sink");
  sink.options.overrides = {"hash_file=" + dir / (name + ".hash")};
  services = {source, make("scale"), sink};
  std::atomic<bool> stop{false};
  EXPECT_EQ(runtime::RunInProcess("inproc://" + name, services, stop), 0);
  return ReadHash(dir / (name + ".hash"));
}

std::string RunMultiProcessPipeline(const testing::TempDir& dir, const std::string& bus, const std::string& name) {
  testing::ChildProcess broker({testing::Bin("limbic-bus"), "--bus", bus}, dir / (name + "-bus.log"));
  auto common = [&](const char* role) {
    return std::vector<std::string>{
        testing::Bin("limbic-toy"), role, "--bus", bus, "--robot", "", "--mode", "lockstep"};
  };
  auto source_args = common("source");
  for (const char* a : {"--coordinate", "--participants", kParticipants, "--max-ticks"}) source_args.push_back(a);
  source_args.push_back(std::to_string(kTicks));
  source_args.push_back("--set");
  source_args.push_back("seed=7");
  auto sink_args = common("sink");
  sink_args.push_back("--set");
  sink_args.push_back("hash_file=" + dir / (name + ".hash"));
  testing::ChildProcess sink(sink_args, dir / (name + "-sink.log"));
  testing::ChildProcess scale(common("scale"), dir / (name + "-scale.log"));
  testing::ChildProcess source(source_args, dir / (name + "-source.log"));
  EXPECT_EQ(source.Wait(60s), 0) << source.Log();
  EXPECT_EQ(sink.Wait(10s), 0) << sink.Log();
  EXPECT_EQ(scale.Wait(10s), 0) << scale.Log();
  broker.Signal(SIGTERM);
  EXPECT_EQ(broker.Wait(5s), 0);
  return ReadHash(dir / (name + ".hash"));
}

TEST(Lockstep, InProcessRunsAreIdentical) {
  testing::TempDir dir;
  const std::string first = RunInProcessPipeline(dir, "first", 7);
  const std::string second = RunInProcessPipeline(dir, "second", 7);
  EXPECT_EQ(first, second);
  EXPECT_EQ(first.find("incomplete"), std::string::npos) << first;
  // The seed matters: a different seed gives a different sequence.
  EXPECT_NE(RunInProcessPipeline(dir, "other", 8), first);
}

TEST(Lockstep, SeparateProcessesOverIpcAndTcpMatchInProcess) {
  testing::TempDir dir;
  const std::string in_process = RunInProcessPipeline(dir, "inproc", 7);
  const std::string ipc = RunMultiProcessPipeline(dir, "ipc://" + dir / "bus", "ipc");
  const std::string tcp =
      RunMultiProcessPipeline(dir, "tcp://127.0.0.1:" + std::to_string(testing::FreeTcpPortPair()), "tcp");
  EXPECT_EQ(ipc, in_process);
  EXPECT_EQ(tcp, in_process);
}

TEST(Lockstep, CoordinatorRefusesASameTickLoop) {
  std::vector<runtime::HostedService> services;
  runtime::HostedService a{*toy::FindToyService("loop_a"), {}};
  a.options.robot = "";
  a.options.coordinate = true;
  a.options.participants = {"loop_a", "loop_b"};
  runtime::HostedService b{*toy::FindToyService("loop_b"), {}};
  b.options.robot = "";
  std::atomic<bool> stop{false};
  EXPECT_EQ(runtime::RunInProcess("inproc://loop", {a, b}, stop), 2);
}

}  // namespace
}  // namespace limbic
