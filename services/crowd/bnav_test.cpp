#include "services/crowd/bnav.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <stdexcept>
#include <vector>

#include "common/geometry/geometry.hpp"

namespace limbic::crowd {
namespace {

using geometry::kNaN;
using geometry::kPi;
using geometry::Segment;

TEST(BNavFreeDistance, WallsAndInflatedNeighbours) {
  // A wall x = 3 (y −1..1) ahead of a robot of radius 0.5 at the origin: its edge touches after 3 − 0.5 = 2.5 m.
  const std::vector<Segment> wall{{{3, -1}, {3, 1}}};
  EXPECT_NEAR(FreeDistance({0, 0}, {1, 0}, 0.5, 0.0, 10, {}, wall), 2.5, 1e-12);
  EXPECT_NEAR(FreeDistance({0, 0}, {1, 0}, 0.5, 0.0, 2.0, {}, wall), 2.0, 1e-12);  // capped at H
  EXPECT_NEAR(FreeDistance({0, 0}, {-1, 0}, 0.5, 0.0, 10, {}, wall), 10, 1e-12);   // nothing behind
  // A neighbour at (4, 0), r_a = 0.5, margin m_a = 0.2, own radius 0.5: R = 1.2, contact at 4 − 1.2 = 2.8.
  const std::vector<Neighbour> ahead{{{4, 0}, {0, 0}, 0.5, 0}};
  EXPECT_NEAR(FreeDistance({0, 0}, {1, 0}, 0.5, 0.2, 10, ahead, {}), 2.8, 1e-12);
  // Its extra margin 0.3 (it looks frustrated): R = 1.5, contact at 2.5.
  const std::vector<Neighbour> wide{{{4, 0}, {0, 0}, 0.5, 0.3}};
  EXPECT_NEAR(FreeDistance({0, 0}, {1, 0}, 0.5, 0.2, 10, wide, {}), 2.5, 1e-12);
  // Off-axis at (4, 1): (x − 4)² + 1² = 1.2² → x = 4 − √0.44 = 3.33668.
  const std::vector<Neighbour> side{{{4, 1}, {0, 0}, 0.5, 0}};
  EXPECT_NEAR(FreeDistance({0, 0}, {1, 0}, 0.5, 0.2, 10, side, {}), 4 - std::sqrt(0.44), 1e-12);
  // Touching a wall: 0 towards it, free away from it.
  EXPECT_NEAR(FreeDistance({2.7, 0}, {1, 0}, 0.5, 0.0, 10, {}, wall), 0.0, 1e-12);
  EXPECT_NEAR(FreeDistance({2.7, 0}, {-1, 0}, 0.5, 0.0, 10, {}, wall), 10.0, 1e-12);
}

TEST(BNavReachableDistance, NeighboursKeepTheirVelocities) {
  // Robot at 1 m/s along +x; neighbour at (4, 0), R = 1.2 (as above).
  // Moving away at 0.5 m/s: relative speed 0.5, gap 2.8 → t = 5.6 s, f = 1 · 5.6 = 5.6 m (capped at H = 5).
  const std::vector<Neighbour> away{{{4, 0}, {0.5, 0}, 0.5, 0}};
  EXPECT_NEAR(ReachableDistance({0, 0}, {1, 0}, 1.0, 0.5, 0.2, 10, away, {}), 5.6, 1e-12);
  EXPECT_NEAR(ReachableDistance({0, 0}, {1, 0}, 1.0, 0.5, 0.2, 5, away, {}), 5.0, 1e-12);
  // Coming head-on at 0.5 m/s: relative 1.5 → t = 2.8 / 1.5 = 1.8667 s, f = 1.8667 m (D would say 2.8).
  const std::vector<Neighbour> toward{{{4, 0}, {-0.5, 0}, 0.5, 0}};
  EXPECT_NEAR(ReachableDistance({0, 0}, {1, 0}, 1.0, 0.5, 0.2, 10, toward, {}), 2.8 / 1.5, 1e-12);
  // Crossing ahead from (4, −3) northwards at 1 m/s, robot also at 1 m/s: w(t) = (−4 + t, 3 − t), |w|² = 1.44 →
  // 2t² − 14t + 25 − 1.44 = 0 → t = (14 − √(196 − 188.48)) / 4 = (14 − 2.7423) / 4 = 2.81443 s.
  const std::vector<Neighbour> crossing{{{4, -3}, {0, 1}, 0.5, 0}};
  EXPECT_NEAR(ReachableDistance({0, 0}, {1, 0}, 1.0, 0.5, 0.2, 10, crossing, {}), (14 - std::sqrt(7.52)) / 4, 1e-12);
  // A waiting robot (speed 0) goes nowhere before the head-on neighbour reaches it: f = 0.
  EXPECT_NEAR(ReachableDistance({0, 0}, {1, 0}, 0.0, 0.5, 0.2, 10, toward, {}), 0.0, 1e-12);
}

BNavParams Params() {
  BNavParams p;
  p.optimal_speed = 0.5;
  p.caution = 1.0;
  p.margin = 0.1;
  p.half_fov = kPi / 2;
  p.horizon = 4.0;
  p.tau = 0.5;
  p.directions = 72;
  p.radius = 0.35;
  return p;
}

TEST(BNavDecide, StraightToTheTargetWithNoObstacles) {
  BNavInput in;
  in.target = {3, 0};
  const BNavDecision d = Decide(in, Params(), 0.1);
  EXPECT_TRUE(d.clear);
  EXPECT_NEAR(d.desired_heading, 0.0, 1e-12);
  EXPECT_NEAR(d.desired_speed, 0.5, 1e-12);
  // Eq. 3 from rest over dt = 0.1 s, τ = 0.5 s: v = 0.5 (1 − e^−0.2) = 0.0906346.
  EXPECT_NEAR(d.speed, 0.5 * (1 - std::exp(-0.2)), 1e-12);
  EXPECT_NEAR(d.turn_rate, 0.0, 1e-12);
  // A target behind (outside the FOV): still straight for it — the robot turns on the spot first (cos < 0 → v_des 0).
  in.target = {-3, 0.1};
  const BNavDecision back = Decide(in, Params(), 0.1);
  EXPECT_NEAR(back.desired_heading, std::atan2(0.1, -3), 1e-12);
  EXPECT_EQ(back.desired_speed, 0.0);
  EXPECT_NEAR(back.turn_rate, 2.0, 1e-12);  // error ≈ 3.108 rad / 0.3 s, capped at 2 rad/s
}

TEST(BNavDecide, CautionLimitsTheSpeed) {
  // Target (1, 0), a still neighbour at (3, 0), r_a = 0.35: R = 0.35 + 0.35 + 0.1 = 0.8, D(0) = 2.2. The reachable
  // segment along β = 0 passes through the target (d = 0). Eq. 2 with η = 5 s: v_des = min(0.5, 2.2/5) = 0.44.
  const std::vector<Neighbour> n{{{3, 0}, {0, 0}, 0.35, 0}};
  BNavInput in;
  in.target = {1, 0};
  in.neighbours = n;
  in.speed = 0.44;
  BNavParams p = Params();
  p.caution = 5.0;
  const BNavDecision d = Decide(in, p, 0.1);
  EXPECT_FALSE(d.clear);
  EXPECT_NEAR(d.desired_heading, 0.0, 1e-12);
  EXPECT_NEAR(d.free_distance, 2.2, 1e-12);
  EXPECT_NEAR(d.desired_speed, 0.44, 1e-12);
  EXPECT_NEAR(d.speed, 0.44, 1e-12);  // already at v_des: eq. 3 keeps it
  // η = 1 s: 2.2/1 > v_opt, so v_opt = 0.5.
  EXPECT_NEAR(Decide(in, Params(), 0.1).desired_speed, 0.5, 1e-12);
}

TEST(BNavDecide, GoesRoundABlockingNeighbour) {
  // Target (6, 0) behind a still neighbour at (3, 0), R = 0.8: directions with 3·sin|β| < 0.8 (|β| < 15.47°) are
  // blocked at f ≤ 2.2 (d ≥ 3.8); beyond, f = H = 4 and d = √(36 + 16 − 48 cos β) grows with |β|. The 72 directions
  // over ±90° are −90° + k·180°/71; the first clear ones are k = 29 and 42, β = ∓16.479°, equally good (d = 2.443 m)
  // and equally far from the target's bearing: the tie goes to the lower β.
  const std::vector<Neighbour> n{{{3, 0}, {0, 0}, 0.35, 0}};
  BNavInput in;
  in.target = {6, 0};
  in.neighbours = n;
  const BNavDecision d = Decide(in, Params(), 0.1);
  const double beta = -kPi / 2 + kPi * 29 / 71;
  EXPECT_NEAR(d.desired_heading, beta, 1e-12);
  EXPECT_NEAR(d.free_distance, 4.0, 1e-12);
  // v_des = min(0.5, 4/1) · cos(16.479°) = 0.47946; ω = −0.28761 / 0.3 = −0.95870 rad/s.
  EXPECT_NEAR(d.desired_speed, 0.5 * std::cos(beta), 1e-12);
  EXPECT_NEAR(d.turn_rate, beta / 0.3, 1e-12);
  EXPECT_NEAR(d.max_free_distance, 4.0, 1e-12);
  // The neighbour moving away at 0.6 m/s (faster than v_opt): straight behind it is reachable to H → β = 0.
  const std::vector<Neighbour> leaving{{{3, 0}, {0.6, 0}, 0.35, 0}};
  in.neighbours = leaving;
  EXPECT_NEAR(Decide(in, Params(), 0.1).desired_heading, 0.0, 1e-12);
}

TEST(BNavDecide, TiesWhenNothingMakesProgress) {
  // Target (−3, 0) straight behind, FOV ±90°: every β in view has d(s(β), q) = ||q|| = 3 (no β points towards it).
  // A neighbour on the right at (0, −1.2), R = 0.8. kNearest: the β nearest the bearing π, the edges ±90°, the
  // lower one: −90°, towards the neighbour (f = 0.4). kLongest: the longest segment first: +90° (f = H = 4).
  const std::vector<Neighbour> n{{{0, -1.2}, {0, 0}, 0.35, 0}};
  BNavInput in;
  in.target = {-3, 0};
  in.neighbours = n;
  BNavParams p = Params();
  p.tie_break = TieBreak::kNearest;
  EXPECT_NEAR(Decide(in, p, 0.1).desired_heading, -kPi / 2, 1e-12);
  EXPECT_NEAR(Decide(in, p, 0.1).free_distance, 0.4, 1e-12);
  p.tie_break = TieBreak::kLongest;
  EXPECT_NEAR(Decide(in, p, 0.1).desired_heading, kPi / 2, 1e-12);
  EXPECT_NEAR(Decide(in, p, 0.1).free_distance, 4.0, 1e-12);
}

TEST(BNavDecide, SubMillimetreProgressIsATie) {
  // A robot of radius 0.35 whose edge is 0.1 mm from a long wall x = 0 ahead, target (5, 0) behind it. Eq. 2
  // approaches a wall exponentially, so this gap never closes. Every β into the wall "progresses" by ~0.1 mm; ±90°
  // (along the wall) by nothing, with f = H = 4. Exact reading (tolerance 0): a β into the wall with f < 1 mm, the
  // robot stands there for ever. Default (1 cm): a tie, the longest segment wins: along the wall, the lower β (−90°).
  const std::vector<Segment> wall{{{0, -20}, {0, 20}}};
  BNavInput in;
  in.position = {-0.3501, 0};
  in.target = {5, 0};
  in.walls = wall;
  BNavParams p = Params();
  p.progress_tolerance = 0;
  const BNavDecision exact = Decide(in, p, 0.1);
  EXPECT_LT(std::abs(exact.desired_heading), kPi / 2 - 0.1);
  EXPECT_LT(exact.free_distance, 1e-3);
  const BNavDecision d = Decide(in, Params(), 0.1);
  EXPECT_NEAR(d.desired_heading, -kPi / 2, 1e-12);
  EXPECT_NEAR(d.free_distance, 4.0, 1e-12);
  // Real progress (the wall 0.5 m away) is not a tie with moving along the wall: β = 0 gets 0.5 m closer; within
  // 1 cm of that are the β with (0.5 tan β)² / (2 · 5.35) ≤ 0.01 (|β| ≤ 33.2°), and the longest of them wins.
  in.position = {-0.85, 0};
  const BNavDecision ahead = Decide(in, Params(), 0.1);
  EXPECT_LE(std::abs(ahead.desired_heading), 33.2 * kPi / 180);
  EXPECT_GE(std::abs(ahead.desired_heading), 30.0 * kPi / 180);
  EXPECT_NEAR(ahead.free_distance, 0.5 / std::cos(ahead.desired_heading), 1e-9);
}

TEST(BNavDecide, BoxedInWithinViewTurnsToLookBehind) {
  // Touching a long wall x = 0.35 ahead with ψ = 60°: every β in view runs into it (f = 0). kNearest stands facing
  // the target (β = 0, v = 0) for ever; kLongest turns on the spot towards α − ψ = −60° to look for free space.
  const std::vector<Segment> wall{{{0.35, -20}, {0.35, 20}}};
  BNavInput in;
  in.heading = 0;
  in.target = {5, 0};
  in.walls = wall;
  BNavParams p = Params();
  p.half_fov = kPi / 3;
  const BNavDecision look = Decide(in, p, 0.1);
  EXPECT_NEAR(look.desired_heading, -kPi / 3, 1e-12);
  EXPECT_NEAR(look.speed, 0.0, 1e-12);
  EXPECT_LT(look.turn_rate, 0.0);
  p.tie_break = TieBreak::kNearest;
  const BNavDecision stand = Decide(in, p, 0.1);
  EXPECT_NEAR(stand.desired_heading, 0.0, 1e-12);
  EXPECT_NEAR(stand.turn_rate, 0.0, 1e-12);
  EXPECT_NEAR(stand.speed, 0.0, 1e-12);
}

TEST(BNavDecide, RefusesNonFiniteInputAndBadParameters) {
  BNavInput in;
  in.target = {1, 0};
  EXPECT_THROW(Decide(in, Params(), 0.0), std::invalid_argument);
  EXPECT_THROW(Decide(in, Params(), kNaN), std::invalid_argument);
  in.position = {kNaN, 0};
  EXPECT_THROW(Decide(in, Params(), 0.1), std::invalid_argument);
  in.position = {0, 0};
  in.heading = std::numeric_limits<double>::infinity();
  EXPECT_THROW(Decide(in, Params(), 0.1), std::invalid_argument);
  in.heading = 0;
  const std::vector<Neighbour> bad{{{1, 1}, {kNaN, 0}, 0.3, 0}};
  in.neighbours = bad;
  EXPECT_THROW(Decide(in, Params(), 0.1), std::invalid_argument);
  in.neighbours = {};
  const std::vector<Segment> wall{{{kNaN, 0}, {1, 1}}};
  in.walls = wall;
  EXPECT_THROW(Decide(in, Params(), 0.1), std::invalid_argument);
  in.walls = {};
  for (auto spoil : std::vector<void (*)(BNavParams*)>{
           [](BNavParams* p) { p->caution = 0; }, [](BNavParams* p) { p->optimal_speed = -1; },
           [](BNavParams* p) { p->margin = kNaN; }, [](BNavParams* p) { p->half_fov = 0; },
           [](BNavParams* p) { p->half_fov = 4; }, [](BNavParams* p) { p->horizon = 0; },
           [](BNavParams* p) { p->tau = kNaN; }, [](BNavParams* p) { p->directions = 1; },
           [](BNavParams* p) { p->radius = 0; }, [](BNavParams* p) { p->max_turn_rate = 0; },
           [](BNavParams* p) { p->progress_tolerance = -1; }}) {
    BNavParams p = Params();
    spoil(&p);
    EXPECT_THROW(Decide(in, p, 0.1), std::invalid_argument);
  }
}

}  // namespace
}  // namespace limbic::crowd
