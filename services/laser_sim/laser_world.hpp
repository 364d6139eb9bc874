// The laser robot's worlds (spec reactive-topological §1.1–1.3): a 660 cm square room with circular
// obstacles at 15–35 % floor coverage, a start on the south side and a goal on the north side, each
// with a 50 cm free half-disc; a world exists only if a 30 cm robot can reach the goal, and carries the
// approximate optimal path length found by flooding (Bellman's algorithm) on a 3 cm grid.
//
// Inputs: density (percent), world index, library salt, WorldOptions.
// Outputs: World (obstacles, start, goal, optimal path, realised density), regenerated exactly from
//   (density, index, salt); the configuration-space grid and the flood's path for pictures and tests.
#pragma once

#include <array>
#include <cstdint>
#include <iosfwd>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "services/laser_sim/laser_types.hpp"

namespace limbic::laser {

struct Circle {
  double cx = 0.0, cy = 0.0, r = 0.0;  // cm
};

// Surroundings other than the thesis' circles in a box (issue 21 item 5: the hybrid navigator's offices):
// what the laser's beams and the robot's disc meet. A World holding one has no circles; its box is the
// surroundings' bounds. Implementations must be safe to query from several threads (the scan cache).
class LaserSurroundings {
 public:
  virtual ~LaserSurroundings() = default;
  // Exact ranges (cm, capped at kMaxRangeCm) of the 360 beams from p, and per beam whether it met a
  // surface (false: nothing within range; the beam reads kMaxRangeCm).
  virtual void Cast(Vec2 p, std::array<float, kBeams>* ranges, std::array<bool, kBeams>* hit) const = 0;
  // The gap (cm) between a disc of `radius` at p and the nearest surface the body meets (negative when
  // they overlap); surfaces farther than `horizon` cm from the disc are not looked for (returns horizon).
  virtual double Clearance(Vec2 p, double radius, double horizon) const = 0;
  // Closed outlines of the solid objects (cm), for pictures.
  virtual std::vector<std::vector<Vec2>> Outlines() const = 0;
};

struct World {
  int id = 0;               // index within its density library (report number = id + 1, §1.2)
  double density_pct = 0;   // target density
  double realised_pct = 0;  // occupied 3 cm cells / all cells
  double width = 660.0, height = 660.0;
  std::vector<Circle> obstacles;
  Vec2 start;
  double start_heading_deg = 0.0;
  Vec2 goal;
  double optimal_path_cm = 0.0;  // §1.3, 8-connected grid path (no smoothing)
  uint64_t seed = 0;             // the sub-seed that produced this world
  int attempts = 1;              // worlds drawn until one had a path (1 = the first)
  // Set: the world is these surroundings (obstacles empty), e.g. an office of the hybrid navigator.
  std::shared_ptr<const LaserSurroundings> surroundings;
  std::string name;  // for titles and logs when not a density library's world (e.g. "office B-4")
};

// Every [A] value of §1.1–1.2, configurable.
struct WorldOptions {
  double size_cm = 660.0;          // A1
  double cell_cm = 3.0;            // 220 × 220 grid [T-r]
  double min_diameter_cm = 20.0;   // A2
  double max_diameter_cm = 100.0;  // A2
  double free_radius_cm = 50.0;    // free half-disc around start and goal [A radius]
  double start_y_cm = 40.0, goal_y_cm = 620.0;
  double place_x_min_cm = 100.0, place_x_max_cm = 560.0;
  double robot_radius_cm = 15.0;       // §1.4
  double cspace_margin_cm = 0.0;       // extra clearance of the flood (§1.2 step 5)
  double density_tolerance_pct = 0.5;  // a circle overshooting target + tolerance is discarded (§1.2 step 4)
  int max_attempts = 200;              // worlds drawn before giving up (no path every time)
};

inline constexpr double kMinDensityPct = 15.0;  // the thesis' libraries: 15, 20, 25, 30, 35 % [T]
inline constexpr double kMaxDensityPct = 35.0;

// Seed of world `index` of the `density_pct` library (§1.2 step 1). Stable across platforms.
uint64_t WorldSeed(double density_pct, int index, uint64_t library_salt);

// Generates world `index` of the density library. Throws std::invalid_argument for a density outside
// [15, 35] % or NaN, a negative index, or options that cannot hold a world; std::runtime_error if no
// world with a path was found in options.max_attempts draws.
World GenerateWorld(double density_pct, int index, uint64_t library_salt = 1, const WorldOptions& options = {});

// The configuration-space grid of a world: a cell is free iff its centre is at least robot radius +
// margin from every obstacle disc and from every wall (§1.2 step 5).
class CSpaceGrid {
 public:
  // Square (size_cm / cell_cm cells a side) for the thesis' rooms; the world's box for surroundings.
  CSpaceGrid(const World& world, const WorldOptions& options = {});
  int nx() const { return nx_; }
  int ny() const { return ny_; }
  double cell_cm() const { return cell_; }
  bool Free(int i, int j) const { return free_[static_cast<size_t>(j) * nx_ + i]; }
  // The cell holding point p (clamped into the grid).
  void CellOf(Vec2 p, int* i, int* j) const;
  Vec2 Centre(int i, int j) const { return {cell_ * (i + 0.5), cell_ * (j + 0.5)}; }

 private:
  int nx_ = 0, ny_ = 0;
  double cell_ = 3.0;
  std::vector<uint8_t> free_;
};

// The flood of §1.3: Dijkstra from the start cell to the goal cell, 8-connected, steps 3 and 3√2 cm.
struct FloodResult {
  bool reachable = false;
  double length_cm = 0.0;
  std::vector<Vec2> path;  // cell centres from start to goal (empty when unreachable)
};
FloodResult OptimalPath(const World& world, const WorldOptions& options = {});

// The fraction (percent) of grid cells whose centre lies inside some obstacle disc.
double RealisedDensityPct(const World& world, const WorldOptions& options = {});

// Text form of a world (one world per file; `#` comments). Save writes every field; Load checks every
// line and throws std::runtime_error naming the line for anything wrong (NaN, a negative radius, ...).
void SaveWorld(const World& world, std::ostream& out);
World LoadWorld(std::istream& in, const std::string& source = "world");

}  // namespace limbic::laser
