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

TEST(VelocityBody, MarvinsDescriptionGivesTheSameResultsBitForBit) {
  VelocityOptions with_body;
  with_body.body = ControllerBody::From(robot::LoadRobotDescription("marvin", kRobotDir));
  VelocityController plain, described(with_body);
  ControlParameters p;
  p.w_v2 = 0.5;
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
    plain.Tick(in, p, &a);
    described.Tick(in, p, &b);
    EXPECT_EQ(a.objective, b.objective) << seed;
    EXPECT_EQ(a.sensor_distance, b.sensor_distance) << seed;
    EXPECT_EQ(a.command.v, b.command.v) << seed;
    EXPECT_EQ(a.command.omega, b.command.omega) << seed;
  }
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
  VelocityController plain(VelocityOptions{.body = ControllerBody::From(itchy)});
  plain.Tick(in, p, &out);
  EXPECT_FALSE(out.turning_arc);
}

}  // namespace
}  // namespace limbic::controller
