// The path planner of spec §4.2 with its replan policy (§1.2 step 4): replan on a new navigation
// instruction and whenever the replan timer reaches t_r.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "common/geometry/geometry.hpp"
#include "common/types/control_parameters.hpp"
#include "common/types/navigation.hpp"
#include "services/mapper/grid_maps.hpp"
#include "services/planner/astar.hpp"
#include "services/planner/cost_field.hpp"

namespace limbic::planner {

// How the emotion layer enters the planning cost.
enum class EmotionFusion {
  kFollowAffect,  // recommended: as the affect model in use says (EmotionLayer.additive): the thesis OR-fuses
                  // Emo(x) with weight W_p4 (eqs. 5.3–5.4), the companion-paper model adds c_e to p_o
  kOr,            // force the probabilistic OR whatever the model
  kAdditive,      // force the additive form whatever the model
};

// The fusion mode for a layer the affect engine marked `layer_additive`.
FusionMode ChooseFusion(EmotionFusion choice, bool layer_additive);

// Which W_p2 (danger-map weight, introspection drive, Table 8.2) the planner uses (issue 14).
enum class DangerWeight {
  // The live value of every cycle (spec §4.1 read literally; default).
  kLive,
  // The largest value seen since the current instruction was received. Introspection follows the *mapped*
  // confusion around the robot (φ = 0, Table 8.4), so the live W_p2 is a function of where the robot is: near
  // the place of an unexpected collision (often a door frame or an unseen obstacle beside a narrow passage) it
  // rises to ~0.9 and A* detours, 0.5 m back it falls to ~0.7 and A* takes the passage again; replanning every
  // t_r turns the robot back and forth in front of the passage until the timeout. Holding the maximum makes
  // the plan stop depending on the robot's distance to that place.
  kTraversalMax,
};
// The option's names, in the enum's order (planner start-up option `danger_weight`).
inline const std::vector<std::string> kDangerWeightNames = {"live", "traversal_max"};
// Throws std::invalid_argument naming the choices for anything else.
DangerWeight ParseDangerWeight(const std::string& name);

struct PlannerOptions {
  DangerWeight danger_weight = DangerWeight::kLive;
  // Slack on the timer comparison, so that accumulated 0.1 s steps that sum to 4.9999999 still replan at
  // t_r = 5 s (simulated time arrives as a double).
  double timer_tolerance = 1e-9;  // s
};

// Everything the planner reads in one cycle.
struct PlannerInputs {
  double time = 0.0;                       // simulated time (s)
  geometry::Vec2 robot_position{0, 0};     // estimated position (world)
  std::optional<NavigationGoal> goal;      // none: idle, nothing is planned
  const mapper::GridMaps* maps = nullptr;  // required when a plan is due
  std::span<const double> emotion_layer;   // Emo(x) (§5.4.2) when OR-fused, empty = none
  std::span<const double> additive_bias;   // c_e when added (FusionMode::kAdditive), empty = none
  FusionMode fusion = FusionMode::kProbabilisticOr;
  ControlParameters params;  // reads w_p1..w_p4, cost_base, r_f, t_r (live)

  // Routes the affect engine's layer into the cost the way `mode` says.
  void SetEmotionLayer(std::span<const double> cost, FusionMode mode) {
    fusion = mode;
    emotion_layer = mode == FusionMode::kAdditive ? std::span<const double>{} : cost;
    additive_bias = mode == FusionMode::kAdditive ? cost : std::span<const double>{};
  }
};

enum class ReplanReason {
  kNone,       // no plan this cycle (path is the previous one)
  kNewGoal,    // instruction_id differs from the last planned one (or the first goal)
  kTimer,      // time − last plan ≥ max(t_r, 1/max_replan_hz) (t_r = 0 and no cap: every cycle)
  kRequested,  // RequestReplan (a live fusion change: the current path was planned under the old one)
};

struct PlannerOutputs {
  ReplanReason reason = ReplanReason::kNone;
  bool replanned() const { return reason != ReplanReason::kNone; }
  PlannedPath path;        // the current path (new when replanned; empty before the first plan)
  double path_cost = 0.0;  // g(goal) of the current path
};

// All mutable state of the policy (the A* buffers are scratch, not state).
struct PlannerState {
  bool has_plan = false;
  int64_t instruction_id = 0;  // of the last plan
  double last_plan_time = 0.0;
  PlannedPath path;
  double path_cost = 0.0;
  bool replan_requested = false;  // RequestReplan since the last plan
  double held_w_p2 = 0.0;         // DangerWeight::kTraversalMax: max W_p2 since the instruction was received
};

// Keeps the current path and replans when it is due.
// Inputs: PlannerInputs (time, robot position, goal, maps, emotion layer, live ControlParameters).
// Outputs: PlannerOutputs (the Path message of §1.4 plus why it was (re)planned).
// Implements: the replan policy of §1.2/§4.2 (new instruction or timer ≥ t_r; timer 0 at a plan, §8 item 33)
// over AStarPlanner (eqs. 5.5–5.8) and the planning fusion of §4.1 (W_p1..W_p4).
class Planner {
 public:
  explicit Planner(const PlannerOptions& options = {}) : options_(options) {}

  // Throws std::invalid_argument if a plan is due and the maps or layers are missing or malformed, or
  // if a parameter is out of range (ValidateParameters; the state is left untouched).
  // Never lets a non-finite value into its path (issue 15, item 1): a non-finite time, position or goal
  // skips the cycle; a new plan whose nodes, costs or cost sums are not finite is not taken; a state
  // found non-finite at the start of a cycle is replaced by the last good one. In each case the output
  // is the last good path (reason kNone) and fault() says why; fault() is "" after a good cycle.
  PlannerOutputs Step(const PlannerInputs& inputs);
  const std::string& fault() const { return fault_; }

  const PlannerState& state() const { return state_; }
  const PlannerOptions& options() const { return options_; }
  // After a live change of how the cost is made (issue 15: planner fusion), the next Step with a goal
  // replans, whatever the timer says.
  void RequestReplan() { state_.replan_requested = true; }
  // Resource feedback (multi-robot spec §1; services/explore): timer replans happen at most `hz` times per
  // simulated second, i.e. the timer's period is max(t_r, 1/hz); 0 = no cap (the default: t_r alone). A new
  // instruction or a requested replan is never delayed. Throws std::invalid_argument for a negative or
  // non-finite rate.
  void SetMaxReplanRate(double hz);
  double max_replan_hz() const { return max_replan_hz_; }

 private:
  friend struct PlannerTestPeer;  // test seam (testing/planner_peer.hpp): poisons the state

  PlannerOutputs Refuse(std::string why);

  PlannerOptions options_;
  PlannerState state_;
  // The state after the last good plan: copied only when a plan is taken (a path of some hundred
  // nodes), not every cycle.
  PlannerState last_good_;
  AStarPlanner astar_;
  std::string fault_;
  double max_replan_hz_ = 0.0;  // a live setting, not state: 0 = no cap
};

}  // namespace limbic::planner
