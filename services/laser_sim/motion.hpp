// The laser robot's kinematics and low-level motion law (spec reactive-topological §1.4, §1.7): a 30 cm
// wheelchair-configuration disc that turns on the spot; the reactive controller gives only a desired
// heading, and this layer (the thesis' Update_Robots_VHP) turns it into wheel speeds within the
// chassis limits — linear acceleration 1.7 m/s², centripetal acceleration 2.5 m/s² [T] — at the
// highest speed from which the robot can still stop before the nearest obstacle in its path.
//
// Equations: wheels at ±r_robot, v_left = v + dwv, v_right = v − dwv; rate of turn Δh = ω = dwv / r_robot
// (Eq. 3-4); centripetal acceleration a_c = dwv · v / r_robot = v · ω (Eq. 3-7) bounded by a_c,max.
//
// Inputs: desired heading (deg), the measured scan, MotionState, MotionOptions.
// Outputs: the next MotionState after one control cycle (dt = 10 ms), and the commands used.
#pragma once

#include <limits>

#include "services/laser_sim/laser_types.hpp"

namespace limbic::laser {

// Every value of §1.7.2 (Spec Appendix S2); centimetres and seconds.
struct MotionOptions {
  double dt_s = kControlPeriodS;   // [T]
  double robot_radius_cm = 15.0;   // [T] diameter 30 cm
  double v_max_cms = 100.0;        // [A] 1.0 m/s
  double v_wheel_max_cms = 100.0;  // [A] = v_max
  double a_max_cms2 = 170.0;       // [T] 1.7 m/s²
  double a_c_max_cms2 = 250.0;     // [T] 2.5 m/s²
  double k_heading_per_s = 8.0;    // [A] K_h
  double stop_margin_cm = 5.0;     // [A]
  double corridor_extra_cm = 2.0;  // [A] swept corridor half-width = r_robot + 2 cm
};

// Throws std::invalid_argument naming the first value that is not finite and positive (or negative for
// the margins).
void ValidateMotionOptions(const MotionOptions& options);

// Pose and wheel speeds. Heading is a compass bearing in [0, 360).
struct MotionState {
  double x_cm = 0.0, y_cm = 0.0, heading_deg = 0.0;
  double v_left_cms = 0.0, v_right_cms = 0.0;
  double v_cms() const { return 0.5 * (v_left_cms + v_right_cms); }
  // ω = dwv / r_robot (rad/s, clockwise positive), Eq. 3-4.
  double TurnRateRadS(double robot_radius_cm) const { return 0.5 * (v_left_cms - v_right_cms) / robot_radius_cm; }
};

struct MotionCommand {
  double heading_error_deg = 0.0;  // e = wrap180(θ_d − θ)
  double free_distance_cm = 0.0;   // f of step 3
  double v_cmd_cms = 0.0;
  double omega_cmd_rad_s = 0.0;
};

// f of §1.7.2 step 3: free travel of the robot disc along `heading_deg` from the measured scan — for every
// beam within ±90° whose point lies in the corridor of half-width r_robot + 2 cm,
// f ≤ r cos φ − sqrt((r_robot + 2)² − (r sin φ)²) + r_robot; 250 when the corridor is empty. Beams
// reading 250 (no return) are not obstacles.
double FreeTravelDistance(const RangeScan& scan, double heading_deg, const MotionOptions& options);

// One cycle of the motion law (§1.7.2 steps 1–7) toward `desired_heading_deg`. A non-finite desired
// heading keeps the current heading (the controller had no resultant). `speed_cap_cms` (§5.2
// HeadingCommand) caps v_cmd further (0: stop; NaN counts as 0). Returns the new state; `command`
// (optional) receives the intermediate commands.
MotionState StepMotion(const MotionState& state, double desired_heading_deg, const RangeScan& scan,
                       const MotionOptions& options, MotionCommand* command = nullptr,
                       double speed_cap_cms = std::numeric_limits<double>::infinity());

}  // namespace limbic::laser
