// limbic recruit demo: the live team of deploy/recruit_demo.yaml (broker, radio, exporter, a UAV and six
// UGVs, each a process) under `limbic launch`, with a live table of who is where, who transmitted and
// who is ashamed. Ctrl-C stops every process and prints the recruitments.
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <iomanip>
#include <iostream>
#include <map>
#include <sstream>

#include "common/bus/bus.hpp"
#include "common/flags/flags.hpp"
#include "common/paths/paths.hpp"
#include "tools/limbic/launcher.hpp"

namespace limbic::recruit {
namespace {

using namespace std::chrono_literals;
std::atomic<int> g_signal{0};
void OnSignal(int sig) { g_signal = sig; }

const char* kHelp = R"(usage: limbic recruit demo [--strategy S] [--loss P] [--speedup X] [--duration S]
                          [--bus ADDR] [--metrics HOST:PORT]

Starts deploy/recruit_demo.yaml: the broker, the radio, the Prometheus exporter, a UAV (r0) flying
between four sites and asking for help at each, and six UGVs (r1..r6), every robot its own
limbic-recruiter process. Prints, per robot, its state, its SHAME (a bar against the threshold |), its
transmissions, and the UAV's recruitments; Ctrl-C stops every process.
  --strategy S     affective | affective_sq | greedy | random (default affective)
  --loss P         i.i.d. loss per transmission on the radio, 0..1 (default 0.1)
  --speedup X      simulated seconds per wall second (default 4)
  --duration S     stop by itself after S wall seconds (default: until Ctrl-C)
  --bus ADDR       bus address (default: a fresh ipc:// path under /tmp)
  --metrics H:P    Prometheus endpoint (default 127.0.0.1:9464); Grafana: deploy/grafana, panel
                   "Recruitment: SHAME per robot"

examples:
  limbic recruit demo
  limbic recruit demo --strategy greedy --loss 0.25 --duration 60
)";

std::string DeployFile() { return (paths::DataDir() / "deploy" / "recruit_demo.yaml").string(); }

struct RobotView {
  std::string role, responder, requester, decision;
  double x = 0, y = 0, shame = 0, threshold = 0.75, last_wait = NAN;
  uint64_t tx = 0, recruited = 0, episodes = 0, ignored = 0;
};

std::string Bar(double shame, double threshold) {
  std::string bar(10, ' ');
  const int fill = static_cast<int>(std::lround(std::clamp(shame, 0.0, 1.0) * 10));
  for (int i = 0; i < fill; ++i) bar[i] = '#';
  const int t = std::clamp(static_cast<int>(std::lround(threshold * 10)), 0, 9);
  bar[t] = bar[t] == '#' ? '!' : '|';
  return "[" + bar + "]";
}

}  // namespace

int DemoMain(const std::vector<std::string>& args) {
  std::map<std::string, std::string> opt{
      {"--strategy", "affective"}, {"--loss", "0.1"}, {"--speedup", "4"},
      {"--duration", "0"},         {"--bus", ""},     {"--metrics", "127.0.0.1:9464"}};
  for (size_t i = 0; i < args.size(); ++i) {
    if (args[i] == "--help" || args[i] == "-h") {
      std::cout << kHelp;
      return 0;
    }
    if (!opt.count(args[i]) || i + 1 >= args.size()) {
      std::cerr << "limbic recruit demo: unknown option or missing value: " << args[i] << " (see --help)\n";
      return 2;
    }
    opt[args[i]] = args[i + 1];
    ++i;
  }
  const std::string& strategy = opt["--strategy"];
  if (strategy != "affective" && strategy != "affective_sq" && strategy != "greedy" && strategy != "random") {
    std::cerr << "limbic recruit demo: --strategy must be affective, affective_sq, greedy or random\n";
    return 2;
  }
  double loss = 0, speedup = 0, duration = 0;
  try {
    loss = flags::ParseFiniteNumber("--loss", opt["--loss"]);
    speedup = flags::ParseFiniteNumber("--speedup", opt["--speedup"]);
    duration = flags::ParseFiniteNumber("--duration", opt["--duration"]);
  } catch (const flags::FlagValueError& e) {
    std::cerr << "limbic recruit demo: " << e.what() << "\n";
    return 2;
  }
  if (!(loss >= 0 && loss <= 1) || !(speedup > 0) || !(duration >= 0)) {
    std::cerr << "limbic recruit demo: --loss must be in [0, 1], --speedup > 0, --duration >= 0\n";
    return 2;
  }
  const std::string run_dir = "/tmp/limbic-recruit-demo-" + std::to_string(getpid());
  std::filesystem::create_directories(run_dir);
  const std::string bus = opt["--bus"].empty() ? "ipc://" + run_dir + "/bus" : opt["--bus"];
  const std::string log_path = run_dir + "/processes.log";

  // Like `limbic demo`: the launcher, and with it every recruiter, dies with this command however it ends.
  const pid_t launcher =
      cli::StartLauncher({DeployFile(), "--events", run_dir + "/events.jsonl", "--var", "bus=" + bus, "--var",
                          "strategy=" + strategy, "--var", "loss=" + opt["--loss"], "--var",
                          "speedup=" + opt["--speedup"], "--var", "metrics_listen=" + opt["--metrics"]},
                         log_path);
  struct sigaction sa {};
  sa.sa_handler = OnSignal;
  sigaction(SIGINT, &sa, nullptr);
  sigaction(SIGTERM, &sa, nullptr);
  std::cout << "limbic recruit demo: strategy " << strategy << ", loss " << loss << ", speed-up " << speedup
            << "\n  process logs: " << log_path << "\n  metrics:      http://" << opt["--metrics"]
            << "/metrics  (limbic_recruit_*)\n  bus:          " << bus << "  (try: LIMBIC_BUS=" << bus
            << " limbic echo rc/state/1)\n  Ctrl-C stops.\n"
            << std::endl;

  zmq::context_t context;
  bus::Node node(context, bus, {.name = "limbic-recruit-demo"});
  std::map<int, RobotView> robots;
  std::vector<uint64_t> radio_attempts(6, 0), radio_dropped(6, 0);
  std::vector<std::string> events;
  node.SubscribeAny("rc/state/", [&](const bus::RawMessage& m) {
    if (std::string(m.type.identifier) != messages::Traits<msg::RecruitState>::kIdentifier) return;
    const auto* s = flatbuffers::GetRoot<msg::RecruitState>(m.data);
    RobotView& v = robots[static_cast<int>(s->robot_id())];
    const auto str = [](const flatbuffers::String* x) { return x ? x->str() : std::string(); };
    if (s->episodes_completed() > v.episodes) {
      std::ostringstream e;
      e << std::fixed << std::setprecision(1) << "  recruitment " << s->episodes_completed() << " completed: wait "
        << s->last_wait_s() << " s";
      events.push_back(e.str());
    }
    if (s->times_recruited() > v.recruited) events.push_back("  r" + std::to_string(s->robot_id()) + " recruited");
    v.role = str(s->role());
    v.responder = str(s->responder_state());
    v.requester = str(s->requester_state());
    v.decision = str(s->last_decision());
    v.x = s->x();
    v.y = s->y();
    v.shame = s->shame_now();
    v.threshold = s->threshold();
    v.last_wait = s->last_wait_s();
    v.recruited = s->times_recruited();
    v.episodes = s->episodes_completed();
    v.ignored = s->helps_ignored();
    v.tx = 0;
    if (s->transmissions())
      for (auto t : *s->transmissions()) v.tx += t;
  });
  node.Subscribe<msg::RadioStats>("rc/radio", [&](const bus::Message<msg::RadioStats>& m) {
    for (flatbuffers::uoffset_t i = 0; m.msg.attempts() && i < m.msg.attempts()->size() && i < 6; ++i)
      radio_attempts[i] = m.msg.attempts()->Get(i);
    for (flatbuffers::uoffset_t i = 0; m.msg.dropped() && i < m.msg.dropped()->size() && i < 6; ++i)
      radio_dropped[i] = m.msg.dropped()->Get(i);
  });

  const auto render = [&] {
    std::ostringstream out;
    for (const auto& e : events) out << e << "\n";
    events.clear();
    out << std::fixed << std::setprecision(2);
    const char* names[] = {"HELP", "ACCEPT", "RESPONDER", "ARRIVAL", "AGREE", "ACKACK"};
    out << "radio: ";
    uint64_t total = 0;
    for (int i = 0; i < 6; ++i) {
      out << names[i] << " " << radio_attempts[i] << (i < 5 ? ", " : "");
      total += radio_attempts[i];
    }
    uint64_t dropped = 0;
    for (auto d : radio_dropped) dropped += d;
    out << "  (total " << total << ", dropped " << dropped << ")\n";
    for (const auto& [id, v] : robots) {
      out << "  r" << id << " " << std::setw(3) << v.role << " (" << std::setw(5) << std::setprecision(1) << v.x << ","
          << std::setw(5) << v.y << ") ";
      if (v.role == "uav") {
        out << std::setw(13) << v.requester << "  recruitments " << v.episodes << "  last wait " << std::setprecision(1)
            << v.last_wait << " s";
      } else {
        out << std::setw(11) << v.responder << "  shame " << std::setprecision(2) << v.shame << " "
            << Bar(v.shame, v.threshold) << (v.shame > v.threshold ? " ashamed" : "        ") << "  tx " << v.tx
            << "  ignored " << v.ignored << "  recruited " << v.recruited;
      }
      out << "\n";
    }
    return out.str();
  };
  int launcher_status = 0;
  const cli::LoopEnd end = cli::RunStatusLoop(
      {.node = &node, .launcher = launcher, .signal = &g_signal, .duration_s = duration, .render = render},
      &launcher_status);
  std::cout << "stopping every process..." << std::endl;
  if (end != cli::LoopEnd::kLauncherEnded) cli::StopLauncher(launcher);
  std::cout << "\nRecruitments:\n";
  for (const auto& [id, v] : robots)
    if (v.role == "ugv")
      std::cout << "  r" << id << ": recruited " << v.recruited << ", ignored " << v.ignored << " HELPs\n";
  std::cout << "process logs: " << log_path << "\n";
  return 0;
}

}  // namespace limbic::recruit
