#include "sim/robot.hpp"

#include <algorithm>
#include <cmath>

namespace limbic::sim {

using geometry::kPi;

double StepWheel(const MotorOptions& options, double target, double randn, WheelState* wheel) {
  // Eq. 4.2: v_W(k+1) = v_W(k) + P·v_E(k) + I·(v_E(k) + v_E(k−1) + v_E(k−2)).
  const double error = target - wheel->actual;
  const double drive_next =
      wheel->drive + options.p_gain * error + options.i_gain * (error + wheel->error_1 + wheel->error_2);
  // Eq. 4.3: lag (average with the previous output) and multiplicative Gaussian noise.
  double v = ((1.0 + options.kappa_v * randn) * drive_next + wheel->drive) / 2.0;
  // Static friction.
  if (wheel->actual == 0.0) {
    if (std::abs(v) <= options.v_min1) v = 0.0;
  } else if (std::abs(v) < options.v_min2) {
    v = 0.0;
  }
  wheel->error_2 = wheel->error_1;
  wheel->error_1 = error;
  wheel->drive = drive_next;
  wheel->actual = v;
  return v;
}

void StepOdometry(const OdometryOptions& options, double wheel_separation, double v_left, double v_right, double dt,
                  double randn_left, double randn_right, OdometryEstimate* odometry) {
  // Eq. 4.8: v_M = (1 + ε_sys + ε_rand·randn) ⊙ v. With zero errors the factor is exactly 1.
  const double measured_left = (1.0 + options.odo_sys_left + options.odo_rand * randn_left) * v_left;
  const double measured_right = (1.0 + options.odo_sys_right + options.odo_rand * randn_right) * v_right;
  const BodyVelocity measured = BodyFromWheels(measured_left, measured_right, wheel_separation);  // 4.4–4.5
  // A rejected move leaves the true pose where it was; so does a standing estimate (IntegrateArc would
  // still re-wrap the heading).
  if (measured.v != 0.0 || measured.omega != 0.0) {
    odometry->pose = geometry::IntegrateArc(odometry->pose, measured.v, measured.omega, dt);  // 4.6–4.7
  }
  odometry->v = measured.v;
  odometry->omega = measured.omega;
}

void ApplyExternalMotion(const OdometryOptions& options, const geometry::Vec2& delta_world, double true_heading,
                         OdometryEstimate* odometry) {
  if (options.external_motion == ExternalMotion::kUnseen) return;
  const double error = odometry->pose.theta - true_heading;
  const double c = std::cos(error), s = std::sin(error);
  odometry->pose.x += c * delta_world.x() - s * delta_world.y();
  odometry->pose.y += s * delta_world.x() + c * delta_world.y();
}

RobotModel ModelFromDescription(const robot::RobotDescription& d) {
  RobotModel m;
  m.body = d.body;
  m.drive = d.drive;
  m.bumper_count = d.bumper_count;
  int first_id = 0;
  for (auto [ring, source] : {std::pair{&m.long_range, &d.long_range}, std::pair{&m.short_range, &d.short_range}}) {
    ring->sensor_count = source->count;
    ring->first_sensor_id = first_id;
    ring->first_sensor_angle = source->first_angle;
    ring->beam_offsets_deg = source->beam_offsets_deg;
    ring->mount_radius = source->mount_radius;
    ring->d_min = source->d_min;
    ring->d_max = source->d_max;
    ring->positions.clear();
    // A ring on a circle about R's origin keeps the §2.5 layout's own arithmetic (BeamLayout); anything else
    // gets its emitters from the description.
    if (source->mount_inset || !d.body.centre().isZero()) {
      for (int s = 0; s < source->count; ++s) ring->positions.push_back(d.SensorPosition(*source, s));
    }
    first_id += source->count;
  }
  return m;
}

BodyVelocity LimitToDrive(const robot::Drive& drive, BodyVelocity body) {
  if (drive.kind != robot::DriveKind::kTricycle) return body;
  const double omega_max = std::abs(body.v) / drive.MinTurningRadius();
  body.omega = std::clamp(body.omega, -omega_max, omega_max);
  return body;
}

std::vector<RangeBeam> BeamLayout(const RobotModel& model) {
  std::vector<RangeBeam> beams;
  for (const IrRingGeometry* ring : {&model.long_range, &model.short_range}) {
    for (int s = 0; s < ring->sensor_count; ++s) {
      const double axis = ring->first_sensor_angle + 2.0 * kPi * s / ring->sensor_count;
      for (double offset_deg : ring->beam_offsets_deg) {
        RangeBeam b;
        b.sensor_id = ring->first_sensor_id + s;
        b.origin_local = ring->positions.empty() ? Vec2(ring->mount_radius * geometry::UnitVector(axis))
                                                 : ring->positions[static_cast<size_t>(s)];
        b.angle_local = geometry::WrapAngle(axis + offset_deg * kPi / 180.0);
        b.d_min = ring->d_min;
        b.d_max = ring->d_max;
        b.range = ring->d_max;
        b.valid = false;
        beams.push_back(b);
      }
    }
  }
  return beams;
}

std::optional<Vec2> SegmentContactPoint(const geometry::Segment& segment, const Vec2& center, double radius) {
  const double half = 0.5 * segment.Length();
  // Eq. 4.9: cull when the midpoint is further than r_R + l_L/2.
  if ((segment.Midpoint() - center).squaredNorm() > (radius + half) * (radius + half)) return std::nullopt;
  const double r2 = radius * radius;
  const bool a_in = (segment.a - center).squaredNorm() < r2;
  const bool b_in = (segment.b - center).squaredNorm() < r2;
  if (a_in && b_in) return segment.Midpoint();
  const geometry::SegmentCircleHits hits = geometry::SegmentCircleIntersections(segment, center, radius);
  if (hits.count == 2) return 0.5 * (hits.points[0] + hits.points[1]);
  if (hits.count == 1) {
    // One end inside: the part inside runs from that end to the crossing point.
    if (a_in) return 0.5 * (segment.a + hits.points[0]);
    if (b_in) return 0.5 * (segment.b + hits.points[0]);
    return hits.points[0];  // tangent
  }
  return std::nullopt;
}

std::optional<Vec2> CircleContactPoint(const Vec2& center, double radius, const Vec2& other, double other_radius) {
  const Vec2 d = other - center;
  const double dist = d.norm();
  if (dist >= radius + other_radius) return std::nullopt;
  if (dist < 1e-12) return center;
  // Distance from `center` to the chord joining the intersection points, clamped into the robot.
  double a = (dist * dist + radius * radius - other_radius * other_radius) / (2.0 * dist);
  a = std::clamp(a, 0.0, radius);
  return center + (a / dist) * d;
}

std::vector<int> ActiveSwitches(const Pose2& pose, const Vec2& contact_point, int count) {
  const Vec2 d = contact_point - pose.Position();
  const double bearing = geometry::WrapAngle(std::atan2(d.y(), d.x()) - pose.theta);
  double best = 1e9;
  std::vector<int> ids;
  for (int k = 0; k < count; ++k) {
    const double dist = geometry::AngleDistance(bearing, 2.0 * kPi * k / count);
    if (dist < best - 1e-9) {
      best = dist;
      ids.assign(1, k);
    } else if (std::abs(dist - best) <= 1e-9) {
      ids.push_back(k);
    }
  }
  return ids;
}

}  // namespace limbic::sim
