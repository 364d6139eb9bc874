#include "services/affect/stimuli.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <numbers>
#include <random>
#include <vector>

namespace limbic::affect {
namespace {

using geometry::Vec2;
constexpr double kPi = std::numbers::pi;

TEST(AffectStimuliTest, NormaliseIsClampedLinear) {
  EXPECT_EQ(NormaliseStimulus(0.05, 0.1, 0.2), 0.0);
  EXPECT_DOUBLE_EQ(NormaliseStimulus(0.15, 0.1, 0.2), 0.5);
  EXPECT_EQ(NormaliseStimulus(0.3, 0.1, 0.2), 1.0);
  EXPECT_DOUBLE_EQ(NormaliseStimulus(0.4, 0.3, 0.5), 0.5);  // error thresholds
}

TEST(AffectStimuliTest, DampUsesGrowthWhenRisingAndDecayOtherwise) {
  EXPECT_DOUBLE_EQ(DampStimulus(1.0, 0.0, 0.1, 0.05), 0.1);    // rising: α_1
  EXPECT_DOUBLE_EQ(DampStimulus(0.0, 0.5, 0.1, 0.05), 0.475);  // falling: α_2
  EXPECT_DOUBLE_EQ(DampStimulus(0.8, 0.2, 1.0, 0.01), 0.8);    // α = 1: undamped
  EXPECT_DOUBLE_EQ(DampStimulus(0.3, 0.3, 0.1, 0.05), 0.3);    // equal: decay branch, unchanged
}

TEST(AffectStimuliTest, DampingFactorRescalesToTheControlPeriod) {
  EXPECT_DOUBLE_EQ(RescaleDampingFactor(0.1, 0.1, 0.1), 0.1);
  EXPECT_DOUBLE_EQ(RescaleDampingFactor(0.1, 0.2, 0.1), 1.0 - 0.9 * 0.9);
  EXPECT_EQ(RescaleDampingFactor(1.0, 0.05, 0.1), 1.0);
  // One 0.2 s step decays exactly like two 0.1 s steps.
  const double a2 = RescaleDampingFactor(0.05, 0.2, 0.1);
  const double two_small = DampStimulus(0.0, DampStimulus(0.0, 1.0, 1, 0.05), 1, 0.05);
  EXPECT_NEAR(DampStimulus(0.0, 1.0, 1, a2), two_small, 1e-15);
}

TEST(AffectStimuliTest, DangerBiasesTowardsTheFrontAndClamps) {
  // D_o = {3/1.5 + 0, 0.75/1.5 + 0.5·0.5, 0.3/1.5 + 0.5·1} = {2, 0.75, 0.7} → 1 − 0.7 = 0.3.
  const std::vector<double> headings{0.0, kPi / 2, -kPi};
  const std::vector<double> distances{3.0, 0.75, 0.3};
  EXPECT_NEAR(DangerStimulus(headings, distances, 0.0, 0.5, 1.5), 0.3, 1e-12);
  // Heading wraps: robot at π − 0.1 faces candidate −π (0.1 rad apart): D_o = 0.2 + 0.5·0.1/π.
  EXPECT_NEAR(DangerStimulus(headings, distances, kPi - 0.1, 0.5, 1.5), 1.0 - (0.2 + 0.05 / kPi), 1e-12);
  const std::vector<double> far{3.0, 3.0, 3.0};
  EXPECT_EQ(DangerStimulus(headings, far, 0.0, 0.5, 1.5), 0.0);  // 1 − 2 clamped to 0
  const std::vector<double> touching{0.0, 3.0, 3.0};
  EXPECT_EQ(DangerStimulus(headings, touching, 0.0, 0.5, 1.5), 1.0);
  EXPECT_EQ(DangerStimulus({}, {}, 0.0, 0.5, 1.5), 0.0);
}

TEST(AffectStimuliTest, StuckIsNetDisplacementOverTheWindow) {
  StuckWindowState state;
  EXPECT_EQ(StuckStimulus(0.0, 0.5, 0.0, 30.0, &state), 0.5);  // no history yet: |v|
  double raw = 0.0;
  for (int k = 1; k <= 100; ++k) raw = StuckStimulus(k * 0.1, 0.5, 0.0, 30.0, &state);
  EXPECT_NEAR(raw, 0.5, 1e-12);  // first 30 s: divided by elapsed time (spec §8 item 23)

  // 0.4 m/s heading 0 for 15 s, then heading π. At t = 40 s the window [10, 40] holds 5 s forward
  // (+2 m) and 25 s back (−10 m): |−8| / 30 = 0.2667.
  StuckWindowState back_and_forth;
  for (int k = 0; k <= 400; ++k) {
    raw = StuckStimulus(k * 0.1, 0.4, k < 150 ? 0.0 : kPi, 30.0, &back_and_forth);
  }
  EXPECT_NEAR(raw, 8.0 / 30.0, 1e-9);
  EXPECT_EQ(back_and_forth.segments.size(), 300u);
  // At t = 30 s: 15 s forward and 15 s back → no net motion.
  StuckWindowState oscillating;
  for (int k = 0; k <= 300; ++k) raw = StuckStimulus(k * 0.1, 0.4, k < 150 ? 0.0 : kPi, 30.0, &oscillating);
  EXPECT_NEAR(raw, 0.0, 1e-9);
}

// A refused cycle's rollback (AffectEngine::Step) puts the window back as it was, whatever the call did: append a
// segment, drop some or all from the front, drop the one it appended too (a jump past the whole window), append
// nothing (time standing still or going back), on an empty window and a full one.
TEST(AffectStimuliTest, StuckWindowUndoRestoresTheWindowExactly) {
  std::mt19937_64 rng(18);
  std::uniform_real_distribution<double> speed(-0.5, 0.5), heading(-kPi, kPi);
  std::uniform_int_distribution<int> kind(0, 9);
  StuckWindowState state;
  StuckWindowUndo undo;
  double t = 0.0;
  int appended_and_dropped = 0, went_back = 0, emptied = 0;
  for (int k = 0; k < 3000; ++k) {
    const int what = kind(rng);
    const double next = what == 0 ? t + 45.0 : what == 1 ? t - 0.3 : what == 2 ? t : t + 0.1;  // jump, back, still
    const StuckWindowState before = state;
    StuckStimulus(next, speed(rng), heading(rng), 30.0, &state, &undo);
    const StuckWindowState after = state;
    undo.Restore(&state);
    ASSERT_EQ(state, before) << "step " << k << " (kind " << what << ")";
    appended_and_dropped += what == 0 && before.has_last;
    went_back += what == 1;
    emptied += !before.segments.empty() && after.segments.empty();
    // Half of the time the cycle stands, as an accepted one does.
    if (k % 2 == 0) {
      state = after;
      t = next;
    }
  }
  EXPECT_GT(appended_and_dropped, 10);
  EXPECT_GT(went_back, 10);
  EXPECT_GT(emptied, 10);
}

// Each segment's displacement term is computed once, when the segment is made (issue 18); the stimulus must keep
// the bits of summing dt·speed·(cos, sin)(heading) afresh every cycle, the form written out here as the oracle.
TEST(AffectStimuliTest, StuckKeepsTheBitsOfSummingEveryTermAfresh) {
  auto oracle = [](const StuckWindowState& state, double speed) {
    Vec2 displacement = Vec2::Zero();
    double elapsed = 0.0;
    for (const StuckSegment& s : state.segments) {
      displacement += s.dt * s.speed * geometry::UnitVector(s.heading);
      elapsed += s.dt;
    }
    return elapsed <= 0.0 ? std::abs(speed) : displacement.norm() / elapsed;
  };
  std::mt19937_64 rng(18);
  std::uniform_real_distribution<double> speed(-0.6, 0.6), heading(-4.0, 4.0), dt(0.05, 0.15);
  StuckWindowState state;
  double t = 0.0;
  for (int k = 0; k < 1000; ++k) {
    t += dt(rng);
    const double v = speed(rng);
    const double raw = StuckStimulus(t, v, heading(rng), 7.5, &state);
    ASSERT_EQ(raw, oracle(state, v)) << "cycle " << k;
  }
  // A segment made from its four values (as a restored snapshot makes it) carries the same term.
  const StuckSegment& last = state.segments.back();
  const StuckSegment copy{last.t_start, last.dt, last.speed, last.heading};
  EXPECT_EQ(copy, last);
  EXPECT_EQ(StuckSegment{}.displacement(), Vec2::Zero());
}

TEST(AffectStimuliTest, PainIsTheSpeedAtTheCollision) {
  CollisionEvent c;
  c.speed_before = 0.3;
  EXPECT_EQ(PainStimulus(c), 0.0);
  c.occurred = true;
  c.new_event = true;
  EXPECT_DOUBLE_EQ(PainStimulus(c), 0.3);
  c.speed_before = -0.2;
  EXPECT_DOUBLE_EQ(PainStimulus(c), 0.2);
  // Still in contact with the same object (no new collision event): no new pain.
  c.new_event = false;
  EXPECT_EQ(PainStimulus(c), 0.0);
}

TEST(AffectStimuliTest, AchievementIsProgressRate) {
  EXPECT_DOUBLE_EQ(AchievementStimulus(5.0, 3.0, 2.0, 10.0), 0.25);
  EXPECT_DOUBLE_EQ(AchievementStimulus(5.0, 6.0, 0.0, 10.0), -0.1);
  EXPECT_EQ(AchievementStimulus(5.0, 5.0, 2.0, 2.0), 0.0);
}

TEST(AffectStimuliTest, LearningIsMeanExplorationOverTime) {
  EXPECT_DOUBLE_EQ(LearningStimulus(0.1, 50.0), 0.002);
  EXPECT_EQ(LearningStimulus(0.1, 0.0), 0.0);
}

TEST(AffectStimuliTest, MismatchWeightsUnexpectedOccupancyMore) {
  // (s_o 1, p_o 0.2): w = 1, |0.8|; (s_o 0, p_o 0.6): w = 0.5, |0.6| → (0.8 + 0.3)/1.5.
  const std::vector<UpdatedCell> cells{{0, 1.0, 0.2}, {1, 0.0, 0.6}};
  EXPECT_DOUBLE_EQ(MismatchStimulus(cells, 0.5, 1.0), 1.1 / 1.5);
  EXPECT_EQ(MismatchStimulus({}, 0.5, 1.0), 0.0);
}

TEST(AffectStimuliTest, ErrorIsDistanceFromSwitchToNearestIrPoint) {
  CollisionEvent c;
  const std::vector<Vec2> switches{{1.0, 0.0}, {0.0, 1.0}};
  const std::vector<Vec2> ir{{1.3, 0.0}, {2.0, 2.0}, {0.0, 1.6}};
  EXPECT_EQ(ErrorStimulus(c, switches, ir, 3.0), 0.0);
  c.occurred = true;
  EXPECT_NEAR(ErrorStimulus(c, switches, ir, 3.0), 0.3, 1e-12);  // nearest over both switches
  EXPECT_EQ(ErrorStimulus(c, switches, {}, 3.0), 3.0);
  c.contact_point = {2.0, 2.5};
  EXPECT_NEAR(ErrorStimulus(c, {}, ir, 3.0), 0.5, 1e-12);  // no switch positions → contact point
}

// The affect service places the IR points only when ErrorStimulus reads them: whatever points it would have
// placed without a collision, the stimulus is the same.
TEST(AffectStimuliTest, IrPointsAreReadOnlyAtACollision) {
  CollisionEvent c;
  c.contact_point = {1.0, 0.0};
  const std::vector<Vec2> ir{{1.3, 0.0}, {0.0, 1.6}};
  EXPECT_FALSE(ErrorStimulusReadsIrPoints(c));
  EXPECT_EQ(ErrorStimulus(c, {}, ir, 3.0), ErrorStimulus(c, {}, {}, 3.0));
  c.occurred = true;
  EXPECT_TRUE(ErrorStimulusReadsIrPoints(c));
  EXPECT_NE(ErrorStimulus(c, {}, ir, 3.0), ErrorStimulus(c, {}, {}, 3.0));
}

TEST(AffectStimuliTest, CollisionSwitchPointsSitOnTheRim) {
  CollisionEvent c;
  c.occurred = true;
  c.sensor_ids = {0, 2};
  const auto points = CollisionSwitchPoints({1.0, 2.0, kPi / 2}, c, 0.35);
  ASSERT_EQ(points.size(), 2u);
  EXPECT_NEAR(points[0].x(), 1.0, 1e-12);
  EXPECT_NEAR(points[0].y(), 2.35, 1e-12);
  EXPECT_NEAR(points[1].x(), 0.65, 1e-12);  // switch 2 is 90° left of the heading
  EXPECT_NEAR(points[1].y(), 2.0, 1e-12);
}

}  // namespace
}  // namespace limbic::affect
