#include "common/types/control_parameters.hpp"

#include <cmath>
#include <sstream>

#include "common/config/config.hpp"

namespace limbic {
namespace {

[[noreturn]] void BadParameter(const std::string& field, const std::string& requirement, double value) {
  std::ostringstream msg;
  msg << "ControlParameters." << field << " must be " << requirement << " (got " << value << ")";
  throw ParameterRangeError(field, msg.str());
}

void CheckWindow(const char* field, int n) {
  using L = ControlParameterLimits;
  if (n < 1 || n > L::kMaxWindow || n % 2 == 0) {
    BadParameter(field, "an odd number in [1, " + std::to_string(L::kMaxWindow) + "]", n);
  }
}

void CheckRange(const char* field, double value, double lo, double hi, bool lo_open = false) {
  const bool low_ok = lo_open ? value > lo : value >= lo;
  if (!(low_ok && value <= hi)) {  // NaN fails both
    std::ostringstream range;
    range << "in " << (lo_open ? "(" : "[") << lo << ", " << hi << "]";
    BadParameter(field, range.str(), value);
  }
}

}  // namespace

void ValidateParameters(const ControlParameters& p) {
  using L = ControlParameterLimits;
  // Every real field finite first: NaN and ±inf defeat every comparison below.
#define LIMBIC_FINITE_int(name)
#define LIMBIC_FINITE_double(name) \
  if (!std::isfinite(p.name)) BadParameter(#name, "finite", p.name);
#define LIMBIC_FIELD(type, name) LIMBIC_FINITE_##type(name)
  LIMBIC_CONTROL_PARAMETER_FIELDS(LIMBIC_FIELD)
#undef LIMBIC_FIELD
#undef LIMBIC_FINITE_double
#undef LIMBIC_FINITE_int
  if (p.n_theta < 1 || p.n_theta > L::kMaxNTheta) {
    BadParameter("n_theta", "in [1, " + std::to_string(L::kMaxNTheta) + "]", p.n_theta);
  }
  CheckWindow("n_v", p.n_v);
  CheckWindow("n_omega", p.n_omega);
  if (p.n_o < 1 || p.n_o > L::kMaxNO) BadParameter("n_o", "in [1, " + std::to_string(L::kMaxNO) + "]", p.n_o);
  CheckRange("r_o", p.r_o, 0.0, L::kMaxReach);
  CheckRange("d_o_max", p.d_o_max, 0.0, L::kMaxReach, /*lo_open=*/true);
  CheckRange("d_v_max", p.d_v_max, 0.0, L::kMaxReach, /*lo_open=*/true);
  CheckRange("d_lookahead", p.d_lookahead, 0.0, L::kMaxReach);
  CheckRange("d_g_max", p.d_g_max, 0.0, L::kMaxReach);
  CheckRange("map_radius", p.map_radius, 0.0, L::kMaxMapRadius);
  CheckRange("r_f", p.r_f, 0.0, L::kMaxRF);
  CheckRange("smoothing", p.smoothing, 0.0, 1.0);
  CheckRange("v_limit", p.v_limit, 0.0, 10.0);  // m/s: MARVIN drives at 1 m/s
  CheckRange("omega_limit", p.omega_limit, 0.0, 4.0 * std::numbers::pi);
  CheckRange("t_1", p.t_1, 0.0, L::kMaxPeriod);
  CheckRange("t_2", p.t_2, p.t_1, L::kMaxPeriod);
  CheckRange("t_3", p.t_3, 0.0, L::kMaxPeriod);
  CheckRange("t_r", p.t_r, 0.0, L::kMaxPeriod);
  // The wander heading is redrawn every period (eq. 5.17): zero or less would redraw forever.
  CheckRange("wander_period", p.wander_period, 0.0, L::kMaxPeriod, /*lo_open=*/true);
  CheckRange("beta", p.beta, 0.0, 1e6, /*lo_open=*/true);
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
  try {
    ValidateParameters(*p);
  } catch (const ParameterRangeError& e) {
    map.Fail(e.field(), e.what());
  }
}

ControlParameters Table72Literal() {
  ControlParameters p;
  p.w_v4 = 0.9;
  p.w_v5 = 0.5;
  return p;
}

}  // namespace limbic
