// Stops the wheels when the inputs that justify moving go stale (issue 3: the hwio watchdog).
#pragma once

#include <cstdint>
#include <optional>

#include "common/types/sensing.hpp"

namespace limbic::hwio {

struct WatchdogOptions {
  double timeout = 0.3;  // s: a command is fresh while its age is below this (issue 3: 300 ms)
  // Realtime: true. Lockstep: false — commands arrive by tick, so age is meaningless and the gate passes
  // everything through (it never trips).
  bool enabled = true;
};

struct WatchdogState {
  std::optional<double> last_fresh_stamp{};  // time of the newest command seen (s)
  bool tripped = false;                      // the last Gate() output zero wheels because of staleness
  int64_t trips = 0;                         // transitions from fresh (or never-armed) → tripped after a command
  int64_t stale_outputs = 0;                 // Gate() calls that forced zero wheels
};

struct WatchdogOutput {
  WheelCommand wheels{};     // the input wheels, or zeros when stale
  bool stale = false;        // no command yet, or the newest command is at least `timeout` old
  bool tripped_now = false;  // this call is the first stale one after a fresh command
};

// Dead-man gate on a stream of time-stamped commands.
//
// Inputs:  OnCommand(stamp) for every command received (stamp on the same clock as `now`: in realtime use
//          the receive time, which is immune to clock skew between hosts); Gate(now, wheels) once per cycle.
// Outputs: the wheels, or zero wheels when no command newer than `timeout` exists
//          (fresh ⇔ now − stamp < timeout; it trips exactly when the age reaches `timeout`).
//          Re-arms on the next fresh command. Before the first command the output is zero but that does not
//          count as a trip.
class Watchdog {
 public:
  // Throws std::invalid_argument when timeout ≤ 0.
  explicit Watchdog(WatchdogOptions options = {});

  // Records a command. Older stamps than one already seen do not move the stamp back.
  void OnCommand(double stamp);
  WatchdogOutput Gate(double now, const WheelCommand& wheels);
  // True when a command newer than `timeout` exists at `now` (always true when disabled).
  bool Fresh(double now) const;

  const WatchdogOptions& options() const { return options_; }
  const WatchdogState& state() const { return state_; }

 private:
  WatchdogOptions options_;
  WatchdogState state_;
};

}  // namespace limbic::hwio
