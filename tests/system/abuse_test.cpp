// The five resource attacks of issue 16, repeated against real processes on loopback, each bounded
// in count and time. Every test asserts that admitted clients are still served (messages delivered,
// `limbic param get` answers) and that the broker (or the attacked service) stays within bounded
// memory (VmRSS from /proc/<pid>/status) and descriptors (/proc/<pid>/fd). Each prints a "[figure]"
// line with what it measured, for the issue note.
//
//   1. one valid r1/params message with n_theta = 2,000,000,000 (the controller allocated until it
//   died)
//   2. 1,100 silent TCP connections (the broker's 1,024 descriptors were used up; 0 of 99
//   delivered)
//   3. 5,000 invented topic names (the table filled and every new topic was refused until a
//   restart)
//   4. one 134 KB latched payload under 1,000 names (608 MB), and a repeated subscription
//   5. a subscriber that never reads (~0.7 MB/s up to 10,000 messages; not returned when it left)
#include <fcntl.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <thread>

#include "common/bus/bus.hpp"
#include "common/convert/convert.hpp"
#include "tests/testing/process.hpp"

namespace limbic {
namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

double VmRssMb(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/status");
  std::string key;
  while (in >> key) {
    if (key == "VmRSS:") {
      double kb = 0;
      in >> kb;
      return kb / 1024.0;
    }
    std::string rest;
    std::getline(in, rest);
  }
  return -1;
}

int FdCount(pid_t pid) {
  std::error_code ec;
  int n = 0;
  for (auto it = std::filesystem::directory_iterator("/proc/" + std::to_string(pid) + "/fd", ec);
       !ec && it != std::filesystem::directory_iterator(); it.increment(ec)) {
    ++n;
  }
  return n;
}

// A valid message of `padding` extra bytes (a Heartbeat whose mode string carries them).
std::vector<uint8_t> Payload(size_t padding, bool latched) {
  flatbuffers::FlatBufferBuilder fbb;
  auto header = msg::CreateHeaderDirect(fbb, bus::Node::WallNowNs(), 1, 1, "evil", latched, 7);
  const std::string filler(padding, 'x');
  fbb.Finish(
      msg::CreateHeartbeatDirect(fbb, header, "evil", msg::ServiceState::Running, filler.c_str()),
      messages::Traits<msg::Heartbeat>::kIdentifier);
  return {fbb.GetBufferPointer(), fbb.GetBufferPointer() + fbb.GetSize()};
}

class AbuseTest : public ::testing::Test {
 protected:
  void SetUp() override {
    port_ = testing::FreeTcpPortPair();
    bus_ = "tcp://127.0.0.1:" + std::to_string(port_);
  }

  void StartStack(std::vector<std::string> broker_flags = {}) {
    std::vector<std::string> argv{testing::Bin("limbic-bus"), "--bus", bus_};
    argv.insert(argv.end(), broker_flags.begin(), broker_flags.end());
    broker_ = std::make_unique<testing::ChildProcess>(argv, dir_ / "bus.log");
    talker_ = std::make_unique<testing::ChildProcess>(
        std::vector<std::string>{testing::Bin("limbic-toy"), "talker", "--bus", bus_, "--robot", "",
                                 "--period", "0.02"},
        dir_ / "talker.log");
    client_ = std::make_unique<bus::Node>(context_, bus_, bus::NodeOptions{.name = "admitted"});
    client_->Subscribe<msg::VelocityCommand>("chatter", [this](const auto&) { ++chatter_; });
    client_->Subscribe<msg::Heartbeat>("health/bus", [this](const bus::Message<msg::Heartbeat>& m) {
      if (!m.msg.counters()) return;
      for (const auto* c : *m.msg.counters()) bus_counters_[c->name()->str()] = c->value();
    });
    ASSERT_TRUE(Serving(3s)) << broker_->Log() << talker_->Log();
    baseline_rss_ = VmRssMb(broker_->pid());
    baseline_fds_ = FdCount(broker_->pid());
  }

  // Polls the admitted client for `d`, tracking the broker's peak memory; returns chatter heard.
  int Listen(std::chrono::milliseconds d) {
    const int before = chatter_;
    const auto until = Clock::now() + d;
    while (Clock::now() < until) {
      client_->Poll(10ms);
      peak_rss_ = std::max(peak_rss_, VmRssMb(broker_->pid()));
      peak_fds_ = std::max(peak_fds_, FdCount(broker_->pid()));
    }
    return chatter_ - before;
  }

  // The admitted client hears the talker (50 Hz): at least 20 messages within `limit`.
  bool Serving(std::chrono::milliseconds limit) {
    const int before = chatter_;
    return testing::WaitFor(
        [&] {
          client_->Poll(10ms);
          return chatter_ - before >= 20;
        },
        limit);
  }

  // `limbic param get SERVICE` answers (exit 0).
  int ParamGet(const std::string& service) {
    testing::ChildProcess cli({testing::Bin("limbic"), "param", "get", service, "--bus", bus_},
                              dir_ / ("param-" + std::to_string(++cli_runs_) + ".log"));
    const int status = cli.Wait(20s);
    if (status != 0) std::cerr << cli.Log();
    return status;
  }

  void Figure(const std::string& attack, const std::string& extra = "") {
    std::cout << "[figure] " << attack << ": broker VmRSS " << std::fixed << std::setprecision(1)
              << baseline_rss_ << " MB before, " << peak_rss_ << " MB peak, "
              << VmRssMb(broker_->pid()) << " MB after; fds " << baseline_fds_ << " before, "
              << peak_fds_ << " peak, " << FdCount(broker_->pid()) << " after"
              << (extra.empty() ? "" : "; " + extra) << "\n";
  }

  testing::TempDir dir_;
  int port_ = 0;
  std::string bus_;
  zmq::context_t context_;
  std::unique_ptr<testing::ChildProcess> broker_, talker_;
  std::unique_ptr<bus::Node> client_;
  int chatter_ = 0;
  std::map<std::string, double> bus_counters_;
  double baseline_rss_ = 0, peak_rss_ = 0;
  int baseline_fds_ = 0, peak_fds_ = 0;
  int cli_runs_ = 0;
};

// 1. One valid message that sizes an allocation: refused by ValidateParameters, the controller
// lives.
TEST_F(AbuseTest, HugeNThetaOnParamsIsRefusedAndTheControllerLives) {
  StartStack();
  testing::ChildProcess simulator(
      {testing::Bin("limbic-simulator"), "--bus", bus_, "--set", "set=B"}, dir_ / "simulator.log");
  testing::ChildProcess controller({testing::Bin("limbic-controller"), "--bus", bus_},
                                   dir_ / "controller.log");
  ASSERT_TRUE(testing::WaitFor(
      [&] {
        std::this_thread::sleep_for(100ms);
        return controller.Log().find("n_theta") != std::string::npos ||
               ParamGet("r1/controller") == 0;
      },
      20s))
      << controller.Log();
  // The attacker builds a schema-valid ControlParams by hand and sends its bytes itself: limbic's own
  // publishers refuse to send an invalid message, an attacker's do not.
  bus::Node evil(context_, bus_, {.name = "evil"});
  ControlParameters p;
  p.n_theta = 2000000000;
  flatbuffers::FlatBufferBuilder fbb;
  fbb.Finish(convert::ToMsg(fbb, msg::CreateHeader(fbb, bus::Node::WallNowNs(), -1, 1, fbb.CreateString("evil"), /*latched=*/true), p),
             "PARM");
  std::this_thread::sleep_for(300ms);  // the evil connection comes up
  const double controller_before = VmRssMb(controller.pid());
  double controller_peak = controller_before;
  for (int i = 0; i < 20; ++i) {
    evil.SendRaw("r1/params", fbb.GetBufferPointer(), fbb.GetSize());
    evil.Poll(0ms);
    Listen(100ms);
    controller_peak = std::max(controller_peak, VmRssMb(controller.pid()));
  }
  for (int i = 0; i < 20; ++i) {  // 2 s more for anything to arrive and be acted on
    Listen(100ms);
    controller_peak = std::max(controller_peak, VmRssMb(controller.pid()));
  }
  // The broker refuses it at the boundary (issue 15: values checked where they enter; counted as
  // `invalid`, tested in BusFixture.BrokerDropsMessagesWithInvalidValuesAndCountsThem): the controller
  // never even sees it.
  EXPECT_EQ(controller.Log().find("2000000000"), std::string::npos) << controller.Log();
  EXPECT_TRUE(controller.Running()) << controller.Log();
  EXPECT_LT(controller_peak, 300.0) << "the controller grew: MB";
  EXPECT_EQ(ParamGet("r1/controller"), 0);
  EXPECT_TRUE(Serving(3s));
  std::cout << "[figure] huge n_theta: controller VmRSS " << std::fixed << std::setprecision(1)
            << controller_before << " MB before, " << controller_peak << " MB peak; alive\n";
  Figure("huge n_theta");
}

// 2. Silent TCP connections: closed after the handshake timeout; the admitted client is served.
TEST_F(AbuseTest, SilentConnectionFloodIsClosedAndClientsAreServed) {
  constexpr int kConnections = 1100;
  rlimit limit{};
  getrlimit(RLIMIT_NOFILE, &limit);
  if (limit.rlim_max < kConnections + 200)
    GTEST_SKIP() << "this test needs " << kConnections + 200 << " descriptors";
  if (limit.rlim_cur < kConnections + 200) {
    limit.rlim_cur = limit.rlim_max;
    setrlimit(RLIMIT_NOFILE, &limit);
  }
  StartStack();
  std::vector<int> sockets;
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = htons(static_cast<uint16_t>(port_));
  const auto flood_start = Clock::now();
  for (int i = 0; i < kConnections; ++i) {
    const int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
    ASSERT_GE(fd, 0);
    connect(fd, reinterpret_cast<sockaddr*>(&addr),
            sizeof(addr));  // EINPROGRESS: never says a word
    sockets.push_back(fd);
    if (i % 100 == 0) client_->Poll(0ms);
  }
  // While they hang silent: 3 s of the talker's 50 Hz is 150 messages; at least 99 arrive.
  const int heard = Listen(3000ms);
  EXPECT_GE(heard, 99);
  // The broker closes each connection it accepted once the handshake timeout (2 s) passes: its
  // descriptors come back. (Connections the kernel dropped from a full accept queue never reached
  // it.)
  EXPECT_TRUE(testing::WaitFor(
      [&] {
        Listen(200ms);
        return FdCount(broker_->pid()) <= baseline_fds_ + 20;
      },
      10s))
      << FdCount(broker_->pid()) << " descriptors, " << baseline_fds_ << " before";
  int closed = 0;
  for (int fd : sockets) {
    char buffer[64];
    ssize_t n;
    while ((n = recv(fd, buffer, sizeof(buffer), MSG_DONTWAIT)) > 0) {
    }
    if (n == 0 || (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != ENOTCONN)) ++closed;
    close(fd);
  }
  const int accepted = peak_fds_ - baseline_fds_;
  EXPECT_GT(accepted, 500) << "the flood never reached the broker";
  EXPECT_GE(closed, accepted * 9 / 10)
      << "the broker did not close the silent connections it accepted";
  const double flood_s = std::chrono::duration<double>(Clock::now() - flood_start).count();
  EXPECT_TRUE(broker_->Running());
  EXPECT_EQ(ParamGet("talker"), 0);
  Figure("1,100 silent connections",
         std::to_string(heard) + " chatter messages delivered in 3 s during the flood; " +
             std::to_string(closed) + " connections closed by the broker within " +
             std::to_string(static_cast<int>(flood_s)) + " s");
}

// 3. Invented topic names: new topics keep working during and after the flood.
TEST_F(AbuseTest, TopicFloodNeverLocksOutNewTopics) {
  StartStack();
  bus::Node evil(context_, bus_, {.name = "evil", .send_hwm = 100000});
  std::this_thread::sleep_for(300ms);
  const auto junk = Payload(0, false);
  for (int i = 0; i < 5000; ++i) {
    evil.SendRaw("junk/" + std::to_string(i), junk.data(), junk.size());
    if (i % 500 == 0) Listen(20ms);
  }
  Listen(1500ms);
  // A topic nobody used before the table filled: delivered, not refused.
  int fresh = 0;
  client_->Subscribe<msg::Heartbeat>("fresh/topic", [&](const auto&) { ++fresh; });
  std::this_thread::sleep_for(300ms);
  EXPECT_TRUE(testing::WaitFor(
      [&] {
        evil.SendRaw("fresh/topic", junk.data(), junk.size());
        Listen(50ms);
        return fresh > 0;
      },
      5s));
  EXPECT_EQ(ParamGet("talker"), 0);
  EXPECT_TRUE(Serving(3s));
  EXPECT_LT(peak_rss_, baseline_rss_ + 100.0);
  Figure("5,000 invented topics",
         "topics in the table " + std::to_string(static_cast<int>(bus_counters_["topics"])) +
             ", untracked messages forwarded " +
             std::to_string(static_cast<int>(bus_counters_["untracked_messages"])));
}

// 4. One large latched payload under many names, then a subscription repeated many times.
TEST_F(AbuseTest, LatchedFloodStaysWithinTheLatchedBudget) {
  StartStack();
  bus::Node evil(context_, bus_, {.name = "evil", .send_hwm = 100000});
  std::this_thread::sleep_for(300ms);
  const auto snapshot = Payload(134 * 1024, /*latched=*/true);  // the size of r1/affect/snapshot
  for (int i = 0; i < 1000; ++i) {
    evil.SendRaw("r1/latched/" + std::to_string(i), snapshot.data(), snapshot.size());
    if (i % 50 == 0) Listen(30ms);
  }
  ASSERT_TRUE(testing::WaitFor(
      [&] {
        Listen(200ms);
        return bus_counters_["latched_evicted"] > 0;
      },
      10s));
  Listen(1200ms);  // the next heartbeat has the final counts
  EXPECT_LE(bus_counters_["latched_bytes"], 64.0 * 1024 * 1024);
  EXPECT_GE(bus_counters_["latched_evicted"], 1000 - (64.0 * 1024 * 1024) / snapshot.size() - 1);
  // A client that subscribes over and over: replays are deferred, not multiplied.
  zmq::socket_t greedy(context_, zmq::socket_type::sub);
  greedy.set(zmq::sockopt::linger, 0);
  greedy.connect(bus::ResolveBusAddress(bus_).backend);
  for (int i = 0; i < 200; ++i) {
    greedy.set(zmq::sockopt::subscribe, "r1/latched/");
    greedy.set(zmq::sockopt::unsubscribe, "r1/latched/");
    if (i % 20 == 0) Listen(10ms);
  }
  greedy.set(zmq::sockopt::subscribe, "r1/latched/");
  size_t replayed_bytes = 0;
  const auto until = Clock::now() + 3s;
  while (Clock::now() < until) {
    zmq::message_t m;
    while (greedy.recv(m, zmq::recv_flags::dontwait)) replayed_bytes += m.size();
    Listen(20ms);
  }
  // 200 replays of a 64 MB store would be 12.8 GB; deferral allows a handful.
  EXPECT_LT(replayed_bytes, 5.0 * 64 * 1024 * 1024);
  EXPECT_LT(peak_rss_, baseline_rss_ + 64.0 + 200.0);
  EXPECT_TRUE(Serving(3s));
  EXPECT_EQ(ParamGet("talker"), 0);
  Figure("latched flood (1,000 x 134 KB) and 200 repeated subscriptions",
         "latched bytes " +
             std::to_string(static_cast<long>(bus_counters_["latched_bytes"] / 1024 / 1024)) +
             " MB, evicted " + std::to_string(static_cast<long>(bus_counters_["latched_evicted"])) +
             ", replayed to the repeating subscriber " +
             std::to_string(replayed_bytes / 1024 / 1024) + " MB in 3 s");
}

// 5. A subscriber that never reads: its queue in the broker is bounded in bytes and freed when it
// goes.
TEST_F(AbuseTest, SubscriberThatNeverReadsIsBoundedAndFreed) {
  // 16 MiB per subscriber at the 64 KiB sizing = 256 messages. The default (64 MiB) is measured
  // with LIMBIC_ABUSE_QUEUE_BYTES=67108864 (slower: four times the queue to fill).
  const char* override_bytes = std::getenv("LIMBIC_ABUSE_QUEUE_BYTES");
  const std::string queue_bytes = override_bytes ? override_bytes : "16777216";
  StartStack({"--queue-bytes", queue_bytes});
  // The queue holds queue_bytes / 64 KiB messages of 134 KB each.
  const double budget_mb = std::stod(queue_bytes) / 65536.0 * 134.0 / 1024.0;
  auto stuck = std::make_unique<zmq::socket_t>(context_, zmq::socket_type::sub);
  stuck->set(zmq::sockopt::linger, 0);
  stuck->set(zmq::sockopt::rcvhwm, 1);
  stuck->set(zmq::sockopt::rcvbuf, 4096);
  stuck->connect(bus::ResolveBusAddress(bus_).backend);
  stuck->set(zmq::sockopt::subscribe, "big/");
  bus::Node evil(context_, bus_, {.name = "evil", .send_hwm = 100000});
  std::this_thread::sleep_for(500ms);
  const auto big = Payload(134 * 1024, /*latched=*/false);
  for (int i = 0; i < 1000; ++i) {  // 134 MB in all, ten times the stuck subscriber's budget
    evil.SendRaw("big/snapshot", big.data(), big.size());
    if (i % 20 == 0) Listen(20ms);
  }
  Listen(2000ms);
  const double with_stuck = VmRssMb(broker_->pid());
  EXPECT_LT(peak_rss_, baseline_rss_ + budget_mb + 60.0)
      << "the stuck subscriber's queue grew beyond its budget";
  EXPECT_TRUE(Serving(3s));
  stuck.reset();  // it leaves: its queue goes, and the broker gives the memory back
  bool returned = testing::WaitFor(
      [&] {
        Listen(250ms);
        return VmRssMb(broker_->pid()) < baseline_rss_ + 0.5 * (with_stuck - baseline_rss_) + 5.0;
      },
      12s);
  EXPECT_TRUE(returned) << VmRssMb(broker_->pid()) << " MB after the subscriber left, "
                        << with_stuck << " with it";
  EXPECT_EQ(ParamGet("talker"), 0);
  Figure("subscriber that never reads (1,000 x 134 KB, --queue-bytes " + queue_bytes + ")",
         std::to_string(static_cast<int>(with_stuck)) + " MB while it was connected");
}

}  // namespace
}  // namespace limbic
