// DirectReports: the sums of a direct topic's bus/stats row from its publishers' and receivers' heartbeats
// (docs/protocol.md §13, "Counts"), without a broker.
#include "common/bus/direct_reports.hpp"

#include <gtest/gtest.h>

namespace limbic::bus {
namespace {

constexpr int64_t kS = 1'000'000'000;

TopicCounters Drops(uint64_t malformed, uint64_t wrong_type, uint64_t oversize, uint64_t invalid, uint64_t gap,
                    uint64_t tail, uint64_t duplicates = 0) {
  TopicCounters c;
  c.drops_malformed = malformed;
  c.drops_wrong_type = wrong_type;
  c.drops_oversize = oversize;
  c.drops_invalid = invalid;
  c.drops_gap = gap;
  c.drops_tail = tail;
  c.duplicates = duplicates;
  c.messages = 1000;  // what it received: not the topic's count
  c.bytes = 64000;
  return c;
}

bool Offered(const std::string&) { return true; }
bool Withdrawn(const std::string&) { return false; }

Forwarding::ReportedTopic Only(DirectReports& reports, int64_t now_ns, bool offered = true) {
  auto rows = reports.Collect(now_ns, offered ? Offered : Withdrawn);
  EXPECT_EQ(rows.size(), 1u);
  return rows.empty() ? Forwarding::ReportedTopic{} : rows.front();
}

void ExpectDrops(const TopicCounters& c, uint64_t malformed, uint64_t wrong_type, uint64_t oversize, uint64_t invalid,
                 uint64_t gap, uint64_t tail) {
  EXPECT_EQ(c.drops_malformed, malformed);
  EXPECT_EQ(c.drops_wrong_type, wrong_type);
  EXPECT_EQ(c.drops_oversize, oversize);
  EXPECT_EQ(c.drops_invalid, invalid);
  EXPECT_EQ(c.drops_gap, gap);
  EXPECT_EQ(c.drops_tail, tail);
}

TEST(DirectReports, ReceiversDropsAreSummedPerReasonBesideThePublishersCounts) {
  DirectReports reports;
  reports.NoteSent("r1/odom", "r1/odometry", 11, 500, 32000, 3 * kS, 3 * kS);
  reports.NoteReceived("r1/odom", "r1/planner", 21, Drops(1, 2, 3, 4, 5, 6, 7), 3 * kS);
  reports.NoteReceived("r1/odom", "r1/mapper", 22, Drops(10, 20, 30, 40, 50, 60, 70), 3 * kS);
  const auto row = Only(reports, 3 * kS);
  EXPECT_EQ(row.topic, "r1/odom");
  EXPECT_EQ(row.messages, 500u);  // sent, by the publisher: not what the receivers received
  EXPECT_EQ(row.bytes, 32000u);
  EXPECT_EQ(row.last_seen_ns, 3 * kS);
  EXPECT_EQ(row.publishers, std::vector<std::string>{"r1/odometry"});  // receivers are not publishers
  ExpectDrops(row.received, 11, 22, 33, 44, 55, 66);
  EXPECT_EQ(row.received.duplicates, 77u);
  EXPECT_EQ(row.received.messages, 0u);
}

// Two receivers, one of which goes away: its last counts stay in the sum (the sum never goes back while the topic is
// listed); it is no longer one of the publishers either way. Later reports of the other replace its own only.
TEST(DirectReports, AReceiverThatHasGoneKeepsItsLastCountsInTheSum) {
  DirectReports reports;
  reports.NoteSent("r1/odom", "r1/odometry", 11, 10, 640, 1 * kS, 1 * kS);
  reports.NoteReceived("r1/odom", "stays", 21, Drops(1, 0, 0, 0, 2, 0), 1 * kS);
  reports.NoteReceived("r1/odom", "goes", 22, Drops(0, 3, 0, 4, 0, 1), 1 * kS);
  ExpectDrops(Only(reports, 1 * kS).received, 1, 3, 0, 4, 2, 1);
  // "goes" exits; "stays" keeps reporting, with more drops, for the whole lifetime of a topic's counts and beyond.
  for (int64_t t = 2; t <= 700; ++t) {
    reports.NoteSent("r1/odom", "r1/odometry", 11, 10 + t, 640 + 64 * t, t * kS, t * kS);
    reports.NoteReceived("r1/odom", "stays", 21, Drops(1 + t, 0, 0, 0, 2, 0), t * kS);
  }
  const auto row = Only(reports, 700 * kS);
  ExpectDrops(row.received, 701, 3, 0, 4, 2, 1);
  EXPECT_EQ(row.messages, 710u);
}

// A service that restarts reports from zero again under a new incarnation: what it had reported stays in the sum.
TEST(DirectReports, ARestartedServiceDoesNotTakeItsEarlierCountsBack) {
  DirectReports reports;
  reports.NoteSent("r1/odom", "r1/odometry", 11, 100, 6400, 1 * kS, 1 * kS);
  reports.NoteReceived("r1/odom", "r1/planner", 21, Drops(5, 0, 0, 2, 7, 0), 1 * kS);
  reports.NoteSent("r1/odom", "r1/odometry", 12, 3, 192, 2 * kS, 2 * kS);
  reports.NoteReceived("r1/odom", "r1/planner", 31, Drops(1, 0, 0, 0, 0, 0), 2 * kS);
  const auto row = Only(reports, 2 * kS);
  EXPECT_EQ(row.messages, 103u);
  EXPECT_EQ(row.bytes, 6592u);
  ExpectDrops(row.received, 6, 0, 0, 2, 7, 0);
  EXPECT_EQ(reports.set_aside(), 2u);
  // The same incarnation (or an unknown one, 0) is the same life: its counts replace its earlier ones.
  reports.NoteReceived("r1/odom", "r1/planner", 31, Drops(4, 0, 0, 0, 0, 0), 3 * kS);
  reports.NoteReceived("r1/odom", "r1/planner", 0, Drops(5, 0, 0, 0, 0, 0), 3 * kS);
  ExpectDrops(Only(reports, 3 * kS).received, 10, 0, 0, 2, 7, 0);
}

// Within one life each count is the highest reported: a tail loss a receiver takes back when the message arrives
// after all (docs/protocol.md §12) stays counted, as a counter does not go back.
TEST(DirectReports, WithinOneLifeNoCountGoesBack) {
  DirectReports reports;
  reports.NoteSent("r1/odom", "r1/odometry", 11, 100, 6400, 1 * kS, 1 * kS);
  reports.NoteReceived("r1/odom", "r1/planner", 21, Drops(0, 0, 0, 0, 1, 3), 1 * kS);
  EXPECT_EQ(Only(reports, 1 * kS).received.drops_tail, 3u);
  reports.NoteSent("r1/odom", "r1/odometry", 11, 90, 5760, 2 * kS, 2 * kS);
  reports.NoteReceived("r1/odom", "r1/planner", 21, Drops(0, 0, 0, 0, 2, 2), 2 * kS);
  const auto row = Only(reports, 2 * kS);
  EXPECT_EQ(row.received.drops_tail, 3u);
  EXPECT_EQ(row.received.drops_gap, 2u);
  EXPECT_EQ(row.messages, 100u);
  EXPECT_EQ(row.last_seen_ns, 1 * kS);
}

// The directory no longer offers the topic: its row stays, publishers listed only while heard, until no report has
// come for topic_ttl_s — then the whole row goes at once.
TEST(DirectReports, AWithdrawnTopicLeavesWholeOnceNoReportHasComeForItsLifetime) {
  ForwardingLimits limits;
  limits.topic_ttl_s = 60;
  limits.publisher_idle_s = 10;
  DirectReports reports(limits);
  reports.NoteSent("r1/odom", "r1/odometry", 11, 10, 640, 1 * kS, 1 * kS);
  reports.NoteReceived("r1/odom", "early", 21, Drops(2, 0, 0, 0, 0, 0), 1 * kS);
  reports.NoteReceived("r1/odom", "late", 22, Drops(3, 0, 0, 0, 0, 0), 30 * kS);
  auto row = Only(reports, 30 * kS, /*offered=*/false);
  EXPECT_TRUE(row.publishers.empty());  // not heard within publisher_idle_s
  EXPECT_EQ(row.received.drops_malformed, 5u);
  row = Only(reports, 89 * kS, /*offered=*/false);  // 61 s after "early", 59 s after "late": both still summed
  EXPECT_EQ(row.received.drops_malformed, 5u);
  EXPECT_EQ(row.messages, 10u);
  EXPECT_TRUE(reports.Collect(91 * kS, Withdrawn).empty());
  EXPECT_FALSE(reports.Reported("r1/odom"));
  // While offered, nothing ages out, however old.
  reports.NoteReceived("r1/odom", "early", 21, Drops(2, 0, 0, 0, 0, 0), 100 * kS);
  EXPECT_EQ(Only(reports, 10'000 * kS).received.drops_malformed, 2u);
}

// Whatever a client claims in heartbeats, a topic holds at most kMaxReportersPerTopic services per direction: the
// one heard from least recently makes room, and its counts stay in the sum.
TEST(DirectReports, ReportersPerTopicAreBoundedWithoutLosingTheirCounts) {
  DirectReports reports;
  const size_t n = kMaxReportersPerTopic + 10;
  for (size_t i = 0; i < n; ++i) {
    const auto at = static_cast<int64_t>(i + 1) * kS;
    reports.NoteReceived("r1/odom", "receiver-" + std::to_string(i), 1, Drops(1, 0, 0, 0, 0, 0), at);
    reports.NoteSent("r1/odom", "sender-" + std::to_string(i), 1, 2, 20, at, at);
  }
  const auto row = Only(reports, static_cast<int64_t>(n) * kS);
  EXPECT_EQ(row.received.drops_malformed, n);
  EXPECT_EQ(row.messages, 2 * n);
  EXPECT_EQ(reports.set_aside(), 2u * 10u);
}

}  // namespace
}  // namespace limbic::bus
