// The map layer's perception (spec reactive-topological §3.2–3.4, thesis Ch. 6): obstacles of one scan,
// the features between them (the smallest vector between two obstacles) and the feature that names the
// area the robot is in.
//   Resolve_Obstacles (§3.2): maximal runs of hit beams (r < 250) whose neighbours differ by ≤ 30 cm
//     (steps 1–3, shared with the reactive layer's ResolveScanObstacles), split where the scanned
//     surface turns by > 60° over ±3 beams (step 4, A24), at most 15 kept — the nearest — and sorted by
//     bearing_min (step 5); each keeps its scan points (robot-relative, world axes).
//   Find_Features (§3.3): for obstacle pairs in order of increasing range_a + range_b, the shortest
//     segment Pa*–Pb* between their scan points; ≥ 40 cm (min_exit_width) makes a feature: bearing of
//     Pb* − Pa* folded into [0, 180), length, the vector (nvb, nvr) from the robot to its midpoint, and
//     perspective = neither endpoint is the first or last beam of its obstacle. At most 50.
//   Classify_Area (§3.4, A25): the feature minimising range_a + range_b (ties: the shorter), −1 if none.
//
// Inputs: RangeScan (world-aligned, index = compass bearing). Outputs: obstacles, features, an index.
#pragma once

#include <vector>

#include "services/laser_sim/laser_types.hpp"

namespace limbic::laser {

struct TopoPerceptionOptions {
  double jump_cm = 30.0;            // [T] robot diameter
  double split_turn_deg = 60.0;     // [A] A24
  int split_span = 3;               // [A] beams either side
  int max_obstacles = 15;           // [T]
  double min_exit_width_cm = 40.0;  // [T]
  int max_features = 50;            // [T]
};

// Throws std::invalid_argument for a non-positive threshold or count.
void ValidateTopoPerceptionOptions(const TopoPerceptionOptions& options);

struct TopoObstacle {
  int bearing_min = 0;       // first beam, clockwise
  int bearing_max = 0;       // last beam
  int bearing = 0;           // beam of the closest point
  double range_cm = 250.0;   // minimum range
  std::vector<Vec2> points;  // robot-relative scan points, bearing_min … bearing_max
};

struct Feature {
  int a = 0, b = 0;          // obstacle indices (a < b)
  bool perspective = false;  // closest points strictly inside both visible arcs
  bool adjacent = false;     // angularly adjacent obstacles (b = a + 1, or the last and the first)
  double bearing_deg = 0.0;  // of Pb* − Pa*, folded into [0, 180)
  double length_cm = 0.0;
  double nvb_deg = 0.0;  // robot → midpoint: bearing
  double nvr_cm = 0.0;   //                   range
  Vec2 pa, pb;           // the endpoints, robot-relative
  double range_sum_cm = 0.0;
  Vec2 Midpoint() const { return 0.5 * (pa + pb); }
};

std::vector<TopoObstacle> ResolveObstacles(const RangeScan& scan, const TopoPerceptionOptions& options = {});
std::vector<Feature> FindFeatures(const std::vector<TopoObstacle>& obstacles,
                                  const TopoPerceptionOptions& options = {});
int ClassifyArea(const std::vector<Feature>& features);

// The 180°-periodic difference of two undirected bearings (§3.3 d180), in [0, 90].
double D180(double x, double y);
// Folds a bearing into [0, 180).
double Fold180(double deg);

}  // namespace limbic::laser
