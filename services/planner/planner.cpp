#include "services/planner/planner.hpp"

#include <stdexcept>

namespace limbic::planner {

FusionMode ChooseFusion(EmotionFusion choice, bool layer_additive) {
  switch (choice) {
    case EmotionFusion::kOr:
      return FusionMode::kProbabilisticOr;
    case EmotionFusion::kAdditive:
      return FusionMode::kAdditive;
    case EmotionFusion::kFollowAffect:
      break;
  }
  return layer_additive ? FusionMode::kAdditive : FusionMode::kProbabilisticOr;
}

PlannerOutputs Planner::Step(const PlannerInputs& in) {
  // Out-of-range parameters (r_f sizes the smoothing kernel, eq. 5.8) are refused before they size
  // anything: the state is untouched and the step throws.
  ValidateParameters(in.params);
  PlannerOutputs out;
  if (in.goal.has_value()) {
    if (!state_.has_plan || in.goal->instruction_id != state_.instruction_id) {
      out.reason = ReplanReason::kNewGoal;
    } else if (state_.replan_requested) {
      out.reason = ReplanReason::kRequested;
    } else if (in.time - state_.last_plan_time + options_.timer_tolerance >= in.params.t_r) {
      out.reason = ReplanReason::kTimer;
    }
  }
  if (out.replanned()) {
    if (in.maps == nullptr) throw std::invalid_argument("Planner: a plan is due but no maps were given");
    CostLayers layers{in.maps, in.emotion_layer, in.additive_bias};
    const PlanResult r = astar_.Plan(layers, CostSettings::From(in.params, in.fusion),
                                     PlanRequest{in.robot_position, in.goal->goal, in.time});
    state_.has_plan = true;
    state_.instruction_id = in.goal->instruction_id;
    state_.last_plan_time = in.time;
    state_.path = r.path;
    state_.path_cost = r.path_cost;
    state_.replan_requested = false;
  }
  out.path = state_.path;
  out.path_cost = state_.path_cost;
  return out;
}

}  // namespace limbic::planner
