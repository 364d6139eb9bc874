// One robot's recruiter (spec affective-recruitment §2.4, §2.5, §9.6): the requester state machine
// (HELP every Δ until an ACCEPT, choose, RESPONDER, lease handshake, 15 s restarts) and the
// candidate/responder state machine (strategy decides ACCEPT or silence, PENDING, EN_ROUTE,
// WAIT_AGREE, ON_TASK, never pre-empted), with every timeout. The same protocol serves the affective,
// greedy and random strategies; they differ only in whether a candidate answers and how the requester
// chooses (§2).
//
// Transport-free and clock-injected: the owner calls OnMessage() for every message it receives,
// Tick() as time passes, and sends what TakeOutbox() returns. Movement is the owner's: it reads
// destination() while EN_ROUTE and calls NotifyArrived() at the site.
//
// Inputs: received messages (validated; malformed, duplicate, foreign, late and out-of-order ones are
//   counted and ignored), the time, the robot's position and own-task state.
// Outputs: messages to transmit, completed episodes (requester), telemetry (state, SHAME, counters).
#pragma once

#include <cstdint>
#include <deque>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <unordered_set>
#include <vector>

#include "services/recruiter/protocol.hpp"
#include "services/recruiter/shame.hpp"

namespace limbic::recruit {

// Responder behaviour and requester selection rule (§2, §4).
enum class Strategy { kAffective, kGreedy, kRandom };
Strategy ParseStrategy(const std::string& text);  // "affective" | "greedy" | "random"
const char* StrategyName(Strategy s);

// How long the requester collects ACCEPTs (§2.4, §10 item 4).
enum class SelectionWindow {
  kFirstPlusGrace,  // recommended: choose accept_grace_s after the first ACCEPT
  kFullWindow,      // alternative: always wait the full Δ after the latest HELP
};
SelectionWindow ParseSelectionWindow(const std::string& text);  // "first_plus_grace" | "full_window"

struct RecruiterOptions {
  Strategy strategy = Strategy::kAffective;
  ShameParams shame;
  double help_retry_s = 5.0;      // Δ [D]
  double other_timeout_s = 15.0;  // requester's "other message" timeout [D]
  double accept_grace_s = 0.5;    // [I]
  SelectionWindow selection = SelectionWindow::kFirstPlusGrace;
  double pending_timeout_s = 15.0;     // responder PENDING [I §10 item 16]
  double wait_agree_timeout_s = 15.0;  // responder WAIT_AGREE [I §10 item 16]
  double lease_s = 30.0;               // [I §10 item 15]
  int lease_renewals = 0;              // extra ARRIVAL/AGREE/ACKACK rounds on lease expiry (not in the experiments)
  // Requester: how long the task at the site needs a responder, from its ACKACK [I]. 0 (the experiments):
  // the first lease ends the recruitment. Longer: the requester holds the lease (LEASED) and expects a
  // renewal ARRIVAL by the end of each lease + other_timeout_s (§2.3: every transmission expects a reply);
  // without one the responder is presumed lost and the rest of the task is recruited for again.
  double task_s = 0.0;
  double speed = 1.0;                             // units per second: τ_i = D_i / v_i (§3.5)
  std::set<std::string> percepts{"polar_range"};  // what this robot can provide (exact match, §1.1)
  uint64_t seed = 1;                              // random selection draws
  size_t dedup_window = 256;                      // msg_ids remembered for duplicate detection
};

enum class RequesterState { kIdle, kWaitAccept, kWaitArrival, kWaitAckAck, kLeased };
enum class ResponderState { kAvailable, kPending, kEnRoute, kWaitAgree, kOnTask };
const char* RequesterStateName(RequesterState s);
const char* ResponderStateName(ResponderState s);

// One finished recruitment, seen by the requester.
struct Episode {
  uint64_t request_id = 0;
  double start_s = 0.0;  // first HELP (restarts do not reset it, §6 M2)
  double end_s = 0.0;    // ACKACK received (§10 item 18)
  RobotId responder = 0;
  int helps = 0;             // HELP transmissions in the episode
  int restarts = 0;          // 15 s restarts
  bool after_lapse = false;  // recruited again because the previous responder's lease lapsed (task_s)
};

// Everything counted; the "ignored" counters are what the robustness tests check.
struct RecruiterCounters {
  uint64_t received = 0;
  uint64_t own_echoes = 0;      // sender == self
  uint64_t not_for_me = 0;      // addressed to another robot
  uint64_t duplicates = 0;      // msg_id seen before
  uint64_t malformed = 0;       // Malformed() said why
  uint64_t out_of_order = 0;    // valid but unexpected in the current state / for another request
  uint64_t late_accepts = 0;    // ACCEPT after RESPONDER was sent (§2.4 [I])
  uint64_t helps_received = 0;  // HELPs evaluated (eligible or not)
  uint64_t helps_ineligible = 0;
  uint64_t helps_ignored = 0;  // eligible HELPs not answered
  uint64_t accepts_sent = 0;
  uint64_t times_recruited = 0;     // RESPONDER naming this robot
  uint64_t help_retries = 0;        // requester: HELP after Δ without ACCEPT
  uint64_t restarts = 0;            // requester: 15 s restarts
  uint64_t responder_timeouts = 0;  // PENDING or WAIT_AGREE expired
  uint64_t lease_lapses = 0;        // requester: no renewal by lease end + other_timeout_s (task_s)
};

class Recruiter {
 public:
  // Throws std::invalid_argument for options that break the protocol (non-positive timeouts, c ≤ k(Δ)
  // for the affective strategy: an available robot would never be guaranteed to answer, §3.4).
  Recruiter(RobotId id, const RecruiterOptions& options);

  // --- requester side ---
  // Starts an episode at `now_s`: HELP(percept, location) now and every Δ until an ACCEPT. Returns
  // false (and does nothing) if an episode is already in progress.
  bool RequestHelp(const std::string& percept, Position location, double now_s,
                   std::optional<double> threshold_override = std::nullopt);
  std::vector<Episode> TakeCompletedEpisodes();

  // --- responder side ---
  void SetPosition(Position p) { position_ = p; }
  Position position() const { return position_; }
  // Own task (e.g. a scanning UGV between its pauses): not available for recruitment.
  void SetBusyOwnTask(bool busy) { busy_own_task_ = busy; }
  bool busy_own_task() const { return busy_own_task_; }
  // Where to drive while EN_ROUTE.
  std::optional<Position> destination() const;
  // The owner reached destination() (within its arrival radius): sends ARRIVAL(lease).
  void NotifyArrived(double now_s);

  // --- both ---
  void OnMessage(const Message& message, double now_s);
  void Tick(double now_s);
  std::vector<Message> TakeOutbox();

  RobotId id() const { return id_; }
  RequesterState requester_state() const { return requester_.state; }
  ResponderState responder_state() const { return responder_.state; }
  // The robot can answer a HELP now (§2.5 AVAILABLE and not on its own task).
  bool available() const { return responder_.state == ResponderState::kAvailable && !busy_own_task_; }
  const ShameEngine& shame() const { return shame_; }
  const RecruiterCounters& counters() const { return counters_; }
  const RecruiterOptions& options() const { return options_; }
  // Outcome of the last HELP this robot evaluated (telemetry: who ignored, who is ashamed).
  const std::optional<ShameDecision>& last_decision() const { return last_decision_; }

 private:
  struct Candidate {
    RobotId id;
    double eta_s;
  };
  struct RequesterData {
    RequesterState state = RequesterState::kIdle;
    uint32_t episode_counter = 0;
    uint64_t request_id = 0;
    std::string percept;
    Position location;
    std::optional<double> threshold_override;
    double episode_start_s = 0.0;
    int helps = 0;
    int restarts = 0;
    double help_deadline_s = 0.0;       // next HELP (Δ timer)
    std::optional<double> choose_at_s;  // collection timer
    std::vector<Candidate> candidates;
    RobotId winner = 0;
    double deadline_s = 0.0;   // WAIT_ARRIVAL / WAIT_ACKACK / LEASED (lease end + 15 s)
    double lease_s = 0.0;      // the winner's offer (its ARRIVAL)
    double task_end_s = 0.0;   // LEASED: the task needs a responder until then
    bool after_lapse = false;  // this episode replaces a lapsed lease
    // Last completed episode, for lease renewals (ARRIVAL after ACKACK).
    std::optional<std::pair<uint64_t, RobotId>> last_completed;
  };
  struct ResponderData {
    ResponderState state = ResponderState::kAvailable;
    uint64_t request_id = 0;
    RobotId requester = 0;
    Position site;
    double deadline_s = 0.0;  // PENDING / WAIT_AGREE timeout, or lease end while ON_TASK
    int renewals_left = 0;
  };

  void Send(Message m, double now_s, uint64_t request_id);
  void SendHelp(double now_s);
  void Restart(double now_s);
  void StartEpisode(double now_s);
  void Choose(double now_s);
  void OnHelp(const Message& m, double now_s);
  void OnAccept(const Message& m, double now_s);
  void OnResponder(const Message& m, double now_s);
  void OnArrival(const Message& m, double now_s);
  void OnAgree(const Message& m, double now_s);
  void OnAckAck(const Message& m, double now_s);
  bool SeenBefore(uint64_t msg_id);

  RobotId id_;
  RecruiterOptions options_;
  ShameEngine shame_;
  std::mt19937_64 rng_;
  Position position_;
  bool busy_own_task_ = false;
  RequesterData requester_;
  ResponderData responder_;
  RecruiterCounters counters_;
  std::optional<ShameDecision> last_decision_;
  uint32_t sequence_ = 0;
  std::vector<Message> outbox_;
  std::vector<Episode> completed_;
  std::unordered_set<uint64_t> seen_;
  std::deque<uint64_t> seen_order_;
};

}  // namespace limbic::recruit
