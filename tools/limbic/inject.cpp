// `limbic inject`: publishes one FaultCommand on `faults` and confirms it came back through the broker.
// hwio applies sensor, bumper and actuator faults; the broker applies communication faults; every
// service host obeys kill_service for its own instance or service name.
#include <array>
#include <chrono>
#include <iostream>
#include <optional>
#include <string>
#include <string_view>

#include "common/bus/bus.hpp"
#include "common/bus/curve_keys.hpp"
#include "common/config/config.hpp"
#include "common/flags/flags.hpp"
#include "tools/limbic/commands.hpp"
#include "tools/limbic/session.hpp"

namespace limbic::cli {
namespace {

using namespace std::chrono_literals;

struct KindName {
  std::string_view name;
  msg::FaultKind kind;
  const char* magnitude;  // what --magnitude means for this kind ("" = unused)
};

constexpr std::array<KindName, 15> kKinds{{
    {"sensor_stuck", msg::FaultKind::SensorStuck, "stuck range in m (0: hold the first reading)"},
    {"sensor_noise", msg::FaultKind::SensorNoise, "Gaussian sigma in m"},
    {"sensor_dropout", msg::FaultKind::SensorDropout, ""},
    {"sensor_bias", msg::FaultKind::SensorBias, "bias in m"},
    {"sensor_spikes", msg::FaultKind::SensorSpikes, "spike size in m (with --probability per reading)"},
    {"bumper_false_positive", msg::FaultKind::BumperFalsePositive, ""},
    {"bumper_missed_contact", msg::FaultKind::BumperMissedContact, ""},
    {"wheel_slip", msg::FaultKind::WheelSlip, "delivered fraction (0.7 = 70 %)"},
    {"wheel_stall", msg::FaultKind::WheelStall, ""},
    {"speed_cap", msg::FaultKind::SpeedCap, "wheel speed cap in m/s"},
    {"comm_drop", msg::FaultKind::CommDrop, "(use --probability: fraction dropped)"},
    {"comm_delay", msg::FaultKind::CommDelay, "delay in s"},
    {"comm_duplicate", msg::FaultKind::CommDuplicate, "(use --probability: fraction duplicated)"},
    {"comm_corrupt", msg::FaultKind::CommCorrupt, "(use --probability: fraction corrupted)"},
    {"kill_service", msg::FaultKind::KillService, ""},
}};

std::optional<msg::FaultKind> KindFromName(const std::string& name) {
  for (const auto& k : kKinds) {
    if (k.name == name) return k.kind;
  }
  return std::nullopt;
}

bool IsComm(msg::FaultKind k) {
  return k == msg::FaultKind::CommDrop || k == msg::FaultKind::CommDelay || k == msg::FaultKind::CommDuplicate ||
         k == msg::FaultKind::CommCorrupt;
}

void PrintUsage() {
  std::cout << R"(usage: limbic inject KIND [options]        inject a fault
       limbic inject --clear [ID] [--robot R]  clear the fault ID (all faults without ID)

Publishes one FaultCommand on `faults`. hwio applies sensor, bumper and wheel faults; the broker applies
communication faults to one topic; kill_service makes the named service exit as if killed (`limbic launch`
restarts it).
  --robot R         robot id (default: every robot)
  --sensor N        sensor id (-1 = all; bumper faults: the switch 0..7)
  --beam N          beam index (-1 = all beams of the sensor(s))
  --wheel W         left | right | both (default both)
  --topic T         communication faults: the topic (exact name)
  --service S       kill_service: instance (r1/planner) or service name (planner)
  --magnitude X     per kind, see below
  --probability P   per-message/per-reading probability in [0, 1]
  --start S         start time in s on the target's clock (default: now)
  --duration S      seconds active (default 0: until cleared)
  --id ID           name for clearing (default: the kind's name)
  --seed N          seed for the random parts (default 1)
  --bus ADDR        bus address
  --curve-keys FILE tcp with CURVE: YAML with server_public, client_public, client_secret
Kinds:
)";
  for (const auto& k : kKinds) {
    std::cout << "  " << k.name;
    if (*k.magnitude) std::cout << std::string(24 - k.name.size(), ' ') << "--magnitude: " << k.magnitude;
    std::cout << "\n";
  }
  std::cout << "Example: limbic inject sensor_dropout --robot r1 --sensor 0 --duration 10\n";
}

}  // namespace

int InjectCommand(const Args& args) {
  ArgReader reader(args,
                   {"--bus", "--robot", "--sensor", "--beam", "--wheel", "--topic", "--service", "--magnitude",
                    "--probability", "--duration", "--start", "--id", "--seed", "--curve-keys"},
                   {"--help", "--clear"});
  if (reader.Has("--help")) {
    PrintUsage();
    return 0;
  }
  const bool clear = reader.Has("--clear");
  const auto& pos = reader.positional();
  if ((!clear && pos.size() != 1) || (clear && pos.size() > 1)) {
    std::cerr << "limbic inject: " << (clear ? "--clear takes at most one fault id" : "name one fault KIND")
              << " (see limbic inject --help)\n";
    return 2;
  }
  msg::FaultKind kind = msg::FaultKind::None;
  std::string id = reader.Get("--id");
  if (clear) {
    if (!pos.empty()) id = pos[0];
  } else {
    const auto k = KindFromName(pos[0]);
    if (!k) {
      std::cerr << "limbic inject: unknown fault kind '" << pos[0] << "'; kinds:";
      for (const auto& n : kKinds) std::cerr << " " << n.name;
      std::cerr << "\n";
      return 2;
    }
    kind = *k;
    if (id.empty()) id = pos[0];
  }
  int wheel = -1;
  const std::string wheel_name = reader.Get("--wheel", "both");
  if (wheel_name == "left")
    wheel = 0;
  else if (wheel_name == "right")
    wheel = 1;
  else if (wheel_name != "both") {
    std::cerr << "limbic inject: --wheel must be left, right or both, got '" << wheel_name << "'\n";
    return 2;
  }
  const int sensor = flags::ParseInt("--sensor", reader.Get("--sensor", "-1"), -1, 1023);
  const int beam = flags::ParseInt("--beam", reader.Get("--beam", "-1"), -1, 1023);
  const double magnitude = flags::ParseFiniteNumber("--magnitude", reader.Get("--magnitude", "0"));
  const double probability = flags::ParseFiniteNumber("--probability", reader.Get("--probability", "0"));
  const double duration = flags::ParseFiniteNumber("--duration", reader.Get("--duration", "0"));
  const double start = flags::ParseFiniteNumber("--start", reader.Get("--start", "0"));
  const int64_t seed = flags::ParseInteger("--seed", reader.Get("--seed", "1"));
  const std::string topic = reader.Get("--topic");
  const std::string service = reader.Get("--service");
  if (probability < 0 || probability > 1) {
    std::cerr << "limbic inject: --probability must be in [0, 1]\n";
    return 2;
  }
  if (duration < 0) {
    std::cerr << "limbic inject: --duration must be >= 0\n";
    return 2;
  }
  if (seed < 0) {
    std::cerr << "limbic inject: --seed must be >= 0\n";
    return 2;
  }
  if (!clear && IsComm(kind) && topic.empty()) {
    std::cerr << "limbic inject: " << pos[0] << " needs --topic\n";
    return 2;
  }
  if (!clear && kind == msg::FaultKind::KillService && service.empty()) {
    std::cerr << "limbic inject: kill_service needs --service\n";
    return 2;
  }
  if (!clear &&
      (kind == msg::FaultKind::CommDrop || kind == msg::FaultKind::CommDuplicate ||
       kind == msg::FaultKind::CommCorrupt || kind == msg::FaultKind::SensorSpikes) &&
      probability <= 0) {
    std::cerr << "limbic inject: " << pos[0] << " needs --probability above 0\n";
    return 2;
  }
  if (!clear && kind == msg::FaultKind::CommDelay && magnitude <= 0) {
    std::cerr << "limbic inject: comm_delay needs --magnitude (delay in s) above 0\n";
    return 2;
  }
  if (!clear && kind == msg::FaultKind::BumperFalsePositive && sensor < 0) {
    std::cerr << "limbic inject: bumper_false_positive needs --sensor (the switch, 0..7)\n";
    return 2;
  }

  // Its own connection rather than a Session: it may need CURVE keys (a robot/workstation deployment).
  const std::string address = reader.Get("--bus", DefaultBus());
  bus::NodeOptions node_options{.name = "limbic-inject",
                                .curve = bus::CurveKeysFromFlagOrEnvironment(reader.Get("--curve-keys", ""))};
  zmq::context_t context;
  bus::Node node(context, address, node_options);
  bool bus_seen = false;
  node.Subscribe<msg::BusStats>("bus/stats", [&](const auto&) { bus_seen = true; });
  auto pub = node.Advertise<msg::FaultCommand>("faults");
  // Watch our own command come back through the broker: proof it was delivered.
  bool echoed = false;
  node.Subscribe<msg::FaultCommand>("faults", [&](const bus::Message<msg::FaultCommand>& m) {
    if (m.header.incarnation() == node.incarnation() && m.header.source() && m.header.source()->str() == node.name()) {
      echoed = true;
    }
  });
  const std::string robot = reader.Get("--robot");
  auto send = [&] {
    pub.Publish(bus::Node::WallNowNs(), -1, [&](flatbuffers::FlatBufferBuilder& fbb, auto header) {
      return msg::CreateFaultCommandDirect(fbb, header, id.c_str(), kind, robot.c_str(), sensor, beam, wheel,
                                           topic.c_str(), service.c_str(), start, duration, magnitude, probability,
                                           static_cast<uint64_t>(seed), clear);
    });
  };
  // The publishing connection may still be coming up: repeat (same id: the receiver replaces the fault)
  // until the command is seen coming back, for up to 3 s.
  {
    // The broker's statistics (once a second) prove the bus is reachable; then let the publishing
    // connection settle.
    const auto reach = std::chrono::steady_clock::now() + 3s;
    while (!bus_seen && std::chrono::steady_clock::now() < reach) node.Poll(20ms);
    if (!bus_seen) {
      std::cerr << "limbic inject: cannot reach the bus at " << address
                << (node_options.curve.enabled() ? " (are the CURVE keys admitted?)" : "") << "\n";
      return 1;
    }
    const auto settle = std::chrono::steady_clock::now() + 300ms;
    while (std::chrono::steady_clock::now() < settle) node.Poll(20ms);
  }
  const auto deadline = std::chrono::steady_clock::now() + 3s;
  int sent = 0;
  while (!echoed && std::chrono::steady_clock::now() < deadline) {
    send();
    ++sent;
    const auto retry = std::chrono::steady_clock::now() + 1000ms;
    while (!echoed && std::chrono::steady_clock::now() < retry) node.Poll(20ms);
  }
  if (!echoed) {
    std::cerr << "limbic inject: sent the fault command " << sent << " time(s) but it never came back through "
              << address << "\n";
    return 1;
  }
  if (clear) {
    std::cout << "cleared " << (id.empty() ? std::string("all faults") : "fault '" + id + "'") << "\n";
  } else if (kind == msg::FaultKind::KillService) {
    std::cout << "sent kill_service to '" << service << "'\n";
  } else {
    std::cout << "injected " << pos[0] << " as '" << id << "' (clear with: limbic inject --clear " << id << ")\n";
  }
  return 0;
}

}  // namespace limbic::cli
