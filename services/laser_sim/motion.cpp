#include "services/laser_sim/motion.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <stdexcept>
#include <string>

namespace limbic::laser {

void ValidateMotionOptions(const MotionOptions& o) {
  auto positive = [](double v, const char* name) {
    if (!(std::isfinite(v) && v > 0.0)) throw std::invalid_argument(std::string("motion: ") + name + " must be > 0");
  };
  auto non_negative = [](double v, const char* name) {
    if (!(std::isfinite(v) && v >= 0.0)) throw std::invalid_argument(std::string("motion: ") + name + " must be >= 0");
  };
  positive(o.dt_s, "dt_s");
  positive(o.robot_radius_cm, "robot_radius_cm");
  positive(o.v_max_cms, "v_max_cms");
  positive(o.v_wheel_max_cms, "v_wheel_max_cms");
  positive(o.a_max_cms2, "a_max_cms2");
  positive(o.a_c_max_cms2, "a_c_max_cms2");
  positive(o.k_heading_per_s, "k_heading_per_s");
  non_negative(o.stop_margin_cm, "stop_margin_cm");
  non_negative(o.corridor_extra_cm, "corridor_extra_cm");
}

double FreeTravelDistance(const RangeScan& scan, double heading_deg, const MotionOptions& o) {
  const double half_width = o.robot_radius_cm + o.corridor_extra_cm;
  const double half_width2 = half_width * half_width;
  // φ = a − heading for beam a: sin φ and cos φ from the beam table and u(heading) (no trigonometry per beam).
  const Vec2 uh = UnitVector(heading_deg);
  const auto& u = BeamUnitVectors();
  const int h = static_cast<int>(std::lround(Wrap360(heading_deg))) % kBeams;
  double f = kMaxRangeCm;
  // |sin φ| ≥ sin(|k| − 0.5°) for beam a = h + k (|φ − k| ≤ 0.5° as h is the heading rounded), so a beam
  // with r·sin(|k| − 0.5°) ≥ (1 + 1e-6)·half_width is outside the corridor by far more than the rounding of
  // `lateral` (~1e-13 cm) and is skipped before the products: most beams away from the heading.
  static const std::array<double, 181> sin_floor = [] {
    std::array<double, 181> t{};
    for (int k = -90; k <= 90; ++k) t[k + 90] = k == 0 ? 0.0 : std::sin((std::abs(k) - 0.5) * kDegToRad);
    return t;
  }();
  const double outside = (1.0 + 1e-6) * half_width;
  // Beams h − 90 … h + 90 (the minimum does not depend on the order they are visited in: no NaN).
  ForEachBeamStretch(h - 90, h + 90, [&](int lo, int hi) {
    const double* s = &sin_floor[(lo - h + 90 + kBeams) % kBeams];  // offset k = lo − h, modulo 360
    for (int a = lo; a <= hi; ++a, ++s) {
      if (scan[a] >= kMaxRangeCm) continue;
      const double r = scan[a];
      if (r * *s >= outside) continue;
      const double cos_phi = Dot(u[a], uh);
      if (cos_phi <= 0.0) continue;  // φ outside (−90°, 90°)
      const double lateral = r * (u[a].x * uh.y - u[a].y * uh.x);
      if (std::fabs(lateral) >= half_width) continue;
      f = std::min(f, r * cos_phi - std::sqrt(half_width2 - lateral * lateral) + o.robot_radius_cm);
    }
  });
  return f;
}

MotionState StepMotion(const MotionState& s, double desired_heading_deg, const RangeScan& scan, const MotionOptions& o,
                       MotionCommand* command, double speed_cap_cms) {
  const double r = o.robot_radius_cm;
  // 1. Heading error (a non-finite request keeps the heading: e = 0).
  const double e_deg = std::isfinite(desired_heading_deg) ? Wrap180(desired_heading_deg - s.heading_deg) : 0.0;
  const double e = e_deg * kDegToRad;
  // 2. Turn-rate command ω_cmd = K_h · e.
  const double omega_cmd = o.k_heading_per_s * e;
  // 3. Speed: facing, stopping distance before the first obstacle in the swept corridor, centripetal limit.
  const double f = FreeTravelDistance(scan, s.heading_deg, o);
  const double v_facing = o.v_max_cms * std::max(0.0, std::cos(e));
  const double v_stop = std::sqrt(2.0 * o.a_max_cms2 * std::max(0.0, f - r - o.stop_margin_cm));
  const double v_turn = o.a_c_max_cms2 / std::max(std::fabs(omega_cmd), 1e-9);
  const double cap = speed_cap_cms >= 0.0 ? speed_cap_cms : 0.0;  // NaN and negatives stop
  const double v_cmd = std::min({v_facing, v_stop, v_turn, cap});
  // 4. Wheel speeds, clamped to the wheels' maximum.
  const double vl_target = std::clamp(v_cmd + omega_cmd * r, -o.v_wheel_max_cms, o.v_wheel_max_cms);
  const double vr_target = std::clamp(v_cmd - omega_cmd * r, -o.v_wheel_max_cms, o.v_wheel_max_cms);
  // 5. Linear acceleration limit per wheel (1.7 m/s² [T]).
  const double dv_max = o.a_max_cms2 * o.dt_s;
  MotionState n = s;
  n.v_left_cms = s.v_left_cms + std::clamp(vl_target - s.v_left_cms, -dv_max, dv_max);
  n.v_right_cms = s.v_right_cms + std::clamp(vr_target - s.v_right_cms, -dv_max, dv_max);
  // 6. Centripetal limit |v·ω| = |v · dwv / r| ≤ a_c,max (Eq. 3-7): scale dwv down.
  const double v = 0.5 * (n.v_left_cms + n.v_right_cms);
  double dwv = 0.5 * (n.v_left_cms - n.v_right_cms);
  if (std::fabs(v * dwv / r) > o.a_c_max_cms2) dwv = std::copysign(o.a_c_max_cms2 * r / std::fabs(v), dwv);
  n.v_left_cms = v + dwv;
  n.v_right_cms = v - dwv;
  // 7. Integrate (semi-implicit Euler): heading first, then position along the new heading.
  const double omega = dwv / r;
  n.heading_deg = Wrap360(s.heading_deg + omega * o.dt_s * kRadToDeg);
  const double th = n.heading_deg * kDegToRad;
  n.x_cm = s.x_cm + v * std::sin(th) * o.dt_s;
  n.y_cm = s.y_cm + v * std::cos(th) * o.dt_s;
  if (command) *command = {e_deg, f, v_cmd, omega_cmd};
  return n;
}

}  // namespace limbic::laser
