// The navigation behaviour b_nav of the crowd robots (issue 19; spec multi-robot §2, eqs. 1–3): no map and no
// planner — in every direction β of the field of view the robot measures the free distance D(β) and the reachable
// distance f(β) (neighbours keep their current velocities), heads where the reachable segment comes closest to
// the target, and limits its speed so it could stop within the caution time η in the free distance ahead.
//
// Inputs: own position, heading and commanded speed; the target; the neighbours it sees (position, velocity,
// radius, margin m_a); static walls; the (emotion-modulated) parameters. Outputs: the desired heading α_des
// (eq. 1), the desired speed v_des (eq. 2), the new commanded speed after one step of the exponential profile
// (eq. 3) and the turn rate, plus D(α_des) and max_β D(β) for the internal state μ.
#pragma once

#include <span>
#include <vector>

#include "common/geometry/geometry.hpp"

namespace limbic::crowd {

using geometry::Vec2;

// A neighbour as the observer senses it (only those inside its field of view and horizon).
struct Neighbour {
  Vec2 position{0, 0};
  Vec2 velocity{0, 0};      // its current velocity (m/s), assumed constant when computing f(β)
  double radius = 0.0;      // r_a (m)
  double extra_margin = 0;  // m, added to the observer's margin m_a around this neighbour (e.g. it looks frustrated)
};

// How Decide breaks ties of eq. 1 (see Decide).
enum class TieBreak { kLongest, kNearest };

// The parameters of b_nav. η, m_a, v_opt and ψ are the four the emotions modulate (spec §2).
struct BNavParams {
  double optimal_speed = 0.5;           // v_opt (m/s)
  double caution = 1.0;                 // η (s): stop within η in the free distance seen (eq. 2)
  double margin = 0.1;                  // m_a (m): social/safety margin inflating every neighbour
  double half_fov = geometry::kPi / 2;  // ψ (rad): FOV = [α − ψ, α + ψ]
  double horizon = 4.0;                 // H (m)
  // τ (s): time constant of the speed profile (eq. 3). Approaching a still obstacle, dD/dt = −v and
  // τ dv/dt = D/η − v: critically damped at τ = η/4, so τ ≤ η/4 stops short instead of overshooting into it.
  double tau = 0.2;
  int directions = 72;                      // β sampled evenly over the FOV, both edges included
  double radius = 0.35;                     // the robot's own radius (m)
  double rotation_time = 0.3;               // s: the heading relaxes towards α_des with this time constant …
  TieBreak tie_break = TieBreak::kLongest;  // eq. 1 ties (the spec is silent)
  // m: two directions whose d(s(β), q) differ by less than this tie in eq. 1. Approaching a wall or a stopped
  // neighbour under eq. 2 the gap shrinks exponentially and never closes, so a direction into it keeps a
  // sub-millimetre "progress" that would otherwise beat every tie rule (a robot pressed against a wall short of a
  // door stood there for ever, see README). 0 would be the exact reading.
  double progress_tolerance = 0.01;
  double max_turn_rate = 2.0;  // rad/s … and at most this rate (a wheeled robot; the spec's agent turns freely)
};

// One robot's view at one tick.
struct BNavInput {
  Vec2 position{0, 0};
  double heading = 0.0;  // α (rad)
  double speed = 0.0;    // v: the speed commanded at the previous tick (the state of eq. 3)
  Vec2 target{0, 0};     // q
  std::span<const Neighbour> neighbours;
  std::span<const geometry::Segment> walls;
};

struct BNavDecision {
  double desired_heading = 0.0;  // α_des (eq. 1)
  double desired_speed = 0.0;    // v_des (eq. 2), times max(0, cos(α − α_des)) (see Decide)
  double speed = 0.0;            // v after one step of eq. 3
  double turn_rate = 0.0;        // ω (rad/s)
  double free_distance = 0.0;    // D(α_des) (m)
  double max_free_distance = 0;  // max_β D(β) (m), for μ_fs
  bool clear = false;            // nothing within the horizon: straight to the target (spec "with no obstacles")
};

// Throws std::invalid_argument naming the field for a parameter out of range (non-finite, v_opt < 0, η ≤ 0,
// m_a < 0, ψ outside (0, π], H ≤ 0, τ ≤ 0, directions < 2, radius ≤ 0, rotation_time ≤ 0, max_turn_rate ≤ 0,
// progress_tolerance < 0).
void ValidateParams(const BNavParams& params);

// D(β): how far a disc of radius `radius` at `origin` moves along unit `dir` before touching a wall or a
// neighbour's disc inflated by its margin, capped at `horizon`. Contact already made counts only when moving
// further in (a robot touching a wall may back away).
double FreeDistance(const Vec2& origin, const Vec2& dir, double radius, double margin, double horizon,
                    std::span<const Neighbour> neighbours, std::span<const geometry::Segment> walls);

// f(β): the same, with the robot moving along `dir` at `speed` and each neighbour at its velocity: the distance
// covered until the discs (inflated by the margins) first touch, capped at `horizon`. With speed 0 the robot
// waits where it is: f = horizon unless a neighbour is coming into it (then 0).
double ReachableDistance(const Vec2& origin, const Vec2& dir, double speed, double radius, double margin,
                         double horizon, std::span<const Neighbour> neighbours,
                         std::span<const geometry::Segment> walls);

// One tick of b_nav over `dt` seconds. The candidate directions are the `directions` evenly spaced β over
// [α − ψ, α + ψ] plus the exact bearing of the target when it lies in the FOV; α_des minimises d(s(β), q). Ties
// (no direction makes progress) go by params.tie_break: kLongest (default) to the longest reachable segment, then
// the β nearest the target's bearing, then the lower β; kNearest skips the first rule. d within
// params.progress_tolerance of the minimum counts as equal. Boxed in within view (no β reachable beyond the
// tolerance), kLongest turns on the spot towards α − ψ to look behind; kNearest stands. With nothing within the horizon
// the robot heads straight for the target at v_opt. The wheeled robot cannot move sideways: v_des is scaled by max(0,
// cos(α − α_des)) so it turns before it drives, and limited by eq. 2 along its heading α too. Throws
// std::invalid_argument for non-finite inputs or invalid parameters (ValidateParams), dt ≤ 0 or non-finite.
BNavDecision Decide(const BNavInput& input, const BNavParams& params, double dt);

}  // namespace limbic::crowd
