// One robot of a live recruitment team (spec affective-recruitment §9.2 robot_node): its Recruiter, its
// motion (a UGV drives to the site while EN_ROUTE; the UAV flies between waypoints and asks for help at
// each one), and the telemetry an operator sees. Transport-free: the service feeds it received
// messages and the time, and transmits what Step() returns.
#pragma once

#include <string>
#include <vector>

#include "services/recruiter/recruiter.hpp"

namespace limbic::recruit {

struct AgentOptions {
  RobotId id = 1;
  bool uav = false;  // requester (no percepts) instead of a UGV
  Position start;
  double speed = 1.0;  // units per second
  RecruiterOptions recruiter;
  double arrival_radius = 0.5;
  // UAV: waypoints visited in a cycle; at each one it hovers and asks for help, then flies on.
  std::vector<Position> waypoints;
  double first_request_s = 2.0;  // the first HELP (at the start position when there are no waypoints)
  double pause_after_s = 10.0;   // after a completed recruitment, before flying on
  // Per completed recruitment k (0-based), its own pause instead of pause_after_s (past the end:
  // pause_after_s). `limbic recruit crosscheck` replays the lockstep UAV's schedule with it.
  std::vector<double> pauses_after_s;
  int episodes = 0;  // stop asking after this many (0: never stop)
  std::string percept = "polar_range";
};

// What RecruitState carries.
struct AgentTelemetry {
  RobotId robot_id = 0;
  std::string role, strategy;
  Position position;
  double shame = 0, shame_now = 0, threshold = 0;
  std::string responder_state, requester_state, last_decision;
  uint64_t helps_received = 0, helps_ignored = 0, accepts_sent = 0, times_recruited = 0;
  uint64_t episodes_completed = 0;
  double last_wait_s = 0.0;  // NaN before the first episode
  std::vector<uint64_t> transmissions = std::vector<uint64_t>(kMsgTypeCount, 0);
  uint64_t malformed = 0, out_of_order = 0, duplicates = 0, restarts = 0, lease_lapses = 0;
};

class RobotAgent {
 public:
  // Throws std::invalid_argument for bad options (see Recruiter; speed and radius must be positive).
  explicit RobotAgent(const AgentOptions& options);

  void OnMessage(const Message& m, double now_s) { recruiter_.OnMessage(m, now_s); }
  // Advances motion to `now_s`, runs the UAV's schedule and the protocol timers; returns what to send.
  std::vector<Message> Step(double now_s);

  AgentTelemetry Telemetry(double now_s) const;
  const Recruiter& recruiter() const { return recruiter_; }
  const std::vector<Episode>& episodes() const { return episodes_; }

 private:
  AgentOptions options_;
  Recruiter recruiter_;
  Position position_;
  std::optional<double> last_step_s_;
  size_t waypoint_ = 0;
  bool hovering_ = true;
  double next_request_s_ = 0.0;
  int requested_ = 0;
  size_t completed_ = 0;
  std::vector<Episode> episodes_;
  std::vector<uint64_t> transmissions_ = std::vector<uint64_t>(kMsgTypeCount, 0);
};

}  // namespace limbic::recruit
