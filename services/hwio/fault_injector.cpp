#include "services/hwio/fault_injector.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <utility>

#include "services/hwio/collision_event_detector.hpp"

namespace limbic::hwio {
namespace {

constexpr std::array<std::pair<FaultKind, std::string_view>, 10> kKindNames{{
    {FaultKind::kSensorStuck, "sensor_stuck"},
    {FaultKind::kSensorNoise, "sensor_noise"},
    {FaultKind::kSensorDropout, "sensor_dropout"},
    {FaultKind::kSensorBias, "sensor_bias"},
    {FaultKind::kSensorSpikes, "sensor_spikes"},
    {FaultKind::kBumperFalsePositive, "bumper_false_positive"},
    {FaultKind::kBumperMissedContact, "bumper_missed_contact"},
    {FaultKind::kWheelSlip, "wheel_slip"},
    {FaultKind::kWheelStall, "wheel_stall"},
    {FaultKind::kSpeedCap, "speed_cap"},
}};

bool IsSensorKind(FaultKind k) {
  return k == FaultKind::kSensorStuck || k == FaultKind::kSensorNoise || k == FaultKind::kSensorDropout ||
         k == FaultKind::kSensorBias || k == FaultKind::kSensorSpikes;
}
bool IsBumperKind(FaultKind k) { return k == FaultKind::kBumperFalsePositive || k == FaultKind::kBumperMissedContact; }

// Reading after a fault: clamp to [0, d_max]; at d_max nothing is seen.
void SetReading(RangeBeam& beam, double range) {
  if (!std::isfinite(range)) range = beam.d_max;
  beam.range = std::clamp(range, 0.0, beam.d_max);
  beam.valid = beam.range < beam.d_max;
}

// Scan indices a sensor fault targets.
std::vector<size_t> TargetBeams(const FaultTarget& target, const RangeScan& scan) {
  std::vector<size_t> out;
  if (target.sensor_id < 0) {
    if (target.beam_index < 0) {
      for (size_t i = 0; i < scan.beams.size(); ++i) out.push_back(i);
    } else if (static_cast<size_t>(target.beam_index) < scan.beams.size()) {
      out.push_back(static_cast<size_t>(target.beam_index));
    }
    return out;
  }
  int within = 0;
  for (size_t i = 0; i < scan.beams.size(); ++i) {
    if (scan.beams[i].sensor_id != target.sensor_id) continue;
    if (target.beam_index < 0 || within == target.beam_index) out.push_back(i);
    ++within;
  }
  return out;
}

bool TargetsThisRobot(const FaultTarget& target, const std::string& robot_id) {
  return target.robot.empty() || target.robot == "*" || target.robot == robot_id;
}

}  // namespace

std::string_view FaultKindName(FaultKind kind) {
  for (const auto& [k, name] : kKindNames) {
    if (k == kind) return name;
  }
  return "unknown";
}

std::optional<FaultKind> FaultKindFromName(std::string_view name) {
  for (const auto& [k, n] : kKindNames) {
    if (n == name) return k;
  }
  return std::nullopt;
}

bool FaultActiveAt(const Fault& fault, double now) {
  if (now < fault.start) return false;
  return fault.duration == 0.0 || now < fault.start + fault.duration;
}

std::string ValidateFault(const Fault& f) {
  if (f.id.empty()) return "fault id is empty";
  if (!std::isfinite(f.start)) return "start is not finite";
  if (!std::isfinite(f.duration) || f.duration < 0.0) return "duration must be finite and >= 0";
  switch (f.kind) {
    case FaultKind::kSensorStuck:
      if (f.stuck_range && !(std::isfinite(*f.stuck_range) && *f.stuck_range >= 0.0))
        return "stuck_range must be finite and >= 0";
      break;
    case FaultKind::kSensorNoise:
      if (!(std::isfinite(f.noise_sigma) && f.noise_sigma >= 0.0)) return "noise_sigma must be finite and >= 0";
      break;
    case FaultKind::kSensorBias:
      if (!std::isfinite(f.bias)) return "bias must be finite";
      break;
    case FaultKind::kSensorSpikes:
      if (!(f.spike_probability >= 0.0 && f.spike_probability <= 1.0)) return "spike_probability must be in [0, 1]";
      if (!std::isfinite(f.spike_magnitude)) return "spike_magnitude must be finite";
      break;
    case FaultKind::kBumperFalsePositive:
      if (f.target.bumper_switch < 0) return "bumper_false_positive needs target.bumper_switch >= 0";
      break;
    case FaultKind::kWheelSlip:
      if (!(std::isfinite(f.slip_factor) && f.slip_factor >= 0.0)) return "slip_factor must be finite and >= 0";
      break;
    case FaultKind::kSpeedCap:
      if (!(std::isfinite(f.speed_cap) && f.speed_cap >= 0.0)) return "speed_cap must be finite and >= 0";
      break;
    default:
      break;
  }
  return {};
}

AddFaultResult FaultInjector::Add(const Fault& fault) {
  if (std::string reason = ValidateFault(fault); !reason.empty()) {
    ++state_.rejected_invalid;
    return {AddFaultStatus::kInvalid, "fault '" + fault.id + "': " + reason};
  }
  if (fault.kind == FaultKind::kBumperFalsePositive && fault.target.bumper_switch >= options_.switch_count) {
    ++state_.rejected_invalid;
    return {AddFaultStatus::kInvalid, "fault '" + fault.id + "': bumper_switch " +
                                          std::to_string(fault.target.bumper_switch) + " >= switch count " +
                                          std::to_string(options_.switch_count)};
  }
  if (!TargetsThisRobot(fault.target, options_.robot_id)) {
    ++state_.ignored_other_robot;
    return {AddFaultStatus::kOtherRobot, {}};
  }
  FaultSlot slot;
  slot.fault = fault;
  slot.rng.seed(fault.seed);
  for (FaultSlot& existing : state_.slots) {
    if (existing.fault.id == fault.id) {
      existing = std::move(slot);
      ++state_.replaced;
      return {AddFaultStatus::kReplaced, {}};
    }
  }
  state_.slots.push_back(std::move(slot));
  ++state_.added;
  return {AddFaultStatus::kAdded, {}};
}

bool FaultInjector::Clear(const std::string& id) {
  auto it =
      std::find_if(state_.slots.begin(), state_.slots.end(), [&](const FaultSlot& s) { return s.fault.id == id; });
  if (it == state_.slots.end()) return false;
  state_.slots.erase(it);
  ++state_.cleared;
  return true;
}

void FaultInjector::ClearAll() {
  state_.cleared += static_cast<int64_t>(state_.slots.size());
  state_.slots.clear();
}

std::vector<std::string> FaultInjector::Expire(double now) {
  std::vector<std::string> ids;
  std::erase_if(state_.slots, [&](const FaultSlot& s) {
    const bool over = s.fault.duration > 0.0 && now >= s.fault.start + s.fault.duration;
    if (over) ids.push_back(s.fault.id);
    return over;
  });
  state_.expired += static_cast<int64_t>(ids.size());
  return ids;
}

void FaultInjector::Apply(double now, RangeScan& scan) {
  Expire(now);
  for (FaultSlot& slot : state_.slots) {
    const Fault& f = slot.fault;
    if (!IsSensorKind(f.kind) || !FaultActiveAt(f, now)) continue;
    const std::vector<size_t> targets = TargetBeams(f.target, scan);
    if (targets.empty()) continue;
    ++slot.applications;
    for (size_t i : targets) {
      RangeBeam& beam = scan.beams[i];
      switch (f.kind) {
        case FaultKind::kSensorStuck: {
          if (f.stuck_range) {
            SetReading(beam, *f.stuck_range);
            break;
          }
          if (slot.held.size() < scan.beams.size()) slot.held.resize(scan.beams.size());
          if (!slot.held[i]) slot.held[i] = beam.valid ? beam.range : beam.d_max;
          SetReading(beam, *slot.held[i]);
          break;
        }
        case FaultKind::kSensorNoise:
          if (beam.valid) SetReading(beam, beam.range + f.noise_sigma * slot.normal(slot.rng));
          break;
        case FaultKind::kSensorDropout:
          beam.range = beam.d_max;
          beam.valid = false;
          break;
        case FaultKind::kSensorBias:
          if (beam.valid) SetReading(beam, beam.range + f.bias);
          break;
        case FaultKind::kSensorSpikes: {
          std::uniform_real_distribution<double> uniform(0.0, 1.0);
          if (uniform(slot.rng) < f.spike_probability) {
            SetReading(beam, (beam.valid ? beam.range : beam.d_max) + f.spike_magnitude);
          }
          break;
        }
        default:
          break;
      }
    }
  }
}

void FaultInjector::Apply(double now, CollisionEvent& contact, const geometry::Pose2& pose) {
  Expire(now);
  for (FaultSlot& slot : state_.slots) {
    const Fault& f = slot.fault;
    if (!IsBumperKind(f.kind) || !FaultActiveAt(f, now)) continue;
    ++slot.applications;
    std::vector<int>& ids = contact.sensor_ids;
    if (f.kind == FaultKind::kBumperFalsePositive) {
      // The switch closes; the contact point is placed from the switches by CollisionEventDetector, the
      // one place that does it for every backend.
      if (std::find(ids.begin(), ids.end(), f.target.bumper_switch) == ids.end()) {
        ids.push_back(f.target.bumper_switch);
        std::sort(ids.begin(), ids.end());
      }
      contact.occurred = true;
    } else {  // kBumperMissedContact
      if (f.target.bumper_switch < 0) {
        ids.clear();
      } else {
        std::erase(ids, f.target.bumper_switch);
      }
      if (ids.empty()) {
        contact.occurred = false;
        contact.new_event = false;
      }
    }
  }
}

void FaultInjector::Apply(double now, WheelCommand& wheels) {
  Expire(now);
  for (FaultSlot& slot : state_.slots) {
    const Fault& f = slot.fault;
    if (FaultActiveAt(f, now) &&
        (f.kind == FaultKind::kWheelSlip || f.kind == FaultKind::kWheelStall || f.kind == FaultKind::kSpeedCap)) {
      ++slot.applications;
      auto change = [&](double& speed) {
        if (f.kind == FaultKind::kWheelSlip) speed *= f.slip_factor;
        if (f.kind == FaultKind::kWheelStall) speed = 0.0;
        if (f.kind == FaultKind::kSpeedCap) speed = std::clamp(speed, -f.speed_cap, f.speed_cap);
      };
      if (f.target.wheel != WheelSide::kRight) change(wheels.v_left);
      if (f.target.wheel != WheelSide::kLeft) change(wheels.v_right);
    }
  }
}

std::vector<Fault> FaultInjector::ActiveFaults(double now) const {
  std::vector<Fault> out;
  for (const FaultSlot& s : state_.slots) {
    if (FaultActiveAt(s.fault, now)) out.push_back(s.fault);
  }
  return out;
}

std::vector<Fault> FaultInjector::AllFaults() const {
  std::vector<Fault> out;
  for (const FaultSlot& s : state_.slots) out.push_back(s.fault);
  return out;
}

}  // namespace limbic::hwio
