// Environment information (spec reactive-topological §2.3, thesis Ch. 4.2.2): eight quantities computed
// every control cycle from the scan and a little state, which index the case library and feed the
// evolved networks.
//   Clutter (Eq. 4-4)   = Σ_a [r_a − r_{a−1} > d]       (signed: one range jump per obstacle edge; A37)
//   Density (Eq. 4-5)   = Σ_a [r_a < S]                  (0..360; cases compare 100·Density/360, A7)
//   Proximity (Eq. 4-6) = −1 if f ≥ S, 0 if S > f ≥ d, 1 if f < d; f = closest range within ±35° of heading
//   Wander (Eq. 4-7)    = 1 − l/p since the current case started (0 when p = 0), or over the last 1 s
//                         for the networks, which have no cases (A19)
//   Clear-to-goal, Senses-goal, Goal-nearby, Nomovement: binaries with the [A] thresholds of §2.3 (A11).
// S = 250 cm and d = 30 cm (the robot's diameter).
//
// Inputs: SensorFrame (scan, odometry, goal). Outputs: EnvironmentInfo.
#pragma once

#include <vector>

#include "services/laser_sim/laser_types.hpp"

namespace limbic::laser {

struct EnvironmentInfo {
  int clutter = 0;
  int density = 0;           // beams with r < S, 0..360
  double density_pct = 0.0;  // 100 · density / 360
  int proximity = -1;        // −1 / 0 / 1
  double ofd_cm = 250.0;     // f: closest range within ±35° of the heading (robot.ofd)
  double wander = 0.0;       // 0..1
  bool clear_to_goal = false;
  bool senses_goal = false;
  bool goal_nearby = false;
  bool nomovement = false;
  double goal_bearing_deg = 0.0;  // from the odometric position
  double goal_range_cm = 0.0;
};

struct EnvironmentOptions {
  double sensing_cm = 250.0;           // S for environment information [A]
  double d_cm = 30.0;                  // [T] AMR diameter
  int proximity_half_fov_deg = 35;     // [T] 71 beams
  double facing_tolerance_deg = 10.0;  // [A] Clear-to-goal
  int goal_corridor_deg = 3;           // [A] beams within ±3° of the goal bearing
  double still_speed_cms = 5.0;        // [A] Nomovement: |v| below this...
  double still_time_s = 1.0;           // [A] ...for this long
  // Wander's reference: 0 measures since the current case started (Eq. 4-7, the case-based controller);
  // > 0 over a sliding window of this many seconds (the networks have no cases: 1 s, A19).
  double wander_window_s = 0.0;
};

// Eq. 4-4 and 4-5 over one scan in whole centimetres: clutter counts beams a with r_a − r_{a−1} > jump (beam 0's
// predecessor is beam 359), density beams with r_a < below. ScanCounts is what Update uses (16 beams at a time with
// SSE2, where the compiler targets it: every x86-64 build); ScanCountsScalar is the plain loop, its test oracle,
// compiled everywhere. Equal for every scan and every jump and below.
struct ScanCountResult {
  int clutter = 0;
  int density = 0;
  bool operator==(const ScanCountResult&) const = default;
};
ScanCountResult ScanCounts(const RangeScan& r, int jump, int below);
ScanCountResult ScanCountsScalar(const RangeScan& r, int jump, int below);

// Tracks the state behind Wander (the case start) and Nomovement (how long the robot has been still).
class EnvironmentTracker {
 public:
  explicit EnvironmentTracker(const EnvironmentOptions& options = {});

  // Computes the information for this cycle (call once per cycle, in order).
  const EnvironmentInfo& Update(const SensorFrame& frame);
  // A new case starts here: Wander is measured from the current position (Eq. 4-7).
  void ResetWander();
  const EnvironmentInfo& info() const { return info_; }

 private:
  EnvironmentOptions options_;
  EnvironmentInfo info_;
  bool have_position_ = false;
  bool reset_pending_ = true;
  Vec2 case_start_, last_position_;
  double path_cm_ = 0.0;
  // Sliding-window Wander: the last window + 1 positions and the path length travelled up to each.
  struct Sample {
    Vec2 p;
    double path_cm = 0.0;
  };
  std::vector<Sample> window_;
  size_t window_next_ = 0, window_count_ = 0;
  double still_since_s_ = 0.0;
  bool still_ = false;
};

}  // namespace limbic::laser
