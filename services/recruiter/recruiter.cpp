#include "services/recruiter/recruiter.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace limbic::recruit {
namespace {

// Timers fire when `now` reaches the deadline; times built from tick counts carry rounding errors
// of ~1e-15 s, so a deadline of 5.0 must fire at a clock reading of 4.999999999999.
constexpr double kTimeEpsilon = 1e-6;
bool Reached(double now_s, double deadline_s) { return now_s + kTimeEpsilon >= deadline_s; }

}  // namespace

Strategy ParseStrategy(const std::string& text) {
  if (text == "affective") return Strategy::kAffective;
  if (text == "greedy") return Strategy::kGreedy;
  if (text == "random") return Strategy::kRandom;
  throw std::invalid_argument("unknown strategy '" + text + "' (affective, greedy, random)");
}

const char* StrategyName(Strategy s) {
  switch (s) {
    case Strategy::kAffective:
      return "affective";
    case Strategy::kGreedy:
      return "greedy";
    case Strategy::kRandom:
      return "random";
  }
  return "?";
}

SelectionWindow ParseSelectionWindow(const std::string& text) {
  if (text == "first_plus_grace") return SelectionWindow::kFirstPlusGrace;
  if (text == "full_window") return SelectionWindow::kFullWindow;
  throw std::invalid_argument("unknown selection window '" + text + "' (first_plus_grace, full_window)");
}

const char* RequesterStateName(RequesterState s) {
  switch (s) {
    case RequesterState::kIdle:
      return "IDLE";
    case RequesterState::kWaitAccept:
      return "WAIT_ACCEPT";
    case RequesterState::kWaitArrival:
      return "WAIT_ARRIVAL";
    case RequesterState::kWaitAckAck:
      return "WAIT_ACKACK";
    case RequesterState::kLeased:
      return "LEASED";
  }
  return "?";
}

const char* ResponderStateName(ResponderState s) {
  switch (s) {
    case ResponderState::kAvailable:
      return "AVAILABLE";
    case ResponderState::kPending:
      return "PENDING";
    case ResponderState::kEnRoute:
      return "EN_ROUTE";
    case ResponderState::kWaitAgree:
      return "WAIT_AGREE";
    case ResponderState::kOnTask:
      return "ON_TASK";
  }
  return "?";
}

Recruiter::Recruiter(RobotId id, const RecruiterOptions& options)
    : id_(id), options_(options), shame_(options.shame), rng_(options.seed) {
  if (id == kNoRecipient) throw std::invalid_argument("robot id 4294967295 is reserved for 'no recipient'");
  for (double v : {options.help_retry_s, options.other_timeout_s, options.pending_timeout_s,
                   options.wait_agree_timeout_s, options.lease_s, options.speed}) {
    if (!std::isfinite(v) || v <= 0.0)
      throw std::invalid_argument("recruiter timeouts, lease and speed must be positive numbers");
  }
  if (!std::isfinite(options.accept_grace_s) || options.accept_grace_s < 0.0)
    throw std::invalid_argument("accept_grace_s must be a non-negative number");
  if (options.lease_renewals < 0) throw std::invalid_argument("lease_renewals must be >= 0");
  if (!std::isfinite(options.task_s) || options.task_s < 0.0)
    throw std::invalid_argument("task_s must be a non-negative number");
  if (options.strategy == Strategy::kAffective && !shame_.GuaranteesResponse(options.help_retry_s))
    throw std::invalid_argument(
        "affective strategy needs c > k(Δ): an available robot would never be "
        "guaranteed to answer (spec §3.4)");
}

// --- Requester ------------------------------------------------------------------------------------

bool Recruiter::RequestHelp(const std::string& percept, Position location, double now_s,
                            std::optional<double> threshold_override) {
  if (requester_.state != RequesterState::kIdle) return false;
  RequesterData& r = requester_;
  r.percept = percept;
  r.location = location;
  r.threshold_override = threshold_override;
  r.after_lapse = false;
  StartEpisode(now_s);
  return true;
}

void Recruiter::StartEpisode(double now_s) {
  RequesterData& r = requester_;
  ++r.episode_counter;
  r.request_id = (static_cast<uint64_t>(id_) << 32) | r.episode_counter;
  r.episode_start_s = now_s;
  r.helps = 0;
  r.restarts = 0;
  r.candidates.clear();
  r.choose_at_s.reset();
  r.state = RequesterState::kWaitAccept;
  SendHelp(now_s);
}

void Recruiter::SendHelp(double now_s) {
  RequesterData& r = requester_;
  ++r.helps;
  Message help = MakeHelp(id_, r.percept, r.location, static_cast<uint16_t>(std::min(r.helps, 65535)));
  help.threshold_override = r.threshold_override;
  Send(help, now_s, r.request_id);
  r.help_deadline_s = now_s + options_.help_retry_s;
}

void Recruiter::Restart(double now_s) {
  // §2.3: "time out and start the protocol from the beginning"; the episode clock keeps running.
  ++requester_.restarts;
  ++counters_.restarts;
  requester_.candidates.clear();
  requester_.choose_at_s.reset();
  requester_.state = RequesterState::kWaitAccept;
  SendHelp(now_s);
}

void Recruiter::Choose(double now_s) {
  RequesterData& r = requester_;
  r.choose_at_s.reset();
  if (r.candidates.empty()) return;
  Candidate winner = r.candidates.front();
  if (options_.strategy == Strategy::kRandom) {
    // §4.2: uniform over the replies, from this robot's seeded generator.
    std::uniform_int_distribution<size_t> pick(0, r.candidates.size() - 1);
    winner = r.candidates[pick(rng_)];
  } else {
    // §2.4: least ETA; ties broken by the lower robot id [I §10 item 34].
    for (const Candidate& c : r.candidates) {
      if (c.eta_s < winner.eta_s || (c.eta_s == winner.eta_s && c.id < winner.id)) winner = c;
    }
  }
  r.winner = winner.id;
  Send(MakeResponder(id_, winner.id), now_s, r.request_id);
  r.state = RequesterState::kWaitArrival;
  // §10 item 17: the 15 s cannot include the travel, so the deadline is ETA + 15 s.
  r.deadline_s = now_s + winner.eta_s + options_.other_timeout_s;
}

std::vector<Episode> Recruiter::TakeCompletedEpisodes() {
  std::vector<Episode> out;
  out.swap(completed_);
  return out;
}

void Recruiter::OnAccept(const Message& m, double now_s) {
  RequesterData& r = requester_;
  if (m.request_id != r.request_id || r.state == RequesterState::kIdle) {
    ++counters_.out_of_order;
    return;
  }
  if (r.state != RequesterState::kWaitAccept) {
    ++counters_.late_accepts;  // §2.4 [I]: an ACCEPT after RESPONDER is ignored
    return;
  }
  // ACCEPTs answering any earlier HELP of this episode count [D].
  auto it =
      std::find_if(r.candidates.begin(), r.candidates.end(), [&](const Candidate& c) { return c.id == m.sender; });
  if (it != r.candidates.end()) {
    it->eta_s = m.eta_s;
  } else {
    r.candidates.push_back({m.sender, m.eta_s});
  }
  if (!r.choose_at_s) {
    r.choose_at_s =
        options_.selection == SelectionWindow::kFirstPlusGrace ? now_s + options_.accept_grace_s : r.help_deadline_s;
  }
}

void Recruiter::OnArrival(const Message& m, double now_s) {
  RequesterData& r = requester_;
  if (r.state == RequesterState::kWaitArrival && m.request_id == r.request_id && m.sender == r.winner) {
    Send(MakeAgree(id_, r.winner), now_s, r.request_id);
    r.lease_s = m.lease_s;
    r.state = RequesterState::kWaitAckAck;
    r.deadline_s = now_s + options_.other_timeout_s;
    return;
  }
  if (r.state == RequesterState::kLeased && m.request_id == r.request_id && m.sender == r.winner) {
    // The responder renews its lease (§2.2): it is still there. Hold the new lease, or end the
    // recruitment once the leases cover the task.
    Send(MakeAgree(id_, r.winner), now_s, r.request_id);
    const double lease_end_s = now_s + m.lease_s;
    if (lease_end_s + kTimeEpsilon >= r.task_end_s) {
      r.state = RequesterState::kIdle;
    } else {
      r.deadline_s = lease_end_s + options_.other_timeout_s;
    }
    return;
  }
  if (r.last_completed && r.last_completed->first == m.request_id && r.last_completed->second == m.sender) {
    Send(MakeAgree(id_, m.sender), now_s, m.request_id);  // lease renewal (§2.2)
    return;
  }
  ++counters_.out_of_order;
}

void Recruiter::OnAckAck(const Message& m, double now_s) {
  RequesterData& r = requester_;
  if (r.state == RequesterState::kWaitAckAck && m.request_id == r.request_id && m.sender == r.winner) {
    completed_.push_back({.request_id = r.request_id,
                          .start_s = r.episode_start_s,
                          .end_s = now_s,
                          .responder = r.winner,
                          .helps = r.helps,
                          .restarts = r.restarts,
                          .after_lapse = r.after_lapse});
    r.last_completed = std::make_pair(r.request_id, r.winner);
    r.candidates.clear();
    // task_s: the task's clock starts with the first responder's ACKACK; a replacement serves the rest.
    if (!r.after_lapse) r.task_end_s = now_s + options_.task_s;
    const double lease_end_s = now_s + r.lease_s;
    if (lease_end_s + kTimeEpsilon >= r.task_end_s) {
      r.state = RequesterState::kIdle;
    } else {
      r.state = RequesterState::kLeased;
      r.deadline_s = lease_end_s + options_.other_timeout_s;
    }
    return;
  }
  if (r.last_completed && r.last_completed->first == m.request_id && r.last_completed->second == m.sender) return;
  ++counters_.out_of_order;
}

// --- Responder ------------------------------------------------------------------------------------

std::optional<Position> Recruiter::destination() const {
  if (responder_.state != ResponderState::kEnRoute) return std::nullopt;
  return responder_.site;
}

void Recruiter::OnHelp(const Message& m, double now_s) {
  ++counters_.helps_received;
  const bool eligible = options_.percepts.count(m.percept) > 0;
  if (!eligible) {
    ++counters_.helps_ineligible;  // rule A [I]: no reply, no accrual
    return;
  }
  if (responder_.state == ResponderState::kPending && responder_.requester == m.sender) {
    return;  // §2.5 [I]: a repeated request while PENDING: no new ACCEPT, no accrual
  }
  const bool can_answer = available();
  const double eta = Distance(position_, m.location) / options_.speed;
  Decision decision = can_answer ? Decision::kAccept : Decision::kIgnore;
  if (options_.strategy == Strategy::kAffective) {
    const ShameDecision d = shame_.OnHelp(now_s, true, can_answer, eta, m.threshold_override);
    last_decision_ = d;
    decision = d.decision;
  } else {
    last_decision_ = ShameDecision{.decision = decision};
  }
  if (decision != Decision::kAccept) {
    ++counters_.helps_ignored;
    return;
  }
  ++counters_.accepts_sent;
  Send(MakeAccept(id_, m.sender, eta), now_s, m.request_id);
  responder_.state = ResponderState::kPending;
  responder_.request_id = m.request_id;
  responder_.requester = m.sender;
  responder_.site = m.location;
  responder_.deadline_s = now_s + options_.pending_timeout_s;
}

void Recruiter::OnResponder(const Message& m, double now_s) {
  ResponderData& r = responder_;
  const bool mine = m.request_id == r.request_id && m.sender == r.requester;
  if (mine && r.state == ResponderState::kPending) {
    if (m.responder_id == id_) {
      ++counters_.times_recruited;
      r.state = ResponderState::kEnRoute;
    } else {
      r.state = ResponderState::kAvailable;  // "help is not needed" [D]
    }
    return;
  }
  if (mine && r.state == ResponderState::kEnRoute) {
    // After a requester restart another robot may be chosen for the same request: the explicit
    // "not needed" notice releases this one [I]; a repeat naming this robot changes nothing.
    if (m.responder_id != id_) r.state = ResponderState::kAvailable;
    return;
  }
  if (m.responder_id == id_) ++counters_.out_of_order;  // chosen, but not waiting for it
}

void Recruiter::NotifyArrived(double now_s) {
  if (responder_.state != ResponderState::kEnRoute) return;
  responder_.renewals_left = options_.lease_renewals;
  Send(MakeArrival(id_, responder_.requester, options_.lease_s), now_s, responder_.request_id);
  responder_.state = ResponderState::kWaitAgree;
  responder_.deadline_s = now_s + options_.wait_agree_timeout_s;
}

void Recruiter::OnAgree(const Message& m, double now_s) {
  ResponderData& r = responder_;
  if (r.state == ResponderState::kWaitAgree && m.request_id == r.request_id && m.sender == r.requester) {
    Send(MakeAckAck(id_, r.requester), now_s, r.request_id);
    r.state = ResponderState::kOnTask;
    r.deadline_s = now_s + options_.lease_s;
    return;
  }
  ++counters_.out_of_order;
}

// --- Both -----------------------------------------------------------------------------------------

bool Recruiter::SeenBefore(uint64_t msg_id) {
  if (!seen_.insert(msg_id).second) return true;
  seen_order_.push_back(msg_id);
  if (seen_order_.size() > options_.dedup_window) {
    seen_.erase(seen_order_.front());
    seen_order_.pop_front();
  }
  return false;
}

void Recruiter::OnMessage(const Message& m, double now_s) {
  ++counters_.received;
  if (Malformed(m)) {
    ++counters_.malformed;
    return;
  }
  if (m.sender == id_) {
    ++counters_.own_echoes;
    return;
  }
  if (m.recipient != kNoRecipient && m.recipient != id_) {
    ++counters_.not_for_me;
    return;
  }
  if (SeenBefore(m.msg_id)) {
    ++counters_.duplicates;
    return;
  }
  switch (m.type) {
    case MsgType::kHelp:
      OnHelp(m, now_s);
      break;
    case MsgType::kAccept:
      OnAccept(m, now_s);
      break;
    case MsgType::kResponder:
      OnResponder(m, now_s);
      break;
    case MsgType::kArrival:
      OnArrival(m, now_s);
      break;
    case MsgType::kAgree:
      OnAgree(m, now_s);
      break;
    case MsgType::kAckAck:
      OnAckAck(m, now_s);
      break;
  }
}

void Recruiter::Tick(double now_s) {
  RequesterData& q = requester_;
  switch (q.state) {
    case RequesterState::kIdle:
      break;
    case RequesterState::kWaitAccept:
      if (q.choose_at_s && Reached(now_s, *q.choose_at_s)) {
        Choose(now_s);
      } else if (q.candidates.empty() && Reached(now_s, q.help_deadline_s)) {
        ++counters_.help_retries;  // Δ without an ACCEPT: HELP again
        SendHelp(now_s);
      }
      break;
    case RequesterState::kWaitArrival:
    case RequesterState::kWaitAckAck:
      if (Reached(now_s, q.deadline_s)) Restart(now_s);
      break;
    case RequesterState::kLeased:
      if (Reached(now_s, q.deadline_s)) {
        // No renewal ARRIVAL within other_timeout_s of the lease's end: the responder is gone (killed,
        // out of range) or chose not to stay. The task is unfinished, so recruit again for the rest:
        // a new episode (new request_id), so stale messages of the old one stay out of order.
        ++counters_.lease_lapses;
        if (now_s + kTimeEpsilon >= q.task_end_s) {
          q.state = RequesterState::kIdle;
        } else {
          q.after_lapse = true;
          StartEpisode(now_s);
        }
      }
      break;
  }
  ResponderData& r = responder_;
  switch (r.state) {
    case ResponderState::kAvailable:
    case ResponderState::kEnRoute:
      break;
    case ResponderState::kPending:
    case ResponderState::kWaitAgree:
      if (Reached(now_s, r.deadline_s)) {
        ++counters_.responder_timeouts;
        r.state = ResponderState::kAvailable;
      }
      break;
    case ResponderState::kOnTask:
      if (Reached(now_s, r.deadline_s)) {
        if (r.renewals_left > 0) {
          --r.renewals_left;
          Send(MakeArrival(id_, r.requester, options_.lease_s), now_s, r.request_id);
          r.state = ResponderState::kWaitAgree;
          r.deadline_s = now_s + options_.wait_agree_timeout_s;
        } else {
          r.state = ResponderState::kAvailable;  // lease over: free to resume its own tasks [D]
        }
      }
      break;
  }
}

void Recruiter::Send(Message m, double now_s, uint64_t request_id) {
  m.request_id = request_id;
  m.msg_id = (static_cast<uint64_t>(id_) << 32) | ++sequence_;
  m.stamp_s = now_s;
  outbox_.push_back(std::move(m));
}

std::vector<Message> Recruiter::TakeOutbox() {
  std::vector<Message> out;
  out.swap(outbox_);
  return out;
}

}  // namespace limbic::recruit
