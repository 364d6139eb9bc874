// A crowd of b_nav robots in one process, in lockstep (issue 19): every robot decides from the state at tick k
// (its own pose, the neighbours it sees, their emotions at tick k), then all move. Discs with unicycle motion
// among static walls; the world decides visibility from the true poses (sim::VisibleNeighbours), counts
// collisions and deadlocks, and keeps the per-robot records the experiments report. For the experiments and the
// benchmark; the bus service runs the same per-robot step (CrowdRobot) on its own.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "common/geometry/geometry.hpp"
#include "services/crowd/bnav.hpp"
#include "services/crowd/emotions.hpp"
#include "services/crowd/neighbour_memory.hpp"

namespace limbic::crowd {

// Emotions off (base parameters, nothing shown), on (self-modulation and visible to neighbours), or on but
// invisible (self-modulation only: neighbours see no emotion, μ_nf = 0) — to separate self-modulation from
// coordination (issue 19 item 4).
enum class EmotionMode { kOff, kOn, kInvisible };
// "off", "on", "invisible"; EmotionModeFromName throws std::invalid_argument listing them.
const std::vector<std::string>& EmotionModeNames();
EmotionMode EmotionModeFromName(const std::string& name);
std::string EmotionModeName(EmotionMode mode);

// One robot's emotional and navigational step, shared by the in-process world and the bus service.
// Inputs: own true (or estimated) pose and velocity, target bookkeeping, the neighbours it sees with their
// emotions (-1: none or not visible). Outputs: the b_nav decision, μ, the new emotion state and the parameters used.
struct RobotView {
  geometry::Pose2 pose;
  double speed = 0.0;  // commanded speed at the previous tick (eq. 3 state)
  Vec2 velocity{0, 0};
  Vec2 target{0, 0};
  double time = 0.0, task_start = 0.0, minimal_time = 0.0;
  std::vector<Neighbour> neighbours;  // extra_margin is filled in by StepRobot from the emotions
  std::vector<int> neighbour_emotions;
  // The last `remembered` entries of `neighbours` are out of view, remembered (CrowdOptions::neighbour_memory):
  // obstacles for b_nav, not part of N(t) for μ_nf (their emotion entries must be -1).
  int remembered = 0;
  std::span<const geometry::Segment> walls;
};
struct RobotStep {
  BNavDecision decision;
  InternalState mu;
  BNavParams params;  // the modulated parameters b_nav ran with
};
// `emotion` holds the state of the previous tick on entry and of this tick on return. With kOff nothing is updated
// (active stays -1); with kInvisible neighbour_emotions are ignored.
RobotStep StepRobot(const EmotionTable& table, const BNavParams& base, EmotionMode mode, EfficacyScale scale,
                    RobotView view, double dt, EmotionState* emotion);

// What a robot does once it has reached its last target. The spec's agent never finishes (it picks the next
// target); an experiment needs an end. kLeave (default): it leaves the arena — no longer seen, no longer an
// obstacle — as agents at their exit do in crowd benchmarks. kStay: it parks on its target for the rest of the run,
// an obstacle that never yields; with targets packed 1 m apart (corridor, doorway) the first to arrive walls off
// the places behind it, whatever the navigation does.
enum class FinishedRobots { kLeave, kStay };

struct CrowdOptions {
  double dt = 0.1;                 // s, control period (T = 100 ms, as the rest of the stack)
  double goal_tolerance = 0.25;    // m, a target counts as reached within this distance
  double deadlock_timeout = 15.0;  // s: a robot that gets no `deadlock_progress` closer for this long is stuck
  double deadlock_progress = 0.2;  // m
  double time_limit = 120.0;       // s
  int record_every = 5;            // ticks between trajectory samples (0: no record)
  EmotionMode mode = EmotionMode::kOn;
  EfficacyScale efficacy_scale = EfficacyScale::kFraction;
  FinishedRobots finished = FinishedRobots::kLeave;
  // s: a robot keeps a neighbour that left its field of view as an obstacle for this long, at its last seen
  // position moved on with its last seen velocity (a tracker's persistence). 0 is the spec's plain reading (only
  // what is in view now); with it a robot that turns away from a neighbour loses sight of it, turns back towards
  // the gap it no longer sees, sees it again — a two-tick flicker that held robots face to face in the corridor
  // and the door for minutes.
  double neighbour_memory = 1.0;
};

// One robot of a scenario.
struct AgentSpec {
  geometry::Pose2 start;
  std::vector<Vec2> targets;  // visited in order; done after the last
  BNavParams params;          // its base parameters (radius, v_opt, …)
  int group = 0;              // for the report's colours
};

// A world and its robots.
struct Scenario {
  std::string name;
  std::vector<geometry::Segment> walls;
  std::vector<AgentSpec> agents;
};

struct AgentRecord {
  geometry::Pose2 pose;
  double speed = 0.0, omega = 0.0;
  Vec2 velocity{0, 0};
  size_t target_index = 0;
  double task_start = 0.0, minimal_time = 0.0;
  EmotionState emotion;
  InternalState mu;
  BNavParams params;
  bool done = false;
  double completion_time = -1;  // s, when the last target was reached (-1: not reached)
  double best_distance = 0.0, last_progress = 0.0;
  bool stuck = false;  // no progress for deadlock_timeout right now
  bool ever_stuck = false;
  int64_t robot_collisions = 0;  // contact events with other robots
  int64_t wall_collisions = 0;
  bool in_wall_contact = false;
  NeighbourMemory memory;  // neighbours seen within neighbour_memory (see CrowdOptions)
  int64_t ticks_active = 0;
  double efficacy_sum = 0.0;
  std::vector<int64_t> emotion_ticks;  // per emotion of the table, then "none"
};

struct TrajectorySample {
  double time = 0.0;
  std::vector<geometry::Pose2> poses;
  std::vector<int> emotions;
};

struct CrowdMetrics {
  bool all_done = false;
  double makespan = 0.0;                 // s, last completion (the time limit when some robot did not finish)
  std::vector<double> completion_times;  // s per robot (-1: not finished)
  int64_t robot_collisions = 0;          // robot–robot contact events (each pair event counted once)
  int64_t wall_collisions = 0;
  int deadlocked = 0;                     // robots that were stuck for deadlock_timeout at least once
  double mean_efficacy = 0.0;             // over every robot tick before its completion
  std::vector<double> emotion_fractions;  // per emotion, then "none": share of robot ticks before completion
};

class CrowdWorld {
 public:
  // Throws std::invalid_argument for a scenario with no robots, a robot without targets, invalid parameters,
  // overlapping starts or bad options.
  CrowdWorld(Scenario scenario, EmotionTable table, CrowdOptions options);

  void Step();
  bool Finished() const;
  // Steps until Finished().
  CrowdMetrics Run();
  CrowdMetrics Metrics() const;

  double time() const { return time_; }
  int64_t tick() const { return tick_; }
  const Scenario& scenario() const { return scenario_; }
  const EmotionTable& table() const { return table_; }
  const std::vector<AgentRecord>& agents() const { return agents_; }
  const std::vector<TrajectorySample>& trajectory() const { return trajectory_; }

 private:
  void Record();

  Scenario scenario_;
  EmotionTable table_;
  CrowdOptions options_;
  std::vector<AgentRecord> agents_;
  std::vector<std::vector<char>> touching_;  // pairs in contact after the last step
  std::vector<TrajectorySample> trajectory_;
  std::vector<RobotStep> steps_;  // scratch
  double time_ = 0.0;
  int64_t tick_ = 0;
};

// The experiments' worlds, seeded (start jitter ±5 cm and ±0.05 rad, v_opt × U[0.9, 1.1] per robot), all robots
// with `base` parameters otherwise.
// Antipodal swap: N robots evenly on a circle of radius max(3, N·(2r + 0.6)/2π), each to the opposite point.
Scenario AntipodalCircle(int n, uint64_t seed, const BNavParams& base);
// Two groups crossing a 3 m wide corridor: ⌈N/2⌉ from the west end to the east, the rest the other way, in
// columns of three 1 m apart.
Scenario CorridorCrossing(int n, uint64_t seed, const BNavParams& base);
// A doorway bottleneck: N robots in columns of five (1 m apart, from 2.5 m) west of a wall with a 1.2 m door, each
// to its mirror place east of it moved 6 m further east: a target just behind the wall is a local minimum for b_nav
// (no planner), not a bottleneck.
Scenario DoorwayBottleneck(int n, uint64_t seed, const BNavParams& base);
// "antipodal", "corridor", "doorway"; throws std::invalid_argument listing them (and for n < 1).
const std::vector<std::string>& ScenarioNames();
Scenario MakeScenario(const std::string& name, int n, uint64_t seed, const BNavParams& base);

}  // namespace limbic::crowd
