#include "sim/world.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "sim/testing/open_area.hpp"

namespace limbic::sim {
namespace {

using geometry::kPi;

using testing::OpenArea;

WorldObject Box(double x0, double y0, double x1, double y1, ObjectProperty p = ObjectProperty::kStatic) {
  return {0, ObjectKind::kObstacle, p, BoxVertices(x0, y0, x1, y1)};
}

RobotOptions Quiet() {
  RobotOptions o;
  o.motor.kappa_v = 0.0;
  o.motor.v_min1 = 0.0;
  o.motor.v_min2 = 0.0;
  o.range_noise.kappa_d = 0.0;
  return o;
}

std::vector<RobotInput> Wheels(double left, double right) {
  std::vector<RobotInput> in(1);
  in[0].wheels = {left, right};
  return in;
}

TEST(World, ArcThroughTheRobotModelMatchesTheClosedForm) {
  World world(OpenArea(), {});
  world.AddRobot({10, 6, 0.3}, Quiet());
  const auto in = Wheels(0.4, 0.6);  // (left, right): v = 0.5 m/s, ω = 0.2/0.6 = 1/3 rad/s, R = 1.5 m
  StepOutput out;
  for (int i = 0; i < 300; ++i) world.Step(0.1, in, &out);
  ASSERT_NEAR(out.robots[0].truth.wheel_left, 0.4, 1e-9);  // the PI loop has settled
  ASSERT_NEAR(out.robots[0].truth.wheel_right, 0.6, 1e-9);
  const Pose2 p0 = out.robots[0].truth.pose;
  const double v = 0.5, w = 1.0 / 3.0, r = v / w;
  const Vec2 centre(p0.x - r * std::sin(p0.theta), p0.y + r * std::cos(p0.theta));
  for (int n = 1; n <= 40; ++n) {
    world.Step(0.1, in, &out);
    const double theta = p0.theta + n * 0.1 * w;
    const Pose2& p = out.robots[0].truth.pose;
    EXPECT_NEAR(p.x, centre.x() + r * std::sin(theta), 1e-7);
    EXPECT_NEAR(p.y, centre.y() - r * std::cos(theta), 1e-7);
    EXPECT_NEAR(geometry::AngleDistance(p.theta, theta), 0.0, 1e-7);
    EXPECT_NEAR(out.robots[0].truth.v, v, 1e-9);
    EXPECT_NEAR(out.robots[0].truth.omega, w, 1e-9);
  }
  // Perfect odometry follows the same arc from the same start.
  EXPECT_NEAR(out.robots[0].odometry.pose.x, out.robots[0].truth.pose.x, 1e-9);
  EXPECT_NEAR(out.robots[0].odometry.pose.y, out.robots[0].truth.pose.y, 1e-9);
}

TEST(World, RaysMeetWallsAtHandComputedDistances) {
  // Wall face at x = 7; robot at (5, 5) facing +x; emitters 0.2 m out.
  World world(OpenArea({Box(7, 0, 7.1, 12)}), {});
  world.AddRobot({5, 5, 0}, Quiet());
  const StepOutput out = world.Step(0.1, Wheels(0, 0));
  const auto& beams = out.robots[0].raw_scan.beams;
  ASSERT_EQ(beams.size(), 60u);
  EXPECT_TRUE(beams[2].valid);  // sensor 0, 0°: 7 − 5.2
  EXPECT_NEAR(beams[2].range, 1.8, 1e-9);
  EXPECT_NEAR(beams[0].range, 1.8 / std::cos(10.0 * kPi / 180.0), 1e-9);  // −10°
  EXPECT_NEAR(beams[4].range, 1.8 / std::cos(10.0 * kPi / 180.0), 1e-9);  // +10°
  // Sensor 1 axis 36°, origin 0.2·(cos 36°, sin 36°), beam 0°.
  const double ox = 5 + 0.2 * std::cos(36.0 * kPi / 180.0);
  EXPECT_NEAR(beams[7].range, (7 - ox) / std::cos(36.0 * kPi / 180.0), 1e-9);
  // Nothing behind the robot within 3 m: invalid, range = d_max.
  EXPECT_FALSE(beams[27].valid);
  EXPECT_EQ(beams[27].range, 3.0);
  EXPECT_EQ(out.robots[0].raw_scan.tick, 1);
  // The short-range beam straight ahead sees nothing within 0.75 m.
  EXPECT_FALSE(beams[50].valid);
  EXPECT_EQ(beams[50].range, 0.75);
}

TEST(World, DeadZoneReadingUsesEquationFourTen) {
  // Wall face at x = 5.5: 0.3 m from the emitter at 5.2, inside the 0.4 m dead zone of the
  // long-range ring.
  World world(OpenArea({Box(5.5, 0, 5.6, 12)}), {});
  world.AddRobot({5, 5, 0}, Quiet());
  const StepOutput out = world.Step(0.1, Wheels(0, 0));
  EXPECT_NEAR(out.robots[0].raw_scan.beams[2].range, 0.4 + 0.1 * 2.6, 1e-9);
  EXPECT_NEAR(out.robots[0].raw_scan.beams[50].range, 0.3, 1e-9);  // short range: 0.3 ≥ 0.14
  EXPECT_TRUE(out.robots[0].raw_scan.beams[50].valid);
}

TEST(World, UndetectableObjectsAreIgnoredByBeamsButHitByTheBody) {
  World world(OpenArea({Box(6, 0, 6.2, 12, ObjectProperty::kLimitedVisibility), Box(7, 0, 7.1, 12)}), {});
  world.AddRobot({5, 5, 0}, Quiet());
  StepOutput out = world.Step(0.1, Wheels(0, 0));
  EXPECT_NEAR(out.robots[0].raw_scan.beams[2].range, 1.8, 1e-9);  // sees the wall behind it
  bool hit = false;
  for (int i = 0; i < 60 && !hit; ++i) {
    world.Step(0.1, Wheels(0.5, 0.5), &out);
    hit = out.robots[0].collision.occurred;
  }
  ASSERT_TRUE(hit);
  EXPECT_NEAR(out.robots[0].collision.contact_point.x(), 6.0, 1e-9);
  EXPECT_LT(out.robots[0].truth.pose.x, 6.0 - 0.35);
}

TEST(World, FloorObjectsAreSeenOnlyByTheShortRangeBeams) {
  World world(OpenArea({Box(5.8, 0, 6.0, 12, ObjectProperty::kFloor), Box(7, 0, 7.1, 12)}), {});
  world.AddRobot({5, 5, 0}, Quiet());
  const StepOutput out = world.Step(0.1, Wheels(0, 0));
  EXPECT_NEAR(out.robots[0].raw_scan.beams[2].range, 1.8,
              1e-9);                                               // long range: through the drop-off
  EXPECT_NEAR(out.robots[0].raw_scan.beams[50].range, 0.6, 1e-9);  // short range: 5.8 − 5.2
}

TEST(World, RangeNoiseIsProportionalToRange) {
  RobotOptions o = Quiet();
  o.range_noise.kappa_d = 0.04;
  World world(OpenArea({Box(7, 0, 7.1, 12)}), {});
  world.AddRobot({5, 5, 0}, o);
  double sum = 0, sum2 = 0;
  const int n = 4000;
  StepOutput out;
  for (int i = 0; i < n; ++i) {
    world.Step(0.1, Wheels(0, 0), &out);
    const double r = out.robots[0].raw_scan.beams[2].range;
    sum += r;
    sum2 += r * r;
  }
  const double mean = sum / n, sd = std::sqrt(sum2 / n - mean * mean);
  EXPECT_NEAR(mean, 1.8, 0.01);
  EXPECT_NEAR(sd, 0.04 * 1.8, 0.006);  // σ = κ_d·d
}

TEST(World, RobotsSeeEachOtherAsCircles) {
  World world(OpenArea(), {});
  world.AddRobot({5, 5, 0}, Quiet());
  world.AddRobot({7, 5, kPi}, Quiet());
  std::vector<RobotInput> in(2);
  const StepOutput out = world.Step(0.1, in);
  EXPECT_NEAR(out.robots[0].raw_scan.beams[2].range, 2 - 0.35 - 0.2, 1e-9);
  EXPECT_NEAR(out.robots[1].raw_scan.beams[2].range, 2 - 0.35 - 0.2, 1e-9);
}

// Issue 18: a scan tests only the robots its beams may reach (a metre of margin beyond the farthest beam
// reach). Robots on rings from 1 m out to well beyond that reach, in an open area (no walls): every beam of
// the centre robot must read the nearest robot body along it, computed here from the layout for all robots.
TEST(World, ScansSeeEveryRobotWithinReachAmongMany) {
  World world(OpenArea(), {});
  const geometry::Pose2 centre{10, 6, 0.3};
  world.AddRobot(centre, Quiet());
  std::vector<geometry::Vec2> others;
  for (int k = 0; k < 24; ++k) {
    const double distance = 1.0 + 0.45 * k;  // 1 m to 11.35 m
    const double bearing = 0.7 * k;
    others.push_back(centre.Position() + distance * geometry::UnitVector(bearing));
    world.AddRobot({others.back().x(), others.back().y(), 0.0}, Quiet());
  }
  std::vector<RobotInput> in(others.size() + 1);
  const StepOutput out = world.Step(0.1, in);
  const double radius = Quiet().model.radius();
  const std::vector<RangeBeam>& layout = world.beam_layout(0);
  const geometry::Pose2 pose = out.robots[0].truth.pose;
  int seen = 0;
  for (size_t i = 0; i < layout.size(); ++i) {
    const RangeBeam& b = layout[i];
    const geometry::Vec2 origin = pose.ToWorld(b.origin_local);
    const geometry::Vec2 dir = geometry::UnitVector(pose.theta + b.angle_local);
    double t = std::numeric_limits<double>::infinity();
    for (const geometry::Vec2& c : others) {
      if (auto hit = geometry::RayCircleIntersection(origin, dir, c, radius)) t = std::min(t, *hit);
    }
    const RangeBeam& got = out.robots[0].raw_scan.beams[i];
    if (t > b.d_max) {
      EXPECT_FALSE(got.valid) << "beam " << i;
      continue;
    }
    ++seen;
    ASSERT_TRUE(got.valid) << "beam " << i;
    EXPECT_NEAR(got.range, t, 1e-9) << "beam " << i;
  }
  EXPECT_GT(seen, 3);  // the test sees robots at all
}

TEST(World, CollisionRestoresThePoseShiftsOneCentimetreAndZeroesSpeed) {
  // Wall face at x = 5.5, robot surface at 5.35.
  World world(OpenArea({Box(5.5, 0, 5.6, 12)}), {});
  world.AddRobot({5, 5, 0}, Quiet());
  StepOutput out;
  int collisions = 0;
  bool previous_contact = false;
  for (int i = 0; i < 30; ++i) {
    const Pose2 before = world.state().robots[0].pose;
    world.Step(0.1, Wheels(1.0, 1.0), &out);
    const RobotOutput& r = out.robots[0];
    EXPECT_EQ(r.collision.new_event, r.collision.occurred && !previous_contact);  // §8 item 15
    previous_contact = r.collision.occurred;
    if (!r.collision.occurred) {
      EXPECT_LE(r.truth.pose.x + 0.35, 5.5);
      continue;
    }
    ++collisions;
    EXPECT_NEAR(r.truth.pose.x, before.x - 0.01,
                1e-12);  // restored, then 1 cm away from the contact
    EXPECT_NEAR(r.truth.pose.y, before.y, 1e-12);
    EXPECT_EQ(r.truth.pose.theta, before.theta);
    EXPECT_EQ(r.truth.v, 0.0);
    EXPECT_EQ(r.collision.sensor_ids, std::vector<int>({0}));
    EXPECT_NEAR(r.collision.contact_point.x(), 5.5, 1e-12);
    EXPECT_NEAR(r.collision.contact_point.y(), 5.0, 1e-9);
    EXPECT_GT(r.collision.speed_before, 0.0);
    EXPECT_TRUE(r.truth.in_contact);
  }
  EXPECT_GT(collisions, 0);
}

TEST(World, BumperSwitchFollowsTheContactBearing) {
  // Heading 45° into a wall on the +x side: the contact is at bearing −45° → switch 7.
  World world(OpenArea({Box(5.5, 0, 5.6, 12)}), {});
  world.AddRobot({5, 5, kPi / 4}, Quiet());
  StepOutput out;
  for (int i = 0; i < 40; ++i) {
    world.Step(0.1, Wheels(0.5, 0.5), &out);
    if (out.robots[0].collision.occurred) break;
  }
  ASSERT_TRUE(out.robots[0].collision.occurred);
  EXPECT_EQ(out.robots[0].collision.sensor_ids, std::vector<int>({7}));
}

TEST(World, HumanWalkingTowardsTheRobotStopsAtTheStopDistance) {
  World world(OpenArea({}, {{10, 6}}), {});
  world.AddRobot({5, 6, 0}, Quiet());
  world.mutable_state()->humans[0].mode = HumanMode::kTowards;
  world.mutable_state()->humans[0].time_to_change = 1e9;
  StepOutput out;
  for (int i = 0; i < 120; ++i) {
    world.Step(0.1, Wheels(0, 0), &out);
    const double gap = (out.humans[0].position - out.robots[0].truth.pose.Position()).norm() - 0.25 - 0.35;
    EXPECT_GE(gap, 0.2 - 1e-9);
    EXPECT_LE(out.humans[0].velocity.norm(), 0.8 + 1e-9);
  }
  const double gap = (out.humans[0].position - out.robots[0].truth.pose.Position()).norm() - 0.6;
  EXPECT_NEAR(gap, 0.2, 1e-9);
  EXPECT_EQ(out.humans[0].velocity.norm(), 0.0);
}

TEST(World, HumansChooseANewDirectionEveryFiveSeconds) {
  World world(OpenArea({}, {{10, 6}, {14, 8}, {4, 9}}), {});
  world.AddRobot({5, 3, 0}, Quiet());
  StepOutput out;
  for (int i = 0; i < 49; ++i) world.Step(0.1, Wheels(0, 0), &out);
  for (const HumanState& h : out.humans) EXPECT_NEAR(h.time_to_change, 0.1, 1e-9);
  world.Step(0.1, Wheels(0, 0), &out);
  for (const HumanState& h : out.humans) EXPECT_NEAR(h.time_to_change, 5.0, 1e-9);
}

TEST(World, FleeingHumanPushesARobotInItsWay) {
  // Robot 0 (angry) at x = 3; the human at x = 5 flees in +x into robot 1 at x = 5.65.
  World world(OpenArea({}, {{5, 6}}), {});
  world.AddRobot({3, 6, 0}, Quiet());
  world.AddRobot({5.65, 6, 0}, Quiet());
  std::vector<RobotInput> in(2);
  in[0].humans_flee = true;
  const StepOutput out = world.Step(0.1, in);
  EXPECT_TRUE(out.humans[0].fleeing);
  EXPECT_NEAR(out.humans[0].position.x(), 5.08, 1e-12);
  EXPECT_NEAR(out.robots[1].truth.pose.x, 5.08 + 0.6 + 1e-4, 1e-9);
  EXPECT_TRUE(out.robots[1].collision.occurred);
  EXPECT_EQ(out.robots[1].collision.sensor_ids, std::vector<int>({4}));  // pushed from behind
  EXPECT_FALSE(out.robots[0].collision.occurred);
}

TEST(World, HumanCannotPushARobotIntoAWall) {
  World world(OpenArea({Box(6.01, 0, 6.2, 12)}, {{5, 6}}), {});
  world.AddRobot({3, 6, 0}, Quiet());
  world.AddRobot({5.65, 6, 0}, Quiet());
  std::vector<RobotInput> in(2);
  in[0].humans_flee = true;
  const StepOutput out = world.Step(0.1, in);
  EXPECT_EQ(out.humans[0].position.x(), 5.0);  // blocked
  EXPECT_EQ(out.robots[1].truth.pose.x, 5.65);
}

TEST(World, SameSeedSameRunDifferentSeedDifferentRun) {
  const Environment env = GenerateEnvironment('E', 2, 5);
  auto run = [&](uint64_t seed) {
    WorldOptions wo;
    wo.seed = seed;
    World world(env, wo);
    world.AddRobot({env.start.x(), env.start.y(), 0});
    StepOutput out;
    std::vector<double> trace;
    for (int i = 0; i < 300; ++i) {
      world.Step(0.1, Wheels(0.5, 0.4), &out);
      trace.push_back(out.robots[0].truth.pose.x);
      trace.push_back(out.robots[0].raw_scan.beams[i % 60].range);
      for (const HumanState& h : out.humans) trace.push_back(h.position.y());
    }
    return trace;
  };
  EXPECT_EQ(run(3), run(3));
  EXPECT_NE(run(3), run(4));
}

TEST(World, RejectsAStartPoseInsideAnObstacleAndMismatchedInputs) {
  World world(OpenArea({Box(5, 5, 6, 6)}), {});
  EXPECT_THROW(world.AddRobot({5.5, 5.5, 0}), std::invalid_argument);
  world.AddRobot({2, 2, 0});
  EXPECT_THROW(world.Step(0.1, std::vector<RobotInput>(2)), std::invalid_argument);
}

}  // namespace
}  // namespace limbic::sim
