#include "services/explore/executor_load.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <stdexcept>

#include "common/geometry/geometry.hpp"

namespace limbic::explore {
namespace {

using geometry::kNaN;

std::array<std::vector<std::string>, kActivities> Services() { return {{{"planner"}, {"mapper"}, {"controller"}}}; }

// One interval of 10 ticks (1 simulated s at T = 0.1) per service, received at wall times t0 and t0 + 1:
// the planner used 0.5 CPU s and planned 5 times, the mapper 0.2 s and sent one full map, the controller 0.1 s.
template <typename Sink>
void FeedOneSecond(Sink&& add, double t0, double planner_cpu = 0.5, double plans = 5, double mapper_cpu = 0.2) {
  add("planner", ServiceSample{t0, 100, 1.0, 10});
  add("mapper", ServiceSample{t0, 100, 2.0, 10});
  add("controller", ServiceSample{t0, 100, 0.5, kNaN});
  add("planner", ServiceSample{t0 + 1, 110, 1.0 + planner_cpu, 10 + plans});
  add("mapper", ServiceSample{t0 + 1, 110, 2.0 + mapper_cpu, 11});
  add("controller", ServiceSample{t0 + 1, 110, 0.6, kNaN});
}

TEST(ExecutorLoadEstimator, SharesAndRatesPerSimulatedSecond) {
  ExecutorLoadEstimator e(Services(), {});
  FeedOneSecond([&](const std::string& s, const ServiceSample& x) { EXPECT_TRUE(e.Add(s, x)); }, 0.0);
  const auto load = e.Estimate(1.5, {10, 1, 10});
  ASSERT_TRUE(load);
  EXPECT_NEAR(load->share[kPlanning], 0.5, 1e-12);
  EXPECT_NEAR(load->share[kSensing], 0.2, 1e-12);
  EXPECT_NEAR(load->share[kActuation], 0.1, 1e-12);
  EXPECT_NEAR(load->rate_hz[kPlanning], 5.0, 1e-12);  // 5 plans in 1 s
  EXPECT_NEAR(load->rate_hz[kSensing], 1.0, 1e-12);   // 1 full map in 1 s
  EXPECT_EQ(load->rate_hz[kActuation], 10.0);         // not counted: the commanded rate
}

TEST(ExecutorLoadEstimator, SeveralServicesAddUpAndANoCallIntervalUsesTheCommandedRate) {
  ExecutorLoadEstimator e({{{"planner"}, {"mapper", "hwio"}, {"controller"}}}, {0.1, 3.0});
  FeedOneSecond([&](const std::string& s, const ServiceSample& x) { e.Add(s, x); }, 0.0, 0.3, 0);
  e.Add("hwio", ServiceSample{0.0, 100, 4.0, kNaN});
  e.Add("hwio", ServiceSample{1.0, 120, 4.1, kNaN});  // 20 ticks: 0.1 s over 2 s
  const auto load = e.Estimate(1.0, {0.5, 1, 10});
  ASSERT_TRUE(load);
  EXPECT_NEAR(load->share[kSensing], 0.2 + 0.05, 1e-12);
  EXPECT_EQ(load->rate_hz[kPlanning], 0.5);  // no plan in the interval
}

TEST(ExecutorLoadEstimator, RefusesBadSamplesAndNeverCrashes) {
  ExecutorLoadEstimator e(Services(), {});
  EXPECT_FALSE(e.Add("planner", ServiceSample{0, 10, kNaN, 1}));
  EXPECT_FALSE(e.Add("planner", ServiceSample{0, 10, -0.5, 1}));  // negative CPU
  EXPECT_FALSE(e.Add("planner", ServiceSample{0, 10, std::numeric_limits<double>::infinity(), 1}));
  EXPECT_FALSE(e.Add("planner", ServiceSample{0, 10, 1.0, -3}));  // negative count
  EXPECT_FALSE(e.Add("planner", ServiceSample{kNaN, 10, 1.0, 1}));
  EXPECT_FALSE(e.Add("planner", ServiceSample{0, -1, 1.0, 1}));
  EXPECT_FALSE(e.Add("affect", ServiceSample{0, 10, 1.0, 1}));  // not one of its services
  EXPECT_EQ(e.refused(), 7u);
  EXPECT_FALSE(e.Estimate(0, {10, 1, 10}));  // nothing usable yet
  FeedOneSecond([&](const std::string& s, const ServiceSample& x) { e.Add(s, x); }, 0.0);
  EXPECT_FALSE(e.Add("planner", ServiceSample{1.2, 111, kNaN, 16}));  // refused: the good interval stands
  EXPECT_NEAR(e.Estimate(1.5, {10, 1, 10})->share[kPlanning], 0.5, 1e-12);
}

TEST(ExecutorLoadEstimator, StaleHeartbeatsGiveNoEstimate) {
  ExecutorLoadEstimator e(Services(), {0.1, 3.0});
  FeedOneSecond([&](const std::string& s, const ServiceSample& x) { e.Add(s, x); }, 0.0);
  EXPECT_TRUE(e.Estimate(4.0, {10, 1, 10}));   // last heartbeats at 1.0: 3 s old
  EXPECT_FALSE(e.Estimate(4.1, {10, 1, 10}));  // older than stale_s: the planner stopped talking
  // Others keep talking, the planner does not: still nothing.
  e.Add("mapper", ServiceSample{4.0, 140, 2.8, 14});
  e.Add("controller", ServiceSample{4.0, 140, 0.9, kNaN});
  EXPECT_FALSE(e.Estimate(4.1, {10, 1, 10}));
  // A paused run (same tick) keeps a service fresh without a new interval.
  e.Add("planner", ServiceSample{4.0, 110, 1.5, 15});
  EXPECT_TRUE(e.Estimate(4.1, {10, 1, 10}));
}

TEST(ExecutorLoadEstimator, ARestartedServiceMeasuresAgain) {
  ExecutorLoadEstimator e(Services(), {});
  FeedOneSecond([&](const std::string& s, const ServiceSample& x) { e.Add(s, x); }, 0.0);
  EXPECT_TRUE(e.Add("planner", ServiceSample{2.0, 5, 0.01, 1}));  // tick and counters from zero again
  EXPECT_EQ(e.restarts(), 1u);
  EXPECT_FALSE(e.Estimate(2.0, {10, 1, 10}));
  e.Add("planner", ServiceSample{3.0, 15, 0.11, 2});
  EXPECT_NEAR(e.Estimate(3.0, {10, 1, 10})->share[kPlanning], 0.1, 1e-12);
}

TEST(ExecutorLoadEstimator, RefusesBadConstruction) {
  EXPECT_THROW(ExecutorLoadEstimator({{{"planner"}, {}, {"controller"}}}, {}), std::invalid_argument);
  EXPECT_THROW(ExecutorLoadEstimator({{{"planner"}, {"planner"}, {"controller"}}}, {}), std::invalid_argument);
  EXPECT_THROW(ExecutorLoadEstimator(Services(), {0.0, 3.0}), std::invalid_argument);
}

TEST(FeedbackSettings, PlannerCapAndMapperPeriod) {
  EXPECT_EQ(PlannerCapFor(0.75, 10), 0.75);
  EXPECT_EQ(PlannerCapFor(10, 10), 0.0);  // nominal: no cap
  EXPECT_EQ(FullMapPeriodFor(1.0, 0.1), 10);
  EXPECT_EQ(FullMapPeriodFor(0.2, 0.1), 50);
  EXPECT_EQ(FullMapPeriodFor(0.3, 0.1), 33);  // 1/(0.03) = 33.3
  EXPECT_EQ(FullMapPeriodFor(50, 0.1), 1);
  EXPECT_THROW(FullMapPeriodFor(0, 0.1), std::invalid_argument);
}

ResourceFeedbackOptions Options(double budget) {
  ResourceFeedbackOptions o;
  o.retune.budget = budget;
  o.retune.bounds[kPlanning] = {10.0, 0.2};
  o.retune.bounds[kSensing] = {1.0, 0.2};
  o.retune.bounds[kActuation] = {10.0, 10.0};  // never retuned
  return o;
}

TEST(ResourceFeedback, LowersThePlanningRateOfASaturatedRobot) {
  ResourceFeedback f(1, Services(), Options(0.5));
  FeedOneSecond([&](const std::string& s, const ServiceSample& x) { f.Heartbeat(0, s, x); }, 0.0);
  // Shares 0.5 + 0.2 + 0.1 = 0.8 > 0.9·0.5. Target 0.75·0.5 = 0.375: shed 0.425. A plan costs 0.5/5 = 0.1 CPU s,
  // so planning drops by 4.25 Hz, from the measured 5 to 0.75 Hz; sensing and actuation stay.
  const auto sets = f.Step(1.5);
  ASSERT_EQ(sets.size(), 1u);
  EXPECT_EQ(sets[0].service, "planner");
  EXPECT_EQ(sets[0].parameter, "max_replan_hz");
  EXPECT_EQ(sets[0].value, "0.75");
  EXPECT_EQ(sets[0].previous_hz, 10.0);
  EXPECT_NEAR(f.commanded(0)[kPlanning], 0.75, 1e-12);
  EXPECT_EQ(f.counters().retunes, 1u);
  EXPECT_EQ(f.counters().sets_sent, 1u);
  // The measurements start again: no decision from intervals measured at the old rates.
  EXPECT_TRUE(f.Step(1.6).empty());
  EXPECT_EQ(f.counters().no_estimate, 1u);
}

TEST(ResourceFeedback, ATinyBudgetShedsPlanningThenSensingButNeverActuation) {
  ResourceFeedback f(1, Services(), Options(0.2));
  FeedOneSecond([&](const std::string& s, const ServiceSample& x) { f.Heartbeat(0, s, x); }, 0.0);
  // Target 0.15: shed 0.65. Planning to its 0.2 Hz minimum sheds 4.8·0.1 = 0.48; sensing sheds the remaining 0.17
  // at 0.2 CPU s a map: 0.85 Hz, bounded to 0.8 → 0.2 Hz = a full map every 50 ticks.
  const auto sets = f.Step(1.0);
  ASSERT_EQ(sets.size(), 2u);
  EXPECT_EQ(sets[0].value, "0.2");
  EXPECT_EQ(sets[1].service, "mapper");
  EXPECT_EQ(sets[1].parameter, "full_map_period");
  EXPECT_EQ(sets[1].value, "50");
  EXPECT_NEAR(sets[1].new_hz, 0.2, 1e-12);
  EXPECT_EQ(f.commanded(0)[kActuation], 10.0);
}

TEST(ResourceFeedback, RaisesBackWhenThereIsHeadroomAndARefusedSetIsPutBack) {
  ResourceFeedback f(1, Services(), Options(0.5));
  FeedOneSecond([&](const std::string& s, const ServiceSample& x) { f.Heartbeat(0, s, x); }, 0.0);
  const auto lowered = f.Step(1.0);
  ASSERT_EQ(lowered.size(), 1u);
  // At 0.75 Hz the planner uses 0.075: total 0.375, between 0.6·0.5 = 0.3 and 0.45: nothing moves (hysteresis).
  FeedOneSecond([&](const std::string& s, const ServiceSample& x) { f.Heartbeat(0, s, x); }, 2.0, 0.075, 0.75);
  EXPECT_TRUE(f.Step(3.0).empty());
  // The mapper gets lighter (0.02): total 0.195 < 0.3. Room to 0.375 is 0.18; actuation and sensing are at nominal,
  // so planning climbs by 0.18 / 0.1 = 1.8 Hz, from the measured 0.75 to 2.55 Hz.
  FeedOneSecond([&](const std::string& s, const ServiceSample& x) { f.Heartbeat(0, s, x); }, 4.0, 0.075, 0.75, 0.02);
  const auto raised = f.Step(5.0);
  ASSERT_EQ(raised.size(), 1u);
  EXPECT_EQ(raised[0].value, "2.55");
  EXPECT_NEAR(raised[0].previous_hz, 0.75, 1e-12);
  EXPECT_EQ(f.counters().retunes, 2u);
  // The planner refuses the set: the command goes back to what it was.
  f.Sent(1, lowered[0], 1.0);
  f.Sent(2, raised[0], 5.0);
  ASSERT_TRUE(f.Reply(2, /*accepted=*/false, 5.1));
  EXPECT_EQ(f.counters().sets_refused, 1u);
  EXPECT_NEAR(f.commanded(0)[kPlanning], 0.75, 1e-12);
  ASSERT_TRUE(f.Reply(1, /*accepted=*/true, 5.1));  // an accepted one changes nothing
  EXPECT_EQ(f.counters().sets_refused, 1u);
  EXPECT_NEAR(f.commanded(0)[kPlanning], 0.75, 1e-12);
  EXPECT_FALSE(f.Reply(1, false, 5.2));   // answered already
  EXPECT_FALSE(f.Reply(99, false, 5.2));  // not ours (limbic param's)
  EXPECT_EQ(f.counters().sets_refused, 1u);
}

// An explorer whose planner is another implementation (or an older build) without `max_replan_hz` refuses every
// set of it ("no parameter 'max_replan_hz' in r1/planner"). The manager puts its command back, counts the refusal,
// and does not ask again at every fresh estimate: planning is held for refusal_hold_s (30 s), then 60 s, 120 s, …
// after each further refusal in a row; the robot's sensing is still tuned meanwhile.
TEST(ResourceFeedback, ARefusedSetIsNotRetriedAtEveryDecision) {
  ResourceFeedbackOptions options = Options(0.0001);  // nothing fits: shed planning and sensing
  ResourceFeedback f(1, Services(), options);
  int planner_sets = 0, mapper_sets = 0;
  uint64_t id = 100;
  // A decision every 10 s of wall time, 200 of them, each on fresh heartbeats; every planner set is refused at once,
  // every mapper set taken.
  for (int k = 0; k < 200; ++k) {
    const double t = 10.0 * k;
    FeedOneSecond([&](const std::string& s, const ServiceSample& x) { f.Heartbeat(0, s, x); }, t);
    for (const ParameterSet& set : f.Step(t + 1.5)) {
      f.Sent(++id, set, t + 1.5);
      if (set.service == "planner") {
        ++planner_sets;
        EXPECT_EQ(set.previous_hz, 10.0);  // always from the nominal: every earlier set was put back
        ASSERT_TRUE(f.Reply(id, /*accepted=*/false, t + 1.6));
        EXPECT_EQ(f.commanded(0)[kPlanning], 10.0);
        EXPECT_TRUE(f.Held(0, kPlanning, t + 1.6));
      } else {
        ++mapper_sets;
        ASSERT_TRUE(f.Reply(id, /*accepted=*/true, t + 1.6));
      }
    }
  }
  // 2000 s of decisions every 10 s: sets at 1.5, 41.5, 111.5, 241.5, 491.5, 981.5 and 1591.5 s (held 30, 60, 120,
  // 240, 480, 600 and 600 s after each refusal) → 7 sets of 200 decisions, not one every decision.
  EXPECT_EQ(planner_sets, 7);
  EXPECT_EQ(f.counters().sets_refused, 7u);
  EXPECT_EQ(f.counters().sets_held, 193u);  // every other decision wanted the same change
  EXPECT_GE(mapper_sets, 1);                // sensing was still lowered
  EXPECT_NEAR(f.commanded(0)[kSensing], 0.2, 1e-12);
  EXPECT_EQ(f.outstanding(), 0u);
}

// A set nobody answers (the service gone, another implementation that does not reply, the reply lost) is not taken
// for accepted forever: after reply_timeout_s it counts as unanswered, the command goes back and the activity is
// held like after a refusal; an accepted set ends a run of refusals (the next hold is the first one again).
TEST(ResourceFeedback, AnUnansweredSetIsGivenUpAndAnAcceptedOneEndsTheHolds) {
  ResourceFeedbackOptions options = Options(0.5);
  options.reply_timeout_s = 5.0;
  options.refusal_hold_s = 30.0;
  ResourceFeedback f(1, Services(), options);
  FeedOneSecond([&](const std::string& s, const ServiceSample& x) { f.Heartbeat(0, s, x); }, 0.0);
  auto sets = f.Step(1.0);
  ASSERT_EQ(sets.size(), 1u);
  f.Sent(7, sets[0], 1.0);
  EXPECT_NEAR(f.commanded(0)[kPlanning], 0.75, 1e-12);  // taken for granted while the reply may come
  FeedOneSecond([&](const std::string& s, const ServiceSample& x) { f.Heartbeat(0, s, x); }, 5.0);
  EXPECT_TRUE(f.Step(5.9).empty());  // the same decision again: nothing new to send while the reply may come
  EXPECT_EQ(f.counters().sets_held, 0u);
  EXPECT_EQ(f.outstanding(), 1u);
  FeedOneSecond([&](const std::string& s, const ServiceSample& x) { f.Heartbeat(0, s, x); }, 6.0);
  EXPECT_TRUE(f.Step(7.0).empty());  // 6 s without a reply: given up, put back, held until 37 s
  EXPECT_EQ(f.counters().sets_unanswered, 1u);
  EXPECT_EQ(f.commanded(0)[kPlanning], 10.0);
  EXPECT_EQ(f.counters().sets_held, 1u);
  EXPECT_FALSE(f.Reply(7, true, 8.0));  // too late: already given up
  FeedOneSecond([&](const std::string& s, const ServiceSample& x) { f.Heartbeat(0, s, x); }, 37.0);
  sets = f.Step(38.0);  // the hold is over: asked again, and taken
  ASSERT_EQ(sets.size(), 1u);
  f.Sent(8, sets[0], 38.0);
  ASSERT_TRUE(f.Reply(8, true, 38.1));
  EXPECT_FALSE(f.Held(0, kPlanning, 38.1));
  EXPECT_NEAR(f.commanded(0)[kPlanning], 0.75, 1e-12);
  EXPECT_EQ(f.outstanding(), 0u);
  ResourceFeedbackOptions bad = Options(0.5);
  bad.refusal_hold_max_s = 1.0;  // below refusal_hold_s
  EXPECT_THROW(ResourceFeedback(1, Services(), bad), std::invalid_argument);
}

TEST(ResourceFeedback, RobotsWithoutFreshDataAreLeftAlone) {
  ResourceFeedback f(2, Services(), Options(0.5));
  FeedOneSecond([&](const std::string& s, const ServiceSample& x) { f.Heartbeat(1, s, x); }, 0.0);
  EXPECT_FALSE(f.Heartbeat(0, "planner", ServiceSample{0, 10, kNaN, 1}));  // NaN: refused, counted
  EXPECT_FALSE(f.Heartbeat(5, "planner", ServiceSample{0, 10, 1.0, 1}));   // no such robot
  EXPECT_TRUE(f.Step(10.0).empty());                                       // robot 1's data is 9 s old
  EXPECT_EQ(f.counters().no_estimate, 2u);
  EXPECT_EQ(f.counters().samples_refused, 1u);
  EXPECT_EQ(f.Step(1.0).size(), 1u);  // fresh: robot 1 is retuned, robot 0 (no data) is not
  EXPECT_EQ(f.commanded(0)[kPlanning], 10.0);
  ResourceFeedbackOptions bad = Options(0.5);
  bad.budgets = {1.0};
  EXPECT_THROW(ResourceFeedback(2, Services(), bad), std::invalid_argument);
  bad.budgets = {1.0, -1.0};
  EXPECT_THROW(ResourceFeedback(2, Services(), bad), std::invalid_argument);
}

}  // namespace
}  // namespace limbic::explore
