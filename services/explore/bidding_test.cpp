#include "services/explore/bidding.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <stdexcept>

namespace limbic::explore {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// 3 × 2 tiles of 2 m: centres (1, 1) (3, 1) (5, 1) / (1, 3) (3, 3) (5, 3); tile 2 costs double, tile 4 is a wall.
CoarseGraph Graph() {
  CoarseGraph g;
  g.tiles_x = 3;
  g.tiles_y = 2;
  g.centres = {{1, 1}, {3, 1}, {5, 1}, {1, 3}, {3, 3}, {5, 3}};
  g.multipliers = {1, 1, 2, 1, 0, 1};
  return g;
}

BidCall Call(int64_t round) {
  BidCall call;
  call.round = round;
  call.deadline_tick = 10;
  call.grid.width = 6;
  call.grid.height = 4;
  call.grid.resolution = 1.0;
  call.tile_cells = 2;
  call.graph = Graph();
  return call;
}

// A restarted manager (a new instance: another header incarnation) numbers its rounds from 1 again. The robot
// answered rounds up to 5 of the manager that was killed; the new one's round 1 must get its bid, or the robot sits
// out every round until the new count passes 5 (issue 18: the manager killed mid-run).
TEST(RobotBidder, AnswersARestartedManagersRoundsFromOneAgain) {
  RobotBidder bidder;
  BidCall old_call = Call(5);
  old_call.caller = 0x1111;
  ASSERT_TRUE(bidder.Answer(old_call, Vec2(0.5, 0.5)));
  EXPECT_FALSE(bidder.Unanswered(0x1111, 5));
  EXPECT_FALSE(bidder.Unanswered(0x1111, 4));  // an older round of the same manager: not answered
  EXPECT_FALSE(bidder.Answer(old_call, Vec2(0.5, 0.5)));
  BidCall restarted = Call(1);
  restarted.caller = 0x2222;
  EXPECT_TRUE(bidder.Unanswered(0x2222, 1));
  const auto bid = bidder.Answer(restarted, Vec2(0.5, 0.5));
  ASSERT_TRUE(bid);
  EXPECT_EQ(bid->round, 1);
  EXPECT_FALSE(bidder.Answer(restarted, Vec2(0.5, 0.5)));  // and each of its rounds once
  restarted.round = 2;
  EXPECT_TRUE(bidder.Answer(restarted, Vec2(0.5, 0.5)));
}

TEST(CoarseCosts, DijkstraOverTheTilesHandWorked) {
  // From tile 0: tiles 1 and 3 are 2 m away (×1); tile 2 costs 2 + 2·2 = 6; tile 5 only through 2: 6 + 2·1 = 8;
  // tile 4 cannot be entered.
  EXPECT_EQ(CoarseCosts(Graph(), 0), (std::vector<double>{0, 2, 6, 2, kInf, 8}));
  // From inside the wall the robot may leave it (the tile it stands in is not entered).
  EXPECT_EQ(CoarseCosts(Graph(), 4), (std::vector<double>{4, 2, 6, 2, 0, 2}));
  EXPECT_EQ(CoarseCosts(Graph(), 9), std::vector<double>(6, kInf));
  CoarseGraph bad = Graph();
  bad.multipliers.pop_back();
  EXPECT_THROW(CoarseCosts(bad, 0), std::invalid_argument);
}

TEST(RobotBidder, AnswersEachRoundOnceFromItsTile) {
  RobotBidder bidder;
  EXPECT_FALSE(bidder.Answer(Call(1), std::nullopt));       // no position estimate yet: no bid
  EXPECT_FALSE(bidder.Answer(Call(1), Vec2(7.5, 1.0)));     // outside the grid
  const auto bid = bidder.Answer(Call(1), Vec2(5.5, 3.5));  // cell (5, 3): tile 5
  ASSERT_TRUE(bid);
  EXPECT_EQ(bid->round, 1);
  EXPECT_EQ(bid->from_tile, 5);
  EXPECT_EQ(bid->costs, (std::vector<double>{8, 6, 4, 10, kInf, 0}));  // 5→2: 2·2; →1: +2; →0: +2; →3: +2
  EXPECT_FALSE(bidder.Answer(Call(1), Vec2(5.5, 3.5)));                // answered
  EXPECT_TRUE(bidder.Answer(Call(2), Vec2(0.5, 0.5)));
  EXPECT_EQ(bidder.last_round(), 2);
  EXPECT_EQ(TileAt(Call(1), Vec2(2.0, 1.99)), 1);
  EXPECT_EQ(TileAt(Call(1), Vec2(-0.1, 1.0)), -1);
  BidCall bad = Call(3);
  bad.graph.centres.pop_back();
  EXPECT_THROW(bidder.Answer(bad, Vec2(0.5, 0.5)), std::invalid_argument);
}

TEST(BidRound, TakesGoodBidsAndCountsLateStaleMalformedAndMissingOnes) {
  BidRound round(3);
  EXPECT_FALSE(round.Offer(0, Bid{1, 0, {0, 1}}, 5));  // no round open: stale
  round.Open(7, {true, true, false}, 2, /*deadline_tick=*/20);
  EXPECT_FALSE(round.Complete(15));
  EXPECT_FALSE(round.Offer(0, Bid{6, 0, {0, 1}}, 15));             // an older round: stale
  EXPECT_FALSE(round.Offer(2, Bid{7, 0, {0, 1}}, 15));             // not invited: stale
  EXPECT_FALSE(round.Offer(0, Bid{7, 0, {0, 1, 2}}, 15));          // one cost too many: malformed
  EXPECT_FALSE(round.Offer(0, Bid{7, 0, {0, std::nan("")}}, 15));  // malformed
  EXPECT_FALSE(round.Offer(0, Bid{7, 0, {0, -1}}, 15));            // malformed (unreachable is +inf here)
  EXPECT_TRUE(round.Offer(0, Bid{7, 0, {0, kInf}}, 15));
  EXPECT_FALSE(round.Offer(0, Bid{7, 0, {0, 0}}, 16));  // a second bid: stale
  EXPECT_FALSE(round.Offer(1, Bid{7, 1, {3, 0}}, 21));  // stamped after the deadline: late
  EXPECT_FALSE(round.Complete(20));                     // r2 may still bid at the deadline
  EXPECT_TRUE(round.Complete(21));
  const auto bids = round.Close();
  ASSERT_EQ(bids.size(), 3u);
  EXPECT_EQ(bids[0], (std::vector<double>{0, kInf}));
  EXPECT_FALSE(bids[1]);
  EXPECT_FALSE(bids[2]);
  EXPECT_FALSE(round.open());
  const BidCounters& c = round.counters();
  EXPECT_EQ(c.rounds, 1u);
  EXPECT_EQ(c.received, 1u);
  EXPECT_EQ(c.stale, 4u);
  EXPECT_EQ(c.malformed, 3u);
  EXPECT_EQ(c.late, 1u);
  EXPECT_EQ(c.missing, 1u);                                         // r2 (r3 was not invited)
  EXPECT_EQ(c.missing_by_robot, (std::vector<uint64_t>{0, 1, 0}));  // the robot that sat the round out
  // Everyone invited bid: complete before the deadline.
  round.Open(8, {false, true, false}, 2, 40);
  EXPECT_TRUE(round.Offer(1, Bid{8, 1, {3, 0}}, 31));
  EXPECT_TRUE(round.Complete(31));
  EXPECT_THROW(round.Open(8, {true, true, true}, 2, 50), std::invalid_argument);  // rounds increase
}

}  // namespace
}  // namespace limbic::explore
