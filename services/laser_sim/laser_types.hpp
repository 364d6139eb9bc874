// Value types and compass arithmetic shared by the laser robot's simulator and its controllers (spec
// reactive-topological §0.2, §5.2): centimetres, seconds, compass bearings in degrees (0° = north = +y,
// clockwise, 90° = east), a 360-beam world-frame scan (index a = bearing a°) and what the robot senses
// each 10 ms control cycle. Header-only so the controllers need nothing of the simulator but these.
#pragma once

#include <array>
#include <cmath>
#include <cstdint>
#include <limits>

namespace limbic::laser {

inline constexpr double kPi = 3.14159265358979323846;
inline constexpr double kDegToRad = kPi / 180.0;
inline constexpr double kRadToDeg = 180.0 / kPi;
inline constexpr int kBeams = 360;               // one beam per degree [T]
inline constexpr double kMaxRangeCm = 250.0;     // "no return" reads 250 [T]
inline constexpr double kControlPeriodS = 0.01;  // 100 Hz [T]
inline constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

struct Vec2 {
  double x = 0.0, y = 0.0;
};
inline Vec2 operator+(Vec2 a, Vec2 b) { return {a.x + b.x, a.y + b.y}; }
inline Vec2 operator-(Vec2 a, Vec2 b) { return {a.x - b.x, a.y - b.y}; }
inline Vec2 operator*(double k, Vec2 a) { return {k * a.x, k * a.y}; }
inline double Dot(Vec2 a, Vec2 b) { return a.x * b.x + a.y * b.y; }
inline double Norm(Vec2 a) { return std::hypot(a.x, a.y); }

// [0, 360).
inline double Wrap360(double deg) {
  // fmod(x, 360) is x exactly for |x| < 360 (most calls: bearings from atan2, sums of two angles), and
  // fmod is a library call on every controller's path.
  double w = std::fabs(deg) < 360.0 ? deg : std::fmod(deg, 360.0);
  if (w < 0.0) w += 360.0;
  return w >= 360.0 ? 0.0 : w;
}
// (−180, 180] (§0.2 wrap180).
inline double Wrap180(double deg) {
  double w = Wrap360(deg);
  return w > 180.0 ? w - 360.0 : w;
}
// |wrap180(a − b)| ∈ [0, 180] (§0.2 angdiff).
inline double AngDiff(double a, double b) { return std::fabs(Wrap180(a - b)); }
// u(β) = (sin β, cos β) (§0.2).
inline Vec2 UnitVector(double bearing_deg) {
  return {std::sin(bearing_deg * kDegToRad), std::cos(bearing_deg * kDegToRad)};
}
// Bearing of (dx, dy): atan2(dx, dy) in [0, 360) (§0.2).
inline double BearingOf(Vec2 v) { return Wrap360(std::atan2(v.x, v.y) * kRadToDeg); }
// Calls fn(a) for the beams first … last taken modulo 360 (−360 ≤ first ≤ last < 720, at most 360 beams) as at
// most two contiguous stretches of indices, each in increasing order: a beam window around a bearing without a
// modulo per beam (the laser's cast, the motion law's corridor, the proximity and goal-corridor minima).
template <typename Fn>
inline void ForEachBeam(int first, int last, Fn&& fn) {
  if (first < 0) {
    for (int a = first + kBeams; a < kBeams; ++a) fn(a);
    for (int a = 0; a <= last; ++a) fn(a);
  } else if (last >= kBeams) {
    for (int a = first; a < kBeams; ++a) fn(a);
    for (int a = 0; a <= last - kBeams; ++a) fn(a);
  } else {
    for (int a = first; a <= last; ++a) fn(a);
  }
}

// The beams first … last modulo 360 (−360 ≤ first, last < 720, at most 360 beams; none when first > last) as
// at most two contiguous stretches: fn(lo, hi) for lo … hi (0 ≤ lo ≤ hi < 360), for loops that take several
// beams at a time.
template <typename Fn>
inline void ForEachBeamStretch(int first, int last, Fn&& fn) {
  if (first > last) return;
  if (last < 0) {
    fn(first + kBeams, last + kBeams);
  } else if (first >= kBeams) {
    fn(first - kBeams, last - kBeams);
  } else if (first < 0) {
    fn(first + kBeams, kBeams - 1);
    fn(0, last);
  } else if (last >= kBeams) {
    fn(first, kBeams - 1);
    fn(0, last - kBeams);
  } else {
    fn(first, last);
  }
}

// u(a) for every beam a, computed once: the controllers sum 360 of these every cycle.
inline const std::array<Vec2, kBeams>& BeamUnitVectors() {
  static const std::array<Vec2, kBeams> table = [] {
    std::array<Vec2, kBeams> t{};
    for (int a = 0; a < kBeams; ++a) t[a] = UnitVector(a);
    return t;
  }();
  return table;
}

// One scan as the laser delivers it (§1.5.1): 360 bytes, cm, world-frame index = compass bearing.
using RangeScan = std::array<uint8_t, kBeams>;

// Shaft encoders, compass and gyro (§1.6, §5.2 OdometryImu).
struct Odometry {
  double x_cm = 0.0, y_cm = 0.0;  // dead reckoning (drifts with slip)
  double heading_deg = 0.0;       // compass: exact, no drift
  double turn_rate_dps = 0.0;     // gyro, clockwise positive
  double v_cms = 0.0, a_cms2 = 0.0;
  double v_left_cms = 0.0, v_right_cms = 0.0;
  int64_t encoder_left = 0, encoder_right = 0;  // 20 counts per mm
};

// Everything a reactive controller gets in one control cycle (spec Appendix S1 SensorFrame).
struct SensorFrame {
  int64_t cycle = 0;  // control cycle k; time = k · 10 ms
  double time_s = 0.0;
  RangeScan ranges{};
  Odometry odom;
  Vec2 goal;  // cm, world frame
};

}  // namespace limbic::laser
