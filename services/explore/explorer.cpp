#include "services/explore/explorer.hpp"

#include <stdexcept>

namespace limbic::explore {

Explorer::Explorer(const FollowerOptions& follow, int report_every) : follower_(follow), report_every_(report_every) {
  if (report_every < 1) throw std::invalid_argument("explore: report_every must be at least one tick");
}

ExplorerOutputs Explorer::Step(int64_t tick, double time, const std::optional<ExplorerTask>& task, const Vec2& truth,
                               const std::optional<Vec2>& estimate) {
  ExplorerOutputs out;
  bool changed = false;
  if (task && !finished_) {
    if (task->finished) {
      finished_ = true;
      out.finished_now = true;
      out.goal = ExplorerGoal{false, truth, -1, 0.0};
      changed = true;
    } else if (task->task_id > 0) {
      out.task_taken = follower_.Assign(task->task_id, task->waypoints, time);
    }
  }
  if (!finished_) {
    const FollowerOutputs step = follower_.Step(truth, time);
    changed = changed || step.progress;
    if (step.new_goal) {
      out.goal = ExplorerGoal{true, *step.new_goal, ++instruction_, (*step.new_goal - truth).norm()};
    } else if (step.stop) {
      out.goal = ExplorerGoal{false, truth, -1, 0.0};
    }
  }
  if (changed || !reported_ || tick - last_report_tick_ >= report_every_) {
    reported_ = true;
    last_report_tick_ = tick;
    out.report = ExplorerProgress{estimate.value_or(truth), follower_.task_id(), follower_.waypoints_done(),
                                  follower_.skipped(), follower_.task_done()};
  }
  return out;
}

}  // namespace limbic::explore
