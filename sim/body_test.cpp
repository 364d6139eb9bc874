#include "sim/body.hpp"

#include <gtest/gtest.h>

#include <cmath>

#include "sim/render_svg.hpp"
#include "sim/robot.hpp"
#include "sim/testing/open_area.hpp"
#include "sim/world.hpp"

namespace limbic::sim {
namespace {

using geometry::kPi;

const std::string kRobotDir = std::string(LIMBIC_SOURCE_ROOT) + "/configs/robots";

// A 1 × 0.5 rectangle about R's origin.
robot::Body Rectangle() { return robot::Body::Polygon({{-0.5, -0.25}, {0.5, -0.25}, {0.5, 0.25}, {-0.5, 0.25}}); }

TEST(PlacedBody, PolygonTouchesASegmentWhereItCrossesTheOutline) {
  const PlacedBody b(Rectangle(), {0, 0, 0});
  // A wall through x = 0.4 crosses the rectangle from y = −0.25 to 0.25: contact at its middle.
  auto p = b.ContactWithSegment({{0.4, -2}, {0.4, 2}});
  ASSERT_TRUE(p);
  EXPECT_NEAR(p->x(), 0.4, 1e-12);
  EXPECT_NEAR(p->y(), 0.0, 1e-12);
  // One end inside: from that end to the crossing (x from 0.2 to 0.5 on y = 0.1 → 0.35).
  p = b.ContactWithSegment({{0.2, 0.1}, {2.0, 0.1}});
  ASSERT_TRUE(p);
  EXPECT_NEAR(p->x(), 0.35, 1e-12);
  // Beyond the short side but within the circumscribed circle (0.56 m): no contact — a circle of that radius
  // would have touched.
  EXPECT_FALSE(b.ContactWithSegment({{-0.1, 0.3}, {0.1, 0.3}}));
  // Rotated by 90°: the same wall no longer reaches the body.
  EXPECT_FALSE(PlacedBody(Rectangle(), {0, 0, 0.5 * kPi}).ContactWithSegment({{0.4, -2}, {0.4, 2}}));
}

TEST(PlacedBody, PolygonAgainstCirclesPolygonsAndRays) {
  const PlacedBody b(Rectangle(), {0, 0, 0});
  // A disc of 0.2 at x = 0.6 overlaps the front side (x = 0.5) by 0.1: contact halfway into the overlap.
  auto p = b.ContactWithCircle({0.6, 0.0}, 0.2);
  ASSERT_TRUE(p);
  EXPECT_NEAR(p->x(), 0.45, 1e-12);
  EXPECT_FALSE(b.ContactWithCircle({0.71, 0.0}, 0.2));
  EXPECT_FALSE(b.ContactWithCircle({0.0, 0.46}, 0.2));  // beside the long side, 0.01 clear
  // Two rectangles overlapping end to end: the outlines cross at (0.5, ±0.25)... and (0.4, ±0.25): mean on y = 0.
  const PlacedBody other(Rectangle(), {0.9, 0, 0});
  p = b.ContactWith(other);
  ASSERT_TRUE(p);
  EXPECT_NEAR(p->x(), 0.45, 1e-12);
  EXPECT_NEAR(p->y(), 0.0, 1e-12);
  EXPECT_FALSE(b.ContactWith(PlacedBody(Rectangle(), {1.01, 0, 0})));
  // Polygon against a disc body (MARVIN) and back.
  const PlacedBody disc(robot::Body::Circle(0.35), {0.8, 0, 0});
  EXPECT_TRUE(b.ContactWith(disc));
  EXPECT_TRUE(disc.ContactWith(b));
  // Rays.
  auto t = b.RayHit({2, 0}, {-1, 0});
  ASSERT_TRUE(t);
  EXPECT_NEAR(*t, 1.5, 1e-12);
  EXPECT_FALSE(b.RayHit({2, 0}, {1, 0}));
  EXPECT_EQ(*b.RayHit({0, 0}, {1, 0}), 0.0);
}

TEST(PlacedBody, CircleUsesTheSpecRulesExactly) {
  const PlacedBody c(robot::Body::Circle(0.35), {1, 2, 0.3});
  const geometry::Segment wall{{1.3, 0}, {1.3, 4}};
  EXPECT_EQ(*c.ContactWithSegment(wall), *SegmentContactPoint(wall, {1, 2}, 0.35));
  EXPECT_EQ(*c.ContactWithCircle({1.5, 2}, 0.25), *CircleContactPoint({1, 2}, 0.35, {1.5, 2}, 0.25));
}

TEST(Drive, TricycleCannotTurnOnTheSpotAndKeepsItsMinimumRadius) {
  robot::Drive d;
  d.kind = robot::DriveKind::kTricycle;
  d.wheelbase = 0.4;
  d.max_steering_angle = 50.0 * kPi / 180.0;
  const double r_min = 0.4 / std::tan(50.0 * kPi / 180.0);
  EXPECT_EQ(LimitToDrive(d, {0.0, 0.5}).omega, 0.0);
  EXPECT_NEAR(LimitToDrive(d, {0.3, 2.0}).omega, 0.3 / r_min, 1e-12);
  EXPECT_NEAR(LimitToDrive(d, {0.3, -2.0}).omega, -0.3 / r_min, 1e-12);
  EXPECT_EQ(LimitToDrive(d, {0.3, 0.1}).omega, 0.1);  // within the limit: unchanged
  d.kind = robot::DriveKind::kDifferential;
  EXPECT_EQ(LimitToDrive(d, {0.0, 0.5}).omega, 0.5);
}

// An open 20 × 12 m area with one wall whose face is the line x = 15.
Environment Room() {
  WorldObject wall;
  wall.vertices = {{15, 0}, {15.1, 0}, {15.1, 12}, {15, 12}};
  return testing::OpenArea({wall});
}

TEST(WorldBodies, EachDriveMovesAsItsDescriptionSays) {
  for (const char* name : {"itchy", "tank", "marvin"}) {
    const robot::RobotDescription d = robot::LoadRobotDescription(name, kRobotDir);
    RobotOptions o;
    o.model = ModelFromDescription(d);
    o.motor.kappa_v = 0.0;  // noise-free motors
    World world(Room(), {});
    world.AddRobot({5, 6, 0}, o);
    // Spin in place: wheels ±0.2 m/s.
    const RobotInput spin{{-0.2, 0.2}, false};
    StepOutput out;
    for (int k = 0; k < 30; ++k) world.Step(0.1, std::span(&spin, 1), &out);
    const auto& t = out.robots[0].truth;
    const double track = d.drive.EffectiveTrack();
    if (d.drive.kind == robot::DriveKind::kTricycle) {
      EXPECT_EQ(t.omega, 0.0) << name;  // v = 0: the steered wheel allows no turn
      EXPECT_EQ(t.pose.theta, 0.0) << name;
    } else {
      EXPECT_NEAR(t.omega, 0.4 / track, 0.002) << name;  // eq. 4.5 with the (effective) track (PI settling)
    }
    // Odometry follows the truth exactly (errors 0).
    EXPECT_EQ(out.robots[0].odometry.pose, t.pose) << name;
  }
}

TEST(WorldBodies, TricycleTurnsNoTighterThanItsMinimumRadius) {
  const robot::RobotDescription d = robot::LoadRobotDescription("itchy", kRobotDir);
  RobotOptions o;
  o.model = ModelFromDescription(d);
  World world(Room(), {});
  world.AddRobot({5, 6, 0}, o);
  const RobotInput hard_left{{0.0, 0.6}, false};  // v = 0.3 m/s, ω = 1 rad/s (r_l = 0.3 m < r_lmin)
  StepOutput out;
  for (int k = 0; k < 40; ++k) {
    world.Step(0.1, std::span(&hard_left, 1), &out);
    const auto& t = out.robots[0].truth;
    EXPECT_LE(std::abs(t.omega), std::abs(t.v) / d.drive.MinTurningRadius() + 1e-12) << k;
  }
  EXPECT_GT(out.robots[0].truth.omega, 0.5);
}

TEST(WorldBodies, PolygonBumpsIntoAWallWithItsNoseAndIsSeenByOthers) {
  const robot::RobotDescription itchy = robot::LoadRobotDescription("itchy", kRobotDir);
  RobotOptions o;
  o.model = ModelFromDescription(itchy);
  o.motor.kappa_v = 0.0;
  World world(Room(), {});
  // The nose is 0.58 m ahead of R's origin: at x = 14.3 it is 0.12 m from the wall at x = 15.
  world.AddRobot({14.3, 6, 0}, o);
  RobotOptions marvin;
  world.AddRobot({12, 6, 0}, marvin);
  const RobotInput inputs[2] = {{{0.4, 0.4}, false}, {{0, 0}, false}};
  StepOutput out;
  bool hit = false;
  for (int k = 0; k < 30 && !hit; ++k) {
    world.Step(0.1, inputs, &out);
    hit = out.robots[0].collision.occurred;
  }
  ASSERT_TRUE(hit);
  const auto& ev = out.robots[0].collision;
  EXPECT_NEAR(ev.contact_point.x(), 15.0, 0.02);
  EXPECT_EQ(ev.sensor_ids, std::vector<int>{0});  // the front switch
  // The nose stopped short of the wall.
  EXPECT_LT(out.robots[0].truth.pose.x + 0.58, 15.0 + 1e-9);
  // MARVIN's forward beam (sensor 0, beam 0°) sees Itchy's rear side at x = pose.x − 0.15.
  const auto& beams = out.robots[1].raw_scan.beams;
  const double rear = out.robots[0].truth.pose.x - 0.15;
  EXPECT_TRUE(beams[2].valid);
  EXPECT_NEAR(beams[2].range, rear - 12.0 - 0.20, 0.2 * (rear - 12.0));  // κ_d noise  // from the emitter 0.2 m ahead
}

TEST(WorldBodies, AStartOverlappingAWallIsRefused) {
  RobotOptions o;
  o.model = ModelFromDescription(robot::LoadRobotDescription("tank", kRobotDir));
  World world(Room(), {});
  EXPECT_THROW(world.AddRobot({14.7, 6, 0}, o), std::invalid_argument);  // the front is 0.35 m ahead
  EXPECT_NO_THROW(world.AddRobot({14.7, 6, 0.5 * kPi}, o));              // turned, it is 0.26 m wide
}

}  // namespace
}  // namespace limbic::sim

namespace limbic::sim {
namespace {

TEST(RenderBodies, EachRobotIsDrawnWithItsOutline) {
  SvgOptions svg;
  BodyOverlay tank;
  tank.body = robot::LoadRobotDescription("tank", kRobotDir).body;
  tank.pose = {3, 3, 0};
  tank.goal = Vec2(10, 3);
  tank.label = "r1 tank";
  BodyOverlay marvin;  // the default body
  marvin.pose = {5, 3, 0};
  svg.bodies = {tank, marvin};
  const std::string text = RenderSvg(Room(), svg);
  size_t polygons = 0;
  for (size_t at = text.find("class=\"body\""); at != std::string::npos; at = text.find("class=\"body\"", at + 1))
    ++polygons;
  EXPECT_EQ(polygons, 2u);
  EXPECT_NE(text.find("r1 tank"), std::string::npos);
  EXPECT_NE(text.find("class=\"goal\""), std::string::npos);
  // The tank's corner (3.35, 3.26) at 40 px/m: x = 20 + 3.35·40 = 154.00.
  EXPECT_NE(text.find("154.00,"), std::string::npos);
}

}  // namespace
}  // namespace limbic::sim
