#include "services/hwio/watchdog.hpp"

#include <cmath>
#include <stdexcept>
#include <string>

namespace limbic::hwio {

Watchdog::Watchdog(WatchdogOptions options) : options_(options) {
  if (!(options_.timeout > 0.0) || !std::isfinite(options_.timeout)) {
    throw std::invalid_argument("Watchdog: timeout must be positive and finite, got " +
                                std::to_string(options_.timeout));
  }
}

void Watchdog::OnCommand(double stamp) {
  if (!std::isfinite(stamp)) return;
  if (!state_.last_fresh_stamp || stamp > *state_.last_fresh_stamp) state_.last_fresh_stamp = stamp;
}

bool Watchdog::Fresh(double now) const {
  if (!options_.enabled) return true;
  return state_.last_fresh_stamp.has_value() && now - *state_.last_fresh_stamp < options_.timeout;
}

WatchdogOutput Watchdog::Gate(double now, const WheelCommand& wheels) {
  WatchdogOutput out;
  if (Fresh(now)) {
    out.wheels = wheels;
    state_.tripped = false;
    return out;
  }
  out.stale = true;
  ++state_.stale_outputs;
  if (!state_.tripped && state_.last_fresh_stamp.has_value()) {
    out.tripped_now = true;
    ++state_.trips;
  }
  state_.tripped = state_.last_fresh_stamp.has_value();
  return out;  // zero wheels
}

}  // namespace limbic::hwio
