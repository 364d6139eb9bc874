#include "services/hwio/collision_event_detector.hpp"

#include <gtest/gtest.h>

#include <cmath>

namespace limbic::hwio {
namespace {

using geometry::Pose2;

CollisionEvent Contact(bool on, int switch_id = 0) {
  CollisionEvent e;
  e.occurred = on;
  if (on) e.sensor_ids = {switch_id};
  e.contact_point = {1.5, -2.0};  // a world-frame point a simulator might know; must be ignored
  e.speed_before = 0.4;
  return e;
}

// §8 item 15 read literally (rearm_s = 0): a new event whenever contact starts after a contact-free cycle.
TEST(CollisionEventDetectorTest, LiteralRuleCountsEveryRisingEdge) {
  CollisionEventDetector detector(CollisionEventOptions{.rearm_s = 0.0});
  const bool contact[] = {false, true, true, false, true, false, false, true};
  const bool expected[] = {false, true, false, false, true, false, false, true};
  for (int k = 0; k < 8; ++k) {
    const CollisionEvent out = detector.Update(Contact(contact[k]), Pose2{}, 0.1 * k);
    EXPECT_EQ(out.new_event, expected[k]) << "cycle " << k;
    EXPECT_EQ(out.occurred, contact[k]);
  }
  EXPECT_EQ(detector.state().events, 3);
  EXPECT_EQ(detector.state().contact_cycles, 4);
  EXPECT_EQ(detector.state().cycles, 8);
}

// The default rule: a robot pressing on an obstacle touches it every other cycle (the 1 cm shift-back);
// that is one collision, not one per touch.
TEST(CollisionEventDetectorTest, PinnedAgainstOneObstacleIsOneCollision) {
  CollisionEventDetector detector;
  for (int k = 0; k < 600; ++k) detector.Update(Contact(k % 2 == 0), Pose2{}, 0.1 * k);
  EXPECT_EQ(detector.state().events, 1);
  EXPECT_EQ(detector.state().contact_cycles, 300);
}

// Contact again after more than rearm_s (1 s) free of contact is a new collision; within it, not.
TEST(CollisionEventDetectorTest, ContactAfterTheRearmTimeIsANewCollision) {
  CollisionEventDetector detector;
  EXPECT_TRUE(detector.Update(Contact(true), Pose2{}, 0.0).new_event);
  for (int k = 1; k <= 10; ++k) EXPECT_FALSE(detector.Update(Contact(false), Pose2{}, 0.1 * k).new_event);
  // 1.0 s after the last contact: not yet more than rearm_s.
  EXPECT_FALSE(detector.Update(Contact(true), Pose2{}, 1.0).new_event);
  for (int k = 11; k <= 21; ++k) detector.Update(Contact(false), Pose2{}, 0.1 * k);
  EXPECT_TRUE(detector.Update(Contact(true), Pose2{}, 2.2).new_event);
  EXPECT_EQ(detector.state().events, 2);
}

// Within rearm_s but somewhere else (the robot moved on and hit another object): a new collision.
TEST(CollisionEventDetectorTest, ContactAwayFromTheEventStartIsANewCollision) {
  CollisionEventDetector detector;
  EXPECT_TRUE(detector.Update(Contact(true), Pose2{0.0, 0.0, 0.0}, 0.0).new_event);
  detector.Update(Contact(false), Pose2{0.3, 0.0, 0.0}, 0.1);
  EXPECT_FALSE(detector.Update(Contact(true), Pose2{0.3, 0.0, 0.0}, 0.2).new_event);  // 0.3 m on: same
  detector.Update(Contact(false), Pose2{0.6, 0.0, 0.0}, 0.3);
  EXPECT_TRUE(detector.Update(Contact(true), Pose2{0.6, 0.0, 0.0}, 0.4).new_event);  // 0.6 m: new
  EXPECT_EQ(detector.state().events, 2);
}

TEST(CollisionEventDetectorTest, PassesSwitchesAndSpeedThrough) {
  CollisionEventDetector detector;
  const CollisionEvent out = detector.Update(Contact(true), Pose2{}, 0.0);
  EXPECT_EQ(out.sensor_ids, std::vector<int>{0});
  EXPECT_DOUBLE_EQ(out.speed_before, 0.4);
}

// Issue 14: the contact point depends only on the estimated pose and the switch ids — never on a
// world-frame point from the simulator — so it lands in the estimate's frame.
TEST(CollisionEventDetectorTest, ContactPointDependsOnlyOnEstimatedPoseAndSwitch) {
  const Pose2 estimate{2.0, -1.0, 0.5};
  for (int id = 0; id < 8; ++id) {
    CollisionEventDetector a, b;
    CollisionEvent raw_a = Contact(true, id), raw_b = Contact(true, id);
    raw_b.contact_point = {-40.0, 17.0};  // a different (e.g. true world) point: no effect
    const CollisionEvent out_a = a.Update(raw_a, estimate, 0.0);
    const CollisionEvent out_b = b.Update(raw_b, estimate, 0.0);
    EXPECT_EQ(out_a.contact_point, out_b.contact_point);
    const double angle = estimate.theta + 2.0 * geometry::kPi * id / 8;
    EXPECT_NEAR(out_a.contact_point.x(), 2.0 + 0.35 * std::cos(angle), 1e-12) << "switch " << id;
    EXPECT_NEAR(out_a.contact_point.y(), -1.0 + 0.35 * std::sin(angle), 1e-12) << "switch " << id;
  }
  // Another estimate moves the point with it, rigidly.
  CollisionEventDetector c;
  const CollisionEvent moved = c.Update(Contact(true, 2), Pose2{3.0, -1.0, 0.5}, 0.0);
  CollisionEventDetector d;
  const CollisionEvent here = d.Update(Contact(true, 2), estimate, 0.0);
  EXPECT_NEAR(moved.contact_point.x() - here.contact_point.x(), 1.0, 1e-12);
  EXPECT_NEAR(moved.contact_point.y() - here.contact_point.y(), 0.0, 1e-12);
}

TEST(CollisionEventDetectorTest, ContactAtStartCountsByDefault) {
  CollisionEventDetector detector;
  EXPECT_TRUE(detector.Update(Contact(true), Pose2{}, 0.0).new_event);
  EXPECT_EQ(detector.state().events, 1);
}

TEST(CollisionEventDetectorTest, ContactAtStartIgnoredWhenOptionOff) {
  CollisionEventDetector detector(CollisionEventOptions{.count_contact_at_start = false, .rearm_s = 0.0});
  EXPECT_FALSE(detector.Update(Contact(true), Pose2{}, 0.0).new_event);
  EXPECT_FALSE(detector.Update(Contact(true), Pose2{}, 0.1).new_event);
  EXPECT_FALSE(detector.Update(Contact(false), Pose2{}, 0.2).new_event);
  EXPECT_TRUE(detector.Update(Contact(true), Pose2{}, 0.3).new_event);
  EXPECT_EQ(detector.state().events, 1);
  EXPECT_EQ(detector.state().contact_cycles, 3);
}

TEST(CollisionEventDetectorTest, SwitchIdsAloneMeanContact) {
  CollisionEventDetector detector;
  CollisionEvent raw;
  raw.sensor_ids = {3};
  const CollisionEvent out = detector.Update(raw, Pose2{}, 0.0);
  EXPECT_TRUE(out.occurred);
  EXPECT_TRUE(out.new_event);
}

// Switches 0 and 1 (0° and 45°) → mean direction 22.5° in the robot frame; robot at (1, 2) facing +y.
TEST(CollisionEventDetectorTest, BitsGiveSwitchesAndChassisContactPoint) {
  CollisionEventDetector detector;
  const CollisionEvent out = detector.UpdateFromBits(0b11, Pose2{1.0, 2.0, geometry::kPi / 2}, 0.0);
  EXPECT_EQ(out.sensor_ids, (std::vector<int>{0, 1}));
  EXPECT_TRUE(out.new_event);
  // (1 − 0.35·sin 22.5°, 2 + 0.35·cos 22.5°)
  EXPECT_NEAR(out.contact_point.x(), 0.8660607986722186, 1e-12);
  EXPECT_NEAR(out.contact_point.y(), 2.32335783637895, 1e-12);
  EXPECT_FALSE(detector.UpdateFromBits(0, {}, 0.1).occurred);
}

}  // namespace
}  // namespace limbic::hwio
