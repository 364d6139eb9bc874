#include "common/bus/bus.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <cmath>
#include <limits>
#include <set>
#include <thread>

#include "common/bus/broker.hpp"

namespace limbic::bus {
namespace {

using namespace std::chrono_literals;

TEST(ResolveBusAddress, DerivesBothEndpoints) {
  auto ipc = ResolveBusAddress("ipc:///tmp/x/bus");
  EXPECT_EQ(ipc.frontend, "ipc:///tmp/x/bus.in");
  EXPECT_EQ(ipc.backend, "ipc:///tmp/x/bus.out");
  auto tcp = ResolveBusAddress("tcp://robot:7400");
  EXPECT_EQ(tcp.frontend, "tcp://robot:7400");
  EXPECT_EQ(tcp.backend, "tcp://robot:7401");
  EXPECT_EQ(ResolveBindAddress("tcp://10.0.0.1:7400").backend, "tcp://10.0.0.1:7401");
  EXPECT_THROW(ResolveBusAddress("robot:7400"), std::invalid_argument);
  EXPECT_THROW(ResolveBusAddress("tcp://robot"), std::invalid_argument);
  EXPECT_THROW(ResolveBusAddress("tcp://robot:abc"), std::invalid_argument);
  EXPECT_THROW(ResolveBusAddress("udp://robot:1"), std::invalid_argument);
  EXPECT_THROW(ResolveBusAddress("tcp://::1:7400"), std::invalid_argument);  // IPv6 needs brackets
  EXPECT_TRUE(ResolveBusAddress("tcp://[::1]:7400").ipv6);
  EXPECT_FALSE(ResolveBusAddress("tcp://localhost:7400").ipv6);
}

// Issue 16 findings 3 and 4: a name, an IPv6 address or an unresolvable host used to bind 0.0.0.0.
TEST(ResolveBindAddress, BindsExactlyWhatWasAsked) {
  auto v4 = ResolveBindAddress("tcp://127.0.0.1:7400");
  EXPECT_EQ(v4.frontend, "tcp://127.0.0.1:7400");
  EXPECT_EQ(v4.backend, "tcp://127.0.0.1:7401");
  EXPECT_TRUE(v4.loopback);
  EXPECT_FALSE(v4.ipv6);
  EXPECT_EQ(ResolveBindAddress("tcp://localhost:7400").frontend, "tcp://127.0.0.1:7400");
  EXPECT_EQ(ResolveBindAddress("tcp://:7400").frontend, "tcp://127.0.0.1:7400");
  auto v6 = ResolveBindAddress("tcp://[::1]:7400");
  EXPECT_EQ(v6.frontend, "tcp://[::1]:7400");
  EXPECT_TRUE(v6.ipv6);
  EXPECT_TRUE(v6.loopback);
  auto other = ResolveBindAddress("tcp://10.0.0.1:7400");
  EXPECT_EQ(other.backend, "tcp://10.0.0.1:7401");
  EXPECT_FALSE(other.loopback);
  // Every interface only when asked for in so many words.
  EXPECT_EQ(ResolveBindAddress("tcp://*:7400").frontend, "tcp://*:7400");
  EXPECT_EQ(ResolveBindAddress("tcp://0.0.0.0:7400").frontend, "tcp://*:7400");
  EXPECT_FALSE(ResolveBindAddress("tcp://0.0.0.0:7400").loopback);
  // .invalid never resolves (RFC 6761): a clear error, not a bind on every interface.
  try {
    ResolveBindAddress("tcp://no-such-host.invalid:7400");
    FAIL() << "an unresolvable host was accepted";
  } catch (const BusAddressError& e) {
    EXPECT_NE(std::string(e.what()).find("cannot resolve host 'no-such-host.invalid'"), std::string::npos) << e.what();
  }
}

// A broker on its own thread over inproc, as the in-process experiment runner hosts it.
class BusFixture : public ::testing::Test {
 protected:
  void SetUp() override {
    BrokerOptions options;
    options.address = address_;
    options.stats_period = 200ms;
    broker_ = std::make_unique<Broker>(context_, options);
    thread_ = std::thread([this] { broker_->Run(stop_); });
  }
  void TearDown() override {
    stop_ = true;
    thread_.join();
  }
  // Polls every node until `done` holds or the deadline passes.
  template <typename Done>
  bool PollUntil(std::initializer_list<Node*> nodes, Done done, std::chrono::milliseconds limit = 3000ms) {
    const auto deadline = std::chrono::steady_clock::now() + limit;
    while (std::chrono::steady_clock::now() < deadline) {
      for (Node* n : nodes) n->Poll(5ms);
      if (done()) return true;
    }
    return false;
  }
  static void PublishOdom(Publisher<msg::Odometry>& pub, double v, int64_t tick = 0) {
    pub.Publish(0, tick, [&](flatbuffers::FlatBufferBuilder& fbb, auto header) {
      msg::Pose2 pose(1, 2, 0.5);
      return msg::CreateOdometry(fbb, header, &pose, v, 0.0);
    });
  }

  std::string address_ = "inproc://bus-test";
  zmq::context_t context_;
  std::unique_ptr<Broker> broker_;
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

TEST_F(BusFixture, PublishSubscribeThroughBroker) {
  Node pub_node(context_, address_, {.name = "talker"});
  Node sub_node(context_, address_, {.name = "listener"});
  auto pub = pub_node.Advertise<msg::Odometry>("r1/odom");
  std::vector<double> received;
  bool warm = false;
  sub_node.Subscribe<msg::Odometry>("r1/odom", [&](const Message<msg::Odometry>& m) {
    warm = true;
    if (m.msg.v() >= 0) received.push_back(m.msg.v());  // warm-up messages carry -1
    EXPECT_EQ(m.header.source()->str(), "talker");
    EXPECT_DOUBLE_EQ(m.msg.pose()->x(), 1.0);
  });
  // Slow joiner: publish until the subscription has propagated, then count a clean burst.
  ASSERT_TRUE(PollUntil({&sub_node}, [&] {
    PublishOdom(pub, -1.0);
    return warm;
  }));
  for (int i = 0; i < 100; ++i) PublishOdom(pub, i);
  ASSERT_TRUE(PollUntil({&sub_node}, [&] { return received.size() >= 100; }));
  EXPECT_EQ(received.front(), 0.0);
  EXPECT_EQ(received.back(), 99.0);
  EXPECT_EQ(sub_node.TotalDrops(), 0u);
  EXPECT_GE(broker_->counts().at("r1/odom").messages, 100u);
}

TEST_F(BusFixture, LateJoinerGetsLatchedValue) {
  Node pub_node(context_, address_, {.name = "mapper"});
  auto pub = pub_node.Advertise<msg::Odometry>("r1/latched", /*latched=*/true);
  // Let the publisher's connection come up, then publish once.
  Node probe(context_, address_, {.name = "probe"});
  bool seen = false;
  probe.Subscribe<msg::Odometry>("r1/latched", [&](const auto&) { seen = true; });
  ASSERT_TRUE(PollUntil({&probe}, [&] {
    PublishOdom(pub, 42.0);
    return seen;
  }));
  ASSERT_TRUE(PollUntil({&probe}, [&] { return broker_->latched_topics() == 1; }));
  // A subscriber that joins afterwards receives the last value without a new publication.
  Node late(context_, address_, {.name = "late"});
  double value = 0;
  late.Subscribe<msg::Odometry>("r1/latched", [&](const Message<msg::Odometry>& m) { value = m.msg.v(); });
  ASSERT_TRUE(PollUntil({&late}, [&] { return value == 42.0; }));
}

TEST_F(BusFixture, MalformedAndWrongTypePayloadsAreDroppedAndCounted) {
  Node pub_node(context_, address_, {.name = "evil"});
  Node sub_node(context_, address_, {.name = "victim"});
  auto pub = pub_node.Advertise<msg::Odometry>("r1/odom");
  int good = 0;
  sub_node.Subscribe<msg::Odometry>("r1/odom", [&](const auto&) { ++good; });
  ASSERT_TRUE(PollUntil({&sub_node}, [&] {
    PublishOdom(pub, 1.0);
    return good > 0;
  }));
  const std::string junk = "this is not a flatbuffer at all";
  for (int i = 0; i < 50; ++i) pub_node.SendRaw("r1/odom", junk.data(), junk.size());
  // A valid Clock on a topic that carries Odometry (issue 15, finding 6): the broker knows the topic's
  // type from its first publisher and drops the Clock itself, where `limbic topics` and Prometheus
  // see it, instead of forwarding it to every receiver to be dropped there.
  flatbuffers::FlatBufferBuilder fbb;
  fbb.Finish(msg::CreateClock(fbb, msg::CreateHeaderDirect(fbb, 0, 1, 1, "evil", false, 7)), "CLCK");
  pub_node.SendRaw("r1/odom", fbb.GetBufferPointer(), fbb.GetSize());
  const int before = good;
  for (int i = 0; i < 10; ++i) PublishOdom(pub, 2.0);
  ASSERT_TRUE(PollUntil({&sub_node}, [&] { return good >= before + 10; }));
  EXPECT_EQ(broker_->counts().at("r1/odom").drops_wrong_type, 51u);  // junk (no known identifier) and the Clock
  EXPECT_EQ(sub_node.received().at("r1/odom").drops_wrong_type, 0u);
}

TEST_F(BusFixture, BrokerDropsMessagesWithInvalidValuesAndCountsThem) {
  Node pub_node(context_, address_, {.name = "user"});
  Node sub_node(context_, address_, {.name = "planner"});
  auto pub = pub_node.Advertise<msg::NavGoal>("r1/goal");
  std::vector<double> goals;
  sub_node.Subscribe<msg::NavGoal>("r1/goal",
                                   [&](const Message<msg::NavGoal>& m) { goals.push_back(m.msg.goal()->x()); });
  auto publish_goal = [&](double x) {
    pub.Publish(0, -1, [&](flatbuffers::FlatBufferBuilder& fbb, auto header) {
      const msg::Vec2 goal(x, 1.0);
      return msg::CreateNavGoal(fbb, header, true, &goal, 5);
    });
  };
  ASSERT_TRUE(PollUntil({&sub_node}, [&] {
    publish_goal(3.0);
    return !goals.empty();
  }));
  const size_t before = goals.size();
  // What a raw sender (limbic pub of an older build, a corrupted peer) could put on the bus; the typed
  // publisher refuses to build it at all.
  EXPECT_THROW(publish_goal(std::nan("")), InvalidMessage);
  for (double x : {std::nan(""), std::numeric_limits<double>::infinity()}) {
    flatbuffers::FlatBufferBuilder fbb;
    const msg::Vec2 goal(x, 1.0);
    fbb.Finish(msg::CreateNavGoal(fbb, msg::CreateHeaderDirect(fbb, 0, -1, 1, "raw", false, 3), true, &goal, 5),
               "GOAL");
    pub_node.SendRaw("r1/goal", fbb.GetBufferPointer(), fbb.GetSize());
  }
  publish_goal(4.0);
  ASSERT_TRUE(PollUntil({&sub_node}, [&] { return goals.size() > before && goals.back() == 4.0; }));
  for (double x : goals) EXPECT_TRUE(std::isfinite(x));
  EXPECT_EQ(broker_->counts().at("r1/goal").drops_invalid, 2u);
}

// A node checks values itself too (a broker of an older build, or none in between): here a raw PUB
// socket plays the broker's backend and hands the node a NaN goal directly.
TEST(BusNode, RejectsInvalidValuesBeforeAnyHandlerAndCountsThem) {
  zmq::context_t context;
  zmq::socket_t fake_backend(context, zmq::socket_type::pub);
  fake_backend.bind("inproc://no-broker.out");
  Node node(context, "inproc://no-broker", {.name = "victim"});
  int handled = 0;
  node.Subscribe<msg::NavGoal>("r1/goal", [&](const auto&) { ++handled; });
  auto send_goal = [&](double x, uint64_t seq) {
    flatbuffers::FlatBufferBuilder fbb;
    const msg::Vec2 goal(x, 1.0);
    fbb.Finish(msg::CreateNavGoal(fbb, msg::CreateHeaderDirect(fbb, 0, -1, seq, "user", false, 9), true, &goal, 5),
               "GOAL");
    fake_backend.send(zmq::str_buffer("r1/goal"), zmq::send_flags::sndmore);
    fake_backend.send(zmq::const_buffer(fbb.GetBufferPointer(), fbb.GetSize()), zmq::send_flags::none);
  };
  const auto deadline = std::chrono::steady_clock::now() + 3s;
  uint64_t seq = 0;
  while (handled == 0 && std::chrono::steady_clock::now() < deadline) {  // until the subscription is live
    send_goal(1.0, ++seq);
    node.Poll(5ms);
  }
  ASSERT_EQ(handled, 1);
  for (int i = 0; i < 3; ++i) send_goal(std::nan(""), ++seq);
  send_goal(2.0, ++seq);
  while (handled < 2 && std::chrono::steady_clock::now() < deadline) node.Poll(5ms);
  EXPECT_EQ(handled, 2);
  EXPECT_EQ(node.received().at("r1/goal").drops_invalid, 3u);
  EXPECT_EQ(node.received().at("r1/goal").drops_malformed + node.received().at("r1/goal").drops_wrong_type, 0u);
}

TEST_F(BusFixture, SequenceGapsAndDuplicatesAreCounted) {
  Node pub_node(context_, address_, {.name = "raw"});
  Node sub_node(context_, address_, {.name = "sub"});
  int delivered = 0;
  uint64_t last_seq_seen = 0;
  sub_node.Subscribe<msg::Clock>("clock", [&](const Message<msg::Clock>& m) {
    ++delivered;
    last_seq_seen = m.header.seq();
  });
  auto send = [&](uint64_t seq) {
    flatbuffers::FlatBufferBuilder fbb;
    fbb.Finish(msg::CreateClock(fbb, msg::CreateHeaderDirect(fbb, 0, 1, seq, "src", false, 99)), "CLCK");
    pub_node.SendRaw("clock", fbb.GetBufferPointer(), fbb.GetSize());
  };
  uint64_t seq = 0;
  ASSERT_TRUE(PollUntil({&sub_node}, [&] {
    send(++seq);
    return delivered > 0;
  }));
  // Drain the warm-up messages still in flight before taking the baseline.
  PollUntil({&sub_node}, [&] { return last_seq_seen == seq; });
  const auto base = sub_node.received().at("clock");
  const uint64_t last = seq;
  send(last + 1);
  send(last + 5);  // three lost
  send(last + 5);  // duplicate
  send(last + 6);
  ASSERT_TRUE(PollUntil({&sub_node}, [&] { return last_seq_seen == last + 6; }));
  const auto& c = sub_node.received().at("clock");
  EXPECT_EQ(c.drops_gap - base.drops_gap, 3u);
  EXPECT_EQ(c.duplicates - base.duplicates, 1u);
}

TEST_F(BusFixture, BrokerPublishesStatistics) {
  Node sub_node(context_, address_, {.name = "stats"});
  Node other(context_, address_, {.name = "other"});
  other.Subscribe<msg::Odometry>("r1/odom", [](const auto&) {});
  bool got = false;
  int subscribers = 0;
  sub_node.Subscribe<msg::BusStats>("bus/stats", [&](const Message<msg::BusStats>& m) {
    got = m.msg.topics() != nullptr;
    subscribers = m.msg.subscribers();
  });
  // The broker knows its subscribers (issue 16): both nodes.
  EXPECT_TRUE(PollUntil({&sub_node, &other}, [&] { return got && subscribers == 2; })) << subscribers;
}

// Issue 16: a subscription gets the latched values once, to that subscriber alone, however many
// subscribe at the same moment (XPUB could not tell them apart).
TEST_F(BusFixture, EachOfManySimultaneousSubscribersGetsTheLatchedValueOnce) {
  Node pub_node(context_, address_, {.name = "mapper", .latched_resend = 0ms});  // no re-sends: replays only
  auto pub = pub_node.Advertise<msg::Odometry>("r1/pose_latched", /*latched=*/true);
  Node probe(context_, address_, {.name = "probe"});
  bool seen = false;
  probe.Subscribe<msg::Odometry>("r1/pose_latched", [&](const auto&) { seen = true; });
  ASSERT_TRUE(PollUntil({&probe}, [&] {
    if (!seen) PublishOdom(pub, 7.0);
    return seen && broker_->latched_topics() == 1;
  }));
  constexpr int kNodes = 10;
  std::vector<std::unique_ptr<Node>> nodes;
  std::vector<int> arrivals(kNodes, 0);
  for (int i = 0; i < kNodes; ++i) {
    nodes.push_back(std::make_unique<Node>(context_, address_, NodeOptions{.name = "late" + std::to_string(i)}));
    nodes.back()->Subscribe<msg::Odometry>("r1/pose_latched", [&arrivals, i](const auto&) { ++arrivals[i]; });
  }
  const auto until = std::chrono::steady_clock::now() + 1500ms;
  while (std::chrono::steady_clock::now() < until) {
    for (auto& n : nodes) n->Poll(1ms);
  }
  for (int i = 0; i < kNodes; ++i) {
    EXPECT_EQ(arrivals[i], 1) << "node " << i;
    // Exactly one copy arrived: none dropped as a duplicate either.
    EXPECT_EQ(nodes[i]->received().at("r1/pose_latched").duplicates, 0u) << "node " << i;
  }
  EXPECT_EQ(probe.received().at("r1/pose_latched").duplicates, 0u);  // the others' replays did not reach it
}

// A subscriber rejoins a restarted broker by itself: the broker that does not know its connection
// answers its keepalive by asking for its subscriptions again.
TEST(BusRestart, SubscriberResubscribesToARestartedBroker) {
  const std::string address = "ipc:///tmp/limbic-bus-test-restart-" + std::to_string(getpid());
  zmq::context_t context;
  auto broker_context = std::make_unique<zmq::context_t>();
  BrokerOptions options;
  options.address = address;
  auto broker = std::make_unique<Broker>(*broker_context, options);
  std::atomic<bool> stop{false};
  auto thread = std::make_unique<std::thread>([&] { broker->Run(stop); });
  Node pub_node(context, address, {.name = "talker"});
  Node sub_node(context, address, {.name = "listener", .keepalive = 200ms});
  auto pub = pub_node.Advertise<msg::Clock>("clock");
  int heard = 0;
  sub_node.Subscribe<msg::Clock>("clock", [&](const auto&) { ++heard; });
  auto publish_until_heard = [&] {
    const int before = heard;
    const auto deadline = std::chrono::steady_clock::now() + 5s;
    while (std::chrono::steady_clock::now() < deadline && heard == before) {
      pub.Publish(0, 0, [](flatbuffers::FlatBufferBuilder& fbb, auto header) {
        msg::ClockBuilder b(fbb);
        b.add_header(header);
        return b.Finish();
      });
      sub_node.Poll(10ms);
    }
    return heard > before;
  };
  ASSERT_TRUE(publish_until_heard());
  // The broker goes away and a new one (knowing nothing) takes its place.
  stop = true;
  thread->join();
  broker.reset();
  broker_context.reset();
  stop = false;
  broker_context = std::make_unique<zmq::context_t>();
  broker = std::make_unique<Broker>(*broker_context, options);
  thread = std::make_unique<std::thread>([&] { broker->Run(stop); });
  EXPECT_TRUE(publish_until_heard());
  stop = true;
  thread->join();
}

// FlatBuffers reads scalars in place: what a handler receives must be aligned for them, wherever ZeroMQ's
// decoder left the frame (over ipc it points into its receive buffer, at whatever offset the frame had). Senders
// with names of every length from 1 to 16 and topics of two lengths shift the frames, so they land at many offsets.
TEST(BusAlignment, EveryReceivedPayloadIsAlignedForFlatBuffers) {
  const std::string address = "ipc:///tmp/limbic-bus-test-align-" + std::to_string(getpid());
  zmq::context_t context;
  BrokerOptions options;
  options.address = address;
  Broker broker(context, options);
  std::atomic<bool> stop{false};
  std::thread thread([&] { broker.Run(stop); });
  Node sub_node(context, address, {.name = "listener"});
  std::set<size_t> sizes;
  int received = 0, misaligned = 0;
  double odometry_sum = 0;
  sub_node.SubscribeAny("align/", [&](const RawMessage& m) {
    ++received;
    sizes.insert(m.size);
    if (reinterpret_cast<uintptr_t>(m.data) % alignof(double) != 0) ++misaligned;
    // A read of a double field where it lies (UBSan checks this one in the sanitizer build).
    odometry_sum += flatbuffers::GetRoot<msg::Odometry>(m.data)->v();
  });
  std::vector<std::unique_ptr<Node>> senders;
  std::vector<Publisher<msg::Odometry>> pubs;
  for (int n = 1; n <= 16; ++n) {
    senders.push_back(std::make_unique<Node>(context, address, NodeOptions{.name = std::string(n, 's')}));
    pubs.push_back(senders.back()->Advertise<msg::Odometry>("align/" + std::to_string(n)));
  }
  const auto deadline = std::chrono::steady_clock::now() + 5s;
  while (std::chrono::steady_clock::now() < deadline && received < 1000) {
    // Bursts, so that frames follow each other in one receive buffer.
    for (int burst = 0; burst < 4; ++burst) {
      for (auto& pub : pubs) {
        pub.Publish(0, 0, [](flatbuffers::FlatBufferBuilder& fbb, auto header) {
          msg::Pose2 pose(1, 2, 0.5);
          return msg::CreateOdometry(fbb, header, &pose, 0.25, 0.0);
        });
      }
    }
    sub_node.Poll(10ms);
  }
  for (int i = 0; i < 20; ++i) sub_node.Poll(5ms);
  stop = true;
  thread.join();
  ASSERT_GE(received, 1000) << "too few messages arrived";
  ASSERT_GE(sizes.size(), 3u) << "too few payload sizes arrived to shift their offsets";
  EXPECT_EQ(misaligned, 0) << "of " << received;
  EXPECT_DOUBLE_EQ(odometry_sum, 0.25 * received);
}

}  // namespace
}  // namespace limbic::bus
