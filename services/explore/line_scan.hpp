// Line-scanning exploration inside a local environment (multi-robot spec §1): boustrophedon lanes spaced by twice
// the sensing range d, run along the environment's longer side, that favour unexplored space — a lane whose swath
// (±d about it) holds no unexplored open cell of the environment is skipped, and each lane is cut to the stretch
// between its swath's first and last unexplored cells.
//
// Inputs: the grid and maps, the environment's cells (a rectangle and a membership mask), d, the robot's position.
// Outputs: the waypoints (lane ends, alternating direction), starting at the lane end nearest the robot.
#pragma once

#include <functional>
#include <limits>
#include <vector>

#include "services/explore/local_environments.hpp"

namespace limbic::explore {

struct LineScanOptions {
  double sensing_range = 3.0;  // d (m): lanes are 2d apart, the swath of a lane is ±d
  KnowledgeOptions knowledge;  // what counts as explored, and as an obstacle (T_o)
  // A lane end in a cell at or above T_o moves along the lane's cross direction (within the swath) to the nearest
  // cell below it; a lane end with none is dropped.
  //
  // end_clearance (m): with it > 0 a lane end is also kept this far from the grid's edge, from the sides of
  // `interior` and from every cell at or above T_o — the body's circumscribed radius, so that a robot can stand on
  // the point it is sent to; when a lane's extreme column has no such cell, the end moves inward along the lane to
  // the first column that has one. 0: ends as close to walls as the cells allow (a robot sent to a border cell
  // presses against the outer wall).
  double end_clearance = 0.0;
  // The free interior of the arena, inside the outer wall's inner faces (ArenaInterior): the stack's grids reach a
  // cell beyond the world's box, and the outer wall stands across that box's edge, so the grid's edge alone leaves a
  // lane end a few centimetres from the wall (issue 18: an Itchy sent there pressed against it for minutes).
  // Unbounded by default: the grid's edge alone.
  Vec2 interior_min{-std::numeric_limits<double>::infinity(), -std::numeric_limits<double>::infinity()};
  Vec2 interior_max{std::numeric_limits<double>::infinity(), std::numeric_limits<double>::infinity()};
};

struct Lane {
  double offset = 0.0;  // the lane's cross coordinate (m): y for lanes along x, x for lanes along y
  Vec2 a{0, 0}, b{0, 0};
  int unexplored = 0;  // unexplored open cells in its swath
};

// The lanes of one environment: cells [x0, x1) × [y0, y1), restricted to cells where `member` is true (all when
// empty). Lanes run along x when the rectangle is at least as wide as it is tall, else along y; there are
// n = ⌈extent / 2d⌉ of them, 2d apart, centred in the rectangle. Throws std::invalid_argument for an empty
// rectangle, d ≤ 0 or a negative or non-finite end clearance.
std::vector<Lane> Lanes(const mapper::GridMaps& maps, int x0, int y0, int x1, int y1,
                        const std::function<bool(const Cell&)>& member, const LineScanOptions& options);

// The lanes' ends in boustrophedon order, from the end nearest `robot` (of the first or the last lane).
std::vector<Vec2> LineScanWaypoints(const std::vector<Lane>& lanes, const Vec2& robot);

}  // namespace limbic::explore
