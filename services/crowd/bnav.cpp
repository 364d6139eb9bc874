#include "services/crowd/bnav.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

namespace limbic::crowd {
namespace {

using geometry::Segment;

void Require(bool ok, const char* what) {
  if (!ok) throw std::invalid_argument(std::string("b_nav: ") + what);
}

// Smallest t ≥ 0 with |w + u·t| = R, for a relative position w (robot − obstacle) and relative velocity u; the
// discs touch then. Already touching (|w| ≤ R): 0 when closing in (w·u < 0), never otherwise.
double TimeToContact(const Vec2& w, const Vec2& u, double R) {
  const double c = w.squaredNorm() - R * R;
  const double b = w.dot(u);
  if (c <= 0) return b < 0 ? 0.0 : std::numeric_limits<double>::infinity();
  const double a = u.squaredNorm();
  if (a <= 0 || b >= 0) return std::numeric_limits<double>::infinity();
  const double disc = b * b - a * c;
  if (disc < 0) return std::numeric_limits<double>::infinity();
  return (-b - std::sqrt(disc)) / a;
}

// Distance a disc of radius r moves along unit `dir` from `origin` before touching the segment (a capsule of
// radius r about it). Touching already: 0 when moving towards the segment, infinity when moving away.
double DistanceToWall(const Vec2& origin, const Vec2& dir, double r, const Segment& s) {
  const Vec2 closest = geometry::ClosestPointOnSegment(origin, s);
  const Vec2 away = origin - closest;
  if (away.squaredNorm() <= r * r) return away.dot(dir) < 0 ? 0.0 : std::numeric_limits<double>::infinity();
  double best = std::numeric_limits<double>::infinity();
  for (const Vec2& end : {s.a, s.b}) {
    if (auto t = geometry::RayCircleIntersection(origin, dir, end, r)) best = std::min(best, *t);
  }
  const Vec2 e = s.b - s.a;
  const double len = e.norm();
  if (len > 1e-12) {
    const Vec2 n = Vec2(-e.y(), e.x()) / len * r;
    for (const Vec2& off : {n, Vec2(-n)}) {
      if (auto t = geometry::RaySegmentIntersection(origin, dir, Segment{s.a + off, s.b + off}))
        best = std::min(best, *t);
    }
  }
  return best;
}

double WallsDistance(const Vec2& origin, const Vec2& dir, double radius, std::span<const Segment> walls) {
  double best = std::numeric_limits<double>::infinity();
  for (const Segment& s : walls) best = std::min(best, DistanceToWall(origin, dir, radius, s));
  return best;
}

bool Finite(const Vec2& v) { return std::isfinite(v.x()) && std::isfinite(v.y()); }

}  // namespace

void ValidateParams(const BNavParams& p) {
  Require(std::isfinite(p.optimal_speed) && p.optimal_speed >= 0, "optimal_speed must be finite and >= 0");
  Require(std::isfinite(p.caution) && p.caution > 0, "caution must be finite and > 0");
  Require(std::isfinite(p.margin) && p.margin >= 0, "margin must be finite and >= 0");
  Require(p.half_fov > 0 && p.half_fov <= geometry::kPi, "half_fov must be in (0, pi]");
  Require(std::isfinite(p.horizon) && p.horizon > 0, "horizon must be finite and > 0");
  Require(std::isfinite(p.tau) && p.tau > 0, "tau must be finite and > 0");
  Require(p.directions >= 2, "directions must be >= 2");
  Require(std::isfinite(p.radius) && p.radius > 0, "radius must be finite and > 0");
  Require(std::isfinite(p.rotation_time) && p.rotation_time > 0, "rotation_time must be finite and > 0");
  Require(std::isfinite(p.max_turn_rate) && p.max_turn_rate > 0, "max_turn_rate must be finite and > 0");
}

double FreeDistance(const Vec2& origin, const Vec2& dir, double radius, double margin, double horizon,
                    std::span<const Neighbour> neighbours, std::span<const Segment> walls) {
  double best = std::min(horizon, WallsDistance(origin, dir, radius, walls));
  for (const Neighbour& n : neighbours) {
    const double R = radius + n.radius + std::max(0.0, margin + n.extra_margin);
    // A static disc: time to contact at unit speed is the distance.
    best = std::min(best, TimeToContact(origin - n.position, dir, R));
  }
  return std::max(0.0, best);
}

double ReachableDistance(const Vec2& origin, const Vec2& dir, double speed, double radius, double margin,
                         double horizon, std::span<const Neighbour> neighbours, std::span<const Segment> walls) {
  double best = std::min(horizon, WallsDistance(origin, dir, radius, walls));
  for (const Neighbour& n : neighbours) {
    const double R = radius + n.radius + std::max(0.0, margin + n.extra_margin);
    const double t = TimeToContact(origin - n.position, speed * dir - n.velocity, R);
    if (std::isinf(t)) continue;
    best = std::min(best, speed * t);  // the robot covers speed·t before contact (0 when it waits)
  }
  return std::max(0.0, best);
}

BNavDecision Decide(const BNavInput& in, const BNavParams& p, double dt) {
  ValidateParams(p);
  Require(std::isfinite(dt) && dt > 0, "dt must be finite and > 0");
  Require(Finite(in.position) && std::isfinite(in.heading) && std::isfinite(in.speed) && Finite(in.target),
          "position, heading, speed and target must be finite");
  for (const Neighbour& n : in.neighbours) {
    Require(Finite(n.position) && Finite(n.velocity) && std::isfinite(n.radius) && n.radius >= 0 &&
                std::isfinite(n.extra_margin),
            "a neighbour has a non-finite position, velocity, radius or margin");
  }
  for (const Segment& s : in.walls) Require(Finite(s.a) && Finite(s.b), "a wall has a non-finite end");

  BNavDecision out;
  const Vec2 to_target = in.target - in.position;
  const double target_distance = to_target.norm();
  const double target_bearing = target_distance > 0 ? std::atan2(to_target.y(), to_target.x()) : in.heading;

  // Candidate directions: K evenly over the FOV, plus the exact bearing of the target when it is inside.
  const int k = p.directions;
  double best_d = std::numeric_limits<double>::infinity();
  double best_beta = in.heading, best_off = std::numeric_limits<double>::infinity(), best_free = 0;
  bool anything = !in.neighbours.empty();
  auto consider = [&](double beta) {
    const Vec2 dir = geometry::UnitVector(beta);
    const double free = FreeDistance(in.position, dir, p.radius, p.margin, p.horizon, in.neighbours, in.walls);
    out.max_free_distance = std::max(out.max_free_distance, free);
    if (free < p.horizon) anything = true;
    const double f =
        ReachableDistance(in.position, dir, p.optimal_speed, p.radius, p.margin, p.horizon, in.neighbours, in.walls);
    // d(s(β), q) of eq. 1: the segment from p to p + f(β)·e_β and the target.
    const double d = geometry::PointSegmentDistance(in.target, geometry::Segment{in.position, in.position + f * dir});
    const double off = geometry::AngleDistance(beta, target_bearing);
    constexpr double kTie = 1e-9;
    if (d < best_d - kTie ||
        (d <= best_d + kTie && (off < best_off - kTie || (off <= best_off + kTie && beta < best_beta)))) {
      best_d = d;
      best_beta = beta;
      best_off = off;
      best_free = free;
    }
  };
  for (int i = 0; i < k; ++i) consider(in.heading - p.half_fov + 2.0 * p.half_fov * i / (k - 1));
  if (geometry::AngleDistance(target_bearing, in.heading) <= p.half_fov) consider(target_bearing);

  if (!anything) {  // spec: "with no obstacles the agent moves straight to the target at optimal speed"
    out.clear = true;
    out.desired_heading = target_bearing;
    out.free_distance = p.horizon;
    out.desired_speed = p.optimal_speed;
  } else {
    out.desired_heading = best_beta;
    out.free_distance = best_free;
    out.desired_speed = std::min(p.optimal_speed, best_free / p.caution);  // eq. 2
  }
  const double error = geometry::WrapAngle(out.desired_heading - in.heading);
  out.desired_heading = geometry::WrapAngle(out.desired_heading);
  out.desired_speed *= std::max(0.0, std::cos(error));
  // Eq. 3, dv/dt = (v_des − v)/τ, integrated exactly over dt with v_des held.
  out.speed = out.desired_speed + (in.speed - out.desired_speed) * std::exp(-dt / p.tau);
  out.turn_rate = std::clamp(error / p.rotation_time, -p.max_turn_rate, p.max_turn_rate);
  return out;
}

}  // namespace limbic::crowd
