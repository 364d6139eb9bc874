#include "services/controller/body_geometry.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include "services/controller/directional_controller.hpp"
#include "services/controller/velocity_controller.hpp"

namespace limbic::controller {
namespace {

using geometry::kPi;
using geometry::Vec2;

const std::string kRobotDir = std::string(LIMBIC_SOURCE_ROOT) + "/configs/robots";

// A body whose centre is `y_off` ahead of R's origin: a rectangle `length` × `width` about it.
ControllerBody OffsetRectangle(double y_off, double length, double width, double r_lmin = 0.0) {
  ControllerBody b;
  const double hx = 0.5 * length, hy = 0.5 * width;
  b.outline = robot::Body::Polygon({{y_off - hx, -hy}, {y_off + hx, -hy}, {y_off + hx, hy}, {y_off - hx, hy}});
  b.min_turning_radius = r_lmin;
  return b;
}

TEST(BodyObstacleRadius, KeepsTheMarginOfTheSpecBody) {
  EXPECT_EQ(BodyObstacleRadius(0.3, kSpecBodyRadius), 0.3);  // MARVIN: r_o itself, bit for bit
  EXPECT_EQ(BodyObstacleRadius(0.25, 0.35), 0.25);
  EXPECT_NEAR(BodyObstacleRadius(0.3, 0.45), 0.4, 1e-15);    // a bigger body: the same 5 cm short of its size
  EXPECT_NEAR(BodyObstacleRadius(0.25, 0.26), 0.16, 1e-15);  // a narrow one (Tank sideways)
  EXPECT_EQ(BodyObstacleRadius(0.0, 0.1), 0.0);              // never negative
}

// Multi-robot spec §1, eqs. 8–10 worked by hand (the spec prints none): R's origin at (1, 2) heading 0.5 rad moves at
// v_l = 0.5 m/s, ω = 0.5 rad/s (r_l = 1 m); the centre is y_off = 0.2 m ahead. r = sqrt(1 + 0.04) = 1.0198039 m,
// v = r·ω = 0.5099020 m/s, θ_v = asin(0.2/1.0198039) = 0.1973956 rad.
TEST(CentreStart, FrameOffsetWorkedValues) {
  const ControllerBody body = OffsetRectangle(0.2, 0.6, 0.4);
  const geometry::Pose2 pose{1, 2, 0.5};
  const CentreStart s = CentreStartFor(pose, 0.5, 0.5, body);
  EXPECT_NEAR(s.pose.x, 1 + 0.2 * std::cos(0.5), 1e-12);
  EXPECT_NEAR(s.pose.y, 2 + 0.2 * std::sin(0.5), 1e-12);
  EXPECT_NEAR(s.theta_v, 0.19739555984988075, 1e-12);
  EXPECT_NEAR(s.pose.theta, 0.5 + 0.19739555984988075, 1e-12);
  EXPECT_NEAR(s.speed, 0.5099019513592785, 1e-12);
  // The centre's curvature segment runs on the circle of radius r about R's instantaneous centre (0, r_l) in R.
  const Vec2 icr = pose.ToWorld({0.0, 1.0});
  const CurvatureSegment centre_arc(s.pose, s.speed, 0.5, 0.1, 1.0);
  const CurvatureSegment origin_arc(pose, 0.5, 0.5, 0.1, 1.0);
  EXPECT_NEAR(centre_arc.Distance(icr), 1.019803902718557, 1e-9);
  EXPECT_NEAR(origin_arc.Distance(icr), 1.0, 1e-9);
  // A centred body starts at the pose itself, unchanged.
  const CentreStart c = CentreStartFor(pose, 0.5, 0.5, ControllerBody{});
  EXPECT_EQ(c.pose, pose);
  EXPECT_EQ(c.speed, 0.5);
}

TEST(BoundTurnRate, TricycleWindowFollowsTheCurvatureLimit) {
  EXPECT_EQ(BoundTurnRate(0.0, 0.5, 0.4), 0.0);  // no turn without moving
  EXPECT_NEAR(BoundTurnRate(0.2, 0.9, 0.4), 0.5, 1e-15);
  EXPECT_NEAR(BoundTurnRate(0.2, -0.9, 0.4), -0.5, 1e-15);
  EXPECT_EQ(BoundTurnRate(0.2, 0.3, 0.4), 0.3);
  EXPECT_EQ(BoundTurnRate(0.0, 0.5, 0.0), 0.5);  // a drive that turns on the spot
}

TEST(ApplyBodyLimits, CapsOnlyWhatExceedsTheLimits) {
  ControlParameters p;
  robot::Limits l;
  l.v_max = 0.8;
  l.omega_max = 0.5;
  const ControlParameters q = ApplyBodyLimits(p, l);
  EXPECT_EQ(q.v_limit, 0.8);
  EXPECT_EQ(q.omega_limit, 0.5);
  EXPECT_EQ(q.a_max, p.a_max);
  const ControlParameters same = ApplyBodyLimits(p, robot::Limits{});
  EXPECT_EQ(same.v_limit, p.v_limit);
  EXPECT_EQ(same.omega_limit, p.omega_limit);
  EXPECT_EQ(same.alpha_min, p.alpha_min);
}

// Random obstacle points around a robot.
std::vector<Vec2> Scatter(uint64_t seed, const Vec2& around, int n) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(-2.0, 2.0);
  std::vector<Vec2> pts;
  for (int i = 0; i < n; ++i) pts.emplace_back(around.x() + u(rng), around.y() + u(rng));
  return pts;
}

// Two controllers that must agree bit for bit: 20 scenes of scattered sensor and map points, poses and velocities.
void ExpectTheSameOnScatteredScenes(VelocityController& first, VelocityController& second, const ControlParameters& p) {
  for (uint64_t seed = 1; seed <= 20; ++seed) {
    VelocityInputs in;
    in.pose = {3, 4, 0.3 * static_cast<double>(seed)};
    in.v = 0.05 * static_cast<double>(seed % 7);
    in.omega = 0.1 * (static_cast<double>(seed % 5) - 2.0);
    const auto sensor = Scatter(seed, in.pose.Position(), 40), map = Scatter(seed + 100, in.pose.Position(), 30);
    in.obstacle_points = sensor;
    in.map_points = map;
    in.goal = {8, 6};
    in.target_heading = 0.4;
    VelocityOutput a, b;
    first.Tick(in, p, &a);
    second.Tick(in, p, &b);
    EXPECT_EQ(a.objective, b.objective) << seed;
    EXPECT_EQ(a.sensor_distance, b.sensor_distance) << seed;
    EXPECT_EQ(a.map_distance, b.map_distance) << seed;
    EXPECT_EQ(a.command.v, b.command.v) << seed;
    EXPECT_EQ(a.command.omega, b.command.omega) << seed;
  }
}

TEST(VelocityBody, MarvinsDescriptionGivesTheSameResultsBitForBit) {
  VelocityOptions with_body;
  with_body.body = ControllerBody::From(robot::LoadRobotDescription("marvin", kRobotDir));
  VelocityController plain, described(with_body);
  ControlParameters p;
  p.w_v2 = 0.5;
  ExpectTheSameOnScatteredScenes(plain, described, p);
}

TEST(VelocityBody, OffsetBodyMeasuresClearanceFromItsCentre) {
  // One obstacle point 0.9 m straight ahead of R's origin. Straight candidate v = 0.5 (t_1 = 0.1 s, t_2 = 1 s):
  // R's origin sweeps x ∈ [0.05, 0.5] → d_o = 0.4; a centre 0.3 m ahead sweeps [0.35, 0.8] → d_o = 0.1.
  ControlParameters p;
  p.n_v = 3;
  p.n_omega = 3;
  VelocityInputs in;
  in.pose = {0, 0, 0};
  in.v = 0.5;
  in.omega = 0.0;
  const std::vector<Vec2> pts{{0.9, 0.0}};
  in.obstacle_points = pts;
  in.goal = {10, 0};
  in.target_heading = 0.0;
  VelocityOutput centred, offset;
  VelocityController(VelocityOptions{}).Tick(in, p, &centred);
  VelocityOptions o;
  o.body = OffsetRectangle(0.3, 0.7, 0.7);  // half-width 0.35 at θ_v = 0: r_v = r_o, only the offset differs
  VelocityController(o).Tick(in, p, &offset);
  const int straight = 1 * 3 + 1;  // v = 0.5, ω = 0
  ASSERT_EQ(centred.v_samples[1], 0.5);
  ASSERT_EQ(centred.omega_samples[1], 0.0);
  EXPECT_NEAR(centred.sensor_distance[straight], 0.4, 1e-12);
  EXPECT_NEAR(offset.sensor_distance[straight], 0.1, 1e-12);
  EXPECT_LT(offset.sensor_avoidance[straight], centred.sensor_avoidance[straight]);
}

TEST(VelocityBody, NonCircularBodyWidensRvWithThetaV) {
  // A long narrow body (1.0 × 0.4) whose centre is 0.4 m ahead: going straight it is 0.2 m wide each side, so
  // r_v = r_o − 0.15; turning, its velocity leaves its axis by θ_v and the body, turned by −θ_v in that frame,
  // is wider across the motion.
  const ControllerBody body = OffsetRectangle(0.4, 1.0, 0.4);
  EXPECT_NEAR(body.outline.HalfWidthAcross(0.0), 0.2, 1e-12);
  const CentreStart turning = CentreStartFor({0, 0, 0}, 0.3, 0.6, body);  // r_l = 0.5, θ_v = atan(0.8)
  EXPECT_NEAR(turning.theta_v, std::atan(0.8), 1e-12);
  const double w = body.outline.HalfWidthAcross(turning.theta_v);
  EXPECT_NEAR(w, 0.5 * std::sin(std::atan(0.8)) + 0.2 * std::cos(std::atan(0.8)), 1e-12);
  EXPECT_GT(BodyObstacleRadius(0.35, w), BodyObstacleRadius(0.35, 0.2));
}

TEST(VelocityBody, TricycleNeverCommandsATighterTurnThanItsMinimumRadius) {
  const robot::RobotDescription itchy = robot::LoadRobotDescription("itchy", kRobotDir);
  VelocityOptions o;
  o.body = ControllerBody::From(itchy);
  const double r_lmin = itchy.drive.MinTurningRadius();
  ControlParameters p;
  VelocityInputs in;
  in.pose = {0, 0, 0};
  in.goal = {0, 5};  // straight to the left
  in.target_heading = 0.5 * kPi;
  VelocityController tricycle(o), marvin;
  for (double v : {0.0, 0.05, 0.2}) {
    in.v = v;
    in.omega = 0.0;
    VelocityOutput t, m;
    tricycle.Tick(in, p, &t);
    marvin.Tick(in, p, &m);
    EXPECT_LE(std::abs(t.command.omega), t.command.v / r_lmin + 1e-12) << v;
    EXPECT_GT(m.command.omega, 0.0) << v;  // MARVIN turns on the spot towards θ_T
  }
  // From rest the tricycle has to roll to turn at all: it picks v > 0 with a left turn.
  in.v = 0.0;
  VelocityOutput t;
  tricycle.Tick(in, p, &t);
  EXPECT_GT(t.command.v, 0.0);
  EXPECT_GT(t.command.omega, 0.0);
}

TEST(DirectionalBody, CircumscribedRadiusSizesTheObstacleCircles) {
  // One obstacle 1.5 m straight ahead. MARVIN (r_o = 0.35): the ray meets its circle at 1.15 m. A body with a
  // circumscribed radius of 0.45 m: r_o + 0.10 → 1.05 m.
  ControlParameters p;
  DirectionalInputs in;
  in.pose = {0, 0, 0};
  const std::vector<Vec2> pts{{1.5, 0.0}};
  in.obstacle_points = pts;
  in.goal = {5, 0};
  DirectionalOutput marvin, big;
  DirectionalController(DirectionalOptions{}).Tick(in, p, &marvin);
  DirectionalOptions o;
  o.body_radius = 0.45;
  DirectionalController(o).Tick(in, p, &big);
  const int ahead = p.n_theta / 2;  // θ = 0
  ASSERT_NEAR(marvin.headings[ahead], 0.0, 1e-12);
  EXPECT_NEAR(marvin.sensor_distance[ahead], 1.15, 1e-12);
  EXPECT_NEAR(big.sensor_distance[ahead], 1.05, 1e-12);
  // A centre 0.3 m ahead is 0.3 m nearer.
  o.body_centre = {0.3, 0.0};
  DirectionalOutput shifted;
  DirectionalController(o).Tick(in, p, &shifted);
  EXPECT_NEAR(shifted.sensor_distance[ahead], 0.75, 1e-12);
}

TEST(VelocityBody, NonFiniteCandidateInputIsRefusedByTheFrameOffset) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  EXPECT_THROW(CentreStartFor({0, 0, 0}, nan, 0.5, OffsetRectangle(0.2, 0.6, 0.4)), std::invalid_argument);
  EXPECT_THROW(CentreStartFor({0, 0, 0}, 0.5, nan, OffsetRectangle(0.2, 0.6, 0.4)), std::invalid_argument);
}

}  // namespace
}  // namespace limbic::controller

namespace limbic::controller {
namespace {

// A wall of points across x = `x` for |y| ≤ 1.5.
std::vector<Vec2> WallAt(double x) {
  std::vector<Vec2> pts;
  for (int i = -15; i <= 15; ++i) pts.emplace_back(x, 0.1 * i);
  return pts;
}

TEST(VelocityBody, StuckTricycleBacksOutTurningTowardsTheTarget) {
  // Itchy (nose 0.58 m ahead of its rear axle) faces a wall 0.22 m beyond its nose; θ_T points behind it. It
  // cannot turn on the spot, so it reverses at 0.1 m/s on its tightest arc, turning towards θ_T.
  const robot::RobotDescription itchy = robot::LoadRobotDescription("itchy", kRobotDir);
  VelocityOptions o;
  o.body = ControllerBody::From(itchy);
  o.three_point_turn = false;  // the recovery before the three-point turn (tests of that below)
  VelocityController tricycle(o);
  ControlParameters p;
  VelocityInputs in;
  in.pose = {0, 0, 0};
  const auto wall = WallAt(0.8);
  in.obstacle_points = wall;
  in.goal = {-5, -1};
  in.target_heading = -0.9 * kPi;  // behind, to the right
  VelocityOutput out;
  tricycle.Tick(in, p, &out);
  EXPECT_TRUE(out.reversing);
  EXPECT_DOUBLE_EQ(out.command.v, -0.1);
  EXPECT_NEAR(out.command.omega, -0.1 / itchy.drive.MinTurningRadius(), 1e-12);  // heading turns right (negative)
  // Once backing it keeps backing while θ_T is more than βπ/2 off, and stops doing so when aligned.
  in.v = -0.1;
  tricycle.Tick(in, p, &out);
  EXPECT_TRUE(out.reversing);
  in.target_heading = 0.1;
  tricycle.Tick(in, p, &out);
  EXPECT_FALSE(out.reversing);
  // With a wall through its rear axle as well, backing out would hit it: no reversing arc (it edges forward, away
  // from the wall behind, as the forward candidates' avoidance says).
  in.v = 0.0;
  in.target_heading = -0.9 * kPi;
  std::vector<Vec2> boxed = WallAt(0.8);
  for (const Vec2& q : WallAt(0.0)) boxed.push_back(q);
  in.obstacle_points = boxed;
  tricycle.Tick(in, p, &out);
  EXPECT_FALSE(out.reversing);
  EXPECT_GE(out.command.v, 0.0);
  // MARVIN never reverses: it turns on the spot.
  in.obstacle_points = wall;
  VelocityController marvin;
  marvin.Tick(in, p, &out);
  EXPECT_FALSE(out.reversing);
  EXPECT_EQ(out.command.v, 0.0);
  EXPECT_LT(out.command.omega, 0.0);
}

// Issue 18: Itchy pinned against a wall — heading east with the wall just behind it, θ_T north (beyond βπ). With
// turn_speed it drives its tightest forward arc to the left when the whole quarter turn is clear; a wall across that
// turn sends it to the reversing recovery instead; without turn_speed it never takes the arc.
TEST(VelocityBody, TricycleTurnsOnItsTightestForwardArcWhenTheWholeTurnIsClear) {
  const robot::RobotDescription itchy = robot::LoadRobotDescription("itchy", kRobotDir);
  const double r_lmin = itchy.drive.MinTurningRadius();
  VelocityOptions o;
  o.body = ControllerBody::From(itchy);
  o.turn_speed = 0.1;
  o.three_point_turn = false;  // the turning arc alone
  ControlParameters p;
  VelocityInputs in;
  in.pose = {0, 0, 0};
  in.v = 0.0;
  in.goal = {0.5, 5};
  in.target_heading = 0.5 * kPi;
  const auto behind = WallAt(-0.25);
  in.obstacle_points = behind;
  VelocityController turning(o);
  VelocityOutput out;
  turning.Tick(in, p, &out);
  EXPECT_TRUE(out.turning_arc);
  EXPECT_FALSE(out.reversing);
  EXPECT_GT(out.command.v, 0.0);
  EXPECT_LE(out.command.v, 0.1);
  EXPECT_LE(out.command.v, out.window.v2);
  EXPECT_NEAR(out.command.omega, out.command.v / r_lmin, 1e-12);  // the tightest turn, to the left
  // A wall across the turn (0.6 m ahead of R, from y = -1.5 to 1.5): the quarter turn would meet it.
  std::vector<Vec2> boxed = WallAt(0.6);
  for (const Vec2& q : behind) boxed.push_back(q);
  in.obstacle_points = boxed;
  turning.Tick(in, p, &out);
  EXPECT_FALSE(out.turning_arc);
  // Off (the default): the same free turn is not taken.
  in.obstacle_points = behind;
  VelocityController plain(VelocityOptions{.body = ControllerBody::From(itchy), .three_point_turn = false});
  plain.Tick(in, p, &out);
  EXPECT_FALSE(out.turning_arc);
}

}  // namespace
}  // namespace limbic::controller

namespace limbic::controller {
namespace {

// A wall of points across x = `x` (1 cm apart for |y| ≤ 1.5) and along y = `y`.
std::vector<Vec2> DenseWallAcross(double x) {
  std::vector<Vec2> pts;
  for (int i = -150; i <= 150; ++i) pts.emplace_back(x, 0.01 * i);
  return pts;
}
std::vector<Vec2> DenseWallAlong(double y, double x0 = -1.5, double x1 = 1.5) {
  std::vector<Vec2> pts;
  for (double x = x0; x <= x1 + 1e-9; x += 0.01) pts.emplace_back(x, y);
  return pts;
}
std::vector<Vec2> Join(std::vector<Vec2> a, const std::vector<Vec2>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

// Issue 18 (deliver 1), Itchy's worked geometry: its pentagon's centroid lies x_c = 0.1676 m ahead of R's origin (the
// rear axle), its tail 0.15 m behind the axle — 0.3176 m behind the centre — and its half-width is 0.26 m, so
// eq. 5.22's r_v = r_o + (0.26 − 0.35) = 0.26 m. Backing straight at 0.1 m/s toward a wall 0.20 m behind the axle (5 cm
// behind the tail): over t_1..t_2 = 0.1..1 s the centre's path runs from x = 0.1576 to 0.0676, d_o = 0.0676 + 0.20 =
// 0.2676 ≥ r_v, so the check by r_v passes the motion — but the tail's path ends at −0.25, 5 cm into the wall. The
// outline swept along the motion refuses it (least distance −0.05 m); it passes the same backing with the wall 0.30 m
// behind (least 0.05 m ≥ the 0.03 m clearance).
TEST(SweepOutline, ItchyBackingJudgedByItsTailNotItsHalfWidth) {
  const robot::RobotDescription itchy = robot::LoadRobotDescription("itchy", kRobotDir);
  const ControllerBody body = ControllerBody::From(itchy);
  ASSERT_NEAR(body.centre().x(), 0.16765, 1e-4);
  ASSERT_NEAR(body.outline.HalfWidthAcross(0.0), 0.26, 1e-12);
  const double r_v = BodyObstacleRadius(0.35, 0.26);
  ASSERT_NEAR(r_v, 0.26, 1e-12);
  // The centre's path by r_v (what the backing check judged before): clear.
  const CentreStart start = CentreStartFor({0, 0, 0}, -0.1, 0.0, body);
  const CurvatureSegment path(start.pose, start.speed, 0.0, 0.1, 1.0);
  const auto wall = DenseWallAcross(-0.20);
  double d_o = 1e9;
  for (const Vec2& q : wall) d_o = std::min(d_o, path.Distance(q));
  EXPECT_NEAR(d_o, body.centre().x() - 0.1 + 0.20, 1e-12);
  EXPECT_GE(d_o, r_v);
  // The outline: the tail crosses the wall.
  const SweptOutline into = SweepOutline(body.outline, {0, 0, 0}, -0.1, 0.0, 1.0, wall, 0.03);
  EXPECT_FALSE(into.clear);
  EXPECT_NEAR(into.least, -0.05, 1e-9);
  const SweptOutline short_of = SweepOutline(body.outline, {0, 0, 0}, -0.1, 0.0, 1.0, DenseWallAcross(-0.30), 0.03);
  EXPECT_TRUE(short_of.clear);
  EXPECT_NEAR(short_of.least, 0.05, 1e-9);
  EXPECT_FALSE(SweepOutline(body.outline, {0, 0, 0}, -0.1, 0.0, 1.0, DenseWallAcross(-0.27), 0.03).clear);  // 0.02 m
  // The same in any pose: the body turned and moved, the wall with it.
  const geometry::Pose2 pose{2.0, -1.0, 2.1};
  std::vector<Vec2> moved;
  for (const Vec2& q : wall) moved.push_back(pose.ToWorld(q));
  const SweptOutline turned = SweepOutline(body.outline, pose, -0.1, 0.0, 1.0, moved, 0.03);
  EXPECT_FALSE(turned.clear);
  EXPECT_NEAR(turned.least, -0.05, 1e-9);
}

TEST(SweepOutline, ABodyTouchingAWallMayLeaveItButNotPressOn) {
  const ControllerBody body = ControllerBody::From(robot::LoadRobotDescription("itchy", kRobotDir));
  const auto touching = DenseWallAcross(-0.15);  // on the tail
  EXPECT_TRUE(SweepOutline(body.outline, {0, 0, 0}, 0.1, 0.0, 1.0, touching, 0.03).clear);
  EXPECT_FALSE(SweepOutline(body.outline, {0, 0, 0}, -0.1, 0.0, 1.0, touching, 0.03).clear);
  // Sliding along a wall 4 cm beside it keeps it clear; turning into it does not.
  const auto beside = DenseWallAlong(-0.30, -3.0, 3.0);
  EXPECT_TRUE(SweepOutline(body.outline, {0, 0, 0}, 0.1, 0.0, 1.0, beside, 0.03).clear);
  EXPECT_FALSE(SweepOutline(body.outline, {0, 0, 0}, 0.1, -0.3, 1.0, beside, 0.03).clear);
  // A point out of reach is not looked at; no points: clear, least +∞.
  const SweptOutline none = SweepOutline(body.outline, {0, 0, 0}, 0.1, 0.0, 1.0, std::vector<Vec2>{{5, 5}}, 0.03);
  EXPECT_TRUE(none.clear);
  EXPECT_TRUE(std::isinf(none.least));
  // Bad input is refused with a clear error.
  const double nan = std::numeric_limits<double>::quiet_NaN();
  EXPECT_THROW(SweepOutline(body.outline, {0, 0, nan}, 0.1, 0.0, 1.0, touching, 0.03), std::invalid_argument);
  EXPECT_THROW(SweepOutline(body.outline, {0, 0, 0}, 0.1, 0.0, -1.0, touching, 0.03), std::invalid_argument);
  EXPECT_THROW(SweepOutline(body.outline, {0, 0, 0}, 0.1, 0.0, 1.0, touching, 0.03, 0.0), std::invalid_argument);
}

// The sampled bound is a true lower bound: against a fine brute force over the motion (10,000 steps), never above
// it and within the sampling's half step of it.
TEST(SweepOutline, LeastIsALowerBoundOfTheTrueDistance) {
  const ControllerBody body = ControllerBody::From(robot::LoadRobotDescription("itchy", kRobotDir));
  std::mt19937_64 rng(18);
  std::uniform_real_distribution<double> u(-1.2, 1.2);
  for (int trial = 0; trial < 40; ++trial) {
    const std::vector<Vec2> pts{{u(rng), u(rng)}};
    const double v = 0.2 * u(rng), om = u(rng);
    const SweptOutline s = SweepOutline(body.outline, {0, 0, 0.3}, v, om, 1.0, pts, 0.0);
    double truth = 1e9;
    for (int k = 0; k <= 10000; ++k) {
      const geometry::Pose2 at = geometry::IntegrateArc({0, 0, 0.3}, v, om, k / 10000.0);
      const Vec2 d = pts[0] - at.Position();
      const Vec2 local(std::cos(at.theta) * d.x() + std::sin(at.theta) * d.y(),
                       -std::sin(at.theta) * d.x() + std::cos(at.theta) * d.y());
      truth = std::min(truth, body.outline.SignedDistance(local));
    }
    if (std::isinf(s.least)) continue;  // out of reach
    EXPECT_LE(s.least, truth + 1e-12) << trial;
    EXPECT_GE(s.least, truth - 0.0051) << trial;
  }
}

// Deliver 1 in the controller: Itchy backing out (v = −0.1 m/s, θ_T behind it) towards a wall 0.20 m behind its axle.
// Judged by r_v (outline_check off) its backing arc is refused but straight back passes — 5 cm into the wall; judged
// by its outline neither is taken.
TEST(VelocityBody, BackingIntoAWallBehindTheTailIsRefusedByTheOutline) {
  const robot::RobotDescription itchy = robot::LoadRobotDescription("itchy", kRobotDir);
  ControlParameters p;
  VelocityInputs in;
  in.pose = {0, 0, 0};
  in.v = -0.1;
  const auto walls = Join(DenseWallAcross(0.8), DenseWallAcross(-0.20));
  in.obstacle_points = walls;
  in.goal = {-5, -1};
  in.target_heading = -0.9 * kPi;
  VelocityOptions o;
  o.body = ControllerBody::From(itchy);
  o.three_point_turn = false;
  o.outline_check = false;
  VelocityOutput out;
  VelocityController(o).Tick(in, p, &out);
  EXPECT_TRUE(out.reversing);
  EXPECT_DOUBLE_EQ(out.command.v, -0.1);
  EXPECT_EQ(out.command.omega, 0.0);  // straight back into the wall
  o.outline_check = true;
  VelocityController(o).Tick(in, p, &out);
  EXPECT_FALSE(out.reversing);
  EXPECT_GE(out.command.v, 0.0);
  // With the wall 0.30 m behind (0.15 m behind the tail) the outline lets it back straight (the arc swings its tail
  // into the wall: refused).
  const auto farther = Join(DenseWallAcross(0.8), DenseWallAcross(-0.30));
  in.obstacle_points = farther;
  VelocityController(o).Tick(in, p, &out);
  EXPECT_TRUE(out.reversing);
}

}  // namespace
}  // namespace limbic::controller

namespace limbic::controller {
namespace {

VelocityOptions ItchyOptions() {
  VelocityOptions o;
  o.body = ControllerBody::From(robot::LoadRobotDescription("itchy", kRobotDir));
  o.three_point_turn = true;
  return o;
}

// Deliver 2: the three-point turn, leg by leg, with sensed points. Itchy at the origin heading +x; r_lmin = 0.336 m.
TEST(ThreePointTurn, WallBehindTurnsForwardOnTheTightestArc) {
  // The pinned case of set B environment 2: a wall 5 cm behind its tail, θ_T 100° to the left. It cannot turn on the
  // spot; the old recovery backs (here: refused, the tail would hit); the three-point turn drives its tightest
  // forward arc to the left, at the 0.05 m/s the window allows from standstill.
  const VelocityOptions o = ItchyOptions();
  const double r_lmin = o.body.min_turning_radius;
  ControlParameters p;
  VelocityInputs in;
  in.pose = {0, 0, 0};
  const auto wall = DenseWallAcross(-0.20);
  in.obstacle_points = wall;
  in.goal = {0, 5};
  in.target_heading = 100.0 * kPi / 180.0;
  VelocityOutput out;
  VelocityController(o).Tick(in, p, &out);
  EXPECT_TRUE(out.turning_arc);
  EXPECT_FALSE(out.reversing);
  EXPECT_DOUBLE_EQ(out.command.v, 0.05);
  EXPECT_NEAR(out.command.omega, 0.05 / r_lmin, 1e-12);
  // Rolling at 0.1 m/s it keeps to the arc at 0.1 m/s.
  in.v = 0.1;
  in.omega = 0.1 / r_lmin;
  VelocityController(o).Tick(in, p, &out);
  EXPECT_TRUE(out.turning_arc);
  EXPECT_DOUBLE_EQ(out.command.v, 0.1);
  EXPECT_NEAR(out.command.omega, 0.1 / r_lmin, 1e-12);
  // θ_T nearly behind, a little to the left, while it already turns right: it keeps turning right (a θ_T flickering
  // about ±π must not swap the turn every tick).
  in.target_heading = 0.95 * kPi;
  in.omega = -0.1 / r_lmin;
  VelocityController(o).Tick(in, p, &out);
  EXPECT_TRUE(out.turning_arc);
  EXPECT_NEAR(out.command.omega, -0.1 / r_lmin, 1e-12);
  in.omega = 0.1 / r_lmin;
  // Within βπ of θ_T the velocity layer drives again.
  in.target_heading = 0.3 * kPi;
  VelocityController(o).Tick(in, p, &out);
  EXPECT_FALSE(out.turning_arc);
  EXPECT_FALSE(out.reversing);
}

TEST(ThreePointTurn, WallAheadBacksOnTheArcThatTurnsTowardsTheTarget) {
  // A wall 7 cm beyond its nose, θ_T behind to the right: the forward arc would put its nose into the wall, so it
  // backs on the arc that turns its heading right (ω < 0 with v < 0), at reverse_speed.
  const VelocityOptions o = ItchyOptions();
  ControlParameters p;
  VelocityInputs in;
  in.pose = {0, 0, 0};
  const auto wall = DenseWallAcross(0.65);
  in.obstacle_points = wall;
  in.goal = {-5, -1};
  in.target_heading = -0.9 * kPi;
  VelocityOutput out;
  VelocityController(o).Tick(in, p, &out);
  EXPECT_TRUE(out.reversing);
  EXPECT_DOUBLE_EQ(out.command.v, -0.1);
  EXPECT_NEAR(out.command.omega, -0.1 / o.body.min_turning_radius, 1e-12);
  // Backing, it keeps backing on the arc while that is clear...
  in.v = -0.1;
  VelocityController(o).Tick(in, p, &out);
  EXPECT_TRUE(out.reversing);
  EXPECT_LT(out.command.omega, 0.0);
  // ...and when a wall closes the way back, the next leg is forward: it stands this tick (the window cannot go
  // forward from −0.1 m/s), then takes the forward arc once stopped.
  const auto closed_behind = DenseWallAcross(-0.16);
  in.obstacle_points = closed_behind;
  VelocityController(o).Tick(in, p, &out);
  EXPECT_FALSE(out.reversing);
  EXPECT_TRUE(out.turning_arc);
  EXPECT_EQ(out.command.v, 0.0);
  EXPECT_EQ(out.command.omega, 0.0);
  in.v = 0.0;
  VelocityController(o).Tick(in, p, &out);
  EXPECT_TRUE(out.turning_arc);
  EXPECT_DOUBLE_EQ(out.command.v, 0.05);
  EXPECT_LT(out.command.omega, 0.0);  // to the right, towards θ_T
}

TEST(ThreePointTurn, CornerBacksStraightOnlyWhenNoTurningArcIsClear) {
  // A wall 7 cm beyond its nose and one 9 cm from its right side, θ_T behind to the right: forward right puts the
  // nose into the front wall; backing on the right-turning arc swings the nose into the right wall; straight back
  // keeps both clear — so, and only so, it backs straight.
  const VelocityOptions o = ItchyOptions();
  ControlParameters p;
  VelocityInputs in;
  in.pose = {0, 0, 0};
  const auto corner = Join(DenseWallAcross(0.65), DenseWallAlong(-0.35, -1.5, 0.65));
  in.obstacle_points = corner;
  in.goal = {-5, -1};
  in.target_heading = -0.9 * kPi;
  VelocityOutput out;
  VelocityController(o).Tick(in, p, &out);
  EXPECT_TRUE(out.reversing);
  EXPECT_DOUBLE_EQ(out.command.v, -0.1);
  EXPECT_EQ(out.command.omega, 0.0);
  // Boxed in as well (a wall 3 cm behind the tail): no leg is clear; it does not move backwards.
  const auto boxed = Join(corner, DenseWallAcross(-0.18));
  in.obstacle_points = boxed;
  VelocityController(o).Tick(in, p, &out);
  EXPECT_FALSE(out.reversing);
  EXPECT_FALSE(out.turning_arc);
  EXPECT_GE(out.command.v, 0.0);
  // MARVIN never takes a leg: it turns on the spot.
  in.obstacle_points = corner;
  VelocityController marvin;
  marvin.Tick(in, p, &out);
  EXPECT_FALSE(out.reversing);
  EXPECT_FALSE(out.turning_arc);
}

// Closed loop, no simulator: Itchy in a dead end 1.2 m wide (walls sensed as points, 1 cm apart), its nose 10 cm from
// the end wall, θ_T straight back out. Each command is driven exactly for one period.
struct DeadEndRun {
  int ticks = 0;         // until θ_T is within βπ/2 (600: never)
  int legs = 0;          // changes of direction of travel, the first move included
  bool touched = false;  // a wall point reached the outline
};
DeadEndRun TurnInADeadEnd(const VelocityOptions& o) {
  ControlParameters p;
  const auto walls =
      Join(Join(DenseWallAcross(0.68), DenseWallAlong(0.6, -3.0, 0.68)), DenseWallAlong(-0.6, -3.0, 0.68));
  VelocityController controller(o);
  VelocityInputs in;
  in.pose = {0, 0, 0};
  in.obstacle_points = walls;
  in.goal = {-5, 0};
  in.target_heading = kPi;
  VelocityOutput out;
  DeadEndRun run;
  double direction = 0.0;
  for (; run.ticks < 600 && geometry::AngleDistance(in.pose.theta, in.target_heading) >= 0.5 * p.beta * kPi;
       ++run.ticks) {
    controller.Tick(in, p, &out);
    const double sign = out.command.v > 0.0 ? 1.0 : (out.command.v < 0.0 ? -1.0 : 0.0);
    if (sign != 0.0 && sign != direction) {
      ++run.legs;
      direction = sign;
    }
    in.pose = geometry::IntegrateArc(in.pose, out.command.v, out.command.omega, 0.1);
    in.v = out.command.v;
    in.omega = out.command.omega;
    for (const Vec2& q : walls) {
      const Vec2 d = q - in.pose.Position();
      const Vec2 local(std::cos(in.pose.theta) * d.x() + std::sin(in.pose.theta) * d.y(),
                       -std::sin(in.pose.theta) * d.x() + std::cos(in.pose.theta) * d.y());
      if (o.body.outline.SignedDistance(local) <= 0.0) run.touched = true;
    }
  }
  return run;
}

// The three-point turn brings θ_T within βπ/2 in a few legs without the outline ever touching a wall; the recovery
// before it (backing only when stuck, straight when the arc is blocked, judged by r_v) does not.
TEST(ThreePointTurn, TurnsAroundInADeadEndWithoutTouchingAWall) {
  const DeadEndRun turn = TurnInADeadEnd(ItchyOptions());
  EXPECT_LT(turn.ticks, 600) << "θ_T never came within βπ/2";
  EXPECT_GE(turn.legs, 3);  // back, forward, back at least
  EXPECT_FALSE(turn.touched);
  VelocityOptions before = ItchyOptions();
  before.three_point_turn = false;
  before.outline_check = false;
  const DeadEndRun old = TurnInADeadEnd(before);
  std::cout << "three-point turn: " << turn.ticks << " ticks, " << turn.legs << " legs; before: " << old.ticks
            << " ticks, " << old.legs << " legs, " << (old.touched ? "touched a wall" : "no contact") << "\n";
  EXPECT_TRUE(old.ticks == 600 || old.touched);
}

// Issue 18 (the Tank's front contacts), VelocityOptions::candidate_outline_check. The Tank is a 0.70 × 0.52 m rectangle
// about R's origin: front 0.35 m ahead, half-width w = 0.26 m (so r_v = r_o + (0.26 − 0.35) = 0.26 m), corners
// sqrt(0.35² + 0.26²) = 0.4360 m out at ±atan(0.26/0.35) = ±0.6386 rad. Facing a wall 0.40 m ahead, at rest: the
// window is v ∈ [0, 0.05], ω ∈ [−π/10, π/10] (α_max·T = π·0.1). Turning on the spot at ω = π/10 over t_1..t_2 =
// 0.1..1 s turns it by up to π/10 = 0.3142 rad: the leading corner ends at x = 0.4360·cos(0.6386 − 0.3142) = 0.4133, 13
// mm into the wall. Judged by its centre (a point for v = 0), d_o = 0.40 ≥ r_v for every ω: the turn is scored like
// standing (a_ω = κ + (1 − κ)·sqrt(0.14/0.74) = 0.4632). Judged by its outline, d_o = w + least gap = 0.26 − 0.0133 =
// 0.2467 < r_v: a_ω = κ·d_o/r_v < κ (eq. 5.22's first branch), while standing keeps d_o = 0.26 + 0.05 = 0.31.
TEST(CandidateOutline, TankTurningOnTheSpotIntoAWallIsRefused) {
  const ControllerBody tank = ControllerBody::From(robot::LoadRobotDescription("tank", kRobotDir));
  ASSERT_NEAR(tank.outline.HalfWidthAcross(0.0), 0.26, 1e-12);
  ASSERT_NEAR(tank.outline.reach_from_origin(), std::hypot(0.35, 0.26), 1e-12);
  const ControlParameters p;
  const double kappa = p.kappa, r_v = BodyObstacleRadius(p.r_o, 0.26);
  const auto wall = DenseWallAcross(0.40);
  VelocityInputs in;
  in.pose = {0, 0, 0};
  in.obstacle_points = wall;
  in.goal = {0, 3};
  in.target_heading = 0.5 * kPi;  // the goal to the left: eq. 5.28 wants a turn on the spot
  VelocityOptions o;
  o.body = tank;
  VelocityOutput before, after;
  VelocityController(o).Tick(in, p, &before);
  o.candidate_outline_check = true;
  VelocityController(o).Tick(in, p, &after);
  const int n_w = p.n_omega;
  ASSERT_EQ(before.v_samples[0], 0.0);
  ASSERT_NEAR(before.omega_samples[n_w - 1], 0.1 * kPi, 1e-12);
  const int standing = (n_w - 1) / 2, turning = n_w - 1, turning_right = 0;  // row v = 0
  ASSERT_EQ(before.omega_samples[standing], 0.0);
  // Before: the turn is judged like standing, and wins (it turns towards θ_T).
  const double a_before = kappa + (1.0 - kappa) * std::sqrt((0.40 - r_v) / (p.d_v_max - r_v));
  EXPECT_NEAR(before.sensor_distance[turning], 0.40, 1e-12);
  EXPECT_NEAR(before.sensor_avoidance[turning], a_before, 1e-12);
  EXPECT_EQ(before.sensor_avoidance[turning], before.sensor_avoidance[standing]);
  EXPECT_EQ(before.v_index, 0);
  EXPECT_EQ(before.omega_index, turning);
  // After: the corner's sweep (least gap −0.0133 m against a continuous wall; this wall's points are 1 cm apart, so
  // the deepest is a little short of the corner: 1.4 mm here. The bound is within the sampling's half step, 5 mm,
  // below).
  const double gap = 0.40 - std::hypot(0.35, 0.26) * std::cos(std::atan2(0.26, 0.35) - 0.1 * kPi);
  ASSERT_NEAR(gap, -0.0133, 1e-4);
  for (const int i : {turning, turning_right}) {
    EXPECT_LE(after.sensor_distance[i], 0.26 + gap + 0.002) << i;
    EXPECT_GE(after.sensor_distance[i], 0.26 + gap - 0.005) << i;
    EXPECT_LT(after.sensor_avoidance[i], kappa) << i;
  }
  EXPECT_NEAR(after.sensor_distance[standing], 0.31, 1e-12);  // no motion: the front's gap, exact
  EXPECT_GT(after.sensor_avoidance[standing], kappa);
  // What it does instead turns its outline into nothing: the chosen motion keeps the body out of the wall.
  EXPECT_NE(after.omega_index, turning);
  EXPECT_GE(SweepOutline(tank.outline, {0, 0, 0}, after.command.v, after.command.omega, p.t_2, wall, 0.0).least,
            -1e-12);
}

// Creeping straight at a wall 0.80 m ahead at 0.3 m/s: the centre's segment ends 0.30 m on, d_o = 0.50 by the centre,
// but the front then stands 0.15 m from the wall: by the outline d_o = w + 0.15 = 0.41 — the gap graded as it is beside
// the body. Beside a wall (0.40 m to the left, driving along it) both give 0.40: a side gap is judged as before (to the
// sampling's bound).
TEST(CandidateOutline, TheFrontIsGradedLikeTheSide) {
  const ControllerBody tank = ControllerBody::From(robot::LoadRobotDescription("tank", kRobotDir));
  ControlParameters p;
  p.n_v = 3;
  p.n_omega = 3;
  VelocityOptions o;
  o.body = tank;
  VelocityController centre_check(o);
  o.candidate_outline_check = true;
  VelocityController outline_check(o);
  VelocityInputs in;
  in.pose = {0, 0, 0};
  in.v = 0.3;
  in.goal = {10, 0};
  in.target_heading = 0.0;
  const int straight = 1 * 3 + 1;  // v = 0.3, ω = 0
  const auto ahead = DenseWallAcross(0.80);
  in.obstacle_points = ahead;
  VelocityOutput a, b;
  centre_check.Tick(in, p, &a);
  outline_check.Tick(in, p, &b);
  ASSERT_EQ(a.v_samples[1], 0.3);
  ASSERT_EQ(a.omega_samples[1], 0.0);
  EXPECT_NEAR(a.sensor_distance[straight], 0.50, 1e-12);
  EXPECT_LE(b.sensor_distance[straight], 0.41 + 1e-12);
  EXPECT_GE(b.sensor_distance[straight], 0.41 - 0.005);
  EXPECT_LT(b.sensor_avoidance[straight], a.sensor_avoidance[straight]);
  const auto beside = DenseWallAlong(0.40, -3.0, 3.0);
  in.obstacle_points = beside;
  centre_check.Tick(in, p, &a);
  outline_check.Tick(in, p, &b);
  EXPECT_NEAR(a.sensor_distance[straight], 0.40, 1e-12);
  EXPECT_LE(b.sensor_distance[straight], 0.40 + 1e-12);
  EXPECT_GE(b.sensor_distance[straight], 0.40 - 0.005);
}

// A circle's outline check is today's r_v check: the outline of a circle of radius r_R swept along the centre's path
// is nearest a point at d_o − r_R, so w + gap = r_R + d_o − r_R = d_o. Checked against the swept outline itself (it
// bounds d_o − r_R from below within its half step) over random candidates, and the option leaves MARVIN's results —
// and an offset circle's — the same to the bit.
TEST(CandidateOutline, ACircleIsJudgedExactlyAsBefore) {
  const ControllerBody marvin = ControllerBody::From(robot::LoadRobotDescription("marvin", kRobotDir));
  ASSERT_TRUE(marvin.outline.is_circle());
  std::mt19937_64 rng(22);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  for (int trial = 0; trial < 40; ++trial) {
    const std::vector<Vec2> pts{{1.5 * u(rng), 1.5 * u(rng)}};
    const double v = 0.5 * (u(rng) + 1.0), om = 0.6 * u(rng);
    const geometry::Pose2 pose{0.2, -0.1, 0.7};
    const CurvatureSegment segment(pose, v, om, 0.1, 1.0);
    OutlineSweep sweep;
    sweep.Set(marvin.outline, geometry::IntegrateArc(pose, v, om, 0.1), v, om, 0.9);
    const double gap = sweep.At(pts[0]).bound, d_o = segment.Distance(pts[0]);
    EXPECT_LE(marvin.outline.radius() + gap, d_o + 1e-12) << trial;
    EXPECT_GE(marvin.outline.radius() + gap, d_o - 0.005) << trial;
  }
  ControlParameters p;
  p.w_v2 = 0.5;
  for (const ControllerBody& body : {marvin, ControllerBody{robot::Body::Circle(0.3, {0.1, 0.0})}}) {
    VelocityOptions off;
    off.body = body;
    VelocityOptions on = off;
    on.candidate_outline_check = true;
    VelocityController a_controller(off), b_controller(on);
    ExpectTheSameOnScatteredScenes(a_controller, b_controller, p);
  }
}

// Map points are judged by the outline only when a_m counts (W_v2 > 0); with W_v2 = 0 their d_o is the centre's, as
// before (they cannot change the objective). An empty scene: every d_o is d_v(max), no sweep needed.
TEST(CandidateOutline, MapPointsByTheOutlineOnlyWhenTheyCount) {
  const ControllerBody tank = ControllerBody::From(robot::LoadRobotDescription("tank", kRobotDir));
  ControlParameters p;
  VelocityOptions o;
  o.body = tank;
  VelocityController centre_check(o);
  o.candidate_outline_check = true;
  VelocityController outline_check(o);
  VelocityInputs in;
  in.pose = {0, 0, 0};
  in.goal = {0, 3};
  in.target_heading = 0.5 * kPi;
  VelocityOutput a, b;
  outline_check.Tick(in, p, &b);
  for (const double d : b.sensor_distance) EXPECT_EQ(d, p.d_v_max);
  const auto wall = DenseWallAcross(0.40);
  in.map_points = wall;
  p.w_v2 = 0.0;
  centre_check.Tick(in, p, &a);
  outline_check.Tick(in, p, &b);
  EXPECT_EQ(a.map_distance, b.map_distance);
  p.w_v2 = 0.9;
  outline_check.Tick(in, p, &b);
  EXPECT_LT(b.map_avoidance[p.n_omega - 1], p.kappa);  // the turn on the spot, as in the sensor test above
}

// OutlineSweep::BoundBelow skips samples by the body-centre circle and is still exactly min(At(p).bound, below).
TEST(CandidateOutline, BoundBelowIsExactlyTheBoundCappedAtBelow) {
  for (const char* name : {"tank", "itchy"}) {
    const ControllerBody body = ControllerBody::From(robot::LoadRobotDescription(name, kRobotDir));
    std::mt19937_64 rng(7);
    std::uniform_real_distribution<double> u(-1.0, 1.0);
    OutlineSweep sweep;
    for (int trial = 0; trial < 200; ++trial) {
      sweep.Set(body.outline, {0.1, -0.2, 0.4}, 0.5 * u(rng), u(rng), 0.9);
      const Vec2 p(1.5 * u(rng), 1.5 * u(rng));
      for (const double below : {-0.05, 0.0, 0.1, 0.74}) {
        EXPECT_EQ(sweep.BoundBelow(p, below), std::min(sweep.At(p).bound, below)) << name << " " << trial;
      }
    }
  }
}
}  // namespace
}  // namespace limbic::controller
