#include "services/laser_sim/episode.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

namespace limbic::laser {
namespace {

World Room(Vec2 start, Vec2 goal) {
  World w;
  w.start = start;
  w.goal = goal;
  w.optimal_path_cm = OptimalPath(w).length_cm;
  return w;
}

double ToGoal(const SensorFrame& f) { return BearingOf(f.goal - Vec2{f.odom.x_cm, f.odom.y_cm}); }

TEST(LaserEpisode, StraightToTheGoalInAnEmptyRoom) {
  const World w = Room({330, 40}, {330, 620});
  EpisodeOptions o;
  o.laser.error_model = LaserErrorModel::kNone;
  o.trajectory_every = 10;
  LaserEpisode e(w, o, 1);
  EXPECT_EQ(e.frame().cycle, 0);
  EXPECT_EQ(e.frame().ranges[180], 40);  // the south wall, from y = 40
  while (!e.done()) e.Advance(ToGoal(e.frame()));
  const EpisodeResult r = e.Result();
  EXPECT_TRUE(r.solved);
  // 565 cm (580 less the 15 cm goal radius): 0.59 s accelerating (29.4 cm), then 1 m/s: ≈ 6.25 s.
  EXPECT_NEAR(r.time_s, 0.59 + (565 - 29.4) / 100.0, 0.05);
  EXPECT_NEAR(r.path_cm, 565.0, 1.0);
  EXPECT_DOUBLE_EQ(r.efficiency, 1.0);  // 579 / 565, clamped (A34)
  EXPECT_EQ(r.collisions, 0u);
  EXPECT_NEAR(r.final_goal_distance_cm, 15.0, 1.0);
  EXPECT_DOUBLE_EQ(r.closest_contact_cm, 40.0);  // the south wall at the start
  EXPECT_EQ(r.cycles, std::llround(r.time_s / 0.01));
  EXPECT_GT(r.trajectory.size(), 60u);
  // Encoders: 20 counts per mm of each wheel's travel.
  EXPECT_NEAR(static_cast<double>(e.frame().odom.encoder_left), r.path_cm * 200.0, 200.0);
}

TEST(LaserEpisode, TimeLimitEndsAnUnsolvedEpisode) {
  const World w = Room({330, 40}, {330, 620});
  EpisodeOptions o;
  o.time_limit_s = 1.0;
  LaserEpisode e(w, o, 1);
  int steps = 0;
  while (!e.done()) {
    e.Advance(180.0);  // away from the goal
    ++steps;
  }
  EXPECT_EQ(steps, 100);
  const EpisodeResult r = e.Result();
  EXPECT_FALSE(r.solved);
  EXPECT_DOUBLE_EQ(r.time_s, 1.0);
  EXPECT_EQ(r.efficiency, 0.0);
  EXPECT_GT(r.final_goal_distance_cm, 500.0);
  e.Advance(0.0);  // no effect once done
  EXPECT_EQ(e.Result().cycles, 100);
}

TEST(LaserEpisode, ACollidingStepIsUndoneAndCountedOnce) {
  // Drive north at full speed, then swing east into a disc beside the corridor: the wheels cannot stop
  // in time (a_max) and the turn sweeps the body into it.
  World w = Room({330, 40}, {330, 620});
  w.obstacles.push_back({372, 150, 20});
  EpisodeOptions o;
  o.laser.error_model = LaserErrorModel::kNone;
  o.time_limit_s = 4.0;
  LaserEpisode e(w, o, 1);
  int collided_cycles = 0;
  while (!e.done()) {
    e.Advance(e.frame().time_s < 1.0 ? 0.0 : 90.0);
    const MotionState& s = e.truth();
    const double gap = std::hypot(s.x_cm - 372, s.y_cm - 150) - 35.0;
    EXPECT_GE(gap, 0.0) << "the robot overlaps the obstacle at cycle " << e.frame().cycle;
    if (e.in_collision()) {
      ++collided_cycles;
      EXPECT_EQ(s.v_left_cms, 0.0);
      EXPECT_EQ(s.v_right_cms, 0.0);
    }
  }
  const EpisodeResult r = e.Result();
  EXPECT_GE(collided_cycles, 1);
  EXPECT_EQ(r.collisions, 1u) << "one contact episode, however many cycles it lasts";
  EXPECT_LT(r.closest_contact_cm, 15.0 + 1.0);
}

TEST(LaserEpisode, SlipMakesOdometryDriftButNotTheCompass) {
  const World w = Room({330, 40}, {330, 620});
  EpisodeOptions o;
  o.slip_fraction = 0.05;
  LaserEpisode e(w, o, 7);
  for (int k = 0; k < 300; ++k) e.Advance(0.0);
  EXPECT_GT(std::fabs(e.frame().odom.y_cm - e.truth().y_cm), 0.01);
  EXPECT_DOUBLE_EQ(e.frame().odom.heading_deg, e.truth().heading_deg);
}

TEST(LaserEpisode, RefusesBadWorldsAndOptions) {
  World w = Room({330, 40}, {330, 620});
  EpisodeOptions o;
  o.time_limit_s = std::numeric_limits<double>::quiet_NaN();
  EXPECT_THROW(LaserEpisode(w, o, 1), std::invalid_argument);
  o = {};
  o.slip_fraction = -0.1;
  EXPECT_THROW(LaserEpisode(w, o, 1), std::invalid_argument);
  World blocked = w;
  blocked.obstacles.push_back({330, 50, 20});  // the robot does not fit at the start
  EXPECT_THROW(LaserEpisode(blocked, {}, 1), std::invalid_argument);
  World nan_world = w;
  nan_world.obstacles.push_back({std::numeric_limits<double>::quiet_NaN(), 50, 20});
  EXPECT_THROW(LaserEpisode(nan_world, {}, 1), std::invalid_argument);
}

TEST(LaserEpisode, SameSeedSameRun) {
  const World w = GenerateWorld(20, 3);
  auto run = [&](uint64_t seed) {
    LaserEpisode e(w, {}, seed);
    for (int k = 0; k < 500 && !e.done(); ++k) e.Advance(ToGoal(e.frame()) + 30.0 * std::sin(k * 0.05));
    return e.truth();
  };
  EXPECT_EQ(run(5).x_cm, run(5).x_cm);
  EXPECT_EQ(run(5).y_cm, run(5).y_cm);
}

}  // namespace
}  // namespace limbic::laser
