#include "services/hwio/watchdog.hpp"

#include <gtest/gtest.h>

#include <stdexcept>

namespace limbic::hwio {
namespace {

const WheelCommand kDrive{.v_left = 0.4, .v_right = 0.5};

// Binary-exact times: the command at 0.5 s is fresh while now − 0.5 < 0.25 and trips exactly at 0.75 s.
TEST(WatchdogTest, TripsExactlyAtTimeoutAndReArmsOnFreshCommand) {
  Watchdog watchdog(WatchdogOptions{.timeout = 0.25});
  watchdog.OnCommand(0.5);
  EXPECT_DOUBLE_EQ(watchdog.Gate(0.5, kDrive).wheels.v_left, 0.4);
  const WatchdogOutput before = watchdog.Gate(0.7499, kDrive);
  EXPECT_FALSE(before.stale);
  EXPECT_DOUBLE_EQ(before.wheels.v_right, 0.5);

  const WatchdogOutput at = watchdog.Gate(0.75, kDrive);
  EXPECT_TRUE(at.stale);
  EXPECT_TRUE(at.tripped_now);
  EXPECT_DOUBLE_EQ(at.wheels.v_left, 0.0);
  EXPECT_DOUBLE_EQ(at.wheels.v_right, 0.0);
  EXPECT_EQ(watchdog.state().trips, 1);

  const WatchdogOutput later = watchdog.Gate(0.875, kDrive);
  EXPECT_TRUE(later.stale);
  EXPECT_FALSE(later.tripped_now);
  EXPECT_EQ(watchdog.state().trips, 1);

  watchdog.OnCommand(1.0);
  const WatchdogOutput rearmed = watchdog.Gate(1.0, kDrive);
  EXPECT_FALSE(rearmed.stale);
  EXPECT_DOUBLE_EQ(rearmed.wheels.v_left, 0.4);
  EXPECT_TRUE(watchdog.Gate(1.25, kDrive).tripped_now);
  EXPECT_EQ(watchdog.state().trips, 2);
  EXPECT_EQ(watchdog.state().stale_outputs, 3);
}

// Default 300 ms at T = 100 ms: with a command at cycle 10 the wheels stop at cycle 13 (age 0.3 s).
TEST(WatchdogTest, DefaultStopsThreeControlCyclesAfterLastCommand) {
  Watchdog watchdog;
  const double T = 0.1;
  watchdog.OnCommand(10 * T);
  EXPECT_FALSE(watchdog.Gate(11 * T, kDrive).stale);
  EXPECT_FALSE(watchdog.Gate(12 * T, kDrive).stale);
  EXPECT_TRUE(watchdog.Gate(13 * T, kDrive).tripped_now);
}

TEST(WatchdogTest, ZeroBeforeFirstCommandWithoutCountingATrip) {
  Watchdog watchdog;
  const WatchdogOutput out = watchdog.Gate(0.0, kDrive);
  EXPECT_TRUE(out.stale);
  EXPECT_FALSE(out.tripped_now);
  EXPECT_DOUBLE_EQ(out.wheels.v_left, 0.0);
  EXPECT_EQ(watchdog.state().trips, 0);
}

TEST(WatchdogTest, LateCommandWithOldStampDoesNotReArm) {
  Watchdog watchdog(WatchdogOptions{.timeout = 0.25});
  watchdog.OnCommand(1.0);
  EXPECT_TRUE(watchdog.Gate(1.5, kDrive).tripped_now);
  watchdog.OnCommand(1.125);  // arrives at 1.5 but is 0.375 s old
  EXPECT_TRUE(watchdog.Gate(1.5, kDrive).stale);
  watchdog.OnCommand(0.5);  // older than what we have: ignored
  EXPECT_DOUBLE_EQ(*watchdog.state().last_fresh_stamp, 1.125);
}

TEST(WatchdogTest, DisabledInLockstepNeverTrips) {
  Watchdog watchdog(WatchdogOptions{.enabled = false});
  const WatchdogOutput out = watchdog.Gate(1000.0, kDrive);
  EXPECT_FALSE(out.stale);
  EXPECT_DOUBLE_EQ(out.wheels.v_right, 0.5);
  EXPECT_EQ(watchdog.state().trips, 0);
}

TEST(WatchdogTest, RejectsNonPositiveTimeout) {
  EXPECT_THROW(Watchdog(WatchdogOptions{.timeout = 0.0}), std::invalid_argument);
}

}  // namespace
}  // namespace limbic::hwio
