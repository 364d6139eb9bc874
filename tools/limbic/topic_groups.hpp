// `limbic topics` grouped by robot (issue 18): which topics belong to which robot of a team.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace limbic::cli {

// Splits topic names into groups: first the global ones (group name ""), then one group per robot
// in natural order (r2 before r10). A robot is a namespace P that carries a robot's own traffic
// (P/truth, P/odom, P/scan, P/wheels, P/affect or P/mission), except the global namespaces health,
// param, lockstep, bus and foxglove; every topic under P belongs to it. Topics keep their order
// within a group.
std::vector<std::pair<std::string, std::vector<std::string>>> GroupTopicsByRobot(
    const std::vector<std::string>& topics);

}  // namespace limbic::cli
