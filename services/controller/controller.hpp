// The two-stage reactive controller of one robot for one control tick: directional layer → velocity
// layer.
#pragma once

#include <optional>
#include <span>
#include <string>

#include "common/geometry/geometry.hpp"
#include "common/types/control_parameters.hpp"
#include "common/types/navigation.hpp"
#include "common/types/sensing.hpp"
#include "services/controller/directional_controller.hpp"
#include "services/controller/velocity_controller.hpp"

namespace limbic::controller {

struct ControllerOptions {
  DirectionalOptions directional;
  VelocityOptions velocity;  // velocity.goal_target = kGoalBearing for the Chapter-6 reactive tests
};

struct ControllerInputs {
  OdometryEstimate odometry;                        // estimated pose and current (v, ω)
  std::span<const geometry::Vec2> obstacle_points;  // mapper's obstacle buffer (world frame)
  std::optional<GridView> map;                      // for map-based avoidance (both layers); none → a_m ≡ 1
  const PlannedPath* path = nullptr;                // latest plan; nullptr, success = false or no nodes = no path
  std::optional<geometry::Vec2> goal;               // none → command (0, 0)
  double time = 0.0;                                // simulated time (s)
};

struct ControllerOutput {
  VelocityCommand command;  // (v_T, ω_T); (0, 0) without a goal
  // False when there was no goal: only the directional obstacle fields are fresh.
  bool active = false;
  DirectionalOutput directional;
  VelocityOutput velocity;  // stale (previous tick) when !active
};

// Controller facade (spec §4.4–4.5): runs DirectionalController then VelocityController on one
// tick's inputs. Inputs: ControllerInputs and ControlParameters (read every tick, so live retuning
// applies at once). Outputs: the velocity command plus both layers' internal fields. Arrival at the
// goal is the mission's decision: the controller keeps steering until the goal is withdrawn. State:
// the directional layer's.
class Controller {
 public:
  explicit Controller(const ControllerOptions& options = {});

  // One control tick; the returned reference stays valid until the next call. Throws
  // std::invalid_argument for out-of-range parameters or a grid view whose spans do not match its
  // GridSpec.
  // Never commands a non-finite velocity (issue 15): a non-finite input (pose, velocity, goal, an
  // obstacle point) or result stops the robot (command (0, 0)), keeps the last good state, and fault()
  // says why; fault() is "" after a good tick.
  const ControllerOutput& Tick(const ControllerInputs& inputs, const ControlParameters& params);
  const std::string& fault() const { return fault_; }

  const ControllerOutput& output() const { return output_; }
  const DirectionalState& state() const { return directional_.state(); }
  void set_state(const DirectionalState& state) { directional_.set_state(state); }
  void Reset() { directional_.Reset(); }  // new run: θ_T(prev) and the wander generator start afresh
  // Live changes (issue 15), effective at the next tick.
  void SetTieBreak(TieBreak tie_break) {
    directional_.set_tie_break(tie_break);
    velocity_.set_tie_break(tie_break);
  }
  void SetVelocityGoalTarget(VelocityGoalTarget target) { velocity_.set_goal_target(target); }
  void ReseedWander(uint64_t seed) { directional_.Reseed(seed); }

 private:
  void TickChecked(const ControllerInputs& inputs, const ControlParameters& params);

  DirectionalController directional_;
  VelocityController velocity_;
  ControllerOutput output_;
  std::string fault_;
};

}  // namespace limbic::controller
