#pragma once

#include "common/runtime/runtime.hpp"

namespace limbic::laser {

// The laser robot's map layer as the processes of spec reactive-topological §5.1 (library: map_services.hpp).
//
// laser_perception  every tick: `<robot>/laser/scan`, `<robot>/laser/odom` (same tick) and the latched goal →
//                   `<robot>/laser/obstacles` and `<robot>/laser/features` (§3.2–3.4).
// laser_mapper      every tick: `<robot>/laser/features`, `<robot>/laser/odom` (same tick) and the reactive
//                   layer's `<robot>/laser/exit_attempt` (feedback) → `<robot>/laser/current_node` every tick
//                   and `<robot>/laser/map` (latched snapshot) when a node is created or becomes current, a try
//                   is counted, or every `snapshot_every` ticks.
// laser_planner     on request: `<robot>/laser/plan_request` (feedback) over the newest `<robot>/laser/map` →
//                   `<robot>/laser/path`, one per request.
runtime::ServiceDefinition LaserPerceptionService();
runtime::ServiceDefinition LaserMapperService();
runtime::ServiceDefinition LaserPlannerService();

}  // namespace limbic::laser
