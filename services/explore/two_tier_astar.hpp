// Two-tier A* of heterogeneous exploration (multi-robot spec §1): a coarse tier over the local-environment tiles
// directs an explorer to its allocated environment, a fine tier over the occupancy grid inside the tiles the coarse
// path crosses.
//
// Fine tier (spec §1):  g(x) = g(x_par) + d_n(x, x_par)·c_m(x)  if p_o(x) < T_o, else ∞
//                       c_m(x) = 1 + W_10·p_o(x) + W_11·mean_{y within the clearance radius of x} p_o(y)
// Coarse tier (the spec gives no cost; decision, services/explore/README.md): a step between 4-adjacent tiles costs
// the distance between their centres times 1 + W_10·(mean p_o of the tile entered); a tile none of whose cells is
// below T_o cannot be entered.
//
// Inputs: the partition, the (merged) maps, start and goal. Outputs: the tile path, the cell path and their costs.
#pragma once

#include <vector>

#include "services/explore/bidding.hpp"
#include "services/explore/local_environments.hpp"

namespace limbic::explore {

struct TwoTierOptions {
  double occupancy_threshold = 0.65;  // T_o
  double w10 = 1.0;                   // W_10: weight of the cell's own p_o
  double w11 = 1.0;                   // W_11: weight of the mean p_o within the clearance radius
  double clearance_radius = 0.35;     // m: cells whose centres lie within it of x's centre (x included)
  // When no fine path exists inside the coarse corridor, search the whole grid (true) or fail (false).
  bool fallback_to_whole_grid = true;
};
// Throws std::invalid_argument naming the field for T_o outside (0, 1], negative or non-finite weights or radius.
void Validate(const TwoTierOptions& options);

struct CoarseResult {
  bool success = false;
  std::vector<int> tiles;  // from the start tile to the goal tile
  double cost = 0.0;
};

struct FineResult {
  bool success = false;
  std::vector<Cell> cells;  // from the start cell to the goal cell, 8-connected
  double cost = 0.0;        // g(goal)
  int expanded = 0;
};

struct TwoTierResult {
  bool success = false;
  CoarseResult coarse;
  FineResult fine;
  bool used_fallback = false;  // the fine tier left the corridor
};

// Plans over fixed maps: c_m is computed once for every cell at construction. Holds references to the partition
// and the maps, which must outlive it unchanged.
class TwoTierPlanner {
 public:
  // Throws std::invalid_argument when the maps' grid is not the partition's, or for invalid options.
  TwoTierPlanner(const Partition& partition, const mapper::GridMaps& maps, const TwoTierOptions& options = {});

  // c_m(x), and whether x may be entered (p_o(x) < T_o).
  double CostMultiplier(const Cell& c) const { return multiplier_[partition_.grid().Index(c)]; }
  bool Passable(const Cell& c) const;
  // The coarse tier's multiplier of a tile (1 + W_10·mean p_o) and whether it can be entered.
  double TileMultiplier(int tile) const { return tile_multiplier_[tile]; }
  bool TilePassable(int tile) const { return tile_passable_[tile]; }

  // Coarse A* from tile to tile (Euclidean heuristic between centres; multipliers ≥ 1 keep it admissible).
  CoarseResult Coarse(int from_tile, int to_tile) const;
  // Coarse Dijkstra: the cost from `from_tile` to every tile (+∞ where unreachable): CoarseCosts over Graph().
  std::vector<double> CoarseCostsFrom(int from_tile) const;
  // The coarse tier as a graph (what a call for bids carries): tile centres, and multipliers with 0 where a tile
  // cannot be entered.
  CoarseGraph Graph() const;
  // Fine A* from cell to cell restricted to `corridor` tiles (all tiles when empty). The start cell is entered
  // whatever its p_o (the robot is there); the goal must be passable. Heuristic: Euclidean distance (c_m ≥ 1).
  FineResult Fine(const Cell& start, const Cell& goal, const std::vector<int>& corridor = {}) const;
  // Both tiers: coarse from the start's tile to the goal's, then fine inside the coarse path's tiles.
  TwoTierResult Plan(const Vec2& start, const Vec2& goal) const;

 private:
  const Partition& partition_;
  const mapper::GridMaps& maps_;
  TwoTierOptions options_;
  std::vector<double> multiplier_;
  std::vector<double> tile_multiplier_;
  std::vector<bool> tile_passable_;
};

// Every `spacing` metres of path length (and the last cell) as world points: waypoints for an explorer's own
// planner. The start cell is left out.
std::vector<Vec2> Waypoints(const GridSpec& grid, const std::vector<Cell>& cells, double spacing);

}  // namespace limbic::explore
