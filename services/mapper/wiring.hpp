#pragma once

#include <cstdint>
#include <functional>

#include "common/runtime/runtime.hpp"

namespace limbic::mapper {

class OccupancyMapper;

// Test seam (issue 15, item 1): called with the mapper before each cycle's Update, so a system test can
// poison its state (testing/occupancy_mapper_peer.hpp) and watch the service roll back and report itself
// degraded on the bus. Reachable only from C++ (no flag, file or message sets it); main passes none.
using MapperStepHook = std::function<void(OccupancyMapper&, int64_t tick)>;

// The mapper: occupancy, exploration and danger maps and the obstacle buffer (§4.1). Publishes a patch,
// statistics and the obstacle set every tick and a latched full map every `full_map_period` ticks.
runtime::ServiceDefinition MapperService(MapperStepHook before_update = {});

}  // namespace limbic::mapper
