#include "services/recruiter/robot_agent.hpp"

#include <cmath>
#include <limits>
#include <stdexcept>

namespace limbic::recruit {
namespace {

RecruiterOptions WithRole(RecruiterOptions o, const AgentOptions& a) {
  o.speed = a.speed;
  if (a.uav) o.percepts.clear();  // the requester cannot inspect the mine itself
  return o;
}

// Moves `from` towards `to` by at most `step`.
Position Toward(Position from, Position to, double step) {
  const double d = Distance(from, to);
  if (d <= step || d == 0.0) return to;
  const double f = step / d;
  return {from.x + f * (to.x - from.x), from.y + f * (to.y - from.y)};
}

}  // namespace

RobotAgent::RobotAgent(const AgentOptions& options)
    : options_(options), recruiter_(options.id, WithRole(options.recruiter, options)), position_(options.start) {
  if (!(options.arrival_radius > 0.0)) throw std::invalid_argument("arrival_radius must be positive");
  if (!std::isfinite(options.start.x) || !std::isfinite(options.start.y))
    throw std::invalid_argument("start position must be finite");
  next_request_s_ = options.first_request_s;
  recruiter_.SetPosition(position_);
}

std::vector<Message> RobotAgent::Step(double now_s) {
  const double dt = last_step_s_ ? std::max(0.0, now_s - *last_step_s_) : 0.0;
  last_step_s_ = now_s;
  if (options_.uav) {
    for (const Episode& e : recruiter_.TakeCompletedEpisodes()) {
      episodes_.push_back(e);
      if (e.after_lapse) continue;  // a replacement at the same site: the UAV has flown on already
      const size_t k = completed_++;
      const double pause = k < options_.pauses_after_s.size() ? options_.pauses_after_s[k] : options_.pause_after_s;
      next_request_s_ = now_s + pause;
      hovering_ = false;  // fly on to the next waypoint after the pause
      if (!options_.waypoints.empty()) waypoint_ = (waypoint_ + 1) % options_.waypoints.size();
    }
    const bool idle = recruiter_.requester_state() == RequesterState::kIdle;
    const bool more = options_.episodes == 0 || requested_ < options_.episodes;
    if (idle && more && now_s + 1e-9 >= next_request_s_) {
      if (!hovering_ && !options_.waypoints.empty()) {
        const Position target = options_.waypoints[waypoint_];
        position_ = Toward(position_, target, options_.speed * dt);
        hovering_ = Distance(position_, target) < 1e-9;
      } else {
        hovering_ = true;
      }
      if (hovering_ && recruiter_.RequestHelp(options_.percept, position_, now_s)) ++requested_;
    }
  } else if (auto dest = recruiter_.destination()) {
    if (Distance(position_, *dest) > options_.arrival_radius) position_ = Toward(position_, *dest, options_.speed * dt);
    recruiter_.SetPosition(position_);
    if (Distance(position_, *dest) <= options_.arrival_radius + 1e-9) recruiter_.NotifyArrived(now_s);
  }
  recruiter_.SetPosition(position_);
  recruiter_.Tick(now_s);
  std::vector<Message> out = recruiter_.TakeOutbox();
  for (const Message& m : out) ++transmissions_[static_cast<size_t>(m.type)];
  if (options_.uav) {
    for (const Episode& e : recruiter_.TakeCompletedEpisodes()) episodes_.push_back(e);
  }
  return out;
}

AgentTelemetry RobotAgent::Telemetry(double now_s) const {
  AgentTelemetry t;
  t.robot_id = options_.id;
  t.role = options_.uav ? "uav" : "ugv";
  t.strategy = StrategyName(recruiter_.options().strategy);
  t.position = position_;
  t.shame = recruiter_.shame().state().shame;
  t.shame_now = recruiter_.shame().ShameAt(now_s);
  t.threshold = recruiter_.options().shame.threshold;
  t.responder_state = ResponderStateName(recruiter_.responder_state());
  t.requester_state = RequesterStateName(recruiter_.requester_state());
  t.last_decision = recruiter_.last_decision() ? DecisionName(recruiter_.last_decision()->decision) : "";
  const RecruiterCounters& c = recruiter_.counters();
  t.helps_received = c.helps_received;
  t.helps_ignored = c.helps_ignored;
  t.accepts_sent = c.accepts_sent;
  t.times_recruited = c.times_recruited;
  t.episodes_completed = episodes_.size();
  t.last_wait_s =
      episodes_.empty() ? std::numeric_limits<double>::quiet_NaN() : episodes_.back().end_s - episodes_.back().start_s;
  t.transmissions = transmissions_;
  t.malformed = c.malformed;
  t.out_of_order = c.out_of_order;
  t.duplicates = c.duplicates;
  t.restarts = c.restarts;
  t.lease_lapses = c.lease_lapses;
  return t;
}

}  // namespace limbic::recruit
