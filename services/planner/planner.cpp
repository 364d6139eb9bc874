#include "services/planner/planner.hpp"

#include <algorithm>
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
  // W_p2 held over the instruction (DangerWeight::kTraversalMax): restarts at a new instruction, then only grows.
  if (in.goal.has_value()) {
    const bool new_instruction = !state_.has_plan || in.goal->instruction_id != state_.instruction_id;
    state_.held_w_p2 = new_instruction ? in.params.w_p2 : std::max(state_.held_w_p2, in.params.w_p2);
  }
  if (out.replanned()) {
    if (in.maps == nullptr) throw std::invalid_argument("Planner: a plan is due but no maps were given");
    CostLayers layers{in.maps, in.emotion_layer, in.additive_bias};
    CostSettings settings = CostSettings::From(in.params, in.fusion);
    if (options_.danger_weight == DangerWeight::kTraversalMax) settings.w_p2 = state_.held_w_p2;
    const PlanResult r = astar_.Plan(layers, settings,
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
