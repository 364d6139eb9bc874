// The three position-space grid maps of spec §4.1 (occupancy p_o, exploration p_e, danger) as one value,
// plus the incremental patches and snapshots that carry them to other processes.
#pragma once

#include <cstdint>
#include <vector>

#include "common/geometry/geometry.hpp"
#include "common/types/navigation.hpp"

namespace limbic::mapper {

inline constexpr double kCellSize = 0.35;           // = robot radius r_R (§4.1)
inline constexpr double kInitialOccupancy = 0.2;    // p_o of unexplored cells (§7.4.1, §8 item 33)
inline constexpr double kInitialExploration = 0.0;  // p_e at the start of a run

// Upper bounds on a grid (issue 16): a world or map message is a valid FlatBuffer whatever its bounds,
// and a 1e9 m world would size every replica (mapper, planner, affect, controller) at terabytes.
// 4,096 cells a side at 0.35 m is 1.4 km; 4 Mi cells is 72 MB for the three layers (17 B per cell).
inline constexpr int kMaxGridSide = 4096;
inline constexpr int64_t kMaxGridCells = int64_t{1} << 22;

// Throws std::invalid_argument naming what is wrong when a grid is empty, too large (kMaxGridSide,
// kMaxGridCells), or has a non-finite origin or a resolution outside [0.01, 100] m.
void CheckGridSpec(const geometry::GridSpec& spec);

// Occupancy, exploration and danger maps over one grid (spec §1.4 `GridMaps`). Cell i of each vector is
// spec.CellOfIndex(i); all three vectors have spec.CellCount() entries.
struct GridMaps {
  geometry::GridSpec spec;
  std::vector<double> p_o;      // occupancy probability in [0, 1]
  std::vector<double> p_e;      // exploration in [0, 1], never decays
  std::vector<uint8_t> danger;  // 0 or 1
  // Issue 14: for danger cells set by a collision, where the latest collision there put its mark (ascending cell,
  // one per cell, only cells whose danger is 1). Map-based avoidance may stand such a cell's virtual obstacle point
  // there instead of at the cell's centre (ControllerOptions map_danger_point). A-priori tags have none.
  std::vector<DangerSite> danger_sites;

  // Maps over `spec` at their initial values (p_o = initial_p_o, p_e = 0, danger = 0).
  static GridMaps Initial(const geometry::GridSpec& spec, double initial_p_o = kInitialOccupancy);

  int CellCount() const { return spec.CellCount(); }
  // Throws std::invalid_argument when a vector's size does not match the spec, or a danger site is off the grid,
  // out of order, repeated, not finite or on a cell without danger.
  void Validate() const;
  // The site of `cell`, or null.
  const DangerSite* SiteOf(int cell) const;
  // Sets (or moves) the site of `cell`; removes it.
  void SetSite(int cell, const geometry::Vec2& point);
  void EraseSite(int cell);
  bool operator==(const GridMaps&) const = default;
};

// A grid of `resolution` covering the axis-aligned box [min, max] plus `margin_cells` cells on every side.
// Throws std::invalid_argument for an empty box, a non-positive resolution or a grid beyond the bounds
// of CheckGridSpec.
geometry::GridSpec GridSpecCovering(const geometry::Vec2& min, const geometry::Vec2& max, double resolution = kCellSize,
                                    int margin_cells = 1);

// --- Incremental distribution -----------------------------------------------------------------------

// The full new state of one changed cell.
struct CellPatch {
  int index = 0;
  double p_o = 0.0;
  double p_e = 0.0;
  uint8_t danger = 0;
  bool operator==(const CellPatch&) const = default;
};

// Every cell changed by one mapper cycle. A patch applies to a map at `base_tick` and produces the map at
// `tick` (ticks need not be consecutive; the chain base_tick → tick must be). Values are absolute, so applying
// a patch twice is harmless.
struct MapPatch {
  int64_t base_tick = 0;
  int64_t tick = 0;
  std::vector<CellPatch> cells;  // ascending index
  // The danger sites of the patch's cells that have one (ascending cell); a patched cell without one here has none.
  std::vector<DangerSite> danger_sites;
  bool operator==(const MapPatch&) const = default;
};

// The complete map at `tick` (latched; what a late joiner starts from).
struct MapSnapshot {
  int64_t tick = 0;
  GridMaps maps;
  bool operator==(const MapSnapshot&) const = default;
};

// Writes the patch's cells and their danger sites into `maps`. Throws std::invalid_argument, leaving `maps` as it
// was, if a cell index is off the grid or a site is not one of the patch's cells, not finite or out of order.
void ApplyPatch(GridMaps& maps, const MapPatch& patch);

// A copy of the mapper's maps kept in step from a snapshot and the patch stream (what the planner, the
// affect engine and the monitor hold).
class MapReplica {
 public:
  enum class ApplyResult {
    kApplied,  // patch.base_tick == tick(): applied, tick() is now patch.tick
    kStale,    // patch.tick <= tick(): already contained, ignored
    kGap,      // a patch is missing (or no snapshot yet): ignored; wait for / request a snapshot
  };

  void Reset(const MapSnapshot& snapshot);
  ApplyResult Apply(const MapPatch& patch);

  bool has_map() const { return has_map_; }
  int64_t tick() const { return snapshot_.tick; }
  const GridMaps& maps() const { return snapshot_.maps; }
  const MapSnapshot& snapshot() const { return snapshot_; }

 private:
  bool has_map_ = false;
  MapSnapshot snapshot_;
};

// --- Coverage (spec §8 item 13) ---------------------------------------------------------------------

enum class CoverageMetric {
  kMeanExploration,   // recommended: mean p_e over the cells inside the bounds (same quantity as eq. 8.10)
  kFractionExplored,  // alternative: fraction of those cells with p_e > 0.5
};

// Exploration coverage over the cells whose centre lies inside [min, max] (the environment bounds).
// Returns 0 when no cell centre is inside.
double Coverage(const GridMaps& maps, const geometry::Vec2& min, const geometry::Vec2& max,
                CoverageMetric metric = CoverageMetric::kMeanExploration);

}  // namespace limbic::mapper
