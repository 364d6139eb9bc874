// Simulated humans (§3.4): circles that walk at 0.8 m/s in a direction relative to the robot,
// re-chosen every 5 s.
#pragma once

#include "common/geometry/geometry.hpp"

namespace limbic::sim {

// The four relative directions of §3.4.
enum class HumanMode { kTowards, kAway, kClockwise, kAnticlockwise };

const char* HumanModeName(HumanMode mode);

// Human behaviour (defaults: §3.4, §8 item 11). The count and start positions come from the
// environment.
struct HumanOptions {
  double radius = 0.25;           // m (environment's human_radius is used when the world is built)
  double speed = 0.8;             // m/s
  double direction_period = 5.0;  // s between new relative directions
  double stop_distance = 0.2;     // m: a human walking towards the robot stops at this surface gap
  double flee_radius = 5.0;       // m: §3.4 extension, humans within this of a flagged robot move away
};

// State of one human.
struct HumanState {
  int id = 0;
  geometry::Vec2 position{0, 0};
  geometry::Vec2 velocity{0, 0};  // achieved in the last step (m/s)
  HumanMode mode = HumanMode::kTowards;
  double time_to_change = 0.0;  // s until the next direction draw
  int reference_robot = -1;     // robot the direction is relative to (nearest robot, or the fleeing one)
  bool fleeing = false;         // moved away because of the §3.4 extension this step
  bool operator==(const HumanState&) const = default;
};

// Unit walking direction of a human at `human` for `mode` relative to a robot at `robot` (zero when
// they coincide). Clockwise/anticlockwise are tangent to the circle about the robot.
geometry::Vec2 HumanDirection(HumanMode mode, const geometry::Vec2& human, const geometry::Vec2& robot);

}  // namespace limbic::sim
