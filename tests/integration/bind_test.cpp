// What the broker and the exporter really listen on, read back from the kernel (/proc/net/tcp and
// /proc/net/tcp6) for each form of address (issue 16 findings 3 and 4: names, IPv6 and unresolvable
// hosts used to listen on 0.0.0.0 while the log named the address asked for).
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netdb.h>
#include <sys/socket.h>
#include <unistd.h>

#include <fstream>
#include <set>
#include <sstream>
#include <thread>

#include "tests/testing/process.hpp"

namespace limbic {
namespace {

using namespace std::chrono_literals;

// Listening sockets on `port` as "ADDRESS" strings in the kernel's notation, e.g. "127.0.0.1",
// "0.0.0.0", "::1", "::".
std::set<std::string> ListenersOn(int port) {
  std::set<std::string> found;
  for (const char* file : {"/proc/net/tcp", "/proc/net/tcp6"}) {
    const bool v6 = std::string(file).back() == '6';
    std::ifstream in(file);
    std::string line;
    std::getline(in, line);  // header
    while (std::getline(in, line)) {
      std::istringstream fields(line);
      std::string slot, local, remote, state;
      fields >> slot >> local >> remote >> state;
      if (state != "0A") continue;  // TCP_LISTEN
      const auto colon = local.find(':');
      if (std::stoi(local.substr(colon + 1), nullptr, 16) != port) continue;
      const std::string hex = local.substr(0, colon);
      // The kernel prints the address as 32-bit words in host byte order.
      uint32_t words[4] = {};
      for (size_t w = 0; w < hex.size() / 8; ++w)
        words[w] = static_cast<uint32_t>(std::stoul(hex.substr(w * 8, 8), nullptr, 16));
      char text[INET6_ADDRSTRLEN] = {};
      inet_ntop(v6 ? AF_INET6 : AF_INET, words, text, sizeof(text));
      found.insert(text);
    }
  }
  return found;
}

// The numeric address getaddrinfo gives first for `name` (what the broker is expected to bind), or
// "".
std::string FirstAddressOf(const std::string& name) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  if (getaddrinfo(name.c_str(), nullptr, &hints, &found) != 0 || found == nullptr) return "";
  char text[INET6_ADDRSTRLEN] = {};
  if (found->ai_family == AF_INET6) {
    inet_ntop(AF_INET6, &reinterpret_cast<const sockaddr_in6*>(found->ai_addr)->sin6_addr, text, sizeof(text));
  } else {
    inet_ntop(AF_INET, &reinterpret_cast<const sockaddr_in*>(found->ai_addr)->sin_addr, text, sizeof(text));
  }
  freeaddrinfo(found);
  return text;
}

class BindTest : public ::testing::Test {
 protected:
  // Starts the broker on `host`, waits until it listens on both ports and returns what it listens
  // on (the publisher port and the subscriber port must agree).
  std::set<std::string> BrokerListeners(const std::string& host, std::string* log = nullptr) {
    const int port = testing::FreeTcpPortPair();
    testing::ChildProcess broker({testing::Bin("limbic-bus"), "--bus", "tcp://" + host + ":" + std::to_string(port)},
                                 dir_ / ("bus" + std::to_string(++brokers_) + ".log"));
    std::set<std::string> front, back;
    testing::WaitFor(
        [&] {
          std::this_thread::sleep_for(20ms);
          front = ListenersOn(port);
          back = ListenersOn(port + 1);
          return !front.empty() && !back.empty();
        },
        5s);
    EXPECT_EQ(front, back) << "publisher and subscriber ports listen on different addresses";
    if (log) *log = broker.Log();
    return front;
  }

  testing::TempDir dir_;
  int brokers_ = 0;
};

TEST_F(BindTest, LoopbackBindsLoopbackOnly) {
  EXPECT_EQ(BrokerListeners("127.0.0.1"), std::set<std::string>{"127.0.0.1"});
  EXPECT_EQ(BrokerListeners("localhost"), std::set<std::string>{"127.0.0.1"});
}

TEST_F(BindTest, Ipv6LoopbackBindsIpv6LoopbackOnly) {
  if (FirstAddressOf("::1").empty()) GTEST_SKIP() << "no IPv6 on this machine";
  EXPECT_EQ(BrokerListeners("[::1]"), std::set<std::string>{"::1"});
}

TEST_F(BindTest, Ip6LocalhostNameBindsWhatItResolvesTo) {
  const std::string ip6_localhost = FirstAddressOf("ip6-localhost");
  if (ip6_localhost.empty()) GTEST_SKIP() << "ip6-localhost does not resolve here (no entry in /etc/hosts)";
  EXPECT_EQ(BrokerListeners("ip6-localhost"), std::set<std::string>{ip6_localhost});
}

TEST_F(BindTest, HostNameBindsTheAddressItResolvesTo) {
  char name[256] = {};
  ASSERT_EQ(gethostname(name, sizeof(name) - 1), 0);
  const std::string expected = FirstAddressOf(name);
  if (expected.empty()) GTEST_SKIP() << "this machine's name '" << name << "' does not resolve";
  std::string log;
  EXPECT_EQ(BrokerListeners(name, &log), std::set<std::string>{expected});
  EXPECT_NE(log.find("serving tcp://" + std::string(name)), std::string::npos) << log;
}

TEST_F(BindTest, EveryInterfaceOnlyWhenAskedAndWarnedWithoutCurve) {
  std::string log;
  EXPECT_EQ(BrokerListeners("0.0.0.0", &log), std::set<std::string>{"0.0.0.0"});
  EXPECT_NE(log.find("non-loopback address without CURVE"), std::string::npos) << log;
  std::string loopback_log;
  BrokerListeners("127.0.0.1", &loopback_log);
  EXPECT_EQ(loopback_log.find("without CURVE"), std::string::npos) << loopback_log;
}

TEST_F(BindTest, UnresolvableHostIsAClearErrorWithStatus2) {
  const int port = testing::FreeTcpPortPair();
  testing::ChildProcess broker(
      {testing::Bin("limbic-bus"), "--bus", "tcp://no-such-host.invalid:" + std::to_string(port)}, dir_ / "bad.log");
  EXPECT_EQ(broker.Wait(10s), 2);
  EXPECT_NE(broker.Log().find("cannot resolve host 'no-such-host.invalid'"), std::string::npos) << broker.Log();
  EXPECT_TRUE(ListenersOn(port).empty());
}

TEST_F(BindTest, ExporterListensOnLoopbackUnlessTold) {
  auto exporter_listeners = [&](std::vector<std::string> extra, int port) {
    std::vector<std::string> argv{testing::Bin("limbic-metrics"), "--bus", "ipc://" + dir_ / "bus"};
    argv.insert(argv.end(), extra.begin(), extra.end());
    testing::ChildProcess metrics(argv, dir_ / "metrics.log");
    std::set<std::string> found;
    testing::WaitFor(
        [&] {
          std::this_thread::sleep_for(20ms);
          found = ListenersOn(port);
          return !found.empty();
        },
        10s);
    EXPECT_FALSE(found.empty()) << metrics.Log();
    return found;
  };
  const int port = testing::FreeTcpPortPair();
  EXPECT_EQ(exporter_listeners({"--listen", "0.0.0.0:" + std::to_string(port)}, port),
            std::set<std::string>{"0.0.0.0"});
  // The default port, if nobody else holds it on this machine.
  if (!ListenersOn(9464).empty()) GTEST_SKIP() << "port 9464 is in use here: the default cannot be checked";
  EXPECT_EQ(exporter_listeners({}, 9464), std::set<std::string>{"127.0.0.1"});
}

}  // namespace
}  // namespace limbic
