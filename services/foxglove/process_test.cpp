// limbic-foxglove as a process: bad options are clear errors with a non-zero exit, and the
// WebSocket handshake requires Foxglove's subprotocol (raw socket, so the handshake bytes
// themselves are checked).
#include "tests/testing/process.hpp"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <string>
#include <thread>

namespace limbic::foxglove {
namespace {

using namespace std::chrono_literals;
using testing::Bin;
using testing::ChildProcess;
using testing::TempDir;

int FreePort() { return testing::FreeTcpPortPair(); }

// Connects to 127.0.0.1:port, retrying while the server starts; -1 if it never listens.
int Connect(int port, std::chrono::milliseconds limit) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  while (std::chrono::steady_clock::now() < deadline) {
    const int fd = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_port = htons(port);
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0) return fd;
    close(fd);
    std::this_thread::sleep_for(50ms);
  }
  return -1;
}

// Sends an HTTP upgrade request and returns what the server answers within ~3 s (headers and any
// frames).
std::string Handshake(int fd, const std::string& protocol_header) {
  const std::string request =
      "GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
      "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n" +
      protocol_header + "\r\n";
  EXPECT_EQ(send(fd, request.data(), request.size(), 0), static_cast<ssize_t>(request.size()));
  timeval tv{0, 200'000};
  setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  std::string reply;
  char buf[65536];
  const auto deadline = std::chrono::steady_clock::now() + 3s;
  while (std::chrono::steady_clock::now() < deadline) {
    const ssize_t n = recv(fd, buf, sizeof buf, 0);
    if (n == 0) break;
    if (n > 0) reply.append(buf, n);
    if (reply.find("\"op\":\"advertise\"") != std::string::npos) break;
  }
  return reply;
}

TEST(FoxgloveProcess, BadOptionsAreClearErrorsWithNonZeroExit) {
  TempDir dir;
  const std::string bus = "ipc://" + dir / "bus";
  struct Case {
    std::vector<std::string> args;
    std::string expected;
  };
  const int busy_fd = socket(AF_INET, SOCK_STREAM, 0);  // a port someone else listens on
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(bind(busy_fd, reinterpret_cast<sockaddr*>(&a), sizeof a), 0);
  ASSERT_EQ(listen(busy_fd, 1), 0);
  socklen_t len = sizeof a;
  getsockname(busy_fd, reinterpret_cast<sockaddr*>(&a), &len);
  const std::string busy = "127.0.0.1:" + std::to_string(ntohs(a.sin_port));
  const std::vector<Case> cases{
      {{"--set", "listen=nonsense"}, "is not HOST:PORT"},
      {{"--set", "listen=127.0.0.1:70000"}, "is not HOST:PORT"},
      {{"--set", "listen=999.1.1.1:8765"}, "not an IP address"},
      {{"--set", "listen=" + busy}, "cannot listen on " + busy},
      {{"--set", "max_client_buffer_mb=0", "--set", "listen=127.0.0.1:0"}, "max_client_buffer_mb > 0"},
      {{"--mode", "lockstep"}, "realtime mode"},
      {{"--set", "no_such_option=1"}, "no_such_option"},
  };
  for (size_t i = 0; i < cases.size(); ++i) {
    std::vector<std::string> argv{Bin("limbic-foxglove"), "--bus", bus};
    argv.insert(argv.end(), cases[i].args.begin(), cases[i].args.end());
    ChildProcess p(argv, dir / ("case" + std::to_string(i) + ".log"));
    const int status = p.Wait(20s);
    EXPECT_NE(status, 0) << cases[i].expected;
    EXPECT_NE(status, -1) << "still running with " << cases[i].expected;
    EXPECT_NE(p.Log().find(cases[i].expected), std::string::npos) << p.Log();
  }
  close(busy_fd);
}

TEST(FoxgloveProcess, HandshakeNeedsTheFoxgloveSubprotocolThenServerInfoAndAdvertise) {
  TempDir dir;
  const std::string bus = "ipc://" + dir / "bus";
  const int port = FreePort();
  ChildProcess broker({Bin("limbic-bus"), "--bus", bus}, dir / "bus.log");
  ChildProcess bridge(
      {Bin("limbic-foxglove"), "--bus", bus, "--period", "0.02", "--set", "listen=127.0.0.1:" + std::to_string(port)},
      dir / "foxglove.log");
  int fd = Connect(port, 15s);
  ASSERT_GE(fd, 0) << bridge.Log();
  const std::string refused = Handshake(fd, "Sec-WebSocket-Protocol: some.other.protocol\r\n");
  close(fd);
  EXPECT_EQ(refused.rfind("HTTP/1.1 400", 0), 0u) << refused;

  fd = Connect(port, 5s);
  ASSERT_GE(fd, 0);
  const std::string reply = Handshake(fd, "Sec-WebSocket-Protocol: foxglove.websocket.v1\r\n");
  close(fd);
  EXPECT_EQ(reply.rfind("HTTP/1.1 101", 0), 0u) << reply;
  EXPECT_NE(reply.find("Sec-WebSocket-Protocol: foxglove.websocket.v1"), std::string::npos) << reply;
  // RFC 6455 §1.3: the accept key for the sample nonce above.
  EXPECT_NE(reply.find("s3pPLMBiTxaQ9kYGzzhZRbK+xOo="), std::string::npos) << reply;
  EXPECT_NE(reply.find("\"op\":\"serverInfo\""), std::string::npos) << reply;
  EXPECT_NE(reply.find("\"op\":\"advertise\""), std::string::npos) << reply;
  EXPECT_TRUE(bridge.Running()) << bridge.Log();
  bridge.Signal(SIGINT);
  EXPECT_EQ(bridge.Wait(10s), 0) << bridge.Log();
}

}  // namespace
}  // namespace limbic::foxglove
