// Scalar objective terms shared by the directional and velocity layers (spec §4.4–4.5).
#pragma once

#include <algorithm>
#include <cmath>

#include "common/geometry/geometry.hpp"

namespace limbic::controller {

// Preference for heading θ over a target heading: 1 − |adjust(θ − target)|/π   (eq. 5.15; also
// eqs. 5.16, 5.17's w(θ), path following p(θ) and, with θ_P(ω), eq. 5.26).
inline double HeadingPreference(double theta, double target) {
  return 1.0 - geometry::AngleDistance(theta, target) / geometry::kPi;
}

// Goal-proximity boost of a goal-seeking weight: W ← W + (1 − d_g/d_g(max))·(1 − W) when d_g <
// d_g(max) (eq. 5.18); unchanged otherwise.
inline double BoostNearGoal(double weight, double d_g, double d_g_max) {
  if (!(d_g < d_g_max) || d_g_max <= 0.0) return weight;
  return weight + (1.0 - d_g / d_g_max) * (1.0 - weight);
}

// Goal-proximity reduction: W ← W·d_g/d_g(max) when d_g < d_g(max) (eq. 5.19); unchanged otherwise.
inline double ReduceNearGoal(double weight, double d_g, double d_g_max) {
  if (!(d_g < d_g_max) || d_g_max <= 0.0) return weight;
  return weight * d_g / d_g_max;
}

// Directional avoidance from a ray distance: d_o/d_o(max) if d_o < d_o(max), else 1   (eq. 5.12).
inline double DirectionalAvoidance(double d_o, double d_o_max) {
  return d_o < d_o_max ? std::max(d_o, 0.0) / d_o_max : 1.0;
}

// Angular avoidance of a curvature segment at distance d_o from the nearest obstacle point
// (eq. 5.22): κ·d_o/r_v below r_v; κ + (1 − κ)·sqrt((d_o − r_v)/(d_v(max) − r_v)) up to d_v(max); 1
// beyond.
inline double CurvatureAvoidance(double d_o, double r_v, double d_v_max, double kappa) {
  if (d_o < r_v) return r_v > 0.0 ? kappa * std::max(d_o, 0.0) / r_v : kappa;
  if (d_o < d_v_max) return kappa + (1.0 - kappa) * std::sqrt((d_o - r_v) / (d_v_max - r_v));
  return 1.0;
}

// Generic speed cap (eq. 5.24): (v_L − v)/(v_L − v_max) if v > v_max, else 1; clamped to [0, 1].
inline double SpeedCap(double v, double v_max, double v_limit) {
  if (!(v > v_max)) return 1.0;
  if (!(v_limit > v_max)) return 0.0;  // v above a cap at or beyond the limit: only reachable outside [0, v_L]
  return std::clamp((v_limit - v) / (v_limit - v_max), 0.0, 1.0);
}

// Speed cap of the avoidance term: v_max = sqrt(a_ω)·v_L   (eq. 5.23).
inline double AvoidanceSpeedLimit(double a_omega, double v_limit) { return std::sqrt(a_omega) * v_limit; }

// Speed cap of the goal-seeking term when misaligned by |adjust(θ_T − θ_C)| = misalignment
// (eq. 5.28): (1 − misalignment/(βπ))·v_L below βπ, else 0.
inline double AlignmentSpeedLimit(double misalignment, double beta, double v_limit) {
  const double cutoff = beta * geometry::kPi;
  return misalignment < cutoff ? (1.0 - misalignment / cutoff) * v_limit : 0.0;
}

// Speed cap of the distance-to-goal term: (d_g/d_g(max))·v_L when d_g < d_g(max), else v_L
// (eq. 5.31).
inline double GoalDistanceSpeedLimit(double d_g, double d_g_max, double v_limit) {
  return d_g < d_g_max ? d_g / d_g_max * v_limit : v_limit;
}

}  // namespace limbic::controller
