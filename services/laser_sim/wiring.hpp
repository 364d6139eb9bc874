#pragma once

#include "common/runtime/runtime.hpp"

namespace limbic::laser {

// The laser robot's simulator (spec reactive-topological §5.1 "sim"): one world of the density
// libraries, one robot. Every tick (10 ms) it applies the previous tick's heading command through the
// motion law, then publishes the scan (`<robot>/laser/scan`), the encoders/compass/gyro
// (`<robot>/laser/odom`) and the ground truth (`<robot>/laser/truth`); the goal is latched on
// `<robot>/laser/goal`. In lockstep it asks the coordinator to end the run when the episode ends (goal or
// time limit); in realtime a command older than `command_timeout_s` stops the robot.
runtime::ServiceDefinition LaserSimService();

}  // namespace limbic::laser
