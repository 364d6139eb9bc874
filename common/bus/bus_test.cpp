#include "common/bus/bus.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <limits>
#include <memory>
#include <set>
#include <span>
#include <thread>
#include <vector>

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

// A broker on its own thread over inproc, as the in-process experiment runner hosts it. Tests that look at what the
// broker carried (its counts, its latch cache, its replays) pin their publishers to the broker path, so that they
// test the broker under LIMBIC_BUS_PATH=direct too; direct_test.cpp covers the same behaviour on the direct path.
class BusFixture : public ::testing::Test {
 protected:
  void SetUp() override {
    BrokerOptions options;
    options.address = address_;
    options.stats_period = 200ms;
    broker_ = std::make_unique<Broker>(context_, options);
    thread_ = std::thread([this] { broker_->Run(stop_); });
  }
  void TearDown() override { StopBroker(); }
  // After this the broker's counts can be read without racing its thread.
  void StopBroker() {
    stop_ = true;
    if (thread_.joinable()) thread_.join();
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
  Node pub_node(context_, address_, {.name = "talker", .data_path = DataPath::kBroker});
  Node sub_node(context_, address_, {.name = "listener", .data_path = DataPath::kBroker});
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
  // "Last seen" stamps (coarse wall clock): taken in this test, never in the future.
  const int64_t now = Node::WallNowNs();
  for (const int64_t seen :
       {sub_node.received().at("r1/odom").last_seen_ns, broker_->counts().at("r1/odom").last_seen_ns}) {
    EXPECT_LE(seen, now);
    EXPECT_GT(seen, now - int64_t{30'000'000'000});
  }
}

// The coarse clock of the per-message stamps: never ahead of the precise one, and behind it by no more than a tick of
// the kernel's (4 ms at HZ=250; 50 ms allowed for a loaded machine between the two reads).
TEST(NodeClock, CoarseWallTimeTrailsThePreciseOneByLessThanATick) {
  for (int i = 0; i < 1000; ++i) {
    const int64_t coarse = Node::CoarseWallNowNs();
    const int64_t precise = Node::WallNowNs();
    ASSERT_LE(coarse, precise + 1'000'000) << "read first, it can only be behind (1 ms for the clocks' own rounding)";
    ASSERT_GT(coarse, precise - 50'000'000);
  }
}

// A prefix subscriber that is sent more distinct topics than the node keeps per-topic state for (kMaxTrackedTopics:
// a peer inventing names) receives every message, those beyond the bound too, each counted; its tables stay bounded.
TEST_F(BusFixture, APrefixSubscriberGetsEveryMessageOfMoreTopicsThanItTracks) {
  Node pub_node(context_, address_, {.name = "inventor", .data_path = DataPath::kBroker});
  Node sub_node(context_, address_, {.name = "listener", .data_path = DataPath::kBroker});
  size_t received = 0, flooded = 0;
  std::set<std::string> topics;
  sub_node.SubscribeAny("flood/", [&](const RawMessage& m) {
    ++received;
    if (m.topic == "flood/warm") return;
    ++flooded;
    topics.insert(m.topic);
  });
  Publisher<msg::Odometry> warm = pub_node.Advertise<msg::Odometry>("flood/warm");
  ASSERT_TRUE(PollUntil({&pub_node, &sub_node}, [&] {
    PublishOdom(warm, -1.0);
    return received > 0;
  }));
  const size_t flood = kMaxTrackedTopics + 500;
  flatbuffers::FlatBufferBuilder fbb;
  for (size_t i = 0; i < flood; ++i) {
    fbb.Clear();
    const msg::Pose2 pose(1, 2, 0.5);
    fbb.Finish(msg::CreateOdometry(fbb, msg::CreateHeaderDirect(fbb, 0, 0, 1, "inventor"), &pose, 1.0, 0.0),
               messages::Traits<msg::Odometry>::kIdentifier);
    pub_node.SendRaw("flood/" + std::to_string(i), fbb.GetBufferPointer(), fbb.GetSize());
    if (i % 500 == 0)
      PollUntil(
          {&pub_node, &sub_node}, [] { return false; }, 20ms);  // within the high-water marks
  }
  EXPECT_TRUE(PollUntil(
      {&pub_node, &sub_node}, [&] { return flooded == flood; }, 10000ms))
      << flooded << " of " << flood;
  EXPECT_EQ(topics.size(), flood);
  EXPECT_EQ(sub_node.TotalDrops(), 0u);
  EXPECT_LE(sub_node.received().size(), kMaxTrackedTopics + 1);  // the rest counted under kOverflowTopic
  EXPECT_EQ(sub_node.tracked_topics(), kMaxTrackedTopics);
}

TEST_F(BusFixture, LateJoinerGetsLatchedValue) {
  Node pub_node(context_, address_, {.name = "mapper", .data_path = DataPath::kBroker});
  auto pub = pub_node.Advertise<msg::Odometry>("r1/latched", /*latched=*/true);
  // Let the publisher's connection come up, then publish once.
  Node probe(context_, address_, {.name = "probe", .data_path = DataPath::kBroker});
  bool seen = false;
  probe.Subscribe<msg::Odometry>("r1/latched", [&](const auto&) { seen = true; });
  ASSERT_TRUE(PollUntil({&probe}, [&] {
    PublishOdom(pub, 42.0);
    return seen;
  }));
  ASSERT_TRUE(PollUntil({&probe}, [&] { return broker_->latched_topics() == 1; }));
  // A subscriber that joins afterwards receives the last value without a new publication.
  Node late(context_, address_, {.name = "late", .data_path = DataPath::kBroker});
  double value = 0;
  late.Subscribe<msg::Odometry>("r1/latched", [&](const Message<msg::Odometry>& m) { value = m.msg.v(); });
  ASSERT_TRUE(PollUntil({&late}, [&] { return value == 42.0; }));
}

TEST_F(BusFixture, MalformedAndWrongTypePayloadsAreDroppedAndCounted) {
  Node pub_node(context_, address_, {.name = "evil", .data_path = DataPath::kBroker});
  Node sub_node(context_, address_, {.name = "victim", .data_path = DataPath::kBroker});
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
  Node pub_node(context_, address_, {.name = "user", .data_path = DataPath::kBroker});
  Node sub_node(context_, address_, {.name = "planner", .data_path = DataPath::kBroker});
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

// Issue 23 item 3: what is lost after the last message that arrived is counted from the publisher's
// HighWaterReports on bus/hwm/<topic>, once the next report confirms the claim; a late arrival is taken back.
TEST_F(BusFixture, TailLossesAreCountedFromConfirmedHighWaterReports) {
  Node pub_node(context_, address_, {.name = "raw"});
  Node sub_node(context_, address_, {.name = "sub"});
  Node watcher(context_, address_, {.name = "watcher"});
  uint64_t last_seq_seen = 0;
  sub_node.Subscribe<msg::Clock>("clock", [&](const Message<msg::Clock>& m) { last_seq_seen = m.header.seq(); });
  std::vector<uint64_t> claims;  // reports reach a subscription that asks for them by name
  watcher.SubscribeAny("bus/hwm/", [&](const RawMessage& m) {
    claims.push_back(flatbuffers::GetRoot<msg::HighWaterReport>(m.data)->last_seq());
  });
  auto send = [&](uint64_t seq) {
    flatbuffers::FlatBufferBuilder fbb;
    fbb.Finish(msg::CreateClock(fbb, msg::CreateHeaderDirect(fbb, 0, 1, seq, "src", false, 99)), "CLCK");
    pub_node.SendRaw("clock", fbb.GetBufferPointer(), fbb.GetSize());
  };
  uint64_t report_seq = 0;
  auto report = [&](uint64_t last_seq) {
    flatbuffers::FlatBufferBuilder fbb;
    fbb.Finish(msg::CreateHighWaterReportDirect(fbb, msg::CreateHeaderDirect(fbb, 0, 0, ++report_seq, "src", false, 99),
                                                "clock", last_seq),
               "HWMR");
    pub_node.SendRaw("bus/hwm/clock", fbb.GetBufferPointer(), fbb.GetSize());
  };
  uint64_t seq = 0;
  ASSERT_TRUE(PollUntil({&sub_node}, [&] {
    send(++seq);
    return last_seq_seen > 0;
  }));
  PollUntil({&sub_node}, [&] { return last_seq_seen == seq; });
  const auto base = sub_node.received().at("clock");
  const uint64_t last = seq;
  send(last + 1);
  report(last + 4);  // 2 and 3 more "sent", lost on the way
  ASSERT_TRUE(PollUntil({&sub_node, &watcher}, [&] { return last_seq_seen == last + 1 && !claims.empty(); }));
  EXPECT_EQ(sub_node.received().at("clock").drops_tail, 0u);  // not yet: they may still be in flight
  report(last + 4);
  ASSERT_TRUE(PollUntil({&sub_node}, [&] { return sub_node.received().at("clock").drops_tail == 3; }))
      << sub_node.received().at("clock").drops_tail;
  send(last + 3);  // one of them, late (a delay fault): delivered, and taken back
  ASSERT_TRUE(PollUntil({&sub_node}, [&] { return last_seq_seen == last + 3; }));
  const auto& c = sub_node.received().at("clock");
  EXPECT_EQ(c.drops_tail, 2u);
  EXPECT_EQ(c.drops_gap, base.drops_gap);
  EXPECT_EQ(c.messages - base.messages, 2u);  // reports are not messages of the topic
  EXPECT_EQ(sub_node.received().count("bus/hwm/clock"), 0u);
  EXPECT_EQ(sub_node.TotalDrops(), base.TotalDrops() + 2);
  EXPECT_GE(claims.size(), 1u);
  EXPECT_EQ(claims.front(), last + 4);
}

// A typed publisher reports its high-water mark by itself (Poll, every high_water_period), and a subscriber that
// got everything counts nothing.
TEST_F(BusFixture, TypedPublishersReportTheirHighWaterMarkAndNothingLostCountsNothing) {
  Node pub_node(context_, address_, {.name = "talker", .high_water_period = 20ms});
  Node sub_node(context_, address_, {.name = "listener"});
  auto pub = pub_node.Advertise<msg::Odometry>("r1/odom");
  bool warm = false;
  sub_node.Subscribe<msg::Odometry>("r1/odom", [&](const auto&) { warm = true; });
  std::vector<std::pair<std::string, uint64_t>> reports;
  sub_node.SubscribeAny("bus/hwm/r1/", [&](const RawMessage& m) {
    const auto* r = flatbuffers::GetRoot<msg::HighWaterReport>(m.data);
    reports.emplace_back(r->topic()->str(), r->last_seq());
    EXPECT_EQ(m.header.source()->str(), "talker");
    EXPECT_EQ(m.header.incarnation(), pub_node.incarnation());
  });
  ASSERT_TRUE(PollUntil({&sub_node}, [&] {
    PublishOdom(pub, -1.0);
    return warm;
  }));
  for (int i = 0; i < 50; ++i) PublishOdom(pub, i);
  const uint64_t sent = pub_node.sent().at("r1/odom").messages;
  ASSERT_TRUE(PollUntil({&pub_node, &sub_node}, [&] { return reports.size() >= 3 && reports.back().second == sent; }))
      << reports.size();
  EXPECT_EQ(reports.back().first, "r1/odom");
  EXPECT_EQ(pub_node.sent().at("r1/odom").messages, sent);  // reports are not counted as sent on the topic
  EXPECT_EQ(pub_node.sent().count("bus/hwm/r1/odom"), 0u);
  EXPECT_EQ(sub_node.received().at("r1/odom").drops_tail, 0u);
  EXPECT_EQ(sub_node.TotalDrops(), 0u);
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
  Node pub_node(
      context_, address_,
      {.name = "mapper", .latched_resend = 0ms, .data_path = DataPath::kBroker});  // no re-sends: replays only
  auto pub = pub_node.Advertise<msg::Odometry>("r1/pose_latched", /*latched=*/true);
  Node probe(context_, address_, {.name = "probe", .data_path = DataPath::kBroker});
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
  // Until several sizes have arrived too: on the direct path the listener connects to the 16 publishers one by one,
  // and 1,000 messages can come from the first two.
  while (std::chrono::steady_clock::now() < deadline && (received < 1000 || sizes.size() < 3)) {
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

// Node::SendShared (issue 17: a player sends straight from its decompressed chunk). An owner that scribbles over its
// bytes when released: a frame ZeroMQ read after the release would arrive scribbled and fail verification.
struct ScribbledOnRelease {
  std::vector<uint8_t> bytes;
  std::atomic<int>* released;
  ~ScribbledOnRelease() {
    std::fill(bytes.begin(), bytes.end(), uint8_t{0xDD});
    released->fetch_add(1);
  }
};

// An ObstacleSet of `points` points whose first point's x is `marker`, from `source`, sequence `seq`.
std::vector<uint8_t> MarkedObstacles(double marker, uint64_t seq, size_t points, const char* source = "shared") {
  flatbuffers::FlatBufferBuilder fbb(points * 16 + 256);
  auto header = msg::CreateHeaderDirect(fbb, 0, 0, seq, source, false, 7);
  std::vector<msg::Vec2> v(points, msg::Vec2(0.5, 0.5));
  v.front() = msg::Vec2(marker, 0.0);
  fbb.Finish(msg::CreateObstacleSetDirect(fbb, header, &v, nullptr, 0),
             messages::Traits<msg::ObstacleSet>::kIdentifier);
  return {fbb.GetBufferPointer(), fbb.GetBufferPointer() + fbb.GetSize()};
}

// Over ipc, as `limbic play` reaches its broker: ZeroMQ's I/O thread reads the frame where it lies and writes it to
// the socket. (Over inproc the broker would read the caller's bytes itself, handed over through libzmq's pipes,
// which TSan cannot see: see tests/sanitizers/tsan.supp.)
class SharedSendFixture : public BusFixture {
 protected:
  SharedSendFixture() { address_ = "ipc:///tmp/limbic-bus-test-shared-" + std::to_string(getpid()); }
};

// Chunks of `per_owner` messages, as a recording's decompressed chunk holds them: one buffer, each message at an
// 8-aligned offset. Returns each message's span.
std::shared_ptr<ScribbledOnRelease> PackChunk(const std::vector<std::vector<uint8_t>>& messages,
                                              std::atomic<int>* released,
                                              std::vector<std::span<const uint8_t>>* spans) {
  auto chunk = std::make_shared<ScribbledOnRelease>();
  chunk->released = released;
  std::vector<size_t> offsets;
  for (const auto& m : messages) {
    offsets.push_back(chunk->bytes.size());
    chunk->bytes.insert(chunk->bytes.end(), m.begin(), m.end());
    chunk->bytes.resize((chunk->bytes.size() + 7) / 8 * 8);
  }
  spans->clear();
  for (size_t i = 0; i < messages.size(); ++i)
    spans->emplace_back(chunk->bytes.data() + offsets[i], messages[i].size());
  return chunk;
}

TEST_F(SharedSendFixture, SharedPayloadsArriveIntactAndTheirOwnerLivesUntilZeroMqIsDone) {
  Node pub_node(context_, address_, {.name = "shared", .data_path = DataPath::kBroker});
  Node sub_node(context_, address_, {.name = "listener", .data_path = DataPath::kBroker});
  std::vector<double> markers;
  bool warm = false;
  sub_node.Subscribe<msg::ObstacleSet>("r1/shared", [&](const Message<msg::ObstacleSet>& m) {
    const double marker = m.msg.points()->Get(0)->x();
    if (marker < 0) {
      warm = true;  // a warm-up message
    } else {
      markers.push_back(marker);
    }
  });
  std::atomic<int> released{0};
  std::vector<std::span<const uint8_t>> spans;
  uint64_t seq = 0;
  // Slow joiner: warm-up chunks of one message (marker -1) until one arrives.
  ASSERT_TRUE(PollUntil({&sub_node}, [&] {
    auto warm_chunk = PackChunk({MarkedObstacles(-1, ++seq, 64)}, &released, &spans);
    pub_node.SendShared("r1/shared", spans[0], warm_chunk);
    return warm;
  }));
  const int warm_chunks = static_cast<int>(seq);
  // 20 chunks of 10 messages of about 4 KiB; the caller lets go of each chunk as soon as it is sent.
  constexpr int kChunks = 20, kPerChunk = 10;
  std::vector<std::weak_ptr<ScribbledOnRelease>> chunks;
  for (int c = 0; c < kChunks; ++c) {
    std::vector<std::vector<uint8_t>> messages;
    for (int i = 0; i < kPerChunk; ++i) messages.push_back(MarkedObstacles(c * kPerChunk + i, ++seq, 256));
    auto chunk = PackChunk(messages, &released, &spans);
    ASSERT_GE(spans[0].size(), Node::kMinSharedBytes);
    for (const auto& span : spans) pub_node.SendShared("r1/shared", span, chunk);
    chunks.push_back(chunk);
    chunk.reset();
    // The node holds its last owner: released by the caller, it is not freed under ZeroMQ's feet.
    EXPECT_FALSE(chunks.back().expired());
  }
  ASSERT_TRUE(PollUntil({&sub_node}, [&] { return markers.size() >= kChunks * kPerChunk; }));
  ASSERT_EQ(markers.size(), size_t{kChunks * kPerChunk});
  for (int i = 0; i < kChunks * kPerChunk; ++i) EXPECT_EQ(markers[static_cast<size_t>(i)], i) << "message " << i;
  EXPECT_EQ(sub_node.TotalDrops(), 0u);
  StopBroker();
  EXPECT_EQ(broker_->counts().at("r1/shared").TotalDrops(), 0u);
  EXPECT_EQ(pub_node.sent().at("r1/shared").messages, seq);
  // Every chunk but the node's current one goes once ZeroMQ has written it; that one goes with the node.
  const auto deadline = std::chrono::steady_clock::now() + 3s;
  while (released.load() < warm_chunks + kChunks - 1 && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(1ms);
  EXPECT_EQ(released.load(), warm_chunks + kChunks - 1);
  EXPECT_FALSE(chunks.back().expired());
}

TEST_F(SharedSendFixture, SmallOrOwnerlessSharedPayloadsAreCopied) {
  Node pub_node(context_, address_, {.name = "shared"});
  Node sub_node(context_, address_, {.name = "listener"});
  std::vector<double> markers;
  sub_node.Subscribe<msg::ObstacleSet>(
      "r1/small", [&](const Message<msg::ObstacleSet>& m) { markers.push_back(m.msg.points()->Get(0)->x()); });
  std::atomic<int> released{0};
  std::vector<std::span<const uint8_t>> spans;
  uint64_t seq = 0;
  ASSERT_TRUE(PollUntil({&sub_node}, [&] {
    auto small = PackChunk({MarkedObstacles(-1, ++seq, 1)}, &released, &spans);
    EXPECT_LT(spans[0].size(), Node::kMinSharedBytes);
    pub_node.SendShared("r1/small", spans[0], small);
    return !markers.empty();
  }));
  // Copied: nothing held, each owner freed (and scribbled) on the spot.
  EXPECT_EQ(released.load(), static_cast<int>(seq));
  const auto big = MarkedObstacles(7, ++seq, 256);
  pub_node.SendShared("r1/small", big, nullptr);  // no owner: copied
  ASSERT_TRUE(PollUntil({&sub_node}, [&] { return markers.back() == 7; }));
  EXPECT_EQ(sub_node.TotalDrops(), 0u);
}

TEST_F(SharedSendFixture, HugeSharedPayloadsAreForwardedOrDroppedAndTheirOwnerReleased) {
  std::atomic<int> released{0};
  std::weak_ptr<ScribbledOnRelease> huge_owner;
  double marker = 0;
  size_t big_size = 0;
  {
    Node pub_node(context_, address_, {.name = "shared", .data_path = DataPath::kBroker});
    Node sub_node(context_, address_, {.name = "listener", .data_path = DataPath::kBroker});
    sub_node.Subscribe<msg::ObstacleSet>("r1/huge", [&](const Message<msg::ObstacleSet>& m) {
      marker = m.msg.points()->Get(0)->x();
      big_size = m.size;
    });
    std::vector<std::span<const uint8_t>> spans;
    uint64_t seq = 0;
    ASSERT_TRUE(PollUntil({&sub_node}, [&] {
      auto warm = PackChunk({MarkedObstacles(-1, ++seq, 64)}, &released, &spans);
      pub_node.SendShared("r1/huge", spans[0], warm);
      return marker == -1;
    }));
    // 4 MiB: far beyond ZeroMQ's 8 KiB batches, written from where it lies; it arrives whole.
    auto big = PackChunk({MarkedObstacles(4, ++seq, 256 * 1024)}, &released, &spans);
    pub_node.SendShared("r1/huge", spans[0], big);
    const size_t sent_size = spans[0].size();
    big.reset();
    ASSERT_TRUE(PollUntil(
        {&sub_node}, [&] { return marker == 4; }, 10s));
    EXPECT_EQ(big_size, sent_size);
    // Beyond the payload cap: the broker drops and counts it; the sender's owner goes all the same.
    auto over = std::make_shared<ScribbledOnRelease>();
    over->released = &released;
    over->bytes.assign(messages::kMaxPayloadBytes + 1, 0);
    pub_node.SendShared("r1/huge", over->bytes, over);
    huge_owner = over;
    over.reset();
    // A small one after it: once that has arrived, the broker has dealt with the one before.
    auto after = PackChunk({MarkedObstacles(5, ++seq, 64)}, &released, &spans);
    pub_node.SendShared("r1/huge", spans[0], after);
    ASSERT_TRUE(PollUntil(
        {&sub_node}, [&] { return marker == 5; }, 10s));
    StopBroker();
    EXPECT_EQ(broker_->counts().at("r1/huge").drops_oversize, 1u);
    EXPECT_EQ(sub_node.TotalDrops(), 0u);
  }
  // The nodes are gone; whatever ZeroMQ still held is let go when it closes their sockets.
  const auto deadline = std::chrono::steady_clock::now() + 5s;
  while (!huge_owner.expired() && std::chrono::steady_clock::now() < deadline) std::this_thread::sleep_for(1ms);
  EXPECT_TRUE(huge_owner.expired());
}

TEST(BusNode, SharedSendOnAShutDownContextThrowsAndReleasesTheOwner) {
  zmq::context_t context;
  Node node(context, "inproc://nobody-here", {.name = "shared"});
  std::atomic<int> released{0};
  auto owner = std::make_shared<ScribbledOnRelease>();
  owner->released = &released;
  owner->bytes.assign(4096, 1);
  std::weak_ptr<ScribbledOnRelease> watch = owner;
  context.shutdown();  // what a process does on its way out: every socket of the context refuses (ETERM)
  const std::span<const uint8_t> bytes = owner->bytes;
  EXPECT_THROW(node.SendShared("r1/closed", bytes, std::move(owner)), zmq::error_t);
  EXPECT_TRUE(watch.expired());
  EXPECT_EQ(released.load(), 1);
  EXPECT_EQ(node.sent().count("r1/closed"), 0u);
}

}  // namespace
}  // namespace limbic::bus
