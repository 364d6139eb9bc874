// Value types for what the robot senses, shared by hwio, mapper, controller, affect and the simulator.
#pragma once

#include <cstdint>
#include <vector>

#include "common/geometry/geometry.hpp"

namespace limbic {

// One infrared beam: its mounting in the robot frame, its range limits and the current reading.
struct RangeBeam {
  int sensor_id = 0;                  // which physical sensor (long-range 0..9, short-range 10..19)
  geometry::Vec2 origin_local{0, 0};  // emitter position in the robot frame (m)
  double angle_local = 0.0;           // beam direction in the robot frame (rad)
  double d_min = 0.4;                 // dead-zone limit (m)
  double d_max = 3.0;                 // maximum range (m)
  double range = 3.0;                 // reading (m): raw in RawRanges, median-filtered in RangeScan
  bool valid = false;                 // false when no obstacle lies within d_max
};

// A full ring of beams taken at one control cycle.
struct RangeScan {
  int64_t tick = 0;
  double stamp = 0.0;  // s
  std::vector<RangeBeam> beams;
};

// Bumper contact (§2.4). `new_event` marks the first contact cycle after a contact-free one (§8 item 15).
struct CollisionEvent {
  bool occurred = false;
  bool new_event = false;
  std::vector<int> sensor_ids;         // activated switches 0..7 (every 45°, 0 = straight ahead)
  geometry::Vec2 contact_point{0, 0};  // world frame (m)
  double speed_before = 0.0;           // linear speed just before contact (m/s)
};

// Estimated pose and velocity from the odometers (§2.3).
struct OdometryEstimate {
  geometry::Pose2 pose;
  double v = 0.0;      // m/s
  double omega = 0.0;  // rad/s
};

// Target body velocities from the velocity controller.
struct VelocityCommand {
  double v = 0.0;      // m/s
  double omega = 0.0;  // rad/s
};

// Target wheel velocities. Eq. 4.1's wheel 1 (+d_w·ω/2) is the RIGHT wheel: with θ counter-clockwise
// (eqs. 4.6–4.7), positive ω turns left, so v_right = v + d_w·ω/2 and v_left = v − d_w·ω/2.
struct WheelCommand {
  double v_left = 0.0;
  double v_right = 0.0;
};

}  // namespace limbic
