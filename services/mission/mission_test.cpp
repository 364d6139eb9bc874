#include "services/mission/mission.hpp"

#include <gtest/gtest.h>

namespace limbic::mission {
namespace {

MissionInputs At(double t, double x, double y, double v = 0.5) {
  MissionInputs in;
  in.time = t;
  in.true_pose = {x, y, 0};
  in.true_speed = v;
  return in;
}

TEST(MissionTracker, FirstTraversalHeadsForTheGoalThenBack) {
  MissionTracker m({.iterations = 2}, {1, 1}, {5, 1});
  auto out = m.Step(At(0.0, 1, 1));
  ASSERT_TRUE(out.new_goal);
  EXPECT_EQ(out.new_goal->goal, geometry::Vec2(5, 1));
  EXPECT_EQ(out.new_goal->instruction_id, 1);
  EXPECT_DOUBLE_EQ(out.new_goal->distance_at_start, 4.0);
  EXPECT_FALSE(m.Step(At(0.1, 3, 1)).finished);
  // Within 0.35 m: arrived at t = 8; the second traversal starts back to the start.
  out = m.Step(At(8.0, 4.7, 1));
  ASSERT_TRUE(out.finished);
  EXPECT_TRUE(out.finished->success);
  EXPECT_DOUBLE_EQ(out.finished->completion_time_s, 8.0);
  EXPECT_FALSE(out.finished->run_finished);
  ASSERT_TRUE(out.new_goal);
  EXPECT_EQ(out.new_goal->goal, geometry::Vec2(1, 1));
  EXPECT_EQ(out.new_goal->instruction_id, 2);
  // Last traversal ends the run and withdraws the instruction.
  out = m.Step(At(15.0, 1.2, 1.1));
  ASSERT_TRUE(out.finished);
  EXPECT_TRUE(out.finished->run_finished);
  ASSERT_TRUE(out.new_goal);
  EXPECT_EQ(out.new_goal->instruction_id, -1);
  EXPECT_FALSE(m.Step(At(15.1, 1.2, 1.1)).finished);  // done: nothing more
}

TEST(MissionTracker, TimeoutCountsAsFailureWith600Seconds) {
  MissionTracker m({.iterations = 1, .timeout_s = 600}, {1, 1}, {19, 11});
  m.Step(At(0.0, 1, 1, 0.0));
  EXPECT_FALSE(m.Step(At(599.9, 1, 1, 0.0)).finished);
  auto out = m.Step(At(600.0, 1, 1, 0.0));
  ASSERT_TRUE(out.finished);
  EXPECT_FALSE(out.finished->success);
  EXPECT_DOUBLE_EQ(out.finished->completion_time_s, 600.0);
}

TEST(MissionTracker, MetricsOfATraversal) {
  MissionTracker m({.iterations = 1}, {0, 0}, {10, 0});
  // 60 s at 0.5 m/s with two collision events and 6 s of compute time; arrival at t = 60.
  double t = 0;
  for (int i = 0; i < 600; ++i, t += 0.1) {
    MissionInputs in = At(t, 0.015 * i, 0, 0.5);  // short of the goal until the last tick
    in.new_collision = (i == 100 || i == 300);
    in.compute_time_s = 0.01;
    in.coverage = 0.25;
    m.Step(in);
  }
  MissionInputs last = At(60.0, 9.8, 0, 0.5);
  last.coverage = 0.3;
  auto out = m.Step(last);
  ASSERT_TRUE(out.finished);
  const auto& r = *out.finished;
  EXPECT_NEAR(r.completion_time_s, 60.0, 1e-9);
  EXPECT_EQ(r.collisions, 2);
  EXPECT_NEAR(r.collisions_per_min, 2.0, 1e-9);
  EXPECT_NEAR(r.mean_velocity, 0.5, 1e-12);
  EXPECT_NEAR(r.exec_time_ratio, 6.0 / 60.0, 1e-9);
  EXPECT_NEAR(r.distance_travelled, 601 * 0.05, 1e-9);
  EXPECT_DOUBLE_EQ(r.coverage, 0.3);
}

TEST(MissionTracker, ZeroIterationsRunsForever) {
  MissionTracker m({.iterations = 0}, {0, 0}, {1, 0});
  m.Step(At(0, 0, 0));
  for (int k = 1; k <= 5; ++k) {
    auto out = m.Step(At(k, k % 2 == 1 ? 1.0 : 0.0, 0));
    ASSERT_TRUE(out.finished);
    EXPECT_FALSE(out.finished->run_finished);
  }
}

TEST(MissionTracker, RejectsBadOptions) {
  EXPECT_THROW(MissionTracker({.iterations = -1}, {0, 0}, {1, 0}), std::invalid_argument);
  EXPECT_THROW(MissionTracker({.goal_tolerance = 0}, {0, 0}, {1, 0}), std::invalid_argument);
}

}  // namespace
}  // namespace limbic::mission
