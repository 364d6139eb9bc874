// The simulated MARVIN-like robot (§2): geometry facts, motor model, odometry, bumpers and IR beam
// model.
#pragma once

#include <cstdint>
#include <optional>
#include <random>
#include <vector>

#include "common/geometry/geometry.hpp"
#include "common/robot/robot_description.hpp"
#include "common/types/sensing.hpp"

namespace limbic::sim {

using geometry::Pose2;
using geometry::Vec2;

// One ring of IR sensors (§2.5). Sensors are spaced evenly; each sensor has beams at `beam_offsets`
// about its axis.
struct IrRingGeometry {
  int sensor_count = 10;
  int first_sensor_id = 0;               // RangeBeam::sensor_id of the first sensor
  double first_sensor_angle = 0.0;       // rad, robot frame (0 = straight ahead)
  std::vector<double> beam_offsets_deg;  // beam directions about the sensor axis
  double mount_radius = 0.20;            // m, emitters on a circle about the robot centre (§8 item 10)
  double d_min = 0.4;                    // m, dead-zone limit
  double d_max = 3.0;                    // m, beam length
  // Emitter positions in the robot frame, one per sensor (from a robot description); empty: on the circle of
  // mount_radius about the frame's origin.
  std::vector<Vec2> positions;
};

// Robot facts (geometry), separate from noise and tuning. Defaults: MARVIN (§2.1, §8 item 10), the same as
// configs/robots/marvin.yaml; ModelFromDescription builds any other body.
struct RobotModel {
  robot::Body body = robot::Body::Circle(0.35);  // outline in the robot frame (r_R = 0.35 m for MARVIN)
  robot::Drive drive;                            // differential, d_w = 0.6 m
  int bumper_count = 8;                          // switches every 360°/n about the centre, 0 straight ahead (§2.4)
  IrRingGeometry long_range{10, 0, 0.0, {-10, -5, 0, 5, 10}, 0.20, 0.40, 3.00, {}};
  IrRingGeometry short_range{10, 10, 0.0, {0}, 0.20, 0.14, 0.75, {}};  // also sees `floor` objects

  // Radius about the body's centre that holds the body (r_R for a circle).
  double radius() const { return body.circumscribed_radius(); }
  // d_w of eqs. 4.1, 4.4–4.5 (the effective track of a skid drive).
  double wheel_separation() const { return drive.EffectiveTrack(); }
};

// The simulator's model of a described robot: body, drive, bumpers and both sensor rings with their emitters
// where the description places them.
RobotModel ModelFromDescription(const robot::RobotDescription& description);

// Motor model tuning (§2.2; values not given by the thesis, §8 item 10).
struct MotorOptions {
  double p_gain = 0.5;    // P of eq. 4.2
  double i_gain = 0.1;    // I of eq. 4.2
  double kappa_v = 0.02;  // κ_v, motor noise of eq. 4.3
  double v_min1 = 0.02;   // m/s, static friction: a wheel at rest stays at rest until |v| exceeds this
  double v_min2 = 0.01;   // m/s, a moving wheel slower than this stops
};

// Odometer errors of eq. 4.8 (ε_1, ε_2, ε_3 of the thesis, renamed per §8 item 32). All experiments
// use 0.
// What the pose estimate makes of motion the wheels did not make: a collision's 1 cm shift-back (§2.2
// item 7) and a push by a person (§3.4).
enum class ExternalMotion {
  // Recommended: the estimate moves with the body exactly (expressed in its own frame), so it drifts only
  // as eq. 4.8 says — and equals the truth when the errors are zero, the spec's perfect localisation (§0,
  // §2.3) in every experiment.
  kTracked,
  // Wheel odometry alone: shifts and pushes are never seen, so each one is an error that is never corrected
  // (what a real robot without external localisation would get).
  kUnseen,
};

struct OdometryOptions {
  double odo_sys_left = 0.0;   // ε_1: systematic relative error of the left (wheel 1) odometer
  double odo_sys_right = 0.0;  // ε_2: systematic relative error of the right (wheel 2) odometer
  double odo_rand = 0.0;       // ε_3: random relative error (× randn per wheel and cycle)
  ExternalMotion external_motion = ExternalMotion::kTracked;
};

// IR range noise (eq. 4.11).
struct RangeNoiseOptions {
  double kappa_d = 0.04;  // κ_d, §8 item 10 suggests 0.03–0.05
};

// Everything configurable about one simulated robot.
struct RobotOptions {
  RobotModel model;
  MotorOptions motor;
  OdometryOptions odometry;
  RangeNoiseOptions range_noise;
  double collision_shift = 0.01;  // m, shift away from the contact point after a rejected move (§2.2 item 7)
};

// Per-wheel motor state (eqs. 4.2–4.3).
struct WheelState {
  double drive = 0.0;    // v_W(k): PI controller output
  double actual = 0.0;   // wheel velocity after lag, noise and friction (the "measured" velocity of eq. 4.2)
  double error_1 = 0.0;  // v_E(k−1)
  double error_2 = 0.0;  // v_E(k−2)
  bool operator==(const WheelState&) const = default;
};

// Advances one wheel by one control period. Inputs: target wheel velocity, the standard-normal
// sample for eq. 4.3. Output: the new actual wheel velocity (also stored in `wheel`). Implements
// eqs. 4.2, 4.3 and static friction.
double StepWheel(const MotorOptions& options, double target, double randn, WheelState* wheel);

struct BodyVelocity {
  double v = 0.0;
  double omega = 0.0;
};
// Eqs. 4.4–4.5: v = (v1 + v2)/2, ω = (v1 − v2)/d_w; wheel 1 = left.
inline BodyVelocity BodyFromWheels(double v_left, double v_right, double wheel_separation) {
  return {0.5 * (v_left + v_right), (v_right - v_left) / wheel_separation};  // eqs. 4.4–4.5, wheel 1 = right
}
// Eq. 4.1: v_1,2 = v ± d_w·ω/2.
inline WheelCommand WheelsFromBody(double v, double omega, double wheel_separation) {
  return {v - 0.5 * wheel_separation * omega, v + 0.5 * wheel_separation * omega};  // {left, right}, eq. 4.1
}

// Tricycle steering limit (issue 18 item 2): ω clamped to ±|v| / r_lmin, the tightest turn the steered wheel
// allows (a tricycle cannot turn on the spot). Other drives: returned unchanged.
BodyVelocity LimitToDrive(const robot::Drive& drive, BodyVelocity body);

// Odometry update (eq. 4.8 then 4.4–4.7) from the wheel speeds the body moved with over dt (both 0
// when a collision rejected the move). randn_left/right are the standard-normal samples for ε_3. With
// ε_1 = ε_2 = ε_3 = 0 the estimate takes exactly the arc the true pose took (same operands, same
// operations), so an estimate that starts equal to the truth stays bit-identical.
void StepOdometry(const OdometryOptions& options, double wheel_separation, double v_left, double v_right, double dt,
                  double randn_left, double randn_right, OdometryEstimate* odometry);

// A displacement the true body made without its wheels (heading unchanged), applied to the estimate
// as options.external_motion says: rotated from the world frame into the estimate's frame by the
// heading error (true_heading − estimated heading), so a drifted estimate moves the same way relative
// to its own heading. Exact (a rotation by 0) when the headings agree.
void ApplyExternalMotion(const OdometryOptions& options, const geometry::Vec2& delta_world, double true_heading,
                         OdometryEstimate* odometry);

// Dead-zone model, eq. 4.10 used literally (§8 item 31): below d_min a reading becomes
// d_min + (d_min − d_raw)·(d_max − d_min).
inline double ApplyDeadZone(double d_raw, double d_min, double d_max) {
  return d_raw < d_min ? d_min + (d_min - d_raw) * (d_max - d_min) : d_raw;
}

// The beams of both rings, in order (long-range sensor 0 beams −10°..+10°, ..., then short-range),
// with mounting, limits and range = d_max, valid = false.
std::vector<RangeBeam> BeamLayout(const RobotModel& model);

// Contact point of a segment with the robot circle (§2.4): culled by eq. 4.9; the segment midpoint
// when both endpoints are inside; otherwise the midpoint of the part of the segment inside the
// circle (the midpoint of the two intersection points when the segment crosses the circle). nullopt
// when there is no contact.
std::optional<Vec2> SegmentContactPoint(const geometry::Segment& segment, const Vec2& center, double radius);

// Contact point between the robot circle and another circle: the midpoint of the two circles'
// intersection points (on the line between the centres). nullopt when they do not overlap.
std::optional<Vec2> CircleContactPoint(const Vec2& center, double radius, const Vec2& other, double other_radius);

// Switches (0..count−1, switch k at k·360°/count in the robot frame) closest to a contact point;
// two when the point is equidistant (within 1e-9 rad) from both.
std::vector<int> ActiveSwitches(const Pose2& pose, const Vec2& contact_point, int count);

}  // namespace limbic::sim
