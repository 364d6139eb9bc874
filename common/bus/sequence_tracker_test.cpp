#include "common/bus/sequence_tracker.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <vector>

namespace limbic::bus {
namespace {

constexpr uint64_t kLife = 7;  // one publisher's incarnation

// Running totals over calls, as a node keeps them in TopicCounters.
struct Totals {
  uint64_t delivered = 0;
  uint64_t duplicates = 0;
  uint64_t gap = 0;
  uint64_t tail = 0;
  void Add(const SequenceTracker::Outcome& o, bool message) {
    if (message) ++(o.deliver ? delivered : duplicates);
    gap += o.gap;
    tail += o.tail;
    tail -= o.tail_recovered;
  }
};

class SequenceTrackerTest : public ::testing::Test {
 protected:
  void Message(uint64_t seq, uint64_t incarnation = kLife, const char* source = "pub") {
    totals_.Add(tracker_.OnMessage("r1/odom", source, incarnation, seq), true);
  }
  void Report(uint64_t last_seq, uint64_t incarnation = kLife, const char* source = "pub") {
    totals_.Add(tracker_.OnReport("r1/odom", source, incarnation, last_seq), false);
  }
  SequenceTracker tracker_;
  Totals totals_;
};

TEST_F(SequenceTrackerTest, InOrderMessagesAndReportsCountNothing) {
  for (uint64_t s = 1; s <= 5; ++s) Message(s);
  Report(5);
  Message(6);
  Report(6);
  Report(6);
  EXPECT_EQ(totals_.delivered, 6u);
  EXPECT_EQ(totals_.gap + totals_.tail + totals_.duplicates, 0u);
}

TEST_F(SequenceTrackerTest, GapsBetweenDeliveredMessagesAreCountedOnce) {
  Message(1);
  Message(4);   // 2, 3 lost
  Message(10);  // 5..9 lost
  Report(10);
  Report(10);
  EXPECT_EQ(totals_.gap, 7u);
  EXPECT_EQ(totals_.tail, 0u);
}

TEST_F(SequenceTrackerTest, DuplicatesAreNotDeliveredAgain) {
  Message(1);
  Message(2);
  Message(2);  // a latched re-send
  Message(1);
  EXPECT_EQ(totals_.delivered, 2u);
  EXPECT_EQ(totals_.duplicates, 2u);
  EXPECT_EQ(totals_.gap, 0u);
}

TEST_F(SequenceTrackerTest, TailLossIsCountedOnlyWhenTheNextReportConfirmsTheClaim) {
  Message(1);
  Message(2);
  Report(5);  // 3..5 sent: perhaps still in flight
  EXPECT_EQ(totals_.tail, 0u);
  Report(5);  // a full period later: lost
  EXPECT_EQ(totals_.tail, 3u);
  Report(5);  // nothing new: counted once
  EXPECT_EQ(totals_.tail, 3u);
  Message(6);  // the next one: no gap for what the tail already counted
  EXPECT_EQ(totals_.gap, 0u);
  EXPECT_EQ(totals_.tail, 3u);
}

TEST_F(SequenceTrackerTest, MessagesInFlightBehindAClaimAreNotCounted) {
  Message(1);
  Report(3);
  Message(2);  // arrived between the claim and its confirmation
  Message(3);
  Report(4);
  Report(4);  // 4 never came
  EXPECT_EQ(totals_.tail, 1u);
  EXPECT_EQ(totals_.delivered, 3u);
}

TEST_F(SequenceTrackerTest, AMessageCountedLostThatArrivesLateIsDeliveredAndTakenBack) {
  Message(1);
  Report(4);
  Report(4);  // 2..4 counted lost
  ASSERT_EQ(totals_.tail, 3u);
  Message(2);  // a delay fault held them past a report period
  Message(3);
  Message(4);
  EXPECT_EQ(totals_.delivered, 4u);
  EXPECT_EQ(totals_.tail, 0u);
  // Late and skipping one: 3 taken back, 2 stays lost; nothing counted twice afterwards.
  SequenceTracker t;
  Totals totals;
  totals.Add(t.OnMessage("x", "p", 1, 1), true);
  totals.Add(t.OnReport("x", "p", 1, 3), false);
  totals.Add(t.OnReport("x", "p", 1, 3), false);
  totals.Add(t.OnMessage("x", "p", 1, 3), true);
  totals.Add(t.OnMessage("x", "p", 1, 2), true);  // below the last delivered: a duplicate, as for gaps
  totals.Add(t.OnMessage("x", "p", 1, 4), true);
  EXPECT_EQ(totals.tail, 1u);
  EXPECT_EQ(totals.gap, 0u);
  EXPECT_EQ(totals.delivered, 3u);
}

TEST_F(SequenceTrackerTest, ALateJoinerCountsFromFirstContactOnly) {
  Report(100);  // joined while it was at 100: 1..100 are history
  Report(100);
  EXPECT_EQ(totals_.tail, 0u);
  Message(101);
  EXPECT_EQ(totals_.gap, 0u);
  // A late joiner whose first contact is a message in the middle of the stream.
  SequenceTracker t;
  EXPECT_EQ(t.OnMessage("x", "p", 1, 50).gap, 0u);
  EXPECT_EQ(t.OnReport("x", "p", 1, 50).tail, 0u);
  EXPECT_EQ(t.OnReport("x", "p", 1, 50).tail, 0u);
}

TEST_F(SequenceTrackerTest, ALatchedReplayBelowTheFirstClaimIsDeliveredWithoutCounting) {
  Report(40);   // first contact: the report
  Message(37);  // the broker's latched value, older than the claim
  Report(40);
  Report(41);
  EXPECT_EQ(totals_.delivered, 1u);
  EXPECT_EQ(totals_.gap + totals_.tail, 0u);
  Message(41);
  Report(41);
  EXPECT_EQ(totals_.gap + totals_.tail, 0u);
}

TEST_F(SequenceTrackerTest, ARestartedPublisherStartsAfreshAndSettlesItsPreviousLifesClaim) {
  Message(1);
  Message(2);
  Report(5);                    // claimed 3..5, then crashed before its next report
  Message(1, kLife + 1);        // the new life: its seq starts over, nothing of it counted
  EXPECT_EQ(totals_.tail, 3u);  // the old claim: its report arrived behind 3..5, which never came
  EXPECT_EQ(totals_.gap, 0u);
  Message(2, kLife + 1);
  Report(2, kLife + 1);
  Report(2, kLife + 1);
  EXPECT_EQ(totals_.tail, 3u);
  EXPECT_EQ(totals_.delivered, 4u);
}

TEST_F(SequenceTrackerTest, AClaimNeverConfirmedIsNotCounted) {
  Message(1);
  Report(9);  // the publisher stopped for good after this report
  EXPECT_EQ(totals_.tail, 0u);
  EXPECT_EQ(tracker_.size(), 1u);
}

TEST_F(SequenceTrackerTest, SourcesAreTrackedApart) {
  Message(1, kLife, "a");
  Message(1, kLife, "b");
  Message(3, kLife, "a");
  Report(3, kLife, "b");
  Report(3, kLife, "b");
  EXPECT_EQ(totals_.gap, 1u);   // a's 2
  EXPECT_EQ(totals_.tail, 2u);  // b's 2, 3
  EXPECT_EQ(tracker_.size(), 2u);
}

// A receiver's hint per topic (Node's inlet on a LocalBus) must find what the search finds: the same outcome for
// every message, whichever publisher sends, across a restarted publisher (new incarnation), duplicates, gaps, a
// sequence that wraps to 1 within one incarnation (a duplicate: the counting never goes back), a hint kept for
// another topic, and a tracking restart (the table cleared under the hint).
TEST(SequenceTracker, AHintFindsWhatTheSearchFinds) {
  struct Step {
    const char* topic;
    const char* source;
    uint64_t incarnation;
    uint64_t seq;
  };
  const uint64_t top = std::numeric_limits<uint64_t>::max();
  const std::vector<Step> steps = {
      {"r1/odom", "a", 1, 1}, {"r1/odom", "a", 1, 2},       {"r1/odom", "a", 1, 2},  // duplicate
      {"r1/odom", "b", 5, 1}, {"r1/odom", "a", 1, 6},                                // another source; a gap
      {"r1/odom", "a", 2, 1},                                                        // a restarted publisher
      {"r1/odom", "a", 2, 2}, {"r1/odom", "a", 2, top - 1}, {"r1/odom", "a", 2, top},
      {"r1/odom", "a", 2, 1},                                                        // wrapped: a duplicate
      {"r1/scan", "a", 2, 7}, {"r1/odom", "a", 2, top},     {"r1/odom", "c", 1, 1},  // c: a restart at 3 sources
      {"r1/odom", "a", 2, 3}, {"r1/odom", "a", 2, 4},
  };
  SequenceTracker searched(/*max_sources=*/3), hinted(/*max_sources=*/3);
  SequenceTracker::Hint hint;  // one for every topic here: a hint of the wrong topic is found again too
  for (size_t i = 0; i < steps.size(); ++i) {
    const Step& s = steps[i];
    const auto a = searched.OnMessage(s.topic, s.source, s.incarnation, s.seq);
    const auto b = hinted.OnMessage(hint, s.topic, s.source, s.incarnation, s.seq);
    EXPECT_EQ(a.deliver, b.deliver) << "step " << i;
    EXPECT_EQ(a.gap, b.gap) << "step " << i;
    EXPECT_EQ(a.tail, b.tail) << "step " << i;
    EXPECT_EQ(a.tail_recovered, b.tail_recovered) << "step " << i;
    EXPECT_EQ(searched.size(), hinted.size()) << "step " << i;
    EXPECT_EQ(searched.restarts(), hinted.restarts()) << "step " << i;
  }
  EXPECT_EQ(hinted.restarts(), 1u);
  // After the restart, a's state is a new first contact: the hint (made before the clear) was not used.
  const auto after = hinted.OnMessage(hint, "r1/odom", "a", 2, 10);
  EXPECT_TRUE(after.deliver);
  EXPECT_EQ(after.gap, 5u);  // 5..9, counted from the first contact at 4
}

TEST(SequenceTracker, BoundedInSourcesRestartsTrackingRatherThanGrowing) {
  SequenceTracker t(/*max_sources=*/2);
  t.OnMessage("x", "a", 1, 1);
  t.OnMessage("x", "b", 1, 1);
  t.OnMessage("x", "c", 1, 1);  // a third: tracking starts over
  EXPECT_EQ(t.size(), 1u);
  EXPECT_EQ(t.restarts(), 1u);
  // Restarted tracking is first contact again: nothing counted falsely.
  const auto o = t.OnMessage("x", "a", 1, 9);
  EXPECT_TRUE(o.deliver);
  EXPECT_EQ(o.gap, 0u);
}

}  // namespace
}  // namespace limbic::bus
