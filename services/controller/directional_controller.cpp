#include "services/controller/directional_controller.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>
#include <stdexcept>
#include <string>

#include "services/controller/terms.hpp"

namespace limbic::controller {
namespace {

using geometry::kPi;
using geometry::Vec2;
using geometry::WrapAngle;

double Bearing(const Vec2& from, const Vec2& to, double fallback) {
  const Vec2 d = to - from;
  if (d.squaredNorm() < 1e-24) return fallback;
  return WrapAngle(std::atan2(d.y(), d.x()));
}

}  // namespace

void HeadingSet::Resize(int n_theta) {
  if (size() == n_theta) return;
  headings.resize(n_theta);
  cos_heading.resize(n_theta);
  sin_heading.resize(n_theta);
  for (int k = 0; k < n_theta; ++k) {
    headings[k] = -kPi + 2.0 * kPi * k / n_theta;
    cos_heading[k] = std::cos(headings[k]);
    sin_heading[k] = std::sin(headings[k]);
  }
}

namespace {

// atan2 to within ~1e-5 rad (minimax polynomial for atan on [−1, 1]); only used to choose which
// headings to test exactly, with a margin far above its error.
double ApproxAtan2(double y, double x) {
  const double ax = std::abs(x), ay = std::abs(y);
  const double mx = std::max(ax, ay);
  if (mx == 0.0) return 0.0;
  const double a = std::min(ax, ay) / mx;
  const double s = a * a;
  double r =
      a * (0.99997726 + s * (-0.33262347 + s * (0.19354346 + s * (-0.11643287 + s * (0.05265332 + s * -0.01172120)))));
  if (ay > ax) r = 0.5 * kPi - r;
  if (x < 0) r = kPi - r;
  return y < 0 ? -r : r;
}

}  // namespace

void RayCircleDistances(const Vec2& origin, std::span<const Vec2> points, double r_o, double d_o_max,
                        const HeadingSet& headings, std::span<double> out) {
  const int n = headings.size();
  std::fill(out.begin(), out.begin() + n, d_o_max);
  if (n == 0) return;
  const double r2 = r_o * r_o;
  const double reach = d_o_max + r_o;  // a circle farther than this cannot be hit before d_o(max)
  const double reach2 = reach * reach;
  const double inv_step = n / (2.0 * kPi);
  const double* cos_k = headings.cos_heading.data();
  const double* sin_k = headings.sin_heading.data();
  double* d = out.data();
  for (const Vec2& p : points) {
    // Same arithmetic as geometry::RayCircleIntersection(origin, u_k, p, r_o).
    const double ocx = origin.x() - p.x();
    const double ocy = origin.y() - p.y();
    const double dist2 = ocx * ocx + ocy * ocy;
    const double c = dist2 - r2;
    if (c <= 0.0) {  // inside a circle: every ray meets it at 0
      std::fill(out.begin(), out.begin() + n, 0.0);
      return;
    }
    if (dist2 >= reach2) continue;
    // Only headings within asin(r_o/D) of the centre's bearing can hit. Bound the half-angle from
    // above with min(x·π/2, x/sqrt(1 − x²)) ≥ asin(x), add 1e-3 rad for the approximate bearing,
    // widen by one index each side, and let the exact test decide.
    const double x = r2 / dist2;  // (r_o/D)²
    const double sx = std::sqrt(x);
    const double half = std::min(0.5 * kPi * sx, sx / std::sqrt(1.0 - x)) + 1e-3;
    const double phi = ApproxAtan2(-ocy, -ocx);
    int k_lo = static_cast<int>(std::floor((phi - half + kPi) * inv_step)) - 1;
    const int k_hi = static_cast<int>(std::ceil((phi + half + kPi) * inv_step)) + 1;
    int count = k_hi - k_lo + 1;
    if (count >= n) {
      k_lo = 0;
      count = n;
    }
    int k = k_lo % n;
    if (k < 0) k += n;
    for (int i = 0; i < count; ++i, k = (k + 1 == n) ? 0 : k + 1) {
      const double b = ocx * cos_k[k] + ocy * sin_k[k];
      if (b > 0.0) continue;
      const double disc = b * b - c;
      if (disc < 0.0) continue;
      const double t = -b - std::sqrt(disc);
      if (t < d[k]) d[k] = t;
    }
  }
}

int SmoothingHalfWidth(double smoothing, int n) {
  if (smoothing <= 0.0 || n <= 0) return 0;
  return static_cast<int>(std::floor(smoothing * n + 1e-9));
}

void PeakEdgeSmooth(std::span<const double> h, double smoothing, std::span<double> out) {
  const int n = static_cast<int>(h.size());
  const int m = SmoothingHalfWidth(smoothing, n);
  if (m == 0) {
    std::copy(h.begin(), h.end(), out.begin());
    return;
  }
  const double ramp = 1.0 / (smoothing * n);  // |j|/(s·n)
  for (int k = 0; k < n; ++k) {
    double best = h[k];
    int lo = k, hi = k;
    for (int j = 1; j <= m; ++j) {
      const double add = j * ramp;
      if (add >= best) break;           // h ≥ 0, so no farther neighbour can go lower
      lo = (lo == 0) ? n - 1 : lo - 1;  // (k − j) mod n
      hi = (hi + 1 == n) ? 0 : hi + 1;  // (k + j) mod n
      best = std::min(best, std::min(h[lo], h[hi]) + add);
    }
    out[k] = best;
  }
}

double MapObstacleRadius(double r_o, double inset) { return std::max(0.0, r_o - inset); }

MapDangerPoint ParseMapDangerPoint(const std::string& name) {
  for (size_t i = 0; i < kMapDangerPointNames.size(); ++i) {
    if (name == kMapDangerPointNames[i]) return static_cast<MapDangerPoint>(i);
  }
  throw std::invalid_argument("map_danger_point must be centre or site, got '" + name + "'");  // as the mapper's
}

void MapVirtualObstacles(const GridView& map, const Vec2& robot, double radius, double threshold, double w_occupancy,
                         double w_danger, std::vector<Vec2>* out, MapDangerPoint danger_point) {
  out->clear();
  const geometry::GridSpec& g = map.spec;
  if (static_cast<int>(map.occupancy.size()) != g.CellCount()) {
    throw std::invalid_argument("GridView: occupancy has " + std::to_string(map.occupancy.size()) +
                                " cells, the grid " + std::to_string(g.CellCount()));
  }
  if (!map.danger.empty() && static_cast<int>(map.danger.size()) != g.CellCount()) {
    throw std::invalid_argument("GridView: danger has " + std::to_string(map.danger.size()) + " cells, the grid " +
                                std::to_string(g.CellCount()));
  }
  if (g.CellCount() == 0) return;
  const geometry::Cell lo = g.CellOf(robot - Vec2(radius, radius));
  const geometry::Cell hi = g.CellOf(robot + Vec2(radius, radius));
  const int x0 = std::max(lo.ix, 0), x1 = std::min(hi.ix, g.width - 1);
  const int y0 = std::max(lo.iy, 0), y1 = std::min(hi.iy, g.height - 1);
  const double radius2 = radius * radius;
  for (int iy = y0; iy <= y1; ++iy) {
    for (int ix = x0; ix <= x1; ++ix) {
      const geometry::Cell cell{ix, iy};
      const Vec2 centre = g.Center(cell);
      if ((centre - robot).squaredNorm() > radius2) continue;
      const int idx = g.Index(cell);
      const double p = map.occupancy[idx];
      const double d = map.danger.empty() ? 0.0 : map.danger[idx];
      const double fused = w_occupancy * p + w_danger * d - w_occupancy * w_danger * p * d;  // eq. 5.3
      if (!(fused > threshold)) continue;
      const DangerSite* site =
          danger_point == MapDangerPoint::kSite && d > 0.0 ? FindSite(map.danger_sites, idx) : nullptr;
      out->push_back(site != nullptr ? site->point : centre);
    }
  }
}

LookAheadTarget FindLookAheadTarget(std::span<const Vec2> nodes, const Vec2& robot, double d_lookahead) {
  LookAheadTarget target;
  if (nodes.empty()) return target;
  int closest = 0;
  double best = (nodes[0] - robot).squaredNorm();
  for (int i = 1; i < static_cast<int>(nodes.size()); ++i) {
    const double d2 = (nodes[i] - robot).squaredNorm();
    if (d2 < best) {
      best = d2;
      closest = i;
    }
  }
  int j = closest;
  double walked = 0.0;
  while (j + 1 < static_cast<int>(nodes.size()) && walked < d_lookahead) {
    walked += (nodes[j + 1] - nodes[j]).norm();
    ++j;
  }
  target.closest_index = closest;
  target.target_index = j;
  target.point = nodes[j];
  return target;
}

double WanderHeading(double goal_bearing, double alpha, double u) {
  return WrapAngle(goal_bearing + 2.0 * kPi * alpha * (u - 0.5));
}

double UniformUnit(std::mt19937_64& rng) { return static_cast<double>(rng() >> 11) * 0x1.0p-53; }

DirectionalController::DirectionalController(const DirectionalOptions& options) : options_(options) { Reset(); }

void DirectionalController::Reseed(uint64_t seed) {
  options_.wander_seed = seed;
  state_.rng.seed(seed);
  state_.next_wander_draw = 0.0;  // draw from the new generator at the next tick
}

void DirectionalController::Reset() {
  state_ = DirectionalState{};
  state_.rng.seed(options_.wander_seed);
}

void DirectionalController::ComputeObstacleFields(const DirectionalInputs& in, const ControlParameters& params,
                                                  DirectionalOutput* out) {
  const int n = params.n_theta;
  heading_set_.Resize(n);
  out->headings.assign(heading_set_.headings.begin(), heading_set_.headings.end());
  for (auto* v : {&out->sensor_distance, &out->map_distance, &out->sensor_avoidance, &out->map_avoidance,
                  &out->path_following, &out->goal_seeking, &out->inertia, &out->wander, &out->objective}) {
    v->resize(n);
  }
  // The body's centre, treated as a point with obstacle circles sized for its circumscribed radius (issue 18).
  const Vec2 robot = options_.body_centre.isZero() ? in.pose.Position() : Vec2(in.pose.ToWorld(options_.body_centre));
  const double r_o = BodyObstacleRadius(params.r_o, options_.body_radius);
  // Sensor-based avoidance: ray distances (eq. 5.12 input), a(θ) by eq. 5.12, then the filter 5.13.
  RayCircleDistances(robot, in.obstacle_points, r_o, params.d_o_max, heading_set_, out->sensor_distance);
  for (int k = 0; k < n; ++k) out->path_following[k] = DirectionalAvoidance(out->sensor_distance[k], params.d_o_max);
  PeakEdgeSmooth(out->path_following, params.smoothing, out->sensor_avoidance);
  // Map-based avoidance: virtual obstacle points from the fused occupancy/danger map, same
  // pipeline.
  if (in.map.has_value()) {
    MapVirtualObstacles(*in.map, robot, params.map_radius, params.map_threshold, options_.map_occupancy_weight,
                        options_.map_danger_weight, &out->map_points, options_.map_danger_point);
  } else {
    out->map_points.clear();
  }
  RayCircleDistances(robot, out->map_points, MapObstacleRadius(r_o, options_.map_point_inset), params.d_o_max,
                     heading_set_, out->map_distance);
  for (int k = 0; k < n; ++k) out->path_following[k] = DirectionalAvoidance(out->map_distance[k], params.d_o_max);
  PeakEdgeSmooth(out->path_following, params.smoothing, out->map_avoidance);
}

void DirectionalController::ObstacleFieldsOnly(const DirectionalInputs& in, const ControlParameters& params,
                                               DirectionalOutput* out) {
  ValidateParameters(params);
  ComputeObstacleFields(in, params, out);
  const int n = params.n_theta;
  const double cap = params.weight_cap;
  out->weights = {CapWeight(params.w_theta1, cap), CapWeight(params.w_theta2, cap), 0.0, 0.0, 0.0, 0.0};
  for (int k = 0; k < n; ++k) {
    out->path_following[k] = out->goal_seeking[k] = out->inertia[k] = out->wander[k] = 1.0;
    out->objective[k] = ProductFactor(out->weights.sensor, out->sensor_avoidance[k]) *
                        ProductFactor(out->weights.map, out->map_avoidance[k]);
  }
  out->target_heading = in.pose.theta;
  out->target_index = -1;
  out->goal_distance = 0.0;
  out->goal_bearing = out->path_bearing = out->wander_heading = in.pose.theta;
  out->previous_target = state_.started ? state_.previous_target : in.pose.theta;
  out->look_ahead = {};
}

void DirectionalController::Tick(const DirectionalInputs& in, const ControlParameters& params, DirectionalOutput* out) {
  ValidateParameters(params);
  ComputeObstacleFields(in, params, out);
  const int n = params.n_theta;
  const Vec2 robot = in.pose.Position();

  // Goal bearing θ_g and distance d_g.
  const double d_g = (in.goal - robot).norm();
  const double theta_g = Bearing(robot, in.goal, in.pose.theta);

  // θ_T(prev) starts at the current heading; the first wander draw happens on the first tick (t =
  // 0).
  if (!state_.started) {
    state_.started = true;
    state_.previous_target = in.pose.theta;
    state_.next_wander_draw = in.time;
  }
  // Wander (eq. 5.17), redrawn every wander_period.
  if (in.time + 1e-9 >= state_.next_wander_draw) {
    const double u = UniformUnit(state_.rng);
    state_.wander_heading = WanderHeading(theta_g, params.wander_alpha, u);
    state_.wander_offset = WrapAngle(state_.wander_heading - theta_g);
    state_.next_wander_draw += params.wander_period;
    if (state_.next_wander_draw <= in.time) state_.next_wander_draw = in.time + params.wander_period;
  }
  const double theta_w = options_.wander_reference == WanderReference::kFixedHeading
                             ? state_.wander_heading
                             : WrapAngle(theta_g + state_.wander_offset);

  // Path following target θ_p.
  bool path_neutral = false;
  double theta_p = theta_g;
  out->look_ahead = FindLookAheadTarget(in.path_nodes, robot, params.d_lookahead);
  if (out->look_ahead.target_index >= 0) {
    theta_p = Bearing(robot, out->look_ahead.point, theta_g);
  } else if (options_.no_path == NoPathBehaviour::kNeutral) {
    path_neutral = true;
  }

  // Goal-proximity modulation (eqs. 5.18–5.19, §8 item 19), then the weight cap.
  const double dgm = params.d_g_max;
  const double cap = params.weight_cap;
  DirectionalWeights& w = out->weights;
  w.sensor = CapWeight(ReduceNearGoal(params.w_theta1, d_g, dgm), cap);
  w.map = CapWeight(
      options_.reduce_map_avoidance_near_goal ? ReduceNearGoal(params.w_theta2, d_g, dgm) : params.w_theta2, cap);
  w.path = CapWeight(
      options_.reduce_path_following_near_goal ? ReduceNearGoal(params.w_theta3, d_g, dgm) : params.w_theta3, cap);
  w.goal = CapWeight(BoostNearGoal(params.w_theta4, d_g, dgm), cap);
  w.inertia = CapWeight(ReduceNearGoal(params.w_theta5, d_g, dgm), cap);
  w.wander = CapWeight(ReduceNearGoal(params.w_theta6, d_g, dgm), cap);

  const double theta_prev = state_.previous_target;
  for (int k = 0; k < n; ++k) {
    const double theta = out->headings[k];
    const double p = path_neutral ? 1.0 : HeadingPreference(theta, theta_p);
    const double g = HeadingPreference(theta, theta_g);     // eq. 5.15
    const double i = HeadingPreference(theta, theta_prev);  // eq. 5.16
    const double wv = HeadingPreference(theta, theta_w);    // eq. 5.17's w(θ)
    out->path_following[k] = p;
    out->goal_seeking[k] = g;
    out->inertia[k] = i;
    out->wander[k] = wv;
    out->objective[k] = ProductFactor(w.sensor, out->sensor_avoidance[k]) *
                        ProductFactor(w.map, out->map_avoidance[k]) * ProductFactor(w.path, p) *
                        ProductFactor(w.goal, g) * ProductFactor(w.inertia, i) * ProductFactor(w.wander, wv);
  }

  // θ_T = argmax f(θ)   (eq. 5.9).
  std::span<const double> distances;
  if (options_.tie_break == TieBreak::kClosestToCurrent) {
    distance_to_current_.resize(n);
    for (int k = 0; k < n; ++k) distance_to_current_[k] = geometry::AngleDistance(out->headings[k], in.pose.theta);
    distances = distance_to_current_;
  }
  out->target_index = ArgMax(out->objective, options_.tie_break, distances);
  out->target_heading = out->headings[out->target_index];
  out->goal_distance = d_g;
  out->goal_bearing = theta_g;
  out->path_bearing = path_neutral ? theta_g : theta_p;
  out->wander_heading = theta_w;
  out->previous_target = theta_prev;
  state_.previous_target = out->target_heading;
}

}  // namespace limbic::controller
