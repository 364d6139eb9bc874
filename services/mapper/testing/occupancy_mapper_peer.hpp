// Test seam for OccupancyMapper (issue 15, item 1): writes a value into the mapper's state between
// cycles, as a bug or a corrupted memory would, so tests can assert the rollback. Tests only: no
// production code includes this header (it is not reachable from the bus, flags or files).
#pragma once

#include <cstdint>

#include "services/mapper/occupancy_mapper.hpp"

namespace limbic::mapper {

struct OccupancyMapperTestPeer {
  static void SetOccupancy(OccupancyMapper& m, int index, double p_o) { m.state_.maps.p_o.at(index) = p_o; }
  static void SetExploration(OccupancyMapper& m, int index, double p_e) { m.state_.maps.p_e.at(index) = p_e; }
  static void SetDangerValue(OccupancyMapper& m, int index, uint8_t d) { m.state_.maps.danger.at(index) = d; }
};

}  // namespace limbic::mapper
