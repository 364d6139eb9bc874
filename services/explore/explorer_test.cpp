#include "services/explore/explorer.hpp"

#include <gtest/gtest.h>

namespace limbic::explore {
namespace {

ExplorerTask Task(int64_t id, std::vector<Vec2> waypoints) { return {false, id, 3, std::move(waypoints)}; }

TEST(Explorer, ReportsOnStartThenEveryReportPeriodAndCarriesTheEstimate) {
  Explorer e({0.5, 60.0}, 10);
  auto out = e.Step(0, 0.0, std::nullopt, {1, 1}, std::nullopt);
  ASSERT_TRUE(out.report) << "the first tick reports";
  EXPECT_EQ(out.report->position, Vec2(1, 1)) << "no odometry yet: the truth";
  EXPECT_EQ(out.report->task_id, -1);
  EXPECT_FALSE(out.goal);
  for (int64_t t = 1; t < 10; ++t) EXPECT_FALSE(e.Step(t, 0.1 * t, std::nullopt, {1, 1}, Vec2(1.2, 1)).report) << t;
  out = e.Step(10, 1.0, std::nullopt, {1, 1}, Vec2(1.2, 1));
  ASSERT_TRUE(out.report) << "ten ticks on";
  EXPECT_EQ(out.report->position, Vec2(1.2, 1)) << "the robot's own estimate, not the truth";
}

TEST(Explorer, DrivesATaskWithFreshInstructionIdsJudgingArrivalOnTheTruth) {
  Explorer e({0.5, 60.0}, 10);
  const ExplorerTask task = Task(7, {{2, 0}, {4, 0}});
  auto out = e.Step(0, 0.0, task, {0, 0}, Vec2(0, 0));
  EXPECT_TRUE(out.task_taken);
  ASSERT_TRUE(out.goal);
  EXPECT_TRUE(out.goal->active);
  EXPECT_EQ(out.goal->target, Vec2(2, 0));
  EXPECT_EQ(out.goal->instruction_id, 1);
  EXPECT_DOUBLE_EQ(out.goal->distance, 2.0);
  ASSERT_TRUE(out.report) << "a new task is reported at once";
  EXPECT_EQ(out.report->task_id, 7);
  // The same task again (latched input): nothing new.
  out = e.Step(1, 0.1, task, {1, 0}, Vec2(1, 0));
  EXPECT_FALSE(out.task_taken);
  EXPECT_FALSE(out.goal);
  // The odometry says it is there; the truth says not yet: not reached.
  out = e.Step(2, 0.2, task, {1.4, 0}, Vec2(2, 0));
  EXPECT_FALSE(out.goal);
  out = e.Step(3, 0.3, task, {1.8, 0}, Vec2(2.5, 0));
  ASSERT_TRUE(out.goal);
  EXPECT_EQ(out.goal->target, Vec2(4, 0));
  EXPECT_EQ(out.goal->instruction_id, 2);
  ASSERT_TRUE(out.report);
  EXPECT_EQ(out.report->waypoints_done, 1);
  out = e.Step(4, 0.4, task, {3.9, 0}, Vec2(3.9, 0));
  ASSERT_TRUE(out.goal) << "the last waypoint reached: stop";
  EXPECT_FALSE(out.goal->active);
  EXPECT_EQ(out.goal->instruction_id, -1);
  EXPECT_EQ(out.goal->target, Vec2(3.9, 0)) << "an inactive goal where it stands";
  ASSERT_TRUE(out.report);
  EXPECT_TRUE(out.report->task_done);
  EXPECT_FALSE(out.finished_now) << "a task done is not the exploration finished";
  // The next task starts the count again and continues the instruction ids.
  out = e.Step(5, 0.5, Task(8, {{0, 0}}), {3.9, 0}, std::nullopt);
  ASSERT_TRUE(out.goal);
  EXPECT_EQ(out.goal->instruction_id, 3);
}

TEST(Explorer, FinishedStopsOnceAndForGoodWhateverComesAfter) {
  Explorer e({0.5, 60.0}, 10);
  e.Step(0, 0.0, Task(1, {{5, 5}}), {0, 0}, std::nullopt);
  ExplorerTask finished;
  finished.finished = true;
  auto out = e.Step(1, 0.1, finished, {0.1, 0}, std::nullopt);
  EXPECT_TRUE(out.finished_now);
  ASSERT_TRUE(out.goal);
  EXPECT_FALSE(out.goal->active);
  EXPECT_EQ(out.goal->target, Vec2(0.1, 0));
  EXPECT_TRUE(out.report);
  EXPECT_TRUE(e.finished());
  out = e.Step(2, 0.2, finished, {0.1, 0}, std::nullopt);
  EXPECT_FALSE(out.finished_now) << "once";
  EXPECT_FALSE(out.goal);
  out = e.Step(3, 0.3, Task(2, {{1, 1}}), {0.1, 0}, std::nullopt);
  EXPECT_FALSE(out.goal) << "a task after the end (a restarted manager) does not start the robot again";
  EXPECT_FALSE(out.task_taken);
  EXPECT_TRUE(e.Step(11, 1.1, std::nullopt, {0.1, 0}, std::nullopt).report) << "reports go on";
}

TEST(Explorer, AWaypointThatCannotBeReachedIsSkippedAfterTheTimeout) {
  Explorer e({0.5, 5.0}, 10);
  e.Step(0, 0.0, Task(1, {{50, 50}, {1, 0}}), {0, 0}, std::nullopt);  // the first one inside a wall, say
  EXPECT_FALSE(e.Step(1, 4.9, std::nullopt, {0, 0}, std::nullopt).goal);
  const auto out = e.Step(2, 5.0, std::nullopt, {0, 0}, std::nullopt);
  ASSERT_TRUE(out.goal);
  EXPECT_EQ(out.goal->target, Vec2(1, 0));
  ASSERT_TRUE(out.report);
  EXPECT_EQ(out.report->skipped, 1);
}

TEST(Explorer, RefusesBadOptions) {
  EXPECT_THROW(Explorer({0.5, 60.0}, 0), std::invalid_argument);
  EXPECT_THROW(Explorer({0.0, 60.0}, 10), std::invalid_argument);
}

}  // namespace
}  // namespace limbic::explore
