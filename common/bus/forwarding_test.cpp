// Forwarding's bounds without any transport: the latched store in bytes (per topic and in total,
// oldest evicted, counted) and idle topics aged out of a crowded table (issue 16 finding 2).
#include "common/bus/forwarding.hpp"

#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

namespace limbic::bus {
namespace {

// A valid latched message with `padding` extra bytes (a Heartbeat whose mode string carries them).
std::vector<uint8_t> LatchedMessage(size_t padding, bool latched = true) {
  flatbuffers::FlatBufferBuilder fbb;
  auto header = msg::CreateHeaderDirect(fbb, 0, 1, 1, "test", latched, 7);
  const std::string filler(padding, 'x');
  fbb.Finish(msg::CreateHeartbeatDirect(fbb, header, "test", msg::ServiceState::Running, filler.c_str()),
             messages::Traits<msg::Heartbeat>::kIdentifier);
  return {fbb.GetBufferPointer(), fbb.GetBufferPointer() + fbb.GetSize()};
}

Forwarding::Verdict Admit(Forwarding& f, const std::string& topic, const std::vector<uint8_t>& m) {
  std::vector<CommOutgoing> out;
  return f.Admit(topic, m.data(), m.size(), &out);
}

std::vector<std::string> LatchedTopics(const Forwarding& f) {
  std::vector<std::string> topics;
  f.ForEachLatched("", [&](const std::string& t, const std::vector<uint8_t>&) { topics.push_back(t); });
  return topics;
}

// A valid message on a topic from publisher `source` (header source).
std::vector<uint8_t> From(const std::string& source) {
  flatbuffers::FlatBufferBuilder fbb;
  auto header = msg::CreateHeaderDirect(fbb, 0, 1, 1, source.c_str());
  fbb.Finish(msg::CreateHeartbeatDirect(fbb, header, source.c_str()), messages::Traits<msg::Heartbeat>::kIdentifier);
  return {fbb.GetBufferPointer(), fbb.GetBufferPointer() + fbb.GetSize()};
}

// Issue 22 item 5 (`limbic topic info`): the broker names each topic's publishers by header source,
// forgets one quiet for publisher_idle_s, holds at most kMaxPublishersPerTopic per topic, and says so
// in bus/stats.
TEST(ForwardingPublishers, NamedBySourceAgedOutWhenQuietAndBounded) {
  ForwardingLimits limits;
  limits.publisher_idle_s = 2.0;
  Forwarding f(messages::kMaxPayloadBytes, limits);
  Admit(f, "chatter", From("r1/talker"));
  Admit(f, "chatter", From("r2/talker"));
  Admit(f, "chatter", From("r1/talker"));
  Admit(f, "other", From("r3/x"));
  EXPECT_EQ(f.Publishers("chatter"), (std::vector<std::string>{"r1/talker", "r2/talker"}));
  EXPECT_EQ(f.Publishers("other"), (std::vector<std::string>{"r3/x"}));
  EXPECT_TRUE(f.Publishers("nothing").empty());
  // A dropped message names nobody: a Heartbeat on `clock`, whose type is fixed (Clock).
  Admit(f, "clock", From("r9/liar"));
  EXPECT_TRUE(f.Publishers("clock").empty());

  // In bus/stats, with the subscriber count the host gives.
  flatbuffers::FlatBufferBuilder fbb;
  f.BuildStats(fbb, 3, [](const std::string& topic) { return topic == "chatter" ? 2 : 0; });
  const auto* stats = flatbuffers::GetRoot<msg::BusStats>(fbb.GetBufferPointer());
  bool seen = false;
  for (const auto* t : *stats->topics()) {
    if (t->topic()->str() != "chatter") continue;
    seen = true;
    ASSERT_NE(t->publishers(), nullptr);
    ASSERT_EQ(t->publishers()->size(), 2u);
    EXPECT_EQ(t->publishers()->Get(1)->str(), "r2/talker");
    EXPECT_EQ(t->subscribers(), 2);
  }
  EXPECT_TRUE(seen);

  // Quiet for longer than publisher_idle_s: gone from the list (the topic itself stays, topic_ttl_s).
  const int64_t now = Node::WallNowNs();
  f.AgeTopics(now + static_cast<int64_t>(1.0e9));
  EXPECT_EQ(f.Publishers("chatter").size(), 2u);
  f.AgeTopics(now + static_cast<int64_t>(3.0e9));
  EXPECT_TRUE(f.Publishers("chatter").empty());
  EXPECT_EQ(f.counts().count("chatter"), 1u);

  // A client inventing a source per message cannot grow the list without bound.
  for (int i = 0; i < 100; ++i) Admit(f, "chatter", From("fake/" + std::to_string(i)));
  EXPECT_EQ(f.Publishers("chatter").size(), kMaxPublishersPerTopic);
  // ... nor make the broker keep long names: each is cut at 64 bytes.
  Admit(f, "long", From(std::string(200, 'y')));  // valid: a source may have up to 256 bytes
  ASSERT_EQ(f.Publishers("long").size(), 1u);
  EXPECT_EQ(f.Publishers("long")[0], std::string(64, 'y'));
}

TEST(ForwardingLimits, LatchedStoreIsBoundedInBytesOldestEvicted) {
  ForwardingLimits limits;
  limits.latched_topic_bytes = 20000;
  limits.latched_total_bytes = 50000;
  Forwarding f(messages::kMaxPayloadBytes, limits);
  const auto m = LatchedMessage(12000);  // ~12 KB: four fit in 50 KB, not five
  for (int i = 0; i < 10; ++i) EXPECT_EQ(Admit(f, "t/" + std::to_string(i), m), Forwarding::Verdict::kForward);
  EXPECT_LE(f.latched_bytes(), limits.latched_total_bytes);
  EXPECT_EQ(f.latched_topics(), 4u);
  EXPECT_EQ(f.latched_bytes(), 4 * m.size());
  EXPECT_EQ(f.limit_counters().latched_evicted, 6u);
  EXPECT_EQ(LatchedTopics(f), (std::vector<std::string>{"t/6", "t/7", "t/8", "t/9"}));  // the newest kept
  // A re-send of a kept topic replaces its value without growing the store.
  Admit(f, "t/6", m);
  EXPECT_EQ(f.latched_bytes(), 4 * m.size());
  EXPECT_EQ(f.limit_counters().latched_evicted, 6u);
  // Over the per-topic cap: forwarded, not kept, and the older value of that topic is gone too.
  EXPECT_EQ(Admit(f, "t/7", LatchedMessage(30000)), Forwarding::Verdict::kForward);
  EXPECT_EQ(f.limit_counters().latched_refused, 1u);
  EXPECT_EQ(LatchedTopics(f), (std::vector<std::string>{"t/6", "t/8", "t/9"}));
  EXPECT_EQ(f.latched_bytes(), 3 * m.size());
}

TEST(ForwardingLimits, IdleTopicsLeaveACrowdedTableNewOnesAreNeverRefused) {
  ForwardingLimits limits;
  limits.topic_idle_s = 10.0;
  Forwarding f(messages::kMaxPayloadBytes, limits);
  const auto m = LatchedMessage(0, /*latched=*/false);
  for (size_t i = 0; i < kMaxTrackedTopics; ++i) Admit(f, "junk/" + std::to_string(i), m);
  // Full: a new topic is forwarded all the same (it was refused until the broker restarted).
  EXPECT_EQ(Admit(f, "late/topic", m), Forwarding::Verdict::kForward);
  EXPECT_EQ(f.limit_counters().untracked, 1u);
  EXPECT_EQ(f.counts().count("late/topic"), 0u);
  const int64_t now = Node::WallNowNs();
  f.AgeTopics(now + 5'000'000'000);  // 5 s later: nothing idle long enough
  EXPECT_EQ(f.limit_counters().topics_evicted, 0u);
  f.AgeTopics(now + 11'000'000'000);  // 11 s later: the whole flood goes
  EXPECT_EQ(f.limit_counters().topics_evicted, kMaxTrackedTopics);
  EXPECT_EQ(Admit(f, "late/topic", m), Forwarding::Verdict::kForward);
  EXPECT_EQ(f.counts().at("late/topic").messages, 1u);
}

TEST(ForwardingLimits, ATopicWithOnlyBadTrafficIsNotIdle) {
  // Its drop counts are what Prometheus alerts on (limbic_bus_drops_total): they must not vanish.
  Forwarding f;
  const std::vector<uint8_t> garbage(64, 0xAB);
  std::vector<CommOutgoing> out;
  EXPECT_EQ(f.Admit("r1/garbage", garbage.data(), garbage.size(), &out), Forwarding::Verdict::kDrop);
  const int64_t now = Node::WallNowNs();
  f.AgeTopics(now + 1'000'000'000);
  ASSERT_EQ(f.counts().count("r1/garbage"), 1u);
  EXPECT_EQ(f.counts().at("r1/garbage").drops_wrong_type, 1u);
  f.AgeTopics(now + 601'000'000'000);
  EXPECT_EQ(f.counts().count("r1/garbage"), 0u);
}

TEST(ForwardingLimits, UncrowdedTableKeepsIdleTopicsUntilTheirTtl) {
  Forwarding f;
  Admit(f, "late/latched", LatchedMessage(10));
  const int64_t now = Node::WallNowNs();
  f.AgeTopics(now + 60'000'000'000);  // idle a minute, but the table is nearly empty
  EXPECT_EQ(f.counts().count("late/latched"), 1u);
  EXPECT_EQ(f.latched_topics(), 1u);
  f.AgeTopics(now + 601'000'000'000);  // past topic_ttl_s (600 s)
  EXPECT_EQ(f.counts().count("late/latched"), 0u);
  EXPECT_EQ(f.latched_topics(), 0u);
  EXPECT_EQ(f.latched_bytes(), 0u);
}

// A topic's entries are found through references taken at its first valid message (issue 18 performance): later
// messages count, name their publisher, latch and are type-checked exactly as the first; a type declared after
// traffic applies from the next message; a topic forgotten (ttl) and a publisher list aged out leave no stale
// reference behind, and the topic starts afresh (a new type may fix it).
TEST(ForwardingTopicRefs, LaterMessagesCountTypeAndLatchAsTheFirst) {
  Forwarding f;
  for (int i = 0; i < 5; ++i) EXPECT_EQ(Admit(f, "status", LatchedMessage(i)), Forwarding::Verdict::kForward);
  Admit(f, "status", From("r2/other"));
  const auto& c = f.counts().at("status");
  EXPECT_EQ(c.messages, 6u);
  EXPECT_EQ(f.Publishers("status"), (std::vector<std::string>{"r2/other", "test"}));
  ASSERT_EQ(f.latched_topics(), 1u);
  f.ForEachLatched("status", [](const std::string&, const std::vector<uint8_t>& p) {
    EXPECT_EQ(p, LatchedMessage(4));  // the last latched one
  });
  // The topic's type is fixed (Heartbeat): another type is dropped as wrong_type, on the first and later tries.
  flatbuffers::FlatBufferBuilder fbb;
  auto header = msg::CreateHeaderDirect(fbb, 0, 1, 1, "x");
  fbb.Finish(msg::CreateClock(fbb, header), messages::Traits<msg::Clock>::kIdentifier);
  const std::vector<uint8_t> clock(fbb.GetBufferPointer(), fbb.GetBufferPointer() + fbb.GetSize());
  EXPECT_EQ(Admit(f, "status", clock), Forwarding::Verdict::kDrop);
  EXPECT_EQ(Admit(f, "status", clock), Forwarding::Verdict::kDrop);
  EXPECT_EQ(f.counts().at("status").drops_wrong_type, 2u);
  EXPECT_EQ(f.counts().at("status").messages, 6u);
  // Declared after traffic: from the next message on.
  f.DeclareType("status", "Clock");
  EXPECT_EQ(Admit(f, "status", clock), Forwarding::Verdict::kForward);
  EXPECT_EQ(Admit(f, "status", From("r1/x")), Forwarding::Verdict::kDrop);
  EXPECT_EQ(f.counts().at("status").messages, 7u);

  // Forgotten past its ttl: nothing stale is used; its next first message fixes the type anew.
  const int64_t now = Node::WallNowNs();
  f.AgeTopics(now + 601'000'000'000);
  EXPECT_EQ(f.counts().count("status"), 0u);
  EXPECT_EQ(Admit(f, "status", From("r3/new")), Forwarding::Verdict::kForward);
  EXPECT_EQ(Admit(f, "status", From("r3/new")), Forwarding::Verdict::kForward);
  EXPECT_EQ(f.counts().at("status").messages, 2u);
  EXPECT_EQ(f.Publishers("status"), (std::vector<std::string>{"r3/new"}));
  EXPECT_EQ(Admit(f, "status", clock), Forwarding::Verdict::kDrop);
}

// A sender's hint per topic (a LocalBus channel) must give what the lookup gives: the same verdicts, counts, types
// and publishers, also once the topic was forgotten (aged out: the hint is stale, the type is fixed anew), and for a
// hint kept for another topic.
TEST(ForwardingTopicRefs, AHintGivesWhatTheLookupGives) {
  flatbuffers::FlatBufferBuilder fbb;
  fbb.Finish(msg::CreateClock(fbb, msg::CreateHeaderDirect(fbb, 0, 1, 1, "x")),
             messages::Traits<msg::Clock>::kIdentifier);
  const std::vector<uint8_t> clock(fbb.GetBufferPointer(), fbb.GetBufferPointer() + fbb.GetSize());
  const std::vector<uint8_t> junk = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12};
  Forwarding looked_up, hinted;
  Forwarding::Hint hint;
  auto both = [&](const std::string& topic, const std::vector<uint8_t>& m) {
    std::vector<CommOutgoing> out;
    const auto a = looked_up.Admit(topic, m.data(), m.size(), &out);
    const auto b = hinted.Admit(topic, m.data(), m.size(), &out, /*built_and_checked=*/false, &hint);
    EXPECT_EQ(a, b) << topic;
    return b;
  };
  auto same = [&](const std::string& topic) {
    ASSERT_EQ(looked_up.counts().count(topic), hinted.counts().count(topic)) << topic;
    if (looked_up.counts().count(topic) == 0) return;
    const TopicCounters& a = looked_up.counts().at(topic);
    const TopicCounters& b = hinted.counts().at(topic);
    EXPECT_EQ(a.messages, b.messages) << topic;
    EXPECT_EQ(a.bytes, b.bytes) << topic;
    EXPECT_EQ(a.drops_wrong_type, b.drops_wrong_type) << topic;
    EXPECT_EQ(a.drops_malformed, b.drops_malformed) << topic;
    EXPECT_EQ(looked_up.Publishers(topic), hinted.Publishers(topic)) << topic;
  };
  EXPECT_EQ(both("status", From("a")), Forwarding::Verdict::kForward);  // fixes the type: Heartbeat
  EXPECT_EQ(both("status", From("b")), Forwarding::Verdict::kForward);
  EXPECT_EQ(both("status", clock), Forwarding::Verdict::kDrop);    // wrong type, through the hint
  EXPECT_EQ(both("status", junk), Forwarding::Verdict::kDrop);     // unknown identifier
  EXPECT_EQ(both("other", clock), Forwarding::Verdict::kForward);  // the hint is status's
  EXPECT_EQ(both("status", From("a")), Forwarding::Verdict::kForward);
  same("status");
  same("other");
  // Aged out: the hint's entry is gone; the next first message fixes the type anew (a Clock now).
  const int64_t later = Node::WallNowNs() + 601'000'000'000;
  looked_up.AgeTopics(later);
  hinted.AgeTopics(later);
  same("status");
  EXPECT_EQ(both("status", clock), Forwarding::Verdict::kForward);
  EXPECT_EQ(both("status", From("a")), Forwarding::Verdict::kDrop);
  EXPECT_EQ(both("status", clock), Forwarding::Verdict::kForward);
  same("status");
  EXPECT_EQ(hinted.counts().at("status").messages, 2u);
  EXPECT_EQ(hinted.counts().at("status").drops_wrong_type, 1u);
}

// A direct topic's receivers' drops (docs/protocol.md §13, "Counts"): their own row when the broker carries none of
// the topic; added to the broker's own counts, in one row, when it carries some too.
TEST(ForwardingStats, ADirectTopicsReceiversDropsAreItsOwnRowOrAddedToTheBrokers) {
  Forwarding f;
  Admit(f, "both", From("broker-path"));          // carried: one message
  Admit(f, "both", std::vector<uint8_t>(64, 0));  // and one dropped by the broker (no known identifier)
  Forwarding::ReportedTopic both{"both", 4, 400};
  both.received.drops_wrong_type = 2;
  both.received.drops_malformed = 3;
  both.received.drops_gap = 5;
  both.received.drops_tail = 1;
  both.received.duplicates = 6;
  Forwarding::ReportedTopic only{"only", 7, 700};
  only.received.drops_invalid = 8;
  only.received.drops_oversize = 9;
  only.received.drops_tail = 10;
  flatbuffers::FlatBufferBuilder fbb;
  f.BuildStats(fbb, 0, nullptr, {both, only});
  const auto* stats = flatbuffers::GetRoot<msg::BusStats>(fbb.GetBufferPointer());
  std::map<std::string, const msg::TopicStats*> rows;
  for (const auto* t : *stats->topics()) rows[t->topic()->str()] = t;
  ASSERT_EQ(rows.size(), 2u);
  const msg::TopicStats& b = *rows.at("both");
  EXPECT_EQ(b.direction()->str(), "broker");
  EXPECT_EQ(b.messages(), 5u);          // the broker's one and the direct publishers' four
  EXPECT_EQ(b.drops_wrong_type(), 3u);  // the broker's one and the receivers' two
  EXPECT_EQ(b.drops_malformed(), 3u);
  EXPECT_EQ(b.drops_gap(), 5u);
  EXPECT_EQ(b.drops_tail(), 1u);
  EXPECT_EQ(b.duplicates(), 6u);
  const msg::TopicStats& o = *rows.at("only");
  EXPECT_EQ(o.direction()->str(), "direct");
  EXPECT_EQ(o.messages(), 7u);
  EXPECT_EQ(o.drops_invalid(), 8u);
  EXPECT_EQ(o.drops_oversize(), 9u);
  EXPECT_EQ(o.drops_tail(), 10u);
  EXPECT_EQ(o.drops_malformed(), 0u);
}

}  // namespace
}  // namespace limbic::bus
