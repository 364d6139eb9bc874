#include "common/runtime/liveness.hpp"

#include <gtest/gtest.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <vector>

namespace limbic::runtime {
namespace {

std::vector<pid_t> DrainAll(LivenessListener& listener) {
  std::vector<pid_t> pids;
  listener.Drain([&](pid_t pid) { pids.push_back(pid); });
  return pids;
}

TEST(Liveness, PingsArriveWithTheSendersPid) {
  LivenessListener listener;
  EXPECT_EQ(listener.address().rfind("@limbic-liveness-", 0), 0u);
  LivenessNotifier notifier(listener.address());
  ASSERT_TRUE(notifier.Notify());
  ASSERT_TRUE(notifier.Notify());
  EXPECT_EQ(notifier.sent(), 2u);
  EXPECT_EQ(DrainAll(listener), (std::vector<pid_t>{getpid(), getpid()}));
  EXPECT_TRUE(DrainAll(listener).empty());  // drained
}

TEST(Liveness, AChildProcessIsToldApartByItsOwnPid) {
  LivenessListener listener;
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    LivenessNotifier notifier(listener.address());
    _exit(notifier.Notify() ? 0 : 1);
  }
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  EXPECT_EQ(DrainAll(listener), (std::vector<pid_t>{child}));
}

TEST(Liveness, NoListenerIsACountedFailureNotACrash) {
  std::string address;
  {
    LivenessListener gone;
    address = gone.address();
  }
  LivenessNotifier notifier(address);
  EXPECT_FALSE(notifier.Notify());
  EXPECT_FALSE(notifier.Notify());
  EXPECT_EQ(notifier.failed(), 2u);
  EXPECT_EQ(notifier.sent(), 0u);
  LivenessNotifier path("/nonexistent-dir/limbic/notify.sock");
  EXPECT_FALSE(path.Notify());
  EXPECT_EQ(path.failed(), 1u);
}

TEST(Liveness, MalformedAddressesAreRefused) {
  EXPECT_THROW(LivenessNotifier("relative/notify.sock"), std::runtime_error);
  EXPECT_THROW(LivenessNotifier("@"), std::runtime_error);
  EXPECT_THROW(LivenessNotifier("/" + std::string(200, 'x')), std::runtime_error);
}

TEST(Liveness, FromEnvironmentReadsNotifySocket) {
  const char* before = std::getenv("NOTIFY_SOCKET");
  const std::string saved = before ? before : "";
  unsetenv("NOTIFY_SOCKET");
  EXPECT_EQ(LivenessNotifier::FromEnvironment(), nullptr);
  setenv("NOTIFY_SOCKET", "", 1);
  EXPECT_EQ(LivenessNotifier::FromEnvironment(), nullptr);
  LivenessListener listener;
  setenv("NOTIFY_SOCKET", listener.address().c_str(), 1);
  auto notifier = LivenessNotifier::FromEnvironment();
  ASSERT_NE(notifier, nullptr);
  EXPECT_TRUE(notifier->Notify());
  EXPECT_EQ(DrainAll(listener).size(), 1u);
  setenv("NOTIFY_SOCKET", "not-an-address", 1);
  EXPECT_THROW(LivenessNotifier::FromEnvironment(), std::runtime_error);
  if (before) {
    setenv("NOTIFY_SOCKET", saved.c_str(), 1);
  } else {
    unsetenv("NOTIFY_SOCKET");
  }
}

// What reaches the listener that is not a ping: other sd_notify assignments, garbage — ignored and counted.
TEST(Liveness, OtherDatagramsAreIgnoredAndCounted) {
  LivenessListener listener;
  const int fd = socket(AF_UNIX, SOCK_DGRAM, 0);
  ASSERT_GE(fd, 0);
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  const std::string& name = listener.address();
  std::memcpy(addr.sun_path, name.data(), name.size());
  addr.sun_path[0] = '\0';
  const socklen_t len = static_cast<socklen_t>(offsetof(sockaddr_un, sun_path) + name.size());
  auto send = [&](const std::string& text) {
    ASSERT_EQ(sendto(fd, text.data(), text.size(), 0, reinterpret_cast<const sockaddr*>(&addr), len),
              static_cast<ssize_t>(text.size()));
  };
  send("READY=1");
  send("WATCHDOG=10");
  send(std::string(1000, '\xff'));
  send("");
  send("STATUS=working\nWATCHDOG=1");  // several assignments in one datagram, as sd_notify allows
  close(fd);
  EXPECT_EQ(DrainAll(listener), (std::vector<pid_t>{getpid()}));
  EXPECT_EQ(listener.ignored(), 4u);
}

TEST(Liveness, WatchdogPingIsOneWholeLine) {
  EXPECT_TRUE(HasWatchdogPing("WATCHDOG=1"));
  EXPECT_TRUE(HasWatchdogPing("READY=1\nWATCHDOG=1\n"));
  EXPECT_FALSE(HasWatchdogPing("WATCHDOG=10"));
  EXPECT_FALSE(HasWatchdogPing("XWATCHDOG=1"));
  EXPECT_FALSE(HasWatchdogPing(""));
  EXPECT_FALSE(HasWatchdogPing("WATCHDOG=0"));
}

}  // namespace
}  // namespace limbic::runtime
