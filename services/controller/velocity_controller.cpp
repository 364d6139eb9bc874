#include "services/controller/velocity_controller.hpp"

#include <algorithm>
#include <cmath>

#include "common/types/option_names.hpp"
#include "services/controller/directional_controller.hpp"  // ValidateParameters
#include "services/controller/terms.hpp"

namespace limbic::controller {
VelocityGoalTarget ParseVelocityGoalTarget(const std::string& name) {
  return types::EnumFromName<VelocityGoalTarget>(kVelocityGoalTargetNames, name, "velocity_goal");
}

namespace {

using geometry::kPi;
using geometry::Vec2;

double Cross(const Vec2& a, const Vec2& b) { return a.x() * b.y() - a.y() * b.x(); }

// Intersection of the reachable [reach_lo, reach_hi] with the allowed [lo, hi]; when they miss, the
// allowed bound nearest the reachable interval.
void Window(double reach_lo, double reach_hi, double lo, double hi, double* w1, double* w2) {
  *w1 = std::max(lo, reach_lo);
  *w2 = std::min(hi, reach_hi);
  if (*w1 > *w2) *w1 = *w2 = (reach_hi < lo) ? lo : hi;
}

}  // namespace

DynamicWindow ComputeDynamicWindow(double v, double omega, const ControlParameters& p, double period) {
  DynamicWindow w;
  Window(v + p.a_min * period, v + p.a_max * period, 0.0, p.v_limit, &w.v1, &w.v2);
  Window(omega + p.alpha_min * period, omega + p.alpha_max * period, -p.omega_limit, p.omega_limit, &w.omega1,
         &w.omega2);
  w.v_centre = std::clamp(v, w.v1, w.v2);
  w.omega_centre = std::clamp(omega, w.omega1, w.omega2);
  return w;
}

void WindowSamples(double lo, double centre, double hi, int n, std::vector<double>* out) {
  out->resize(n);
  const int h = (n + 1) / 2;  // samples per half, centre included in both
  const int c = h - 1;        // index of the centre
  for (int i = 0; i < c; ++i) (*out)[i] = lo + (centre - lo) * i / c;
  (*out)[c] = centre;
  for (int i = 1; i < h; ++i) (*out)[c + i] = centre + (hi - centre) * i / c;
  if (c > 0) {
    (*out)[0] = lo;
    (*out)[n - 1] = hi;
  }
}

CurvatureSegment::CurvatureSegment(const geometry::Pose2& pose, double v, double omega, double t1, double t2) {
  reach_ = std::abs(v) * t2;
  a_ = pose.Position();
  if (std::abs(v) < 1e-12) {
    kind_ = Kind::kPoint;
    reach_ = 0.0;
    return;
  }
  // Same branch conditions as geometry::PointToCurvatureSegmentDistance.
  const double sweep = std::abs(omega) * (t2 - t1);
  if (std::abs(omega) < 1e-6 || std::abs(v / omega) * (1.0 - std::cos(0.5 * sweep)) < 1e-6) {
    kind_ = Kind::kStraight;
    a_ = geometry::IntegrateArc(pose, v, omega, t1).Position();
    b_ = geometry::IntegrateArc(pose, v, omega, t2).Position();
    return;
  }
  const double r = v / omega;
  centre_ = {pose.x - r * std::sin(pose.theta), pose.y + r * std::cos(pose.theta)};
  radius_ = std::abs(r);
  if (sweep >= 2.0 * kPi) {
    kind_ = Kind::kCircle;
    return;
  }
  kind_ = Kind::kArc;
  // Polar angle of the robot about the centre: atan2(−r·cos θ, r·sin θ) = θ ∓ π/2 for r ≷ 0.
  const double phi0 = r > 0 ? pose.theta - 0.5 * kPi : pose.theta + 0.5 * kPi;
  const double phi1 = phi0 + omega * t1;
  const double phi2 = phi1 + omega * (t2 - t1);
  u1_ = geometry::UnitVector(phi1);
  u2_ = geometry::UnitVector(phi2);
  a_ = centre_ + radius_ * u1_;
  b_ = centre_ + radius_ * u2_;
  direction_ = omega > 0 ? 1.0 : -1.0;
  long_arc_ = sweep > kPi;
}

double CurvatureSegment::Distance(const Vec2& p) const {
  switch (kind_) {
    case Kind::kPoint:
      return (p - a_).norm();
    case Kind::kStraight: {
      const Vec2 e = b_ - a_;
      const double len2 = e.squaredNorm();
      if (len2 < 1e-18) return (p - a_).norm();
      const double t = std::clamp((p - a_).dot(e) / len2, 0.0, 1.0);
      return (p - (a_ + t * e)).norm();
    }
    case Kind::kCircle:
      return std::abs((p - centre_).norm() - radius_);
    case Kind::kArc: {
      const Vec2 rel = p - centre_;
      const double dist_centre = rel.norm();
      if (dist_centre > 1e-12) {
        // Is the point's polar angle inside the swept interval (direction-aware)?
        const bool after_start = direction_ * Cross(u1_, rel) >= 0.0;
        const bool before_end = direction_ * Cross(rel, u2_) >= 0.0;
        const bool inside = long_arc_ ? (after_start || before_end) : (after_start && before_end);
        if (inside) return std::abs(dist_centre - radius_);
      }
      return std::min((p - a_).norm(), (p - b_).norm());
    }
  }
  return 0.0;
}

VelocityController::VelocityController(const VelocityOptions& options) : options_(options) {}

void VelocityController::CollectNear(std::span<const Vec2> points, const Vec2& robot, double radius,
                                     std::vector<NearPoint>* out) {
  out->clear();
  const double radius2 = radius * radius;
  for (const Vec2& p : points) {
    const double d2 = (p - robot).squaredNorm();
    if (d2 < radius2) out->push_back({std::sqrt(d2), p});
  }
  std::sort(out->begin(), out->end(), [](const NearPoint& x, const NearPoint& y) { return x.range < y.range; });
}

double VelocityController::MinDistance(const CurvatureSegment& segment, std::span<const NearPoint> points, double cap) {
  // Every segment point lies within reach() of the robot, so a point at range r is at least r −
  // reach() away; points come sorted by range, hence the exact early exit. Results at or beyond
  // `cap` (= d_v(max)) all give a_ω = 1 and are reported as `cap`.
  double best = cap;
  for (const NearPoint& q : points) {
    if (q.range - segment.reach() >= best) break;
    best = std::min(best, segment.Distance(q.p));
  }
  return best;
}

double VelocityController::OutlineDistance(std::span<const NearPoint> points, double slack, double half_width,
                                           double cap, const geometry::Pose2& start, double v, double omega,
                                           double duration) {
  // A point at range r (from the body's centre now) is at least r − slack from every body point over the motion;
  // points come sorted by range, hence the exact early exit — before any sampling when the nearest point is out of
  // reach. Gaps at or beyond cap − half_width all give a_ω = 1 and are reported as `cap`, like MinDistance.
  const double gap_cap = cap - half_width;
  double best = gap_cap;
  bool posed = false;
  for (const NearPoint& q : points) {
    if (q.range - slack >= best) break;
    if (!posed) {
      sweep_.Set(options_.body.outline, start, v, omega, duration);
      posed = true;
    }
    best = sweep_.BoundBelow(q.p, best);
  }
  return best >= gap_cap ? cap : std::max(0.0, half_width + best);
}

void VelocityController::Tick(const VelocityInputs& in, const ControlParameters& raw_params, VelocityOutput* out) {
  ValidateParameters(raw_params);
  const ControllerBody& body = options_.body;
  const ControlParameters params = ApplyBodyLimits(raw_params, body.limits);  // the platform's hard limits
  const int n_v = params.n_v;
  const int n_w = params.n_omega;
  const int n = n_v * n_w;
  const Vec2 robot = in.pose.Position();
  const double v_limit = params.v_limit;
  // Issue 18 item 3: a body whose centre is off R's origin is evaluated along its centre's path (eqs. 8–10);
  // a tricycle's candidates turn no tighter than r_lmin.
  const bool offset = !body.centred();
  const bool circle = body.outline.is_circle();
  const double r_lmin = body.min_turning_radius;
  const Vec2 centre = offset ? Vec2(in.pose.ToWorld(body.centre())) : robot;

  // Dynamic window and candidates (§4.5, §8 item 16).
  out->window = ComputeDynamicWindow(in.v, in.omega, params, options_.control_period);
  const DynamicWindow& w = out->window;
  WindowSamples(w.v1, w.v_centre, w.v2, n_v, &out->v_samples);
  WindowSamples(w.omega1, w.omega_centre, w.omega2, n_w, &out->omega_samples);
  for (auto* vec : {&out->sensor_distance, &out->map_distance, &out->sensor_avoidance, &out->map_avoidance,
                    &out->goal_seeking, &out->objective}) {
    vec->resize(n);
  }
  out->speedup.resize(n_v);
  out->distance_to_goal.resize(n_v);

  // Goal, heading target and effective weights.
  const double d_g = (in.goal - robot).norm();
  out->goal_distance = d_g;
  double theta_t = in.target_heading;
  if (options_.goal_target == VelocityGoalTarget::kGoalBearing) {
    const Vec2 d = in.goal - robot;
    theta_t = d.squaredNorm() < 1e-24 ? in.pose.theta : std::atan2(d.y(), d.x());
  }
  out->heading_target = theta_t;
  const double cap = params.weight_cap;
  VelocityWeights& wt = out->weights;
  wt.sensor = CapWeight(params.w_v1, cap);
  wt.map = CapWeight(params.w_v2, cap);
  wt.goal = CapWeight(BoostNearGoal(params.w_v3, d_g, params.d_g_max), cap);      // eq. 5.18
  wt.speedup = CapWeight(ReduceNearGoal(params.w_v4, d_g, params.d_g_max), cap);  // eq. 5.19
  wt.distance = CapWeight(params.w_v5, cap);

  // Obstacle points that can come within d_v(max) of any candidate's segment. The centre of an offset body moves at
  // most |v| + |ω|·|offset| (eq. 9: r·ω with r ≤ |r_l| + |offset|).
  double max_speed = std::max(std::abs(w.v1), std::abs(w.v2));
  if (offset) max_speed += std::max(std::abs(w.omega1), std::abs(w.omega2)) * body.centre().norm();
  const double max_reach = max_speed * params.t_2;
  // candidate_outline_check: a non-circular body's candidates judged by its outline swept over [t_1, t_2]. Its points
  // reach |centre| + reach_from_origin beyond R's path (the extra range collected only adds points farther than every
  // centre path's cap: MinDistance is unchanged).
  const bool outline_candidates = options_.candidate_outline_check && !circle;
  const double body_slack = body.centre().norm() + body.outline.reach_from_origin();
  const double near_radius = params.d_v_max + max_reach + (outline_candidates ? body_slack : 0.0);
  CollectNear(in.obstacle_points, centre, near_radius, &near_sensor_);
  CollectNear(in.map_points, centre, near_radius, &near_map_);

  // Goal-seeking linear cap (eq. 5.28) and per-v terms (eqs. 5.30, 5.31).
  const double misalignment = geometry::AngleDistance(theta_t, in.pose.theta);
  const double v_max_goal = AlignmentSpeedLimit(misalignment, params.beta, v_limit);
  const double v_max_distance = GoalDistanceSpeedLimit(d_g, params.d_g_max, v_limit);
  // r_v = r_o (§8 item 28), for this body's size (exactly r_o for MARVIN; a polygon's per candidate below).
  const double r_v = circle ? BodyObstacleRadius(params.r_o, body.outline.radius()) : params.r_o;
  const double r_v_map = MapObstacleRadius(r_v, options_.map_point_inset);
  // Angular goal seeking per ω sample (eqs. 5.26–5.27).
  g_omega_.resize(n_w);
  for (int iw = 0; iw < n_w; ++iw) {
    g_omega_[iw] = HeadingPreference(in.pose.theta + out->omega_samples[iw] * params.t_3, theta_t);
  }

  for (int iv = 0; iv < n_v; ++iv) {
    const double v = out->v_samples[iv];
    out->speedup[iv] = v_limit > 0.0 ? v / v_limit : 0.0;              // eq. 5.30
    out->distance_to_goal[iv] = SpeedCap(v, v_max_distance, v_limit);  // eqs. 5.24, 5.31
    const double g_v = SpeedCap(v, v_max_goal, v_limit);               // eqs. 5.24, 5.28
    const double row_factor =
        ProductFactor(wt.speedup, out->speedup[iv]) * ProductFactor(wt.distance, out->distance_to_goal[iv]);
    const bool same_row = iv > 0 && v == out->v_samples[iv - 1];
    for (int iw = 0; iw < n_w; ++iw) {
      const int idx = iv * n_w + iw;
      // A tricycle's window is bounded by its curvature limit: |ω| ≤ v / r_lmin (the candidate's ω as driven).
      const double om = BoundTurnRate(v, out->omega_samples[iw], r_lmin);
      const double om_prev = iw > 0 ? BoundTurnRate(v, out->omega_samples[iw - 1], r_lmin) : 0.0;
      // Eqs. 8–10: where the body's centre starts, how fast, and θ_v (0 for a centred body).
      const CentreStart start = CentreStartFor(in.pose, v, om, body);
      // A non-circular body: r_v for its half-width across the centre's direction of travel — the body frame (and
      // with it the obstacles) turned by θ_v (eq. 10), so the clearance is balanced on both sides of the body.
      const double half_width = circle ? 0.0 : body.outline.HalfWidthAcross(start.theta_v);
      const double r_v_body = circle ? r_v : BodyObstacleRadius(params.r_o, half_width);
      // Distances: copy when the segment repeats one already evaluated (duplicate samples, or v = 0
      // where the segment is the robot position whatever ω is — for a body centred on R's origin, judged by that
      // point: not by its outline, which turns with ω).
      if (same_row) {
        out->sensor_distance[idx] = out->sensor_distance[idx - n_w];
        out->map_distance[idx] = out->map_distance[idx - n_w];
      } else if (iw > 0 && (om == om_prev || (std::abs(v) < 1e-12 && !offset && !outline_candidates))) {
        out->sensor_distance[idx] = out->sensor_distance[idx - 1];
        out->map_distance[idx] = out->map_distance[idx - 1];
      } else if (outline_candidates) {
        // d_o = w + the outline's least gap over [t_1, t_2] (VelocityOptions::candidate_outline_check).
        const geometry::Pose2 at_t1 = geometry::IntegrateArc(in.pose, v, om, params.t_1);
        const double slack = body_slack + std::abs(v) * params.t_2;
        const double horizon = params.t_2 - params.t_1;
        out->sensor_distance[idx] =
            OutlineDistance(near_sensor_, slack, half_width, params.d_v_max, at_t1, v, om, horizon);
        if (wt.map > 0.0) {
          out->map_distance[idx] = OutlineDistance(near_map_, slack, half_width, params.d_v_max, at_t1, v, om, horizon);
        } else {
          const CurvatureSegment segment(start.pose, start.speed, om, params.t_1, params.t_2);
          out->map_distance[idx] = MinDistance(segment, near_map_, params.d_v_max);
        }
      } else {
        const CurvatureSegment segment(start.pose, start.speed, om, params.t_1, params.t_2);
        out->sensor_distance[idx] = MinDistance(segment, near_sensor_, params.d_v_max);
        out->map_distance[idx] = MinDistance(segment, near_map_, params.d_v_max);
      }
      const double r_v_map_body = circle ? r_v_map : MapObstacleRadius(r_v_body, options_.map_point_inset);
      // Avoidance (eqs. 5.22–5.25).
      const double as_w = CurvatureAvoidance(out->sensor_distance[idx], r_v_body, params.d_v_max, params.kappa);
      const double as = as_w * SpeedCap(v, AvoidanceSpeedLimit(as_w, v_limit), v_limit);
      const double am_w = CurvatureAvoidance(out->map_distance[idx], r_v_map_body, params.d_v_max, params.kappa);
      const double am = am_w * SpeedCap(v, AvoidanceSpeedLimit(am_w, v_limit), v_limit);
      // Goal seeking towards θ_T (eq. 5.29), for the turn rate the candidate really drives.
      const double g_w = r_lmin > 0.0 ? HeadingPreference(in.pose.theta + om * params.t_3, theta_t) : g_omega_[iw];
      const double g = g_w * g_v;
      out->sensor_avoidance[idx] = as;
      out->map_avoidance[idx] = am;
      out->goal_seeking[idx] = g;
      out->objective[idx] =
          ProductFactor(wt.sensor, as) * ProductFactor(wt.map, am) * ProductFactor(wt.goal, g) * row_factor;
    }
  }

  // (v_T, ω_T) = argmax f(v, ω)   (eq. 5.21).
  std::span<const double> distances;
  if (options_.tie_break == TieBreak::kClosestToCurrent) {
    distance_to_current_.resize(n);
    const double sv = v_limit > 0 ? v_limit : 1.0;
    const double sw = params.omega_limit > 0 ? params.omega_limit : 1.0;
    for (int iv = 0; iv < n_v; ++iv) {
      for (int iw = 0; iw < n_w; ++iw) {
        const double dv = (out->v_samples[iv] - in.v) / sv;
        const double dw = (out->omega_samples[iw] - in.omega) / sw;
        distance_to_current_[iv * n_w + iw] = dv * dv + dw * dw;
      }
    }
    distances = distance_to_current_;
  }
  const int best = ArgMax(out->objective, options_.tie_break, distances);
  out->v_index = best / n_w;
  out->omega_index = best % n_w;
  out->command = {out->v_samples[out->v_index],
                  BoundTurnRate(out->v_samples[out->v_index], out->omega_samples[out->omega_index], r_lmin)};
  out->reversing = false;
  out->turning_arc = false;
  const double turn = geometry::WrapAngle(theta_t - in.pose.theta) >= 0.0 ? 1.0 : -1.0;
  // Whether the centre's path for (v, ω) keeps r_v clear of every obstacle point (eq. 5.22's d_o ≥ r_v), judged like
  // every candidate (eqs. 8–10 hold for v < 0 too); map points count only when a_m does.
  auto arc_clear = [&](double v, double om) {
    const double reach = (std::abs(v) * (1.0 + body.centre().norm() / r_lmin)) * params.t_2;
    CollectNear(in.obstacle_points, centre, params.d_v_max + reach, &near_sensor_);
    CollectNear(in.map_points, centre, params.d_v_max + reach, &near_map_);
    const CentreStart start = CentreStartFor(in.pose, v, om, body);
    const CurvatureSegment segment(start.pose, start.speed, om, params.t_1, params.t_2);
    const double r_v_arc = circle ? r_v : BodyObstacleRadius(params.r_o, body.outline.HalfWidthAcross(start.theta_v));
    const double clear =
        std::min(MinDistance(segment, near_sensor_, params.d_v_max),
                 MinDistance(segment, near_map_, params.d_v_max) + (wt.map > 0.0 ? 0.0 : params.d_v_max));
    return clear >= r_v_arc;
  };
  // Issue 18: the same question asked of the body's outline swept along the motion for `duration` (its real extent
  // along the direction of travel, VelocityOptions::outline_check); map points count only when a_m does.
  auto outline_clear = [&](double v, double om, double duration) {
    const double clearance = options_.outline_clearance;
    if (!SweepOutline(body.outline, in.pose, v, om, duration, in.obstacle_points, clearance).clear) return false;
    return !(wt.map > 0.0) || SweepOutline(body.outline, in.pose, v, om, duration, in.map_points, clearance).clear;
  };
  // Over eq. 5.22's horizon: the body now (t = 0, so a motion that starts by pressing on is refused) to t_2.
  auto motion_clear = [&](double v, double om) {
    return options_.outline_check ? outline_clear(v, om, params.t_2) : arc_clear(v, om);
  };
  // A drive that cannot turn on the spot, where eq. 5.28 would turn one that can in place: its tightest forward arc
  // towards θ_T (VelocityOptions::turn_speed) — only if the whole turn is clear, not just the window's horizon: along
  // the arc until it has turned by the misalignment (at most a quarter turn), the body's outline (outline_check; else
  // its circumscribed circle, plus r_o's margin, about the centre) keeps clear of every sensed obstacle point. At a
  // creeping speed eq. 5.22's horizon covers centimetres, and a turn judged by it alone walks the nose into the wall
  // it was turning from.
  if (r_lmin > 0.0 && options_.turn_speed > 0.0 && in.v >= 0.0 && misalignment >= params.beta * kPi) {
    const double v_turn = std::min(options_.turn_speed, w.v2);
    if (v_turn > 0.0) {
      const double om = turn * v_turn / r_lmin;
      const double t_turn = std::min(misalignment, 0.5 * kPi) / std::abs(om);
      bool clear = false;
      if (options_.outline_check) {
        clear = SweepOutline(body.outline, in.pose, v_turn, om, t_turn, in.obstacle_points, options_.outline_clearance)
                    .clear;
      } else {
        const CentreStart start = CentreStartFor(in.pose, v_turn, om, body);
        const CurvatureSegment whole_turn(start.pose, start.speed, om, 0.0, t_turn);
        const double r_clear = BodyObstacleRadius(params.r_o, body.outline.circumscribed_radius());
        CollectNear(in.obstacle_points, centre, whole_turn.reach() + r_clear + params.d_v_max, &near_sensor_);
        clear = MinDistance(whole_turn, near_sensor_, params.d_v_max + r_clear) >= r_clear;
      }
      if (clear) {
        out->command = {v_turn, om};
        out->turning_arc = true;
      }
    }
  }
  const bool misaligned = misalignment >= params.beta * kPi;
  if (r_lmin > 0.0 && options_.reverse_speed > 0.0 && options_.three_point_turn) {
    // The three-point turn (VelocityOptions::three_point_turn). Each leg turns the heading towards θ_T (with v < 0 the
    // heading still turns with ω); a leg is judged at reverse_speed over eq. 5.22's horizon whatever speed the window
    // lets it start at, so the look-ahead is the same from standstill.
    const double speed = options_.reverse_speed;
    // θ_T nearly behind: keep turning the way the heading already turns, or a θ_T flickering about ±π would swap the
    // direction of the turn from tick to tick and one leg would undo the last.
    const double leg_turn =
        misalignment > 0.75 * kPi && std::abs(in.omega) > 1e-3 && in.v != 0.0 ? (in.omega > 0.0 ? 1.0 : -1.0) : turn;
    const bool stuck = out->command.v == 0.0 && in.v >= 0.0 && (misaligned || d_g > params.d_g_max);
    const bool backing = in.v < 0.0 && misalignment >= 0.5 * params.beta * kPi;
    // A manoeuvre at creeping speed: a robot still rolling faster is first slowed by eq. 5.28 (g_v caps v at 0).
    const bool turning = in.v >= 0.0 && in.v <= speed && misaligned && !out->turning_arc;
    if (stuck || backing || turning) {
      enum class Leg { kForwardArc, kBackArc, kStraightBack };
      const Leg forward_first[] = {Leg::kForwardArc, Leg::kBackArc, Leg::kStraightBack};
      const Leg back_first[] = {Leg::kBackArc, Leg::kForwardArc, Leg::kStraightBack};
      for (const Leg leg : in.v < 0.0 ? back_first : forward_first) {
        if (leg == Leg::kForwardArc) {
          // Forward only to turn (θ_T beyond βπ/2, where the backing ends; an aligned robot stuck with its goal far
          // has its way ahead closed).
          if (misalignment < 0.5 * params.beta * kPi || !motion_clear(speed, leg_turn * speed / r_lmin)) continue;
          // From backing the window cannot go forward yet (v ∈ [0, 0]): stand still this tick, then go.
          const double v_forward = std::min(speed, w.v2);
          out->command = {v_forward, leg_turn * v_forward / r_lmin};
          out->turning_arc = true;
          break;
        }
        const double om = leg == Leg::kBackArc ? leg_turn * speed / r_lmin : 0.0;
        if (!motion_clear(-speed, om)) continue;
        out->command = {-speed, om};
        out->reversing = true;
        break;
      }
    }
    return;
  }
  // Stuck: standing (its best candidate is v = 0) while θ_T lies beyond βπ (eq. 5.28 wants it to turn in place)
  // or the goal is still far (the way ahead is closed); and once backing, until θ_T is within βπ/2.
  const bool stuck = out->command.v == 0.0 && in.v >= 0.0 && (misaligned || d_g > params.d_g_max);
  const bool backing = in.v < 0.0 && misalignment >= 0.5 * params.beta * kPi;
  if (r_lmin > 0.0 && options_.reverse_speed > 0.0 && (stuck || backing)) {
    // It would turn in place but cannot. Back out on an arc that turns it towards θ_T (with v < 0 the
    // heading still turns with ω), else straight back; only if the motion is clear (motion_clear).
    const double v_back = -options_.reverse_speed;
    for (const double om : {turn * options_.reverse_speed / r_lmin, 0.0}) {
      if (motion_clear(v_back, om)) {
        out->command = {v_back, om};
        out->reversing = true;
        break;
      }
    }
  }
}

}  // namespace limbic::controller
