#include "services/hwio/hwio_options.hpp"

#include <cmath>

#include "common/config/config.hpp"
#include "common/robot/robot_description.hpp"

namespace limbic::hwio {

void LoadHwioOptions(config::StrictMap& map, HwioOptions* o) {
  map.Optional("robot_id", &o->robot_id);
  map.Optional("backend", &o->backend);
  if (o->backend != "simulation" && o->backend != "serial") {
    map.Fail("backend", "must be 'simulation' or 'serial', got '" + o->backend + "'");
  }

  config::StrictMap robot = map.Child("robot");
  // Issue 18: the body's facts come from its description; radius, wheel_separation and switch_count override them
  // (a hardware robot without a description file).
  std::string body_name = "marvin";
  robot.Optional("body", &body_name);
  robot::RobotDescription description;
  try {
    description = robot::LoadRobotDescription(body_name);
  } catch (const config::ConfigError& e) {
    robot.Fail("body", e.what());
  }
  robot::Body body = description.body;
  double radius = body.circumscribed_radius();
  double separation = description.drive.EffectiveTrack();
  int switches = description.bumper_count;
  std::string wheel1 = o->limits.wheel_assignment == WheelAssignment::kWheel1IsRight ? "right" : "left";
  if (robot.Optional("radius", &radius)) {
    if (!(radius > 0.0) || !std::isfinite(radius)) robot.Fail("radius", "must be > 0");
    body = robot::Body::Circle(radius);
  }
  robot.Optional("wheel_separation", &separation);
  robot.Optional("switch_count", &switches);
  robot.Optional("wheel1", &wheel1);
  if (!(separation > 0.0)) robot.Fail("wheel_separation", "must be > 0");
  if (switches < 1 || switches > 32) robot.Fail("switch_count", "must be in 1..32");
  if (wheel1 != "right" && wheel1 != "left") robot.Fail("wheel1", "must be 'right' or 'left'");
  const WheelAssignment assignment =
      wheel1 == "right" ? WheelAssignment::kWheel1IsRight : WheelAssignment::kWheel1IsLeft;

  config::StrictMap median = map.Child("median_filter");
  median.Optional("window", &o->median.window);
  if (o->median.window < 1) median.Fail("window", "must be >= 1");

  config::StrictMap collisions = map.Child("collisions");
  collisions.Optional("count_contact_at_start", &o->collisions.count_contact_at_start);
  collisions.Optional("rearm_s", &o->collisions.rearm_s);
  collisions.Optional("rearm_distance_m", &o->collisions.rearm_distance_m);
  if (!(o->collisions.rearm_s >= 0.0))
    collisions.Fail("rearm_s", "must be >= 0 (0: every touch after a free cycle counts)");
  if (!(o->collisions.rearm_distance_m >= 0.0)) collisions.Fail("rearm_distance_m", "must be >= 0");

  config::StrictMap limits = map.Child("limits");
  limits.Optional("v_max", &o->limits.v_max);
  limits.Optional("allow_reverse", &o->limits.allow_reverse);
  // A drive that cannot turn on the spot (a tricycle) backs out when it is stuck: its controller's reversing arcs
  // must reach the wheels (issue 18).
  if (description.drive.kind == robot::DriveKind::kTricycle) o->limits.allow_reverse = true;
  limits.Optional("omega_max", &o->limits.omega_max);
  limits.Optional("wheel_speed_max", &o->limits.wheel_speed_max);
  limits.Optional("preserve_curvature", &o->limits.preserve_curvature);
  if (!(o->limits.v_max > 0.0)) limits.Fail("v_max", "must be > 0");
  if (!(o->limits.omega_max > 0.0)) limits.Fail("omega_max", "must be > 0");
  if (!(o->limits.wheel_speed_max > 0.0)) limits.Fail("wheel_speed_max", "must be > 0");

  config::StrictMap watchdog = map.Child("watchdog");
  watchdog.Optional("timeout", &o->watchdog.timeout);
  watchdog.Optional("enabled", &o->watchdog.enabled);
  if (!(o->watchdog.timeout > 0.0)) watchdog.Fail("timeout", "must be > 0");

  config::StrictMap serial = map.Child("serial");
  serial.Optional("device", &o->serial.device);
  serial.Optional("baud_rate", &o->serial.baud_rate);
  serial.Optional("ticks_per_metre", &o->serial.ticks_per_metre);
  serial.Optional("stale_timeout", &o->serial.stale_timeout);
  if (!(o->serial.ticks_per_metre > 0.0)) serial.Fail("ticks_per_metre", "must be > 0");
  if (!(o->serial.stale_timeout > 0.0)) serial.Fail("stale_timeout", "must be > 0");
  if (o->backend == "serial" && o->serial.device.empty()) serial.Fail("device", "is required for backend 'serial'");

  o->collisions.body = body;
  o->collisions.switch_count = switches;
  o->limits.wheel_separation = separation;
  o->limits.wheel_assignment = assignment;
  o->faults.robot_id = o->robot_id;
  o->faults.robot_radius = radius;
  o->faults.switch_count = switches;
  o->serial.wheel_separation = separation;
  o->serial.wheel_assignment = assignment;
  o->serial.switch_count = switches;
}

Fault LoadFault(config::StrictMap& map) {
  Fault f;
  f.id = map.Required<std::string>("id");
  const std::string kind = map.Required<std::string>("kind");
  const std::optional<FaultKind> parsed = FaultKindFromName(kind);
  if (!parsed) map.Fail("kind", "names no fault kind: '" + kind + "'");
  f.kind = *parsed;
  map.Optional("robot", &f.target.robot);
  map.Optional("sensor_id", &f.target.sensor_id);
  map.Optional("beam_index", &f.target.beam_index);
  map.Optional("bumper_switch", &f.target.bumper_switch);
  std::string wheel = "both";
  map.Optional("wheel", &wheel);
  if (wheel == "both") {
    f.target.wheel = WheelSide::kBoth;
  } else if (wheel == "left") {
    f.target.wheel = WheelSide::kLeft;
  } else if (wheel == "right") {
    f.target.wheel = WheelSide::kRight;
  } else {
    map.Fail("wheel", "must be both, left or right");
  }
  map.Optional("start", &f.start);
  map.Optional("duration", &f.duration);
  map.Optional("seed", &f.seed);
  double stuck = 0.0;
  if (map.Optional("stuck_range", &stuck)) f.stuck_range = stuck;
  map.Optional("noise_sigma", &f.noise_sigma);
  map.Optional("bias", &f.bias);
  map.Optional("spike_probability", &f.spike_probability);
  map.Optional("spike_magnitude", &f.spike_magnitude);
  map.Optional("slip_factor", &f.slip_factor);
  map.Optional("speed_cap", &f.speed_cap);
  if (std::string reason = ValidateFault(f); !reason.empty()) map.Fail("kind", "describes an invalid fault: " + reason);
  return f;
}

std::vector<Fault> LoadFaultScript(config::StrictMap& map) {
  std::vector<Fault> faults;
  for (config::StrictMap& entry : map.ChildList("faults")) faults.push_back(LoadFault(entry));
  return faults;
}

}  // namespace limbic::hwio
