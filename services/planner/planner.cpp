#include "services/planner/planner.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "common/types/option_names.hpp"

namespace limbic::planner {

DangerWeight ParseDangerWeight(const std::string& name) {
  return types::EnumFromName<DangerWeight>(kDangerWeightNames, name, "danger_weight");
}

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

namespace {

bool Finite(double v) { return std::isfinite(v); }
bool Finite(const geometry::Vec2& p) { return std::isfinite(p.x()) && std::isfinite(p.y()); }

// The first non-finite part of a path and its cost, named; "" if all are finite. (A failed plan is an
// empty path with cost 0: finite too.)
std::string NonFinitePath(const PlannedPath& path, double path_cost) {
  for (const auto& n : path.nodes) {
    if (!Finite(n)) return "path nodes";
  }
  for (double c : path.node_costs) {
    if (!Finite(c)) return "path node costs";
  }
  if (!Finite(path.max_cost)) return "path max cost";
  if (!Finite(path.planned_at)) return "path time";
  if (!Finite(path_cost)) return "path cost";
  return "";
}

std::string NonFiniteState(const PlannerState& s) {
  if (!Finite(s.last_plan_time)) return "last plan time";
  if (!Finite(s.held_w_p2)) return "held danger weight";
  return NonFinitePath(s.path, s.path_cost);
}

}  // namespace

PlannerOutputs Planner::Refuse(std::string why) {
  fault_ = std::move(why);
  PlannerOutputs out;
  out.path = state_.path;
  out.path_cost = state_.path_cost;
  return out;
}

void Planner::SetMaxReplanRate(double hz) {
  if (!(hz >= 0) || !std::isfinite(hz)) throw std::invalid_argument("Planner: max replan rate must be >= 0 and finite");
  max_replan_hz_ = hz;
}

PlannerOutputs Planner::Step(const PlannerInputs& in) {
  // Out-of-range parameters (r_f sizes the smoothing kernel, eq. 5.8) are refused before they size
  // anything: the state is untouched and the step throws.
  ValidateParameters(in.params);
  // A state gone bad between cycles (a bug, a corrupted memory) is never published: back to the last
  // good plan, then the cycle goes on as usual (the timer or a new goal replans from there).
  std::string restored;
  if (const std::string what = NonFiniteState(state_); !what.empty()) {
    const bool requested = state_.replan_requested;
    state_ = last_good_;
    state_.replan_requested = requested;
    restored = "state " + what + " not finite: restored the last good path";
  }
  if (!Finite(in.time) || !Finite(in.robot_position) || (in.goal && !Finite(in.goal->goal))) {
    const char* what = !Finite(in.time) ? "time" : !Finite(in.robot_position) ? "robot position" : "goal";
    return Refuse((restored.empty() ? "" : restored + "; ") + "input " + what + " not finite: cycle skipped");
  }
  PlannerOutputs out;
  if (in.goal.has_value()) {
    if (!state_.has_plan || in.goal->instruction_id != state_.instruction_id) {
      out.reason = ReplanReason::kNewGoal;
    } else if (state_.replan_requested) {
      out.reason = ReplanReason::kRequested;
    } else if (in.time - state_.last_plan_time + options_.timer_tolerance >=
               std::max(in.params.t_r, max_replan_hz_ > 0 ? 1.0 / max_replan_hz_ : 0.0)) {
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
    PlanResult r;
    try {
      r = astar_.Plan(layers, settings, PlanRequest{in.robot_position, in.goal->goal, in.time});
    } catch (const NonFiniteCostError& e) {
      return Refuse((restored.empty() ? "" : restored + "; ") + e.what() + ": kept the last good path");
    }
    // The plan is taken only if it is finite through and through; otherwise the last good path stays
    // (and the next cycle tries again: the timer was not reset).
    if (const std::string what = NonFinitePath(r.path, r.path_cost); !what.empty()) {
      return Refuse((restored.empty() ? "" : restored + "; ") + "new plan's " + what +
                    " not finite: kept the last good path");
    }
    state_.has_plan = true;
    state_.instruction_id = in.goal->instruction_id;
    state_.last_plan_time = in.time;
    state_.path = r.path;
    state_.path_cost = r.path_cost;
    state_.replan_requested = false;
    last_good_ = state_;
  }
  fault_ = restored;
  out.path = state_.path;
  out.path_cost = state_.path_cost;
  return out;
}

}  // namespace limbic::planner
