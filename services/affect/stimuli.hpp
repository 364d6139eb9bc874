// The nine artificial stimuli of spec §5.1 (thesis §8.1): raw formulas (eqs. 8.4–8.14) and the
// normalise / invert / damp pipeline (eqs. 8.1–8.3). Pure functions, plus the stuck stimulus's
// window.
#pragma once

#include <deque>
#include <span>
#include <vector>

#include "common/geometry/geometry.hpp"
#include "common/types/navigation.hpp"
#include "common/types/sensing.hpp"

namespace limbic::affect {

// Eq. 8.1: clamped linear map of [s_min, s_max] onto [0, 1]. Requires s_max > s_min.
double NormaliseStimulus(double raw, double s_min, double s_max);

// Eq. 8.3: s_damp ← α·s_norm + (1 − α)·s_damp with α = alpha_growth when s_norm > s_damp, else
// alpha_decay. Returns the new damped value.
double DampStimulus(double normalised, double damped, double alpha_growth, double alpha_decay);

// The damping factors of Tables 8.1, 8.4 and 8.6 are per control cycle of the reference period
// (0.1 s, §1.2). For a period T the same time constant needs α' = 1 − (1 − α)^(T / T_ref):
// n cycles of α' decay exactly like n·T/T_ref cycles of α. α = 1 stays 1; T = T_ref returns α
// unchanged.
double RescaleDampingFactor(double alpha, double period, double reference_period);

// Eqs. 8.4–8.5, danger. headings[k] and raw_distances[k] are the directional controller's candidate
// headings (world frame, rad) and its unsmoothed sensor-based obstacle distances d_o(θ_k) (m).
// D_o(θ) = d_o(θ)/d_D(max) + κ_θ·|adjust(θ_F − θ)|/π; S = 1 − min_θ D_o(θ), clamped to [0, 1]
// (spec §8 item 24). No candidates → 0.
double DangerStimulus(std::span<const double> headings, std::span<const double> raw_distances, double robot_heading,
                      double kappa_theta, double distance_max);

// Eq. 8.7, pain: the linear speed just before the collision (absolute value) when a collision event starts
// (`new_event`, hwio's one collision rule, which the mission's collision metric counts too), else 0. A robot
// pressed against an obstacle touches it every other cycle; those touches are one collision and one pain.
double PainStimulus(const CollisionEvent& collision);

// Eq. 8.8, achievement: (d_g(t_0) − d_g(t_c)) / (t_c − t_0) in m/s; 0 when t_c ≤ t_0.
double AchievementStimulus(double distance_at_start, double distance_now, double t_0, double t_now);

// Eq. 8.10, learning: mean(p_e) / t_e with t_e the time since the map was reset (spec §8 item 29);
// 0 when t_e ≤ 0.
double LearningStimulus(double mean_p_e, double time_since_map_reset);

// Eqs. 8.11–8.12, mismatch over the cells updated this cycle: Σ w·|s_o − p_o| / Σ w with
// w = w_m1 if s_o < p_o (p_o before the update), else w_m2. No updated cells → 0.
double MismatchStimulus(std::span<const UpdatedCell> cells, double w_m1, double w_m2);

// Eq. 8.14, error: 0 without a collision; otherwise d_c, the distance from the triggered collision
// switch position(s) to the nearest IR-measured obstacle point. With several triggered switches the
// smallest distance is used (any switch explained by the IR readings makes the collision
// "predicted"). With no IR point at all, `no_points_distance` (a collision no sensor saw: saturates
// the stimulus).
double ErrorStimulus(const CollisionEvent& collision, std::span<const geometry::Vec2> switch_points,
                     std::span<const geometry::Vec2> ir_points, double no_points_distance);

// Whether ErrorStimulus reads the IR points for this cycle: only at a collision (it is 0 without one), so a caller
// places the beams' hit points only then (issue 18: a sine and a cosine per beam per cycle for nothing).
inline bool ErrorStimulusReadsIrPoints(const CollisionEvent& collision) { return collision.occurred; }

// World positions of the triggered collision switches: switch k sits on the robot's rim at
// heading θ + k·2π/switch_count (§2.4: 8 switches every 45°, 0 = straight ahead).
std::vector<geometry::Vec2> CollisionSwitchPoints(const geometry::Pose2& pose, const CollisionEvent& collision,
                                                  double robot_radius, int switch_count = 8);

// One piece of the stuck stimulus's history: the robot moved at `speed` along `heading` for `dt`
// seconds starting at `t_start`.
struct StuckSegment {
  StuckSegment() = default;
  StuckSegment(double t_start_s, double dt_s, double speed_mps, double heading_rad)
      : t_start(t_start_s),
        dt(dt_s),
        speed(speed_mps),
        heading(heading_rad),
        displacement_(dt_s * speed_mps * geometry::UnitVector(heading_rad)) {}
  double t_start = 0.0;
  double dt = 0.0;
  double speed = 0.0;
  double heading = 0.0;
  // dt·speed·(cos, sin)(heading): the term eq. 8.6 sums, the same bits as evaluating it in the sum. Computed
  // once here (issue 18: a window of t_n/T segments was a cos and a sin per segment per cycle).
  const geometry::Vec2& displacement() const { return displacement_; }
  bool operator==(const StuckSegment&) const = default;

 private:
  geometry::Vec2 displacement_ = geometry::Vec2::Zero();
};

// State of eq. 8.6's sliding window.
struct StuckWindowState {
  std::deque<StuckSegment> segments;
  bool has_last = false;
  double last_time = 0.0;
  double last_speed = 0.0;
  double last_heading = 0.0;
  bool operator==(const StuckWindowState&) const = default;
};

class StuckWindowUndo;

// Eq. 8.6, stuck: net displacement over the last `window` seconds divided by the time covered, i.e.
// ‖Σ (t_{i+1} − t_i)·v(t_i)‖ / t_n once the window is full, and / elapsed time before (spec §8 item
// 23). Adds the sample (t, speed, heading) to `state` and returns the raw value (m/s). With no
// history yet (first sample) it returns |speed|, the limit of eq. 8.6 as the elapsed time goes to
// 0. `undo` (optional) records what the call changes, so that it can be taken back.
double StuckStimulus(double t, double speed, double heading, double window, StuckWindowState* state,
                     StuckWindowUndo* undo = nullptr);

// What one StuckStimulus call changed in the window, as the call recorded it, so that a refused cycle
// (AffectEngine::Step's rollback) puts the window back exactly as it was without copying all of it every cycle
// (issue 18: t_n/T ≈ 300 segments a robot a cycle, 1.4 % of a lockstep team's time): the last sample before it, the
// segments it dropped from the front, and whether it appended one. Reusable: its buffer is kept from call to call.
class StuckWindowUndo {
 public:
  // Right after StuckStimulus(·, ·, ·, ·, state, this): `state` as it was before that call.
  void Restore(StuckWindowState* state) const;

 private:
  friend double StuckStimulus(double, double, double, double, StuckWindowState*, StuckWindowUndo*);
  bool has_last_ = false;
  double last_time_ = 0.0, last_speed_ = 0.0, last_heading_ = 0.0;
  bool appended_ = false;
  std::vector<StuckSegment> dropped_;  // the segments the call dropped from the front, in order
};

}  // namespace limbic::affect
