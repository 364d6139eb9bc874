// A service and the broker stop cleanly (exit 0) on SIGINT and SIGTERM whenever the signal comes, also in the middle
// of their sends: a signal that landed on a thread inside a ZeroMQ call once ended a service with "Interrupted system
// call" and status 1 (runtime::StopSignals). A talker publishing every millisecond is almost always sending.
#include <gtest/gtest.h>
#include <signal.h>

#include <chrono>
#include <string>
#include <thread>

#include "tests/testing/process.hpp"

namespace limbic {
namespace {

using namespace std::chrono_literals;

TEST(StopSignals, ABusyServiceAndTheBrokerStopCleanlyOnEverySignal) {
  constexpr int kRounds = 12;
  for (int round = 0; round < kRounds; ++round) {
    SCOPED_TRACE("round " + std::to_string(round));
    testing::TempDir dir;
    const std::string bus = "ipc://" + dir / "bus";
    testing::ChildProcess broker({testing::Bin("limbic-bus"), "--bus", bus}, dir / "bus.log");
    testing::ChildProcess talker(
        {testing::Bin("limbic-toy"), "talker", "--bus", bus, "--robot", "", "--period", "0.001"}, dir / "talker.log");
    // Signals at different moments of the talker's loop and of the broker's forwarding.
    std::this_thread::sleep_for(std::chrono::milliseconds(150 + 37 * round));
    ASSERT_TRUE(talker.Running()) << talker.Log();
    const int signal = round % 2 == 0 ? SIGINT : SIGTERM;
    talker.Signal(signal);
    EXPECT_EQ(talker.Wait(10s), 0) << talker.Log();
    broker.Signal(signal);
    EXPECT_EQ(broker.Wait(10s), 0) << broker.Log();
  }
}

}  // namespace
}  // namespace limbic
