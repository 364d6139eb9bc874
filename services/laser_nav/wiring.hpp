#pragma once

#include "common/runtime/runtime.hpp"

namespace limbic::laser {

// The laser robot's reactive layer (spec reactive-topological §5.1 "reactive"): every tick it turns the
// scan and odometry of that tick (`<robot>/laser/scan`, `<robot>/laser/odom`) and the latched goal
// (`<robot>/laser/goal`) into a desired heading on `<robot>/laser/heading`, with the static or the
// case-based controller. Without a goal yet it asks the robot to stand still.
runtime::ServiceDefinition LaserNavService();

}  // namespace limbic::laser
