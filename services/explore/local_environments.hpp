// Local environments of heterogeneous exploration (multi-robot spec §1): the world's occupancy grid cut into
// tiles, each robot's local environment a block of tiles sized to its sensing range and processing budget,
// and the coverage of what the team has explored.
//
// Inputs: the grid (GridSpec), each explorer's profile (sensing range d, processing budget B in cells).
// Outputs: the tiles, a block shape per explorer, explored fractions and coverage from merged maps.
#pragma once

#include <span>
#include <string>
#include <vector>

#include "common/geometry/geometry.hpp"
#include "services/mapper/grid_maps.hpp"

namespace limbic::explore {

using geometry::Cell;
using geometry::GridSpec;
using geometry::Vec2;

// What the task manager knows of one explorer (from its robot description and the manager's options).
struct ExplorerProfile {
  std::string robot = "r1";
  std::string body = "marvin";
  double sensing_range = 3.0;      // d (m): the long-range ring's d_max
  double processing_cells = 600;   // B: grid cells the explorer can hold and plan over in one local environment
  double clearance_radius = 0.35;  // the body's circumscribed radius (m): the fine tier's clearance radius
  // r_lmin (m) of a drive that cannot turn on the spot (a tricycle), 0 for one that can: a lane end keeps it clear
  // besides the body, room to turn towards the next lane (issue 18: an Itchy sent to a lane end 0.4 m from the wall
  // could not turn there and pressed against the wall for minutes).
  double turning_radius = 0.0;
};

// The side (m) of a square local environment for `profile`: min(lanes·2·d, resolution·√B) (lanes of line
// scanning spaced 2d, and no more cells than the processing budget), at least one cell.
// Throws std::invalid_argument for non-positive d, B, resolution or lanes.
double EnvironmentSide(const ExplorerProfile& profile, double resolution, int lanes);

// One tile: cells [x0, x1) × [y0, y1) of the grid.
struct Tile {
  int id = 0;
  int tx = 0, ty = 0;  // position in the tile lattice
  int x0 = 0, y0 = 0, x1 = 0, y1 = 0;
  Vec2 centre{0, 0};  // world (m)
  int CellCount() const { return (x1 - x0) * (y1 - y0); }
  bool Contains(const Cell& c) const { return c.ix >= x0 && c.ix < x1 && c.iy >= y0 && c.iy < y1; }
};

// A block of bx × by tiles: the shape of one explorer's local environment.
struct BlockShape {
  int bx = 1, by = 1;
  bool operator==(const BlockShape&) const = default;
};

// The grid cut into square tiles of `tile_cells` cells a side (the last row and column may be narrower).
class Partition {
 public:
  // Throws std::invalid_argument for an empty grid or tile_cells < 1.
  Partition(const GridSpec& grid, int tile_cells);
  // Tiles sized to the team's smallest local environment (EnvironmentSide, rounded up to whole cells).
  static Partition ForTeam(const GridSpec& grid, std::span<const ExplorerProfile> team, int lanes);

  const GridSpec& grid() const { return grid_; }
  int tile_cells() const { return tile_cells_; }
  int tiles_x() const { return tiles_x_; }
  int tiles_y() const { return tiles_y_; }
  const std::vector<Tile>& tiles() const { return tiles_; }
  const Tile& tile(int id) const { return tiles_.at(static_cast<size_t>(id)); }
  // The tile holding a cell or a point (-1 off the grid).
  int TileOf(const Cell& c) const;
  int TileAt(const Vec2& p) const { return TileOf(grid_.CellOf(p)); }
  // 4-adjacent tiles, in the order +x, −x, +y, −y (present ones only).
  std::vector<int> Neighbours(int tile) const;

  // The block shape of an explorer: n = max(1, round(side² / tile side²)) tiles, bx = ⌈√n⌉, by = max(1, round(n/bx))
  // (1 → 1×1, 2 → 2×1, 4 → 2×2), each at most the lattice's size.
  BlockShape ShapeFor(const ExplorerProfile& profile, int lanes) const;
  // The tiles of the block of `shape` aligned on multiples of (bx, by) that holds `tile`, ascending ids.
  std::vector<int> BlockOf(int tile, const BlockShape& shape) const;

 private:
  GridSpec grid_;
  int tile_cells_ = 1;
  int tiles_x_ = 0, tiles_y_ = 0;
  std::vector<Tile> tiles_;
};

// What counts as known.
struct KnowledgeOptions {
  double explored_threshold = 0.5;   // a cell is explored when p_e ≥ this (the mapper's `fraction` coverage)
  double occupied_threshold = 0.65;  // T_o: an explored cell with p_o ≥ T_o is an obstacle
};

// The team's knowledge from every robot's maps: p_e the largest, p_o from the robot that explored the cell most
// (the first such on ties), danger any. Throws std::invalid_argument for no maps or maps of different grids.
mapper::GridMaps MergeMaps(std::span<const mapper::GridMaps* const> maps);

// The fraction of a tile's cells that are explored, among those not known to be obstacles (1 for a tile of obstacles
// only).
double ExploredFraction(const Tile& tile, const mapper::GridMaps& maps, const KnowledgeOptions& options = {});

// Coverage: the fraction of the world's free cells (free_mask[i] true) that are explored. 0 for no free cells.
// Throws std::invalid_argument when the mask's size differs from the maps'.
double Coverage(const mapper::GridMaps& maps, const std::vector<bool>& free_mask, const KnowledgeOptions& options = {});

}  // namespace limbic::explore
