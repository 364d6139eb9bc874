// limbic demo: the whole multi-process stack in realtime on one environment, the robot travelling back
// and forth with affect on. A one-line live status; Ctrl-C stops every process and prints the run.
#include <netdb.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <map>
#include <sstream>

#include "common/bus/bus.hpp"
#include "common/flags/flags.hpp"
#include "common/paths/paths.hpp"
#include "common/robot/robot_description.hpp"
#include "sim/team.hpp"
#include "tools/limbic/commands.hpp"
#include "tools/limbic/launcher.hpp"
#include "tools/limbic/team_launch.hpp"

namespace {

using namespace std::chrono_literals;
std::atomic<int> g_demo_signal{0};
void OnDemoSignal(int sig) { g_demo_signal = sig; }

const char* kHelp = R"(usage: limbic demo [--set D] [--index 0] [--config affective] [--speedup 1] [--duration S]
                   [--bus ADDR] [--metrics HOST:PORT] [--faults FILE] [--foxglove [PORT|HOST:PORT]]
                   [--record FILE.mcap] [--robots N] [--body NAME | --bodies NAME,...]

Starts the whole stack (broker, simulator, hwio, mapper, planner, controller, affect, mission, metrics
exporter) as separate processes in realtime on one generated environment, with the robot travelling
back and forth between start and goal. Shows a live status line; Ctrl-C stops every process cleanly
and prints the run summary. Process logs go to a file (its path is printed).
  --set LETTER       environment set A..G (default D: offices with people)
  --index N          environment 0..19 (default 0)
  --robots N         a team of N robots r1..rN in the one world (default 1), each with its own hwio,
                     mapper, planner, affect, controller and mission; starts and goals are placed apart
                     around the environment's start and goal (robot r1 on them). 1..16
  --body NAME        every robot's body: a robot description in configs/robots (marvin, itchy, scratchy,
                     tank) or a .yaml path (default marvin)
  --bodies A,B,...   one body per robot, in robot order (with --robots N: N names)
  --config NAME      affect configuration: affective, constant, personality/neurotic, ... (default affective)
  --speedup X        simulated seconds per wall second (default 1)
  --duration S       stop by itself after S wall seconds (default: run until Ctrl-C)
  --bus ADDR         the bus every process uses (default: ipc://RUN_DIR/bus, a private one in this run's
                     directory, printed at start; tcp://127.0.0.1:PORT to reach it from elsewhere). Other
                     commands find it with --bus ADDR or `export LIMBIC_BUS=ADDR`
  --metrics H:P      Prometheus endpoint of the exporter (default 127.0.0.1:9464)
  --faults FILE      a timed fault script for hwio (e.g. services/hwio/config/example_faults.yaml);
                     live faults: limbic inject --help
  --record FILE      record the whole bus to an MCAP file (`limbic record --all`); replay it with
                     `limbic play FILE`, inspect it with `limbic bag info FILE`, or open it in Foxglove
  --foxglove [PORT]  also start the Foxglove bridge (limbic-foxglove) on ws://127.0.0.1:PORT (default 8765;
                     HOST:PORT to listen elsewhere). In Foxglove: Open connection -> Foxglove WebSocket ->
                     ws://127.0.0.1:8765, then import the layout deploy/foxglove/limbic-layout.json

No process outlives the demo, whatever ends it (Ctrl-C, a closed terminal, kill -9). A service that
fails to start 3 times in a row is named on the terminal with its last error line, and the demo exits
with status 3.

Examples:
  limbic demo                       # set D, environment 0, until Ctrl-C
  limbic demo --set B --speedup 2 --duration 60
  limbic demo --foxglove            # and watch it in Foxglove on ws://127.0.0.1:8765
  limbic demo --config personality/neurotic --faults services/hwio/config/example_faults.yaml
  limbic demo --record demo.mcap    # and record every message (limbic bag info demo.mcap)
  limbic demo --set B --robots 3    # three robots in one world (limbic topics groups them by robot)
  limbic demo --set B --body itchy  # the pentagon tricycle alone
  limbic demo --set B --robots 3 --bodies marvin,itchy,tank
)";

const char* kEmotions[] = {"anger", "fear", "happiness", "sadness", "curiosity", "surprise", "confusion"};

using limbic::cli::SelfDir;

std::string DeployFile() { return (limbic::paths::DataDir() / "deploy" / "demo.yaml").string(); }

// What the launcher reported as start failures ("start_failed" lines of its events file), one line each.
std::vector<std::string> StartFailures(const std::string& events_path) {
  std::vector<std::string> out;
  std::ifstream in(events_path);
  auto field = [](const std::string& line, const std::string& key) {
    const std::string tag = "\"" + key + "\": \"";
    const auto at = line.find(tag);
    if (at == std::string::npos) return std::string();
    std::string value;
    for (size_t i = at + tag.size(); i < line.size() && line[i] != '"'; ++i) {
      if (line[i] == '\\' && i + 1 < line.size()) ++i;
      value += line[i];
    }
    return value;
  };
  for (std::string line; std::getline(in, line);) {
    if (field(line, "event") != "start_failed") continue;
    out.push_back(field(line, "process") + " failed to start repeatedly; last error: " + field(line, "error"));
  }
  return out;
}

// A tcp:// bus whose host does not resolve can never be reached: "" if fine, else why not.
std::string UnresolvableBus(const std::string& bus) {
  if (bus.rfind("tcp://", 0) != 0) return "";
  const std::string rest = bus.substr(6);
  const auto colon = rest.rfind(':');
  std::string host = colon == std::string::npos ? rest : rest.substr(0, colon);
  if (host.size() > 2 && host.front() == '[' && host.back() == ']') host = host.substr(1, host.size() - 2);
  if (host.empty() || host == "*") return "";
  addrinfo hints{};
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  const int rc = getaddrinfo(host.c_str(), nullptr, &hints, &found);
  if (found) freeaddrinfo(found);
  return rc == 0 ? "" : "cannot resolve host '" + host + "' (" + gai_strerror(rc) + ")";
}

// The last `n` warning or error lines of the process log (what a person needs when nothing came up).
std::vector<std::string> LastProblems(const std::string& log_path, size_t n) {
  std::vector<std::string> lines;
  std::ifstream in(log_path);
  for (std::string line; std::getline(in, line);) {
    if (line.find("| W ") != std::string::npos || line.find("| E ") != std::string::npos ||
        line.find("| F ") != std::string::npos) {
      lines.push_back(line);
    }
  }
  if (lines.size() > n) lines.erase(lines.begin(), lines.end() - static_cast<long>(n));
  return lines;
}

// Without a single heartbeat this long after the start, the stack is not coming up.
constexpr auto kNothingUpAfter = std::chrono::seconds(20);

struct Row {
  std::string robot;
  int iteration;
  double time;
  bool success;
  int collisions;
  double speed;
};

}  // namespace

int main(int argc, char** argv) {
  using limbic::cli::ArgReader;
  std::vector<std::string> args(argv + 1, argv + argc);
  // --foxglove takes an optional value, which ArgReader does not do: take it out first.
  std::string foxglove_listen;
  for (size_t i = 0; i < args.size(); ++i) {
    if (args[i] != "--foxglove" && args[i].rfind("--foxglove=", 0) != 0) continue;
    std::string value = args[i].size() > 10 ? args[i].substr(11) : "";
    size_t erase = 1;
    if (value.empty() && i + 1 < args.size() && args[i + 1].rfind("--", 0) != 0) {
      value = args[i + 1];
      erase = 2;
    }
    if (value.empty()) value = "8765";
    if (value.find(':') == std::string::npos) value = "127.0.0.1:" + value;
    const std::string port = value.substr(value.rfind(':') + 1);
    if (port.empty() || port.find_first_not_of("0123456789") != std::string::npos || port.size() > 5 ||
        std::stoi(port) > 65535) {
      std::cerr << "limbic demo: --foxglove takes a port or HOST:PORT, not '" << value << "'\n";
      return 2;
    }
    foxglove_listen = value;
    args.erase(args.begin() + i, args.begin() + i + erase);
    break;
  }
  std::unique_ptr<ArgReader> reader;
  try {
    reader = std::make_unique<ArgReader>(
        args,
        std::vector<std::string>{"--set", "--index", "--config", "--speedup", "--duration", "--bus", "--metrics",
                                 "--faults", "--record", "--robots", "--body", "--bodies"},
        std::vector<std::string>{"--help"});
  } catch (const std::exception& e) {
    std::cerr << "limbic demo: " << e.what() << "\n";
    return 2;
  }
  if (reader->Has("--help")) {
    std::cout << kHelp;
    return 0;
  }
  const std::string set = reader->Get("--set", "D");
  const std::string index = reader->Get("--index", "0");
  const std::string speedup = reader->Get("--speedup", "1");
  const std::string metrics = reader->Get("--metrics", "127.0.0.1:9464");
  if (set.size() != 1 || set[0] < 'A' || set[0] > 'G') {
    std::cerr << "limbic demo: --set must be one of A..G\n";
    return 2;
  }
  if (index.find_first_not_of("0123456789") != std::string::npos || std::stoi(index) > 19) {
    std::cerr << "limbic demo: --index must be 0..19\n";
    return 2;
  }
  const std::string robots_text = reader->Get("--robots", "1");
  if (robots_text.empty() || robots_text.size() > 2 ||
      robots_text.find_first_not_of("0123456789") != std::string::npos || std::stoi(robots_text) < 1 ||
      std::stoi(robots_text) > 16) {
    std::cerr << "limbic demo: --robots must be 1..16 (got '" << robots_text << "')\n";
    return 2;
  }
  const int robots = std::stoi(robots_text);
  // Issue 18: bodies by robot description; checked here so that a bad name is one clear error, not 3 restarts.
  if (reader->Has("--body") && reader->Has("--bodies")) {
    std::cerr << "limbic demo: give --body or --bodies, not both\n";
    return 2;
  }
  std::vector<std::string> bodies = limbic::sim::SplitList(reader->Get(reader->Has("--body") ? "--body" : "--bodies"));
  if ((reader->Has("--body") || reader->Has("--bodies")) && bodies.empty()) {
    std::cerr << "limbic demo: --body/--bodies needs a robot description name\n";
    return 2;
  }
  if (reader->Has("--body") && bodies.size() != 1) {
    std::cerr << "limbic demo: --body takes one name (--bodies takes one per robot)\n";
    return 2;
  }
  for (const auto& b : bodies) {
    try {
      limbic::robot::LoadRobotDescription(b);
    } catch (const std::exception& e) {
      std::cerr << "limbic demo: " << e.what() << "\n";
      return 2;
    }
  }
  if (bodies.size() > 1 && static_cast<int>(bodies.size()) != robots) {
    std::cerr << "limbic demo: --bodies names " << bodies.size() << " bodies for " << robots << " robot(s)\n";
    return 2;
  }
  double duration = 0;
  try {
    duration = limbic::flags::ParseFiniteNumber("--duration", reader->Get("--duration", "0"));
    if (limbic::flags::ParseFiniteNumber("--speedup", speedup) <= 0 || duration < 0) {
      throw limbic::flags::FlagValueError("--speedup must be > 0 and --duration >= 0");
    }
  } catch (const limbic::flags::FlagValueError& e) {
    std::cerr << "limbic demo: " << e.what() << "\n";
    return 2;
  }
  const std::string run_dir = "/tmp/limbic-demo-" + std::to_string(getpid());
  std::filesystem::create_directories(run_dir);
  const std::string bus = reader->Get("--bus", "ipc://" + run_dir + "/bus");
  const std::string log_path = run_dir + "/processes.log";
  if (const std::string why = UnresolvableBus(bus); !why.empty()) {
    std::cerr << "limbic demo: --bus " << bus << ": " << why << "\n";
    std::filesystem::remove_all(run_dir);
    return 2;
  }
  std::string faults = reader->Get("--faults");
  if (!faults.empty()) {
    if (!std::filesystem::exists(faults)) {
      std::cerr << "limbic demo: --faults: no such file " << faults << "\n";
      return 2;
    }
    faults = std::filesystem::absolute(faults).string();
  }

  // A team: the demo file expanded to one stack per robot (tools/limbic/team_launch.hpp).
  std::string launch_file = DeployFile();
  if (robots > 1 || !bodies.empty()) {
    launch_file = run_dir + "/team.yaml";
    try {
      std::ofstream(launch_file) << limbic::cli::TeamLaunchYaml(DeployFile(), robots, bodies);
    } catch (const std::exception& e) {
      std::cerr << "limbic demo: " << e.what() << "\n";
      return 2;
    }
  }

  const pid_t demo_pid = getpid();
  // The launcher (and through it every service) dies with the demo, however the demo ends (issue 15 item 4).
  const pid_t launcher = limbic::cli::StartLauncher(
      {launch_file, "--events", run_dir + "/events.jsonl", "--var", "bus=" + bus, "--var", "set=" + set, "--var",
       "index=" + index, "--var", "config=" + reader->Get("--config", "affective"), "--var", "speedup=" + speedup,
       "--var", "metrics_listen=" + metrics, "--var", "faults=" + faults, "--give-up-after", "3"},
      log_path);
  // The recorder: `limbic record --all` beside the stack, stopped (and its file finished) at the end.
  const std::string record_path = reader->Get("--record");
  const std::string record_log = run_dir + "/record.log";
  pid_t recorder = -1;
  if (!record_path.empty()) {
    recorder = fork();
    if (recorder == 0) {
      setpgid(0, 0);
      freopen(record_log.c_str(), "w", stdout);
      dup2(fileno(stdout), STDERR_FILENO);
      const std::string limbic = SelfDir() + "/limbic";
      std::vector<std::string> a{limbic, "record", "--all", "--out", record_path, "--bus", bus, "--connect-timeout",
                                 "30"};
      std::vector<char*> c;
      for (auto& s : a) c.push_back(s.data());
      c.push_back(nullptr);
      execv(c[0], c.data());
      _exit(127);
    }
  }
  pid_t foxglove = -1;
  if (!foxglove_listen.empty()) {
    foxglove = fork();
    if (foxglove == 0) {
      setpgid(0, 0);
      if (prctl(PR_SET_PDEATHSIG, SIGTERM) != 0 || getppid() != demo_pid) _exit(126);  // dies with the demo
      const std::string log = run_dir + "/foxglove.log";
      freopen(log.c_str(), "w", stdout);
      dup2(fileno(stdout), STDERR_FILENO);
      std::vector<std::string> a{SelfDir() + "/limbic-foxglove", "--bus", bus, "--period", "0.02", "--set",
                                 "listen=" + foxglove_listen};
      std::vector<char*> c;
      for (auto& s : a) c.push_back(s.data());
      c.push_back(nullptr);
      execv(c[0], c.data());
      _exit(127);
    }
  }
  struct sigaction sa {};
  sa.sa_handler = OnDemoSignal;
  sigaction(SIGINT, &sa, nullptr);
  sigaction(SIGTERM, &sa, nullptr);
  sigaction(SIGHUP, &sa, nullptr);  // the terminal closed: stop everything as on Ctrl-C
  signal(SIGPIPE, SIG_IGN);         // ... and writing to it must not kill the demo before it has

  std::cout << "limbic demo: set " << set << " environment " << index << ", " << reader->Get("--config", "affective")
            << ", speed-up " << speedup << (robots > 1 ? ", robots r1..r" + robots_text : std::string())
            << "\n  process logs: " << log_path << "\n  metrics:      http://" << metrics
            << "/metrics  (Prometheus/Grafana: see docs/metrics.md)\n  bus:          " << bus
            << "  (try: LIMBIC_BUS=" << bus << " limbic topics)\n";
  if (foxglove > 0) {
    std::cout << "  foxglove:     ws://" << foxglove_listen << "  (Foxglove: Open connection -> Foxglove WebSocket; "
              << "layout deploy/foxglove/limbic-layout.json; log " << run_dir << "/foxglove.log)\n";
  }
  std::cout << "  Ctrl-C stops.\n" << std::endl;

  zmq::context_t context;
  limbic::bus::Node node(context, bus, {.name = "limbic-demo"});
  struct Live {
    int iteration = 0;
    double distance = 0, elapsed = 0, speed = 0, sim_time = 0;
    int collisions = 0;
    int64_t first_stamp_ns = 0;
    double speedup = 1;
    std::array<double, 7> emotions{};
    std::array<double, 6> drives{};
    std::map<std::string, std::chrono::steady_clock::time_point> services;
    // Latest health per service (issue 15): state and why it is not ok.
    std::map<std::string, std::pair<limbic::msg::ServiceState, std::string>> health;
    std::vector<Row> rows;
    // The team (robots > 1): per robot traversal, distance to goal, and contacts by kind.
    struct Member {
      int iteration = 0;
      double distance = 0;
      uint64_t robot_collisions = 0, world_collisions = 0;
    };
    std::map<std::string, Member> team;
  } live;
  live.speedup = std::stod(speedup);
  const bool tty = isatty(STDOUT_FILENO);
  node.Subscribe<limbic::msg::MissionStatus>("r1/mission", [&](const auto& m) {
    live.iteration = m.msg.iteration();
    live.distance = m.msg.distance_to_goal();
    live.elapsed = m.msg.elapsed_s();
    live.collisions = m.msg.collisions();
  });
  node.Subscribe<limbic::msg::GroundTruth>("r1/truth", [&](const auto& m) {
    live.speed = m.msg.v();
    // Realtime stamps are wall-clock; show time since the run started, in simulated seconds.
    if (live.first_stamp_ns == 0) live.first_stamp_ns = m.header.stamp_ns();
    live.sim_time = (m.header.stamp_ns() - live.first_stamp_ns) * 1e-9 * live.speedup;
  });
  node.Subscribe<limbic::msg::AffectState>("r1/affect", [&](const auto& m) {
    if (m.msg.emotions_combined() && m.msg.emotions_combined()->size() == 7) {
      for (int i = 0; i < 7; ++i) live.emotions[i] = m.msg.emotions_combined()->Get(i);
    }
    if (m.msg.drives() && m.msg.drives()->size() == 6) {
      for (int i = 0; i < 6; ++i) live.drives[i] = m.msg.drives()->Get(i);
    }
  });
  for (int i = 1; i <= robots; ++i) {
    const std::string r = "r" + std::to_string(i);
    if (robots == 1) break;
    node.Subscribe<limbic::msg::MissionStatus>(r + "/mission", [&live, r](const auto& m) {
      live.team[r].iteration = m.msg.iteration();
      live.team[r].distance = m.msg.distance_to_goal();
    });
    node.Subscribe<limbic::msg::GroundTruth>(r + "/truth", [&live, r](const auto& m) {
      live.team[r].robot_collisions = m.msg.robot_collisions();
      live.team[r].world_collisions = m.msg.world_collisions();
    });
    if (r == "r1") continue;
    node.Subscribe<limbic::msg::RunMetrics>(r + "/metrics", [&live, r](const auto& m) {
      live.rows.push_back({r, m.msg.iteration(), m.msg.completion_time_s(), m.msg.success(), m.msg.collisions(),
                           m.msg.mean_velocity()});
    });
  }
  node.Subscribe<limbic::msg::RunMetrics>("r1/metrics", [&](const auto& m) {
    live.rows.push_back({"r1", m.msg.iteration(), m.msg.completion_time_s(), m.msg.success(), m.msg.collisions(),
                         m.msg.mean_velocity()});
    std::cout << (tty ? "\r\033[K" : "") << "  traversal " << m.msg.iteration()
              << (m.msg.success() ? ": reached the goal in " : ": timed out after ") << std::fixed
              << std::setprecision(1) << m.msg.completion_time_s() << " s, " << m.msg.collisions() << " collisions"
              << std::endl;
  });
  node.SubscribeAny("health/", [&](const limbic::bus::RawMessage& m) {
    live.services[m.header.source()->str()] = std::chrono::steady_clock::now();
    if (std::string_view(m.type.identifier) == "HBT1") {
      const auto* hb = flatbuffers::GetRoot<limbic::msg::Heartbeat>(m.data);
      live.health[m.header.source()->str()] = {hb->state(), hb->status_reason() ? hb->status_reason()->str() : ""};
    }
  });

  const auto start = std::chrono::steady_clock::now();
  int launcher_status = -1;
  bool nothing_up = false;  // no heartbeat at all within kNothingUpAfter
  const auto render = [&] {
    const auto now = std::chrono::steady_clock::now();
    // Alive and ok / degraded / failing: what the services say about themselves, not only that they
    // are alive (issue 15: a robot poisoned by one NaN said "services 9/9").
    int up = 0, ok = 0;
    std::string unwell;
    for (const auto& [name, seen] : live.services) {
      if (now - seen >= 3s) continue;
      ++up;
      const auto h = live.health.find(name);
      const auto state = h == live.health.end() ? limbic::msg::ServiceState::Running : h->second.first;
      if (state != limbic::msg::ServiceState::Degraded && state != limbic::msg::ServiceState::Failing) {
        ++ok;
        continue;
      }
      std::string reason = h->second.second.substr(0, 60);
      const std::string shortname = name.substr(name.find('/') == std::string::npos ? 0 : name.find('/') + 1);
      unwell += (unwell.empty() ? "" : ", ") + shortname + " " +
                (state == limbic::msg::ServiceState::Failing ? "failing" : "degraded") +
                (reason.empty() ? "" : " (" + reason + ")");
    }
    const int dominant =
        static_cast<int>(std::max_element(live.emotions.begin(), live.emotions.end()) - live.emotions.begin());
    std::ostringstream line;
    line << std::fixed << std::setprecision(1) << "t " << std::setw(6) << live.sim_time << " s  traversal "
         << live.iteration << "  to goal " << std::setw(4) << live.distance << " m  v " << std::setprecision(2)
         << live.speed << " m/s  collisions " << live.collisions << "  " << kEmotions[dominant] << " "
         << live.emotions[dominant] << "  drives S" << live.drives[0] << " V" << live.drives[1] << " E"
         << live.drives[2] << " X" << live.drives[3] << " A" << live.drives[4] << " I" << live.drives[5]
         << "  services " << up << "/" << 3 + 6 * robots + (foxglove > 0 ? 1 : 0);
    // A team: each other robot's traversal and distance, and robot-robot / robot-world contacts per robot.
    if (robots > 1) {
      line << std::setprecision(1);
      for (const auto& [name, member] : live.team) {
        line << "  " << name << " t" << member.iteration << " " << member.distance << "m c" << member.robot_collisions
             << "/" << member.world_collisions;
      }
    }
    if (ok < up) line << " (" << ok << " ok; " << unwell << ")";
    return line.str();
  };
  const limbic::cli::LoopEnd end = limbic::cli::RunStatusLoop(
      {.node = &node,
       .launcher = launcher,
       .signal = &g_demo_signal,
       .duration_s = duration,
       .render = render,
       .stop =
           [&] {
             nothing_up = live.services.empty() && std::chrono::steady_clock::now() - start > kNothingUpAfter;
             return nothing_up;
           }},
      &launcher_status);
  const bool launcher_ended = end == limbic::cli::LoopEnd::kLauncherEnded;  // by itself, not stopped by us
  if (tty) std::cout << "\n";
  std::cout << "stopping every process..." << std::endl;
  if (!launcher_ended) launcher_status = limbic::cli::StopLauncher(launcher);
  if (recorder > 0) {
    kill(recorder, SIGINT);
    int status = 0;
    waitpid(recorder, &status, 0);
    std::ifstream log(record_log);
    std::string line, last;
    while (std::getline(log, line)) {
      if (!line.empty()) last = line;
    }
    std::cout << "recording: " << record_path << " (limbic bag info " << record_path << ")\n  " << last << "\n";
  }
  if (foxglove > 0) {
    kill(foxglove, SIGINT);
    int status = 0;
    for (int i = 0; i < 50 && waitpid(foxglove, &status, WNOHANG) == 0; ++i) usleep(100'000);
    if (waitpid(foxglove, &status, WNOHANG) == 0) {
      kill(foxglove, SIGKILL);
      waitpid(foxglove, &status, 0);
    }
  }
  const int launcher_code = WIFEXITED(launcher_status) ? WEXITSTATUS(launcher_status) : 128 + WTERMSIG(launcher_status);
  auto failures = StartFailures(run_dir + "/events.jsonl");
  if (nothing_up) {
    std::string text =
        "no service reached the bus at " + bus + " within " + std::to_string(kNothingUpAfter.count()) + " s";
    for (const auto& line : LastProblems(log_path, 3)) text += "\n  " + line;
    failures.push_back(text);
  }
  for (const auto& f : failures) std::cerr << "limbic demo: " << f << "\n";
  std::cout << "\nRun summary (" << live.rows.size() << " traversal" << (live.rows.size() == 1 ? "" : "s") << "):\n";
  std::cout << (robots > 1 ? "  robot" : "") << "  traversal  time (s)  reached  collisions  mean speed (m/s)\n";
  double total_time = 0;
  int successes = 0, collisions = 0;
  for (const auto& r : live.rows) {
    std::cout << (robots > 1 ? "  " + std::string(std::max<size_t>(5, r.robot.size()) - r.robot.size(), ' ') + r.robot
                             : "")
              << "  " << std::setw(9) << r.iteration << std::setw(10) << std::setprecision(1) << r.time << std::setw(9)
              << (r.success ? "yes" : "no") << std::setw(12) << r.collisions << std::setw(18) << std::setprecision(2)
              << r.speed << "\n";
    total_time += r.time;
    successes += r.success;
    collisions += r.collisions;
  }
  if (!live.rows.empty()) {
    std::cout << "  " << successes << "/" << live.rows.size() << " reached, mean time " << std::setprecision(1)
              << total_time / live.rows.size() << " s, " << collisions << " collisions\n";
  }
  if (robots > 1) {
    std::cout << "  contacts per robot (robot-robot / robot-world):";
    for (const auto& [name, member] : live.team)
      std::cout << " " << name << " " << member.robot_collisions << "/" << member.world_collisions;
    std::cout << "\n";
  }
  std::cout << "process logs: " << log_path << "\n";
  // Non-zero when the stack did not run as asked: a service kept failing to start (the launcher gave up,
  // status 3), or the launcher ended by itself with any failure.
  if (!failures.empty() || launcher_code != 0) {
    std::cerr << "limbic demo: the stack failed (launcher status " << launcher_code << "); see " << log_path << "\n";
    return launcher_code != 0 ? launcher_code : 3;
  }
  return 0;
}
