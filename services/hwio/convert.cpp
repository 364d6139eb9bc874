#include "services/hwio/convert.hpp"

#include <algorithm>

namespace limbic::hwio {

std::optional<Fault> FaultFromMsg(const msg::FaultCommand& m, double now) {
  Fault f;
  switch (m.kind()) {
    case msg::FaultKind::SensorStuck:
      f.kind = FaultKind::kSensorStuck;
      break;
    case msg::FaultKind::SensorNoise:
      f.kind = FaultKind::kSensorNoise;
      break;
    case msg::FaultKind::SensorDropout:
      f.kind = FaultKind::kSensorDropout;
      break;
    case msg::FaultKind::SensorBias:
      f.kind = FaultKind::kSensorBias;
      break;
    case msg::FaultKind::SensorSpikes:
      f.kind = FaultKind::kSensorSpikes;
      break;
    case msg::FaultKind::BumperFalsePositive:
      f.kind = FaultKind::kBumperFalsePositive;
      break;
    case msg::FaultKind::BumperMissedContact:
      f.kind = FaultKind::kBumperMissedContact;
      break;
    case msg::FaultKind::WheelSlip:
      f.kind = FaultKind::kWheelSlip;
      break;
    case msg::FaultKind::WheelStall:
      f.kind = FaultKind::kWheelStall;
      break;
    case msg::FaultKind::SpeedCap:
      f.kind = FaultKind::kSpeedCap;
      break;
    default:
      return std::nullopt;
  }
  f.id = m.id() ? m.id()->str() : "";
  f.target.robot = m.robot() ? m.robot()->str() : "";
  f.target.sensor_id = m.sensor();
  f.target.beam_index = m.beam();
  f.target.bumper_switch = m.sensor();  // bumper faults name the switch in `sensor`
  f.target.wheel = m.wheel() == 0 ? WheelSide::kLeft : m.wheel() == 1 ? WheelSide::kRight : WheelSide::kBoth;
  f.start = std::max(m.start_s(), now);
  f.duration = m.duration_s();
  f.seed = m.seed();
  const double x = m.magnitude();
  switch (f.kind) {
    case FaultKind::kSensorStuck:
      if (x > 0) f.stuck_range = x;  // 0: hold the first reading
      break;
    case FaultKind::kSensorNoise:
      f.noise_sigma = x;
      break;
    case FaultKind::kSensorBias:
      f.bias = x;
      break;
    case FaultKind::kSensorSpikes:
      f.spike_probability = m.probability();
      f.spike_magnitude = x;
      break;
    case FaultKind::kWheelSlip:
      f.slip_factor = x;
      break;
    case FaultKind::kSpeedCap:
      f.speed_cap = x;
      break;
    default:
      break;
  }
  return f;
}

}  // namespace limbic::hwio
