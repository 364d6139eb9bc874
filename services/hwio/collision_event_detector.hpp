// Turns per-cycle bumper contact into counted collision events (§2.4, §8 item 15).
#pragma once

#include <cstdint>

#include "common/geometry/geometry.hpp"
#include "common/types/sensing.hpp"

namespace limbic::hwio {

struct CollisionEventOptions {
  // §8 item 15 counts an event when contact starts after at least one contact-free cycle. Before the first
  // cycle there is no history: true (recommended) treats "before the run" as contact-free, so a robot that
  // starts in contact records one event; false requires an observed contact-free cycle first.
  bool count_contact_at_start = true;
  // Used only by UpdateFromBits to place the contact point on the chassis edge.
  double robot_radius = 0.35;  // r_R (m)
  int switch_count = 8;        // switches evenly spaced, switch 0 straight ahead, ids increasing CCW
};

struct CollisionEventState {
  bool seen_cycle = false;      // at least one cycle processed
  bool previous_contact = false;
  int64_t cycles = 0;           // cycles processed
  int64_t contact_cycles = 0;   // cycles with contact ("also log contact cycles")
  int64_t events = 0;           // contact events (the collision metric)
};

// Edge detector over bumper contact.
//
// Inputs:  one raw CollisionEvent per control cycle (occurred + switches + contact point from the
//          simulator or a driver; `new_event` ignored), or the raw 8-bit switch mask.
// Outputs: the same event with `new_event` = contact now and no contact in the previous cycle (§8 item 15);
//          counters in state().
class CollisionEventDetector {
 public:
  explicit CollisionEventDetector(CollisionEventOptions options = {}) : options_(options) {}

  CollisionEvent Update(const CollisionEvent& raw);
  // For drivers that only know the switch mask (bit i = switch i). The contact point is the chassis edge
  // in the direction of the mean switch angle, placed with `pose`; speed_before is left at 0.
  CollisionEvent UpdateFromBits(uint32_t bumper_bits, const geometry::Pose2& pose);

  const CollisionEventState& state() const { return state_; }
  const CollisionEventOptions& options() const { return options_; }

 private:
  CollisionEventOptions options_;
  CollisionEventState state_;
};

// Contact point on a circular chassis for a set of activated switches (mean direction of the switches).
geometry::Vec2 ContactPointForSwitches(const std::vector<int>& switch_ids, int switch_count, double robot_radius,
                                       const geometry::Pose2& pose);

}  // namespace limbic::hwio
