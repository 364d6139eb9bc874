// RunServiceMain: the common command line of every limbic service, signals, and the host's lifetime.
#include <algorithm>
#include <asio.hpp>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <sstream>
#include <thread>

#include "common/bus/curve_keys.hpp"
#include "common/flags/flags.hpp"
#include "common/log/log.hpp"
#include "common/runtime/runtime.hpp"
#include "common/runtime/stop_signals.hpp"

namespace limbic::runtime {
namespace {

const char* kCommonHelp = R"(Common options (every limbic service):
  --bus ADDR            bus address: ipc://PATH, tcp://HOST:PORT or inproc://NAME
                        (default: $LIMBIC_BUS or ipc:///tmp/limbic/bus)
  --robot NAME          robot namespace for topics (default r1; "" for global services)
  --mode MODE           realtime | lockstep (default realtime)
  --period S            control period T in seconds (default 0.1)
  --speedup X           realtime only: simulated seconds per wall second (default 1)
  --realtime-ticks WHAT realtime only: input (default) starts a reacting service's tick when its trigger arrives
                        (mapper: scan, controller: obstacles; its timer only if none comes for 1.5 periods) |
                        timer (every period on the wall clock, whatever arrived)
  --config FILE         YAML options of this service (unknown keys are errors)
  --set KEY=VALUE       override one setting (repeatable); KEY is one of the Settings listed below
  --check               read the options (--config, --set) as a start would, report the first bad one
                        (exit 2) or "options valid" (exit 0), and exit without touching the bus
  --log-level LEVEL     debug | info | warning | error (default info)
  --coordinate          lockstep: this process owns the clock
  --participants A,B    lockstep: the participants the coordinator waits for
  --max-ticks N         lockstep: end the run after N ticks
  --stop-quorum N       lockstep: end the run once N participants asked (a team: one per robot's mission)
  --curve-keys FILE     tcp with CURVE: YAML with server_public, client_public, client_secret
  --bus-path PATH       direct | broker: how this service's publications travel (default:
                        $LIMBIC_BUS_PATH, else direct; docs/protocol.md, "Direct delivery")
  --shm                 large messages (maps, scans) through shared memory on this host, if iox-roudi runs,
                        and over the sockets too for readers without it (default: $LIMBIC_SHM = 1; 0: off)
  --shm-only            the same without the socket copy: only readers on shared memory get them
                        ($LIMBIC_SHM = only)
  --help                this text
)";

// The value of `flag` among `choices` (--mode, --realtime-ticks), else an error naming them.
template <typename E>
E Choice(const std::string& flag, const std::string& value, std::initializer_list<std::pair<const char*, E>> choices) {
  std::string names;
  for (const auto& [name, choice] : choices) {
    if (value == name) return choice;
    names += (names.empty() ? "" : " or ") + std::string(name);
  }
  throw std::invalid_argument(flag + " must be " + names + ", not '" + value + "'");
}

std::vector<std::string> Split(const std::string& text, char sep) {
  std::vector<std::string> parts;
  std::stringstream ss(text);
  for (std::string part; std::getline(ss, part, sep);) {
    if (!part.empty()) parts.push_back(part);
  }
  return parts;
}

void PrintHelp(const ServiceDefinition& definition, const std::string& program) {
  std::cout << "limbic-" << definition.name << ": " << definition.summary << "\n\n" << kCommonHelp;
  // Declare the service without a bus to list its parameters and their defaults.
  try {
    HostOptions options;
    options.service = definition.name;
    config::StrictMap empty(YAML::Node(YAML::NodeType::Map), "defaults");
    ServiceContext context(options, &empty);
    definition.setup(context);
    if (!context.parameters().empty()) {
      std::cout << "\nSettings (YAML keys for --config and --set KEY=VALUE; live ones also `limbic param set`):\n";
      for (const auto& p : context.parameters()) {
        std::cout << "  " << p.name << " (" << (p.kind == ParameterKind::kLive ? "live" : "option") << ", " << p.type
                  << ", default " << p.get() << (p.range.empty() ? "" : ", valid " + p.range) << ")  " << p.doc << "\n";
      }
      // An example that works for this service (issue 22: the common `--set t_r=2.0` was refused by all
      // eight services): its first live setting (else its first) at its default, checked without starting.
      const auto& all = context.parameters();
      const auto live =
          std::find_if(all.begin(), all.end(), [](const Parameter& p) { return p.kind == ParameterKind::kLive; });
      const Parameter& first = live != all.end() ? *live : all.front();
      std::cout << "\nexample:\n  " << program << " --set " << first.name << "=" << first.get() << " --check\n";
    }
  } catch (const std::exception&) {
    // Listing parameters is best effort; --help must always work.
  }
  if (!definition.more_help.empty()) std::cout << "\n" << definition.more_help;
}

}  // namespace

int RunServiceMain(int argc, char** argv, const ServiceDefinition& definition) {
  HostOptions options;
  options.service = definition.name;
  if (const char* bus = std::getenv("LIMBIC_BUS")) options.bus = bus;
  std::string curve_file;
  bool check = false;
  try {
    if (const char* shm = std::getenv("LIMBIC_SHM")) {
      const bus::ShmUse use = bus::ParseShmUse(shm, "$LIMBIC_SHM");  // a misspelt value is refused (exit 2)
      options.shm = use != bus::ShmUse::kOff;
      options.shm_only = use == bus::ShmUse::kOnly;
    }
    for (int i = 1; i < argc; ++i) {
      std::string arg = argv[i];
      std::string value;
      const bool has_inline =
          arg.rfind("--", 0) == 0 && arg.find('=') != std::string::npos && arg.substr(0, arg.find('=')) != "--set";
      if (has_inline) {
        value = arg.substr(arg.find('=') + 1);
        arg = arg.substr(0, arg.find('='));
      }
      auto next = [&]() -> std::string {
        if (has_inline) return value;
        if (i + 1 >= argc) throw std::invalid_argument(arg + " needs a value");
        return argv[++i];
      };
      if (arg == "--help" || arg == "-h") {
        PrintHelp(definition, std::filesystem::path(argv[0]).filename().string());
        return 0;
      } else if (arg == "--bus") {
        options.bus = next();
      } else if (arg == "--robot") {
        options.robot = next();
      } else if (arg == "--mode") {
        options.mode = Choice<Mode>(arg, next(), {{"realtime", Mode::kRealtime}, {"lockstep", Mode::kLockstep}});
      } else if (arg == "--realtime-ticks") {
        options.realtime_ticks =
            Choice<RealtimeTicks>(arg, next(), {{"input", RealtimeTicks::kInput}, {"timer", RealtimeTicks::kTimer}});
      } else if (arg == "--period") {
        options.period_s = flags::ParseFiniteNumber(arg, next());
      } else if (arg == "--speedup") {
        options.speedup = flags::ParseFiniteNumber(arg, next());
      } else if (arg == "--config") {
        options.config_path = next();
      } else if (arg == "--set") {
        options.overrides.push_back(next());
      } else if (arg == "--log-level") {
        log::SetLevel(log::ParseLevel(next()));
      } else if (arg == "--coordinate") {
        options.coordinate = true;
      } else if (arg == "--participants") {
        options.participants = Split(next(), ',');
      } else if (arg == "--max-ticks") {
        options.max_ticks = flags::ParseInteger(arg, next(), -1);
      } else if (arg == "--stop-quorum") {
        options.stop_quorum = flags::ParseInt(arg, next(), 1);
      } else if (arg == "--curve-keys") {
        curve_file = next();
      } else if (arg == "--shm") {
        options.shm = true;
        options.shm_only = false;
      } else if (arg == "--shm-only") {
        options.shm = options.shm_only = true;
      } else if (arg == "--bus-path") {
        // As $LIMBIC_BUS_PATH, which every Node of this process reads (a misspelt value is refused here, exit 2).
        bus::UseDataPathForProcess(next());
      } else if (arg == "--check") {
        check = true;
      } else {
        throw std::invalid_argument("unknown option '" + arg + "' (see --help)");
      }
    }
    if (!curve_file.empty()) options.curve = bus::LoadCurveClientKeys(curve_file);
    if (check) {
      // What Host::Configure does, without a bus: every setting read and validated, no key unused.
      CheckHostOptions(options);
      YAML::Node root =
          options.config_path.empty() ? YAML::Node(YAML::NodeType::Map) : config::LoadFile(options.config_path);
      for (const auto& assignment : options.overrides) config::ApplyOverride(root, assignment);
      config::StrictMap map(root, options.config_path.empty() ? "--set" : options.config_path);
      ServiceContext context(options, &map);
      definition.setup(context);
      map.Finish();
      std::cout << "limbic-" << definition.name << ": options valid\n";
      return 0;
    }
  } catch (const std::exception& e) {
    std::cerr << "limbic-" << definition.name << ": " << e.what() << "\n";
    return 2;
  }

  std::atomic<bool> stop{false};
  // SIGINT/SIGTERM end the loop cleanly (sockets closed, final heartbeat sent).
  StopSignals signals([&stop](int signal) {
    LIMBIC_LOG(kInfo) << "signal " << signal << ": stopping";
    stop = true;
  });
  int status = 0;
  try {
    zmq::context_t context;
    Host host(context, options, definition);
    LIMBIC_LOG(kInfo) << "started on " << options.bus << " ("
                      << (options.mode == Mode::kLockstep ? "lockstep" : "realtime") << ", T = " << options.period_s
                      << " s)";
    status = host.Run(stop);
  } catch (const std::exception& e) {
    std::cerr << "limbic-" << definition.name << ": " << e.what() << "\n";
    status = 1;
  }
  return status;
}

}  // namespace limbic::runtime
