#pragma once

#include "common/runtime/runtime.hpp"

namespace limbic::simulator {

// The world simulator: owns the world truth; advances one control period per tick; publishes the
// clock (realtime), world geometry (latched), humans, and per robot raw ranges, bumpers, odometry and
// ground truth. Only mission and metrics may read ground truth.
runtime::ServiceDefinition SimulatorService();

}  // namespace limbic::simulator
