#pragma once

#include "common/runtime/runtime.hpp"

namespace limbic::mapper {

// The mapper: occupancy, exploration and danger maps and the obstacle buffer (§4.1). Publishes a patch,
// statistics and the obstacle set every tick and a latched full map every `full_map_period` ticks.
runtime::ServiceDefinition MapperService();

}  // namespace limbic::mapper
