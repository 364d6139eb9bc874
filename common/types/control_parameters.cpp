#include "common/types/control_parameters.hpp"

#include <cmath>
#include <sstream>
#include <stdexcept>

#include "common/config/config.hpp"

namespace limbic {
namespace {

[[noreturn]] void BadParameter(const std::string& field, const std::string& requirement, double value) {
  std::ostringstream msg;
  msg << "ControlParameters." << field << " must be " << requirement << " (got " << value << ")";
  throw std::invalid_argument(msg.str());
}

}  // namespace

// Moved here from the controller so every receiver of parameters applies the same check (the message
// validation at the bus boundary, issue 15). Branch `hardening` (issue 16) adds the full set of upper
// bounds; only the bounds that size an allocation per tick are here.
void ValidateParameters(const ControlParameters& p) {
#define LIMBIC_FINITE_int(name)
#define LIMBIC_FINITE_double(name) \
  if (!std::isfinite(p.name)) BadParameter(#name, "finite", p.name);
#define LIMBIC_FIELD(type, name) LIMBIC_FINITE_##type(name)
  LIMBIC_CONTROL_PARAMETER_FIELDS(LIMBIC_FIELD)
#undef LIMBIC_FIELD
#undef LIMBIC_FINITE_double
#undef LIMBIC_FINITE_int
  if (p.n_theta < 1 || p.n_theta > 720) BadParameter("n_theta", "in [1, 720]", p.n_theta);
  if (p.n_v < 1 || p.n_v > 101 || p.n_v % 2 == 0) BadParameter("n_v", "an odd number in [1, 101]", p.n_v);
  if (p.n_omega < 1 || p.n_omega > 101 || p.n_omega % 2 == 0) {
    BadParameter("n_omega", "an odd number in [1, 101]", p.n_omega);
  }
  if (p.n_o < 1 || p.n_o > 100) BadParameter("n_o", "in [1, 100]", p.n_o);
  if (!(p.r_o >= 0.0)) BadParameter("r_o", ">= 0", p.r_o);
  if (!(p.d_o_max > 0.0)) BadParameter("d_o_max", "> 0", p.d_o_max);
  if (!(p.smoothing >= 0.0)) BadParameter("smoothing", ">= 0", p.smoothing);
  if (!(p.d_lookahead >= 0.0)) BadParameter("d_lookahead", ">= 0", p.d_lookahead);
  if (!(p.d_g_max >= 0.0)) BadParameter("d_g_max", ">= 0", p.d_g_max);
  if (!(p.map_radius >= 0.0 && p.map_radius <= 20.0)) BadParameter("map_radius", "in [0, 20]", p.map_radius);
  if (!(p.r_f >= 0.0 && p.r_f <= 5.0)) BadParameter("r_f", "in [0, 5]", p.r_f);
  if (!(p.v_limit >= 0.0)) BadParameter("v_limit", ">= 0", p.v_limit);
  if (!(p.omega_limit >= 0.0)) BadParameter("omega_limit", ">= 0", p.omega_limit);
  if (!(p.t_1 >= 0.0)) BadParameter("t_1", ">= 0", p.t_1);
  if (!(p.t_2 >= p.t_1)) BadParameter("t_2", ">= t_1", p.t_2);
  if (!(p.d_v_max > 0.0)) BadParameter("d_v_max", "> 0", p.d_v_max);
  if (!(p.beta > 0.0)) BadParameter("beta", "> 0", p.beta);
  if (!(p.a_max >= p.a_min)) BadParameter("a_max", ">= a_min", p.a_max);
  if (!(p.alpha_max >= p.alpha_min)) BadParameter("alpha_max", ">= alpha_min", p.alpha_max);
}

void LoadControlParameters(config::StrictMap& map, ControlParameters* p) {
#define LIMBIC_FIELD(type, name) map.Optional(#name, &p->name);
  LIMBIC_CONTROL_PARAMETER_FIELDS(LIMBIC_FIELD)
#undef LIMBIC_FIELD
  if (p->n_v < 1 || p->n_v % 2 == 0) map.Fail("n_v", "must be a positive odd number");
  if (p->n_omega < 1 || p->n_omega % 2 == 0) map.Fail("n_omega", "must be a positive odd number");
  if (p->n_theta < 3) map.Fail("n_theta", "must be at least 3");
  if (p->n_o < 1) map.Fail("n_o", "must be at least 1");
}

ControlParameters Table72Literal() {
  ControlParameters p;
  p.w_v4 = 0.9;
  p.w_v5 = 0.5;
  return p;
}

}  // namespace limbic
