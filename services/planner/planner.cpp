#include "services/planner/planner.hpp"

#include <stdexcept>

namespace limbic::planner {

PlannerOutputs Planner::Step(const PlannerInputs& in) {
  PlannerOutputs out;
  if (in.goal.has_value()) {
    if (!state_.has_plan || in.goal->instruction_id != state_.instruction_id) {
      out.reason = ReplanReason::kNewGoal;
    } else if (state_.replan_requested) {
      out.reason = ReplanReason::kFusionChanged;
    } else if (in.time - state_.last_plan_time + options_.timer_tolerance >= in.params.t_r) {
      out.reason = ReplanReason::kTimer;
    }
  }
  if (out.replanned()) {
    if (in.maps == nullptr) throw std::invalid_argument("Planner: a plan is due but no maps were given");
    CostLayers layers{in.maps, in.emotion_layer, in.additive_bias};
    const PlanResult r = astar_.Plan(layers, CostSettings::From(in.params, options_.fusion),
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

void Planner::SetFusion(FusionMode fusion) {
  if (fusion == options_.fusion) return;
  options_.fusion = fusion;
  state_.replan_requested = true;
}

}  // namespace limbic::planner
