#include "services/laser_nav/heading_law.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

namespace limbic::laser {
namespace {

RangeScan Open() {
  RangeScan s;
  s.fill(250);
  return s;
}

TEST(HeadingLaw, LinearWeightOfEq41) {
  const ObstacleWeightOptions o;  // S − r over S − r_Robot, w_contact 1 at r ≤ 15
  EXPECT_DOUBLE_EQ(ObstacleWeight(132.5, 250, o), 0.5);
  EXPECT_DOUBLE_EQ(ObstacleWeight(16, 250, o), 234.0 / 235.0);
  EXPECT_DOUBLE_EQ(ObstacleWeight(15, 250, o), 1.0);
  EXPECT_DOUBLE_EQ(ObstacleWeight(0, 250, o), 1.0);
  EXPECT_DOUBLE_EQ(ObstacleWeight(250, 250, o), 0.0);
  EXPECT_DOUBLE_EQ(ObstacleWeight(120, 100, o), 0.0);  // beyond a reduced sensing distance S
  EXPECT_DOUBLE_EQ(ObstacleWeight(kNaN, 250, o), 0.0);
}

TEST(HeadingLaw, ContactAndDivergingForms) {
  ObstacleWeightOptions o;
  o.form = WeightForm::kLinearContact;
  EXPECT_DOUBLE_EQ(ObstacleWeight(20, 250, o), 1000.0);  // within r_Robot + 5
  EXPECT_DOUBLE_EQ(ObstacleWeight(21, 250, o), 229.0 / 235.0);
  o.form = WeightForm::kDiverging;
  EXPECT_DOUBLE_EQ(ObstacleWeight(25, 250, o), 22.5);  // (S − r)/(r − r_Robot)
  EXPECT_DOUBLE_EQ(ObstacleWeight(15.1, 250, o), 1000.0);
  EXPECT_DOUBLE_EQ(ObstacleWeight(10, 250, o), 1000.0);
  EXPECT_EQ(ParseWeightForm("diverging"), WeightForm::kDiverging);
  EXPECT_THROW(ParseWeightForm("cubic"), std::invalid_argument);
  o.k_obs = kNaN;
  EXPECT_THROW(ObstacleField{o}, std::invalid_argument);
}

TEST(HeadingLaw, ObstacleVectorSumsPerBeamRepulsion) {
  ObstacleField field;
  RangeScan s = Open();
  s[0] = 132;  // north, w = 118/235
  const Vec2 ov = field.Compute(s, 250);
  EXPECT_NEAR(ov.x, 0.0, 1e-12);
  EXPECT_NEAR(ov.y, -(118.0 / 235.0) * kPi / 180.0, 1e-12);  // −u(0) · w · k_obs
  s[90] = 132;                                               // and east: the sum points south-west
  EXPECT_NEAR(BearingOf(field.Compute(s, 250)), 225.0, 1e-9);
  EXPECT_NEAR(Norm(field.Compute(s, 100)), 0.0, 1e-12);  // S = 100: both beyond reach
  s.fill(100);                                           // a ring cancels out
  EXPECT_NEAR(Norm(field.Compute(s, 250)), 0.0, 1e-12);
}

TEST(HeadingLaw, GoalVectorAndResultant) {
  const Vec2 g = GoalVector({0, 0}, {30, 40});
  EXPECT_NEAR(g.x, 0.6, 1e-12);
  EXPECT_NEAR(g.y, 0.8, 1e-12);
  EXPECT_EQ(Norm(GoalVector({5, 5}, {5, 5})), 0.0);
  EXPECT_NEAR(ResultantHeading({1, 0}, 10.0), 90.0, 1e-12);
  EXPECT_NEAR(ResultantHeading({0, -2}, 10.0), 180.0, 1e-12);
  EXPECT_EQ(ResultantHeading({0, 0}, 10.0), 10.0);  // no resultant: keep the heading
  EXPECT_EQ(ResultantHeading({kNaN, 1}, 10.0), 10.0);
}

}  // namespace
}  // namespace limbic::laser
