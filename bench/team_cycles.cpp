// A fixed number of lockstep ticks of R robots' whole stacks in one process (team_bench's BM_TeamLockstep run:
// set B env 0, constant affect, seed 18), for instruction counts (issue 18's performance goal):
//
//   valgrind --tool=callgrind build/bench/team_cycles 16 100
//   valgrind --tool=callgrind build/bench/team_cycles 16 300
//
// Start-up (construction, placement, joins) is in both totals: instructions per tick = the difference / 200.
// Heartbeats, latched re-sends and the bus's statistics run on the wall clock (each second), so a run slowed
// down by valgrind on a loaded machine does more of them: for the services' own work compare the inclusive
// counts of runtime::Host::RunStep (callgrind_annotate --inclusive=yes) the same way.
// `quiet` takes those wall-clock timers out (heartbeats, latched re-sends and bus/stats once an hour): the count is
// then the same on a quiet and on a loaded machine, and close to a native run's, where 600 ticks take a few seconds
// and those timers fire a few times in all. Use it for before/after comparisons:
//
//   valgrind --tool=callgrind build/bench/team_cycles 16 50 quiet
//   valgrind --tool=callgrind build/bench/team_cycles 16 150 quiet      # per tick: (second - first) / 100
//
// Without valgrind it prints the thread's CPU time per tick, start-up included. Arguments: robots, ticks, then
// any of `digest` (also print a digest of every robot's trajectory and outputs: true pose, velocity command, map
// coverage, path cost, tick by tick, so a change that must not alter results can be checked run against run; the
// first figure takes the values in the order they reach the probe, so it also changes with the order of the hosts;
// "per robot" combines each robot's own digest in robot order, which only the robots' outputs change) and
// `quiet`; `service.key=value` sets a service option (e.g. affect.emotion_layer_publish=every_tick).
#include <time.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "common/hash/fnv1a.hpp"
#include "common/runtime/in_process.hpp"
#include "messages/messages.hpp"
#include "tools/stack/stack.hpp"

namespace {

// FNV-1a over the bytes of the values a robot's run produced.
struct Digest {
  uint64_t hash = limbic::hash::kFnv1aBasis;
  uint64_t values = 0;
  void Add(double v) {
    hash = limbic::hash::Fnv1aBytes(&v, sizeof v, hash);
    ++values;
  }
};

// `all` takes every value in the order it arrives (so it also depends on the order in which the robots' messages
// reach the probe, i.e. on the hosts' order); `per_robot[i]` takes robot i's values only, which is what must not
// change when only the order of the hosts does.
struct Digests {
  Digest all;
  std::vector<Digest> per_robot;
  uint64_t Robots() const {  // FNV-1a over the per-robot digests, in robot order
    uint64_t h = limbic::hash::kFnv1aBasis;
    for (const Digest& d : per_robot) h = limbic::hash::Fnv1aBytes(&d.hash, sizeof d.hash, h);
    return h;
  }
};

// Adds a value to both digests.
struct DigestSink {
  Digest* all;
  Digest* robot;
  void Add(double v) const {
    all->Add(v);
    robot->Add(v);
  }
};

limbic::runtime::ServiceDefinition DigestService(const std::vector<std::string>& robots, std::shared_ptr<Digests> ds) {
  using namespace limbic;
  ds->per_robot.resize(robots.size());
  return {"digest", "a digest of every robot's outputs",
          [robots, ds](runtime::ServiceContext& ctx) {
            for (size_t i = 0; i < robots.size(); ++i) {
              const std::string& r = robots[i];
              const DigestSink d{&ds->all, &ds->per_robot[i]};
              ctx.OnMessage<msg::GroundTruth>(r + "/truth", [d](const bus::Message<msg::GroundTruth>& m) {
                d.Add(static_cast<double>(m.header.tick()));
                d.Add(m.msg.pose()->x());
                d.Add(m.msg.pose()->y());
                d.Add(m.msg.pose()->theta());
              });
              ctx.OnMessage<msg::VelocityCommand>(r + "/cmd_vel", [d](const bus::Message<msg::VelocityCommand>& m) {
                d.Add(m.msg.v());
                d.Add(m.msg.omega());
              });
              ctx.OnMessage<msg::MapStats>(r + "/map/stats", [d](const bus::Message<msg::MapStats>& m) {
                d.Add(m.msg.coverage());
                d.Add(m.msg.mean_p_e());
              });
              ctx.OnMessage<msg::Path>(r + "/path", [d](const bus::Message<msg::Path>& m) {
                d.Add(m.msg.max_cost());
                d.Add(m.msg.nodes() ? static_cast<double>(m.msg.nodes()->size()) : -1.0);
              });
            }
          },
          /*global=*/true};
}

}  // namespace

int main(int argc, char** argv) {
  using namespace limbic;
  bool with_digest = false, quiet = false, usage = argc < 3;
  std::vector<std::string> options_set;  // service.key=value
  for (int i = 3; i < argc; ++i) {
    const std::string flag = argv[i];
    with_digest |= flag == "digest";
    quiet |= flag == "quiet";
    if (flag.find('=') != std::string::npos) options_set.push_back(flag);
    usage |= flag != "digest" && flag != "quiet" && flag.find('=') == std::string::npos;
  }
  if (usage) {
    std::fprintf(stderr, "usage: team_cycles ROBOTS TICKS [digest] [quiet] [service.key=value ...]\n");
    return 2;
  }
  stack::StackSpec spec;  // as bench/team_bench.cpp's TeamSpec
  spec.set = 'B';
  spec.index = 0;
  spec.seed = 18;
  spec.robots = std::atoi(argv[1]);
  spec.affect_config = "constant";
  spec.iterations = 1000;
  spec.options = {"mission.timeout_s=3600"};
  spec.options.insert(spec.options.end(), options_set.begin(), options_set.end());
  spec.max_ticks = std::atoll(argv[2]);
  auto digest = std::make_shared<Digests>();
  auto services = stack::BuildStack(spec);
  if (with_digest) {
    runtime::HostedService probe{DigestService(stack::RobotNames(spec), digest), {}};
    probe.options.robot = "";
    services.push_back(std::move(probe));
  }
  runtime::InProcessOptions options;
  if (quiet) {
    const std::chrono::milliseconds hour = std::chrono::hours(1);
    for (auto& s : services) s.options.heartbeat_period = s.options.latched_resend = hour;
    options.bus_stats_period = hour;
  }
  timespec t0{}, t1{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t0);
  std::atomic<bool> stop{false};
  runtime::InProcessStats stats;
  const int status = runtime::RunInProcess("inproc://team-cycles", std::move(services), stop, options, &stats);
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t1);
  const double cpu = static_cast<double>(t1.tv_sec - t0.tv_sec) + 1e-9 * static_cast<double>(t1.tv_nsec - t0.tv_nsec);
  std::printf("robots %d ticks %lld status %d cpu %.3f s (%.3f ms a tick, start-up included)%s%s\n", spec.robots,
              static_cast<long long>(stats.ticks), status, cpu,
              1e3 * cpu / static_cast<double>(std::max<int64_t>(stats.ticks, 1)),
              stats.errors.empty() ? "" : " error: ", stats.errors.empty() ? "" : stats.errors[0].c_str());
  if (with_digest)
    std::printf("digest %016llx over %llu values, per robot %016llx\n",
                static_cast<unsigned long long>(digest->all.hash), static_cast<unsigned long long>(digest->all.values),
                static_cast<unsigned long long>(digest->Robots()));
  return status == 0 && stats.ticks == spec.max_ticks ? 0 : 1;
}
