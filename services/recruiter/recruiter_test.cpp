// Protocol state machines (spec affective-recruitment §2.4, §2.5, §9.8): message arithmetic, the drop
// of each of the six types in turn with recovery through Δ or the 15 s restart, late ACCEPTs,
// selection rules, no pre-emption, and malformed / out-of-order / duplicate messages counted and ignored.
#include "services/recruiter/recruiter.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <set>

#include "services/recruiter/testing/fake_network.hpp"

namespace limbic::recruit {
namespace {

using testing::FakeNetwork;

RecruiterOptions Greedy() { return {.strategy = Strategy::kGreedy}; }
RecruiterOptions Affective() { return {.strategy = Strategy::kAffective}; }

const Position kSite{50.0, 50.0};

struct Team {
  FakeNetwork net;
  Recruiter* uav = nullptr;
  std::vector<Recruiter*> ugvs;
  std::vector<Episode> episodes;

  Team(RecruiterOptions options, std::vector<Position> positions) {
    RecruiterOptions uav_options = options;
    uav_options.percepts.clear();
    uav = &net.Add(0, kSite, uav_options);
    for (size_t i = 0; i < positions.size(); ++i)
      ugvs.push_back(&net.Add(static_cast<RobotId>(i + 1), positions[i], options));
  }
  bool Recruit(double limit_s = 600.0) {
    if (!uav->RequestHelp("polar_range", kSite, net.now)) return false;
    const bool ok = net.RunUntil(
        [&] {
          for (const Episode& e : uav->TakeCompletedEpisodes()) episodes.push_back(e);
          return uav->requester_state() == RequesterState::kIdle;
        },
        limit_s);
    return ok;
  }
};

TEST(Recruiter, LosslessGreedyCostsAvailablePlusFiveAndPicksTheNearest) {
  Team team(Greedy(), {{50, 60}, {50, 53}, {80, 80}, {10, 50}});
  ASSERT_TRUE(team.Recruit());
  ASSERT_EQ(team.episodes.size(), 1u);
  EXPECT_EQ(team.episodes[0].responder, 2u);  // 3 units away
  EXPECT_EQ(team.net.sent.size(), 4u + 5u);   // n_a + 5 (§2.6, B1)
  EXPECT_EQ(team.net.Count(MsgType::kHelp), 1);
  EXPECT_EQ(team.net.Count(MsgType::kAccept), 4);
  for (MsgType t : {MsgType::kResponder, MsgType::kArrival, MsgType::kAgree, MsgType::kAckAck})
    EXPECT_EQ(team.net.Count(t), 1) << MsgTypeName(t);
  // Wait: grace 0.5 s + travel (3 units at 1/s, arriving within 0.5) ≈ 3 s.
  const double wait = team.episodes[0].end_s - team.episodes[0].start_s;
  EXPECT_NEAR(wait, 0.5 + 2.5, 0.25);
  EXPECT_EQ(team.ugvs[1]->responder_state(), ResponderState::kOnTask);
  for (int i : {0, 2, 3}) EXPECT_EQ(team.ugvs[i]->responder_state(), ResponderState::kAvailable);
}

TEST(Recruiter, AffectiveLoneRobotAtDistanceOneAnswersTheThirdHelp) {
  Team team(Affective(), {{51, 50}});
  ASSERT_TRUE(team.Recruit());
  EXPECT_EQ(team.net.Count(MsgType::kHelp), 3);  // §3.5 trace: two ignored, the third answered
  EXPECT_EQ(team.net.Count(MsgType::kAccept), 1);
  EXPECT_EQ(team.net.sent.size(), 3u + 1u + 4u);  // h HELP + a ACCEPT + 4
  EXPECT_EQ(team.episodes.at(0).helps, 3);
  EXPECT_EQ(team.ugvs[0]->counters().helps_ignored, 2u);
  EXPECT_DOUBLE_EQ(team.ugvs[0]->shame().state().shame, 0.0);  // reset on answering
}

TEST(Recruiter, AffectiveNearRobotAnswersAloneWhileFarOnesStaySilent) {
  Team team(RecruiterOptions{.strategy = Strategy::kAffective, .shame = {.fitness = FitnessModel::InverseSquare()}},
            {{51, 50}, {90, 90}, {10, 10}, {50, 90}});
  ASSERT_TRUE(team.Recruit());
  EXPECT_EQ(team.net.Count(MsgType::kAccept), 1);  // only the robot 1 unit away (answers at #2)
  EXPECT_EQ(team.net.Count(MsgType::kHelp), 2);
  EXPECT_EQ(team.episodes.at(0).responder, 1u);
  for (int i = 1; i < 4; ++i) EXPECT_GT(team.ugvs[i]->shame().state().shame, 0.0) << "robot " << i + 1;
}

// Drops the first transmission of `type`, then runs a greedy recruitment with one or two robots.
struct DropFirst {
  MsgType type;
  bool done = false;
  bool operator()(const Message& m) {
    if (done || m.type != type) return false;
    done = true;
    return true;
  }
};

class DropEachType : public ::testing::TestWithParam<MsgType> {};

TEST_P(DropEachType, RecruitmentRecoversThroughRetryOrRestart) {
  const MsgType type = GetParam();
  Team team(Greedy(), {{50, 55}});
  DropFirst dropper{type};
  team.net.drop = [&](const Message& m) { return dropper(m); };
  ASSERT_TRUE(team.Recruit(300.0)) << "dropping " << MsgTypeName(type) << " left the requester waiting";
  ASSERT_TRUE(dropper.done);
  ASSERT_EQ(team.episodes.size(), 1u);
  EXPECT_EQ(team.episodes[0].responder, 1u);
  const Episode& e = team.episodes[0];
  const RecruiterCounters& c = team.uav->counters();
  switch (type) {
    case MsgType::kHelp:  // Δ: HELP again after 5 s
      EXPECT_EQ(c.help_retries, 1u);
      EXPECT_EQ(e.restarts, 0);
      EXPECT_NEAR(e.end_s - e.start_s, 5.0 + 0.5 + 4.5, 0.25);
      break;
    case MsgType::kAccept:  // the robot sits PENDING 15 s, ignoring repeats; then answers a later HELP
      EXPECT_GE(c.help_retries, 3u);
      EXPECT_EQ(team.ugvs[0]->counters().responder_timeouts, 1u);
      EXPECT_EQ(e.restarts, 0);
      break;
    case MsgType::kResponder:  // requester restarts at ETA + 15 s; candidate times out to AVAILABLE
    case MsgType::kArrival:
    case MsgType::kAgree:
      EXPECT_EQ(e.restarts, 1);
      EXPECT_GE(team.ugvs[0]->counters().responder_timeouts, 1u);
      break;
    case MsgType::kAckAck:  // the responder is ON_TASK for its lease: no pre-emption; answers afterwards
      EXPECT_EQ(e.restarts, 1);
      EXPECT_GE(e.end_s - e.start_s, 30.0);
      EXPECT_EQ(team.ugvs[0]->counters().accepts_sent, 2u);
      break;
  }
}

INSTANTIATE_TEST_SUITE_P(Recruiter, DropEachType,
                         ::testing::Values(MsgType::kHelp, MsgType::kAccept, MsgType::kResponder, MsgType::kArrival,
                                           MsgType::kAgree, MsgType::kAckAck),
                         [](const ::testing::TestParamInfo<MsgType>& param) {
                           return std::string(MsgTypeName(param.param));
                         });

TEST(Recruiter, LateAcceptAfterResponderIsCountedAndIgnored) {
  Team team(Greedy(), {{50, 55}});
  ASSERT_TRUE(team.uav->RequestHelp("polar_range", kSite, 0.0));
  team.net.Exchange();
  for (int i = 0; i < 10; ++i) team.net.Step();  // ACCEPT, then RESPONDER after the grace
  ASSERT_EQ(team.uav->requester_state(), RequesterState::kWaitArrival);
  Message late = MakeAccept(7, 0, 1.0);
  late.request_id = (0ull << 32) | 1;
  late.msg_id = (7ull << 32) | 1;
  team.uav->OnMessage(late, team.net.now);
  EXPECT_EQ(team.uav->counters().late_accepts, 1u);
  EXPECT_EQ(team.uav->requester_state(), RequesterState::kWaitArrival);
}

TEST(Recruiter, FullWindowWaitsDeltaAfterTheHelpAndTakesTheBest) {
  RecruiterOptions o = Greedy();
  o.selection = SelectionWindow::kFullWindow;
  Team team(o, {{50, 60}, {50, 52}});
  ASSERT_TRUE(team.Recruit());
  EXPECT_EQ(team.episodes.at(0).responder, 2u);
  EXPECT_NEAR(team.episodes[0].end_s - team.episodes[0].start_s, 5.0 + 1.5, 0.25);
}

TEST(Recruiter, RandomSelectionSpreadsOverCandidatesAndIsSeeded) {
  std::map<RobotId, int> wins;
  std::vector<RobotId> first_run;
  for (int run = 0; run < 2; ++run) {
    RecruiterOptions o{.strategy = Strategy::kRandom, .lease_s = 1.0, .seed = 42};
    Team team(o, {{50, 51}, {50, 49}, {51, 50}, {49, 50}});
    for (int e = 0; e < 40; ++e) {
      ASSERT_TRUE(team.Recruit());
      team.net.RunUntil([] { return false; }, 2.0);  // lease over, everyone free again
    }
    ASSERT_EQ(team.episodes.size(), 40u);
    for (size_t e = 0; e < team.episodes.size(); ++e) {
      if (run == 0) {
        ++wins[team.episodes[e].responder];
        first_run.push_back(team.episodes[e].responder);
      } else {
        EXPECT_EQ(team.episodes[e].responder, first_run[e]) << "same seed, same choices";
      }
    }
  }
  EXPECT_EQ(wins.size(), 4u);  // all four equidistant robots chosen at some point
}

TEST(Recruiter, RobotOnTaskIsNotPreemptedByAnotherRequester) {
  FakeNetwork net;
  RecruiterOptions requester_options = Greedy();
  requester_options.percepts.clear();
  Recruiter& a = net.Add(100, {0, 0}, requester_options);
  Recruiter& b = net.Add(101, {10, 0}, requester_options);
  Recruiter& ugv = net.Add(1, {0, 1}, Greedy());
  ASSERT_TRUE(a.RequestHelp("polar_range", {0, 0}, 0.0));
  ASSERT_TRUE(net.RunUntil([&] { return a.requester_state() == RequesterState::kIdle; }, 60.0));
  ASSERT_EQ(ugv.responder_state(), ResponderState::kOnTask);
  ASSERT_TRUE(b.RequestHelp("polar_range", {10, 0}, net.now));
  net.RunUntil([] { return false; }, 20.0);
  EXPECT_EQ(ugv.responder_state(), ResponderState::kOnTask);
  EXPECT_EQ(b.requester_state(), RequesterState::kWaitAccept) << "nobody else can answer";
  EXPECT_GE(b.counters().help_retries, 3u);
  // After the 30 s lease the robot is free and answers b.
  ASSERT_TRUE(net.RunUntil([&] { return b.requester_state() == RequesterState::kIdle; }, 60.0));
  EXPECT_EQ(b.TakeCompletedEpisodes().at(0).responder, 1u);
}

TEST(Recruiter, RobotWithoutThePerceptNeverRepliesNorAccrues) {
  RecruiterOptions other = Affective();
  other.percepts = {"infrared"};
  Team team(other, {{51, 50}});
  team.uav->RequestHelp("polar_range", kSite, 0.0);
  team.net.RunUntil([] { return false; }, 60.0);
  EXPECT_EQ(team.net.Count(MsgType::kAccept), 0);
  EXPECT_GE(team.net.Count(MsgType::kHelp), 12);  // HELP every Δ, forever bounded by Δ
  EXPECT_DOUBLE_EQ(team.ugvs[0]->shame().state().shame, 0.0);
  EXPECT_EQ(team.ugvs[0]->counters().helps_ineligible, team.ugvs[0]->counters().helps_received);
}

TEST(Recruiter, LeaseRenewalRepeatsTheHandshake) {
  RecruiterOptions o = Greedy();
  o.lease_renewals = 1;
  Team team(o, {{50, 51}});
  ASSERT_TRUE(team.Recruit());
  team.net.RunUntil([] { return false; }, 70.0);
  EXPECT_EQ(team.net.Count(MsgType::kArrival), 2);
  EXPECT_EQ(team.net.Count(MsgType::kAgree), 2);
  EXPECT_EQ(team.net.Count(MsgType::kAckAck), 2);
  EXPECT_EQ(team.ugvs[0]->responder_state(), ResponderState::kAvailable);
  EXPECT_EQ(team.uav->counters().out_of_order, 0u);
}

// task_s [I]: a requester whose task outlasts one lease holds it (LEASED) and expects the responder's
// renewal ARRIVAL by the lease's end + 15 s (§2.3). A responder that dies on task sends none: the
// requester recruits again for the rest of the task.
TEST(Recruiter, ResponderLostDuringItsLeaseIsReplacedAtLeaseEndPlusFifteenSeconds) {
  RecruiterOptions o = Greedy();
  o.lease_s = 10.0;
  o.task_s = 60.0;
  o.lease_renewals = 10;
  Team team(o, {{50, 52}, {50, 60}});
  ASSERT_TRUE(team.uav->RequestHelp("polar_range", kSite, 0.0));
  ASSERT_TRUE(team.net.RunUntil([&] { return team.ugvs[0]->responder_state() == ResponderState::kOnTask; }, 60.0));
  const double on_task_s = team.net.now;
  EXPECT_EQ(team.uav->requester_state(), RequesterState::kLeased);
  ASSERT_EQ(team.uav->TakeCompletedEpisodes().size(), 1u);  // the wait (M2) ends at ACKACK as before
  // Robot 1 dies: nothing it transmits arrives any more.
  team.net.drop = [](const Message& m) { return m.sender == 1; };
  ASSERT_TRUE(team.net.RunUntil([&] { return team.uav->counters().lease_lapses > 0; }, 60.0));
  EXPECT_NEAR(team.net.now - on_task_s, 10.0 + 15.0, 0.15);
  EXPECT_EQ(team.uav->requester_state(), RequesterState::kWaitAccept);
  ASSERT_TRUE(team.net.RunUntil(
      [&] {
        return team.uav->requester_state() != RequesterState::kWaitAccept &&
               team.uav->requester_state() != RequesterState::kWaitArrival &&
               team.uav->requester_state() != RequesterState::kWaitAckAck;
      },
      60.0));
  const std::vector<Episode> replaced = team.uav->TakeCompletedEpisodes();
  ASSERT_EQ(replaced.size(), 1u);
  EXPECT_EQ(replaced[0].responder, 2u);
  EXPECT_TRUE(replaced[0].after_lapse);
  EXPECT_EQ(replaced[0].helps, 1);
  EXPECT_NEAR(replaced[0].end_s - replaced[0].start_s, 0.5 + 9.5, 0.25);  // grace + 10 units at 1/s
  // Robot 2 serves the rest of the task (it renews), then the requester is free; no third HELP.
  ASSERT_TRUE(team.net.RunUntil([&] { return team.uav->requester_state() == RequesterState::kIdle; }, 120.0));
  EXPECT_EQ(team.uav->counters().lease_lapses, 1u);
  EXPECT_EQ(team.net.Count(MsgType::kHelp), 2);
}

TEST(Recruiter, RenewedLeasesHoldTheRequesterUntilTheTaskIsCovered) {
  RecruiterOptions o = Greedy();
  o.lease_s = 10.0;
  o.task_s = 60.0;
  o.lease_renewals = 10;
  Team team(o, {{50, 52}});
  ASSERT_TRUE(team.uav->RequestHelp("polar_range", kSite, 0.0));
  ASSERT_TRUE(team.net.RunUntil([&] { return team.uav->requester_state() == RequesterState::kLeased; }, 60.0));
  const double ackack_s = team.net.now;
  ASSERT_TRUE(team.net.RunUntil([&] { return team.uav->requester_state() == RequesterState::kIdle; }, 120.0));
  // Renewals at +10, +20, ... ; the fifth one's lease reaches +60 = the end of the task.
  EXPECT_NEAR(team.net.now - ackack_s, 50.0, 0.15);
  EXPECT_EQ(team.net.Count(MsgType::kArrival), 1 + 5);
  EXPECT_EQ(team.net.Count(MsgType::kHelp), 1);
  EXPECT_EQ(team.uav->counters().lease_lapses, 0u);
  EXPECT_EQ(team.uav->TakeCompletedEpisodes().size(), 1u);

  // A responder that does not renew (lease_renewals 0) is free at the lease's end; the requester, whose
  // task is not done, asks again 15 s later and the same robot, now available, answers.
  o.lease_renewals = 0;
  Team lazy(o, {{50, 52}});
  ASSERT_TRUE(lazy.uav->RequestHelp("polar_range", kSite, 0.0));
  ASSERT_TRUE(lazy.net.RunUntil([&] { return lazy.uav->counters().lease_lapses > 0; }, 60.0));
  ASSERT_TRUE(lazy.net.RunUntil([&] { return lazy.uav->requester_state() == RequesterState::kLeased; }, 60.0));
  const std::vector<Episode> episodes = lazy.uav->TakeCompletedEpisodes();
  ASSERT_EQ(episodes.size(), 2u);
  EXPECT_EQ(episodes[1].responder, 1u);
  EXPECT_TRUE(episodes[1].after_lapse);
  EXPECT_EQ(lazy.ugvs[0]->counters().times_recruited, 2u);
}

TEST(Recruiter, MalformedDuplicateForeignAndOutOfOrderMessagesAreCountedAndIgnored) {
  Recruiter r(5, Greedy());
  r.SetPosition({0, 0});
  uint32_t seq = 0;
  const auto stamp = [&](Message m) {
    m.msg_id = (9ull << 32) | ++seq;
    m.request_id = (9ull << 32) | 1;
    return m;
  };
  Message nan_help = stamp(MakeHelp(9, "polar_range", {std::nan(""), 0}, 1));
  Message empty_percept = stamp(MakeHelp(9, "", {1, 1}, 1));
  Message no_recipient = stamp(MakeAgree(9, 5));
  no_recipient.recipient = kNoRecipient;
  Message bad_lease = stamp(MakeArrival(9, 5, -3.0));
  Message inf_eta = stamp(MakeAccept(9, 5, INFINITY));
  Message bad_type = stamp(MakeAgree(9, 5));
  bad_type.type = static_cast<MsgType>(17);
  for (const Message& m : {nan_help, empty_percept, no_recipient, bad_lease, inf_eta, bad_type}) r.OnMessage(m, 1.0);
  EXPECT_EQ(r.counters().malformed, 6u);
  // Out of order: AGREE and RESPONDER-for-me while AVAILABLE; ACKACK and ARRIVAL while not requesting.
  r.OnMessage(stamp(MakeAgree(9, 5)), 1.0);
  Message chosen = stamp(MakeResponder(9, 5));
  r.OnMessage(chosen, 1.0);
  r.OnMessage(stamp(MakeAckAck(9, 5)), 1.0);
  r.OnMessage(stamp(MakeArrival(9, 5, 30.0)), 1.0);
  r.OnMessage(stamp(MakeAccept(9, 5, 3.0)), 1.0);
  EXPECT_EQ(r.counters().out_of_order, 5u);
  // Foreign, own echo, duplicate.
  r.OnMessage(stamp(MakeAgree(9, 6)), 1.0);
  Message echo = stamp(MakeHelp(5, "polar_range", {1, 1}, 1));
  r.OnMessage(echo, 1.0);
  Message help = stamp(MakeHelp(9, "polar_range", {3, 4}, 1));
  r.OnMessage(help, 1.0);
  r.OnMessage(help, 1.5);
  EXPECT_EQ(r.counters().not_for_me, 1u);
  EXPECT_EQ(r.counters().own_echoes, 1u);
  EXPECT_EQ(r.counters().duplicates, 1u);
  // Only the one good HELP produced anything: one ACCEPT with ETA 5.
  const auto out = r.TakeOutbox();
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].type, MsgType::kAccept);
  EXPECT_DOUBLE_EQ(out[0].eta_s, 5.0);
  EXPECT_EQ(r.responder_state(), ResponderState::kPending);
}

TEST(Recruiter, RejectsOptionsThatBreakTheProtocol) {
  RecruiterOptions o;
  o.help_retry_s = 0.0;
  EXPECT_THROW(Recruiter(1, o), std::invalid_argument);
  o = {};
  o.help_retry_s = 60.0;  // k(Δ) = 0.3 > c = 0.2: no guaranteed response
  EXPECT_THROW(Recruiter(1, o), std::invalid_argument);
  o.strategy = Strategy::kGreedy;
  EXPECT_NO_THROW(Recruiter(1, o));
  EXPECT_THROW(Recruiter(kNoRecipient, RecruiterOptions{}), std::invalid_argument);
  o.task_s = -1.0;
  EXPECT_THROW(Recruiter(1, o), std::invalid_argument);
  EXPECT_THROW(ParseStrategy("auction"), std::invalid_argument);
}

}  // namespace
}  // namespace limbic::recruit
