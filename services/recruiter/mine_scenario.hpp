// The mine-detection scenario of spec affective-recruitment §5 as a deterministic lockstep simulation
// (no sockets): one UAV raster-scans the grid and, at five stops (45, 110, 180, 70 s of travel apart),
// asks for help; two scanning UGVs are recruitable only during their 20 s end-of-scan pauses; 1–50
// idle UGVs stand at random positions. Every robot runs its own Recruiter; every message crosses the
// Radio. Robots may join or leave at given times. Every filled-in default of §5.1 is a named option.
//
// Inputs: ScenarioOptions (team, strategy, radio, timings, seeds).
// Outputs: ScenarioResult: M1 transmissions, M2 summed wait, per-robot recruit counts (M3), success
//   (M4), protocol counters, and optionally a timeline of transmissions and SHAME decisions.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "services/recruiter/radio.hpp"
#include "services/recruiter/recruiter.hpp"

namespace limbic::recruit {

// A boustrophedon over [x0,x1]×[y0,y1]: horizontal lanes `lane` apart, starting at (x0, y0) (§5.1 [I]).
struct RasterArea {
  double x0 = 0.0, x1 = 100.0, y0 = 0.0, y1 = 100.0;
  double lane = 10.0;
};

struct RobotSpec {
  enum class Role { kUav, kScanningUgv, kIdleUgv };
  RobotId id = 0;
  Role role = Role::kIdleUgv;
  Position start;               // idle UGVs (scanning robots start on their raster)
  double speed = 1.0;           // units per second (1 iteration = 1 s, §10 item 12)
  RasterArea area;              // UAV and scanning UGVs
  double start_progress = 0.0;  // arc length already covered on the raster at t = 0
};

struct ChurnEvent {
  double at_s = 0.0;
  RobotId robot = 0;
  bool join = false;  // false: the robot leaves (powers off: hears and sends nothing)
};

struct ScenarioOptions {
  RecruiterOptions recruiter;  // template for every UGV (strategy, SHAME, timeouts, lease)
  RadioOptions radio;
  double grid = 100.0;        // [D] 100 × 100
  double lane = 10.0;         // [I] lane spacing
  double uav_speed = 3.0;     // [D] units per iteration
  double ugv_speed = 1.0;     // [D]
  double end_pause_s = 20.0;  // [D] pause at the end of a raster, UAV and scanning UGVs
  // Travel before each stop [D 45, 110, 180, 70; I first 0]; with more episodes than entries the
  // intervals after the first repeat (§10 item 27).
  std::vector<double> stop_intervals_s{0.0, 45.0, 110.0, 180.0, 70.0};
  int episodes = 5;  // [D] 5; fairness 25
  int idle_ugvs = 10;
  int scanning_ugvs = 2;        // [D] two, over the halves x ∈ [0,50] and [50,100] [I]
  uint64_t config_seed = 1;     // idle UGV placement (the "starting configuration")
  double arrival_radius = 0.5;  // [I]
  double tick_s = 0.1;          // lockstep step (s); the protocol timers resolve to it
  double time_cap_s = 20000.0;  // a simulation still unfinished then is a failure (M4)
  std::string percept = "polar_range";
  double uav_start_progress = 0.0;
  std::vector<RobotSpec> robots;  // explicit team (use cases); replaces the generated one when not empty
  std::vector<ChurnEvent> churn;
  bool record_timeline = false;
};

// Builds the team of §5.1 from the options: UAV id 0, scanning UGVs 1..S, idle UGVs S+1..S+N.
std::vector<RobotSpec> BuildTeam(const ScenarioOptions& options);

struct TimelineEvent {
  enum class Kind { kTransmit, kIgnore, kAccept, kEpisodeEnd };
  double t_s = 0.0;
  Kind kind = Kind::kTransmit;
  RobotId robot = 0;
  MsgType type = MsgType::kHelp;
  RobotId other = kNoRecipient;  // recipient, or the chosen robot of a RESPONDER
  double shame = 0.0;            // SHAME after the decision (kIgnore / kAccept)
  Position position;
};

struct ScenarioResult {
  std::vector<RobotSpec> team;
  std::vector<Position> final_positions;  // same order as team
  RadioCounts counts;
  uint64_t messages = 0;    // M1: every attempted protocol transmission
  double wait_total_s = 0;  // M2: sum over episodes of ACKACK time − first HELP time
  std::vector<Episode> episodes;
  std::map<RobotId, int> recruit_counts;  // M3 ν_i for every UGV (zeros included)
  std::vector<RobotId> idle_ugvs;         // the k robots of the bias (§10 item 27: scanning ones excluded)
  bool success = false;                   // M4: all episodes completed before the cap
  double end_s = 0.0;
  RecruiterCounters totals;  // summed over robots
  std::vector<TimelineEvent> timeline;
};

// Runs one simulation. Throws std::invalid_argument for inconsistent options (no episodes, tick ≤ 0,
// duplicate robot ids, no UAV).
ScenarioResult RunMineScenario(const ScenarioOptions& options);

}  // namespace limbic::recruit
