// The shared-memory transport against a real iox-roudi (started here). iceoryx 2.0 allows one RouDi per host
// (fixed names under /dev/shm and /tmp): where the kernel lets an unprivileged process have its own mount
// namespace, main() gives this test a private /dev/shm and /tmp first, so parallel runs and a RouDi of the machine
// never meet; elsewhere ctest runs these tests one at a time (RESOURCE_LOCK iceoryx_roudi) and a test skips if a
// RouDi it did not start already runs. Each TEST runs in its own process under ctest (one iceoryx runtime per
// process); run as one binary, the RouDi restart test comes last.
#include "common/bus/shm.hpp"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sched.h>
#include <sys/mount.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "common/bus/broker.hpp"
#include "common/bus/bus.hpp"
#include "iceoryx_posh/mepoo/chunk_header.hpp"
#include "iceoryx_posh/popo/untyped_publisher.hpp"
#include "tests/testing/private_shm.hpp"
#include "tests/testing/process.hpp"

namespace limbic::bus {
namespace {

using namespace std::chrono_literals;

std::string g_isolation = "not tried";  // "" once this process has its own /dev/shm and /tmp

// A Heartbeat of about `bytes` bytes carrying `tick` (the harness's message shape, bench/peers).
void PublishHeartbeat(Publisher<msg::Heartbeat>& pub, int64_t tick, size_t bytes) {
  const std::string filler(bytes > 100 ? bytes - 100 : 0, 'x');
  pub.Publish(0, tick, [&](flatbuffers::FlatBufferBuilder& fbb, auto header) {
    return msg::CreateHeartbeatDirect(fbb, header, "r1/mapper", msg::ServiceState::Running, filler.c_str());
  });
}

// Shared memory alone (no socket copy), so that what arrives came through it.
ShmOptions HeartbeatsOnShm() {
  ShmOptions options;
  options.identifiers = {"HBT1"};
  options.roudi_check = 20ms;
  options.mirror_to_socket = false;
  return options;
}

// One iox-roudi for this process (and its runtime, connected once): iceoryx allows no second.
class RouDi {
 public:
  static RouDi& Get() {
    static RouDi roudi;
    return roudi;
  }
  // Starts iox-roudi and waits until it serves clients; "" or why not.
  std::string Start() {
    log_ = dir_ / ("roudi-" + std::to_string(++starts_) + ".log");
    process_ = std::make_unique<testing::ChildProcess>(
        std::vector<std::string>{testing::RouDiProgram(), "-m", "off", "-l", "info"}, log_);
    if (!testing::WaitFor([&] { return ShmRuntime::RouDiRunning() || !process_->Running(); }, 10s) ||
        !ShmRuntime::RouDiRunning()) {
      return "iox-roudi did not start: " + process_->Log();
    }
    return "";
  }
  void Kill() {
    process_->Signal(SIGKILL);  // SIGTERM would make RouDi end its clients, this test among them
    process_->Wait(5s);
  }
  std::shared_ptr<ShmRuntime> runtime;

 private:
  testing::TempDir dir_;
  std::unique_ptr<testing::ChildProcess> process_;
  std::string log_;
  int starts_ = 0;
};

// Nodes on shared memory and, where a test needs the socket path, a broker on a thread.
class ShmTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (testing::RouDiProgram().empty()) GTEST_SKIP() << "iox-roudi is not installed (tools/setup-debian.sh iceoryx)";
    RouDi& roudi = RouDi::Get();
    if (!roudi.runtime) {
      std::string why;
      if (!g_isolation.empty() && ShmRuntime::RouDiRunning()) {
        GTEST_SKIP() << "a RouDi this test did not start runs on this host, and no private one is possible ("
                     << g_isolation << ")";
      }
      const std::string failed = roudi.Start();
      ASSERT_EQ(failed, "");
      roudi.runtime = ShmRuntime::Connect("shm-test", &why);
      ASSERT_NE(roudi.runtime, nullptr) << why;
    }
    runtime_ = roudi.runtime;
  }
  void TearDown() override {
    stop_ = true;
    if (broker_thread_.joinable()) broker_thread_.join();
  }
  void StartBroker() {
    BrokerOptions options;
    options.address = address_;
    broker_ = std::make_unique<Broker>(context_, options);
    broker_thread_ = std::thread([this] { broker_->Run(stop_); });
  }
  NodeOptions Options(const std::string& name, ShmOptions shm = HeartbeatsOnShm()) {
    NodeOptions options;
    options.name = name;
    options.shm = runtime_;
    options.shm_options = std::move(shm);
    return options;
  }
  // Polls the nodes until `done` holds (or 5 s pass), calling `between` before each round (a warm-up send).
  template <typename Done, typename Between>
  bool PollUntil(std::initializer_list<Node*> nodes, Done done, Between between) {
    const auto deadline = std::chrono::steady_clock::now() + 5s;
    while (std::chrono::steady_clock::now() < deadline) {
      between();
      for (Node* n : nodes) n->Poll(5ms);
      if (done()) return true;
    }
    return false;
  }
  template <typename Done>
  bool PollUntil(std::initializer_list<Node*> nodes, Done done) {
    return PollUntil(nodes, done, [] {});
  }

  std::string address_ = "inproc://shm-test";
  zmq::context_t context_;
  std::shared_ptr<ShmRuntime> runtime_;
  std::unique_ptr<Broker> broker_;
  std::atomic<bool> stop_{false};
  std::thread broker_thread_;
};

TEST(ShmNoRouDi, ConnectSaysWhyAndTheSocketPathCarriesTheData) {
  if (!g_isolation.empty()) {
    if (ShmRuntime::RouDiRunning()) GTEST_SKIP() << "a RouDi runs on this host (" << g_isolation << ")";
  }
  std::string why;
  EXPECT_EQ(ShmRuntime::Connect("no-roudi", &why), nullptr);
  EXPECT_NE(why.find("no RouDi on this host"), std::string::npos) << why;

  // A node asked for shared memory without a runtime is a socket node: the data arrives through the broker.
  zmq::context_t context;
  BrokerOptions broker_options;
  broker_options.address = "inproc://shm-none";
  Broker broker(context, broker_options);
  std::atomic<bool> stop{false};
  std::thread thread([&] { broker.Run(stop); });
  NodeOptions options;
  options.name = "talker";
  options.shm_options = HeartbeatsOnShm();  // asked for, but options.shm is null: no RouDi
  Node pub_node(context, "inproc://shm-none", options);
  Node sub_node(context, "inproc://shm-none", {.name = "listener"});
  auto pub = pub_node.Advertise<msg::Heartbeat>("peers/big");
  size_t got = 0;
  sub_node.Subscribe<msg::Heartbeat>("peers/big", [&](const Message<msg::Heartbeat>& m) { got = m.size; });
  const auto deadline = std::chrono::steady_clock::now() + 5s;
  while (got == 0 && std::chrono::steady_clock::now() < deadline) {
    PublishHeartbeat(pub, 1, 64 * 1024);
    sub_node.Poll(5ms);
  }
  stop = true;
  thread.join();
  EXPECT_GT(got, 64u * 1024 - 200);
  EXPECT_EQ(pub_node.shm(), nullptr);
}

TEST_F(ShmTest, LargeMessagesArriveThroughSharedMemoryVerifiedInPlace) {
  // No broker at all: whatever arrives came through shared memory.
  Node pub_node(context_, address_, Options("talker"));
  Node sub_node(context_, address_, Options("listener"));
  auto pub = pub_node.Advertise<msg::Heartbeat>("peers/big");
  std::vector<int64_t> ticks;
  size_t size = 0;
  sub_node.Subscribe<msg::Heartbeat>("peers/big", [&](const Message<msg::Heartbeat>& m) {
    ticks.push_back(m.header.tick());
    size = m.size;
    EXPECT_EQ(m.header.source()->str(), "talker");
    EXPECT_EQ(m.msg.service()->str(), "r1/mapper");
    EXPECT_EQ(reinterpret_cast<uintptr_t>(m.data) % 8, 0u) << "aligned where it lies";
  });
  // iceoryx connects a subscriber to a publisher asynchronously (RouDi's discovery): warm up until one arrives.
  ASSERT_TRUE(PollUntil(
      {&sub_node}, [&] { return !ticks.empty(); }, [&] { PublishHeartbeat(pub, -1, 64 * 1024); }));
  ticks.clear();
  for (int i = 0; i < 10; ++i) PublishHeartbeat(pub, i, 64 * 1024);
  ASSERT_TRUE(PollUntil({&sub_node}, [&] { return ticks.size() >= 10; }));
  EXPECT_EQ(ticks.front(), 0);
  EXPECT_EQ(ticks.back(), 9);
  EXPECT_GT(size, 64u * 1024 - 200);
  EXPECT_EQ(sub_node.TotalDrops(), 0u);
  ASSERT_NE(pub_node.shm(), nullptr);
  EXPECT_EQ(pub_node.shm()->counters().sent, pub_node.sent().at("peers/big").messages);
  EXPECT_EQ(pub_node.shm()->counters().fallbacks, 0u);
  EXPECT_EQ(sub_node.shm()->counters().received, sub_node.received().at("peers/big").messages);
  // The first message guessed its size; the next ones fit their first chunk.
  EXPECT_LE(pub_node.shm()->counters().extra_loans, 4u);
}

TEST_F(ShmTest, OtherTypesAndOtherBusesStayApart) {
  Node pub_node(context_, address_, Options("talker"));
  Node other_bus(context_, "inproc://another-bus", Options("stranger"));
  auto odom = pub_node.Advertise<msg::Odometry>("r1/odom");  // not a shared-memory type: the socket path
  auto big = pub_node.Advertise<msg::Heartbeat>("peers/big");
  int got = 0;
  other_bus.Subscribe<msg::Heartbeat>("peers/big", [&](const auto&) { ++got; });
  for (int i = 0; i < 20; ++i) {
    PublishHeartbeat(big, i, 1024);
    other_bus.Poll(10ms);
  }
  EXPECT_EQ(got, 0) << "a node of another bus address shares no topic";
  EXPECT_EQ(pub_node.shm()->counters().sent, 20u);
  odom.Publish(0, 0, [](flatbuffers::FlatBufferBuilder& fbb, auto header) {
    msg::Pose2 pose(1, 2, 0.5);
    return msg::CreateOdometry(fbb, header, &pose, 0.0, 0.0);
  });
  EXPECT_EQ(pub_node.shm()->counters().sent, 20u) << "Odometry is not in ShmOptions::identifiers";
}

// Two paths with no order between them: a chunk published before a socket message — the data of a lockstep tick
// before its tick report or the ack that releases the next clock — must have been handled by the time the Poll that
// handled the socket message returns (a lockstep step runs once Poll returns). Here the chunk is published from the
// socket message's own handler, so it is queued after Poll's first look at shared memory, which is the window.
TEST_F(ShmTest, AChunkQueuedBeforeASocketMessageIsHandledInTheSamePoll) {
  StartBroker();
  Node pub_node(context_, address_, Options("talker"));
  Node sub_node(context_, address_, Options("listener"));
  auto odom = pub_node.Advertise<msg::Odometry>("r1/odom");    // the socket path
  auto big = pub_node.Advertise<msg::Heartbeat>("peers/big");  // shared memory
  std::vector<int64_t> odom_ticks, big_ticks;
  bool chain = false;
  sub_node.Subscribe<msg::Odometry>("r1/odom", [&](const Message<msg::Odometry>& m) {
    odom_ticks.push_back(m.header.tick());
    if (chain) PublishHeartbeat(big, m.header.tick(), 8192);
  });
  sub_node.Subscribe<msg::Heartbeat>("peers/big",
                                     [&](const Message<msg::Heartbeat>& m) { big_ticks.push_back(m.header.tick()); });
  const auto send_odom = [&](int64_t tick) {
    odom.Publish(0, tick, [](flatbuffers::FlatBufferBuilder& fbb, auto header) {
      msg::Pose2 pose(1, 2, 0.5);
      return msg::CreateOdometry(fbb, header, &pose, 0.0, 0.0);
    });
  };
  // Both paths connected (the broker's directory, iceoryx's discovery).
  ASSERT_TRUE(PollUntil(
      {&pub_node, &sub_node}, [&] { return !odom_ticks.empty() && !big_ticks.empty(); },
      [&] {
        send_odom(-1);
        PublishHeartbeat(big, -1, 8192);
      }));
  for (int round = 0; round < 20; ++round) {
    for (int i = 0; i < 3; ++i) {  // nothing left over from the warm-up or the last round
      pub_node.Poll(1ms);
      sub_node.Poll(1ms);
    }
    odom_ticks.clear();
    big_ticks.clear();
    chain = true;
    send_odom(round);
    const auto deadline = std::chrono::steady_clock::now() + 5s;
    while (odom_ticks.empty() && std::chrono::steady_clock::now() < deadline) sub_node.Poll(5ms);
    chain = false;
    ASSERT_EQ(odom_ticks, std::vector<int64_t>{round});
    EXPECT_EQ(big_ticks, std::vector<int64_t>{round}) << "round " << round << ": the Poll returned before the chunk";
  }
  EXPECT_EQ(sub_node.TotalDrops(), 0u);
}

// A reader without shared memory on this host (the Python client, a process started without --shm) gets every
// message through the default socket copy; a reader with it gets each once (the chunk; the socket copy is dropped as
// a counted duplicate). Without the copy (--shm-only) the reader without shared memory gets nothing, as documented.
TEST_F(ShmTest, TheSocketCopyReachesAReaderWithoutSharedMemoryAndAReaderWithItGetsEachOnce) {
  StartBroker();
  for (const bool mirror : {true, false}) {
    SCOPED_TRACE(mirror ? "mirrored (the default)" : "shared memory only");
    ShmOptions publishing = HeartbeatsOnShm();
    publishing.mirror_to_socket = mirror;
    Node pub_node(context_, address_, Options(mirror ? "talker" : "talker-only", publishing));
    Node shm_reader(context_, address_, Options("shm-reader"));
    Node socket_reader(context_, address_, NodeOptions{.name = "socket-reader"});
    auto big = pub_node.Advertise<msg::Heartbeat>("peers/big");
    std::vector<int64_t> by_shm, by_socket;
    shm_reader.Subscribe<msg::Heartbeat>("peers/big",
                                         [&](const Message<msg::Heartbeat>& m) { by_shm.push_back(m.header.tick()); });
    socket_reader.Subscribe<msg::Heartbeat>(
        "peers/big", [&](const Message<msg::Heartbeat>& m) { by_socket.push_back(m.header.tick()); });
    // Warm-up: both paths connected (for "only", the socket subscription has had as long as the mirrored round's).
    ASSERT_TRUE(PollUntil(
        {&pub_node, &shm_reader, &socket_reader}, [&] { return !by_shm.empty() && (!mirror || !by_socket.empty()); },
        [&] { PublishHeartbeat(big, -1, 8192); }));
    for (int i = 0; i < 10; ++i) {
      pub_node.Poll(1ms);
      shm_reader.Poll(1ms);
      socket_reader.Poll(1ms);
    }
    by_shm.clear();
    by_socket.clear();
    const uint64_t duplicates_before = shm_reader.received().at("peers/big").duplicates;
    for (int i = 0; i < 10; ++i) PublishHeartbeat(big, i, 8192);
    const std::vector<int64_t> ticks = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9};
    ASSERT_TRUE(PollUntil({&pub_node, &shm_reader, &socket_reader},
                          [&] { return by_shm.size() >= 10 && (!mirror || by_socket.size() >= 10); }));
    for (int i = 0; i < 20; ++i) {  // the socket copies still on their way reach the shared-memory reader too
      pub_node.Poll(1ms);
      shm_reader.Poll(1ms);
      socket_reader.Poll(1ms);
    }
    EXPECT_EQ(by_shm, ticks) << "each message once on the reader with shared memory";
    if (mirror) {
      EXPECT_EQ(by_socket, ticks);
      EXPECT_GE(shm_reader.received().at("peers/big").duplicates - duplicates_before, 1u)
          << "the socket copies reached it and were dropped as duplicates";
    } else {
      EXPECT_TRUE(by_socket.empty()) << "no socket copy was asked for";
    }
    EXPECT_EQ(shm_reader.TotalDrops(), 0u);
    EXPECT_EQ(socket_reader.TotalDrops(), 0u);
  }
}

TEST_F(ShmTest, ChunksThatFailTheChecksAreCountedAndReleased) {
  Node sub_node(context_, address_, Options("listener"));
  size_t got = 0;
  sub_node.Subscribe<msg::Heartbeat>("peers/big", [&](const auto&) { ++got; });
  // A writer that is not a limbic node, on the topic's service.
  iox::popo::UntypedPublisher raw(
      {iox::capro::IdString_t(iox::cxx::TruncateToCapacity, ShmServiceName(address_).c_str()), "peers/big", "HBT1"});
  const auto send = [&](bool with_frame, ShmFrame frame, const std::vector<uint8_t>& bytes) {
    auto loaned = with_frame ? raw.loan(static_cast<uint32_t>(bytes.size()), 8, sizeof(ShmFrame), alignof(ShmFrame))
                             : raw.loan(static_cast<uint32_t>(bytes.size()));
    ASSERT_FALSE(loaned.has_error());
    std::memcpy(loaned.value(), bytes.data(), bytes.size());
    if (with_frame) {
      *static_cast<ShmFrame*>(iox::mepoo::ChunkHeader::fromUserPayload(loaned.value())->userHeader()) = frame;
    }
    raw.publish(loaned.value());
  };
  std::vector<uint8_t> garbage(256, 0xab);
  ASSERT_TRUE(PollUntil(
      {&sub_node}, [&] { return sub_node.TotalDrops() > 0; },
      [&] { send(false, {}, garbage); }));  // warm-up: chunks without a frame
  const TopicCounters before = sub_node.received().at("peers/big");
  std::vector<uint8_t> claims_heartbeat = garbage;  // the right identifier, then nonsense: fails the Verifier
  std::memcpy(claims_heartbeat.data() + 4, "HBT1", 4);
  send(true, {ShmFrame::kMagic, 0, 4096, 0}, garbage);          // points outside the chunk
  send(true, {0x0badf00d, 0, 256, 0}, garbage);                 // another writer's header
  send(true, {ShmFrame::kMagic, 0, 256, 0}, claims_heartbeat);  // inside, but no FlatBuffer
  send(true, {ShmFrame::kMagic, 0, 256, 0}, garbage);           // inside, no identifier limbic knows
  ASSERT_TRUE(PollUntil({&sub_node}, [&] { return sub_node.TotalDrops() >= before.TotalDrops() + 4; }));
  EXPECT_EQ(sub_node.received().at("peers/big").drops_malformed, before.drops_malformed + 3);
  EXPECT_EQ(sub_node.received().at("peers/big").drops_wrong_type, before.drops_wrong_type + 1);
  // Many more than a subscriber may hold at once (256 in iceoryx 2.0): were they not given back, take would fail.
  const uint64_t taken = sub_node.shm()->counters().received;
  for (int i = 0; i < 1000; ++i) {
    send(true, {ShmFrame::kMagic, 0, 256, 0}, claims_heartbeat);
    sub_node.Poll(0ms);
  }
  EXPECT_EQ(sub_node.shm()->counters().received - taken, 1000u);
  EXPECT_EQ(got, 0u) << "nothing malformed reaches a handler";
  EXPECT_GE(sub_node.shm()->counters().malformed, 2u);  // the frames; the rest failed Dispatch's checks
  EXPECT_EQ(sub_node.received().at("peers/big").messages, 0u);
}

TEST_F(ShmTest, AMessageLargerThanAllowedGoesOverTheSocketCounted) {
  StartBroker();
  ShmOptions small = HeartbeatsOnShm();
  small.max_message_bytes = 16 * 1024;
  Node pub_node(context_, address_, Options("talker", small));
  Node sub_node(context_, address_, Options("listener"));
  auto pub = pub_node.Advertise<msg::Heartbeat>("peers/big");
  std::vector<size_t> sizes;
  sub_node.Subscribe<msg::Heartbeat>("peers/big", [&](const Message<msg::Heartbeat>& m) { sizes.push_back(m.size); });
  ASSERT_TRUE(PollUntil(
      {&sub_node}, [&] { return !sizes.empty(); }, [&] { PublishHeartbeat(pub, 1, 64 * 1024); }));
  EXPECT_GT(sizes.front(), 16u * 1024);
  EXPECT_GE(pub_node.shm()->counters().fallbacks, 1u);
  EXPECT_EQ(pub_node.shm()->counters().sent, 0u);
  EXPECT_EQ(sub_node.TotalDrops(), 0u);
  // A small one still takes shared memory.
  const uint64_t fallbacks = pub_node.shm()->counters().fallbacks;
  PublishHeartbeat(pub, 2, 1024);
  EXPECT_EQ(pub_node.shm()->counters().sent, 1u);
  EXPECT_EQ(pub_node.shm()->counters().fallbacks, fallbacks);
}

TEST_F(ShmTest, ASubscriberThatDoesNotTakeLosesTheOldestCountedAndNeverBlocksThePublisher) {
  ShmOptions queue4 = HeartbeatsOnShm();
  queue4.subscriber_queue = 4;
  Node pub_node(context_, address_, Options("talker"));
  Node sub_node(context_, address_, Options("listener", queue4));
  auto pub = pub_node.Advertise<msg::Heartbeat>("peers/big");
  std::vector<int64_t> ticks;
  sub_node.Subscribe<msg::Heartbeat>("peers/big",
                                     [&](const Message<msg::Heartbeat>& m) { ticks.push_back(m.header.tick()); });
  ASSERT_TRUE(PollUntil(
      {&sub_node}, [&] { return !ticks.empty(); }, [&] { PublishHeartbeat(pub, -1, 4096); }));
  sub_node.Poll(0ms);  // whatever warm-up is still queued
  ticks.clear();
  const uint64_t gaps_before = sub_node.received().at("peers/big").drops_gap;
  for (int i = 0; i < 20; ++i) PublishHeartbeat(pub, i, 4096);  // returns every time: the publisher never waits
  ASSERT_TRUE(PollUntil({&sub_node}, [&] { return !ticks.empty() && ticks.back() == 19; }));
  EXPECT_EQ(ticks, (std::vector<int64_t>{16, 17, 18, 19})) << "discard-oldest keeps the newest";
  EXPECT_EQ(sub_node.received().at("peers/big").drops_gap - gaps_before, 16u) << "each discarded one is a counted gap";
}

// Last in this file: after it, this process's runtime belongs to a RouDi that is gone.
TEST_F(ShmTest, ZRouDiRestartMovesLiveNodesToTheSocketPath) {
  StartBroker();
  Node pub_node(context_, address_, Options("talker"));
  Node sub_node(context_, address_, Options("listener"));
  auto pub = pub_node.Advertise<msg::Heartbeat>("peers/big");
  std::vector<int64_t> ticks;
  sub_node.Subscribe<msg::Heartbeat>("peers/big",
                                     [&](const Message<msg::Heartbeat>& m) { ticks.push_back(m.header.tick()); });
  ASSERT_TRUE(PollUntil(
      {&sub_node}, [&] { return !ticks.empty(); }, [&] { PublishHeartbeat(pub, -1, 8192); }));
  const uint64_t sent_before = pub_node.shm()->counters().sent;
  EXPECT_GT(sent_before, 0u);

  RouDi::Get().Kill();
  ASSERT_EQ(RouDi::Get().Start(), "");
  // Within ShmOptions::roudi_check both nodes notice, and stay on the socket path for good.
  ASSERT_TRUE(
      PollUntil({&pub_node, &sub_node}, [&] { return !pub_node.shm()->active() && !sub_node.shm()->active(); }));
  std::string why;
  EXPECT_EQ(ShmRuntime::Connect("again", &why), nullptr);
  EXPECT_NE(why.find("restarted"), std::string::npos) << why;
  ticks.clear();
  ASSERT_TRUE(PollUntil(
      {&sub_node}, [&] { return !ticks.empty() && ticks.back() == 7; }, [&] { PublishHeartbeat(pub, 7, 8192); }));
  EXPECT_EQ(pub_node.shm()->counters().sent, sent_before) << "nothing more into the old RouDi's memory";
  EXPECT_EQ(sub_node.TotalDrops(), 0u);
}

}  // namespace
}  // namespace limbic::bus

int main(int argc, char** argv) {
  limbic::bus::g_isolation = limbic::testing::UsePrivateShmAndTmp();
  ::testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
