#include "services/hwio/collision_event_detector.hpp"

#include <gtest/gtest.h>

#include <cmath>

namespace limbic::hwio {
namespace {

CollisionEvent Contact(bool on) {
  CollisionEvent e;
  e.occurred = on;
  if (on) e.sensor_ids = {0};
  e.contact_point = {1.5, -2.0};
  e.speed_before = 0.4;
  return e;
}

// §8 item 15: a new event when contact starts after at least one contact-free cycle; contact cycles logged.
TEST(CollisionEventDetectorTest, NewEventOnlyOnRisingEdge) {
  CollisionEventDetector detector;
  const bool contact[] = {false, true, true, false, true, false, false, true};
  const bool expected[] = {false, true, false, false, true, false, false, true};
  for (int k = 0; k < 8; ++k) {
    const CollisionEvent out = detector.Update(Contact(contact[k]));
    EXPECT_EQ(out.new_event, expected[k]) << "cycle " << k;
    EXPECT_EQ(out.occurred, contact[k]);
  }
  EXPECT_EQ(detector.state().events, 3);
  EXPECT_EQ(detector.state().contact_cycles, 4);
  EXPECT_EQ(detector.state().cycles, 8);
}

TEST(CollisionEventDetectorTest, PassesContactDetailsThrough) {
  CollisionEventDetector detector;
  const CollisionEvent out = detector.Update(Contact(true));
  EXPECT_EQ(out.sensor_ids, std::vector<int>{0});
  EXPECT_DOUBLE_EQ(out.contact_point.x(), 1.5);
  EXPECT_DOUBLE_EQ(out.speed_before, 0.4);
}

TEST(CollisionEventDetectorTest, ContactAtStartCountsByDefault) {
  CollisionEventDetector detector;
  EXPECT_TRUE(detector.Update(Contact(true)).new_event);
  EXPECT_EQ(detector.state().events, 1);
}

TEST(CollisionEventDetectorTest, ContactAtStartIgnoredWhenOptionOff) {
  CollisionEventDetector detector(CollisionEventOptions{.count_contact_at_start = false});
  EXPECT_FALSE(detector.Update(Contact(true)).new_event);
  EXPECT_FALSE(detector.Update(Contact(true)).new_event);
  EXPECT_FALSE(detector.Update(Contact(false)).new_event);
  EXPECT_TRUE(detector.Update(Contact(true)).new_event);
  EXPECT_EQ(detector.state().events, 1);
  EXPECT_EQ(detector.state().contact_cycles, 3);
}

TEST(CollisionEventDetectorTest, SwitchIdsAloneMeanContact) {
  CollisionEventDetector detector;
  CollisionEvent raw;
  raw.sensor_ids = {3};
  const CollisionEvent out = detector.Update(raw);
  EXPECT_TRUE(out.occurred);
  EXPECT_TRUE(out.new_event);
}

// Switches 0 and 1 (0° and 45°) → mean direction 22.5° in the robot frame; robot at (1, 2) facing +y.
TEST(CollisionEventDetectorTest, BitsGiveSwitchesAndChassisContactPoint) {
  CollisionEventDetector detector;
  const CollisionEvent out = detector.UpdateFromBits(0b11, geometry::Pose2{1.0, 2.0, geometry::kPi / 2});
  EXPECT_EQ(out.sensor_ids, (std::vector<int>{0, 1}));
  EXPECT_TRUE(out.new_event);
  // (1 − 0.35·sin 22.5°, 2 + 0.35·cos 22.5°)
  EXPECT_NEAR(out.contact_point.x(), 0.8660607986722186, 1e-12);
  EXPECT_NEAR(out.contact_point.y(), 2.32335783637895, 1e-12);
  EXPECT_FALSE(detector.UpdateFromBits(0, {}).occurred);
}

}  // namespace
}  // namespace limbic::hwio
