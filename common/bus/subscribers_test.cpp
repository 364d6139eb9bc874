#include "common/bus/subscribers.hpp"

#include <gtest/gtest.h>

#include <set>
#include <vector>

namespace limbic::bus {
namespace {

TEST(SubscriberTable, EachSubscriptionIsNewOnceAndMatchesByPrefix) {
  SubscriberTable table;
  EXPECT_EQ(table.Subscribe("a", "r1/"), SubscriberTable::Subscribed::kNew);
  EXPECT_EQ(table.Subscribe("a", "r1/"), SubscriberTable::Subscribed::kRepeated);
  EXPECT_EQ(table.Subscribe("b", "r1/scan"), SubscriberTable::Subscribed::kNew);  // another subscriber: new
  EXPECT_EQ(table.Subscribe("c", "r2/"), SubscriberTable::Subscribed::kNew);
  auto who = [&](const std::string& topic) {
    std::set<std::string> ids;
    for (auto* s : table.Matching(topic)) ids.insert(s->id);
    return ids;
  };
  EXPECT_EQ(who("r1/scan"), (std::set<std::string>{"a", "b"}));
  EXPECT_EQ(who("r1/scanner"), (std::set<std::string>{"a", "b"}));  // prefix, as ZeroMQ's SUB matched
  EXPECT_EQ(who("r1/pose"), (std::set<std::string>{"a"}));
  EXPECT_TRUE(who("r3/pose").empty());
  // A second prefix of one subscriber that matches too: it is listed once.
  table.Subscribe("a", "r1/sc");
  EXPECT_EQ(table.Matching("r1/scan").size(), 2u);
  // Changes reach the cached answer.
  table.Unsubscribe("b", "r1/scan");
  EXPECT_EQ(who("r1/scan"), (std::set<std::string>{"a"}));
  EXPECT_EQ(table.Subscribe("b", "r1/scan"), SubscriberTable::Subscribed::kNew);  // subscribing again is new
  EXPECT_TRUE(table.Remove("a"));
  EXPECT_FALSE(table.Remove("a"));
  EXPECT_EQ(who("r1/scan"), (std::set<std::string>{"b"}));
  EXPECT_EQ(table.departed(), 1u);
}

TEST(SubscriberTable, HoldsAtMostTheByteBudgetPerSubscriberAndCountsDrops) {
  SubscriberTable table(SubscriberLimits{.queue_bytes = 3u << 20, .max_subscribers = 8, .max_prefixes = 8});
  table.Subscribe("slow", "big/");
  table.Subscribe("fast", "big/");
  auto& slow = *table.Find("slow");
  auto& fast = *table.Find("fast");
  const size_t one = (1u << 20) + kMessageOverhead;
  // 1 MiB payloads: two fit in 3 MiB with their overhead, the third does not (a bound in bytes,
  // whatever the number of messages).
  EXPECT_TRUE(table.Admit(slow, one));
  EXPECT_TRUE(table.Admit(slow, one));
  EXPECT_FALSE(table.Admit(slow, one));
  EXPECT_FALSE(table.Admit(slow, one));
  EXPECT_EQ(slow.account->bytes.load(), 2 * one);
  EXPECT_EQ(slow.dropped, 2u);
  EXPECT_EQ(slow.delivered, 2u);
  // The other subscriber's budget is its own.
  EXPECT_TRUE(table.Admit(fast, one));
  EXPECT_EQ(fast.dropped, 0u);
  EXPECT_EQ(table.HeldBytes(), 3 * one);
  // Written to the socket: the bytes come back and it is admitted again.
  SubscriberTable::Release(*slow.account, one);
  EXPECT_TRUE(table.Admit(slow, one));
  EXPECT_EQ(table.dropped(), 2u);
  // A message larger than the whole budget never fits.
  SubscriberTable::Release(*slow.account, 2 * one);
  EXPECT_FALSE(table.Admit(slow, (4u << 20)));
}

// Issue 23 item 3: state (only the latest value matters) gets a bounded share of the queue, events all of it.
TEST(SubscriberTable, StateHasItsOwnShareOfTheQueueEventsTheWholeQueue) {
  SubscriberTable table(SubscriberLimits{
      .queue_bytes = 4u << 20, .state_queue_bytes = 1u << 20, .max_subscribers = 8, .max_prefixes = 8});
  table.Subscribe("slow", "");
  auto& slow = *table.Find("slow");
  const size_t half = (512u << 10);  // two of these are the whole state share
  EXPECT_TRUE(table.Admit(slow, half, /*state=*/true));
  EXPECT_TRUE(table.Admit(slow, half, /*state=*/true));
  EXPECT_FALSE(table.Admit(slow, 1, /*state=*/true));  // state full: stale state is what it loses
  EXPECT_EQ(slow.dropped_state, 1u);
  // Events still have the rest of the queue (3 MiB), then nothing more fits, state or event.
  for (int i = 0; i < 6; ++i) EXPECT_TRUE(table.Admit(slow, half)) << i;
  EXPECT_FALSE(table.Admit(slow, 1));
  EXPECT_EQ(slow.account->bytes.load(), 4u << 20);
  EXPECT_EQ(slow.account->state_bytes.load(), 1u << 20);
  // State written out: its share comes back, but the whole queue is still full.
  SubscriberTable::Release(*slow.account, half, /*state=*/true);
  EXPECT_EQ(slow.account->state_bytes.load(), half);
  EXPECT_TRUE(table.Admit(slow, half, /*state=*/true));
  EXPECT_FALSE(table.Admit(slow, 1, /*state=*/true));
  SubscriberTable::Release(*slow.account, half);       // an event written out
  EXPECT_FALSE(table.Admit(slow, 1, /*state=*/true));  // state share full again
  EXPECT_TRUE(table.Admit(slow, half));
  EXPECT_EQ(table.dropped(), 4u);
  EXPECT_EQ(table.dropped_state(), 3u);
}

TEST(SubscriberTable, NoBudgetMeansNoLimit) {
  SubscriberTable table(SubscriberLimits{.queue_bytes = 0});
  table.Subscribe("lockstep", "");
  auto& s = *table.Find("lockstep");
  for (int i = 0; i < 1000; ++i) ASSERT_TRUE(table.Admit(s, 1u << 30));
  EXPECT_EQ(table.dropped(), 0u);
}

TEST(SubscriberTable, AccountOutlivesTheSubscriberWhileMessagesAreInFlight) {
  SubscriberTable table;
  table.Subscribe("gone", "x");
  auto account = table.Find("gone")->account;  // what an in-flight message holds
  ASSERT_TRUE(table.Admit(*table.Find("gone"), 1000));
  table.Remove("gone");
  EXPECT_EQ(table.HeldBytes(), 0u);
  EXPECT_EQ(account->bytes.load(), 1000u);
  SubscriberTable::Release(*account, 1000);  // the transport discards it later
  EXPECT_EQ(account->bytes.load(), 0u);
}

TEST(SubscriberTable, SubscribersAndPrefixesAreBounded) {
  SubscriberTable table(SubscriberLimits{.queue_bytes = 1024, .max_subscribers = 2, .max_prefixes = 3});
  EXPECT_EQ(table.Subscribe("a", "1"), SubscriberTable::Subscribed::kNew);
  EXPECT_EQ(table.Subscribe("b", "1"), SubscriberTable::Subscribed::kNew);
  EXPECT_EQ(table.Subscribe("c", "1"), SubscriberTable::Subscribed::kRefused);
  EXPECT_EQ(table.Find("c"), nullptr);
  EXPECT_EQ(table.Subscribe("a", "2"), SubscriberTable::Subscribed::kNew);
  EXPECT_EQ(table.Subscribe("a", "3"), SubscriberTable::Subscribed::kNew);
  EXPECT_EQ(table.Subscribe("a", "4"), SubscriberTable::Subscribed::kRefused);
  EXPECT_EQ(table.refused(), 2u);
  table.Remove("b");  // one leaves: room for another
  EXPECT_EQ(table.Subscribe("c", "1"), SubscriberTable::Subscribed::kNew);
}

TEST(SubscriberTable, ACycledSubscriptionIsReplayedAtMostOncePerHoldoffOthersNeverWait) {
  using std::chrono::milliseconds;
  SubscriberTable table(SubscriberLimits{.replay_holdoff = milliseconds(1000)});
  const auto t0 = std::chrono::steady_clock::time_point{} + std::chrono::hours(1);
  table.Subscribe("cycler", "map/");
  table.Subscribe("other", "map/");
  auto& cycler = *table.Find("cycler");
  EXPECT_TRUE(table.ReplayNow(cycler, "map/", t0));
  EXPECT_TRUE(table.ReplayNow(*table.Find("other"), "map/", t0 + milliseconds(10)));  // its own first
  // Unsubscribe and subscribe again, 100 times within the second: deferred once.
  for (int i = 0; i < 100; ++i) {
    table.Unsubscribe("cycler", "map/");
    ASSERT_EQ(table.Subscribe("cycler", "map/"), SubscriberTable::Subscribed::kNew);
    EXPECT_FALSE(table.ReplayNow(cycler, "map/", t0 + milliseconds(100 + i)));
  }
  EXPECT_EQ(table.replays_deferred(), 1u);
  std::vector<std::string> due;
  auto collect = [&](SubscriberTable::Subscriber& s, const std::string& p) { due.push_back(s.id + ":" + p); };
  table.ForEachDueReplay(t0 + milliseconds(999), collect);
  EXPECT_TRUE(due.empty());
  table.ForEachDueReplay(t0 + milliseconds(1000), collect);
  EXPECT_EQ(due, std::vector<std::string>{"cycler:map/"});
  table.ForEachDueReplay(t0 + milliseconds(3000), collect);  // once
  EXPECT_EQ(due.size(), 1u);
  // A deferred replay of a prefix no longer subscribed is not made.
  table.Unsubscribe("cycler", "map/");
  table.Subscribe("cycler", "map/");
  EXPECT_FALSE(table.ReplayNow(cycler, "map/", t0 + milliseconds(1500)));
  table.Unsubscribe("cycler", "map/");
  table.ForEachDueReplay(t0 + milliseconds(2500), collect);
  EXPECT_EQ(due.size(), 1u);
  // Old replay times are forgotten: a subscription much later is replayed at once.
  table.AgeReplays(t0 + milliseconds(5000));
  table.Subscribe("cycler", "map/");
  EXPECT_TRUE(table.ReplayNow(cycler, "map/", t0 + milliseconds(5000)));
}

}  // namespace
}  // namespace limbic::bus
