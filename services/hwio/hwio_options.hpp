// Every hwio option in one struct, with the strict YAML loader (STYLE.md §5) and the fault-script loader.
#pragma once

#include <string>
#include <vector>

#include "services/hwio/collision_event_detector.hpp"
#include "services/hwio/command_limiter.hpp"
#include "services/hwio/fault_injector.hpp"
#include "services/hwio/median_filter.hpp"
#include "services/hwio/serial_backend.hpp"
#include "services/hwio/watchdog.hpp"

namespace limbic::config {
class StrictMap;
}

namespace limbic::hwio {

struct HwioOptions {
  std::string robot_id = "r1";
  std::string backend = "simulation";  // "simulation" or "serial"
  MedianFilterOptions median{};
  CollisionEventOptions collisions{};
  CommandLimiterOptions limits{};
  WatchdogOptions watchdog{};  // main.cpp sets enabled = false under the lockstep scheduler
  FaultInjectorOptions faults{};
  SerialBackendOptions serial{};
};

// Reads a mapping shaped like services/hwio/config/hwio.yaml. Robot facts under `robot:` (radius,
// wheel_separation, switch_count, wheel1: right|left) are copied into every part that needs them.
// Unknown keys or bad values throw config::ConfigError naming the file and key (after map.Finish()).
void LoadHwioOptions(config::StrictMap& map, HwioOptions* options);

// One fault from a mapping: id, kind (FaultKindName), robot, sensor_id, beam_index, bumper_switch,
// wheel (both|left|right), start, duration, seed, and the kind's parameters (stuck_range, noise_sigma,
// bias, spike_probability, spike_magnitude, slip_factor, speed_cap). Throws ConfigError if invalid.
Fault LoadFault(config::StrictMap& map);
// A timed fault script: `faults:` list of LoadFault mappings.
std::vector<Fault> LoadFaultScript(config::StrictMap& map);

}  // namespace limbic::hwio
