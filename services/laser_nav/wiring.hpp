#pragma once

#include "common/runtime/runtime.hpp"

namespace limbic::laser {

// The laser robot's reactive layer (spec reactive-topological §5.1 "reactive"): every tick it turns the
// scan and odometry of that tick (`<robot>/laser/scan`, `<robot>/laser/odom`) and the latched goal
// (`<robot>/laser/goal`) into a desired heading on `<robot>/laser/heading`, with the static or the
// case-based controller. Without a goal yet it asks the robot to stand still. controller=memory is the
// case-based controller with the map layer across the bus (services/laser_topo/wiring.hpp): it reads
// `<robot>/laser/current_node` and `<robot>/laser/path` of earlier ticks and sends `<robot>/laser/plan_request`
// and `<robot>/laser/exit_attempt`; without a mapper or planner it steers as controller=cbr.
runtime::ServiceDefinition LaserNavService();

}  // namespace limbic::laser
