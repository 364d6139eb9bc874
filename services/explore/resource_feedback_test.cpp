#include "services/explore/resource_feedback.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>

namespace limbic::explore {
namespace {

FeedbackOptions Options() {
  FeedbackOptions o;  // budget 1 core; lower above 0.9, raise below 0.6, aim for 0.75
  o.bounds[kPlanning] = {10.0, 1.0};
  o.bounds[kSensing] = {10.0, 5.0};
  o.bounds[kActuation] = {10.0, 10.0};  // never shed
  return o;
}

ExecutorLoad Load(double planning, double sensing, double actuation, double planning_hz = 10.0) {
  ExecutorLoad l;
  l.share = {planning, sensing, actuation};
  l.rate_hz = {planning_hz, 10.0, 10.0};
  return l;
}

TEST(ResourceFeedback, SaturatedPlanningIsSlowedFirst) {
  // 0.6 + 0.3 + 0.1 = 1.0 > 0.9: shed 0.25 of planning's 0.06 CPU s per call: 0.25/0.06 = 4.17 Hz off → 5.83 Hz.
  const RetuneResult r = Retune(Load(0.6, 0.3, 0.1), Options());
  EXPECT_TRUE(r.changed);
  EXPECT_NEAR(r.rate_hz[kPlanning], 10.0 - 0.25 / 0.06, 1e-12);
  EXPECT_DOUBLE_EQ(r.rate_hz[kSensing], 10.0);
  EXPECT_DOUBLE_EQ(r.rate_hz[kActuation], 10.0);
  EXPECT_NEAR(r.predicted_share, 0.75, 1e-12);
}

TEST(ResourceFeedback, ThenSensingAndNeverBelowTheMinimums) {
  // 0.5 + 0.8 + 0.2 = 1.5: excess 0.75. Planning down to its 1 Hz minimum sheds 9 × 0.05 = 0.45; sensing sheds the
  // remaining 0.30 at 0.08 per call: 3.75 Hz off → 6.25 Hz (above its 5 Hz minimum). Actuation untouched.
  const RetuneResult r = Retune(Load(0.5, 0.8, 0.2), Options());
  EXPECT_DOUBLE_EQ(r.rate_hz[kPlanning], 1.0);
  EXPECT_NEAR(r.rate_hz[kSensing], 6.25, 1e-12);
  EXPECT_DOUBLE_EQ(r.rate_hz[kActuation], 10.0);
  EXPECT_NEAR(r.predicted_share, 0.75, 1e-12);
  // More than the minimums allow: everything at its minimum, the share stays above target.
  const RetuneResult floor = Retune(Load(0.5, 2.0, 1.0), Options());
  EXPECT_DOUBLE_EQ(floor.rate_hz[kPlanning], 1.0);
  EXPECT_DOUBLE_EQ(floor.rate_hz[kSensing], 5.0);
  EXPECT_NEAR(floor.predicted_share, 0.05 + 1.0 + 1.0, 1e-12);
}

TEST(ResourceFeedback, HeadroomRestoresRatesTowardsNominal) {
  // Planning slowed to 2 Hz (0.1 share, 0.05 per call), total 0.4 < 0.6: room 0.35 → +7 Hz → 9 Hz (not 10).
  const RetuneResult r = Retune(Load(0.1, 0.2, 0.1, 2.0), Options());
  EXPECT_NEAR(r.rate_hz[kPlanning], 9.0, 1e-12);
  EXPECT_NEAR(r.predicted_share, 0.75, 1e-12);
  // Lots of room: back to nominal, no further.
  EXPECT_DOUBLE_EQ(Retune(Load(0.01, 0.1, 0.1, 2.0), Options()).rate_hz[kPlanning], 10.0);
}

TEST(ResourceFeedback, InsideTheBandNothingChanges) {
  const RetuneResult r = Retune(Load(0.4, 0.3, 0.1), Options());  // 0.8 in [0.6, 0.9]
  EXPECT_FALSE(r.changed);
  EXPECT_DOUBLE_EQ(r.rate_hz[kPlanning], 10.0);
}

TEST(ResourceFeedback, RejectsBadInput) {
  EXPECT_THROW(Retune(Load(-0.1, 0.3, 0.1), Options()), std::invalid_argument);
  EXPECT_THROW(Retune(Load(std::nan(""), 0.3, 0.1), Options()), std::invalid_argument);
  EXPECT_THROW(Retune(Load(0.1, 0.3, 0.1, 0.0), Options()), std::invalid_argument);
  FeedbackOptions o = Options();
  o.low = 0.8;  // above target
  EXPECT_THROW(Retune(Load(0.1, 0.3, 0.1), o), std::invalid_argument);
  o = Options();
  o.bounds[kSensing] = {4.0, 5.0};  // min above nominal
  EXPECT_THROW(Validate(o), std::invalid_argument);
}

}  // namespace
}  // namespace limbic::explore
