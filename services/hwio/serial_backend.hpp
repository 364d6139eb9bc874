// RobotBackend for a motor/sensor board on a serial port, speaking the line protocol of PROTOCOL.md.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common/geometry/geometry.hpp"
#include "common/types/sensing.hpp"
#include "services/hwio/command_limiter.hpp"
#include "services/hwio/line_protocol.hpp"
#include "services/hwio/robot_backend.hpp"

namespace limbic::hwio {

struct SerialBackendOptions {
  std::string device{};  // e.g. /dev/ttyUSB0 (or a pseudo-terminal in tests)
  unsigned baud_rate = 115200;
  double ticks_per_metre = 10000.0;                                    // encoder ticks per metre of wheel travel
  double wheel_separation = 0.6;                                       // d_w (m), for odometry (eqs. 4.4–4.5)
  WheelAssignment wheel_assignment = WheelAssignment::kWheel1IsRight;  // a real board: kWheel1IsRight
  double stale_timeout = 0.3;      // s without an accepted board line → stale, wheels sent as zero
  geometry::Pose2 initial_pose{};  // odometry starts here
  // Beam k of an R line fills beam_layout[k] (mounting, limits). Empty: a generic ring, beam k with
  // sensor_id k, angle 2πk/n, d_min 0.4 m, d_max 3.0 m. R lines with another count are dropped.
  std::vector<RangeBeam> beam_layout{};
  int switch_count = 8;
  LineParserOptions parser{};
};

struct SerialBackendCounters {
  LineParserCounters parser{};
  int64_t layout_mismatches = 0;  // R lines whose beam count differs from beam_layout
  int64_t unexpected_lines = 0;   // W lines coming from the board
  int64_t wheel_lines_sent = 0;
  int64_t zero_forced = 0;  // SendWheels calls turned into zeros because the board was stale
  int64_t write_errors = 0;
  int64_t read_errors = 0;
};

// Serial link to a board: sends W lines, turns E/R/B lines into SensorFrames (encoder ticks → odometry).
//
// Inputs:  SendWheels(now, wheels) → "$W seq left_mm_s right_mm_s*HH"; board lines read without blocking.
// Outputs: Poll(now) frames (raw scan, bumper contact, odometry integrated by eqs. 4.4–4.7); Status(now).
//          Per Poll: the newest R line gives the scan; the B masks received since the last Poll are OR-ed
//          (a contact shorter than a cycle is not lost); contact point = chassis edge at the mean switch
//          direction placed with the odometry pose, speed_before = odometry v.
// The link's own data watchdog forces zero wheels while the board is stale (silent ≥ stale_timeout).
class SerialBackend : public RobotBackend {
 public:
  // Opens the device and puts it in raw 8N1 mode. Throws std::runtime_error naming the device if that fails.
  explicit SerialBackend(SerialBackendOptions options);
  ~SerialBackend() override;
  SerialBackend(const SerialBackend&) = delete;
  SerialBackend& operator=(const SerialBackend&) = delete;

  void SendWheels(double now, const WheelCommand& wheels) override;
  std::optional<SensorFrame> Poll(double now) override;
  BackendStatus Status(double now) const override;

  // Blocks up to timeout_s for bytes from the board (they are kept for the next Poll). Returns whether any
  // arrived. For a realtime loop that wants to sleep on the port, and for bounded tests.
  bool WaitForInput(double timeout_s);

  const SerialBackendCounters& counters() const;
  const OdometryEstimate& odometry() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace limbic::hwio
