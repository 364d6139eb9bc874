#include "services/crowd/bnav.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

namespace limbic::crowd {
namespace {

using geometry::Segment;

void RequireBnav(bool ok, const char* what) {
  if (!ok) throw std::invalid_argument(std::string("b_nav: ") + what);
}

// A wall seen from one origin, prepared once per tick for the K directions: a disc of radius r touches it when its
// centre reaches the capsule of radius r about the segment.
struct PreparedWall {
  Vec2 a{0, 0}, b{0, 0};
  Vec2 along{1, 0};   // unit vector a → b
  double length = 0;  // |b − a|
  Vec2 normal{0, 1};  // unit normal pointing to the origin's side of the line
  double height = 0;  // the origin's distance from the line (≥ 0)
  double lower = 0;   // distance from the origin to the segment minus r: no contact before this along any ray
  bool touching = false;
  Vec2 away{0, 0};  // origin − closest point (for a robot already touching)
};

PreparedWall Prepare(const Vec2& origin, double r, const Segment& s) {
  PreparedWall w;
  w.a = s.a;
  w.b = s.b;
  const Vec2 e = s.b - s.a;
  w.length = e.norm();
  if (w.length > 1e-12) w.along = e / w.length;
  w.normal = Vec2(-w.along.y(), w.along.x());
  w.height = (origin - s.a).dot(w.normal);
  if (w.height < 0) {
    w.normal = -w.normal;
    w.height = -w.height;
  }
  const Vec2 closest = geometry::ClosestPointOnSegment(origin, s);
  w.away = origin - closest;
  w.lower = w.away.norm() - r;
  w.touching = w.away.squaredNorm() <= r * r;
  return w;
}

// Ray (unit dir) against a circle the origin is outside of: distance to its boundary, or infinity.
double RayCircle(const Vec2& origin, const Vec2& dir, const Vec2& center, double r) {
  const Vec2 oc = origin - center;
  const double b = oc.dot(dir);
  if (b > 0) return std::numeric_limits<double>::infinity();
  const double disc = b * b - (oc.squaredNorm() - r * r);
  if (disc < 0) return std::numeric_limits<double>::infinity();
  return std::max(0.0, -b - std::sqrt(disc));
}

// Distance a disc of radius r moves along unit `dir` before touching the wall. Touching already: 0 when moving
// towards the segment, infinity when moving away. From outside, the first contact is on the flat side facing the
// origin when the ray meets that side within the segment's length, else on one of the end caps.
double DistanceToWall(const Vec2& origin, const Vec2& dir, double r, const PreparedWall& w) {
  if (w.touching) return w.away.dot(dir) < 0 ? 0.0 : std::numeric_limits<double>::infinity();
  const double closing = -dir.dot(w.normal);
  if (w.height > r && closing > 0) {
    const double t = (w.height - r) / closing;
    const double u = (origin + t * dir - w.a).dot(w.along);
    if (u >= 0 && u <= w.length) return t;
  }
  return std::min(RayCircle(origin, dir, w.a, r), RayCircle(origin, dir, w.b, r));
}

double WallsDistance(const Vec2& origin, const Vec2& dir, double radius, double horizon,
                     std::span<const PreparedWall> walls) {
  double best = horizon;
  for (const PreparedWall& w : walls) {
    if (w.lower >= best) continue;  // cannot be nearer than what is already found
    best = std::min(best, DistanceToWall(origin, dir, radius, w));
  }
  return best;
}

std::vector<PreparedWall> PrepareWalls(const Vec2& origin, double radius, double horizon,
                                       std::span<const Segment> walls) {
  std::vector<PreparedWall> out;
  for (const Segment& s : walls) {
    PreparedWall w = Prepare(origin, radius, s);
    if (w.lower <= horizon) out.push_back(w);  // farther walls cannot stop it within H
  }
  std::sort(out.begin(), out.end(), [](const PreparedWall& x, const PreparedWall& y) { return x.lower < y.lower; });
  return out;
}

bool Finite(const Vec2& v) { return std::isfinite(v.x()) && std::isfinite(v.y()); }

}  // namespace

void ValidateParams(const BNavParams& p) {
  RequireBnav(std::isfinite(p.optimal_speed) && p.optimal_speed >= 0, "optimal_speed must be finite and >= 0");
  RequireBnav(std::isfinite(p.caution) && p.caution > 0, "caution must be finite and > 0");
  RequireBnav(std::isfinite(p.margin) && p.margin >= 0, "margin must be finite and >= 0");
  RequireBnav(p.half_fov > 0 && p.half_fov <= geometry::kPi, "half_fov must be in (0, pi]");
  RequireBnav(std::isfinite(p.horizon) && p.horizon > 0, "horizon must be finite and > 0");
  RequireBnav(std::isfinite(p.tau) && p.tau > 0, "tau must be finite and > 0");
  RequireBnav(p.directions >= 2, "directions must be >= 2");
  RequireBnav(std::isfinite(p.radius) && p.radius > 0, "radius must be finite and > 0");
  RequireBnav(std::isfinite(p.rotation_time) && p.rotation_time > 0, "rotation_time must be finite and > 0");
  RequireBnav(std::isfinite(p.max_turn_rate) && p.max_turn_rate > 0, "max_turn_rate must be finite and > 0");
  RequireBnav(std::isfinite(p.progress_tolerance) && p.progress_tolerance >= 0,
              "progress_tolerance must be finite and >= 0");
}

namespace {

// A neighbour seen from one origin, prepared once per tick for the K directions: w = origin − its centre and
// c = |w|² − R² (R the sum of the radii and the margin), the constant parts of TimeToContact.
struct PreparedNeighbour {
  Vec2 w{0, 0};
  Vec2 velocity{0, 0};
  double c = 0;
  double lower = 0;      // |w| − R: no contact closer than this along any ray (still neighbour)
  double speed_sum = 0;  // v_opt + |velocity|: the fastest the gap can close while moving
};

// Sorted by `lower`, so FreeGivenWalls can stop at the first neighbour that cannot be nearer than the best.
std::vector<PreparedNeighbour> PrepareNeighbours(const Vec2& origin, double radius, double margin, double speed,
                                                 std::span<const Neighbour> neighbours) {
  std::vector<PreparedNeighbour> out;
  out.reserve(neighbours.size());
  for (const Neighbour& n : neighbours) {
    const double R = radius + n.radius + std::max(0.0, margin + n.extra_margin);
    const Vec2 w = origin - n.position;
    out.push_back({w, n.velocity, w.squaredNorm() - R * R, w.norm() - R, speed + n.velocity.norm()});
  }
  std::sort(out.begin(), out.end(),
            [](const PreparedNeighbour& x, const PreparedNeighbour& y) { return x.lower < y.lower; });
  return out;
}

// TimeToContact with c precomputed.
double ContactTime(const Vec2& w, const Vec2& u, double c) {
  const double b = w.dot(u);
  if (c <= 0) return b < 0 ? 0.0 : std::numeric_limits<double>::infinity();
  if (b >= 0) return std::numeric_limits<double>::infinity();
  const double a = u.squaredNorm();
  const double disc = b * b - a * c;
  if (a <= 0 || disc < 0) return std::numeric_limits<double>::infinity();
  return (-b - std::sqrt(disc)) / a;
}

// D(β) and f(β) given the walls' distance along β (shared by both: the walls do not move).
double FreeGivenWalls(const Vec2& dir, double horizon, double walls, std::span<const PreparedNeighbour> neighbours) {
  double best = std::min(horizon, walls);
  // A still disc: the time to contact at unit speed is the distance.
  for (const PreparedNeighbour& n : neighbours) {
    if (n.lower >= best) break;  // sorted: none further on can be nearer
    best = std::min(best, ContactTime(n.w, dir, n.c));
  }
  return std::max(0.0, best);
}

double ReachableGivenWalls(const Vec2& dir, double speed, double horizon, double walls,
                           std::span<const PreparedNeighbour> neighbours) {
  double best = std::min(horizon, walls);
  for (const PreparedNeighbour& n : neighbours) {
    // The gap closes at most at speed + |v_a|: contact no sooner than lower / speed_sum, at f ≥ speed · that.
    if (n.lower > 0 && speed * n.lower >= best * n.speed_sum) continue;
    const double t = ContactTime(n.w, speed * dir - n.velocity, n.c);
    if (std::isinf(t)) continue;
    best = std::min(best, speed * t);  // the robot covers speed·t before contact (0 when it waits)
  }
  return std::max(0.0, best);
}

}  // namespace

double FreeDistance(const Vec2& origin, const Vec2& dir, double radius, double margin, double horizon,
                    std::span<const Neighbour> neighbours, std::span<const Segment> walls) {
  return FreeGivenWalls(dir, horizon,
                        WallsDistance(origin, dir, radius, horizon, PrepareWalls(origin, radius, horizon, walls)),
                        PrepareNeighbours(origin, radius, margin, 0.0, neighbours));
}

double ReachableDistance(const Vec2& origin, const Vec2& dir, double speed, double radius, double margin,
                         double horizon, std::span<const Neighbour> neighbours, std::span<const Segment> walls) {
  return ReachableGivenWalls(dir, speed, horizon,
                             WallsDistance(origin, dir, radius, horizon, PrepareWalls(origin, radius, horizon, walls)),
                             PrepareNeighbours(origin, radius, margin, speed, neighbours));
}

BNavDecision Decide(const BNavInput& in, const BNavParams& p, double dt) {
  ValidateParams(p);
  RequireBnav(std::isfinite(dt) && dt > 0, "dt must be finite and > 0");
  RequireBnav(Finite(in.position) && std::isfinite(in.heading) && std::isfinite(in.speed) && Finite(in.target),
              "position, heading, speed and target must be finite");
  for (const Neighbour& n : in.neighbours) {
    RequireBnav(Finite(n.position) && Finite(n.velocity) && std::isfinite(n.radius) && n.radius >= 0 &&
                    std::isfinite(n.extra_margin),
                "a neighbour has a non-finite position, velocity, radius or margin");
  }
  for (const Segment& s : in.walls) RequireBnav(Finite(s.a) && Finite(s.b), "a wall has a non-finite end");

  BNavDecision out;
  const Vec2 to_target = in.target - in.position;
  const double target_distance = to_target.norm();
  const double target_bearing = target_distance > 0 ? std::atan2(to_target.y(), to_target.x()) : in.heading;

  // Candidate directions: K evenly over the FOV, plus the exact bearing of the target when it is inside.
  const int k = p.directions;
  const bool tie_longest = p.tie_break == TieBreak::kLongest;
  struct Candidate {
    double beta, d, f, free, off;
  };
  std::vector<Candidate> candidates;
  candidates.reserve(static_cast<size_t>(k) + 1);
  bool anything = !in.neighbours.empty();
  // Only walls within H + r can stop the robot within the horizon; both lists are prepared once for the K
  // directions (the same answers as FreeDistance and ReachableDistance, fewer operations).
  const std::vector<PreparedWall> near = PrepareWalls(in.position, p.radius, p.horizon, in.walls);
  const std::vector<PreparedNeighbour> prepared =
      PrepareNeighbours(in.position, p.radius, p.margin, p.optimal_speed, in.neighbours);
  double min_d = std::numeric_limits<double>::infinity();
  auto consider = [&](double beta) {
    const Vec2 dir = geometry::UnitVector(beta);
    const double walls = WallsDistance(in.position, dir, p.radius, p.horizon, near);
    const double free = FreeGivenWalls(dir, p.horizon, walls, prepared);
    out.max_free_distance = std::max(out.max_free_distance, free);
    if (free < p.horizon) anything = true;
    const double f = ReachableGivenWalls(dir, p.optimal_speed, p.horizon, walls, prepared);
    // d(s(β), q) of eq. 1: the segment from p to p + f(β)·e_β and the target.
    const double d = geometry::PointSegmentDistance(in.target, geometry::Segment{in.position, in.position + f * dir});
    candidates.push_back({beta, d, f, free, geometry::AngleDistance(beta, target_bearing)});
    min_d = std::min(min_d, d);
  };
  for (int i = 0; i < k; ++i) consider(in.heading - p.half_fov + 2.0 * p.half_fov * i / (k - 1));
  if (geometry::AngleDistance(target_bearing, in.heading) <= p.half_fov) consider(target_bearing);
  // Eq. 1: argmin d(s(β), q), every β within progress_tolerance of the minimum counting as a minimum. Eq. 1 is
  // silent on ties; they happen when no direction makes progress (d ≈ ||p − q|| for every blocked β, f ≈ 0, and
  // every β at or beyond a right angle to the target) and among nearly equal ones. kLongest: the longest reachable
  // segment first — a robot boxed in moves aside instead of waiting — then the β nearest the target's bearing, then
  // the lower β (every robot turns the same way, a roundabout). kNearest: nearest the bearing first.
  constexpr double kExact = 1e-9;
  const double tolerance = std::max(kExact, p.progress_tolerance);
  const Candidate* best = nullptr;
  for (const Candidate& c : candidates) {
    if (c.d > min_d + tolerance) continue;
    if (best == nullptr) {
      best = &c;
      continue;
    }
    if (tie_longest && std::abs(c.f - best->f) > kExact) {
      if (c.f > best->f) best = &c;
      continue;
    }
    if (c.off < best->off - kExact || (c.off <= best->off + kExact && c.beta < best->beta)) best = &c;
  }
  double best_beta = best->beta;
  const double best_free = best->free;
  // Boxed in within view (kLongest only): no β in the FOV is reachable beyond the tolerance, so no tie rule can
  // find a way out; the free space, if any, is behind. The robot turns on the spot towards the lower edge of its
  // view (the roundabout's side) to look there, instead of standing for ever (a robot pinned in a doorway by a wall
  // and a neighbour did). kNearest: it stands (the plain reading).
  if (tie_longest && best->f <= tolerance) best_beta = in.heading - p.half_fov;

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
  // The wheeled robot drives along α, not α_des, while it turns: eq. 2 along α as well, so turning does not
  // carry it into what it is turning away from.
  const Vec2 ahead = geometry::UnitVector(in.heading);
  const double free_ahead =
      FreeGivenWalls(ahead, p.horizon, WallsDistance(in.position, ahead, p.radius, p.horizon, near), prepared);
  out.desired_speed = std::min(out.desired_speed, free_ahead / p.caution);
  // Eq. 3, dv/dt = (v_des − v)/τ, integrated exactly over dt with v_des held.
  out.speed = out.desired_speed + (in.speed - out.desired_speed) * std::exp(-dt / p.tau);
  // Eq. 3 lags: slowing from speed v it still covers more than eq. 2 allows when what is ahead appears suddenly
  // (a turn brings a wall into line). Eq. 2 along the heading also bounds the speed itself.
  out.speed = std::min(out.speed, free_ahead / p.caution);
  out.turn_rate = std::clamp(error / p.rotation_time, -p.max_turn_rate, p.max_turn_rate);
  return out;
}

}  // namespace limbic::crowd
