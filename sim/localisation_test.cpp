// Issue 14, one frame: the pose estimate the robot navigates by against the true pose, through hundreds of
// collisions (each with its 1 cm shift-back) and pushes by people.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include "sim/environment.hpp"
#include "sim/testing/open_area.hpp"
#include "sim/world.hpp"

namespace limbic::sim {
namespace {

struct DriveStats {
  int contact_cycles = 0;
  int64_t pushes = 0;
  double max_position_error = 0.0;
  double max_heading_error = 0.0;
};

// Drives robot 0 blind (no sensing: straight on at 0.6 m/s, a random turn every 2 s), so it runs into walls
// and obstacles again and again; with `flee` the humans are sent away from it, so they walk into it.
DriveStats DriveBlind(World* world, int steps, bool flee, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> turn(-0.5, 0.5);
  DriveStats stats;
  StepOutput out;
  std::vector<RobotInput> in(1);
  double bias = 0.0;
  for (int k = 0; k < steps; ++k) {
    if (k % 20 == 0) bias = turn(rng);
    in[0].wheels = {0.6 - bias, 0.6 + bias};
    in[0].humans_flee = flee;
    world->Step(0.1, in, &out);
    const RobotOutput& r = out.robots[0];
    if (r.truth.in_contact) ++stats.contact_cycles;
    stats.pushes = r.truth.pushes;
    const double dx = r.odometry.pose.x - r.truth.pose.x, dy = r.odometry.pose.y - r.truth.pose.y;
    stats.max_position_error = std::max(stats.max_position_error, std::hypot(dx, dy));
    stats.max_heading_error =
        std::max(stats.max_heading_error, std::abs(geometry::WrapAngle(r.odometry.pose.theta - r.truth.pose.theta)));
  }
  return stats;
}

World WorldIn(char set, int index) {
  Environment env = GenerateEnvironment(set, index, 1);
  World world(env, {});
  world.AddRobot({env.start.x(), env.start.y(), 0.0});
  return world;
}

// With the odometry error model at zero (every experiment of the research), the estimate equals the truth at
// every tick — collision responses included — in sets F and G (undetectable obstacles) ...
TEST(Localisation, EstimateEqualsTruthThroughHundredsOfCollisionsInSetsFAndG) {
  for (const char set : {'F', 'G'}) {
    World world = WorldIn(set, 2);
    const DriveStats s = DriveBlind(&world, 6000, false, 7);
    EXPECT_GE(s.contact_cycles, 300) << "set " << set << ": the blind drive should collide a lot";
    EXPECT_LE(s.max_position_error, 1e-9) << "set " << set;
    EXPECT_LE(s.max_heading_error, 1e-12) << "set " << set;
    std::cout << "set " << set << ": " << s.contact_cycles << " contact cycles, max |estimate - truth| "
              << s.max_position_error << " m\n";
  }
}

// ... and pushes by people. Robot 0 is "angry" (humans flee it, §3.4 extension) and is placed each step so
// that the one human, standing between it and robot 1, flees into robot 1 — 600 pushes, alternately from
// either side, while robot 1 drives.
TEST(Localisation, EstimateEqualsTruthThroughPushesByPeople) {
  World world(testing::OpenArea({}, {{10.0, 6.0}}), {});
  world.AddRobot({2.0, 2.0, 0.0});   // robot 0: the one humans flee
  world.AddRobot({10.7, 6.0, 0.3});  // robot 1: pushed
  StepOutput out;
  std::vector<RobotInput> in(2);
  in[0].humans_flee = true;
  double max_error = 0.0;
  for (int k = 0; k < 600; ++k) {
    WorldState* state = world.mutable_state();
    const Vec2 p = state->robots[1].pose.Position();
    const double side = k % 2 == 0 ? -1.0 : 1.0;  // human on robot 1's left (-x) or right (+x)
    state->humans[0].position = p + Vec2(side * 0.62, 0.0);
    state->robots[0].pose.x = p.x() + side * 3.0;
    state->robots[0].pose.y = p.y();
    const double turn = 0.1 * std::sin(0.05 * k);
    in[1].wheels = {0.2 - turn, 0.2 + turn};
    world.Step(0.1, in, &out);
    const RobotOutput& r = out.robots[1];
    max_error = std::max(max_error, std::hypot(r.odometry.pose.x - r.truth.pose.x, r.odometry.pose.y - r.truth.pose.y));
  }
  EXPECT_GE(out.robots[1].truth.pushes, 500);
  EXPECT_LE(max_error, 1e-9);
  std::cout << out.robots[1].truth.pushes << " pushes, max |estimate - truth| " << max_error << " m\n";
}

// The old behaviour, kept as the named option ExternalMotion::kUnseen: pure wheel odometry never sees the
// shift-backs, so the same drive leaves the estimate centimetres to metres away.
TEST(Localisation, UnseenExternalMotionDriftsWithEveryCollision) {
  Environment env = GenerateEnvironment('F', 2, 1);
  World world(env, {});
  RobotOptions o;
  o.odometry.external_motion = ExternalMotion::kUnseen;
  world.AddRobot({env.start.x(), env.start.y(), 0.0}, o);
  const DriveStats s = DriveBlind(&world, 6000, false, 7);
  EXPECT_GT(s.max_position_error, 0.5) << s.contact_cycles << " contact cycles";
}

// With errors on, the estimate drifts as eq. 4.8 says and only so. Systematic: ε_1 ≠ ε_2 on a straight
// drive gives ω_M = v·(ε_2 − ε_1)/d_w exactly (wheel 1 is the right wheel), so the heading error grows
// linearly — through collisions too (the shift-backs add no error).
TEST(Localisation, SystematicErrorBendsTheEstimateAsEquation48Says) {
  Environment env = GenerateEnvironment('B', 0, 1);
  World world(env, {});
  RobotOptions o;
  o.motor.kappa_v = 0.0;
  o.odometry.odo_sys_right = 0.005;  // Fig. 11.1
  world.AddRobot({env.start.x(), env.start.y(), 0.0}, o);
  StepOutput out;
  std::vector<RobotInput> in(1);
  in[0].wheels = {0.4, 0.4};
  double expected = 0.0;
  for (int k = 0; k < 300; ++k) {
    world.Step(0.1, in, &out);
    const GroundTruth& t = out.robots[0].truth;
    // ω_M − ω = (v_R·(1 + ε) − v_L − (v_R − v_L))/d_w = ε·v_R/d_w.
    expected += 0.1 * 0.005 * t.wheel_right / o.model.wheel_separation() * (t.v != 0.0 || t.omega != 0.0 ? 1 : 0);
    const double heading_error = geometry::WrapAngle(out.robots[0].odometry.pose.theta - t.pose.theta);
    ASSERT_NEAR(heading_error, expected, 1e-9) << "step " << k;
  }
  EXPECT_GT(expected, 0.01);
}

// Random (ε_3): per step the heading error gains ε_3·dt·(n_R·v_R − n_L·v_L)/d_w, so over k steps of a
// straight drive at v its variance is k·2·(ε_3·v·dt/d_w)². 400 robots (seeds) × 200 steps in the open set A.
TEST(Localisation, RandomErrorHeadingVarianceFollowsTheModel) {
  const double eps3 = 0.05, v = 0.5, dt = 0.1, d_w = 0.6;
  const int robots = 400, steps = 200;
  double sum = 0.0, sum2 = 0.0;
  for (int seed = 1; seed <= robots; ++seed) {
    WorldOptions wo;
    wo.seed = static_cast<uint64_t>(seed);
    World world(testing::OpenArea(), wo);
    RobotOptions o;
    o.motor.kappa_v = 0.0;
    o.motor.v_min1 = o.motor.v_min2 = 0.0;
    o.odometry.odo_rand = eps3;
    world.AddRobot({1.0, 6.0, 0.0}, o);
    // Settle the wheels at v first with errors counted from then on.
    std::vector<RobotInput> in(1);
    in[0].wheels = {v, v};
    StepOutput out;
    for (int k = 0; k < 60; ++k) world.Step(dt, in, &out);
    const double start = geometry::WrapAngle(out.robots[0].odometry.pose.theta - out.robots[0].truth.pose.theta);
    for (int k = 0; k < steps; ++k) world.Step(dt, in, &out);
    ASSERT_FALSE(out.robots[0].truth.in_contact);
    ASSERT_NEAR(out.robots[0].truth.wheel_right, v, 1e-9);
    const double e = geometry::WrapAngle(out.robots[0].odometry.pose.theta - out.robots[0].truth.pose.theta) - start;
    sum += e;
    sum2 += e * e;
  }
  const double mean = sum / robots;
  const double variance = sum2 / robots - mean * mean;
  const double model = steps * 2.0 * std::pow(eps3 * v * dt / d_w, 2);
  // The sample variance of 400 normal draws has a relative sd of sqrt(2/399) ≈ 7 %: ±25 % is > 3 sd.
  EXPECT_NEAR(variance / model, 1.0, 0.25) << "variance " << variance << ", model " << model;
  EXPECT_NEAR(mean, 0.0, 4.0 * std::sqrt(model / robots));
}

}  // namespace
}  // namespace limbic::sim
