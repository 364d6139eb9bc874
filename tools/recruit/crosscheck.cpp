// limbic recruit crosscheck (spec affective-recruitment §9.8): "one run of the 13-robot, 10 % loss cell
// over the real ZeroMQ medium, checking that its counts and outcomes agree with the deterministic
// simulator for the same seeds". The lockstep simulator runs the cell; then the same team (same
// placement, UAV stops and schedule, strategy, radio loss and seeds) runs live, each robot a
// limbic-recruiter process talking through limbic-radio over the broker, in realtime (sped up).
//
// A live run cannot repeat the simulator's loss draws (the radio draws in the order transmissions
// arrive, which realtime scheduling reorders), so "agree" is judged against the simulator's own spread:
// the cell is also simulated with `--draws` other radio seeds, and each live figure must lie within that
// spread (per message type: inside [min, max] of the draws or within 4 standard deviations of their mean;
// per episode: a responder the simulator also chose for it). Without loss there is nothing to spread:
// counts and responders must be equal to the simulator's.
//
// [I] The live UGVs have no raster task, so the team of 13 is the UAV and 12 idle UGVs (the cell's
// 10 idle + 2 scanning UGVs, the scanning ones replaced by idle ones, in both runs).
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <optional>
#include <sstream>
#include <stdexcept>

#include "common/bus/bus.hpp"
#include "common/flags/flags.hpp"
#include "tools/limbic/launcher.hpp"
#include "tools/recruit/experiment.hpp"

namespace limbic::recruit {
namespace {

using namespace std::chrono_literals;
std::atomic<int> g_crosscheck_signal{0};
void OnCrosscheckSignal(int sig) { g_crosscheck_signal = sig; }

const char* kCrosscheckHelp = R"(usage: limbic recruit crosscheck [options]

Runs the 13-robot, 10 % loss cell in the lockstep simulator and live (a broker, limbic-radio
and one limbic-recruiter process per robot, realtime sped up), and checks that the live message counts
per type, the responders and the success agree with the simulator: equal without loss, within the
simulator's spread over --draws radio seeds with loss. Prints both and exits 1 on disagreement.
  --strategy S     affective | affective_sq | greedy | random (default affective)
  --loss P         i.i.d. loss per transmission, 0..1 (default 0.1)
  --idle N         idle UGVs (default 12: with the UAV, a team of 13)
  --episodes N     recruitments (default 5)
  --config N       starting configuration (placement seed, default 1)
  --seed N         radio and selection seed (default 1)
  --draws N        other radio seeds simulated for the spread (default 200)
  --speedup X      live: simulated seconds per wall second (default 10)
  --bus ADDR       live bus (default: a fresh ipc:// path under /tmp)

examples:
  limbic recruit crosscheck
  limbic recruit crosscheck --strategy greedy --loss 0 --episodes 2
)";

struct LiveRun {
  bool complete = false;
  std::array<uint64_t, kMsgTypeCount> attempts{};
  std::vector<RobotId> responders;  // per completed episode
  double wall_s = 0.0;
  size_t robots_up = 0;
};

std::string Number(double v) {
  std::ostringstream s;
  s.precision(17);
  s << v;
  return s.str();
}

}  // namespace

int CrosscheckMain(const std::vector<std::string>& args) {
  std::map<std::string, std::string> opt{{"--strategy", "affective"}, {"--loss", "0.1"},   {"--idle", "12"},
                                         {"--episodes", "5"},         {"--config", "1"},   {"--seed", "1"},
                                         {"--draws", "200"},          {"--speedup", "10"}, {"--bus", ""}};
  for (size_t i = 0; i < args.size(); ++i) {
    if (args[i] == "--help" || args[i] == "-h") {
      std::cout << kCrosscheckHelp;
      return 0;
    }
    if (!opt.count(args[i]) || i + 1 >= args.size()) {
      std::cerr << "limbic recruit crosscheck: unknown option or missing value: " << args[i] << " (see --help)\n";
      return 2;
    }
    opt[args[i]] = args[i + 1];
    ++i;
  }
  ScenarioOptions o;
  StrategyChoice choice;
  int draws = 0;
  double speedup = 0;
  try {
    choice = StrategyByName(opt["--strategy"]);
    o.radio.loss = flags::ParseFiniteNumber("--loss", opt["--loss"]);
    o.idle_ugvs = flags::ParseInt("--idle", opt["--idle"], 1, 50);
    o.episodes = flags::ParseInt("--episodes", opt["--episodes"], 1, 1'000'000);
    o.config_seed = static_cast<uint64_t>(flags::ParseInteger("--config", opt["--config"], 0));
    o.radio.seed = o.recruiter.seed = static_cast<uint64_t>(flags::ParseInteger("--seed", opt["--seed"], 0));
    draws = flags::ParseInt("--draws", opt["--draws"], 1, 1'000'000);
    speedup = flags::ParseFiniteNumber("--speedup", opt["--speedup"]);
  } catch (const std::exception& e) {
    std::cerr << "limbic recruit crosscheck: bad option value (" << e.what() << "; see --help)\n";
    return 2;
  }
  if (!(o.radio.loss >= 0 && o.radio.loss <= 1) || o.idle_ugvs < 1 || o.idle_ugvs > 50 || o.episodes < 1 || draws < 1 ||
      !(speedup > 0)) {
    std::cerr << "limbic recruit crosscheck: --loss in [0, 1], --idle 1..50, --episodes >= 1, --draws >= 1, "
                 "--speedup > 0\n";
    return 2;
  }
  o.scanning_ugvs = 0;
  o.recruiter.strategy = choice.strategy;
  o.recruiter.shame.fitness = choice.fitness;

  // 1. The simulator, same seeds: the reference, the UAV's stops and its schedule.
  ScenarioOptions traced = o;
  traced.record_timeline = true;
  const ScenarioResult ref = RunMineScenario(traced);
  if (!ref.success) {
    std::cerr << "limbic recruit crosscheck: the simulation did not complete its episodes\n";
    return 1;
  }
  std::vector<Position> stops;
  std::vector<double> pauses;  // after each completed episode, until the next HELP
  for (size_t k = 0; k < ref.episodes.size(); ++k) {
    const Episode& e = ref.episodes[k];
    for (const TimelineEvent& t : ref.timeline) {
      if (t.kind == TimelineEvent::Kind::kTransmit && t.robot == 0 && t.type == MsgType::kHelp &&
          std::abs(t.t_s - e.start_s) < 1e-9) {
        stops.push_back(t.position);
        break;
      }
    }
    if (k + 1 < ref.episodes.size()) pauses.push_back(ref.episodes[k + 1].start_s - e.end_s);
  }
  if (stops.size() != ref.episodes.size()) throw std::logic_error("crosscheck: no first HELP found for an episode");

  // 2. The simulator's spread over other radio (and selection) seeds.
  std::vector<std::array<double, kMsgTypeCount>> counts;
  std::vector<std::map<RobotId, int>> chosen(ref.episodes.size());
  int spread_failures = 0;
  for (int d = 1; d <= draws; ++d) {
    ScenarioOptions other = o;
    other.radio.seed = other.recruiter.seed = o.radio.seed + 1000u * static_cast<uint64_t>(d);
    const ScenarioResult r = RunMineScenario(other);
    spread_failures += !r.success;
    std::array<double, kMsgTypeCount> c{};
    for (int t = 0; t < kMsgTypeCount; ++t) c[t] = static_cast<double>(r.counts.attempts[t]);
    counts.push_back(c);
    for (size_t k = 0; k < r.episodes.size() && k < chosen.size(); ++k) ++chosen[k][r.episodes[k].responder];
  }

  // 3. Live: the same team as processes. The UAV's first HELP waits ~3 wall seconds so that every robot is
  // up; the schedule after that is the simulator's (pauses_after_s), the stops its stops.
  const std::string run_dir = "/tmp/limbic-recruit-crosscheck-" + std::to_string(getpid());
  std::filesystem::create_directories(run_dir);
  const std::string bus = opt["--bus"].empty() ? "ipc://" + run_dir + "/bus" : opt["--bus"];
  const std::string strategy = opt["--strategy"];
  const double first_request_s = 3.0 * speedup;
  {
    std::ofstream f(run_dir + "/launch.yaml");
    f << "# written by limbic recruit crosscheck\nstop_timeout_s: 5\nprocesses:\n";
    f << "  - name: bus\n    command: [limbic-bus, --bus, \"" << bus << "\"]\n    restart: never\n"
      << "    start_delay_s: 0.3\n";
    std::ostringstream ids;
    for (size_t i = 0; i < ref.team.size(); ++i) ids << (i ? "," : "") << ref.team[i].id;
    const std::string common = "--bus, \"" + bus + "\", --speedup, \"" + Number(speedup) + "\", --log-level, warning";
    f << "  - name: radio\n    command: [limbic-radio, " << common << ", --robot, \"\", --set, \"robots=[" << ids.str()
      << "]\", --set, \"loss=" << Number(o.radio.loss) << "\", --set, \"seed=" << o.radio.seed << "\"]\n"
      << "    restart: never\n";
    for (const RobotSpec& r : ref.team) {
      // The simulator seeds each robot's selection draws with seed · 1000003 + id.
      f << "  - name: r" << r.id << "\n    command: [limbic-recruiter, " << common << ", --robot, r" << r.id
        << ", --set, \"strategy=" << strategy << "\", --set, \"seed=" << o.recruiter.seed * 1000003u + r.id << "\"";
      if (r.role == RobotSpec::Role::kUav) {
        std::ostringstream w, p;
        for (size_t k = 0; k < stops.size(); ++k)
          w << (k ? "," : "") << "[" << Number(stops[k].x) << "," << Number(stops[k].y) << "]";
        for (size_t k = 0; k < pauses.size(); ++k) p << (k ? "," : "") << Number(pauses[k]);
        f << ", --set, role=uav, --set, \"x=" << Number(stops[0].x) << "\", --set, \"y=" << Number(stops[0].y)
          << "\", --set, speed=1e9, --set, \"waypoints=[" << w.str() << "]\", --set, \"pauses_after_s=[" << p.str()
          << "]\", --set, \"first_request_s=" << Number(first_request_s) << "\", --set, episodes=" << o.episodes;
      } else {
        f << ", --set, \"x=" << Number(r.start.x) << "\", --set, \"y=" << Number(r.start.y) << "\"";
      }
      f << "]\n    restart: never\n";
    }
    if (!f) throw std::runtime_error("cannot write " + run_dir + "/launch.yaml");
  }
  std::printf(
      "crosscheck: strategy %s, %zu robots, loss %.2f, configuration %llu, seed %llu; live at speed-up %g "
      "(logs: %s)\n",
      choice.label.c_str(), ref.team.size(), o.radio.loss, static_cast<unsigned long long>(o.config_seed),
      static_cast<unsigned long long>(o.radio.seed), speedup, run_dir.c_str());
  std::fflush(stdout);

  struct sigaction sa {};
  sa.sa_handler = OnCrosscheckSignal;
  sigaction(SIGINT, &sa, nullptr);
  sigaction(SIGTERM, &sa, nullptr);
  const pid_t launcher = cli::StartLauncher({run_dir + "/launch.yaml"}, run_dir + "/processes.log");
  LiveRun live;
  std::map<RobotId, bool> up;
  uint64_t uav_episodes = 0;
  std::map<uint64_t, RobotId> last_responder;  // request_id -> the UAV's latest RESPONDER
  std::vector<uint64_t> completed_requests;
  {
    zmq::context_t context;
    bus::Node node(context, bus, {.name = "limbic-recruit-crosscheck"});
    node.SubscribeAny("rc/state/", [&](const bus::RawMessage& m) {
      if (std::string(m.type.identifier) != messages::Traits<msg::RecruitState>::kIdentifier) return;
      const auto* s = flatbuffers::GetRoot<msg::RecruitState>(m.data);
      up[s->robot_id()] = true;
      if (s->robot_id() == 0) uav_episodes = s->episodes_completed();
    });
    node.Subscribe<msg::RecruitMessage>("rc/tx/0", [&](const bus::Message<msg::RecruitMessage>& m) {
      if (m.msg.type() == msg::RecruitType::RESPONDER) last_responder[m.msg.request_id()] = m.msg.responder_id();
      // The UAV's AGREE follows the winner's ARRIVAL: the request whose AGREE went out last is the one
      // the next completed episode belongs to (lease renewals are not used here).
      if (m.msg.type() == msg::RecruitType::AGREE) completed_requests.push_back(m.msg.request_id());
    });
    node.Subscribe<msg::RadioStats>("rc/radio", [&](const bus::Message<msg::RadioStats>& m) {
      for (flatbuffers::uoffset_t i = 0; m.msg.attempts() && i < m.msg.attempts()->size() && i < kMsgTypeCount; ++i)
        live.attempts[i] = m.msg.attempts()->Get(i);
    });
    const double limit_wall_s = (first_request_s + ref.end_s) / speedup * 2.0 + 20.0;
    const auto start = std::chrono::steady_clock::now();
    std::optional<std::chrono::steady_clock::time_point> done_at;
    int launcher_status = 0;
    const cli::LoopEnd end = cli::RunStatusLoop(
        {.node = &node,
         .launcher = launcher,
         .signal = &g_crosscheck_signal,
         .duration_s = limit_wall_s,
         .render =
             [&] {
               std::ostringstream s;
               s << "  live: " << up.size() << "/" << ref.team.size() << " robots up, " << uav_episodes << "/"
                 << o.episodes << " recruitments\n";
               return s.str();
             },
         // Done: every episode completed, then 1.5 s more for the radio's last counts (1 Hz simulated).
         .stop =
             [&] {
               if (uav_episodes >= static_cast<uint64_t>(o.episodes) && !done_at)
                 done_at = std::chrono::steady_clock::now();
               return done_at && std::chrono::steady_clock::now() - *done_at > 1.5s;
             }},
        &launcher_status);
    live.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    live.complete = end == cli::LoopEnd::kStopped;
    live.robots_up = up.size();
    if (end != cli::LoopEnd::kLauncherEnded) cli::StopLauncher(launcher);
  }
  // Dedupe AGREEs per request (a lost AGREE leads to the same request's ARRIVAL again after a restart).
  std::vector<uint64_t> requests;
  for (uint64_t r : completed_requests)
    if (std::find(requests.begin(), requests.end(), r) == requests.end()) requests.push_back(r);
  for (uint64_t r : requests) live.responders.push_back(last_responder[r]);

  // 4. Compare.
  bool agree = live.complete;
  std::printf("\n%-10s %10s %26s %8s  %s\n", "type", "lockstep", "lockstep draws: mean ± sd [min, max]", "live",
              "agrees");
  uint64_t ref_total = 0, live_total = 0;
  for (int t = 0; t < kMsgTypeCount; ++t) {
    double sum = 0, sq = 0, lo = 1e300, hi = -1e300;
    for (const auto& c : counts) {
      sum += c[t];
      sq += c[t] * c[t];
      lo = std::min(lo, c[t]);
      hi = std::max(hi, c[t]);
    }
    const double mean = sum / counts.size();
    const double sd = std::sqrt(std::max(0.0, sq / counts.size() - mean * mean));
    const double v = static_cast<double>(live.attempts[t]);
    const bool ok = o.radio.loss == 0.0 ? live.attempts[t] == ref.counts.attempts[t]
                                        : (v >= lo && v <= hi) || std::abs(v - mean) <= 4.0 * sd;
    agree = agree && ok;
    ref_total += ref.counts.attempts[t];
    live_total += live.attempts[t];
    std::printf("%-10s %10llu %12.1f ± %5.1f [%4.0f, %4.0f] %8llu  %s\n", MsgTypeName(static_cast<MsgType>(t)),
                static_cast<unsigned long long>(ref.counts.attempts[t]), mean, sd, lo, hi,
                static_cast<unsigned long long>(live.attempts[t]), ok ? "yes" : "NO");
  }
  std::printf("%-10s %10llu %48llu\n", "total", static_cast<unsigned long long>(ref_total),
              static_cast<unsigned long long>(live_total));
  std::printf("\nepisode  lockstep  live  responders in the %d draws\n", draws);
  for (size_t k = 0; k < ref.episodes.size(); ++k) {
    const RobotId sim = ref.episodes[k].responder;
    const bool have = k < live.responders.size();
    const RobotId got = have ? live.responders[k] : kNoRecipient;
    const bool ok = have && (o.radio.loss == 0.0 ? got == sim : chosen[k].count(got) > 0);
    agree = agree && ok;
    std::ostringstream spread;
    for (const auto& [id, n] : chosen[k]) spread << " r" << id << " " << 100.0 * n / draws << "%";
    std::printf("%7zu  %8s  %4s %s  %s\n", k + 1, ("r" + std::to_string(sim)).c_str(),
                have ? ("r" + std::to_string(got)).c_str() : "-", spread.str().c_str(), ok ? "" : "  NO");
  }
  std::printf("\nsuccess: lockstep yes (%d of %d draws failed), live %s (%zu/%zu robots up, %.1f s wall)\n",
              spread_failures, draws, live.complete ? "yes" : "NO", live.robots_up, ref.team.size(), live.wall_s);
  std::printf("%s\n", agree ? "AGREE: the live run agrees with the simulator"
                            : "DISAGREE: the live run does not agree with the simulator");
  if (agree) {
    std::error_code ec;
    std::filesystem::remove_all(run_dir, ec);  // the process logs are kept only when they are needed
  } else {
    std::printf("process logs and the launch file: %s\n", run_dir.c_str());
  }
  return agree ? 0 : 1;
}

}  // namespace limbic::recruit
