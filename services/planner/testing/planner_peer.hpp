// Test seam for Planner (issue 15, item 1): writes a value into the planner's state between cycles,
// as a bug or a corrupted memory would, so tests can assert the rollback. Tests only: no production
// code includes this header (it is not reachable from the bus, flags or files).
#pragma once

#include <cmath>
#include <cstddef>
#include <limits>

#include "services/planner/planner.hpp"

namespace limbic::planner {

struct PlannerTestPeer {
  static void PoisonPathCost(Planner& p) { p.state_.path_cost = std::nan(""); }
  static void PoisonNode(Planner& p, size_t i) { p.state_.path.nodes.at(i).x() = std::nan(""); }
  static void PoisonNodeCost(Planner& p, size_t i) {
    p.state_.path.node_costs.at(i) = std::numeric_limits<double>::infinity();
  }
};

}  // namespace limbic::planner
