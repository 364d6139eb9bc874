// Obstacles, gaps and the two constructed vectors of the case-based controller (spec
// reactive-topological §2.4.5, §3.2 steps 1–3):
// - ResolveScanObstacles: maximal runs of hit beams (r < 250) whose neighbours differ by ≤ 30 cm
//   (the thesis' jump threshold d = robot diameter), walked circularly from a discontinuity.
// - Exit goal vector Ev: a gap between two angularly adjacent obstacles whose nearest scan points are
//   ≥ 40 cm apart (min_exit_width) targets the midpoint of that shortest segment; a run of ≥ 10 beams
//   with no return targets the point 100 cm along its central bearing; Ev points to the target whose
//   bearing is closest to the goal's.
// - Temporary goal vector Tv: the tangent a* ± 90° of the nearest beam a*, on the side chosen when the
//   case started (closest to the goal bearing) and kept for the whole case.
//
// Not applied for Ev (and why): §3.2 step 4 (splitting a run at a 60° surface turn) only cuts a run into
// parts whose facing beams are ≤ 30 cm apart, never a ≥ 40 cm gap; step 5's 15-obstacle cap is the
// thesis' array size, and dropping far obstacles would invent gaps.
#pragma once

#include <vector>

#include "services/laser_sim/laser_types.hpp"

namespace limbic::laser {

struct ScanObstacle {
  int first = 0;            // first beam, clockwise (bearing_min)
  int count = 0;            // beams in the run; the last is (first + count − 1) mod 360 (bearing_max)
  int closest = 0;          // beam of the minimum range (the "closest point")
  double range_cm = 250.0;  // minimum range in the run
  int Last() const { return (first + count - 1) % kBeams; }
};

struct SegmentOptions {
  double jump_cm = 30.0;            // [T] robot diameter
  double min_exit_width_cm = 40.0;  // [T]
  int min_open_run = 10;            // [A] beams with no return that make an open gap
  double open_target_cm = 100.0;    // [A]
};

// Obstacles of one scan in clockwise order starting from a discontinuity (§3.2 steps 1–3).
std::vector<ScanObstacle> ResolveScanObstacles(const RangeScan& scan, const SegmentOptions& options = {});

struct ExitGap {
  Vec2 target;  // relative to the robot (cm, world axes)
  double bearing_deg = 0.0;
  double width_cm = 0.0;  // shortest distance between the obstacles (0 for an open run)
  bool open_run = false;
};

// Every exit gap of a scan (both kinds).
std::vector<ExitGap> FindExitGaps(const RangeScan& scan, const SegmentOptions& options = {});

// Ev: unit vector to the gap whose bearing is closest to `goal_bearing_deg`; zero without gaps. A scan
// with no return at all is open everywhere: Ev points at the goal.
Vec2 ExitGoalVector(const RangeScan& scan, double goal_bearing_deg, const SegmentOptions& options = {});

// Tv with its kept side. Reset() when a case starts; the side (+1: a* + 90°, −1: a* − 90°) is chosen at
// the first call with an obstacle in range and then kept.
class TemporaryGoal {
 public:
  void Reset() { side_ = 0; }
  Vec2 Compute(const RangeScan& scan, double goal_bearing_deg);
  int side() const { return side_; }

 private:
  int side_ = 0;
};

}  // namespace limbic::laser
