// The lockstep mine-detection scenario (spec affective-recruitment §5): message arithmetic, loss
// robustness (every recruitment completes at 25 %), determinism, scanning UGVs recruitable only in
// their pauses, robots leaving mid-recruitment replaced through the timeouts, robots joining.
#include "services/recruiter/mine_scenario.hpp"

#include <gtest/gtest.h>

namespace limbic::recruit {
namespace {

ScenarioOptions Options(Strategy strategy, double loss = 0.0, uint64_t config = 1, uint64_t seed = 1) {
  ScenarioOptions o;
  o.recruiter.strategy = strategy;
  o.recruiter.seed = seed;
  o.radio.loss = loss;
  o.radio.seed = seed;
  o.config_seed = config;
  return o;
}

TEST(MineScenario, BuildsTheTeamOfSection5) {
  const auto team = BuildTeam(Options(Strategy::kGreedy));
  ASSERT_EQ(team.size(), 13u);
  EXPECT_EQ(team[0].role, RobotSpec::Role::kUav);
  EXPECT_EQ(team[1].role, RobotSpec::Role::kScanningUgv);
  EXPECT_DOUBLE_EQ(team[2].area.x0, 50.0);
  for (size_t i = 3; i < team.size(); ++i) {
    EXPECT_EQ(team[i].role, RobotSpec::Role::kIdleUgv);
    EXPECT_GE(team[i].start.x, 0.0);
    EXPECT_LE(team[i].start.y, 100.0);
  }
  EXPECT_NE(team[3].start.x, BuildTeam(Options(Strategy::kGreedy, 0, 2))[3].start.x) << "config seed places robots";
}

TEST(MineScenario, LosslessGreedyCostsTenPlusFivePerEpisode) {
  const ScenarioResult r = RunMineScenario(Options(Strategy::kGreedy));
  ASSERT_TRUE(r.success);
  ASSERT_EQ(r.episodes.size(), 5u);
  // The run ends before 650 s, when the scanning UGVs first pause, so n_a = 10 every time (§2.6).
  EXPECT_LT(r.end_s, 650.0);
  EXPECT_EQ(r.messages, 5u * (10u + 5u));
  EXPECT_EQ(r.counts.attempts[static_cast<int>(MsgType::kHelp)], 5u);
  EXPECT_GT(r.wait_total_s, 0.0);
  int recruited = 0;
  for (const auto& [id, n] : r.recruit_counts) recruited += n;
  EXPECT_EQ(recruited, 5);
}

TEST(MineScenario, LosslessRandomHearsFromEveryAvailableRobot) {
  const ScenarioResult r = RunMineScenario(Options(Strategy::kRandom));
  ASSERT_TRUE(r.success);
  // Far choices make this run outlast 650 s: the last stop also hears the two pausing scanning UGVs.
  EXPECT_GT(r.end_s, 650.0);
  EXPECT_EQ(r.counts.attempts[static_cast<int>(MsgType::kHelp)], 5u);
  EXPECT_EQ(r.counts.attempts[static_cast<int>(MsgType::kAccept)], 4u * 10u + 12u);
  EXPECT_EQ(r.messages, 5u * 5u + 52u);
}

TEST(MineScenario, AffectiveTransmitsLessThanGreedyInABigTeam) {
  ScenarioOptions aff = Options(Strategy::kAffective);
  aff.idle_ugvs = 50;
  ScenarioOptions gr = aff;
  gr.recruiter.strategy = Strategy::kGreedy;
  const ScenarioResult a = RunMineScenario(aff), g = RunMineScenario(gr);
  ASSERT_TRUE(a.success && g.success);
  EXPECT_EQ(g.messages, 5u * 55u);
  EXPECT_LT(a.messages * 4, g.messages * 3);  // 162 vs 275 with this configuration
  EXPECT_GT(a.wait_total_s, g.wait_total_s) << "affective spends time building SHAME";
}

TEST(MineScenario, EveryRecruitmentCompletesAtTwentyFivePercentLoss) {
  for (Strategy s : {Strategy::kAffective, Strategy::kGreedy, Strategy::kRandom}) {
    for (uint64_t seed = 1; seed <= 6; ++seed) {
      const ScenarioResult r = RunMineScenario(Options(s, 0.25, seed, seed));
      EXPECT_TRUE(r.success) << StrategyName(s) << " seed " << seed;
      EXPECT_EQ(r.episodes.size(), 5u);
      EXPECT_GT(r.counts.dropped[0] + r.counts.dropped[1] + r.counts.dropped[2], 0u);
    }
  }
}

TEST(MineScenario, SameSeedSameResult) {
  const ScenarioResult a = RunMineScenario(Options(Strategy::kRandom, 0.1, 4, 9));
  const ScenarioResult b = RunMineScenario(Options(Strategy::kRandom, 0.1, 4, 9));
  EXPECT_EQ(a.messages, b.messages);
  EXPECT_DOUBLE_EQ(a.wait_total_s, b.wait_total_s);
  EXPECT_EQ(a.recruit_counts, b.recruit_counts);
}

TEST(MineScenario, ScanningUgvIsRecruitableOnlyDuringItsPause) {
  ScenarioOptions o = Options(Strategy::kGreedy);
  o.episodes = 1;
  // A 20-unit raster lane; 10 units left to scan: busy until t = 10, then a 20 s pause.
  o.robots = {{.id = 0, .role = RobotSpec::Role::kUav, .speed = 3.0, .area = {0, 100, 50, 50, 10}},
              {.id = 1,
               .role = RobotSpec::Role::kScanningUgv,
               .speed = 1.0,
               .area = {0, 20, 45, 45, 10},
               .start_progress = 10.0}};
  const ScenarioResult r = RunMineScenario(o);
  ASSERT_TRUE(r.success);
  EXPECT_EQ(r.episodes[0].responder, 1u);
  EXPECT_GE(r.episodes[0].end_s, 10.0);
  EXPECT_EQ(r.episodes[0].helps, 3);  // HELPs at 0 and 5 ignored (on task), answered at 10
}

TEST(MineScenario, ResponderLeavingEnRouteIsReplacedThroughTheTimeouts) {
  ScenarioOptions o = Options(Strategy::kGreedy);
  o.episodes = 1;
  const ScenarioResult normal = RunMineScenario(o);
  ASSERT_TRUE(normal.success);
  const RobotId first = normal.episodes[0].responder;
  o.churn = {{.at_s = 1.0, .robot = first, .join = false}};  // powered off after RESPONDER (0.5 s)
  const ScenarioResult r = RunMineScenario(o);
  ASSERT_TRUE(r.success) << "the requester must not wait forever";
  EXPECT_NE(r.episodes[0].responder, first);
  EXPECT_EQ(r.episodes[0].restarts, 1);
  EXPECT_GT(r.wait_total_s, normal.wait_total_s + 15.0);
}

TEST(MineScenario, RobotJoiningLaterTakesPart) {
  ScenarioOptions o = Options(Strategy::kGreedy);
  o.episodes = 1;
  o.robots = {{.id = 0, .role = RobotSpec::Role::kUav, .speed = 3.0},
              {.id = 5, .role = RobotSpec::Role::kIdleUgv, .start = {3, 4}}};
  o.churn = {{.at_s = 12.0, .robot = 5, .join = true}};
  const ScenarioResult r = RunMineScenario(o);
  ASSERT_TRUE(r.success);
  EXPECT_EQ(r.episodes[0].helps, 4);  // HELPs at 0, 5, 10 unheard; answered at 15
  EXPECT_NEAR(r.wait_total_s, 15.0 + 0.5 + 4.5, 0.25);
}

TEST(MineScenario, RejectsInconsistentOptions) {
  ScenarioOptions no_episodes;
  no_episodes.episodes = 0;
  EXPECT_THROW(RunMineScenario(no_episodes), std::invalid_argument);
  ScenarioOptions no_tick;
  no_tick.tick_s = 0.0;
  EXPECT_THROW(RunMineScenario(no_tick), std::invalid_argument);
  ScenarioOptions o;
  o.robots = {{.id = 1, .role = RobotSpec::Role::kIdleUgv}};
  EXPECT_THROW(RunMineScenario(o), std::invalid_argument);
  o.robots = {{.id = 0, .role = RobotSpec::Role::kUav}, {.id = 0, .role = RobotSpec::Role::kIdleUgv}};
  EXPECT_THROW(RunMineScenario(o), std::invalid_argument);
}

}  // namespace
}  // namespace limbic::recruit
