#pragma once

#include "common/runtime/runtime.hpp"

namespace limbic::hwio {

// The robot's device boundary. Two lockstep steps: `sense` (raw ranges -> median filter -> scan;
// bumpers -> collision events; odometry) and `actuate` (velocity command -> hard limits -> watchdog ->
// actuator faults -> wheel command). Sensor, bumper and actuator faults arrive on `faults` or from a
// timed fault script. Backends: the simulator over the bus, or a serial motor/sensor board.
runtime::ServiceDefinition HwioService();

}  // namespace limbic::hwio
