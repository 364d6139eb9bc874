// A direct node's first messages (docs/protocol.md §13, "First messages"): what a realtime direct publisher sends
// once a subscriber's subscription is at the broker must reach it whole and once, though the subscriber has not yet
// learnt where to connect. Event topics therefore take the broker path from a direct node; state topics go direct,
// where a late first value is like a later start. The broker runs on the test's thread, so the test decides what
// each side has seen when the burst leaves.
#include <gtest/gtest.h>
#include <unistd.h>

#include <memory>
#include <string>
#include <vector>

#include "common/bus/broker.hpp"
#include "common/bus/bus.hpp"
#include "tests/testing/process.hpp"

namespace limbic::bus {
namespace {

using namespace std::chrono_literals;

constexpr int kBurst = 500;

NodeOptions Direct(const std::string& name) {
  NodeOptions o;
  o.name = name;
  o.data_path = DataPath::kDirect;
  o.other_path_topics = {"warm/"};  // the warm-up topic proves the node's PUB is linked to the broker
  return o;
}

void SendCommand(Publisher<msg::VelocityCommand>& pub, double v) {
  pub.Publish(0, -1, [&](flatbuffers::FlatBufferBuilder& fbb, auto header) {
    return msg::CreateVelocityCommand(fbb, header, v, 0.0);
  });
}

void SendOdom(Publisher<msg::Odometry>& pub, double v) {
  pub.Publish(0, -1, [&](flatbuffers::FlatBufferBuilder& fbb, auto header) {
    msg::Pose2 pose(1, 2, 0.5);
    return msg::CreateOdometry(fbb, header, &pose, v, 0.0);
  });
}

// What one subscriber got on one topic: the sequence numbers in the order they arrived, per incarnation.
struct Received {
  std::vector<std::pair<uint64_t, uint64_t>> seqs;  // (incarnation, seq)
  std::vector<uint64_t> SeqsOf(uint64_t incarnation) const {
    std::vector<uint64_t> out;
    for (const auto& [inc, seq] : seqs) {
      if (inc == incarnation) out.push_back(seq);
    }
    return out;
  }
};

std::vector<uint64_t> OneTo(uint64_t n) {
  std::vector<uint64_t> out;
  for (uint64_t i = 1; i <= n; ++i) out.push_back(i);
  return out;
}

class FirstMessages : public ::testing::TestWithParam<std::string> {
 protected:
  FirstMessages() {
    address_ =
        GetParam() == "tcp" ? "tcp://127.0.0.1:" + std::to_string(testing::FreeTcpPortPair()) : "ipc://" + dir_ / "bus";
    BrokerOptions options;
    options.address = address_;
    broker_ = std::make_unique<Broker>(context_, options);
  }

  // Runs the broker and `nodes` until `done` (false if it does not come within `limit`).
  template <typename Done>
  bool RunUntil(std::initializer_list<Node*> nodes, Done done, std::chrono::milliseconds limit = 5000ms) {
    const auto deadline = std::chrono::steady_clock::now() + limit;
    while (std::chrono::steady_clock::now() < deadline) {
      broker_->RunOnce(1ms);
      for (Node* n : nodes) n->Poll(0ms);
      if (done()) return true;
    }
    return false;
  }

  // `publisher`'s PUB and `subscriber`'s DEALER both linked to the broker: a broker-path message (warm/NAME) from
  // the one reaches the other. The broker path's own start (ZeroMQ's slow joiner) is not what is tested here.
  void WarmUp(Node& publisher, Node& subscriber) {
    const std::string topic = "warm/" + std::to_string(warm_ups_++);
    auto warm = publisher.Advertise<msg::Odometry>(topic);
    // Shared: the handler stays with the subscriber after this returns, and more warm-up messages may follow.
    auto heard = std::make_shared<bool>(false);
    subscriber.Subscribe<msg::Odometry>(topic, [heard](const Message<msg::Odometry>&) { *heard = true; });
    ASSERT_TRUE(RunUntil({&publisher, &subscriber}, [&] {
      SendOdom(warm, 0.0);
      return *heard;
    }));
    Settle();
  }

  // The broker takes in whatever is under way until a while passes with nothing.
  void Settle() {
    int quiet = 0;
    while (quiet < 5) quiet = broker_->RunOnce(5ms) == 0 ? quiet + 1 : 0;
  }

  // The frames the subscriber's Subscribe sent (its subscription and its reports') have reached the broker, and
  // nothing of the answer has been read by the subscriber.
  void SubscriptionAtTheBroker(int frames = 2) {
    int handled = 0;
    const auto deadline = std::chrono::steady_clock::now() + 5s;
    while (handled < frames && std::chrono::steady_clock::now() < deadline) handled += broker_->RunOnce(10ms);
    ASSERT_GE(handled, frames);
  }

  testing::TempDir dir_;
  std::string address_;
  zmq::context_t context_;
  std::unique_ptr<Broker> broker_;
  int warm_ups_ = 0;
};

INSTANTIATE_TEST_SUITE_P(Transports, FirstMessages, ::testing::Values("ipc", "tcp"));

// The subscriber subscribes, and at once (its subscription at the broker, the directory's answer not yet read by it)
// a realtime direct publisher sends a burst of commands: every one arrives, once, in order, and no loss is counted.
// Before events took the broker path the whole burst went to a data socket with no subscriber, and was lost.
TEST_P(FirstMessages, ABurstRightAfterTheSubscriptionArrivesWholeOnceAndInOrder) {
  Node pub_node(context_, address_, Direct("talker"));
  Node sub_node(context_, address_, {.name = "listener"});
  WarmUp(pub_node, sub_node);
  auto pub = pub_node.Advertise<msg::VelocityCommand>("r1/first/cmd");
  EXPECT_FALSE(pub_node.PublishesDirect("r1/first/cmd")) << "an event topic takes the broker path";
  Settle();  // the broker has the announcement, if there was one
  Received got;
  sub_node.Subscribe<msg::VelocityCommand>("r1/first/cmd", [&](const Message<msg::VelocityCommand>& m) {
    got.seqs.emplace_back(m.header.incarnation(), m.header.seq());
  });
  SubscriptionAtTheBroker();
  for (int i = 0; i < kBurst; ++i) SendCommand(pub, i / 100.0);
  EXPECT_TRUE(RunUntil({&pub_node, &sub_node}, [&] { return got.seqs.size() >= kBurst; }))
      << "received " << got.seqs.size() << " of " << kBurst;
  // A while more: nothing arrives twice.
  RunUntil(
      {&pub_node, &sub_node}, [] { return false; }, 200ms);
  EXPECT_EQ(got.SeqsOf(pub_node.incarnation()), OneTo(kBurst));
  EXPECT_EQ(got.seqs.size(), static_cast<size_t>(kBurst));
  const TopicCounters& c = sub_node.received().at("r1/first/cmd");
  EXPECT_EQ(c.drops_gap, 0u);
  EXPECT_EQ(c.drops_tail, 0u);
  EXPECT_EQ(c.duplicates, 0u);
  // The broker carried them.
  EXPECT_EQ(broker_->counts().at("r1/first/cmd").messages, static_cast<uint64_t>(kBurst));
}

// A state topic still goes direct: what leaves before the subscriber is linked misses it, without a gap counted (its
// count starts at first contact, like a subscriber that started later), and from the first value that arrives on it
// misses nothing.
TEST_P(FirstMessages, AStateTopicGoesDirectAndItsFirstArrivalStartsTheCount) {
  Node pub_node(context_, address_, Direct("talker"));
  Node sub_node(context_, address_, {.name = "listener"});
  WarmUp(pub_node, sub_node);
  auto pub = pub_node.Advertise<msg::Odometry>("r1/first/odom");
  EXPECT_TRUE(pub_node.PublishesDirect("r1/first/odom"));
  Settle();
  Received got;
  sub_node.Subscribe<msg::Odometry>("r1/first/odom", [&](const Message<msg::Odometry>& m) {
    got.seqs.emplace_back(m.header.incarnation(), m.header.seq());
  });
  SubscriptionAtTheBroker();
  for (int i = 0; i < kBurst; ++i) SendOdom(pub, 0.0);
  ASSERT_TRUE(RunUntil({&pub_node, &sub_node}, [&] {
    SendOdom(pub, 0.0);
    return got.seqs.size() >= 10;
  }));
  const std::vector<uint64_t> seqs = got.SeqsOf(pub_node.incarnation());
  ASSERT_EQ(seqs.size(), got.seqs.size());
  for (size_t i = 1; i < seqs.size(); ++i) EXPECT_EQ(seqs[i], seqs[i - 1] + 1) << "at " << i;
  const TopicCounters& c = sub_node.received().at("r1/first/odom");
  EXPECT_EQ(c.drops_gap, 0u);
  EXPECT_EQ(c.duplicates, 0u);
}

// A publisher restarts (a new node, a new incarnation, a new data socket): the subscriber, subscribed all along,
// gets the new one's first burst whole as well, counted afresh.
TEST_P(FirstMessages, ARestartedPublishersFirstBurstArrivesWhole) {
  Node sub_node(context_, address_, {.name = "listener"});
  Received got;
  sub_node.Subscribe<msg::VelocityCommand>("r1/first/cmd", [&](const Message<msg::VelocityCommand>& m) {
    got.seqs.emplace_back(m.header.incarnation(), m.header.seq());
  });
  uint64_t first_incarnation = 0;
  {
    Node pub_node(context_, address_, Direct("talker"));
    WarmUp(pub_node, sub_node);
    first_incarnation = pub_node.incarnation();
    auto pub = pub_node.Advertise<msg::VelocityCommand>("r1/first/cmd");
    for (int i = 0; i < kBurst; ++i) SendCommand(pub, 0.5);
    ASSERT_TRUE(RunUntil({&pub_node, &sub_node}, [&] { return got.seqs.size() >= kBurst; }));
  }
  Node restarted(context_, address_, Direct("talker"));
  ASSERT_NE(restarted.incarnation(), first_incarnation);
  WarmUp(restarted, sub_node);
  auto pub = restarted.Advertise<msg::VelocityCommand>("r1/first/cmd");
  for (int i = 0; i < kBurst; ++i) SendCommand(pub, -0.5);
  EXPECT_TRUE(RunUntil({&restarted, &sub_node}, [&] { return got.seqs.size() >= 2 * kBurst; }))
      << "received " << got.seqs.size() << " of " << 2 * kBurst;
  RunUntil(
      {&restarted, &sub_node}, [] { return false; }, 200ms);
  EXPECT_EQ(got.SeqsOf(first_incarnation), OneTo(kBurst));
  EXPECT_EQ(got.SeqsOf(restarted.incarnation()), OneTo(kBurst));
  EXPECT_EQ(got.seqs.size(), static_cast<size_t>(2 * kBurst));
  const TopicCounters& c = sub_node.received().at("r1/first/cmd");
  EXPECT_EQ(c.drops_gap, 0u);
  EXPECT_EQ(c.duplicates, 0u);
}

// A subscriber that cannot reach a direct publisher's socket at all (here its ipc file is gone) still gets that
// publisher's events, through the broker; its state topic it never gets, and it can tell: the link is not ready.
TEST(FirstMessagesUnreachable, AnUnreachablePublishersEventsStillArriveThroughTheBroker) {
  testing::TempDir dir;
  const std::string address = "ipc://" + dir / "bus";
  zmq::context_t context;
  BrokerOptions options;
  options.address = address;
  Broker broker(context, options);
  Node pub_node(context, address, Direct("talker"));
  auto odom = pub_node.Advertise<msg::Odometry>("r1/far/odom");
  auto cmd = pub_node.Advertise<msg::VelocityCommand>("r1/far/cmd");
  ASSERT_EQ(pub_node.data_endpoint().rfind("ipc://", 0), 0u);
  ASSERT_EQ(::unlink(pub_node.data_endpoint().substr(6).c_str()), 0) << pub_node.data_endpoint();
  Node sub_node(context, address, {.name = "listener"});
  Received commands;
  int states = 0;
  sub_node.Subscribe<msg::VelocityCommand>("r1/far/cmd", [&](const Message<msg::VelocityCommand>& m) {
    commands.seqs.emplace_back(m.header.incarnation(), m.header.seq());
  });
  sub_node.Subscribe<msg::Odometry>("r1/far/odom", [&](const Message<msg::Odometry>&) { ++states; });
  auto run_until = [&](auto done, std::chrono::milliseconds limit) {
    const auto deadline = std::chrono::steady_clock::now() + limit;
    while (std::chrono::steady_clock::now() < deadline) {
      broker.RunOnce(1ms);
      pub_node.Poll(0ms);
      sub_node.Poll(0ms);
      if (done()) return true;
    }
    return false;
  };
  // Both ends linked to the broker (the commands' first one arrives), the directory entry for the odometry read.
  ASSERT_TRUE(run_until(
      [&] {
        SendCommand(cmd, 0.0);
        return !commands.seqs.empty() && sub_node.direct_links().endpoints() == 1;
      },
      5000ms));
  for (int i = 0; i < kBurst; ++i) {
    SendCommand(cmd, 0.1);
    SendOdom(odom, 0.1);
  }
  const uint64_t last = pub_node.sent().at("r1/far/cmd").messages;  // the last seq sent
  EXPECT_TRUE(run_until([&] { return commands.seqs.back().second >= last; }, 5000ms));
  std::vector<uint64_t> expected;
  for (uint64_t s = commands.seqs.front().second; s <= last; ++s) expected.push_back(s);
  EXPECT_EQ(commands.SeqsOf(pub_node.incarnation()), expected);
  EXPECT_EQ(sub_node.received().at("r1/far/cmd").drops_gap, 0u);
  EXPECT_EQ(states, 0);
  std::string waiting;
  EXPECT_FALSE(sub_node.DirectLinksReady(&waiting));
  EXPECT_NE(waiting.find("r1/far/odom"), std::string::npos) << waiting;
}

}  // namespace
}  // namespace limbic::bus
