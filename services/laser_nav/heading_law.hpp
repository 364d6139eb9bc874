// The vector-summation heading law every laser controller shares (spec reactive-topological §2.1,
// §2.2.1): the desired heading is the bearing of
//   R = GG·Gv + OG·Ov + NG·Nv + TGG·Tv + EGG·Ev
// with Gv the unit vector to the goal, Ov the obstacle vector of Eq. 4-1, Nv a unit noise vector redrawn
// every NP seconds, Tv the temporary (wall-following) goal vector and Ev the exit goal vector.
//
// Eq. 4-1 (obstacle term reconstructed, A5): Ov = Σ_{a=1}^{360} O_a, O_a = −u(a) · w(r_a) · k_obs with
//   w(r) = 0 for r ≥ S;  (S − r)/(S − r_Robot) for r_Robot < r < S;  w_contact for r ≤ r_Robot   (linear)
// and the alternatives of §2.2.1's calibration notes (A40): linear_contact (weight 1000 within
// r_Robot + 5 cm) and diverging ((S − r)/(r − r_Robot), 1000 at contact).
#pragma once

#include <array>
#include <string>

#include "services/laser_sim/laser_types.hpp"

namespace limbic::laser {

// The seven control parameters of §2.4.1 (the static controller uses TGG = EGG = 0).
struct ControlGains {
  double gg = 6.0;      // goal gain
  double og = 5.0;      // obstacle gain
  double ng = 3.0;      // noise gain
  double np_s = 2.5;    // noise persistence (s)
  double s_cm = 250.0;  // sensing distance: beams at or beyond S do not repel
  double tgg = 0.0;     // temporary goal gain
  double egg = 0.0;     // exit goal gain
};

enum class WeightForm { kLinear, kLinearContact, kDiverging };
WeightForm ParseWeightForm(const std::string& name);  // linear | linear_contact | diverging
const char* WeightFormName(WeightForm form);

struct ObstacleWeightOptions {
  WeightForm form = WeightForm::kLinear;
  double k_obs = kPi / 180.0;  // [A] per-beam angular weight: the sum approximates ∫ w dθ
  double w_contact = 1.0;      // [A] linear form at r ≤ r_Robot
  double robot_radius_cm = 15.0;
};

// Throws std::invalid_argument for a non-finite or negative k_obs / w_contact or a radius ≤ 0.
void ValidateWeightOptions(const ObstacleWeightOptions& options);

// w(r) of Eq. 4-1 for a range r (cm) and sensing distance S (cm).
double ObstacleWeight(double r_cm, double s_cm, const ObstacleWeightOptions& options);

// Ov of Eq. 4-1 for one scan, with w tabulated per whole centimetre (the scan's resolution) and
// re-tabulated only when S changes.
class ObstacleField {
 public:
  explicit ObstacleField(const ObstacleWeightOptions& options = {});
  Vec2 Compute(const RangeScan& scan, double s_cm);
  const ObstacleWeightOptions& options() const { return options_; }

 private:
  ObstacleWeightOptions options_;
  double table_s_ = -1.0;
  std::array<double, 256> table_{};  // k_obs · w(r) for r = 0..255
};

// Unit vector from `position` to `goal` (zero at the goal).
Vec2 GoalVector(Vec2 position, Vec2 goal);

// Bearing of R, or `current_heading_deg` when |R| < 1e-9 (or R is not finite): §2.1.
double ResultantHeading(Vec2 resultant, double current_heading_deg);

}  // namespace limbic::laser
