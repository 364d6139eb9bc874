#include "common/bus/comm_faults.hpp"

#include <gtest/gtest.h>

#include "messages/messages.hpp"

namespace limbic::bus {
namespace {

const std::vector<uint8_t> kPayload{1, 2, 3, 4, 5, 6, 7, 8};

std::vector<CommOutgoing> Send(CommFaults& f, double now, const std::string& topic = "r1/scan",
                               const std::vector<uint8_t>& payload = kPayload) {
  std::vector<CommOutgoing> out;
  f.Process(now, topic, payload.data(), payload.size(), &out);
  return out;
}

CommFaultRule Rule(CommFaultKind kind, double probability, uint64_t seed = 7) {
  CommFaultRule r;
  r.id = "f";
  r.kind = kind;
  r.topic = "r1/scan";
  r.probability = probability;
  r.seed = seed;
  return r;
}

TEST(CommFaultsTest, WithoutRulesEveryMessagePassesUnchanged) {
  CommFaults f;
  EXPECT_FALSE(f.Affects("r1/scan"));
  const auto out = Send(f, 0.0);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].topic, "r1/scan");
  EXPECT_EQ(out[0].payload, kPayload);
}

TEST(CommFaultsTest, DropAllDropsEveryMessageOnlyOnItsTopic) {
  CommFaults f;
  ASSERT_TRUE(f.Add(Rule(CommFaultKind::kDrop, 1.0), 0.0));
  EXPECT_TRUE(f.Affects("r1/scan"));
  EXPECT_FALSE(f.Affects("r1/odom"));
  for (int i = 0; i < 10; ++i) EXPECT_TRUE(Send(f, 1.0).empty());
  EXPECT_EQ(Send(f, 1.0, "r1/odom").size(), 1u);
  EXPECT_EQ(f.counters().at("r1/scan").dropped, 10u);
}

TEST(CommFaultsTest, DropHalfDropsAboutHalfAndReplaysWithTheSameSeed) {
  CommFaults a, b, c;
  ASSERT_TRUE(a.Add(Rule(CommFaultKind::kDrop, 0.5, 42), 0.0));
  ASSERT_TRUE(b.Add(Rule(CommFaultKind::kDrop, 0.5, 42), 0.0));
  ASSERT_TRUE(c.Add(Rule(CommFaultKind::kDrop, 0.5, 43), 0.0));
  std::vector<bool> pass_a, pass_b, pass_c;
  for (int i = 0; i < 10000; ++i) {
    pass_a.push_back(!Send(a, 0.0).empty());
    pass_b.push_back(!Send(b, 0.0).empty());
    pass_c.push_back(!Send(c, 0.0).empty());
  }
  // Binomial(10000, 0.5): standard deviation 50; 5000 ± 250 is five of them.
  const auto dropped = a.counters().at("r1/scan").dropped;
  EXPECT_GT(dropped, 4750u);
  EXPECT_LT(dropped, 5250u);
  EXPECT_EQ(pass_a, pass_b);  // same seed, same decisions
  EXPECT_NE(pass_a, pass_c);
}

TEST(CommFaultsTest, DelayHoldsMessagesUntilTheirReleaseTimeInOrder) {
  CommFaults f;
  auto rule = Rule(CommFaultKind::kDelay, 0.0);  // probability 0 for a delay: every message
  rule.delay_s = 0.2;
  ASSERT_TRUE(f.Add(rule, 0.0));
  EXPECT_TRUE(Send(f, 1.0, "r1/scan", {1}).empty());
  EXPECT_TRUE(Send(f, 1.05, "r1/scan", {2}).empty());
  ASSERT_TRUE(f.NextRelease().has_value());
  EXPECT_DOUBLE_EQ(*f.NextRelease(), 1.2);
  std::vector<CommOutgoing> out;
  f.Release(1.19, &out);
  EXPECT_TRUE(out.empty());
  f.Release(1.2, &out);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].payload, std::vector<uint8_t>{1});
  f.Release(2.0, &out);
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[1].payload, std::vector<uint8_t>{2});
  EXPECT_FALSE(f.NextRelease().has_value());
  EXPECT_EQ(f.counters().at("r1/scan").delayed, 2u);
}

TEST(CommFaultsTest, DelayQueueIsBounded) {
  CommFaults f(CommFaultsOptions{.max_delayed = 3});
  auto rule = Rule(CommFaultKind::kDelay, 1.0);
  rule.delay_s = 1.0;
  ASSERT_TRUE(f.Add(rule, 0.0));
  for (int i = 0; i < 5; ++i) Send(f, 0.0);
  EXPECT_EQ(f.delayed_count(), 3u);
  EXPECT_EQ(f.counters().at("r1/scan").overflowed, 2u);
}

TEST(CommFaultsTest, DuplicateSendsTwoIdenticalCopies) {
  CommFaults f;
  ASSERT_TRUE(f.Add(Rule(CommFaultKind::kDuplicate, 1.0), 0.0));
  const auto out = Send(f, 0.0);
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0].payload, kPayload);
  EXPECT_EQ(out[1].payload, kPayload);
}

TEST(CommFaultsTest, CorruptFlipsTheGivenNumberOfBytesAtMost) {
  CommFaults f;
  auto rule = Rule(CommFaultKind::kCorrupt, 1.0);
  rule.corrupt_bytes = 1;
  ASSERT_TRUE(f.Add(rule, 0.0));
  for (int i = 0; i < 50; ++i) {
    const auto out = Send(f, 0.0);
    ASSERT_EQ(out.size(), 1u);
    ASSERT_EQ(out[0].payload.size(), kPayload.size());
    int differing = 0;
    for (size_t b = 0; b < kPayload.size(); ++b) differing += out[0].payload[b] != kPayload[b];
    EXPECT_EQ(differing, 1);  // one flip with a non-zero mask always changes exactly one byte
  }
  EXPECT_EQ(f.counters().at("r1/scan").corrupted, 50u);
}

TEST(CommFaultsTest, WindowStartsAndEndsOnTime) {
  CommFaults f;
  auto rule = Rule(CommFaultKind::kDrop, 1.0);
  rule.start_s = 5.0;
  rule.duration_s = 2.0;
  ASSERT_TRUE(f.Add(rule, 1.0));
  EXPECT_EQ(Send(f, 4.99).size(), 1u);
  EXPECT_TRUE(Send(f, 5.0).empty());
  EXPECT_TRUE(Send(f, 6.99).empty());
  EXPECT_EQ(Send(f, 7.0).size(), 1u);
  f.Expire(6.99);
  EXPECT_EQ(f.rule_count(), 1u);
  f.Expire(7.0);
  EXPECT_EQ(f.rule_count(), 0u);
  EXPECT_FALSE(f.Affects("r1/scan"));
}

TEST(CommFaultsTest, StartInThePastMeansWhenAdded) {
  CommFaults f;
  auto rule = Rule(CommFaultKind::kDrop, 1.0);
  rule.start_s = 0.0;
  rule.duration_s = 1.0;
  ASSERT_TRUE(f.Add(rule, 10.0));  // window [10, 11)
  EXPECT_TRUE(Send(f, 10.5).empty());
  EXPECT_EQ(Send(f, 11.0).size(), 1u);
}

TEST(CommFaultsTest, SameIdReplacesAndClearRemoves) {
  CommFaults f;
  ASSERT_TRUE(f.Add(Rule(CommFaultKind::kDrop, 1.0), 0.0));
  ASSERT_TRUE(f.Add(Rule(CommFaultKind::kDuplicate, 1.0), 0.0));  // same id "f"
  EXPECT_EQ(f.rule_count(), 1u);
  EXPECT_EQ(Send(f, 0.0).size(), 2u);
  auto other = Rule(CommFaultKind::kDrop, 1.0);
  other.id = "g";
  other.topic = "r1/odom";
  ASSERT_TRUE(f.Add(other, 0.0));
  f.Clear("f");
  EXPECT_EQ(Send(f, 0.0).size(), 1u);
  EXPECT_TRUE(Send(f, 0.0, "r1/odom").empty());
  f.ClearAll();
  EXPECT_EQ(Send(f, 0.0, "r1/odom").size(), 1u);
}

TEST(CommFaultsTest, InvalidRulesAreRejectedWithAReason) {
  CommFaults f;
  std::string reason;
  auto no_topic = Rule(CommFaultKind::kDrop, 0.5);
  no_topic.topic.clear();
  EXPECT_FALSE(f.Add(no_topic, 0.0, &reason));
  EXPECT_NE(reason.find("topic"), std::string::npos);
  EXPECT_FALSE(f.Add(Rule(CommFaultKind::kDrop, 1.5), 0.0, &reason));
  EXPECT_FALSE(f.Add(Rule(CommFaultKind::kDrop, 0.0), 0.0, &reason));
  auto no_delay = Rule(CommFaultKind::kDelay, 1.0);
  EXPECT_FALSE(f.Add(no_delay, 0.0, &reason));
  EXPECT_NE(reason.find("delay"), std::string::npos);
  EXPECT_EQ(f.rule_count(), 0u);
}

TEST(CommFaultsTest, RuleFromFaultCommand) {
  flatbuffers::FlatBufferBuilder fbb;
  auto header = msg::CreateHeaderDirect(fbb, 0, -1, 1, "test", false, 1);
  fbb.Finish(msg::CreateFaultCommandDirect(fbb, header, "slow", msg::FaultKind::CommDelay, "", -1, -1, -1, "r1/scan",
                                           "", 3.0, 4.0, 0.25, 0.0, 9, false),
             messages::Traits<msg::FaultCommand>::kIdentifier);
  const auto* command = flatbuffers::GetRoot<msg::FaultCommand>(fbb.GetBufferPointer());
  const auto rule = CommFaultFromMsg(*command);
  ASSERT_TRUE(rule.has_value());
  EXPECT_EQ(rule->id, "slow");
  EXPECT_EQ(rule->kind, CommFaultKind::kDelay);
  EXPECT_EQ(rule->topic, "r1/scan");
  EXPECT_DOUBLE_EQ(rule->delay_s, 0.25);
  EXPECT_DOUBLE_EQ(rule->start_s, 3.0);
  EXPECT_DOUBLE_EQ(rule->duration_s, 4.0);
  EXPECT_EQ(rule->seed, 9u);

  flatbuffers::FlatBufferBuilder other;
  auto h2 = msg::CreateHeaderDirect(other, 0, -1, 1, "test", false, 1);
  other.Finish(msg::CreateFaultCommandDirect(other, h2, "x", msg::FaultKind::SensorStuck),
               messages::Traits<msg::FaultCommand>::kIdentifier);
  EXPECT_FALSE(CommFaultFromMsg(*flatbuffers::GetRoot<msg::FaultCommand>(other.GetBufferPointer())).has_value());
}

}  // namespace
}  // namespace limbic::bus
