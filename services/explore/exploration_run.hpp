// What the task manager service needs besides the TaskManager, transport-free: the explorers' profiles from their
// robot descriptions, the world's free cells, and the measures of an exploration run (coverage over time, time to
// 90 % coverage, collisions, messages, allocation changes, each robot's path).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "common/robot/robot_description.hpp"
#include "services/explore/local_environments.hpp"

namespace limbic::explore {

// The processing budget B (cells) the manager assumes for a description name when none is given: the spec says the
// task executors have "limited processing" and the rectangular robot is also a planner, so Tank gets the largest
// budget. Decision (README.md): tank 1200, marvin 600, itchy and scratchy 300; any other body 600.
double DefaultProcessingCells(const std::string& body);

// A profile from a description: d = the long-range ring's d_max, clearance = the circumscribed radius, turning
// radius = the drive's r_lmin.
ExplorerProfile ProfileFor(const std::string& robot, const std::string& body, const robot::RobotDescription& d,
                           double processing_cells);

// Splits "a,b,c" (spaces trimmed; empty items refused). Throws std::invalid_argument naming `what`.
std::vector<std::string> SplitList(const std::string& text, const std::string& what);
// One entry per robot from a list of one (for all) or of `robots` entries. Throws std::invalid_argument otherwise.
std::vector<std::string> PerRobot(const std::vector<std::string>& items, size_t robots, const std::string& what);

// Free cells of the grid: centre inside the world's box [min, max] and not overlapped by any of the world's polygons
// (all of them, undetectable ones too; mapper::KnownMap's raster).
std::vector<bool> FreeCells(const GridSpec& grid, const Vec2& min, const Vec2& max,
                            const std::vector<std::vector<Vec2>>& polygons);

// The arena's free interior: the world's box [min, max] shrunk on each side to the inner face of the outer wall
// that stands across that side — a wall polygon whose bounding box straddles the side's line and covers at least
// half of its length (interior walls that meet the outer wall are shorter than that, or do not straddle it). A side
// without such a wall stays at the box's edge. Returns {min, max}.
struct ArenaWall {
  std::vector<Vec2> vertices;
  bool wall = false;  // a wall (rather than furniture or a person's footprint)
};
std::pair<Vec2, Vec2> ArenaInterior(const Vec2& min, const Vec2& max, const std::vector<ArenaWall>& polygons);

// The measures of one run, sampled once a second.
struct RunSample {
  double time = 0.0;
  double coverage = 0.0;
  std::vector<Vec2> positions;  // true positions, one per robot
};

struct RunMeasures {
  std::vector<RunSample> samples;
  std::optional<double> time_to_90;  // first sample with coverage ≥ 0.9
  double final_coverage = 0.0;
  std::vector<double> distance;   // per robot, from the samples (m)
  uint64_t robot_collisions = 0;  // contact events with another robot, summed over the robots (each counts its own)
  uint64_t world_collisions = 0;
  // world_collisions by robot, in the team's order (which body meets the walls: issue 18's mixed team).
  std::vector<uint64_t> world_collisions_by_robot;
  uint64_t tasks_sent = 0;
  uint64_t reports_received = 0;
  uint64_t maps_received = 0;
  int allocation_changes = 0;
  int released_early = 0;
  int unreachable_tiles = 0;
  bool all_done = false;  // every tile done (else the time limit ended the run)
  double end_time = 0.0;

  void AddSample(const RunSample& sample);
};

// The CSV of runs (one row per run) and of samples (coverage over time and positions).
std::string RunCsvHeader();
std::string RunCsvRow(const std::string& run_id, const std::string& configuration, char set, int env, uint64_t seed,
                      const std::vector<std::string>& bodies, const RunMeasures& m);
std::string TraceCsvHeader(size_t robots);
std::string TraceCsvRow(const std::string& run_id, const RunSample& s);

}  // namespace limbic::explore
