// Turns per-cycle bumper contact into counted collision events (§2.4, §8 item 15).
#pragma once

#include <cstdint>

#include "common/geometry/geometry.hpp"
#include "common/robot/robot_description.hpp"
#include "common/types/sensing.hpp"

namespace limbic::hwio {

struct CollisionEventOptions {
  // §8 item 15 counts an event when contact starts after at least one contact-free cycle. Before the first
  // cycle there is no history: true (recommended) treats "before the run" as contact-free, so a robot that
  // starts in contact records one event; false requires an observed contact-free cycle first.
  bool count_contact_at_start = true;
  // One collision, not hundreds, while the robot stays against the same object. The 1 cm shift-back of the
  // collision response (§2.2 item 7) makes a robot pressing on an obstacle touch it every other cycle; §8
  // item 15 read literally counts each touch. A contact after a contact-free cycle therefore starts a new
  // event only if the last contact cycle is more than `rearm_s` ago or the contact is more than
  // `rearm_distance_m` from where the current event started (the robot reached something else). rearm_s = 0
  // is §8 item 15's literal rule.
  double rearm_s = 1.0;
  double rearm_distance_m = 0.5;
  // Chassis facts for placing the contact point (from the robot description via hwio's options).
  robot::Body body = robot::RobotDescription{}.body;  // outline in the robot frame (MARVIN: circle r_R = 0.35 m)
  int switch_count = 8;  // switches evenly spaced about the body's centre, switch 0 straight ahead, ids CCW
};

struct CollisionEventState {
  bool seen_cycle = false;  // at least one cycle processed
  bool previous_contact = false;
  bool any_contact = false;  // a contact cycle has been seen
  double last_contact_time_s = 0.0;
  geometry::Vec2 event_point{0.0, 0.0};  // contact point (estimate frame) where the current event began
  int64_t cycles = 0;                    // cycles processed
  int64_t contact_cycles = 0;            // cycles with contact ("also log contact cycles")
  int64_t events = 0;                    // contact events (the collision metric)
};

// Turns raw bumper contact into collision events, the one rule that the mission's collision metric and the
// affect engine's pain stimulus (eq. 8.7) both use (they read `new_event`).
//
// Inputs:  per control cycle the switches that closed (`occurred` / `sensor_ids`; a raw contact point is
//          ignored: a bumper cannot know it), the robot's pose estimate and the cycle's time.
// Outputs: the event with its contact point placed on the chassis from the switches and the estimated pose
//          (so the mapper's danger cells and collision points are in the estimate's frame), and `new_event`
//          by the rule in CollisionEventOptions; counters in state().
class CollisionEventDetector {
 public:
  explicit CollisionEventDetector(CollisionEventOptions options = {}) : options_(options) {}

  CollisionEvent Update(const CollisionEvent& raw, const geometry::Pose2& estimate, double time_s);
  // For drivers that only know the switch mask (bit i = switch i); speed_before is left at 0.
  CollisionEvent UpdateFromBits(uint32_t bumper_bits, const geometry::Pose2& estimate, double time_s);

  const CollisionEventState& state() const { return state_; }
  const CollisionEventOptions& options() const { return options_; }

 private:
  CollisionEventOptions options_;
  CollisionEventState state_;
};

// Contact point on the chassis outline for a set of activated switches: where the mean direction of the switches,
// from the body's centre, leaves the body (r_R along it for MARVIN's circle).
geometry::Vec2 ContactPointForSwitches(const std::vector<int>& switch_ids, int switch_count, const robot::Body& body,
                                       const geometry::Pose2& pose);

}  // namespace limbic::hwio
