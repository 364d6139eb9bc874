// The radio (spec affective-recruitment §5.3, §9.2): loss per transmission or per receiver, seeded,
// Gilbert–Elliott bursts, latency, range, unicast copies, and counts of every attempt.
#include "services/recruiter/radio.hpp"

#include <gtest/gtest.h>

#include <cmath>

namespace limbic::recruit {
namespace {

std::vector<std::pair<RobotId, Position>> TeamInARow(int n) {
  std::vector<std::pair<RobotId, Position>> team;
  for (int i = 0; i < n; ++i) team.emplace_back(static_cast<RobotId>(i), Position{static_cast<double>(i), 0.0});
  return team;
}

TEST(Radio, IidLossPerTransmissionDropsABroadcastForEveryone) {
  Radio radio({.loss = 0.25, .seed = 3});
  const auto team = TeamInARow(5);
  const int n = 40000;
  int delivered_all = 0, delivered_none = 0;
  for (int i = 0; i < n; ++i) {
    radio.Transmit(MakeHelp(0, "p", {0, 0}, 1), i, {0, 0}, team);
    const size_t copies = radio.TakeDue(i).size();
    ASSERT_TRUE(copies == 0 || copies == 4) << "a broadcast is lost to all or to none";
    delivered_all += copies == 4;
    delivered_none += copies == 0;
  }
  EXPECT_NEAR(static_cast<double>(delivered_none) / n, 0.25, 0.01);
  EXPECT_EQ(radio.counts().attempts[0], static_cast<uint64_t>(n));  // dropped ones are counted (M1)
  EXPECT_EQ(radio.counts().dropped[0], static_cast<uint64_t>(delivered_none));
  EXPECT_EQ(radio.counts().attempts_by_robot.at(0)[0], static_cast<uint64_t>(n));
}

TEST(Radio, SameSeedSameDropsOtherSeedOtherDrops) {
  const auto pattern = [](uint64_t seed) {
    Radio radio({.loss = 0.5, .seed = seed});
    std::string bits;
    for (int i = 0; i < 64; ++i) {
      radio.Transmit(MakeAgree(0, 1), i, {0, 0}, TeamInARow(2));
      bits += radio.TakeDue(i).empty() ? '0' : '1';
    }
    return bits;
  };
  EXPECT_EQ(pattern(11), pattern(11));
  EXPECT_NE(pattern(11), pattern(12));
}

TEST(Radio, PerReceiverLossDecidesEachCopy) {
  Radio radio({.loss = 0.5, .granularity = RadioOptions::Granularity::kPerReceiver, .seed = 5});
  int partial = 0;
  for (int i = 0; i < 1000; ++i) {
    radio.Transmit(MakeHelp(0, "p", {0, 0}, 1), i, {0, 0}, TeamInARow(5));
    const size_t copies = radio.TakeDue(i).size();
    partial += copies > 0 && copies < 4;
  }
  EXPECT_GT(partial, 500);  // 1 − 2·0.5⁴ = 87.5 % expected
  EXPECT_EQ(radio.counts().attempts[0], 1000u);
}

TEST(Radio, GilbertElliottLosesInBursts) {
  RadioOptions o{.loss_model = RadioOptions::LossModel::kGilbertElliott,
                 .ge_p_good_to_bad = 0.05,
                 .ge_p_bad_to_good = 0.5,
                 .ge_loss_good = 0.0,
                 .ge_loss_bad = 0.8,
                 .seed = 9};
  Radio radio(o);
  const int n = 200000;
  int drops = 0, drop_after_drop = 0;
  bool previous = false;
  for (int i = 0; i < n; ++i) {
    radio.Transmit(MakeAgree(0, 1), i, {0, 0}, TeamInARow(2));
    const bool dropped = radio.TakeDue(i).empty();
    drops += dropped;
    drop_after_drop += dropped && previous;
    previous = dropped;
  }
  const double p = static_cast<double>(drops) / n;
  EXPECT_NEAR(p, 0.05 / 0.55 * 0.8, 0.01);  // stationary P(bad) × loss_bad
  EXPECT_GT(static_cast<double>(drop_after_drop) / drops, 2.0 * p) << "losses must cluster";
}

TEST(Radio, UnicastSendsOneCountedCopyPerOtherMember) {
  Radio radio({.unicast = true});
  const auto team = TeamInARow(13);
  radio.Transmit(MakeHelp(0, "p", {0, 0}, 1), 0, {0, 0}, team);
  radio.Transmit(MakeResponder(0, 4), 0, {0, 0}, team);
  radio.Transmit(MakeAccept(4, 0, 2.0), 0, {4, 0}, team);
  EXPECT_EQ(radio.counts().attempts[static_cast<int>(MsgType::kHelp)], 12u);
  EXPECT_EQ(radio.counts().attempts[static_cast<int>(MsgType::kResponder)], 12u);
  EXPECT_EQ(radio.counts().attempts[static_cast<int>(MsgType::kAccept)], 1u);
  EXPECT_EQ(radio.counts().total_attempts(), 25u);
  EXPECT_EQ(radio.TakeDue(0).size(), 25u);
}

TEST(Radio, RangeAndLatencyShapeDelivery) {
  Radio radio({.latency_s = 0.3, .range = 2.5});
  radio.Transmit(MakeHelp(0, "p", {0, 0}, 1), 1.0, {0, 0}, TeamInARow(5));  // robots at x = 1..4
  EXPECT_TRUE(radio.TakeDue(1.2).empty());
  const auto due = radio.TakeDue(1.3);
  ASSERT_EQ(due.size(), 2u);  // x = 1, 2 within 2.5
  EXPECT_EQ(due[0].receiver, 1u);
  EXPECT_EQ(due[1].receiver, 2u);
  EXPECT_EQ(radio.counts().out_of_range, 2u);
  EXPECT_TRUE(radio.idle());
}

TEST(Radio, RejectsImpossibleOptions) {
  EXPECT_THROW(Radio({.loss = 1.5}), std::invalid_argument);
  EXPECT_THROW(Radio({.loss = std::nan("")}), std::invalid_argument);
  EXPECT_THROW(Radio({.latency_s = -1.0}), std::invalid_argument);
  EXPECT_THROW(Radio({.range = -1.0}), std::invalid_argument);
  EXPECT_THROW(ParseLossModel("markov"), std::invalid_argument);
}

}  // namespace
}  // namespace limbic::recruit
