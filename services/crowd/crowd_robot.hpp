// One crowd robot on its own (issue 19 item 5): what `limbic-crowd-nav` does every tick, without the bus — the
// neighbour memory it shares with the in-process world, goal bookkeeping (T_n, Δ_n), arrival, and a bad pose
// refused with a reason. wiring.cpp converts messages to these values and back.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "common/geometry/geometry.hpp"
#include "services/crowd/crowd_world.hpp"
#include "services/crowd/neighbour_memory.hpp"

namespace limbic::crowd {

// What the crowd robot publishes each tick on <robot>/crowd/state.
struct CrowdStateValues {
  RobotStep step;
  EmotionState emotion;
  std::string emotion_name;  // "" none
  bool visible = false;
  double radius = 0.0;
  int neighbours = 0;  // in view this tick (remembered ones not counted)
  int remembered = 0;  // out of view, kept by the memory
  bool has_goal = false;
};

struct CrowdNavigatorConfig {
  EmotionTable table;
  BNavParams base;
  EmotionMode mode = EmotionMode::kOn;
  double goal_tolerance = 0.25;   // m: stand still within this of the goal
  double neighbour_memory = 1.0;  // s (NeighbourMemory)
};

// What the robot senses in one tick: its neighbours in the world frame with their emotions (indices of the
// table, -1 none) and track ids (-1 unknown).
struct SensedNeighbours {
  std::vector<Neighbour> neighbours;
  std::vector<int> emotions;
  std::vector<int> ids;
};

class CrowdNavigator {
 public:
  // Throws std::invalid_argument for invalid parameters (ValidateParams) or options.
  explicit CrowdNavigator(CrowdNavigatorConfig config);

  // A new goal (another instruction id, or a goal after none) starts a task: T_n = now, Δ_n = distance / v_opt.
  // nullopt: no goal (stand still).
  void SetGoal(std::optional<Vec2> goal, int64_t instruction_id);
  void SetWalls(std::vector<geometry::Segment> walls) { walls_ = std::move(walls); }

  struct Command {
    double speed = 0.0, omega = 0.0;
    CrowdStateValues state;
    std::string fault;  // "" when the step went well; why the robot stands still otherwise
  };
  // One tick: `pose` and forward speed `v` from odometry (nullopt: none yet), `sensed` may be null (none
  // arrived). Without a goal or a pose, or within the goal tolerance, the command is zero.
  Command Step(double time, double dt, const std::optional<geometry::Pose2>& pose, double v,
               const SensedNeighbours* sensed);

  int64_t bad_steps() const { return bad_steps_; }
  const EmotionTable& table() const { return config_.table; }
  const NeighbourMemory& memory() const { return memory_; }

 private:
  CrowdNavigatorConfig config_;
  NeighbourMemory memory_;
  EmotionState emotion_;
  double speed_ = 0.0;
  std::optional<Vec2> goal_;
  int64_t goal_id_ = -1;
  bool new_goal_ = false;
  double task_start_ = 0.0, minimal_time_ = 0.0;
  std::vector<geometry::Segment> walls_;
  int64_t bad_steps_ = 0;
};

}  // namespace limbic::crowd
