#include "services/hwio/collision_event_detector.hpp"

#include <cmath>

namespace limbic::hwio {

CollisionEvent CollisionEventDetector::Update(const CollisionEvent& raw, const geometry::Pose2& estimate,
                                              double time_s) {
  CollisionEvent out = raw;
  const bool contact = raw.occurred || !raw.sensor_ids.empty();
  out.occurred = contact;
  out.contact_point = contact ? ContactPointForSwitches(raw.sensor_ids, options_.switch_count, options_.body, estimate)
                              : geometry::Vec2::Zero();
  const bool previous_free = state_.seen_cycle ? !state_.previous_contact : options_.count_contact_at_start;
  bool rearmed = true;
  if (state_.any_contact) {
    rearmed = time_s - state_.last_contact_time_s > options_.rearm_s + 1e-9 ||
              (out.contact_point - state_.event_point).norm() > options_.rearm_distance_m;
  }
  out.new_event = contact && previous_free && rearmed;

  ++state_.cycles;
  if (contact) {
    ++state_.contact_cycles;
    state_.any_contact = true;
    state_.last_contact_time_s = time_s;
  }
  if (out.new_event) {
    ++state_.events;
    state_.event_point = out.contact_point;
  }
  state_.previous_contact = contact;
  state_.seen_cycle = true;
  return out;
}

CollisionEvent CollisionEventDetector::UpdateFromBits(uint32_t bumper_bits, const geometry::Pose2& estimate,
                                                      double time_s) {
  CollisionEvent raw;
  for (int i = 0; i < options_.switch_count && i < 32; ++i) {
    if (bumper_bits & (1u << i)) raw.sensor_ids.push_back(i);
  }
  raw.occurred = !raw.sensor_ids.empty();
  return Update(raw, estimate, time_s);
}

geometry::Vec2 ContactPointForSwitches(const std::vector<int>& switch_ids, int switch_count, const robot::Body& body,
                                       const geometry::Pose2& pose) {
  if (switch_ids.empty() || switch_count <= 0) return pose.Position();
  geometry::Vec2 sum = geometry::Vec2::Zero();
  for (int id : switch_ids) sum += geometry::UnitVector(2.0 * geometry::kPi * id / switch_count);
  // Opposite switches cancel: fall back to the first switch's direction.
  const double angle =
      sum.norm() > 1e-9 ? std::atan2(sum.y(), sum.x()) : 2.0 * geometry::kPi * switch_ids.front() / switch_count;
  if (body.is_circle() && body.centre().isZero()) return pose.ToWorld(body.radius() * geometry::UnitVector(angle));
  return pose.ToWorld(body.OutlinePointAt(angle));
}

}  // namespace limbic::hwio
