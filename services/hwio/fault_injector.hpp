// Applies injected sensor, bumper and actuator faults to the robot's raw I/O (issue 3, issue 8 item 1).
#pragma once

#include <cstdint>
#include <optional>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "common/geometry/geometry.hpp"
#include "common/robot/robot_description.hpp"
#include "common/types/sensing.hpp"

namespace limbic::hwio {

enum class FaultKind {
  // Sensor faults act on raw RangeScan beams (before the median filter, like a real faulty sensor).
  kSensorStuck,    // reading frozen at `stuck_range`, or at the first reading seen in the window
  kSensorNoise,    // + N(0, noise_sigma²) on valid readings; invalid readings stay invalid
  kSensorDropout,  // reading = d_max, valid = false (nothing seen)
  kSensorBias,     // + bias on valid readings
  kSensorSpikes,   // with probability spike_probability per reading: + spike_magnitude (invalid → from d_max)
  // Bumper faults act on the raw CollisionEvent (before the event detector).
  kBumperFalsePositive,  // switch target.bumper_switch reports contact
  kBumperMissedContact,  // switch target.bumper_switch (−1: every switch) never reports contact
  // Actuator faults act on the WheelCommand sent to the motors (after limiter and watchdog).
  kWheelSlip,   // wheel speed × slip_factor (0.7 = the wheel delivers 70 %)
  kWheelStall,  // wheel speed = 0
  kSpeedCap,    // |wheel speed| ≤ speed_cap
};

// Stable names used in messages and YAML fault scripts: "sensor_stuck", "sensor_noise", "sensor_dropout",
// "sensor_bias", "sensor_spikes", "bumper_false_positive", "bumper_missed_contact", "wheel_slip",
// "wheel_stall", "speed_cap".
std::string_view FaultKindName(FaultKind kind);
std::optional<FaultKind> FaultKindFromName(std::string_view name);

enum class WheelSide { kBoth, kLeft, kRight };

// What a fault hits. Beam selection: sensor_id −1 and beam_index −1 = every beam; sensor_id s = every beam
// of sensor s; beam_index b alone = scan.beams[b]; both = the b-th beam (in scan order) of sensor s.
struct FaultTarget {
  std::string robot{};  // robot id; "" or "*" = every robot
  int sensor_id = -1;
  int beam_index = -1;
  int bumper_switch = -1;  // 0..7 (0 straight ahead, increasing CCW); false positive needs one
  WheelSide wheel = WheelSide::kBoth;
};

// One injected fault, as it travels on the `faults` topic or in a fault script.
struct Fault {
  std::string id{};  // unique; adding an id again replaces the fault
  FaultKind kind = FaultKind::kSensorDropout;
  FaultTarget target{};
  double start = 0.0;     // s (same clock as Apply's `now`)
  double duration = 0.0;  // s; active on [start, start + duration); 0 = until cleared
  uint64_t seed = 0;      // for noise and spikes
  // Kind-specific parameters (unused ones are ignored).
  std::optional<double> stuck_range{};  // kSensorStuck (m); empty = hold the first reading seen
  double noise_sigma = 0.0;             // kSensorNoise (m), ≥ 0
  double bias = 0.0;                    // kSensorBias (m)
  double spike_probability = 0.0;       // kSensorSpikes, in [0, 1]
  double spike_magnitude = 0.0;         // kSensorSpikes (m), may be negative (phantom obstacle)
  double slip_factor = 1.0;             // kWheelSlip, ≥ 0
  double speed_cap = 0.0;               // kSpeedCap (m/s), ≥ 0
};

struct FaultInjectorOptions {
  std::string robot_id = "r1";  // faults for other robots are ignored
  // r_R: places false-positive contact points on the chassis edge (the description's circumscribed radius).
  double robot_radius = robot::RobotDescription{}.body.circumscribed_radius();
  int switch_count = 8;
};

// Live data of one fault: the fault, its own generator and what a stuck sensor holds.
struct FaultSlot {
  Fault fault{};
  std::mt19937_64 rng{};
  std::normal_distribution<double> normal{0.0, 1.0};  // kSensorNoise draws (keeps its cached pair value)
  std::vector<std::optional<double>> held{};          // kSensorStuck without stuck_range: per scan index
  int64_t applications = 0;                           // Apply calls in which the fault was active and matched
};

struct FaultInjectorState {
  std::vector<FaultSlot> slots{};  // in order of addition (applied in this order)
  int64_t added = 0;
  int64_t replaced = 0;
  int64_t expired = 0;
  int64_t cleared = 0;
  int64_t ignored_other_robot = 0;
  int64_t rejected_invalid = 0;
};

enum class AddFaultStatus { kAdded, kReplaced, kOtherRobot, kInvalid };
struct AddFaultResult {
  AddFaultStatus status = AddFaultStatus::kAdded;
  std::string reason{};  // for kInvalid: what is wrong, for a log line
};

// Holds the faults aimed at this robot and applies those active at a given time.
//
// Inputs:  faults (Add/Clear), then per cycle the raw scan, raw bumper event and outgoing wheel command
//          with the current time.
// Outputs: the same values with exactly the targeted readings changed. A fault is active on
//          [start, start + duration) (duration 0: until cleared); it is dropped at the first call at or after
//          its end. Random kinds draw only for the readings they change, from their own generator
//          seeded with Fault::seed, so a run replays identically.
class FaultInjector {
 public:
  explicit FaultInjector(FaultInjectorOptions options = {}) : options_(std::move(options)) {}

  AddFaultResult Add(const Fault& fault);
  // Removes the fault with this id; returns whether it existed.
  bool Clear(const std::string& id);
  void ClearAll();
  // Drops faults whose end ≤ now; returns their ids (for a log line).
  std::vector<std::string> Expire(double now);

  void Apply(double now, RangeScan& scan);
  // `pose` places a false-positive contact point when there is no real contact (world frame).
  void Apply(double now, CollisionEvent& contact, const geometry::Pose2& pose = {});
  void Apply(double now, WheelCommand& wheels);

  // Faults active at `now` (for health and reporting), and every held fault (active or pending).
  std::vector<Fault> ActiveFaults(double now) const;
  std::vector<Fault> AllFaults() const;

  const FaultInjectorOptions& options() const { return options_; }
  const FaultInjectorState& state() const { return state_; }

 private:
  FaultInjectorOptions options_;
  FaultInjectorState state_;
};

// Whether `fault` is active at `now` ([start, start + duration), duration 0 = open-ended).
bool FaultActiveAt(const Fault& fault, double now);
// Empty when the fault is well formed, otherwise a reason.
std::string ValidateFault(const Fault& fault);

}  // namespace limbic::hwio
