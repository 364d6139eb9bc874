// The robot's body as a service option: one key, one default and one help text for every service that needs
// the body's facts (hwio reads it from its YAML as robot.body). A wiring file: it knows the runtime.
#pragma once

#include "common/robot/robot_description.hpp"
#include "common/runtime/runtime.hpp"

namespace limbic::robot {

// Start-up option `body`: a description in configs/robots (marvin, itchy, scratchy, tank) or a .yaml path;
// MARVIN by default. `use` says what this service takes from it (for --help). A bad name or file is a
// config::ConfigError naming it: the service does not start.
RobotDescription BodyOption(runtime::ServiceContext& ctx, const std::string& use);

}  // namespace limbic::robot
