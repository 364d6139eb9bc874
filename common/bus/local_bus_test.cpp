// The in-memory bus behaves as the broker does: delivery by subscription, verification, drops
// counted per reason, latched values for late joiners, communication faults.
#include "common/bus/local_bus.hpp"

#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <limits>
#include <memory>
#include <optional>
#include <set>
#include <vector>

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

// Delivery buffers are reused (LocalBus::Fill), never while a receiver holds one: a kept message keeps its bytes
// however many follow, more than the pool holds included, and a released buffer takes a later message.
TEST(LocalBus, AKeptMessageKeepsItsBytesWhileLaterOnesReuseReleasedBuffers) {
  LocalBus bus;
  Node talker(bus, {.name = "talker"});
  Node listener(bus, {.name = "listener"});
  auto pub = talker.Advertise<msg::Odometry>("r1/odom");
  std::vector<std::shared_ptr<const std::vector<uint8_t>>> kept;  // what an input keeps (runtime.hpp Store)
  std::vector<const uint8_t*> seen;
  bool keep = true;
  listener.Subscribe<msg::Odometry>("r1/odom", [&](const Message<msg::Odometry>& m) {
    ASSERT_NE(m.shared, nullptr);
    ASSERT_EQ((*m.shared)->data(), m.data);
    seen.push_back(m.data);
    if (keep) kept.push_back(*m.shared);
  });
  // 300 messages in the inbox at once and all kept: more than the pool's 256 buffers.
  for (int i = 0; i < 300; ++i) PublishOdom(pub, 0.25 * i);  // within Odometry's ±100 m/s
  EXPECT_EQ(listener.Poll(0ms, 1000), 300);
  ASSERT_EQ(kept.size(), 300u);
  for (int i = 0; i < 300; ++i) {
    const auto* odom = flatbuffers::GetRoot<msg::Odometry>(kept[i]->data());
    EXPECT_EQ(odom->v(), 0.25 * i) << "a held buffer was written";
  }
  // Let every one go: the next messages are copied into buffers that were delivered before, no new ones.
  const std::set<const uint8_t*> before(seen.begin(), seen.end());
  kept.clear();
  seen.clear();
  keep = false;
  for (int round = 0; round < 3; ++round) {
    for (int i = 0; i < 10; ++i) PublishOdom(pub, -0.5 * i);
    EXPECT_EQ(listener.Poll(0ms, 1000), 10);
  }
  ASSERT_EQ(seen.size(), 30u);
  for (const uint8_t* data : seen) EXPECT_TRUE(before.count(data)) << "a released buffer was not reused";
  EXPECT_EQ(listener.TotalDrops(), 0u);
}

TEST(LocalBus, MalformedAndWrongTypePayloadsAreDroppedAndCounted) {
  LocalBus bus;
  Node evil(bus, {.name = "evil"});
  Node victim(bus, {.name = "victim"});
  int good = 0;
  victim.Subscribe<msg::Odometry>("r1/odom", [&](const auto&) { ++good; });
  const std::string junk = "this is not a flatbuffer at all";
  for (int i = 0; i < 50; ++i) evil.SendRaw("r1/odom", junk.data(), junk.size());
  auto pub = evil.Advertise<msg::Odometry>("r1/odom");
  PublishOdom(pub, 1.0);  // the first valid message fixes the topic's type
  // A valid Clock on a topic that carries Odometry: the bus drops it itself (issue 15, finding 6).
  flatbuffers::FlatBufferBuilder fbb;
  fbb.Finish(msg::CreateClock(fbb, msg::CreateHeaderDirect(fbb, 0, 1, 1, "evil", false, 7)), "CLCK");
  evil.SendRaw("r1/odom", fbb.GetBufferPointer(), fbb.GetSize());
  victim.Poll(0ms);
  EXPECT_EQ(good, 1);
  EXPECT_EQ(bus.counts().at("r1/odom").drops_wrong_type, 51u);  // neither junk nor the Clock reach the victim
  EXPECT_EQ(victim.received().at("r1/odom").drops_wrong_type, 0u);
  EXPECT_EQ(victim.received().at("r1/odom").messages, 1u);
}

TEST(LocalBus, ATopicsTypeIsFixedByItsFirstValidMessage) {
  LocalBus bus;
  Node a(bus, {.name = "a"});
  Node tool(bus, {.name = "echo"});
  std::vector<std::string> heard;
  tool.SubscribeAny("x/", [&](const RawMessage& m) { heard.push_back(m.type.identifier); });
  auto clock = [&](uint64_t seq, double period) {
    flatbuffers::FlatBufferBuilder fbb;
    fbb.Finish(msg::CreateClock(fbb, msg::CreateHeaderDirect(fbb, 0, 1, seq, "a", false, 7), period), "CLCK");
    a.SendRaw("x/t", fbb.GetBufferPointer(), fbb.GetSize());
  };
  auto odom = a.Advertise<msg::Odometry>("x/t");
  clock(1, -1.0);          // invalid (a negative period): dropped, and does not fix the type
  PublishOdom(odom, 1.0);  // fixes it
  clock(2, 0.1);           // now the wrong type
  PublishOdom(odom, 2.0);
  tool.Poll(0ms);
  EXPECT_EQ(heard, (std::vector<std::string>{"ODOM", "ODOM"}));
  EXPECT_EQ(bus.counts().at("x/t").drops_invalid, 1u);
  EXPECT_EQ(bus.counts().at("x/t").drops_wrong_type, 1u);
}

// Topics named by limbic's convention have a declared type: an attacker who is first on a topic (no
// fault was ever injected, so `faults` has no traffic) cannot give it another type.
TEST(LocalBus, ConventionalTopicsHaveTheirTypeBeforeAnyTraffic) {
  LocalBus bus;
  Node attacker(bus, {.name = "attacker"});
  Node hwio(bus, {.name = "hwio"});
  int faults = 0;
  hwio.Subscribe<msg::FaultCommand>("faults", [&](const auto&) { ++faults; });
  flatbuffers::FlatBufferBuilder fbb;
  const msg::Vec2 goal(1, 1);
  fbb.Finish(msg::CreateNavGoal(fbb, msg::CreateHeaderDirect(fbb, 0, -1, 1, "attacker", false, 7), true, &goal, 1),
             "GOAL");
  for (const char* topic : {"faults", "r1/affect/snapshot", "r1/params", "health/r1/mapper", "param/r1/hwio"}) {
    attacker.SendRaw(topic, fbb.GetBufferPointer(), fbb.GetSize());
    EXPECT_EQ(bus.counts().at(topic).drops_wrong_type, 1u) << topic;
  }
  attacker.SendRaw("r1/goal", fbb.GetBufferPointer(), fbb.GetSize());  // its own topic: fine
  EXPECT_EQ(bus.counts().at("r1/goal").messages, 1u);
  auto pub = attacker.Advertise<msg::FaultCommand>("faults");
  pub.Publish(0, -1, [](flatbuffers::FlatBufferBuilder& b, auto header) {
    return msg::CreateFaultCommandDirect(b, header, "f", msg::FaultKind::SensorNoise);
  });
  hwio.Poll(0ms);
  EXPECT_EQ(faults, 1);
  EXPECT_EQ(messages::ConventionalType("r1/map/patch")->identifier, std::string("GPAT"));
  EXPECT_EQ(messages::ConventionalType("robot7/odom")->identifier, std::string("ODOM"));
  EXPECT_EQ(messages::ConventionalType("x/unknown"), nullptr);
  EXPECT_EQ(messages::ConventionalType("lockstep/odom"), nullptr);
}

TEST(LocalBus, InvalidValuesAreDroppedCountedAndNamedInStatistics) {
  LocalBus bus(0ms);
  Node user(bus, {.name = "user"});
  Node planner(bus, {.name = "planner"});
  std::vector<double> xs;
  planner.Subscribe<msg::NavGoal>("r1/goal", [&](const Message<msg::NavGoal>& m) { xs.push_back(m.msg.goal()->x()); });
  // A typed publisher refuses to send such a message at all; a raw sender (a tool, an attacker, a
  // corrupted peer) is stopped by the bus.
  auto pub = user.Advertise<msg::NavGoal>("r1/goal");
  auto build = [](flatbuffers::FlatBufferBuilder& fbb, auto header, double x) {
    const msg::Vec2 goal(x, 0.0);
    return msg::CreateNavGoal(fbb, header, true, &goal, 1);
  };
  EXPECT_THROW(pub.Publish(0, -1, [&](auto& fbb, auto header) { return build(fbb, header, std::nan("")); }),
               InvalidMessage);
  uint64_t seq = 0;
  for (double x : {1.0, std::nan(""), -std::numeric_limits<double>::infinity(), 1e300, 2.0}) {
    flatbuffers::FlatBufferBuilder fbb;
    fbb.Finish(build(fbb, msg::CreateHeaderDirect(fbb, 0, -1, ++seq, "user", false, 5), x), "GOAL");
    user.SendRaw("r1/goal", fbb.GetBufferPointer(), fbb.GetSize());
  }
  planner.Poll(0ms);
  EXPECT_EQ(xs, (std::vector<double>{1.0, 2.0}));
  EXPECT_EQ(bus.counts().at("r1/goal").drops_invalid, 3u);
  // bus/stats carries the count (what `limbic topics` and Prometheus read).
  uint64_t reported = 0;
  Node watcher(bus, {.name = "watcher"});
  watcher.Subscribe<msg::BusStats>("bus/stats", [&](const Message<msg::BusStats>& m) {
    for (const auto* t : *m.msg.topics()) {
      if (t->topic()->str() == "r1/goal") reported = t->drops_invalid();
    }
  });
  bus.RunTimers();
  watcher.Poll(0ms);
  EXPECT_EQ(reported, 3u);
}

// A typed publisher's buffer is not verified a second time in process (Forwarding::Admit's
// built_and_checked), but everything else the bus does still applies to it: one type per topic, counts,
// latching for late joiners.
TEST(LocalBus, TypedPublishersSkipOnlyTheSecondCheck) {
  LocalBus bus;
  Node a(bus, {.name = "a"});
  auto wrong = a.Advertise<msg::Odometry>("r1/goal");  // the convention says NavGoal
  PublishOdom(wrong, 1.0);
  EXPECT_EQ(bus.counts().at("r1/goal").drops_wrong_type, 1u);
  EXPECT_EQ(bus.counts().at("r1/goal").messages, 0u);
  auto odom = a.Advertise<msg::Odometry>("r1/odom", /*latched=*/true);
  PublishOdom(odom, 1.5);
  PublishOdom(odom, 2.5);
  EXPECT_EQ(bus.counts().at("r1/odom").messages, 2u);
  Node late(bus, {.name = "late"});
  std::vector<double> vs;
  late.Subscribe<msg::Odometry>("r1/odom", [&](const Message<msg::Odometry>& m) { vs.push_back(m.msg.v()); });
  late.Poll(0ms);
  EXPECT_EQ(vs, (std::vector<double>{2.5}));
}

TEST(LocalBus, LateJoinerGetsLatchedValueOthersSeeADuplicate) {
  LocalBus bus;
  Node mapper(bus, {.name = "mapper"});
  Node early(bus, {.name = "early"});
  auto pub = mapper.Advertise<msg::Odometry>("r1/map_odom", /*latched=*/true);
  int early_count = 0;
  early.Subscribe<msg::Odometry>("r1/map_odom", [&](const auto&) { ++early_count; });
  PublishOdom(pub, 42.0);
  early.Poll(0ms);
  double value = 0;
  Node late(bus, {.name = "late"});
  late.Subscribe<msg::Odometry>("r1/map_odom", [&](const Message<msg::Odometry>& m) { value = m.msg.v(); });
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
  fbb.Finish(msg::CreateFaultCommandDirect(fbb, header, "cut", msg::FaultKind::CommDrop, "", -1, -1, -1, "r1/odom", "",
                                           0.0, 0.0, 0.0, 1.0, 3, false),
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

// A message the bus admitted is checked once, not again by every receiver; a copy a communication fault made is
// not the admitted message, so each receiver checks it as over ZeroMQ. Corrupted copies that no longer verify are
// dropped and counted by the receiver, never handed to a handler; the rest arrive as sent or as the fault left them.
TEST(LocalBus, CorruptedCopiesAreCheckedByEachReceiver) {
  LocalBus bus(0ms);
  Node injector(bus, {.name = "inject"});
  Node talker(bus, {.name = "talker"});
  Node listener(bus, {.name = "listener"});
  Node second(bus, {.name = "second"});
  auto pub = talker.Advertise<msg::Odometry>("r1/odom");
  int heard = 0, heard_second = 0;
  listener.Subscribe<msg::Odometry>("r1/odom", [&](const auto&) { ++heard; });
  second.Subscribe<msg::Odometry>("r1/odom", [&](const auto&) { ++heard_second; });
  flatbuffers::FlatBufferBuilder fbb;
  auto header = msg::CreateHeaderDirect(fbb, 0, -1, 1, "inject", false, 1);
  // Every message corrupted, 16 bytes flipped in each (seeded: the same bytes every run).
  fbb.Finish(msg::CreateFaultCommandDirect(fbb, header, "garble", msg::FaultKind::CommCorrupt, "", -1, -1, -1,
                                           "r1/odom", "", 0.0, 0.0, 16.0, 1.0, 7, false),
             messages::Traits<msg::FaultCommand>::kIdentifier);
  injector.SendRaw("faults", fbb.GetBufferPointer(), fbb.GetSize());
  constexpr int kSent = 200;
  for (int i = 0; i < kSent; ++i) PublishOdom(pub, i % 50);
  listener.Poll(0ms);
  second.Poll(0ms);
  auto dropped = [](const Node& n) {
    const auto it = n.received().find("r1/odom");
    if (it == n.received().end()) return uint64_t{0};
    const TopicCounters& c = it->second;
    return c.drops_malformed + c.drops_wrong_type + c.drops_invalid + c.drops_oversize;
  };
  EXPECT_GT(dropped(listener), 0u) << "16 flipped bytes in every message and none failed the receiver's checks";
  EXPECT_EQ(dropped(listener), dropped(second)) << "both receivers got the same copies";
  EXPECT_EQ(heard, heard_second);
  EXPECT_LT(heard, kSent);
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
  watcher.Subscribe<msg::BusStats>("bus/stats",
                                   [&](const Message<msg::BusStats>& m) { got = m.msg.topics() != nullptr; });
  EXPECT_GT(bus.RunTimers(), 0);
  watcher.Poll(0ms);
  EXPECT_TRUE(got);
}

// A topic's channel (its receivers, found once) and each receiver's inlet (its counters, sequence state and type,
// found once) follow what changes: a node subscribing after traffic, a node gone, a publisher restarted (a new
// incarnation under the same name: first contact again, nothing counted lost), a raw message of another type on a
// typed topic (dropped by the bus, the receiver's type unchanged).
TEST(LocalBus, ChannelsAndInletsFollowSubscribersAndPublishers) {
  LocalBus bus;
  auto talker = std::make_unique<Node>(bus, NodeOptions{.name = "talker"});
  Node first(bus, {.name = "first"});
  auto pub = talker->Advertise<msg::Odometry>("r1/odom");
  std::vector<double> heard_first, heard_second, heard_gone;
  first.Subscribe<msg::Odometry>("r1/odom", [&](const Message<msg::Odometry>& m) { heard_first.push_back(m.msg.v()); });
  PublishOdom(pub, 1.0);
  first.Poll(0ms);
  // Subscribed after traffic: the channel's receivers are found again.
  Node second(bus, {.name = "second"});
  second.Subscribe<msg::Odometry>("r1/odom",
                                  [&](const Message<msg::Odometry>& m) { heard_second.push_back(m.msg.v()); });
  auto gone = std::make_unique<Node>(bus, NodeOptions{.name = "gone"});
  gone->Subscribe<msg::Odometry>("r1/odom", [&](const Message<msg::Odometry>& m) { heard_gone.push_back(m.msg.v()); });
  PublishOdom(pub, 2.0);
  gone->Poll(0ms);
  gone.reset();  // detached: never delivered to again
  PublishOdom(pub, 3.0);
  // The publisher restarts under its name: a new incarnation, its sequence from 1 again.
  talker.reset();
  talker = std::make_unique<Node>(bus, NodeOptions{.name = "talker"});
  pub = talker->Advertise<msg::Odometry>("r1/odom");
  PublishOdom(pub, 4.0);
  PublishOdom(pub, 5.0);
  // Another type on the typed topic: the bus drops it; the receivers' next message is checked as before.
  flatbuffers::FlatBufferBuilder fbb;
  fbb.Finish(msg::CreateClock(fbb, msg::CreateHeaderDirect(fbb, 0, 1, 3, "talker", false, talker->incarnation())),
             "CLCK");
  talker->SendRaw("r1/odom", fbb.GetBufferPointer(), fbb.GetSize());
  PublishOdom(pub, 6.0);
  first.Poll(0ms);
  second.Poll(0ms);
  EXPECT_EQ(heard_first, (std::vector<double>{1, 2, 3, 4, 5, 6}));
  EXPECT_EQ(heard_second, (std::vector<double>{2, 3, 4, 5, 6}));
  EXPECT_EQ(heard_gone, (std::vector<double>{2}));
  for (const Node* n : {&first, &second}) {
    const TopicCounters& c = n->received().at("r1/odom");
    EXPECT_EQ(c.messages, n == &first ? 6u : 5u) << n->name();
    EXPECT_EQ(c.drops_gap + c.duplicates + c.drops_wrong_type, 0u) << n->name();
  }
  EXPECT_EQ(bus.counts().at("r1/odom").drops_wrong_type, 1u);
  EXPECT_EQ(talker->sent().at("r1/odom").messages, 4u);  // 4, 5, the Clock, 6: counted by the sender
}

// A node's inlet keeps the subscriptions a topic matches: one added after traffic (exact or a prefix, even from inside
// a handler) is called from the next message on, in subscription order; an exact subscription of another type still
// drops what it does not expect, counted once.
TEST(LocalBus, AnInletFollowsTheNodesSubscriptions) {
  LocalBus bus;
  Node talker(bus, {.name = "talker"});
  Node listener(bus, {.name = "listener"});
  auto pub = talker.Advertise<msg::Odometry>("r1/odom");
  std::vector<std::string> calls;
  listener.Subscribe<msg::Odometry>("r1/odom", [&](const Message<msg::Odometry>& m) {
    calls.push_back("exact " + std::to_string(static_cast<int>(m.msg.v())));
    if (m.msg.v() == 1.0) {
      listener.SubscribeAny("r1/", [&](const RawMessage& r) {
        calls.push_back("prefix " + std::to_string(static_cast<int>(flatbuffers::GetRoot<msg::Odometry>(r.data)->v())));
      });
    }
  });
  PublishOdom(pub, 1.0);
  listener.Poll(0ms);
  PublishOdom(pub, 2.0);
  listener.Poll(0ms);
  EXPECT_EQ(calls, (std::vector<std::string>{"exact 1", "exact 2", "prefix 2"}));
  // An exact subscription expecting another type on this topic: the Odometry is dropped as of the wrong type.
  listener.Subscribe<msg::Clock>("r1/odom", [&](const auto&) { calls.push_back("clock"); });
  PublishOdom(pub, 3.0);
  listener.Poll(0ms);
  EXPECT_EQ(calls.size(), 3u);
  EXPECT_EQ(listener.received().at("r1/odom").drops_wrong_type, 1u);
  EXPECT_EQ(listener.received().at("r1/odom").messages, 2u);
}

// The send observer's cache: kept per typed publisher (what the observer left there comes back with the next message
// of that publisher), null for a raw send, and cleared when the observer is replaced (an old observer's pointer never
// reaches a new one).
TEST(LocalBus, TheSendObserversCacheIsPerPublisherAndClearedWithTheObserver) {
  LocalBus bus;
  Node talker(bus, {.name = "talker"});
  auto odom = talker.Advertise<msg::Odometry>("r1/odom");
  auto other = talker.Advertise<msg::Odometry>("r1/other");
  int marks[2] = {0, 0};
  std::vector<std::pair<std::string, void*>> seen;  // topic, the cache's value when called
  talker.SetSendObserver([&](const std::string& topic, void** cache) {
    seen.emplace_back(topic, cache != nullptr ? *cache : reinterpret_cast<void*>(-1));
    if (cache != nullptr && *cache == nullptr) *cache = &marks[topic == "r1/odom" ? 0 : 1];
  });
  PublishOdom(odom, 1.0);
  PublishOdom(other, 1.0);
  PublishOdom(odom, 2.0);
  const std::string junk = "raw";
  talker.SendRaw("r1/odom", junk.data(), junk.size());
  talker.SetSendObserver([&](const std::string& topic, void** cache) {
    seen.emplace_back(topic, cache != nullptr ? *cache : reinterpret_cast<void*>(-1));
  });
  PublishOdom(odom, 3.0);
  const std::vector<std::pair<std::string, void*>> expected = {
      {"r1/odom", nullptr},
      {"r1/other", nullptr},
      {"r1/odom", &marks[0]},
      {"r1/odom", reinterpret_cast<void*>(-1)},
      {"r1/odom", nullptr}};  // the new observer starts with nothing
  EXPECT_EQ(seen, expected);
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
