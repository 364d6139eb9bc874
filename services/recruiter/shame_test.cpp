// SHAME update (spec affective-recruitment §3.4) against the worked traces of §3.5 and the test plan
// of §9.8: decay, strict threshold, reset, clamps, override, busy accrual.
#include "services/recruiter/shame.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

namespace limbic::recruit {
namespace {

constexpr double kDelta = 5.0;  // Δ

// The 1-based index of the HELP (one every `retry_s`) that a robot at ETA `eta` answers.
int AnsweredAt(const FitnessModel& fitness, double eta, double retry_s = kDelta) {
  ShameEngine engine({.fitness = fitness});
  for (int help = 1; help <= 100; ++help) {
    if (engine.OnHelp((help - 1) * retry_s, true, true, eta).decision == Decision::kAccept) return help;
  }
  return -1;
}

TEST(Shame, LinearDistanceOneTraceMatchesSpec) {
  ShameEngine engine({.fitness = FitnessModel::Linear()});
  ShameDecision d = engine.OnHelp(0.0, true, true, 1.0);  // HELP#1: 0 → 0.7
  EXPECT_EQ(d.decision, Decision::kIgnore);
  EXPECT_DOUBLE_EQ(d.shame_after_decay, 0.0);
  EXPECT_DOUBLE_EQ(d.shame_after, 0.7);
  d = engine.OnHelp(5.0, true, true, 1.0);  // #2: 0.675 → 1.0 (clamped from 1.375)
  EXPECT_EQ(d.decision, Decision::kIgnore);
  EXPECT_DOUBLE_EQ(d.shame_after_decay, 0.675);
  EXPECT_DOUBLE_EQ(d.shame_after, 1.0);
  d = engine.OnHelp(10.0, true, true, 1.0);  // #3: 0.975 > 0.75 → ACCEPT, reset
  EXPECT_EQ(d.decision, Decision::kAccept);
  EXPECT_DOUBLE_EQ(d.shame_after_decay, 0.975);
  EXPECT_DOUBLE_EQ(d.shame_after, 0.0);
}

TEST(Shame, LinearDistanceFiveTraceMatchesSpec) {
  ShameEngine engine({.fitness = FitnessModel::Linear()});
  const double before[] = {0.0, 0.275, 0.55, 0.825};
  const double after[] = {0.3, 0.575, 0.85};
  for (int i = 0; i < 3; ++i) {
    const ShameDecision d = engine.OnHelp(5.0 * i, true, true, 5.0);
    EXPECT_EQ(d.decision, Decision::kIgnore) << "HELP#" << i + 1;
    EXPECT_NEAR(d.shame_after_decay, before[i], 1e-12);
    EXPECT_NEAR(d.shame_after, after[i], 1e-12);
  }
  const ShameDecision d = engine.OnHelp(15.0, true, true, 5.0);
  EXPECT_EQ(d.decision, Decision::kAccept);
  EXPECT_NEAR(d.shame_after_decay, before[3], 1e-12);
}

TEST(Shame, LinearDistanceFiftyAnswersAtSixthHelpWithSpecValues) {
  ShameEngine engine({.fitness = FitnessModel::Linear()});
  const double before[] = {0.0, 0.185, 0.37, 0.555, 0.74};
  const double after[] = {0.21, 0.395, 0.58, 0.765, 0.95};
  for (int i = 0; i < 5; ++i) {
    const ShameDecision d = engine.OnHelp(5.0 * i, true, true, 50.0);
    EXPECT_EQ(d.decision, Decision::kIgnore) << "HELP#" << i + 1;  // 0.74 is not > 0.75
    EXPECT_NEAR(d.shame_after_decay, before[i], 1e-12);
    EXPECT_NEAR(d.shame_after, after[i], 1e-12);
  }
  EXPECT_EQ(engine.OnHelp(25.0, true, true, 50.0).decision, Decision::kAccept);
}

TEST(Shame, AnswerIndexPerDistanceMatchesSpecTable) {
  const FitnessModel lin = FitnessModel::Linear(), sq = FitnessModel::InverseSquare();
  EXPECT_EQ(AnsweredAt(lin, 1.0), 3);
  EXPECT_EQ(AnsweredAt(lin, 5.0), 4);
  EXPECT_EQ(AnsweredAt(lin, 10.0), 5);
  EXPECT_EQ(AnsweredAt(lin, 20.0), 5);
  EXPECT_EQ(AnsweredAt(lin, 50.0), 6);
  EXPECT_EQ(AnsweredAt(sq, 1.0), 2);
  EXPECT_EQ(AnsweredAt(sq, 2.0), 2);
  EXPECT_EQ(AnsweredAt(sq, 3.0), 3);
  EXPECT_EQ(AnsweredAt(sq, 5.0), 4);
  EXPECT_EQ(AnsweredAt(sq, 10.0), 5);
  EXPECT_EQ(AnsweredAt(sq, 20.0), 6);  // exactly 0.75 after HELP#4 decay: strict '>' says no
  EXPECT_EQ(AnsweredAt(sq, 60.0), 6);
  EXPECT_EQ(AnsweredAt(FitnessModel::Zero(), 30.0), 6);
  // With Δ = 3 s (§3.5 last paragraph): D = 50 answers at #5, D = 1 still at #3.
  EXPECT_EQ(AnsweredAt(lin, 50.0, 3.0), 5);
  EXPECT_EQ(AnsweredAt(lin, 1.0, 3.0), 3);
}

TEST(Shame, DecayClampsAtZeroAndResidualCarriesOver) {
  ShameEngine engine({.fitness = FitnessModel::Linear()});
  engine.OnHelp(0.0, true, true, 10.0);  // 0.25
  EXPECT_NEAR(engine.ShameAt(20.0), 0.15, 1e-12);
  EXPECT_NEAR(engine.state().shame, 0.25, 1e-12) << "ShameAt must not change the state";
  EXPECT_DOUBLE_EQ(engine.ShameAt(1000.0), 0.0);
  const ShameDecision d = engine.OnHelp(1000.0, true, true, 10.0);
  EXPECT_DOUBLE_EQ(d.shame_after_decay, 0.0);  // clamp at 0, never negative
  EXPECT_NEAR(d.shame_after, 0.25, 1e-12);
}

TEST(Shame, IneligibleRobotNeitherAccruesNorDecays) {
  ShameEngine engine;
  for (int i = 0; i < 10; ++i) EXPECT_EQ(engine.OnHelp(i, false, true, 1.0).decision, Decision::kIneligible);
  EXPECT_DOUBLE_EQ(engine.state().shame, 0.0);
  EXPECT_FALSE(engine.state().last_help_s.has_value());
}

TEST(Shame, BusyRobotAccruesOnlyWithRuleBAndNeverAccepts) {
  ShameEngine accrue({.accrue_while_busy = true});
  ShameEngine no_accrue({.accrue_while_busy = false});
  for (int i = 0; i < 8; ++i) {
    EXPECT_EQ(accrue.OnHelp(5.0 * i, true, false, 1.0).decision, Decision::kIgnore);
    EXPECT_EQ(no_accrue.OnHelp(5.0 * i, true, false, 1.0).decision, Decision::kIgnore);
  }
  EXPECT_GT(accrue.state().shame, 0.75);  // ready to answer as soon as it is free
  EXPECT_DOUBLE_EQ(no_accrue.state().shame, 0.0);
  EXPECT_EQ(accrue.OnHelp(40.0, true, true, 1.0).decision, Decision::kAccept);
}

TEST(Shame, NegativeThresholdOverrideIsGreedy) {
  ShameEngine engine;
  for (int i = 0; i < 3; ++i) EXPECT_EQ(engine.OnHelp(5.0 * i, true, true, 80.0, -1.0).decision, Decision::kAccept);
}

TEST(Shame, FitnessTermsAreGuardedAndClamped) {
  EXPECT_DOUBLE_EQ(FitnessModel::Linear()(0.0), 1.0);
  EXPECT_DOUBLE_EQ(FitnessModel::Linear()(0.25), 1.0);
  EXPECT_DOUBLE_EQ(FitnessModel::Linear()(10.0), 0.05);
  EXPECT_DOUBLE_EQ(FitnessModel::InverseSquare()(10.0), 0.025);
  EXPECT_DOUBLE_EQ(FitnessModel::InverseSquare()(1.0), 1.0);
  EXPECT_DOUBLE_EQ(FitnessModel::Linear()(std::numeric_limits<double>::quiet_NaN()), 0.0);
  // Heuristic (§3.6) with t = 0.75, m_ideal = 10, l = 4, k(Δ) = 0.025: at m_i = m_ideal the second
  // HELP finds s = t·m_ideal/m_i = 0.75 exactly, below t; nearer robots answer at the second call.
  FitnessModel h{.kind = FitnessModel::Kind::kHeuristic};
  EXPECT_NEAR(h(10.0), 0.75 - 0.1875 + 0.025, 1e-12);
  EXPECT_DOUBLE_EQ(h(1000.0), 0.0);  // clamped at 0
  EXPECT_EQ(ParseFitnessKind("nonlinear"), FitnessModel::Kind::kInverseSquare);
  EXPECT_THROW(ParseFitnessKind("cubic"), std::invalid_argument);
}

TEST(Shame, RejectsParametersThatBreakTheModel) {
  EXPECT_THROW(ShameEngine({.threshold = 1.0}), std::invalid_argument);
  EXPECT_THROW(ShameEngine({.threshold = std::nan("")}), std::invalid_argument);
  EXPECT_THROW(ShameEngine({.c = 0.0}), std::invalid_argument);
  EXPECT_THROW(ShameEngine({.decay_per_s = -0.1}), std::invalid_argument);
  EXPECT_TRUE(ShameEngine().GuaranteesResponse(5.0));    // 0.2 > 0.025
  EXPECT_FALSE(ShameEngine().GuaranteesResponse(50.0));  // 0.2 < 0.25
}

}  // namespace
}  // namespace limbic::recruit
