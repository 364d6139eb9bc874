#include "services/laser_nav/case_library.hpp"

#include <gtest/gtest.h>

namespace limbic::laser {
namespace {

EnvironmentInfo Env(int clutter, double density_pct, int proximity, double wander, bool nomovement) {
  EnvironmentInfo e;
  e.clutter = clutter;
  e.density_pct = density_pct;
  e.proximity = proximity;
  e.wander = wander;
  e.nomovement = nomovement;
  return e;
}

TEST(CaseLibrary, AppendixAExactly) {
  const CaseLibrary c = AppendixA();
  ASSERT_EQ(c.size(), 8u);
  const char* names[] = {"Clearfield", "Ballooning", "Squeezing", "Hugging",
                         "Shooting",   "Random",     "Repulsion", "Wallcrawling"};
  for (int i = 0; i < 8; ++i) EXPECT_EQ(c[i].name, names[i]);
  // Index table.
  EXPECT_EQ(c[1].clutter, 2);
  EXPECT_EQ(c[1].density, 35);
  EXPECT_EQ(c[1].wander, 0.05);
  EXPECT_EQ(c[1].clear_to_goal, 1);
  EXPECT_EQ(c[1].goal_nearby, 0);
  EXPECT_EQ(c[3].density, 54);
  EXPECT_EQ(c[3].wander, 0.45);
  EXPECT_EQ(c[4].senses_goal, 1);
  EXPECT_EQ(c[5].nomovement, 1);
  EXPECT_EQ(c[6].density, 80);
  EXPECT_EQ(c[6].wander, 0.9);
  // Parameter table.
  EXPECT_EQ(c[2].gg, 7);
  EXPECT_EQ(c[2].egg, 6);
  EXPECT_EQ(c[3].tgg, 2);
  EXPECT_EQ(c[3].ng, 1);
  EXPECT_EQ(c[5].ng, 5);
  EXPECT_EQ(c[5].og, 6);
  EXPECT_EQ(c[6].gg, -3);
  EXPECT_EQ(c[6].s_cm, 150);
  EXPECT_EQ(c[7].s_cm, 45);
  EXPECT_EQ(c[7].tgg, 9);
  for (const Case& k : c) EXPECT_EQ(k.np, 250);
}

TEST(CaseLibrary, GoodnessOfMatchEq48) {
  const CaseLibrary c = AppendixA();
  const MatchOptions o;
  // A perfect Clearfield: every term 1, Nomovement counts twice.
  EXPECT_DOUBLE_EQ(GoodnessOfMatch(c[0], Env(0, 0, -1, 0, false), o), 9.0);
  // Clutter one off: 1 − 1/3; three off: 0 (Eq. 4-8).
  EXPECT_DOUBLE_EQ(GoodnessOfMatch(c[0], Env(1, 0, -1, 0, false), o), 8.0 + 2.0 / 3.0);
  EXPECT_DOUBLE_EQ(GoodnessOfMatch(c[0], Env(3, 0, -1, 0, false), o), 8.0);
  EXPECT_DOUBLE_EQ(GoodnessOfMatch(c[0], Env(9, 0, -1, 0, false), o), 8.0);
  // Density 15 % off: half; Proximity one step off: half; Wander 0.15 off: half.
  EXPECT_DOUBLE_EQ(GoodnessOfMatch(c[0], Env(0, 15, 0, 0.15, false), o), 9.0 - 1.5);
  // Nomovement wrong costs 2.
  EXPECT_DOUBLE_EQ(GoodnessOfMatch(c[0], Env(0, 0, -1, 0, true), o), 7.0);
  // Ballooning wants Clear-to-goal 1 and Goal-nearby 0 (A8: −1 don't care).
  EnvironmentInfo e = Env(2, 35, 0, 0.05, false);
  EXPECT_DOUBLE_EQ(GoodnessOfMatch(c[1], e, o), 8.0);
  e.clear_to_goal = true;
  EXPECT_DOUBLE_EQ(GoodnessOfMatch(c[1], e, o), 9.0);
  e.goal_nearby = true;
  EXPECT_DOUBLE_EQ(GoodnessOfMatch(c[1], e, o), 8.0);
  // The other reading of A8: −1 false, 1 true, 0 don't care.
  MatchOptions zero = o;
  zero.binaries = BinaryEncoding::kZeroDontCare;
  EXPECT_DOUBLE_EQ(GoodnessOfMatch(c[1], e, zero), 9.0);  // senses −1 = false: matches; nearby 0: don't care
  e.senses_goal = true;
  EXPECT_DOUBLE_EQ(GoodnessOfMatch(c[1], e, zero), 8.0);
}

TEST(CaseLibrary, SelectsTheBestMatch) {
  const CaseLibrary c = AppendixA();
  const MatchOptions o;
  EXPECT_EQ(SelectCase(c, Env(0, 0, -1, 0, false), -1, o), 0);  // Clearfield
  EnvironmentInfo shooting = Env(5, 45, 0, 0.1, false);
  shooting.senses_goal = true;
  EXPECT_EQ(c[SelectCase(c, shooting, -1, o)].name, "Shooting");
  std::vector<double> gom;
  EXPECT_EQ(c[SelectCase(c, Env(5, 75, 1, 0.65, true), -1, o, &gom)].name, "Random");
  EXPECT_DOUBLE_EQ(gom[5], 9.0);
  EXPECT_EQ(gom[7], -1.0);  // Wallcrawling is not matched
  EXPECT_EQ(c[SelectCase(c, Env(3, 80, 1, 0.9, true), -1, o)].name, "Repulsion");
  EXPECT_EQ(c[SelectCase(c, Env(6, 54, 1, 0.45, false), -1, o)].name, "Hugging");
}

TEST(CaseLibrary, WallcrawlingByRuleFromHugging) {
  const CaseLibrary c = AppendixA();
  const MatchOptions o;
  const EnvironmentInfo stuck = Env(6, 54, 1, 0.1, true);
  EXPECT_EQ(c[SelectCase(c, stuck, 3, o)].name, "Wallcrawling");
  EXPECT_EQ(c[SelectCase(c, Env(6, 54, 1, 0.45, false), 3, o)].name, "Wallcrawling");  // Wander ≥ 0.45
  EXPECT_NE(c[SelectCase(c, Env(6, 54, 1, 0.44, false), 3, o)].name, "Wallcrawling");
  EXPECT_NE(c[SelectCase(c, stuck, 2, o)].name, "Wallcrawling");  // not from Squeezing
  // A9 literal: the table's all-zero index matches an all-zero environment best.
  MatchOptions literal = o;
  literal.wallcrawl_literal_match = true;
  EXPECT_EQ(c[SelectCase(c, Env(0, 0, 0, 0, false), -1, literal)].name, "Wallcrawling");
  EXPECT_EQ(c[SelectCase(c, Env(0, 0, 0, 0, false), -1, o)].name, "Clearfield");
}

// The optional escape (off by default): Random or Repulsion that left the robot still → Wallcrawling.
TEST(CaseLibrary, WallcrawlingWhenRandomOrRepulsionLeftTheRobotStuck) {
  const CaseLibrary c = AppendixA();
  MatchOptions o;
  const EnvironmentInfo stuck = Env(5, 75, 1, 0.0, true);
  EXPECT_EQ(c[SelectCase(c, stuck, 5, o)].name, "Random");  // default: the lock of the known limits
  o.wallcrawl_when_stuck = true;
  EXPECT_EQ(c[SelectCase(c, stuck, 5, o)].name, "Wallcrawling");                      // from Random
  EXPECT_EQ(c[SelectCase(c, stuck, 6, o)].name, "Wallcrawling");                      // from Repulsion
  EXPECT_NE(c[SelectCase(c, Env(5, 75, 1, 0.0, false), 5, o)].name, "Wallcrawling");  // moving again
  EXPECT_EQ(c[SelectCase(c, stuck, 2, o)].name, "Random");  // not from Squeezing: Random first
  EXPECT_EQ(c[SelectCase(c, stuck, -1, o)].name, "Random");
}

TEST(CaseLibrary, TiesGoToTheLowerCaseNumber) {
  CaseLibrary twins = {AppendixA()[4], AppendixA()[4]};
  twins[1].name = "Twin";
  EXPECT_EQ(SelectCase(twins, Env(5, 45, 0, 0.1, false), -1, MatchOptions{}), 0);
}

TEST(CaseLibrary, NoisePersistenceUnit) {
  const CaseLibrary c = AppendixA();
  MatchOptions o;
  EXPECT_DOUBLE_EQ(GainsOf(c[5], o).np_s, 2.5);  // A6: 250 control cycles
  o.np_unit_s = 0.1;                             // the appendix's "tenths of a second"
  EXPECT_DOUBLE_EQ(GainsOf(c[5], o).np_s, 25.0);
  const ControlGains g = GainsOf(c[6], MatchOptions{});
  EXPECT_EQ(g.gg, -3);
  EXPECT_EQ(g.s_cm, 150);
  EXPECT_EQ(g.egg, 6);
}

}  // namespace
}  // namespace limbic::laser
