// The simulated world: one environment, N robots and the humans, advanced one control period at a
// time.
#pragma once

#include <cstdint>
#include <random>
#include <span>
#include <vector>

#include "common/types/sensing.hpp"
#include "sim/body.hpp"
#include "sim/environment.hpp"
#include "sim/humans.hpp"
#include "sim/robot.hpp"
#include "sim/segment_index.hpp"

namespace limbic::sim {

// World settings. Robots get their own options when added.
struct WorldOptions {
  uint64_t seed = 1;               // every generator in the world is derived from this
  HumanOptions humans;             // radius is overridden by the environment's human_radius
  bool humans_push_robots = true;  // §3.4: a human walking into a robot displaces it (unless into a wall)
  double broad_phase_cell = 1.0;   // m, uniform-grid cell for segments
};

// Mutable state of one robot (all of it, so a run can be replayed and compared).
struct RobotState {
  int id = 0;
  RobotOptions options;
  Pose2 pose;
  WheelState left, right;
  double v = 0.0;      // true body velocity applied in the last step (m/s)
  double omega = 0.0;  // rad/s
  bool in_contact = false;
  OdometryEstimate odometry;
  std::mt19937_64 motor_rng, range_rng, odometry_rng;
  std::normal_distribution<double> motor_normal, range_normal, odometry_normal;
  // Contact caused by a human or robot pushing this robot during the current step.
  bool pushed = false;
  Vec2 pushed_contact{0, 0};
  int64_t pushes = 0;  // pushes by humans since the robot was added
  // Contacts by kind (issue 18): with another robot, and with the world (walls, obstacles, people, a push).
  // An event of a kind starts on a step with a contact of that kind after a step without one; a step can
  // start one of each.
  bool in_robot_contact = false;
  bool in_world_contact = false;
  int64_t robot_collisions = 0;  // robot–robot contact events since the robot was added
  int64_t world_collisions = 0;  // robot–world contact events since the robot was added
};

// All mutable state of the world.
struct WorldState {
  int64_t tick = 0;
  double time = 0.0;  // s
  std::vector<RobotState> robots;
  std::vector<HumanState> humans;
  std::mt19937_64 human_rng;
};

// What one robot commands for one step.
struct RobotInput {
  WheelCommand wheels;       // target wheel velocities (eq. 4.1 applied upstream)
  bool humans_flee = false;  // §3.4 extension: this robot's anger > 0.75, humans within 5 m move away
};

// True state of a robot, for mission and metrics only.
struct GroundTruth {
  Pose2 pose;
  double v = 0.0;
  double omega = 0.0;
  bool in_contact = false;
  double wheel_left = 0.0;  // actual wheel velocities (m/s)
  double wheel_right = 0.0;
  bool pushed = false;            // a human pushed the robot during this step
  int64_t pushes = 0;             // pushes since the robot was added
  bool in_robot_contact = false;  // touching another robot after this step
  int64_t robot_collisions = 0;   // robot–robot contact events since the robot was added
  int64_t world_collisions = 0;   // robot–world contact events (walls, obstacles, people)
};

struct RobotOutput {
  int robot_id = 0;
  RangeScan raw_scan;  // raw readings (dead zone and noise applied, no median filter)
  CollisionEvent collision;
  OdometryEstimate odometry;
  GroundTruth truth;
};

struct StepOutput {
  int64_t tick = 0;
  double stamp = 0.0;
  std::vector<RobotOutput> robots;
  std::vector<HumanState> humans;
};

// Owns the environment, robots and humans and advances them together.
// Inputs: dt and one RobotInput per robot (in the order robots were added).
// Outputs: per robot raw ranges (eqs. 4.10–4.11), bumpers (eq. 4.9), odometry (eq. 4.8), ground
// truth; humans. Implements §2.2 (eqs. 4.2–4.7 and collision response), §2.3–2.5 and §3.4. Order
// within a step: humans move (pushing robots), then each robot in id order (motors, arc,
// collision), then odometry, then every beam is cast against the final positions.
class World {
 public:
  World(Environment environment, WorldOptions options);

  // Adds a robot at `pose` (its odometry starts there) and returns its id (0, 1, ...). Throws
  // std::invalid_argument if the robot would overlap an object or another body.
  int AddRobot(const Pose2& pose, const RobotOptions& options = {});

  void Step(double dt, std::span<const RobotInput> inputs, StepOutput* out);
  StepOutput Step(double dt, std::span<const RobotInput> inputs);

  // Whether a circle would touch a body-solid object, a robot (other than `ignore_robot`) or a
  // human (other than `ignore_human`).
  bool CircleBlocked(const Vec2& center, double radius, int ignore_robot, int ignore_human) const;
  // The same for a robot body (a circle body uses CircleBlocked exactly).
  bool BodyBlocked(const PlacedBody& body, int ignore_robot, int ignore_human) const;
  // A robot's body where it stands.
  PlacedBody Placed(const RobotState& robot) const;

  const Environment& environment() const { return env_; }
  const WorldState& state() const { return state_; }
  WorldState* mutable_state() { return &state_; }
  const SegmentIndex& segments() const { return index_; }
  const std::vector<RangeBeam>& beam_layout(int robot_id) const { return layouts_[robot_id]; }

 private:
  void StepHumans(double dt, std::span<const RobotInput> inputs);
  void StepRobot(double dt, const RobotInput& input, RobotState* robot, RobotOutput* out);
  void CastBeams(const RobotState& robot, RangeScan* scan);
  // Contact points of a robot body with everything it overlaps; `*robot_points` (if given) receives how
  // many of them are with other robots.
  void Contacts(const PlacedBody& body, int ignore_robot, std::vector<Vec2>* points, int* robot_points = nullptr) const;

  Environment env_;
  WorldOptions options_;
  SegmentIndex index_;
  std::vector<std::vector<RangeBeam>> layouts_;
  std::vector<std::vector<Vec2>> local_dirs_;  // unit beam directions in the robot frame
  std::vector<size_t> long_range_beams_;       // beams before this index are long-range (no floor objects)
  std::vector<double> beam_reach_;             // max over the robot's beams of |origin| + d_max (m)
  WorldState state_;
  std::vector<Vec2> scratch_points_;
  std::vector<const RobotState*> scratch_nearby_;  // CastBeams: the other robots its beams may reach
};

}  // namespace limbic::sim
