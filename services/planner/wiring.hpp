#pragma once

#include "common/runtime/runtime.hpp"

namespace limbic::planner {

// The path planner: fuses occupancy, danger, exploration and the emotion layer, smooths, and runs A*
// with node cost B^{m_f'} (§4.1-4.2). Replans on a new goal and every t_r; publishes the path each tick.
runtime::ServiceDefinition PlannerService();

}  // namespace limbic::planner
