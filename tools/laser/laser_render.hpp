// SVG pictures of laser worlds (spec reactive-topological §1.9 "figures"): the room, its obstacles, the
// start and the goal (a small square box), the flood's optimal path (magenta), a trajectory (blue) and
// the laser's hits from one pose (red dots), the topological map, and the vector field with its minima (E2c). 1 px per
// cm, north up.
#pragma once

#include <string>
#include <vector>

#include "services/laser_nav/vector_field.hpp"
#include "services/laser_sim/laser_types.hpp"
#include "services/laser_sim/laser_world.hpp"
#include "services/laser_topo/topo_map.hpp"

namespace limbic::laser {

struct RenderLayers {
  std::string title;
  std::vector<Vec2> optimal_path;
  std::vector<Vec2> trajectory;
  bool show_scan = false;
  Vec2 scan_origin;
  RangeScan scan{};
  // The topological map (§3, E6/E7), drawn over the world in its own frame (odometry, corrected): links
  // (orange), nodes with their smallest vector (dark red), usable exits (green) and masked ones (grey).
  const TopoMap* map = nullptr;
  // E2c: the static law's field (grey arrows on every second cell, length fixed: only the heading is drawn)
  // and its potential minima (red cells).
  const VectorField* field = nullptr;
};

std::string RenderWorldSvg(const World& world, const RenderLayers& layers);

}  // namespace limbic::laser
