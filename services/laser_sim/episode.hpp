// One episode of the laser robot in one world (spec reactive-topological §1.6, §1.8, §1.9): the robot
// starts at rest on the world's start facing north, senses (laser, compass, gyro, encoders) every
// 10 ms, is moved by the motion law toward the heading its controller asks for, bumps (a colliding step
// is undone and the wheels stop; the run goes on), and ends at the goal (within 15 cm) or at the time
// limit (200 s = 20 000 cycles [T]). Ground truth (pose, contacts) stays here; the controller sees only
// the SensorFrame.
//
// Inputs: World, EpisodeOptions, a seed (laser errors, odometry slip), one desired heading per cycle.
// Outputs: SensorFrame per cycle; EpisodeResult: solved, time, path length (true pose), optimal path,
//   efficiency (Eq. 4-2, clamped to 1), collisions (contact episodes), closest contact, final distance to
//   the goal, trajectory (optional, thinned).
#pragma once

#include <cstdint>
#include <limits>
#include <random>
#include <vector>

#include "services/laser_sim/laser_scanner.hpp"
#include "services/laser_sim/laser_types.hpp"
#include "services/laser_sim/laser_world.hpp"
#include "services/laser_sim/motion.hpp"

namespace limbic::laser {

struct EpisodeOptions {
  double time_limit_s = 200.0;   // [T] 20 000 cycles (GA training: 60 s [A])
  double goal_radius_cm = 15.0;  // [A] A17
  double slip_fraction = 0.0;    // [A] odometry: displacement × (1 + N(0, slip)); 0 for benchmarks
  LaserOptions laser;
  MotionOptions motion;
  int trajectory_every = 0;  // keep every Nth true pose (0: no trajectory)
  // [A] A contact episode ends once the disc is this far from every surface: a robot pushing against an
  // obstacle is stopped, creeps 0.02 cm and touches again, and that is one collision, not dozens.
  double contact_release_cm = 1.0;
};

// Throws std::invalid_argument for a non-finite or non-positive limit/radius, a negative slip, or bad
// motion options.
void ValidateEpisodeOptions(const EpisodeOptions& options);

struct EpisodeResult {
  bool solved = false;
  double time_s = 0.0;  // to the goal, or the time limit
  double path_cm = 0.0;
  double optimal_cm = 0.0;
  double efficiency = 0.0;  // Eq. 4-2: optimal / actual, solved episodes only, ≤ 1 (A34)
  uint32_t collisions = 0;  // contiguous contact episodes (rising edges)
  double closest_contact_cm = 0.0;
  double final_goal_distance_cm = 0.0;
  int64_t cycles = 0;
  std::vector<Vec2> trajectory;
};

class LaserEpisode {
 public:
  // The world must outlive the episode.
  LaserEpisode(const World& world, const EpisodeOptions& options, uint64_t seed);

  // What the robot senses at the current cycle.
  const SensorFrame& frame() const { return frame_; }
  bool done() const { return done_; }
  // Moves the robot one cycle toward `desired_heading_deg` (NaN keeps the heading), at most at
  // `speed_cap_cms` (0 stops), and senses again. Does nothing once done().
  void Advance(double desired_heading_deg, double speed_cap_cms = std::numeric_limits<double>::infinity());

  EpisodeResult Result() const;
  const MotionState& truth() const { return state_; }
  bool in_collision() const { return in_collision_; }
  const ExactScan& exact_scan() const { return exact_; }
  const World& world() const { return world_; }
  const EpisodeOptions& options() const { return options_; }

 private:
  bool Collides(double x, double y, double* clearance) const;
  void Sense();

  const World& world_;
  EpisodeOptions options_;
  LaserScanner laser_;
  std::mt19937_64 slip_rng_;
  MotionState state_;
  SensorFrame frame_;
  ExactScan exact_{};
  int64_t cycle_ = 0;
  int64_t cycle_limit_ = 0;
  bool done_ = false;
  bool solved_ = false;
  bool in_collision_ = false;  // this cycle's step collided
  bool in_contact_ = false;    // inside a contact episode (until contact_release_cm of clearance)
  uint32_t collisions_ = 0;
  double path_cm_ = 0.0;
  double closest_cm_ = 0.0;
  double odom_x_ = 0.0, odom_y_ = 0.0;
  double wheel_left_cm_ = 0.0, wheel_right_cm_ = 0.0;
  std::vector<Vec2> trajectory_;
};

}  // namespace limbic::laser
