#include "services/crowd/crowd_robot.hpp"

#include <cmath>
#include <stdexcept>

namespace limbic::crowd {

CrowdNavigator::CrowdNavigator(CrowdNavigatorConfig config)
    : config_(std::move(config)), memory_(config_.neighbour_memory) {
  ValidateParams(config_.base);
  if (!std::isfinite(config_.goal_tolerance) || config_.goal_tolerance < 0) {
    throw std::invalid_argument("goal_tolerance must be >= 0 m");
  }
}

void CrowdNavigator::SetGoal(std::optional<Vec2> goal, int64_t instruction_id) {
  if (!goal) {
    goal_.reset();
    return;
  }
  if (instruction_id != goal_id_ || !goal_) new_goal_ = true;
  goal_id_ = instruction_id;
  goal_ = goal;
}

CrowdNavigator::Command CrowdNavigator::Step(double time, double dt, const std::optional<geometry::Pose2>& pose,
                                             double v, const SensedNeighbours* sensed) {
  Command out;
  CrowdStateValues& state = out.state;
  state.radius = config_.base.radius;
  state.step.params = config_.base;
  if (pose && goal_) {
    RobotView view;
    view.pose = *pose;
    view.speed = speed_;
    view.velocity = v * geometry::UnitVector(pose->theta);
    view.target = *goal_;
    view.time = time;
    if (new_goal_) {  // T_n and Δ_n = ||p(T_n) − q|| / v_opt
      new_goal_ = false;
      task_start_ = time;
      minimal_time_ =
          config_.base.optimal_speed > 0 ? (*goal_ - pose->Position()).norm() / config_.base.optimal_speed : 0.0;
    }
    view.task_start = task_start_;
    view.minimal_time = minimal_time_;
    view.walls = walls_;
    if (sensed != nullptr) {
      view.neighbours = sensed->neighbours;
      view.neighbour_emotions = sensed->emotions;
    }
    state.neighbours = static_cast<int>(view.neighbours.size());
    state.has_goal = true;
    try {
      if (sensed != nullptr &&
          (sensed->emotions.size() != sensed->neighbours.size() || sensed->ids.size() != sensed->neighbours.size())) {
        throw std::invalid_argument("sensed neighbours: one emotion and one id per neighbour");
      }
      static const std::vector<int> kNoIds;
      const std::vector<int>& ids = sensed != nullptr ? sensed->ids : kNoIds;
      view.remembered = memory_.Update(
          time, ids, sensed != nullptr ? std::span<const Neighbour>(sensed->neighbours) : std::span<const Neighbour>(),
          &view.neighbours);
      view.neighbour_emotions.resize(view.neighbours.size(), -1);
      state.remembered = view.remembered;
      state.step = StepRobot(config_.table, config_.base, config_.mode, EfficacyScale::kFraction, std::move(view), dt,
                             &emotion_);
      const bool arrived = (*goal_ - pose->Position()).norm() <= config_.goal_tolerance;
      speed_ = arrived ? 0.0 : state.step.decision.speed;
      out.speed = speed_;
      out.omega = arrived ? 0.0 : state.step.decision.turn_rate;
    } catch (const std::invalid_argument& e) {
      ++bad_steps_;  // a non-finite pose or neighbour: stand still, say why
      speed_ = 0.0;
      out.fault = e.what();
    }
  }
  state.emotion = emotion_;
  state.emotion_name = emotion_.active >= 0 && config_.mode != EmotionMode::kOff
                           ? config_.table.emotions[static_cast<size_t>(emotion_.active)].name
                           : "";
  state.visible = config_.mode == EmotionMode::kOn;
  return out;
}

}  // namespace limbic::crowd
