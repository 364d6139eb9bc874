// Directional control in direction space (spec §4.4): a polar histogram of n_θ candidate headings
// scored by a weighted product, giving the target heading θ_T.
#pragma once

#include <cstdint>
#include <optional>
#include <random>
#include <span>
#include <string>
#include <vector>

#include "common/geometry/geometry.hpp"
#include "common/types/control_parameters.hpp"
#include "common/types/navigation.hpp"
#include "services/controller/body_geometry.hpp"
#include "services/controller/weighted_product.hpp"

namespace limbic::controller {

// A read-only view of the mapper's grids for map-based avoidance: occupancy p_o and the binary
// danger map, row-major over `spec` (GridSpec::Index). `danger` may be empty (all 0).
struct GridView {
  geometry::GridSpec spec;
  std::span<const double> occupancy;
  std::span<const double> danger;
  // Collision danger cells' mark points (mapper GridMaps::danger_sites, ascending cell); may be empty.
  std::span<const DangerSite> danger_sites;
};

// Where map-based avoidance stands the virtual obstacle point of a danger cell (issue 14).
enum class MapDangerPoint {
  kCellCentre,  // the spec (§4.4 step 2: every cell over the threshold is a point at its centre)
  kSite,        // a cell whose danger came from a collision stands where that collision put its mark (the mapper's
                // estimate of the obstacle point), not up to half a cell (0.25 m diagonally) off it; other cells at
                // their centre. For passages narrowed by obstacles the sensors cannot see, which centres close
};
inline const std::vector<std::string> kMapDangerPointNames = {"centre", "site"};
// Throws std::invalid_argument naming the choices for anything else.
MapDangerPoint ParseMapDangerPoint(const std::string& name);

// The candidate headings θ_k = −π + 2πk/n_θ, k = 0..n_θ−1 (world frame), with their unit vectors.
struct HeadingSet {
  std::vector<double> headings;
  std::vector<double> cos_heading;
  std::vector<double> sin_heading;

  int size() const { return static_cast<int>(headings.size()); }
  void Resize(int n_theta);  // no-op when already n_theta
};

// Raw ray distances d_o(θ_k): distance from `origin` along each candidate heading to the nearest
// circle of radius r_o centred on an obstacle point, capped at d_o(max) (no hit → d_o(max)); 0 for
// every heading when the origin lies inside a circle (spec §4.4, sensor-based avoidance). `out` has
// headings.size() entries. Exact: equal to the minimum of geometry::RayCircleIntersection over all
// points, but only the headings a circle can hit are tested.
void RayCircleDistances(const geometry::Vec2& origin, std::span<const geometry::Vec2> points, double r_o,
                        double d_o_max, const HeadingSet& headings, std::span<double> out);

// m = floor(s·n)   (eq. 5.14), with a 1e-9 guard against s·n landing just below an integer.
int SmoothingHalfWidth(double smoothing, int n);

// Peak-edge smoothing of a circular histogram h of n elements (eqs. 5.13–5.14):
// h'(k) = min_{j=−m..m} [h(k + j) + |j|/(s·n)], indices mod n. s ≤ 0 copies h. Requires h ≥ 0
// (avoidance values); `out` must not alias `h`.
void PeakEdgeSmooth(std::span<const double> h, double smoothing, std::span<double> out);

// Map-based avoidance input (spec §4.4 step 1–2): fuses occupancy and danger by eq. 5.3 with
// weights (w_occupancy, w_danger); every cell whose centre lies within `radius` of `robot` and
// whose fused value exceeds `threshold` becomes a virtual obstacle point at its centre. Replaces
// the contents of `out`. Throws std::invalid_argument when a span does not match the grid size.
// With MapDangerPoint::kSite, a cell that has a danger site stands at the site instead of its centre.
void MapVirtualObstacles(const GridView& map, const geometry::Vec2& robot, double radius, double threshold,
                         double w_occupancy, double w_danger, std::vector<geometry::Vec2>* out,
                         MapDangerPoint danger_point = MapDangerPoint::kCellCentre);

// Radius of the circles around map-based (virtual) obstacle points: r_o less `inset`, never below 0.
// inset = 0 is the spec (§4.4 map-based avoidance: "same r_o"); see DirectionalOptions::map_point_inset.
double MapObstacleRadius(double r_o, double inset);

// The path-following target (spec §4.4 path following): the node closest to the robot (first in
// path order on ties), then the first node at least d_L further along the cumulative path length;
// the last node when the remaining path is shorter than d_L.
struct LookAheadTarget {
  int closest_index = -1;
  int target_index = -1;  // −1 for an empty path
  geometry::Vec2 point{0, 0};
};
LookAheadTarget FindLookAheadTarget(std::span<const geometry::Vec2> nodes, const geometry::Vec2& robot,
                                    double d_lookahead);

// θ_w = adjust(θ_g + 2πα·(u − ½)), u = rand ∈ [0, 1)   (eq. 5.17).
double WanderHeading(double goal_bearing, double alpha, double u);

// Uniform [0, 1) from a 64-bit generator, identical on every standard library (53 high bits).
double UniformUnit(std::mt19937_64& rng);

// Where the wander direction points between draws.
enum class WanderReference {
  // θ_w is an absolute heading held for the whole period (literal eq. 5.17; default).
  kFixedHeading,
  // The drawn offset θ_w − θ_g is held and re-applied to the current goal bearing every tick.
  kGoalRelative,
};

// What path following does when there is no path (no PlannedPath, or success = false, or no nodes).
enum class NoPathBehaviour {
  kGoalBearing,  // p(θ) targets the goal bearing (as when d_L exceeds the remaining path; default)
  kNeutral,      // p(θ) = 1 everywhere (the term has no effect)
};

struct DirectionalOptions {
  // kClosestToCurrent: among ties, the heading closest to the robot's current heading.
  TieBreak tie_break = TieBreak::kFirstMaximum;
  uint64_t wander_seed = 1;  // seed of the wander generator (std::mt19937_64)
  WanderReference wander_reference = WanderReference::kFixedHeading;
  NoPathBehaviour no_path = NoPathBehaviour::kGoalBearing;
  // §8 item 19: near the goal reduce sensor/map avoidance, inertia and wander, boost goal seeking,
  // leave path following alone. These flags select the alternatives.
  bool reduce_map_avoidance_near_goal = true;
  bool reduce_path_following_near_goal = false;
  // Eq. 5.3 weights of the occupancy/danger fusion for map-based avoidance (spec: 1 and 1).
  double map_occupancy_weight = 1.0;
  double map_danger_weight = 1.0;
  // Metres taken off r_o around the virtual obstacle points of map-based avoidance (both layers).
  // 0 = spec. See ControllerOptions::map_point_inset (issue 14).
  double map_point_inset = 0.0;
  // Where a collision danger cell's virtual point stands (issue 14); the spec's cell centre by default.
  MapDangerPoint map_danger_point = MapDangerPoint::kCellCentre;
  // The body (issue 18 item 3): the layer treats the robot as a point at the body's centre (`body_centre` in the
  // robot frame; zero for MARVIN) and sizes the obstacle circles by its circumscribed radius `body_radius`
  // (r_o + body_radius − r_R, BodyObstacleRadius).
  geometry::Vec2 body_centre{0, 0};
  double body_radius = kSpecBodyRadius;
};

// Everything the directional layer carries from one tick to the next (replayable, comparable).
struct DirectionalState {
  bool started = false;           // false until the first tick with a goal
  double previous_target = 0.0;   // θ_T(prev) of eq. 5.16 (initialised to the current heading)
  double wander_heading = 0.0;    // θ_w of the current period (eq. 5.17)
  double wander_offset = 0.0;     // θ_w − θ_g at the draw (used by WanderReference::kGoalRelative)
  double next_wander_draw = 0.0;  // simulated time of the next draw (s)
  std::mt19937_64 rng;            // wander generator, seeded from DirectionalOptions::wander_seed

  bool operator==(const DirectionalState&) const = default;
};

struct DirectionalInputs {
  geometry::Pose2 pose;                             // estimated robot pose (world frame)
  std::span<const geometry::Vec2> obstacle_points;  // mapper's obstacle buffer (world frame)
  std::optional<GridView> map;                      // for map-based avoidance; none → a_m ≡ 1
  std::span<const geometry::Vec2> path_nodes;       // planned path, start → goal; empty = no path
  geometry::Vec2 goal{0, 0};                        // goal position (world frame)
  double time = 0.0;                                // simulated time (s)
};

// The effective weights of one tick after goal-proximity modulation (eqs. 5.18–5.19) and the cap.
struct DirectionalWeights {
  double sensor = 0.0;   // W_θ1
  double map = 0.0;      // W_θ2
  double path = 0.0;     // W_θ3
  double goal = 0.0;     // W_θ4
  double inertia = 0.0;  // W_θ5
  double wander = 0.0;   // W_θ6
};

// One tick's result and internal fields (for the velocity layer, the monitor and the affect
// engine). Every per-heading vector has n_θ entries aligned with `headings`.
struct DirectionalOutput {
  double target_heading = 0.0;  // θ_T (eq. 5.9)
  int target_index = -1;
  std::vector<double> headings;  // θ_k
  // Raw (unsmoothed) sensor d_o(θ), ≤ d_o(max): the danger stimulus's input (spec §5.1, §8 item
  // 24).
  std::vector<double> sensor_distance;
  std::vector<double> map_distance;        // raw map-based d_o(θ) (d_o(max) everywhere without a map)
  std::vector<double> sensor_avoidance;    // a_s(θ) after eq. 5.12 and the filter 5.13
  std::vector<double> map_avoidance;       // a_m(θ)
  std::vector<double> path_following;      // p(θ)
  std::vector<double> goal_seeking;        // g(θ) (eq. 5.15)
  std::vector<double> inertia;             // i(θ) (eq. 5.16)
  std::vector<double> wander;              // w(θ)
  std::vector<double> objective;           // f(θ)
  std::vector<geometry::Vec2> map_points;  // virtual obstacle points from the map (world frame)
  DirectionalWeights weights;
  double goal_distance = 0.0;    // d_g (m)
  double goal_bearing = 0.0;     // θ_g
  double path_bearing = 0.0;     // θ_p
  double wander_heading = 0.0;   // θ_w used this tick
  double previous_target = 0.0;  // θ_T(prev) used this tick
  LookAheadTarget look_ahead;    // target_index −1 without a path
};

// Directional controller (spec §4.4, eqs. 5.9, 5.12–5.19).
// Inputs: pose, obstacle points, optional grid view, path, goal, time and ControlParameters
// (W_θ1..W_θ6, n_θ, r_o, d_o(max), s, d_L, d_g(max), wander period and α, map threshold and radius,
// weight cap), read every tick. Outputs: θ_T and the per-heading terms in DirectionalOutput. State:
// DirectionalState (θ_T(prev), wander).
class DirectionalController {
 public:
  explicit DirectionalController(const DirectionalOptions& options = {});

  // One control tick. Throws std::invalid_argument for parameters out of range
  // (ValidateParameters).
  void Tick(const DirectionalInputs& inputs, const ControlParameters& params, DirectionalOutput* out);

  // Only the obstacle fields (headings, sensor/map distances and avoidance), e.g. while there is no
  // goal, so the danger stimulus keeps working. Leaves the state untouched; θ_T = current heading,
  // other terms 1.
  void ObstacleFieldsOnly(const DirectionalInputs& inputs, const ControlParameters& params, DirectionalOutput* out);

  const DirectionalState& state() const { return state_; }
  void set_state(const DirectionalState& state) { state_ = state; }
  void Reset();  // back to the initial state (generator re-seeded)
  const DirectionalOptions& options() const { return options_; }
  // Live changes (issue 15): they take effect at the next tick.
  void set_tie_break(TieBreak tie_break) { options_.tie_break = tie_break; }
  // A new wander seed restarts the generator from it and draws a new wander heading at the next tick.
  void Reseed(uint64_t seed);

 private:
  void ComputeObstacleFields(const DirectionalInputs& inputs, const ControlParameters& params, DirectionalOutput* out);

  DirectionalOptions options_;
  DirectionalState state_;
  // Per-tick workspace, fully rewritten every tick (never carries information between ticks).
  HeadingSet heading_set_;
  std::vector<double> distance_to_current_;
};

// Throws std::invalid_argument (ParameterRangeError) naming the field when a parameter is out of its
// range, upper bounds included (common/types/control_parameters.hpp).
using limbic::ValidateParameters;

}  // namespace limbic::controller
