// `limbic launch` with `shared_memory: true` (issue 23 item 2): iceoryx's RouDi is started first and supervised
// like any process (killed, it is started again), every other process is told to use it (LIMBIC_SHM=1) and says
// so, and a live service whose RouDi was replaced says once that it continues over the socket path (iceoryx 2.0
// cannot reconnect; the data path itself is tested in common/bus/shm_test.cpp). Runs in a private /dev/shm and
// /tmp where the kernel allows (tests/testing/private_shm.hpp), else one at a time with the other RouDi tests.
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "common/bus/shm.hpp"
#include "tests/testing/private_shm.hpp"
#include "tests/testing/process.hpp"

namespace limbic {
namespace {

using namespace std::chrono_literals;

std::string g_isolation = "not tried";

std::string Environ(int pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/environ");
  std::stringstream text;
  text << in.rdbuf();
  std::string s = text.str();
  for (char& c : s) {
    if (c == '\0') c = '\n';
  }
  return s;
}

// Why this test cannot start a RouDi of its own here, or empty.
std::string WhyNoRouDiOfItsOwn() {
  if (testing::RouDiProgram().empty()) return "iox-roudi is not installed (tools/setup-debian.sh iceoryx)";
  if (!g_isolation.empty() && bus::ShmRuntime::RouDiRunning()) {
    return "a RouDi runs on this host and this test cannot have a private one (" + g_isolation + ")";
  }
  return "";
}

TEST(ShmLaunch, RouDiIsStartedFirstRestartedWhenKilledAndTheServicesAreToldToUseIt) {
  if (const std::string why = WhyNoRouDiOfItsOwn(); !why.empty()) GTEST_SKIP() << why;
  testing::TempDir dir;
  const std::string bus = "ipc://" + dir / "bus";
  const std::string launch_file = dir / "launch.yaml";
  std::ofstream(launch_file) << "shared_memory: true\n"
                             << "backoff: {initial_s: 0.1, max_s: 1, reset_after_s: 10}\n"
                             << "processes:\n"
                             << "  - name: bus\n    command: [limbic-bus, --bus, \"" << bus << "\"]\n"
                             << "    restart: always\n    start_delay_s: 0.3\n"
                             << "  - name: talker\n    command: [limbic-toy, talker, --bus, \"" << bus
                             << "\", --robot, \"\"]\n    restart: always\n";
  const std::string events = dir / "events.jsonl";
  testing::ChildProcess launch({testing::Bin("limbic"), "launch", launch_file, "--events", events}, dir / "launch.log");

  ASSERT_TRUE(testing::WaitFor([&] { return !testing::LaunchedPids(events, "talker").empty(); }, 20s)) << launch.Log();
  const std::vector<int> roudi = testing::LaunchedPids(events, "roudi");
  ASSERT_EQ(roudi.size(), 1u) << launch.Log();
  EXPECT_TRUE(testing::WaitFor([&] { return bus::ShmRuntime::RouDiRunning(); }, 10s)) << launch.Log();
  // (Read once the launcher's child has exec'd the toy: the environment it was given.)
  EXPECT_TRUE(testing::WaitFor(
      [&] {
        return Environ(testing::LaunchedPids(events, "talker").back()).find("LIMBIC_SHM=1\n") != std::string::npos;
      },
      10s));
  ASSERT_TRUE(testing::WaitFor([&] { return launch.Log().find("shared memory: on") != std::string::npos; }, 10s))
      << launch.Log();

  // Killed, RouDi is started again; the live talker notices the new one and stays on the socket path.
  kill(roudi.front(), SIGKILL);
  ASSERT_TRUE(testing::WaitFor([&] { return testing::LaunchedPids(events, "roudi").size() >= 2; }, 20s))
      << launch.Log();
  EXPECT_TRUE(testing::WaitFor([&] { return bus::ShmRuntime::RouDiRunning(); }, 10s)) << launch.Log();
  EXPECT_TRUE(testing::WaitFor(
      [&] { return launch.Log().find("shared memory: RouDi stopped or restarted") != std::string::npos; }, 10s))
      << launch.Log();
  EXPECT_EQ(testing::LaunchedPids(events, "talker").size(), 1u) << "the talker kept running:\n" << launch.Log();

  // Stopped in reverse order: RouDi last, and nothing left.
  launch.Signal(SIGINT);
  EXPECT_NE(launch.Wait(20s), -1) << launch.Log();
  EXPECT_FALSE(bus::ShmRuntime::RouDiRunning());
}

// The processes after RouDi start once it answers, however long it takes: a service asks for it only as it starts
// (3 s at most) and otherwise keeps the socket path for good. A RouDi started 4 s late (a launch file's own `roudi`,
// as a loaded machine's took 4.5 s to reserve its memory) still has the talker on shared memory.
TEST(ShmLaunch, TheServicesStartOnceASlowRouDiAnswers) {
  if (const std::string why = WhyNoRouDiOfItsOwn(); !why.empty()) GTEST_SKIP() << why;
  testing::TempDir dir;
  const std::string bus = "ipc://" + dir / "bus";
  const std::string launch_file = dir / "launch.yaml";
  std::ofstream(launch_file) << "shared_memory: true\n"
                             << "processes:\n"
                             << "  - name: roudi\n    command: [sh, -c, \"sleep 4; exec iox-roudi\"]\n"
                             << "  - name: bus\n    command: [limbic-bus, --bus, \"" << bus << "\"]\n"
                             << "    start_delay_s: 0.3\n"
                             << "  - name: talker\n    command: [limbic-toy, talker, --bus, \"" << bus
                             << "\", --robot, \"\"]\n";
  const std::string events = dir / "events.jsonl";
  const auto begin = std::chrono::steady_clock::now();
  testing::ChildProcess launch({testing::Bin("limbic"), "launch", launch_file, "--events", events}, dir / "launch.log");
  ASSERT_TRUE(testing::WaitFor([&] { return !testing::LaunchedPids(events, "talker").empty(); }, 30s)) << launch.Log();
  EXPECT_GE(std::chrono::steady_clock::now() - begin, 4s) << "the talker started before RouDi could answer";
  EXPECT_TRUE(bus::ShmRuntime::RouDiRunning());
  ASSERT_TRUE(testing::WaitFor([&] { return launch.Log().find("shared memory: on") != std::string::npos; }, 10s))
      << launch.Log();
  EXPECT_EQ(launch.Log().find("shared memory asked for, not available"), std::string::npos) << launch.Log();
  launch.Signal(SIGINT);
  EXPECT_NE(launch.Wait(20s), -1) << launch.Log();
}

// A RouDi that dies before it answers is not waited for: the others start at once, on the socket path, and the
// restart policy takes RouDi up again.
TEST(ShmLaunch, ARouDiThatExitsAtOnceIsNotWaitedFor) {
  if (const std::string why = WhyNoRouDiOfItsOwn(); !why.empty()) GTEST_SKIP() << why;
  testing::TempDir dir;
  const std::string bus = "ipc://" + dir / "bus";
  const std::string launch_file = dir / "launch.yaml";
  std::ofstream(launch_file) << "shared_memory: true\n"
                             << "backoff: {initial_s: 5, max_s: 5, reset_after_s: 10}\n"
                             << "processes:\n"
                             << "  - name: roudi\n    command: [sh, -c, \"exit 3\"]\n    restart: always\n"
                             << "  - name: talker\n    command: [limbic-toy, talker, --bus, \"" << bus
                             << "\", --robot, \"\"]\n";
  const std::string events = dir / "events.jsonl";
  const auto begin = std::chrono::steady_clock::now();
  testing::ChildProcess launch({testing::Bin("limbic"), "launch", launch_file, "--events", events}, dir / "launch.log");
  ASSERT_TRUE(testing::WaitFor([&] { return !testing::LaunchedPids(events, "talker").empty(); }, 30s)) << launch.Log();
  EXPECT_LT(std::chrono::steady_clock::now() - begin, 10s) << "waited for a RouDi that had exited\n" << launch.Log();
  EXPECT_TRUE(
      testing::WaitFor([&] { return launch.Log().find("roudi exited before it answered") != std::string::npos; }, 10s))
      << launch.Log();
  launch.Signal(SIGINT);
  EXPECT_NE(launch.Wait(20s), -1) << launch.Log();
}

}  // namespace
}  // namespace limbic

int main(int argc, char** argv) {
  limbic::g_isolation = limbic::testing::UsePrivateShmAndTmp();
  ::testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
