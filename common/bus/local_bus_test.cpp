// The in-memory bus behaves as the broker does: delivery by subscription, verification, drops
// counted per reason, latched values for late joiners, communication faults.
#include "common/bus/local_bus.hpp"

#include <gtest/gtest.h>

#include <array>
#include <optional>

namespace limbic::bus {
namespace {

using namespace std::chrono_literals;

void PublishOdom(Publisher<msg::Odometry>& pub, double v) {
  pub.Publish(0, 0, [&](flatbuffers::FlatBufferBuilder& fbb, auto header) {
    msg::Pose2 pose(1, 2, 0.5);
    return msg::CreateOdometry(fbb, header, &pose, v, 0.0);
  });
}

TEST(LocalBus, DeliversToSubscribersOnlyInOrder) {
  LocalBus bus;
  Node talker(bus, {.name = "talker"});
  Node listener(bus, {.name = "listener"});
  Node other(bus, {.name = "other"});
  auto pub = talker.Advertise<msg::Odometry>("r1/odom");
  std::vector<double> received;
  listener.Subscribe<msg::Odometry>("r1/odom", [&](const Message<msg::Odometry>& m) {
    received.push_back(m.msg.v());
    EXPECT_EQ(m.header.source()->str(), "talker");
  });
  int other_heard = 0;
  other.Subscribe<msg::Odometry>("r1/odometry", [&](const auto&) { ++other_heard; });  // a longer name
  for (int i = 0; i < 100; ++i) PublishOdom(pub, i);
  EXPECT_TRUE(received.empty()) << "delivery happens when the receiver polls, not inside Publish";
  EXPECT_EQ(listener.Poll(0ms), 100);
  ASSERT_EQ(received.size(), 100u);
  EXPECT_EQ(received.front(), 0.0);
  EXPECT_EQ(received.back(), 99.0);
  EXPECT_EQ(other.Poll(0ms), 0);
  EXPECT_EQ(other_heard, 0);
  EXPECT_EQ(listener.TotalDrops(), 0u);
  EXPECT_EQ(bus.counts().at("r1/odom").messages, 100u);
  EXPECT_EQ(talker.sent().at("r1/odom").messages, 100u);
}

TEST(LocalBus, MalformedAndWrongTypePayloadsAreDroppedAndCounted) {
  LocalBus bus;
  Node evil(bus, {.name = "evil"});
  Node victim(bus, {.name = "victim"});
  int good = 0;
  victim.Subscribe<msg::Odometry>("r1/odom", [&](const auto&) { ++good; });
  const std::string junk = "this is not a flatbuffer at all";
  for (int i = 0; i < 50; ++i) evil.SendRaw("r1/odom", junk.data(), junk.size());
  // A valid Clock on a topic subscribed as Odometry: passes the bus, refused by the receiver.
  flatbuffers::FlatBufferBuilder fbb;
  fbb.Finish(msg::CreateClock(fbb, msg::CreateHeaderDirect(fbb, 0, 1, 1, "evil", false, 7)), "CLCK");
  evil.SendRaw("r1/odom", fbb.GetBufferPointer(), fbb.GetSize());
  auto pub = evil.Advertise<msg::Odometry>("r1/odom");
  PublishOdom(pub, 1.0);
  victim.Poll(0ms);
  EXPECT_EQ(good, 1);
  EXPECT_EQ(bus.counts().at("r1/odom").drops_wrong_type, 50u);  // junk never reaches the victim
  EXPECT_EQ(victim.received().at("r1/odom").drops_wrong_type, 1u);
  EXPECT_EQ(victim.received().at("r1/odom").messages, 1u);
}

TEST(LocalBus, LateJoinerGetsLatchedValueOthersSeeADuplicate) {
  LocalBus bus;
  Node mapper(bus, {.name = "mapper"});
  Node early(bus, {.name = "early"});
  auto pub = mapper.Advertise<msg::Odometry>("r1/map", /*latched=*/true);
  int early_count = 0;
  early.Subscribe<msg::Odometry>("r1/map", [&](const auto&) { ++early_count; });
  PublishOdom(pub, 42.0);
  early.Poll(0ms);
  double value = 0;
  Node late(bus, {.name = "late"});
  late.Subscribe<msg::Odometry>("r1/map", [&](const Message<msg::Odometry>& m) { value = m.msg.v(); });
  EXPECT_EQ(late.Poll(0ms), 1);
  EXPECT_EQ(value, 42.0);
  EXPECT_EQ(early_count, 1);
}

TEST(LocalBus, HandlerMayPublishWhileItsNodeDrains) {
  LocalBus bus;
  Node echo(bus, {.name = "echo"});
  auto pub = echo.Advertise<msg::Odometry>("loop");
  std::vector<double> seen;
  echo.Subscribe<msg::Odometry>("loop", [&](const Message<msg::Odometry>& m) {
    seen.push_back(m.msg.v());
    if (m.msg.v() < 3) PublishOdom(pub, m.msg.v() + 1);  // lands in this node's own inbox
  });
  PublishOdom(pub, 0);
  while (echo.Poll(0ms) > 0) {
  }
  EXPECT_EQ(seen, (std::vector<double>{0, 1, 2, 3}));
}

TEST(LocalBus, AppliesCommunicationFaultsFromTheFaultsTopic) {
  LocalBus bus(0ms);
  Node injector(bus, {.name = "inject"});
  Node talker(bus, {.name = "talker"});
  Node listener(bus, {.name = "listener"});
  auto pub = talker.Advertise<msg::Odometry>("r1/odom");
  int heard = 0;
  listener.Subscribe<msg::Odometry>("r1/odom", [&](const auto&) { ++heard; });
  PublishOdom(pub, -1);
  listener.Poll(0ms);
  ASSERT_EQ(heard, 1);
  flatbuffers::FlatBufferBuilder fbb;
  auto header = msg::CreateHeaderDirect(fbb, 0, -1, 1, "inject", false, 1);
  fbb.Finish(msg::CreateFaultCommandDirect(fbb, header, "cut", msg::FaultKind::CommDrop, "", -1, -1, -1, "r1/odom",
                                           "", 0.0, 0.0, 0.0, 1.0, 3, false),
             messages::Traits<msg::FaultCommand>::kIdentifier);
  injector.SendRaw("faults", fbb.GetBufferPointer(), fbb.GetSize());
  for (int i = 0; i < 10; ++i) PublishOdom(pub, i);
  listener.Poll(0ms);
  EXPECT_EQ(heard, 1);
  EXPECT_EQ(bus.counts().at("r1/odom").messages, 11u);  // counted on arrival, then dropped by the fault
  // bus/stats tells what the fault did, per topic.
  std::optional<std::array<uint64_t, 5>> odom;  // fault drops, delays, duplicates, corruptions, other drops
  listener.Subscribe<msg::BusStats>("bus/stats", [&](const Message<msg::BusStats>& m) {
    for (const auto* t : *m.msg.topics()) {
      if (t->topic()->str() != "r1/odom") continue;
      odom = {t->fault_drops(), t->fault_delays(), t->fault_duplicates(), t->fault_corruptions(),
              t->drops_malformed() + t->drops_wrong_type() + t->drops_oversize()};
    }
  });
  bus.RunTimers();
  listener.Poll(0ms);
  ASSERT_TRUE(odom.has_value()) << "no bus/stats entry for r1/odom";
  EXPECT_EQ(*odom, (std::array<uint64_t, 5>{10, 0, 0, 0, 0}));  // only the drop fault acted
  // Clearing the fault restores delivery.
  fbb.Clear();
  header = msg::CreateHeaderDirect(fbb, 0, -1, 2, "inject", false, 1);
  fbb.Finish(msg::CreateFaultCommandDirect(fbb, header, "cut", msg::FaultKind::CommDrop, "", -1, -1, -1, "", "", 0.0,
                                           0.0, 0.0, 0.0, 0, true),
             messages::Traits<msg::FaultCommand>::kIdentifier);
  injector.SendRaw("faults", fbb.GetBufferPointer(), fbb.GetSize());
  PublishOdom(pub, 10);
  listener.Poll(0ms);
  EXPECT_EQ(heard, 2);
  EXPECT_EQ(listener.received().at("r1/odom").drops_gap, 10u);  // the receiver saw what it missed
}

TEST(LocalBus, AFloodOfInventedTopicsIsForwardedAndCountedNotStored) {
  LocalBus bus;
  Node evil(bus, {.name = "evil"});
  Node tool(bus, {.name = "echo"});
  int heard = 0;
  tool.SubscribeAny("", [&](const RawMessage&) { ++heard; });
  flatbuffers::FlatBufferBuilder fbb;
  const size_t flood = kMaxTrackedTopics + 1000;
  for (size_t i = 0; i < flood; ++i) {
    fbb.Clear();
    fbb.Finish(msg::CreateClock(fbb, msg::CreateHeaderDirect(fbb, 0, 1, 1, "evil", false, 7)), "CLCK");
    evil.SendRaw("junk/" + std::to_string(i), fbb.GetBufferPointer(), fbb.GetSize());
  }
  while (tool.Poll(0ms) > 0) {
  }
  EXPECT_LE(bus.counts().size(), kMaxTrackedTopics + 1);
  // A full table no longer refuses new topics: the rest is forwarded and counted in bulk.
  EXPECT_EQ(bus.counts().at(kOverflowTopic).messages, flood - kMaxTrackedTopics);
  EXPECT_EQ(bus.counts().at(kOverflowTopic).drops_malformed, 0u);
  EXPECT_EQ(static_cast<size_t>(heard), flood);
  EXPECT_LE(tool.received().size(), kMaxTrackedTopics + 1);
}

TEST(LocalBus, PublishesStatisticsOnItsTimer) {
  LocalBus bus(0ms);
  Node watcher(bus, {.name = "watcher"});
  bool got = false;
  watcher.Subscribe<msg::BusStats>("bus/stats", [&](const Message<msg::BusStats>& m) { got = m.msg.topics() != nullptr; });
  EXPECT_GT(bus.RunTimers(), 0);
  watcher.Poll(0ms);
  EXPECT_TRUE(got);
}

TEST(LocalBus, NodeOutlivingItsBusIsHarmless) {
  auto bus = std::make_unique<LocalBus>();
  Node node(*bus, {.name = "orphan"});
  auto pub = node.Advertise<msg::Odometry>("r1/odom");
  bus.reset();
  PublishOdom(pub, 1.0);  // nowhere to go; must not touch freed memory
  EXPECT_EQ(node.Poll(10ms), 0);
}

}  // namespace
}  // namespace limbic::bus
