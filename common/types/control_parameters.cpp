#include "common/types/control_parameters.hpp"

#include "common/config/config.hpp"

namespace limbic {

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
