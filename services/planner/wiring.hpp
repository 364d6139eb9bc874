#pragma once

#include <cstdint>
#include <functional>

#include "common/runtime/runtime.hpp"

namespace limbic::planner {

class Planner;

// Test seam (issue 15, item 1): called with the planner before each cycle's Step, so a system test can
// poison its state (testing/planner_peer.hpp) and watch the service roll back and report itself
// degraded on the bus. Reachable only from C++ (no flag, file or message sets it); main passes none.
using PlannerStepHook = std::function<void(Planner&, int64_t tick)>;

// The path planner: fuses occupancy, danger, exploration and the emotion layer, smooths, and runs A*
// with node cost B^{m_f'} (§4.1-4.2). Replans on a new goal and every t_r; publishes the path each tick.
runtime::ServiceDefinition PlannerService(PlannerStepHook before_step = {});

}  // namespace limbic::planner
