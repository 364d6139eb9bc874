#include "services/hwio/collision_event_detector.hpp"

#include <cmath>

namespace limbic::hwio {

CollisionEvent CollisionEventDetector::Update(const CollisionEvent& raw) {
  CollisionEvent out = raw;
  const bool contact = raw.occurred || !raw.sensor_ids.empty();
  out.occurred = contact;
  const bool previous_free = state_.seen_cycle ? !state_.previous_contact : options_.count_contact_at_start;
  out.new_event = contact && previous_free;

  ++state_.cycles;
  if (contact) ++state_.contact_cycles;
  if (out.new_event) ++state_.events;
  state_.previous_contact = contact;
  state_.seen_cycle = true;
  return out;
}

CollisionEvent CollisionEventDetector::UpdateFromBits(uint32_t bumper_bits, const geometry::Pose2& pose) {
  CollisionEvent raw;
  for (int i = 0; i < options_.switch_count && i < 32; ++i) {
    if (bumper_bits & (1u << i)) raw.sensor_ids.push_back(i);
  }
  raw.occurred = !raw.sensor_ids.empty();
  if (raw.occurred) {
    raw.contact_point =
        ContactPointForSwitches(raw.sensor_ids, options_.switch_count, options_.robot_radius, pose);
  }
  return Update(raw);
}

geometry::Vec2 ContactPointForSwitches(const std::vector<int>& switch_ids, int switch_count, double robot_radius,
                                       const geometry::Pose2& pose) {
  if (switch_ids.empty() || switch_count <= 0) return pose.Position();
  geometry::Vec2 sum = geometry::Vec2::Zero();
  for (int id : switch_ids) sum += geometry::UnitVector(2.0 * geometry::kPi * id / switch_count);
  // Opposite switches cancel: fall back to the first switch's direction.
  const double angle = sum.norm() > 1e-9 ? std::atan2(sum.y(), sum.x())
                                         : 2.0 * geometry::kPi * switch_ids.front() / switch_count;
  return pose.ToWorld(robot_radius * geometry::UnitVector(angle));
}

}  // namespace limbic::hwio
