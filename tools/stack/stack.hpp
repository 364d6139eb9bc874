// One robot's whole stack as a list of services: simulator (the lockstep clock), hwio, mapper,
// planner, affect, controller and mission. Runs in one process on one thread over the in-memory bus
// (experiments) or is written out as a launch file's command lines (separate processes over ipc/tcp).
#pragma once

#include <atomic>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "common/runtime/in_process.hpp"
#include "tools/bag/bag_writer.hpp"
#include "tools/stack/recorder.hpp"

namespace limbic::stack {

struct StackSpec {
  char set = 'B';
  int index = 0;
  uint64_t env_seed = 1;  // as limbic-sim and the experiment definitions
  uint64_t seed = 1;      // run seed: noise, humans, wander
  std::string robot = "r1";
  // A team in one world (issue 18): robots r1..rN, each with its own hwio, mapper, planner, affect,
  // controller and mission under its namespace; one simulator. 1: the single robot named `robot`. Starts
  // and goals: sim::PlaceTeam unless options set simulator.starts / simulator.goals. With N > 1 each
  // robot's mission writes its own metrics file (MetricsCsvFor); the recorder follows robot r1 only.
  int robots = 1;
  // Issue 18 item 2: each robot's description (configs/robots name or .yaml path), one for all or one per robot;
  // empty: MARVIN. Passed to the simulator (bodies), hwio (robot.body), mapper, affect and controller (body).
  std::vector<std::string> bodies;
  // Issue 19 item 5, mixed crowds: each robot's navigator, one for all or one per robot; empty: hybrid.
  // "hybrid" runs the mapper, planner, affect and controller; "crowd" runs limbic-crowd-nav (b_nav and the
  // emotion table) in their place, and the stack gains one crowd_sense for the team (who sees whom). Options
  // come as "crowd_nav.key=value" (every crowd robot) and "crowd_sense.key=value".
  std::vector<std::string> navigators;
  // Issue 18 item 4: heterogeneous exploration. Every robot's mission runs in explore mode (it drives the tasks
  // of the exploration task manager) and the stack gains one `explore_manager` (a lockstep participant) for the
  // team; its options come as "explore_manager.key=value" in `options`. iterations is then unused.
  bool explore = false;
  int iterations = 1;
  std::string affect_config = "affective";
  std::vector<std::string> affect_overrides;  // key.path=value on the affect configuration
  // Further options per service, "service.key=value" (e.g. "mapper.prebuilt_map=true").
  std::vector<std::string> options;
  std::string run_id = "run";
  std::string configuration = "";  // label in the metrics (default: affect_config)
  std::string metrics_csv;         // mission appends one row per traversal
  int64_t max_ticks = -1;          // safety stop (-1: until the mission ends the run)
  double period_s = 0.1;
  // In-process runs only: when set, a `recorder` participant collects the run's results into it
  // (what it records besides the metrics: `recorder_options`). Ignored by StackCommands.
  std::shared_ptr<Recording> recording;
  RecorderOptions recorder_options;
  // In-process team runs only (issue 18 item 1): a recorder for each further robot (r2..rN, by name; robots
  // not named here are not recorded). It collects that robot's metrics per traversal, its contact cycles and
  // the paths of its failed traversals (`team_recorder_options`); `recording` stays robot r1's.
  std::map<std::string, std::shared_ptr<Recording>> team_recordings;
  RecorderOptions team_recorder_options;
  // In-process runs only: when set, every message of the run is written to this MCAP recording (a
  // `bag_recorder` host that is no lockstep participant; closed when the run ends). Ignored by StackCommands.
  std::shared_ptr<bag::BagWriter> bag;
  // In-process runs only (tests): adjusts the services before they run, e.g. wraps one so that its
  // step throws. Ignored by StackCommands.
  std::function<void(std::vector<runtime::HostedService>&)> customize;
};

// Robot i's navigator (NavigatorOf: "hybrid" or "crowd"); throws config::ConfigError for another name or a
// list whose length is neither 1 nor the number of robots.
std::string NavigatorOf(const StackSpec& spec, size_t robot_index);
bool HasCrowdRobots(const StackSpec& spec);

// The robot names of the stack: {robot} alone, or r1..rN for a team. Throws config::ConfigError for robots < 1.
std::vector<std::string> RobotNames(const StackSpec& spec);
// Robot `robot`'s own seed (issue 18 item 1): the run seed for the first robot (so a team's r1, like a single
// robot, runs with the run seed), and sim::DeriveSeed(run seed, k) for robot k ≥ 2 of a team (r2: k = 2), so no
// two robots share a wander generator. It seeds the controller's wander generator; the simulator derives each
// robot's motor, range and odometry noise from the run seed and the robot's index itself (sim::World).
uint64_t RobotSeed(const StackSpec& spec, size_t robot_index);
// Where `robot`'s mission appends its rows: spec.metrics_csv for a single robot; for a team the same path
// with "-<robot>" before its extension (run.csv -> run-r2.csv), so processes never share a file.
std::string MetricsCsvFor(const StackSpec& spec, const std::string& robot);

// The services and their options for one lockstep run.
std::vector<runtime::HostedService> BuildStack(const StackSpec& spec);
// The lockstep participants of that stack (with "<robot>/recorder" when spec.recording is set).
std::vector<std::string> Participants(const StackSpec& spec);
// Command lines (argv) for running the same stack as separate processes on `bus`.
std::vector<std::pair<std::string, std::vector<std::string>>> StackCommands(const StackSpec& spec,
                                                                            const std::string& bin_dir,
                                                                            const std::string& bus);

// Runs the stack in one process, in lockstep on the calling thread over a bus::LocalBus (the
// broker's checks and counts without sockets), until the mission ends the run (or `stop` becomes
// true: the run is abandoned). Returns 0 on success. Thread-safe: parallel runs in one process each
// get their own bus.
int RunInProcess(const StackSpec& spec);
int RunInProcess(const StackSpec& spec, const std::atomic<bool>& stop);
// As above; `*error` receives why the run failed ("" if it did not): a step that threw ends a lockstep
// run (issue 15), e.g. "step r1/controller failed at tick 12: ControlParameters.n_theta ...".
int RunInProcess(const StackSpec& spec, const std::atomic<bool>& stop, std::string* error);

}  // namespace limbic::stack
