// SVG drawing of an environment (§7 map plots): walls, doors, obstacles, undetectable obstacles
// (green), humans' start positions (cyan), start (red) and goal (yellow), a faint block grid, a
// scale bar and a legend, with optional overlays (trajectory with heading arrows, occupancy grid as
// grey squares).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "common/geometry/geometry.hpp"
#include "common/robot/robot_description.hpp"
#include "sim/environment.hpp"

namespace limbic::sim {

// A trajectory drawn as a polyline with a heading arrow every `arrow_every` poses (every 5 s at T =
// 0.1 s).
struct TrajectoryOverlay {
  std::vector<geometry::Pose2> poses;
  int arrow_every = 50;
  std::string colour = "#ff8c00";  // orange, as in the thesis figures
  bool end_marker = false;         // a cross where the trajectory ends (where a failed traversal stopped)
};

// Occupancy probabilities drawn as grey squares (darker = more likely occupied). Cells below
// `min_value` are skipped.
struct OccupancyOverlay {
  geometry::GridSpec grid;
  std::vector<double> probability;  // one per cell, index = grid.Index(cell)
  double min_value = 0.05;
};

// A robot's body outline at a pose (issue 18 item 2), with a line from its reference point to show its
// heading, and a goal marker of its circumscribed radius.
struct BodyOverlay {
  robot::Body body = robot::RobotDescription{}.body;
  geometry::Pose2 pose;
  std::optional<geometry::Vec2> goal;
  std::string colour = "red";
  std::string label;  // drawn beside the body (e.g. "r2 itchy")
};

struct SvgOptions {
  double pixels_per_metre = 40.0;
  double margin_px = 20.0;
  bool block_grid = true;
  bool scale_bar = true;
  bool legend = true;
  std::string title;  // drawn above the map when non-empty
  std::vector<TrajectoryOverlay> trajectories;
  std::vector<OccupancyOverlay> occupancy;  // drawn below the geometry
  // Robots drawn with their outlines. Empty: the environment's start and goal as discs of the default robot's
  // (MARVIN's) radius.
  std::vector<BodyOverlay> bodies;
};

// A self-contained SVG document.
std::string RenderSvg(const Environment& env, const SvgOptions& options = {});

}  // namespace limbic::sim
