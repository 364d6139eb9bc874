#include "services/planner/planner.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <vector>

#include "services/planner/testing/planner_peer.hpp"

namespace limbic::planner {
namespace {

using geometry::GridSpec;
using geometry::Vec2;
using mapper::GridMaps;

class PlannerPolicyTest : public ::testing::Test {
 protected:
  PlannerPolicyTest() : maps_(GridMaps::Initial(GridSpec{{0, 0}, 0.35, 12, 12})) {}

  PlannerInputs Inputs(double time, int64_t instruction_id, double t_r) {
    PlannerInputs in;
    in.time = time;
    in.robot_position = {0.5, 0.5};
    NavigationGoal goal;
    goal.goal = {3.5, 3.5};
    goal.instruction_id = instruction_id;
    in.goal = goal;
    in.maps = &maps_;
    in.params.t_r = t_r;
    return in;
  }

  GridMaps maps_;
  Planner planner_;
};

TEST_F(PlannerPolicyTest, ReplansOnNewGoalAndWhenTimerReachesTr) {
  // Times accumulated in 0.1 s steps, as a lockstep clock would: 10 steps sum to 0.9999999999999999.
  double t = 0.0;
  std::vector<ReplanReason> reasons;
  for (int k = 0; k <= 25; ++k) {
    reasons.push_back(planner_.Step(Inputs(t, k < 13 ? 1 : 2, 1.0)).reason);
    t += 0.1;
  }
  for (int k = 0; k <= 25; ++k) {
    ReplanReason expected = ReplanReason::kNone;
    if (k == 0 || k == 13) expected = ReplanReason::kNewGoal;  // first goal; instruction 2 at k = 13
    if (k == 10 || k == 23) expected = ReplanReason::kTimer;   // 1 s after the last plan
    EXPECT_EQ(reasons[k], expected) << "cycle " << k;
  }
  EXPECT_EQ(planner_.state().instruction_id, 2);
}

TEST_F(PlannerPolicyTest, ZeroTrReplansEveryCycleAndTrIsReadLive) {
  EXPECT_EQ(planner_.Step(Inputs(0.0, 7, 0.0)).reason, ReplanReason::kNewGoal);
  EXPECT_EQ(planner_.Step(Inputs(0.1, 7, 0.0)).reason, ReplanReason::kTimer);
  EXPECT_EQ(planner_.Step(Inputs(0.2, 7, 0.0)).reason, ReplanReason::kTimer);
  EXPECT_EQ(planner_.Step(Inputs(0.3, 7, 5.0)).reason, ReplanReason::kNone);  // t_r raised live
  EXPECT_EQ(planner_.Step(Inputs(5.1, 7, 5.0)).reason, ReplanReason::kNone);  // 4.9 s since 0.2
  EXPECT_EQ(planner_.Step(Inputs(5.2, 7, 5.0)).reason, ReplanReason::kTimer);
  EXPECT_EQ(planner_.Step(Inputs(5.3, 7, 0.1)).reason, ReplanReason::kTimer);  // lowered live
}

// Resource feedback (services/explore): a cap on timer replans lengthens the period to max(t_r, 1/cap); a new
// instruction still plans at once, and a cap of 0 lifts it.
TEST_F(PlannerPolicyTest, AReplanRateCapLengthensTheTimerButNeverDelaysANewGoal) {
  EXPECT_EQ(planner_.max_replan_hz(), 0.0);
  planner_.SetMaxReplanRate(0.5);  // at most every 2 s, against t_r = 1 s
  EXPECT_EQ(planner_.Step(Inputs(0.0, 7, 1.0)).reason, ReplanReason::kNewGoal);
  EXPECT_EQ(planner_.Step(Inputs(1.0, 7, 1.0)).reason, ReplanReason::kNone);  // t_r reached, the cap not
  EXPECT_EQ(planner_.Step(Inputs(1.9, 7, 1.0)).reason, ReplanReason::kNone);
  EXPECT_EQ(planner_.Step(Inputs(2.0, 7, 1.0)).reason, ReplanReason::kTimer);
  EXPECT_EQ(planner_.Step(Inputs(2.1, 8, 1.0)).reason, ReplanReason::kNewGoal);  // never delayed
  EXPECT_EQ(planner_.Step(Inputs(2.2, 8, 5.0)).reason, ReplanReason::kNone);     // t_r above the cap's period rules
  EXPECT_EQ(planner_.Step(Inputs(6.0, 8, 5.0)).reason, ReplanReason::kNone);
  EXPECT_EQ(planner_.Step(Inputs(7.1, 8, 5.0)).reason, ReplanReason::kTimer);
  planner_.SetMaxReplanRate(0.0);  // lifted: t_r alone
  EXPECT_EQ(planner_.Step(Inputs(7.2, 8, 0.1)).reason, ReplanReason::kTimer);
  EXPECT_THROW(planner_.SetMaxReplanRate(-1.0), std::invalid_argument);
  EXPECT_THROW(planner_.SetMaxReplanRate(std::numeric_limits<double>::quiet_NaN()), std::invalid_argument);
  EXPECT_EQ(planner_.max_replan_hz(), 0.0);  // a refused rate leaves the cap as it was
}

// Issue 15: a live fusion change asks for a plan at once; the timer restarts from it.
TEST_F(PlannerPolicyTest, ARequestedReplanHappensAtTheNextStepWithAGoal) {
  EXPECT_EQ(planner_.Step(Inputs(0.0, 7, 5.0)).reason, ReplanReason::kNewGoal);
  EXPECT_EQ(planner_.Step(Inputs(0.1, 7, 5.0)).reason, ReplanReason::kNone);
  planner_.RequestReplan();
  EXPECT_EQ(planner_.Step(Inputs(0.2, 7, 5.0)).reason, ReplanReason::kRequested);
  EXPECT_EQ(planner_.Step(Inputs(0.3, 7, 5.0)).reason, ReplanReason::kNone);  // once
  EXPECT_EQ(planner_.Step(Inputs(5.1, 7, 5.0)).reason, ReplanReason::kNone);  // 4.9 s since 0.2
  EXPECT_EQ(planner_.Step(Inputs(5.2, 7, 5.0)).reason, ReplanReason::kTimer);
}

TEST_F(PlannerPolicyTest, OutOfRangeParametersAreRefusedBeforeSizingTheKernel) {
  // r_f = 1e6 m would make a smoothing kernel of (2·r_f/0.35)² ≈ 3e13 offsets (eq. 5.8).
  PlannerInputs in = Inputs(0.0, 1, 0.0);
  in.params.r_f = 1e6;
  EXPECT_THROW(planner_.Step(in), std::invalid_argument);
  EXPECT_FALSE(planner_.state().has_plan);  // nothing changed
  in.params.r_f = 0.7;
  EXPECT_EQ(planner_.Step(in).reason, ReplanReason::kNewGoal);
}

TEST_F(PlannerPolicyTest, IdleWithoutGoalAndKeepsPathBetweenPlans) {
  PlannerInputs idle = Inputs(0.0, 1, 5.0);
  idle.goal.reset();
  idle.maps = nullptr;  // no plan is due, so no maps are needed
  const PlannerOutputs none = planner_.Step(idle);
  EXPECT_FALSE(none.replanned());
  EXPECT_FALSE(none.path.success);
  EXPECT_TRUE(none.path.nodes.empty());

  const PlannerOutputs first = planner_.Step(Inputs(0.0, 1, 5.0));
  ASSERT_TRUE(first.path.success);
  EXPECT_EQ(first.path.nodes.front(), maps_.spec.Center(maps_.spec.CellOf({0.5, 0.5})));
  EXPECT_EQ(first.path.nodes.back(), maps_.spec.Center(maps_.spec.CellOf({3.5, 3.5})));
  // Unexplored map (p_o = 0.2 everywhere): every node costs m_f' = 0.2.
  EXPECT_DOUBLE_EQ(first.path.max_cost, 0.2);

  // The map changes but no plan is due: the old path stays.
  std::fill(maps_.p_o.begin(), maps_.p_o.end(), 0.6);
  const PlannerOutputs kept = planner_.Step(Inputs(1.0, 1, 5.0));
  EXPECT_FALSE(kept.replanned());
  EXPECT_EQ(kept.path.nodes, first.path.nodes);
  EXPECT_DOUBLE_EQ(kept.path.max_cost, 0.2);
  EXPECT_EQ(kept.path.planned_at, 0.0);
  const PlannerOutputs timed = planner_.Step(Inputs(5.0, 1, 5.0));
  EXPECT_EQ(timed.reason, ReplanReason::kTimer);
  EXPECT_DOUBLE_EQ(timed.path.max_cost, 0.6);
  EXPECT_EQ(timed.path.planned_at, 5.0);
}

TEST_F(PlannerPolicyTest, ReadsFusionWeightsLive) {
  // Fully explored free map: m_f = W_p3·p_e, so the path's cost follows W_p3 and then W_p4 as they change.
  for (int i = 0; i < maps_.CellCount(); ++i) {
    maps_.p_e[i] = 1.0;
    maps_.p_o[i] = 0.0;
  }
  PlannerInputs in = Inputs(0.0, 1, 0.0);
  EXPECT_DOUBLE_EQ(planner_.Step(in).path.max_cost, 0.0);
  in.time = 0.1;
  in.params.w_p3 = 0.5;
  EXPECT_DOUBLE_EQ(planner_.Step(in).path.max_cost, 0.5);
  const std::vector<double> emo(maps_.CellCount(), 1.0);
  in.time = 0.2;
  in.params.w_p4 = 0.5;
  in.emotion_layer = emo;
  // 1 − (1 − 0.5)(1 − 0.5) = 0.75.
  EXPECT_DOUBLE_EQ(planner_.Step(in).path.max_cost, 0.75);
  in.time = 0.3;
  in.maps = nullptr;
  EXPECT_THROW(planner_.Step(in), std::invalid_argument);
}

// Issue 14: a door whose frame is on the danger map, and a long detour. W_p2 (introspection) follows the mapped
// confusion around the robot, so it rises as the robot nears the door and falls as it backs off. With the live
// weight every replan follows it and the plan flips between door and detour (the robot turns back and forth in
// front of the door); with DangerWeight::kTraversalMax the detour, once chosen, stays until the next instruction.
class DoorWithDangerTest : public ::testing::Test {
 protected:
  DoorWithDangerTest() : maps_(GridMaps::Initial(GridSpec{{0, 0}, 0.35, 12, 12})) {
    for (int i = 0; i < maps_.CellCount(); ++i) maps_.p_o[i] = 0.0;
    for (int ix = 0; ix < 12; ++ix) {
      if (ix == 2 || ix == 10) continue;  // the door (ix 2) and the far opening of the detour (ix 10)
      maps_.p_o[maps_.spec.Index({ix, 6})] = 1.0;
    }
    maps_.danger[maps_.spec.Index({2, 6})] = 1;  // a collision with the door frame was marked there
  }

  PlannerInputs Inputs(double time, int64_t instruction_id, double w_p2) const {
    PlannerInputs in;
    in.time = time;
    in.robot_position = {0.875, 0.525};
    NavigationGoal goal;
    goal.goal = {0.875, 3.675};
    goal.instruction_id = instruction_id;
    in.goal = goal;
    in.maps = &maps_;
    in.params.t_r = 1.0;
    in.params.w_p2 = w_p2;
    return in;
  }

  // True when the path crosses the wall row through the door cell (centre (0.875, 2.275)).
  static bool ThroughDoor(const PlannerOutputs& out) {
    EXPECT_TRUE(out.path.success);
    return std::any_of(out.path.nodes.begin(), out.path.nodes.end(),
                       [](const Vec2& n) { return std::abs(n.x() - 0.875) < 1e-9 && std::abs(n.y() - 2.275) < 1e-9; });
  }

  GridMaps maps_;
};

TEST_F(DoorWithDangerTest, LiveDangerWeightFlipsThePlanAsTheRobotNearsAndLeavesTheDoor) {
  Planner planner;                                               // DangerWeight::kLive, the spec's reading
  EXPECT_TRUE(ThroughDoor(planner.Step(Inputs(0.0, 1, 0.1))));   // far from the door: low introspection
  EXPECT_FALSE(ThroughDoor(planner.Step(Inputs(1.0, 1, 0.9))));  // at the door: W_p2 0.9, detour
  EXPECT_TRUE(ThroughDoor(planner.Step(Inputs(2.0, 1, 0.1))));   // backed off: through the door again
}

TEST_F(DoorWithDangerTest, TraversalMaxHoldsTheDetourUntilTheNextInstruction) {
  Planner planner(PlannerOptions{.danger_weight = DangerWeight::kTraversalMax});
  EXPECT_TRUE(ThroughDoor(planner.Step(Inputs(0.0, 1, 0.1))));
  EXPECT_FALSE(ThroughDoor(planner.Step(Inputs(1.0, 1, 0.9))));
  EXPECT_FALSE(ThroughDoor(planner.Step(Inputs(2.0, 1, 0.1))));  // W_p2 held at 0.9
  EXPECT_DOUBLE_EQ(planner.state().held_w_p2, 0.9);
  // A peak between plans counts too: the hold is updated every cycle, not only when A* runs.
  EXPECT_EQ(planner.Step(Inputs(2.5, 1, 1.0)).reason, ReplanReason::kNone);
  EXPECT_DOUBLE_EQ(planner.state().held_w_p2, 1.0);
  // A new instruction starts from the live value.
  EXPECT_TRUE(ThroughDoor(planner.Step(Inputs(3.0, 2, 0.1))));
  EXPECT_DOUBLE_EQ(planner.state().held_w_p2, 0.1);
}

TEST(PlannerAdditive, UsesCompanionCostModel) {
  GridMaps maps = GridMaps::Initial(GridSpec{{0, 0}, 0.35, 6, 6});
  const std::vector<double> bias(maps.CellCount(), 0.35);
  Planner planner(PlannerOptions{});
  PlannerInputs in;
  in.robot_position = {0.2, 0.2};
  in.goal = NavigationGoal{{1.9, 1.9}, 3, 0.0, 0.0};
  in.maps = &maps;
  in.SetEmotionLayer(bias, FusionMode::kAdditive);
  EXPECT_DOUBLE_EQ(planner.Step(in).path.max_cost, 0.2 + 0.35);
}

// Issue 14 item 6: the affect model in use decides how its layer enters the cost; the planner's `fusion`
// option only forces one when a user asks.
TEST(PlannerFusion, FollowsTheAffectModelUnlessForced) {
  EXPECT_EQ(ChooseFusion(EmotionFusion::kFollowAffect, true), FusionMode::kAdditive);
  EXPECT_EQ(ChooseFusion(EmotionFusion::kFollowAffect, false), FusionMode::kProbabilisticOr);
  EXPECT_EQ(ChooseFusion(EmotionFusion::kOr, true), FusionMode::kProbabilisticOr);
  EXPECT_EQ(ChooseFusion(EmotionFusion::kAdditive, false), FusionMode::kAdditive);
}

// The same layer of 0.35 everywhere: added (companion2006) it raises the cost by 0.35 on top of p_o = 0.2;
// OR-fused with W_p4 = 0 (the companion configuration's weight) it changes nothing.
TEST(PlannerFusion, AnAdditiveLayerIsAddedAndAnOrLayerIsNot) {
  GridMaps maps = GridMaps::Initial(GridSpec{{0, 0}, 0.35, 6, 6});
  const std::vector<double> layer(maps.CellCount(), 0.35);
  for (const bool additive : {true, false}) {
    Planner planner(PlannerOptions{});
    PlannerInputs in;
    in.robot_position = {0.2, 0.2};
    in.goal = NavigationGoal{{1.9, 1.9}, 3, 0.0, 0.0};
    in.maps = &maps;
    in.params.w_p4 = 0.0;
    in.SetEmotionLayer(layer, ChooseFusion(EmotionFusion::kFollowAffect, additive));
    EXPECT_DOUBLE_EQ(planner.Step(in).path.max_cost, additive ? 0.55 : 0.2) << "additive " << additive;
  }
}

// --- Issue 15, item 1: the planner's state and its new plans are checked finite --------------------------

void ExpectSamePath(const PlannerOutputs& out, const PlannerOutputs& good) {
  EXPECT_EQ(out.path.nodes, good.path.nodes);
  EXPECT_EQ(out.path.node_costs, good.path.node_costs);
  EXPECT_EQ(out.path.max_cost, good.path.max_cost);
  EXPECT_EQ(out.path.planned_at, good.path.planned_at);
  EXPECT_EQ(out.path_cost, good.path_cost);
}

void ExpectFinite(const PlannerOutputs& out) {
  for (const auto& n : out.path.nodes) EXPECT_TRUE(std::isfinite(n.x()) && std::isfinite(n.y()));
  for (double c : out.path.node_costs) EXPECT_TRUE(std::isfinite(c));
  EXPECT_TRUE(std::isfinite(out.path_cost));
  EXPECT_TRUE(std::isfinite(out.path.max_cost));
}

TEST_F(PlannerPolicyTest, APoisonedStateIsReplacedByTheLastGoodPlan) {
  const PlannerOutputs good = planner_.Step(Inputs(0.0, 1, 100.0));
  ASSERT_TRUE(good.path.success);
  ASSERT_GE(good.path.nodes.size(), 3u);
  ASSERT_EQ(planner_.fault(), "");

  PlannerTestPeer::PoisonPathCost(planner_);
  PlannerOutputs out = planner_.Step(Inputs(0.1, 1, 100.0));
  EXPECT_EQ(planner_.fault(), "state path cost not finite: restored the last good path");
  EXPECT_EQ(out.reason, ReplanReason::kNone);
  ExpectSamePath(out, good);

  PlannerTestPeer::PoisonNode(planner_, 1);
  out = planner_.Step(Inputs(0.2, 1, 100.0));
  EXPECT_EQ(planner_.fault(), "state path nodes not finite: restored the last good path");
  ExpectSamePath(out, good);

  PlannerTestPeer::PoisonNodeCost(planner_, 0);
  planner_.RequestReplan();  // a live fusion change between the two: the request survives the restore
  out = planner_.Step(Inputs(0.3, 1, 100.0));
  EXPECT_EQ(planner_.fault(), "state path node costs not finite: restored the last good path");
  EXPECT_EQ(out.reason, ReplanReason::kRequested);
  ExpectFinite(out);

  out = planner_.Step(Inputs(0.4, 1, 100.0));
  EXPECT_EQ(planner_.fault(), "") << "a good cycle clears the fault";
  ExpectFinite(out);
}

TEST_F(PlannerPolicyTest, ANonFiniteLayerKeepsTheLastGoodPath) {
  const PlannerOutputs good = planner_.Step(Inputs(0.0, 1, 100.0));
  ASSERT_TRUE(good.path.success);
  maps_.p_o[40] = std::nan("");  // a bad map cell, away from the path or not: m_f is checked whole
  PlannerOutputs out = planner_.Step(Inputs(0.1, 2, 100.0));  // a new goal: a plan is due
  EXPECT_EQ(planner_.fault(),
            "CostField: a layer holds a non-finite value (fused cost m_f not finite): kept the last good path");
  EXPECT_EQ(out.reason, ReplanReason::kNone);
  ExpectSamePath(out, good);
  EXPECT_EQ(planner_.state().instruction_id, 1) << "the refused plan was not taken";

  // A NaN in a layer weighted 0 still counts (0·NaN is NaN): the state that feeds the cost is bad.
  maps_.p_o[40] = 0.2;
  std::vector<double> emotion(maps_.p_o.size(), 0.1);
  emotion[7] = std::numeric_limits<double>::infinity();
  PlannerInputs in = Inputs(0.2, 2, 100.0);
  in.SetEmotionLayer(emotion, FusionMode::kProbabilisticOr);
  out = planner_.Step(in);
  EXPECT_NE(planner_.fault().find("fused cost m_f not finite"), std::string::npos) << planner_.fault();
  ExpectSamePath(out, good);

  emotion[7] = 0.1;
  out = planner_.Step(in);  // the layer is good again: the due plan happens
  EXPECT_EQ(planner_.fault(), "");
  EXPECT_EQ(out.reason, ReplanReason::kNewGoal);
  EXPECT_EQ(planner_.state().instruction_id, 2);
}

TEST_F(PlannerPolicyTest, ANonFiniteInputSkipsTheCycle) {
  const PlannerOutputs good = planner_.Step(Inputs(0.0, 1, 0.0));  // t_r = 0: a plan every cycle
  PlannerInputs in = Inputs(0.1, 1, 0.0);
  in.robot_position = {std::nan(""), 1.0};
  PlannerOutputs out = planner_.Step(in);
  EXPECT_EQ(planner_.fault(), "input robot position not finite: cycle skipped");
  EXPECT_EQ(out.reason, ReplanReason::kNone);
  ExpectSamePath(out, good);
  in = Inputs(0.2, 2, 0.0);
  in.goal->goal = {1.0, std::numeric_limits<double>::infinity()};
  planner_.Step(in);
  EXPECT_EQ(planner_.fault(), "input goal not finite: cycle skipped");
  EXPECT_EQ(planner_.state().instruction_id, 1);
  in = Inputs(std::nan(""), 1, 0.0);
  planner_.Step(in);
  EXPECT_EQ(planner_.fault(), "input time not finite: cycle skipped");
  EXPECT_EQ(planner_.Step(Inputs(0.4, 1, 0.0)).reason, ReplanReason::kTimer);
  EXPECT_EQ(planner_.fault(), "");
}

TEST_F(PlannerPolicyTest, APoisonedStateBeforeAnyPlanGoesBackToNoPlan) {
  Planner fresh;
  PlannerTestPeer::PoisonPathCost(fresh);
  PlannerInputs idle = Inputs(0.0, 1, 100.0);
  idle.goal.reset();
  const PlannerOutputs out = fresh.Step(idle);
  EXPECT_EQ(fresh.fault(), "state path cost not finite: restored the last good path");
  EXPECT_FALSE(out.path.success);
  EXPECT_TRUE(out.path.nodes.empty());
  EXPECT_EQ(out.path_cost, 0.0);
}

// Every name the option lists parses to its enumerator, in order (the wiring's OneOf and the parse share them).
TEST(DangerWeightOption, NamesParseInOrderAndOthersAreRefused) {
  EXPECT_EQ(ParseDangerWeight("live"), DangerWeight::kLive);
  EXPECT_EQ(ParseDangerWeight("traversal_max"), DangerWeight::kTraversalMax);
  EXPECT_THROW(ParseDangerWeight("max"), std::invalid_argument);
}

}  // namespace
}  // namespace limbic::planner
