#pragma once

#include "common/runtime/runtime.hpp"

namespace limbic::crowd {

// A crowd robot (issue 19; spec multi-robot §2) in place of the hybrid navigator's mapper, planner and controller:
// every tick it reads its odometry (`<robot>/odom`, same tick), the neighbours it sees (`<robot>/crowd/neighbours`,
// same tick, from `limbic-crowd-sense`), the latched world (`world`, walls) and goal (`<robot>/goal`), runs b_nav
// with its emotions, and publishes `<robot>/cmd_vel` (to hwio, like the controller) and `<robot>/crowd/state` (μ,
// the active emotion, the parameters). No goal, no odometry yet, or within the goal tolerance: it stands still.
runtime::ServiceDefinition CrowdNavService();

// Who sees whom, beside the simulator: every tick it reads each robot's truth (`<robot>/truth`, same tick) and
// crowd state (`<robot>/crowd/state`, previous tick: its ψ, H, radius and shown emotion) and publishes to each
// robot the neighbours inside its field of view and horizon (`<robot>/crowd/neighbours`), in its own frame. The
// truth stays here: a robot learns only what it could see.
runtime::ServiceDefinition CrowdSenseService();

}  // namespace limbic::crowd
