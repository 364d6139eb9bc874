#include "services/hwio/fault_injector.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "services/hwio/collision_event_detector.hpp"

namespace limbic::hwio {
namespace {

// Three sensors × two beams; ranges 1.0 … 1.5 except beam 5, which sees nothing.
RangeScan SixBeams() {
  RangeScan scan;
  for (int i = 0; i < 6; ++i) {
    RangeBeam b;
    b.sensor_id = i / 2;
    b.d_max = 3.0;
    b.range = 1.0 + 0.1 * i;
    b.valid = true;
    scan.beams.push_back(b);
  }
  scan.beams[5].range = 3.0;
  scan.beams[5].valid = false;
  return scan;
}

Fault MakeFault(const std::string& id, FaultKind kind) {
  Fault f;
  f.id = id;
  f.kind = kind;
  return f;
}

// Every beam not in `changed` is identical to the original.
void ExpectOnlyChanged(const RangeScan& before, const RangeScan& after, std::vector<size_t> changed) {
  ASSERT_EQ(before.beams.size(), after.beams.size());
  for (size_t i = 0; i < before.beams.size(); ++i) {
    const bool expect_change = std::find(changed.begin(), changed.end(), i) != changed.end();
    const bool did_change =
        before.beams[i].range != after.beams[i].range || before.beams[i].valid != after.beams[i].valid;
    EXPECT_EQ(did_change, expect_change) << "beam " << i;
  }
}

TEST(FaultInjectorTest, StuckValueHitsOnlyTheTargetSensor) {
  FaultInjector faults;
  Fault f = MakeFault("stuck", FaultKind::kSensorStuck);
  f.target.sensor_id = 1;
  f.stuck_range = 0.8;
  ASSERT_EQ(faults.Add(f).status, AddFaultStatus::kAdded);
  const RangeScan before = SixBeams();
  RangeScan scan = before;
  faults.Apply(0.0, scan);
  ExpectOnlyChanged(before, scan, {2, 3});
  EXPECT_DOUBLE_EQ(scan.beams[2].range, 0.8);
  EXPECT_DOUBLE_EQ(scan.beams[3].range, 0.8);
  EXPECT_TRUE(scan.beams[3].valid);
}

TEST(FaultInjectorTest, StuckWithoutValueHoldsFirstReadingOfOneBeam) {
  FaultInjector faults;
  Fault f = MakeFault("hold", FaultKind::kSensorStuck);
  f.target.sensor_id = 0;
  f.target.beam_index = 1;  // second beam of sensor 0 = scan index 1
  faults.Add(f);
  RangeScan scan = SixBeams();
  faults.Apply(0.0, scan);
  EXPECT_DOUBLE_EQ(scan.beams[1].range, 1.1);
  RangeScan next = SixBeams();
  for (auto& b : next.beams) b.range = 2.0;
  const RangeScan before = next;
  faults.Apply(0.1, next);
  ExpectOnlyChanged(before, next, {1});
  EXPECT_DOUBLE_EQ(next.beams[1].range, 1.1);
}

TEST(FaultInjectorTest, DropoutOfOneBeamByScanIndex) {
  FaultInjector faults;
  Fault f = MakeFault("drop", FaultKind::kSensorDropout);
  f.target.beam_index = 4;
  faults.Add(f);
  const RangeScan before = SixBeams();
  RangeScan scan = before;
  faults.Apply(0.0, scan);
  ExpectOnlyChanged(before, scan, {4});
  EXPECT_DOUBLE_EQ(scan.beams[4].range, 3.0);
  EXPECT_FALSE(scan.beams[4].valid);
}

TEST(FaultInjectorTest, BiasShiftsValidReadingsAndClampsAtMaxRange) {
  FaultInjector faults;
  Fault f = MakeFault("bias", FaultKind::kSensorBias);
  f.bias = 0.5;
  faults.Add(f);
  RangeScan before = SixBeams();
  before.beams[4].range = 2.7;  // 2.7 + 0.5 → 3.0 = d_max: nothing seen
  RangeScan scan = before;
  faults.Apply(0.0, scan);
  ExpectOnlyChanged(before, scan, {0, 1, 2, 3, 4});  // beam 5 was invalid and stays so
  EXPECT_DOUBLE_EQ(scan.beams[0].range, 1.5);
  EXPECT_DOUBLE_EQ(scan.beams[3].range, 1.3 + 0.5);
  EXPECT_DOUBLE_EQ(scan.beams[4].range, 3.0);
  EXPECT_FALSE(scan.beams[4].valid);
  Fault negative = MakeFault("bias", FaultKind::kSensorBias);  // replaces: −1.5 clamps at 0
  negative.bias = -1.5;
  EXPECT_EQ(faults.Add(negative).status, AddFaultStatus::kReplaced);
  scan = SixBeams();
  faults.Apply(0.0, scan);
  EXPECT_DOUBLE_EQ(scan.beams[0].range, 0.0);
  EXPECT_DOUBLE_EQ(scan.beams[2].range, 0.0);  // 1.2 − 1.5 < 0
}

// One σ·N(0, 1) draw per targeted valid reading, in scan order, from mt19937_64(seed).
TEST(FaultInjectorTest, NoiseReplaysFromSeedAndOnlyTouchesTarget) {
  FaultInjector faults;
  Fault f = MakeFault("noise", FaultKind::kSensorNoise);
  f.target.sensor_id = 2;  // beams 4 (valid) and 5 (invalid: untouched)
  f.noise_sigma = 0.05;
  f.seed = 42;
  faults.Add(f);
  std::mt19937_64 rng(42);
  std::normal_distribution<double> normal(0.0, 1.0);
  for (int k = 0; k < 3; ++k) {
    const RangeScan before = SixBeams();
    RangeScan scan = before;
    faults.Apply(0.1 * k, scan);
    ExpectOnlyChanged(before, scan, {4});
    EXPECT_DOUBLE_EQ(scan.beams[4].range, 1.4 + 0.05 * normal(rng));
  }
}

TEST(FaultInjectorTest, NoiseHasRequestedSpread) {
  FaultInjector faults;
  Fault f = MakeFault("noise", FaultKind::kSensorNoise);
  f.target.beam_index = 0;
  f.noise_sigma = 0.1;
  f.seed = 3;
  faults.Add(f);
  double sum = 0, sum2 = 0;
  const int n = 4000;
  for (int k = 0; k < n; ++k) {
    RangeScan scan = SixBeams();
    faults.Apply(0.0, scan);
    const double e = scan.beams[0].range - 1.0;
    sum += e;
    sum2 += e * e;
  }
  EXPECT_NEAR(sum / n, 0.0, 0.01);  // standard error 0.1/√4000 = 0.0016
  EXPECT_NEAR(std::sqrt(sum2 / n), 0.1, 0.005);
}

TEST(FaultInjectorTest, SpikesWithCertaintyAndNever) {
  FaultInjector faults;
  Fault always = MakeFault("spike", FaultKind::kSensorSpikes);
  always.target.sensor_id = 2;
  always.spike_probability = 1.0;
  always.spike_magnitude = -2.5;  // a phantom obstacle 2.5 m closer
  faults.Add(always);
  Fault never = MakeFault("never", FaultKind::kSensorSpikes);
  never.spike_probability = 0.0;
  never.spike_magnitude = 1.0;
  faults.Add(never);
  const RangeScan before = SixBeams();
  RangeScan scan = before;
  faults.Apply(0.0, scan);
  ExpectOnlyChanged(before, scan, {4, 5});
  EXPECT_DOUBLE_EQ(scan.beams[4].range, 0.0);  // 1.4 − 2.5 clamps at 0
  EXPECT_DOUBLE_EQ(scan.beams[5].range, 0.5);  // invalid counts from d_max: 3.0 − 2.5
  EXPECT_TRUE(scan.beams[5].valid);
}

TEST(FaultInjectorTest, SpikeRateMatchesProbability) {
  FaultInjector faults;
  Fault f = MakeFault("spike", FaultKind::kSensorSpikes);
  f.spike_probability = 0.2;
  f.spike_magnitude = 1.0;
  f.seed = 11;
  faults.Add(f);
  int spikes = 0, readings = 0;
  for (int k = 0; k < 1000; ++k) {
    const RangeScan before = SixBeams();
    RangeScan scan = before;
    faults.Apply(0.0, scan);
    for (int i = 0; i < 5; ++i) {
      ++readings;
      if (scan.beams[i].range != before.beams[i].range) ++spikes;
    }
  }
  EXPECT_NEAR(static_cast<double>(spikes) / readings, 0.2, 0.02);  // σ = √(0.16/5000) = 0.0057
}

// Active on [start, start + duration): no effect at 0.99, effect at 1.0 and 1.49, gone at exactly 1.5.
TEST(FaultInjectorTest, FaultStartsAndEndsExactlyOnTime) {
  FaultInjector faults;
  Fault f = MakeFault("window", FaultKind::kSensorDropout);
  f.start = 1.0;
  f.duration = 0.5;
  faults.Add(f);
  const RangeScan clean = SixBeams();
  auto dropped_at = [&](double t) {
    RangeScan scan = clean;
    faults.Apply(t, scan);
    return !scan.beams[0].valid;
  };
  EXPECT_FALSE(dropped_at(0.99));
  EXPECT_EQ(faults.ActiveFaults(0.99).size(), 0u);
  EXPECT_EQ(faults.AllFaults().size(), 1u);  // pending
  EXPECT_TRUE(dropped_at(1.0));
  EXPECT_EQ(faults.ActiveFaults(1.2).size(), 1u);
  EXPECT_TRUE(dropped_at(1.49));
  EXPECT_FALSE(dropped_at(1.5));
  EXPECT_TRUE(faults.AllFaults().empty());
  EXPECT_EQ(faults.state().expired, 1);
}

TEST(FaultInjectorTest, ZeroDurationLastsUntilCleared) {
  FaultInjector faults;
  faults.Add(MakeFault("forever", FaultKind::kSensorDropout));
  RangeScan scan = SixBeams();
  faults.Apply(1e6, scan);
  EXPECT_FALSE(scan.beams[0].valid);
  EXPECT_TRUE(faults.Clear("forever"));
  EXPECT_FALSE(faults.Clear("forever"));
  scan = SixBeams();
  faults.Apply(1e6, scan);
  EXPECT_TRUE(scan.beams[0].valid);
}

TEST(FaultInjectorTest, OtherRobotsAndInvalidFaultsAreNotAdded) {
  FaultInjector faults(FaultInjectorOptions{.robot_id = "r1"});
  Fault other = MakeFault("x", FaultKind::kSensorDropout);
  other.target.robot = "r2";
  EXPECT_EQ(faults.Add(other).status, AddFaultStatus::kOtherRobot);
  Fault any = MakeFault("y", FaultKind::kSensorDropout);
  any.target.robot = "*";
  EXPECT_EQ(faults.Add(any).status, AddFaultStatus::kAdded);
  Fault bad = MakeFault("z", FaultKind::kSensorNoise);
  bad.noise_sigma = -1.0;
  const AddFaultResult result = faults.Add(bad);
  EXPECT_EQ(result.status, AddFaultStatus::kInvalid);
  EXPECT_NE(result.reason.find("noise_sigma"), std::string::npos);
  Fault no_switch = MakeFault("fp", FaultKind::kBumperFalsePositive);
  EXPECT_EQ(faults.Add(no_switch).status, AddFaultStatus::kInvalid);
  EXPECT_EQ(faults.AllFaults().size(), 1u);
}

TEST(FaultInjectorTest, SensorFaultsLeaveBumpersAndWheelsAlone) {
  FaultInjector faults;
  faults.Add(MakeFault("drop", FaultKind::kSensorDropout));
  CollisionEvent contact;
  faults.Apply(0.0, contact);
  EXPECT_FALSE(contact.occurred);
  WheelCommand wheels{.v_left = 0.3, .v_right = 0.4};
  faults.Apply(0.0, wheels);
  EXPECT_DOUBLE_EQ(wheels.v_left, 0.3);
  EXPECT_DOUBLE_EQ(wheels.v_right, 0.4);
}

// Robot at the origin facing +x: switch 2 (90°) is on the left side, (0, 0.35).
TEST(FaultInjectorTest, BumperFalsePositiveCreatesContactAndEvent) {
  FaultInjector faults;
  Fault f = MakeFault("fp", FaultKind::kBumperFalsePositive);
  f.target.bumper_switch = 2;
  f.start = 0.5;
  f.duration = 0.25;
  faults.Add(f);
  CollisionEventDetector detector;
  const double times[] = {0.375, 0.5, 0.625, 0.75};
  const bool expected_contact[] = {false, true, true, false};
  const bool expected_event[] = {false, true, false, false};
  for (int k = 0; k < 4; ++k) {
    CollisionEvent raw;
    faults.Apply(times[k], raw, geometry::Pose2{});
    const CollisionEvent out = detector.Update(raw, geometry::Pose2{}, times[k]);
    EXPECT_EQ(out.occurred, expected_contact[k]) << k;
    EXPECT_EQ(out.new_event, expected_event[k]) << k;
    if (expected_contact[k]) {
      EXPECT_EQ(out.sensor_ids, std::vector<int>{2});
      EXPECT_NEAR(out.contact_point.x(), 0.0, 1e-12);
      EXPECT_NEAR(out.contact_point.y(), 0.35, 1e-12);
    }
  }
  EXPECT_EQ(detector.state().events, 1);
}

TEST(FaultInjectorTest, BumperMissedContactRemovesOneOrAllSwitches) {
  FaultInjector faults;
  Fault one = MakeFault("miss0", FaultKind::kBumperMissedContact);
  one.target.bumper_switch = 0;
  faults.Add(one);
  CollisionEvent raw;
  raw.occurred = true;
  raw.sensor_ids = {0, 1};
  faults.Apply(0.0, raw);
  EXPECT_TRUE(raw.occurred);
  EXPECT_EQ(raw.sensor_ids, std::vector<int>{1});

  faults.Add(MakeFault("missall", FaultKind::kBumperMissedContact));  // bumper_switch −1: every switch
  raw.sensor_ids = {0, 1};
  raw.occurred = true;
  faults.Apply(0.0, raw);
  EXPECT_FALSE(raw.occurred);
  EXPECT_TRUE(raw.sensor_ids.empty());
}

TEST(FaultInjectorTest, ActuatorFaultsChangeTargetedWheels) {
  FaultInjector faults;
  Fault slip = MakeFault("slip", FaultKind::kWheelSlip);
  slip.target.wheel = WheelSide::kLeft;
  slip.slip_factor = 0.5;
  faults.Add(slip);
  WheelCommand w{.v_left = 1.0, .v_right = 1.0};
  faults.Apply(0.0, w);
  EXPECT_DOUBLE_EQ(w.v_left, 0.5);
  EXPECT_DOUBLE_EQ(w.v_right, 1.0);
  faults.ClearAll();

  Fault stall = MakeFault("stall", FaultKind::kWheelStall);
  stall.target.wheel = WheelSide::kRight;
  faults.Add(stall);
  w = {.v_left = 1.0, .v_right = 1.0};
  faults.Apply(0.0, w);
  EXPECT_DOUBLE_EQ(w.v_left, 1.0);
  EXPECT_DOUBLE_EQ(w.v_right, 0.0);
  faults.ClearAll();

  Fault cap = MakeFault("cap", FaultKind::kSpeedCap);
  cap.speed_cap = 0.3;
  cap.start = 2.0;
  cap.duration = 1.0;
  faults.Add(cap);
  w = {.v_left = 1.0, .v_right = -0.8};
  faults.Apply(1.0, w);  // not yet
  EXPECT_DOUBLE_EQ(w.v_left, 1.0);
  faults.Apply(2.0, w);
  EXPECT_DOUBLE_EQ(w.v_left, 0.3);
  EXPECT_DOUBLE_EQ(w.v_right, -0.3);
  w = {.v_left = 1.0, .v_right = -0.8};
  faults.Apply(3.0, w);  // ended exactly at 3.0
  EXPECT_DOUBLE_EQ(w.v_left, 1.0);
}

TEST(FaultInjectorTest, KindNamesRoundTrip) {
  for (FaultKind k :
       {FaultKind::kSensorStuck, FaultKind::kSensorNoise, FaultKind::kSensorDropout, FaultKind::kSensorBias,
        FaultKind::kSensorSpikes, FaultKind::kBumperFalsePositive, FaultKind::kBumperMissedContact,
        FaultKind::kWheelSlip, FaultKind::kWheelStall, FaultKind::kSpeedCap}) {
    EXPECT_EQ(FaultKindFromName(FaultKindName(k)), k);
  }
  EXPECT_FALSE(FaultKindFromName("sensor_melted").has_value());
}

}  // namespace
}  // namespace limbic::hwio
