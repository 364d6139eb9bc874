#include "services/foxglove/channels.hpp"

#include <gtest/gtest.h>

namespace limbic::foxglove {
namespace {

auto Schema(int* calls) {
  return [calls] {
    ++*calls;
    return std::string("SCHEMA");
  };
}

TEST(ChannelTable, OneChannelPerTopicSchemaAskedOnce) {
  ChannelTable t;
  int calls = 0;
  auto a = t.Ensure("r1/odom", "flatbuffer", "limbic.msg.Odometry", "flatbuffer", Schema(&calls));
  ASSERT_NE(a.added, nullptr);
  EXPECT_EQ(a.id, 1u);
  EXPECT_EQ(a.added->schema, "SCHEMA");
  auto again = t.Ensure("r1/odom", "flatbuffer", "limbic.msg.Odometry", "flatbuffer", Schema(&calls));
  EXPECT_EQ(again.id, 1u);
  EXPECT_EQ(again.added, nullptr);
  EXPECT_EQ(calls, 1);
  EXPECT_EQ(t.Ensure("r1/scan", "flatbuffer", "limbic.msg.RangeScan", "flatbuffer", Schema(&calls)).id, 2u);
  EXPECT_EQ(t.size(), 2u);
}

TEST(ChannelTable, TypeChangeReplacesTheChannelWithANewId) {
  ChannelTable t;
  int calls = 0;
  t.Ensure("x", "flatbuffer", "limbic.msg.Clock", "flatbuffer", Schema(&calls));
  auto b = t.Ensure("x", "flatbuffer", "limbic.msg.Odometry", "flatbuffer", Schema(&calls));
  ASSERT_TRUE(b.replaced.has_value());
  EXPECT_EQ(*b.replaced, 1u);
  EXPECT_EQ(b.id, 2u);  // ids are never reused
  EXPECT_EQ(t.Find(1), nullptr);
  ASSERT_NE(t.Find(2), nullptr);
  EXPECT_EQ(t.Find(2)->schema_name, "limbic.msg.Odometry");
}

TEST(ChannelTable, FullTableRefusesAndCounts) {
  ChannelTable t(2);
  int calls = 0;
  t.Ensure("a", "json", "s", "jsonschema", Schema(&calls));
  t.Ensure("b", "json", "s", "jsonschema", Schema(&calls));
  auto c = t.Ensure("c", "json", "s", "jsonschema", Schema(&calls));
  EXPECT_EQ(c.id, 0u);
  EXPECT_EQ(c.added, nullptr);
  EXPECT_EQ(t.refused(), 1u);
  EXPECT_EQ(t.size(), 2u);
}

TEST(ClientSession, SubscribeRefusesUnknownChannelsReusedIdsAndDoubleSubscriptions) {
  ChannelTable t;
  int calls = 0;
  t.Ensure("a", "json", "s", "jsonschema", Schema(&calls));  // 1
  t.Ensure("b", "json", "s", "jsonschema", Schema(&calls));  // 2
  ClientSession s;
  EXPECT_TRUE(s.Apply(SubscribeRequest{{{10, 1}}}, t).empty());
  EXPECT_EQ(s.SubscriptionFor(1), 10u);
  const auto errors = s.Apply(SubscribeRequest{{{11, 99}, {10, 2}, {12, 1}, {13, 2}}}, t);
  ASSERT_EQ(errors.size(), 3u);
  EXPECT_NE(errors[0].find("no channel 99"), std::string::npos);
  EXPECT_NE(errors[1].find("in use"), std::string::npos);
  EXPECT_NE(errors[2].find("already subscribed"), std::string::npos);
  EXPECT_EQ(s.SubscriptionFor(2), 13u);  // the valid one of the batch was applied
  EXPECT_EQ(s.subscription_count(), 2u);
}

TEST(ClientSession, UnsubscribeAndChannelRemovalForget) {
  ChannelTable t;
  int calls = 0;
  t.Ensure("a", "json", "s", "jsonschema", Schema(&calls));
  t.Ensure("b", "json", "s", "jsonschema", Schema(&calls));
  ClientSession s;
  s.Apply(SubscribeRequest{{{1, 1}, {2, 2}}}, t);
  EXPECT_TRUE(s.Apply(UnsubscribeRequest{{1}}).empty());
  EXPECT_FALSE(s.SubscriptionFor(1).has_value());
  EXPECT_EQ(s.Apply(UnsubscribeRequest{{1}}).size(), 1u);  // already gone
  s.ChannelRemoved(2);
  EXPECT_FALSE(s.SubscriptionFor(2).has_value());
  EXPECT_EQ(s.subscription_count(), 0u);
  // After unsubscribing, the id may be used again.
  EXPECT_TRUE(s.Apply(SubscribeRequest{{{1, 2}}}, t).empty());
}

TEST(ClientSession, ClientChannelsAreAcceptedOrRefusedWithTheReason) {
  ClientSession s;
  auto accept = [](const ClientChannel& c) { return c.topic == "bad" ? std::string("no") : std::string(); };
  auto errors =
      s.Apply(ClientAdvertiseRequest{{{1, "r1/goal", "json", "limbic.msg.NavGoal"}, {2, "bad", "json", "x"}}}, accept);
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_NE(errors[0].find("'bad' refused: no"), std::string::npos) << errors[0];
  ASSERT_NE(s.Published(1), nullptr);
  EXPECT_EQ(s.Published(2), nullptr);
  EXPECT_EQ(s.Apply(ClientAdvertiseRequest{{{1, "r1/goal", "json", "limbic.msg.NavGoal"}}}, accept).size(), 1u);
  EXPECT_TRUE(s.Apply(ClientUnadvertiseRequest{{1}}).empty());
  EXPECT_EQ(s.Published(1), nullptr);
  EXPECT_EQ(s.Apply(ClientUnadvertiseRequest{{1}}).size(), 1u);
}

TEST(SendBudget, SkipsWhatWouldOverflowAndDisconnectsAClientThatStaysOverHighWater) {
  SendBudget b({.max_buffered_bytes = 1000, .high_water = 0.5, .stall_timeout_s = 2.0});
  EXPECT_EQ(b.Check(0, 100, 0.0), SendBudget::Verdict::kSend);
  EXPECT_EQ(b.Check(950, 100, 0.1), SendBudget::Verdict::kSkip);  // over high water since 0.1 s
  EXPECT_EQ(b.skipped(), 1u);
  EXPECT_EQ(b.Check(600, 100, 1.0), SendBudget::Verdict::kSend);
  EXPECT_EQ(b.Check(600, 100, 2.0), SendBudget::Verdict::kSend);        // 1.9 s over: not yet
  EXPECT_EQ(b.Check(600, 100, 2.1), SendBudget::Verdict::kDisconnect);  // 2.0 s over
}

TEST(SendBudget, AClientThatDrainsIsNeverDropped) {
  SendBudget b({.max_buffered_bytes = 1000, .high_water = 0.5, .stall_timeout_s = 1.0});
  // Bursts over high water, each drained within the timeout.
  for (int i = 0; i < 100; ++i) {
    const double t = i * 0.6;
    EXPECT_NE(b.Check(i % 2 ? 800 : 100, 50, t), SendBudget::Verdict::kDisconnect) << "at " << t;
  }
}

}  // namespace
}  // namespace limbic::foxglove
