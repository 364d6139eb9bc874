#include "services/laser_sim/episode.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "sim/random.hpp"

namespace limbic::laser {
namespace {

constexpr double kCountsPerCm = 200.0;  // shaft encoders: 20 counts per mm [T]

// N(0, 1) by Box–Muller from the generator's bits (std::normal_distribution differs across libraries).
double StandardNormal(std::mt19937_64& rng) {
  const double u1 = std::max(sim::Uniform01(rng), 1e-300);
  const double u2 = sim::Uniform01(rng);
  return std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * kPi * u2);
}

}  // namespace

void ValidateEpisodeOptions(const EpisodeOptions& o) {
  if (!(std::isfinite(o.time_limit_s) && o.time_limit_s > 0.0)) {
    throw std::invalid_argument("episode: time_limit_s must be > 0");
  }
  if (!(std::isfinite(o.goal_radius_cm) && o.goal_radius_cm > 0.0)) {
    throw std::invalid_argument("episode: goal_radius_cm must be > 0");
  }
  if (!(std::isfinite(o.slip_fraction) && o.slip_fraction >= 0.0 && o.slip_fraction < 1.0)) {
    throw std::invalid_argument("episode: slip_fraction must be in [0, 1)");
  }
  if (o.trajectory_every < 0) throw std::invalid_argument("episode: trajectory_every must be >= 0");
  if (!(std::isfinite(o.contact_release_cm) && o.contact_release_cm >= 0.0)) {
    throw std::invalid_argument("episode: contact_release_cm must be >= 0");
  }
  ValidateMotionOptions(o.motion);
}

LaserEpisode::LaserEpisode(const World& world, const EpisodeOptions& options, uint64_t seed)
    : world_(world),
      options_(options),
      laser_(world, options.laser, sim::DeriveSeed(seed, 1)),
      slip_rng_(sim::DeriveSeed(seed, 2)) {
  ValidateEpisodeOptions(options);
  for (const Circle& c : world.obstacles) {
    if (!(std::isfinite(c.cx) && std::isfinite(c.cy) && std::isfinite(c.r) && c.r > 0.0)) {
      throw std::invalid_argument("episode: the world has an obstacle that is not a finite circle");
    }
  }
  if (!(std::isfinite(world.start.x) && std::isfinite(world.start.y) && std::isfinite(world.goal.x) &&
        std::isfinite(world.goal.y) && std::isfinite(world.start_heading_deg))) {
    throw std::invalid_argument("episode: the world's start or goal is not finite");
  }
  double clearance = 0.0;
  if (Collides(world.start.x, world.start.y, &clearance)) {
    throw std::invalid_argument("episode: the robot does not fit at the world's start");
  }
  state_.x_cm = world.start.x;
  state_.y_cm = world.start.y;
  state_.heading_deg = Wrap360(world.start_heading_deg);
  odom_x_ = state_.x_cm;
  odom_y_ = state_.y_cm;
  closest_cm_ = clearance + options.motion.robot_radius_cm;
  cycle_limit_ = static_cast<int64_t>(std::llround(options.time_limit_s / options.motion.dt_s));
  frame_.goal = world.goal;
  if (options.trajectory_every > 0) trajectory_.push_back({state_.x_cm, state_.y_cm});
  Sense();
}

// True when a robot disc at (x, y) overlaps an obstacle or a wall (§1.8); `clearance` receives the gap
// between the disc and the nearest surface (negative when overlapping).
bool LaserEpisode::Collides(double x, double y, double* clearance) const {
  const double r = options_.motion.robot_radius_cm;
  double gap = std::min({x, world_.width - x, y, world_.height - y}) - r;
  for (const Circle& c : world_.obstacles) {
    const double dx = x - c.cx, dy = y - c.cy;
    const double reach = c.r + r + gap;  // cheap reject before the square root
    if (dx * dx + dy * dy >= reach * reach && gap >= 0.0) continue;
    gap = std::min(gap, std::sqrt(dx * dx + dy * dy) - c.r - r);
  }
  // Surfaces farther than the robot's radius cannot matter to contact or to the closest-contact figure.
  if (world_.surroundings) gap = std::min(gap, world_.surroundings->Clearance({x, y}, r, std::max(gap, r)));
  *clearance = gap;
  return !(gap >= 0.0);  // NaN collides
}

void LaserEpisode::Sense() {
  laser_.Scan({state_.x_cm, state_.y_cm}, &frame_.ranges, &exact_);
  frame_.cycle = cycle_;
  frame_.time_s = static_cast<double>(cycle_) * options_.motion.dt_s;
  Odometry& o = frame_.odom;
  o.x_cm = odom_x_;
  o.y_cm = odom_y_;
  o.heading_deg = state_.heading_deg;  // compass: exact (§1.6)
  o.turn_rate_dps = state_.TurnRateRadS(options_.motion.robot_radius_cm) * kRadToDeg;
  o.v_left_cms = state_.v_left_cms;
  o.v_right_cms = state_.v_right_cms;
  o.encoder_left = static_cast<int64_t>(std::llround(wheel_left_cm_ * kCountsPerCm));
  o.encoder_right = static_cast<int64_t>(std::llround(wheel_right_cm_ * kCountsPerCm));
}

void LaserEpisode::Advance(double desired_heading_deg, double speed_cap_cms) {
  if (done_) return;
  const MotionState before = state_;
  MotionState next = StepMotion(state_, desired_heading_deg, frame_.ranges, options_.motion, nullptr, speed_cap_cms);
  double clearance = 0.0;
  const bool hit = Collides(next.x_cm, next.y_cm, &clearance);
  if (hit) {
    // §1.8 (A16): undo the step, stop both wheels; one collision per contiguous contact episode.
    next = before;
    next.v_left_cms = next.v_right_cms = 0.0;
    if (!in_contact_) ++collisions_;
    in_contact_ = true;
    Collides(next.x_cm, next.y_cm, &clearance);
  } else if (clearance >= options_.contact_release_cm) {
    in_contact_ = false;
  }
  in_collision_ = hit;
  state_ = next;
  const double dx = state_.x_cm - before.x_cm, dy = state_.y_cm - before.y_cm;
  const double moved = std::hypot(dx, dy);
  path_cm_ += moved;
  closest_cm_ = std::min(closest_cm_, clearance + options_.motion.robot_radius_cm);
  // Odometry: the true displacement, scaled by (1 + N(0, slip)) when slip is modelled (§1.6).
  const double scale = options_.slip_fraction > 0.0 ? 1.0 + options_.slip_fraction * StandardNormal(slip_rng_) : 1.0;
  odom_x_ += scale * dx;
  odom_y_ += scale * dy;
  wheel_left_cm_ += scale * state_.v_left_cms * options_.motion.dt_s;
  wheel_right_cm_ += scale * state_.v_right_cms * options_.motion.dt_s;
  frame_.odom.a_cms2 = (state_.v_cms() - before.v_cms()) / options_.motion.dt_s;
  frame_.odom.v_cms = state_.v_cms();
  ++cycle_;
  if (options_.trajectory_every > 0 && cycle_ % options_.trajectory_every == 0) {
    trajectory_.push_back({state_.x_cm, state_.y_cm});
  }
  if (std::hypot(state_.x_cm - world_.goal.x, state_.y_cm - world_.goal.y) <= options_.goal_radius_cm) {
    solved_ = true;
    done_ = true;
  } else if (cycle_ >= cycle_limit_) {
    done_ = true;
  }
  Sense();
}

EpisodeResult LaserEpisode::Result() const {
  EpisodeResult r;
  r.solved = solved_;
  r.cycles = cycle_;
  r.time_s = static_cast<double>(cycle_) * options_.motion.dt_s;
  r.path_cm = path_cm_;
  r.optimal_cm = world_.optimal_path_cm;
  r.efficiency = solved_ && path_cm_ > 0.0 ? std::min(1.0, world_.optimal_path_cm / path_cm_) : 0.0;
  r.collisions = collisions_;
  r.closest_contact_cm = closest_cm_;
  r.final_goal_distance_cm = std::hypot(state_.x_cm - world_.goal.x, state_.y_cm - world_.goal.y);
  r.trajectory = trajectory_;
  if (options_.trajectory_every > 0 && (trajectory_.empty() || cycle_ % options_.trajectory_every != 0)) {
    r.trajectory.push_back({state_.x_cm, state_.y_cm});
  }
  return r;
}

}  // namespace limbic::laser
