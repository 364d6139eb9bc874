#include "services/mission/mission.hpp"

#include <gtest/gtest.h>

#include <cmath>

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

// Finding 9 of issue 15: a restarted mission numbered traversals from 1 again and counted the partial
// traversal it woke up in as complete. Resumed, the traversal keeps its number, its start and its sums.
TEST(MissionTracker, AResumedTrackerCarriesOnTheTraversalUnderWay) {
  MissionTracker first({.iterations = 3}, {1, 1}, {5, 1});
  first.Step(At(0.0, 1, 1));
  ASSERT_TRUE(first.Step(At(8.0, 4.8, 1)).finished);  // traversal 1 done at t = 8; traversal 2 heads back
  first.Step(At(9.0, 4.5, 1, 0.4));
  MissionInputs bump = At(10.0, 4.0, 1, 0.4);
  bump.new_collision = true;
  first.Step(bump);
  const MissionState saved = first.state();
  ASSERT_EQ(saved.iteration, 2);
  ASSERT_EQ(saved.collisions, 1);

  // The new process's clock starts at 0; the traversal had run 2 s and the mission was down 1 s.
  MissionTracker resumed({.iterations = 3}, {1, 1}, {5, 1});
  resumed.Resume(saved, 3.0, 0.0);
  auto out = resumed.Step(At(0.1, 3.5, 1, 0.5));
  EXPECT_FALSE(out.new_goal) << "a resumed traversal keeps its instruction";
  EXPECT_FALSE(out.finished);
  out = resumed.Step(At(5.0, 1.1, 1, 0.5));
  ASSERT_TRUE(out.finished);
  EXPECT_EQ(out.finished->iteration, 2);                   // not 1 again
  EXPECT_DOUBLE_EQ(out.finished->completion_time_s, 8.0);  // 3 s before the restart + 5 s after
  EXPECT_EQ(out.finished->collisions, 1);                  // the collision before the restart counts
  EXPECT_EQ(out.new_goal->instruction_id, 3);
}

TEST(MissionTracker, AStateThatCannotBeResumedIsRefused) {
  MissionTracker m({.iterations = 3}, {1, 1}, {5, 1});
  MissionState bad;
  bad.iteration = 2;
  bad.speed_sum = std::nan("");
  EXPECT_THROW(m.Resume(bad, 1.0, 0.0), std::invalid_argument);
  bad.speed_sum = 0;
  EXPECT_THROW(m.Resume(bad, -1.0, 0.0), std::invalid_argument);
  EXPECT_EQ(m.state().iteration, 0);  // untouched
}

TEST(MissionTracker, LiveOptionsAreValidatedAndJudgeTheTraversalUnderWay) {
  MissionTracker m({.iterations = 0, .goal_tolerance = 0.35, .timeout_s = 600}, {1, 1}, {5, 1});
  m.Step(At(0.0, 1, 1));
  EXPECT_FALSE(m.Step(At(1.0, 4.0, 1)).finished);  // 1 m away
  EXPECT_THROW(m.SetOptions({.iterations = -1}), std::invalid_argument);
  EXPECT_THROW(m.SetOptions({.goal_tolerance = std::nan("")}), std::invalid_argument);
  EXPECT_EQ(m.options().goal_tolerance, 0.35);
  m.SetOptions({.iterations = 1, .goal_tolerance = 1.5, .timeout_s = 600});
  const auto out = m.Step(At(2.0, 4.0, 1));
  ASSERT_TRUE(out.finished);
  EXPECT_TRUE(out.finished->success);
  EXPECT_TRUE(out.finished->run_finished);  // iterations is now 1
}

}  // namespace
}  // namespace limbic::mission
