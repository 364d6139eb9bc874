#include "common/types/control_parameters.hpp"

#include "common/config/config.hpp"

namespace limbic {

void LoadControlParameters(config::StrictMap& map, ControlParameters* p) {
#define LIMBIC_FIELD(name) map.Optional(#name, &p->name)
  LIMBIC_FIELD(w_v1); LIMBIC_FIELD(w_v2); LIMBIC_FIELD(w_v3); LIMBIC_FIELD(w_v4); LIMBIC_FIELD(w_v5);
  LIMBIC_FIELD(n_v); LIMBIC_FIELD(n_omega); LIMBIC_FIELD(v_limit); LIMBIC_FIELD(omega_limit);
  LIMBIC_FIELD(a_max); LIMBIC_FIELD(a_min); LIMBIC_FIELD(alpha_max); LIMBIC_FIELD(alpha_min);
  LIMBIC_FIELD(t_1); LIMBIC_FIELD(t_2); LIMBIC_FIELD(t_3); LIMBIC_FIELD(d_v_max); LIMBIC_FIELD(kappa);
  LIMBIC_FIELD(beta);
  LIMBIC_FIELD(w_theta1); LIMBIC_FIELD(w_theta2); LIMBIC_FIELD(w_theta3); LIMBIC_FIELD(w_theta4);
  LIMBIC_FIELD(w_theta5); LIMBIC_FIELD(w_theta6); LIMBIC_FIELD(n_theta); LIMBIC_FIELD(d_o_max);
  LIMBIC_FIELD(r_o); LIMBIC_FIELD(smoothing); LIMBIC_FIELD(d_lookahead); LIMBIC_FIELD(d_g_max);
  LIMBIC_FIELD(wander_period); LIMBIC_FIELD(wander_alpha); LIMBIC_FIELD(map_threshold);
  LIMBIC_FIELD(map_radius); LIMBIC_FIELD(weight_cap);
  LIMBIC_FIELD(w_p1); LIMBIC_FIELD(w_p2); LIMBIC_FIELD(w_p3); LIMBIC_FIELD(w_p4);
  LIMBIC_FIELD(cost_base); LIMBIC_FIELD(r_f); LIMBIC_FIELD(t_r);
  LIMBIC_FIELD(eps_1); LIMBIC_FIELD(eps_2); LIMBIC_FIELD(eps_3); LIMBIC_FIELD(n_o);
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
