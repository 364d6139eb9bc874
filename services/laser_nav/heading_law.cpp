#include "services/laser_nav/heading_law.hpp"

#include <cmath>
#include <stdexcept>

namespace limbic::laser {
namespace {

constexpr double kContactWeight = 1000.0;  // §2.2.1 calibration notes: "weight 1000 for r_a ≤ r_robot + 5"

}  // namespace

WeightForm ParseWeightForm(const std::string& name) {
  if (name == "linear") return WeightForm::kLinear;
  if (name == "linear_contact") return WeightForm::kLinearContact;
  if (name == "diverging") return WeightForm::kDiverging;
  throw std::invalid_argument("weight form must be linear|linear_contact|diverging, got '" + name + "'");
}

const char* WeightFormName(WeightForm form) {
  switch (form) {
    case WeightForm::kLinear:
      return "linear";
    case WeightForm::kLinearContact:
      return "linear_contact";
    case WeightForm::kDiverging:
      return "diverging";
  }
  return "?";
}

void ValidateWeightOptions(const ObstacleWeightOptions& o) {
  if (!(std::isfinite(o.k_obs) && o.k_obs >= 0.0)) throw std::invalid_argument("k_obs must be a number >= 0");
  if (!(std::isfinite(o.w_contact) && o.w_contact >= 0.0)) throw std::invalid_argument("w_contact must be >= 0");
  if (!(std::isfinite(o.robot_radius_cm) && o.robot_radius_cm > 0.0)) {
    throw std::invalid_argument("robot_radius_cm must be > 0");
  }
}

double ObstacleWeight(double r, double s, const ObstacleWeightOptions& o) {
  if (!(r < s)) return 0.0;  // beyond the sensing distance (and NaN)
  const double rr = o.robot_radius_cm;
  switch (o.form) {
    case WeightForm::kLinear:
      return r <= rr ? o.w_contact : (s - r) / (s - rr);
    case WeightForm::kLinearContact:
      return r <= rr + 5.0 ? kContactWeight : (s - r) / (s - rr);
    case WeightForm::kDiverging:
      return r <= rr ? kContactWeight : std::min(kContactWeight, (s - r) / (r - rr));
  }
  return 0.0;
}

ObstacleField::ObstacleField(const ObstacleWeightOptions& options) : options_(options) {
  ValidateWeightOptions(options);
}

Vec2 ObstacleField::Compute(const RangeScan& scan, double s_cm) {
  if (s_cm != table_s_) {
    for (int r = 0; r < static_cast<int>(table_.size()); ++r) {
      table_[r] = options_.k_obs * ObstacleWeight(r, s_cm, options_);
    }
    table_s_ = s_cm;
  }
  // O_a = −u(a) · w(r_a) · k_obs, summed over the 360 beams (Eq. 4-1).
  const auto& u = BeamUnitVectors();
  double x = 0.0, y = 0.0;
  for (int a = 0; a < kBeams; ++a) {
    const double w = table_[scan[a]];
    x -= u[a].x * w;
    y -= u[a].y * w;
  }
  return {x, y};
}

Vec2 GoalVector(Vec2 position, Vec2 goal) {
  const Vec2 d = goal - position;
  const double n = Norm(d);
  return n > 1e-9 ? (1.0 / n) * d : Vec2{};
}

double ResultantHeading(Vec2 r, double current_heading_deg) {
  const double n = Norm(r);
  if (!(n >= 1e-9)) return current_heading_deg;  // no resultant (or NaN): keep the heading
  return BearingOf(r);
}

}  // namespace limbic::laser
