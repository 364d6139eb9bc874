// Velocity control in velocity space (spec §4.5): a dynamic window of n_v × n_ω (v, ω) candidates
// scored by a weighted product, giving the velocity command (v_T, ω_T).
#pragma once

#include <span>
#include <vector>

#include "common/geometry/geometry.hpp"
#include "common/types/control_parameters.hpp"
#include "common/types/sensing.hpp"
#include "services/controller/body_geometry.hpp"
#include "services/controller/weighted_product.hpp"

namespace limbic::controller {

// The window reachable in one period (spec §4.5, §8 item 16: v ∈ [0, v_L]):
// v_1 = max(0, v_c + a_min·T), v_2 = min(v_L, v_c + a_max·T), ω_1 = max(−ω_L, ω_c + α_min·T),
// ω_2 = min(ω_L, ω_c + α_max·T). When the reachable interval misses the allowed one (e.g. v_L
// lowered below the current speed), the window collapses to the allowed bound nearest the reachable
// interval. The centres are the current velocities clamped into the window.
struct DynamicWindow {
  double v1 = 0.0;
  double v2 = 0.0;
  double omega1 = 0.0;
  double omega2 = 0.0;
  double v_centre = 0.0;
  double omega_centre = 0.0;
};
DynamicWindow ComputeDynamicWindow(double v, double omega, const ControlParameters& params, double period);

// n samples (n odd): linspace(lo, centre, (n+1)/2) ∪ linspace(centre, hi, (n+1)/2), the centre
// sample shared and in the middle (spec §4.5). lo, centre and hi are reproduced exactly. Degenerate
// ranges repeat values.
void WindowSamples(double lo, double centre, double hi, int n, std::vector<double>* out);

// The curvature segment of one candidate (spec §4.5 avoidance step 1): the path traced at constant
// (v, ω) from t_1 to t_2. Precomputes the arc so that Distance() is cheap; Distance() equals
// geometry::PointToCurvatureSegmentDistance (same branches and tolerances; the in-sweep test uses
// cross products instead of atan2).
class CurvatureSegment {
 public:
  CurvatureSegment(const geometry::Pose2& pose, double v, double omega, double t1, double t2);
  double Distance(const geometry::Vec2& p) const;
  // No point of the segment is farther than this from the robot position (|v|·t_2, the arc length).
  double reach() const { return reach_; }

 private:
  enum class Kind { kPoint, kStraight, kArc, kCircle };
  Kind kind_ = Kind::kPoint;
  geometry::Vec2 a_{0, 0};       // point / segment start / arc start
  geometry::Vec2 b_{0, 0};       // segment end / arc end
  geometry::Vec2 centre_{0, 0};  // arc centre
  geometry::Vec2 u1_{0, 0};      // unit vectors from the centre to the arc ends
  geometry::Vec2 u2_{0, 0};
  double radius_ = 0.0;
  double direction_ = 1.0;  // sign of ω
  bool long_arc_ = false;   // sweep > π
  double reach_ = 0.0;
};

// Where the goal-seeking term of the velocity layer points.
enum class VelocityGoalTarget {
  // θ_T from the directional layer (hybrid and two-stage configurations; default).
  kDirectionalTarget,
  // The goal bearing (Chapter-6 reactive velocity-controller tests, Table 6.1).
  kGoalBearing,
};
// The option's names, in the enum's order (controller live parameter `velocity_goal`).
inline const std::vector<std::string> kVelocityGoalTargetNames = {"directional", "goal_bearing"};
// Throws std::invalid_argument naming the choices for anything else.
VelocityGoalTarget ParseVelocityGoalTarget(const std::string& name);

struct VelocityOptions {
  // kClosestToCurrent: among ties, the candidate nearest (v_c, ω_c) in (v/v_L, ω/ω_L).
  TieBreak tie_break = TieBreak::kFirstMaximum;
  VelocityGoalTarget goal_target = VelocityGoalTarget::kDirectionalTarget;
  double control_period = 0.1;  // T (s), for the dynamic window
  // Metres taken off r_v = r_o for the map's virtual obstacle points (a_m only); 0 = spec.
  double map_point_inset = 0.0;
  // The body (issue 18 item 3, multi-robot spec §1): a body whose centre is off R's origin is re-referenced at its
  // centre per candidate (eqs. 8–10); a non-circular one needs r_v for its width across the direction of travel;
  // a tricycle's candidates turn no tighter than r_lmin; the description's limits bound the window.
  ControllerBody body;
  // A drive that cannot turn on the spot (r_lmin > 0: a tricycle) backs out when it is stuck — its best candidate
  // is to stand still while θ_T lies more than βπ off its heading (where eq. 5.28 wants it to turn in place) or the
  // goal is farther than d_g(max) — on a reversing arc of this speed (m/s) that turns it towards θ_T, if that arc
  // keeps r_v clear of every obstacle point, and keeps backing while θ_T is more than βπ/2 off. The spec's window
  // is v ≥ 0 (§8 item 16) and says nothing of such a drive; 0 disables it.
  double reverse_speed = 0.1;
  // A drive that cannot turn on the spot turns while it rolls (issue 18: an Itchy pinned against a wall for minutes).
  // Where eq. 5.28 wants a drive that can to turn in place (θ_T more than βπ off its heading), the window's
  // candidates barely turn a tricycle — from standstill the window allows a_max·T, so |ω| ≤ v/r_lmin is tiny and
  // over eq. 5.29's horizon no turn rate is much better aligned than another — so it edges straight on, and the
  // recovery above backs straight when its arc is blocked: neither turns it. With turn_speed > 0 it drives its
  // tightest forward arc towards θ_T at min(turn_speed, the window's top speed) when that arc keeps r_v clear of every
  // obstacle point (judged like every forward candidate), before any reversing; 0: as before.
  double turn_speed = 0.0;
  // How those motions (the reversing arcs, the turning arcs) are judged against the sensed points (issue 18). True:
  // the body's outline swept along the motion (SweepOutline) keeps outline_clearance (m) from every point over
  // eq. 5.22's horizon t_2 (the whole turn for turn_speed): the body's real extent along its travel. False: the earlier
  // check, the centre's path keeps r_v, the half-width *across* travel (eqs. 8–10) — which let Itchy, whose
  // tail is 0.32 m behind its centre against a half-width of 0.26 m, back up to 6 cm into a wall behind it.
  bool outline_check = true;
  // The least gap the outline keeps (m): a few times the range noise at short range (κ_d·d ≈ 1 cm at 0.3 m, eq. 4.11).
  double outline_clearance = 0.03;
  // Each (v, ω) candidate of a non-circular body judged by its outline (issue 18: the Tank's front contacts). Eq. 5.22
  // judges a candidate by d_o, the distance from the centre's curvature segment to the nearest obstacle point, against
  // r_v — for a body that is not a circle, r_v is its half-width w across the direction of travel (eqs. 8–10, plus
  // r_o's margin), right beside the body but not ahead of it: the Tank's front is 0.35 m from its centre and its
  // corners 0.44 m against w = 0.26 m, so a creeping approach scored its front 9 cm into a wall as clear, and a turn on
  // the spot (d_o from a point) swept its corners into it. True: d_o is w plus the least gap between the body's
  // outline, swept over the candidate's horizon [t_1, t_2] (OutlineSweep), and any point — the gap graded by eq. 5.22
  // whichever side of the body it is on. For a circle of radius r_R the gap is d_o − r_R, so this d_o is today's: a
  // circle is judged as before, bit for bit. Map points count only when a_m does (W_v2 > 0). False (the default:
  // measured 2026-11-28, services/explore/README.md, it moves the Tank's contacts rather than cutting them and raises
  // Itchy's from 1–2 to 50–60 a run in the explore experiments, coverage unchanged): eq. 5.22 by the centre's path.
  bool candidate_outline_check = false;
  // The recovery as a three-point turn (issue 18): where a drive that can would turn in place (θ_T more than βπ off
  // its heading), or when stuck (as above), a drive that cannot turns the way a driver would — forward on its tightest
  // arc towards θ_T while that is clear, back on the arc that turns its heading the same way when the way forward
  // closes, forward again when the way back closes (each leg turns it towards θ_T; it keeps the direction it is
  // moving in while that stays clear); straight back only when neither turning arc is clear. Forward at
  // reverse_speed within the window, backing at reverse_speed; it ends when θ_T is within βπ (forward) or βπ/2
  // (backing). False (the default: measured 2026-11-27, it mends the pinning in the explore runs but times Itchy out
  // in bodies_system_test's B3, services/explore/README.md): the recovery above (only when stuck: backing arc, else
  // straight back).
  bool three_point_turn = false;
};

struct VelocityInputs {
  geometry::Pose2 pose;                             // estimated pose (world frame)
  double v = 0.0;                                   // current linear velocity estimate v_c (m/s)
  double omega = 0.0;                               // current angular velocity estimate ω_c (rad/s)
  std::span<const geometry::Vec2> obstacle_points;  // sensor obstacle points (world frame) → a_s
  std::span<const geometry::Vec2> map_points;       // map virtual obstacle points (world frame) → a_m
  geometry::Vec2 goal{0, 0};                        // goal position (world frame)
  double target_heading = 0.0;                      // θ_T from the directional layer
};

// Effective weights of one tick after goal proximity (W_v3 boosted by eq. 5.18, W_v4 reduced by
// eq. 5.19) and the cap.
struct VelocityWeights {
  double sensor = 0.0;    // W_v1
  double map = 0.0;       // W_v2
  double goal = 0.0;      // W_v3
  double speedup = 0.0;   // W_v4
  double distance = 0.0;  // W_v5
};

// One tick's result. Per-candidate vectors are row-major: index = i_v·n_ω + i_ω.
struct VelocityOutput {
  VelocityCommand command;  // (v_T, ω_T) (eq. 5.21)
  int v_index = -1;
  int omega_index = -1;
  DynamicWindow window;
  std::vector<double> v_samples;         // n_v
  std::vector<double> omega_samples;     // n_ω
  std::vector<double> sensor_distance;   // d_o(v, ω) to sensor points, capped at d_v(max)
  std::vector<double> map_distance;      // d_o(v, ω) to map points, capped at d_v(max)
  std::vector<double> sensor_avoidance;  // a_s = a_ω·a_v (eqs. 5.22–5.25)
  std::vector<double> map_avoidance;     // a_m
  std::vector<double> goal_seeking;      // g = g_ω·g_v (eqs. 5.26–5.29)
  std::vector<double> objective;         // f(v, ω)
  std::vector<double> speedup;           // s(v) per v sample (eq. 5.30)
  std::vector<double> distance_to_goal;  // d(v) per v sample (eq. 5.31)
  VelocityWeights weights;
  bool reversing = false;       // the command is a tricycle's reversing arc (VelocityOptions::reverse_speed)
  bool turning_arc = false;     // the command is a tricycle's forward turning arc (turn_speed, or a three-point
                                // turn's forward leg: then v may be 0 while the window cannot yet go forward)
  double heading_target = 0.0;  // the heading goal seeking used (θ_T or the goal bearing)
  double goal_distance = 0.0;   // d_g (m)
};

// Velocity controller (spec §4.5, eqs. 5.21–5.31).
// Inputs: pose, (v_c, ω_c), sensor and map obstacle points, goal, θ_T and ControlParameters
// (W_v1..W_v5, n_v, n_ω, v_L, ω_L, accelerations, t_1, t_2, t_3, d_v(max), κ, β, r_o as r_v,
// d_g(max), weight cap), read every tick. Outputs: (v_T, ω_T), the window, the candidate grid and
// its terms. No state between ticks.
class VelocityController {
 public:
  explicit VelocityController(const VelocityOptions& options = {});

  // One control tick. Throws std::invalid_argument for parameters out of range.
  void Tick(const VelocityInputs& inputs, const ControlParameters& params, VelocityOutput* out);

  const VelocityOptions& options() const { return options_; }
  // Live changes (issue 15): they take effect at the next tick.
  void set_tie_break(TieBreak tie_break) { options_.tie_break = tie_break; }
  void set_goal_target(VelocityGoalTarget target) { options_.goal_target = target; }

 private:
  struct NearPoint {
    double range;  // distance from the robot
    geometry::Vec2 p;
  };
  // Points within `radius` of the robot, sorted by range (so a candidate's scan can stop early,
  // exactly).
  static void CollectNear(std::span<const geometry::Vec2> points, const geometry::Vec2& robot, double radius,
                          std::vector<NearPoint>* out);
  static double MinDistance(const CurvatureSegment& segment, std::span<const NearPoint> points, double cap);
  // candidate_outline_check's d_o: `half_width` plus the least gap from the swept outline to a point, capped at `cap`;
  // `slack` bounds how far from the points' ranges' origin any body point comes over the motion (exact early exit,
  // and no sweep at all when no point is near enough: the bounding circle's early-out).
  double OutlineDistance(std::span<const NearPoint> points, double slack, double half_width, double cap,
                         const geometry::Pose2& start, double v, double omega, double duration);

  VelocityOptions options_;
  // Per-tick workspace, fully rewritten every tick.
  std::vector<NearPoint> near_sensor_;
  std::vector<NearPoint> near_map_;
  std::vector<double> distance_to_current_;
  std::vector<double> g_omega_;
  OutlineSweep sweep_;
};

}  // namespace limbic::controller
