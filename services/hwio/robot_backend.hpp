// The device boundary of hwio: one interface for the simulator link and for real hardware drivers.
//
// A backend moves raw data only. hwio owns everything else and runs, per control cycle:
//   frame = backend.Poll(now)                        raw scan, raw bumper contact, odometry (if new)
//   faults.Apply(now, frame.scan / frame.contact)    injected sensor and bumper faults
//   scan = median.Filter(frame.scan); event = collisions.Update(frame.contact)
//   ... on each velocity command: limited = limiter.Limit(cmd); watchdog.OnCommand(receive time)
//   out = watchdog.Gate(now, limited.wheels).wheels; faults.Apply(now, out)   actuator faults
//   backend.SendWheels(now, out)
//
// Contract for implementations:
//   - `now` is the caller's clock in seconds (simulated time in lockstep, wall time in realtime); a
//     backend never reads a clock of its own, so tests can drive it with chosen times.
//   - Poll never blocks; it returns a frame only when something new arrived since the last Poll, with
//     has_* telling which parts are new. The scan is raw (unfiltered) and the contact has new_event unset.
//   - SendWheels never throws on I/O failure; failures show in Status().
//   - Status(now).stale is true when the device has been silent for the backend's stale timeout; a
//     backend that is stale must itself keep its wheels at zero (SerialBackend sends zeros), because the
//     hwio command watchdog cannot see a dead sensor link.
// Implementations: SerialBackend (serial_backend.hpp); the simulation backend is wired over the bus in
// the hwio main (it fills SensorFrame from the simulator's raw ranges, bumpers and odometry topics).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "common/types/sensing.hpp"

namespace limbic::hwio {

// What a backend took in since its last Poll.
struct SensorFrame {
  double stamp = 0.0;  // the `now` of the Poll that produced it (s)
  bool has_scan = false;
  RangeScan scan{};  // raw ranges, fixed beam layout
  bool has_contact = false;
  CollisionEvent contact{};  // raw bumper state: occurred, switches, speed before; no contact point (hwio's
                             // CollisionEventDetector places it from the cycle's pose estimate)
  bool has_odometry = false;
  OdometryEstimate odometry{};  // odometry pose and velocities (from encoders or the simulator)
};

struct BackendStatus {
  bool connected = false;                  // the link is open and has not failed
  bool stale = true;                       // no data for the stale timeout (or none yet)
  std::optional<double> last_data_time{};  // `now` of the last accepted input (s)
  int64_t stale_trips = 0;                 // times the link went from fresh to stale
  int64_t frames = 0;                      // frames returned by Poll
  int64_t accepted_inputs = 0;             // accepted lines or messages
  int64_t rejected_inputs = 0;             // skipped lines or messages (garbled, truncated, bad checksum, ...)
  int64_t commands_sent = 0;
  std::string last_error{};  // empty when fine
};

// Abstract robot I/O: wheels out, raw sensors in.
class RobotBackend {
 public:
  virtual ~RobotBackend() = default;

  virtual void SendWheels(double now, const WheelCommand& wheels) = 0;
  virtual std::optional<SensorFrame> Poll(double now) = 0;
  virtual BackendStatus Status(double now) const = 0;
};

}  // namespace limbic::hwio
