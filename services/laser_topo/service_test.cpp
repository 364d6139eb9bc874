// The map layer as bus services (spec reactive-topological §5.1–5.3) on an in-process bus, in lockstep: the
// simulator, the reactive layer with controller=memory, perception, the mapper and the planner run an episode.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <iostream>
#include <limits>
#include <map>
#include <mutex>

#include "common/bus/local_bus.hpp"
#include "common/runtime/in_process.hpp"
#include "services/laser_nav/wiring.hpp"
#include "services/laser_sim/episode.hpp"
#include "services/laser_sim/wiring.hpp"
#include "services/laser_topo/convert.hpp"
#include "services/laser_topo/memory_controller.hpp"
#include "services/laser_topo/wiring.hpp"

namespace limbic::laser {
namespace {

// A world where the matcher picks Random or Repulsion and the map has a way out: 25 % world No. 4
// (`limbic laser episode --density 25 --index 3 --controller memory` in process).
constexpr const char* kDensity = "density=25";
constexpr const char* kIndex = "index=3";
constexpr int kMapFollowingCase = 8;  // after the 8 cases of Appendix A

struct Seen {
  std::mutex mutex;
  int64_t truths = 0, headings = 0, nan_headings = 0;
  double x = 0, y = 0, time_s = 0;
  bool done = false, solved = false;
  uint32_t collisions = 0;
  int64_t following_cycles = 0;
  int max_nodes = 0;
  int64_t requests = 0, paths = 0, valid_paths = 0, attempts = 0;
  double heading_sum = 0;                     // of every heading command: two runs agree on every one, or this differs
  std::vector<ExitAttemptOut> exit_messages;  // in order
  std::vector<NodeUpdate> updates;            // every TopoMapUpdate
  std::vector<std::pair<uint32_t, std::vector<TopoNode>>> snapshots;  // (update_seq, nodes)
  size_t update_bytes = 0, snapshot_bytes = 0;
  std::map<int64_t, Vec2> truth_at, odom_at;  // by tick
  struct Pose {
    int64_t tick;
    Vec2 estimate, odom;
    uint32_t corrections;
  };
  std::vector<Pose> poses;
};

runtime::ServiceDefinition Probe(std::shared_ptr<Seen> seen) {
  return {"probe", "records what the services said", [seen](runtime::ServiceContext& ctx) {
            ctx.OnMessage<msg::LaserTruth>("r1/laser/truth", [seen](const bus::Message<msg::LaserTruth>& m) {
              std::lock_guard<std::mutex> lock(seen->mutex);
              ++seen->truths;
              seen->x = m.msg.x_cm();
              seen->y = m.msg.y_cm();
              seen->time_s = m.msg.time_s();
              seen->done = m.msg.done();
              seen->solved = m.msg.solved();
              seen->collisions = m.msg.collisions();
              seen->truth_at[m.header.tick()] = Vec2{m.msg.x_cm(), m.msg.y_cm()};
            });
            ctx.OnMessage<msg::LaserOdometry>("r1/laser/odom", [seen](const bus::Message<msg::LaserOdometry>& m) {
              std::lock_guard<std::mutex> lock(seen->mutex);
              seen->odom_at[m.header.tick()] = Vec2{m.msg.x_cm(), m.msg.y_cm()};
            });
            ctx.OnMessage<msg::EstimatedPose>("r1/laser/pose", [seen](const bus::Message<msg::EstimatedPose>& m) {
              std::lock_guard<std::mutex> lock(seen->mutex);
              seen->poses.push_back({m.header.tick(), Vec2{m.msg.x_cm(), m.msg.y_cm()},
                                     Vec2{m.msg.odom_x_cm(), m.msg.odom_y_cm()}, m.msg.corrections()});
            });
            ctx.OnMessage<msg::HeadingCommand>("r1/laser/heading", [seen](const bus::Message<msg::HeadingCommand>& m) {
              std::lock_guard<std::mutex> lock(seen->mutex);
              ++seen->headings;
              if (std::isnan(m.msg.desired_heading_deg())) {
                ++seen->nan_headings;
              } else {
                seen->heading_sum += m.msg.desired_heading_deg();
              }
              if (m.msg.active_case() == kMapFollowingCase) ++seen->following_cycles;
            });
            ctx.OnMessage<msg::TopoCurrentNode>("r1/laser/current_node",
                                                [seen](const bus::Message<msg::TopoCurrentNode>& m) {
                                                  std::lock_guard<std::mutex> lock(seen->mutex);
                                                  seen->max_nodes = std::max(seen->max_nodes, m.msg.nodes());
                                                });
            ctx.OnMessage<msg::TopoPlanRequest>("r1/laser/plan_request", [seen](const auto&) {
              std::lock_guard<std::mutex> lock(seen->mutex);
              ++seen->requests;
            });
            ctx.OnMessage<msg::TopoPath>("r1/laser/path", [seen](const bus::Message<msg::TopoPath>& m) {
              std::lock_guard<std::mutex> lock(seen->mutex);
              ++seen->paths;
              if (m.msg.valid()) ++seen->valid_paths;
            });
            ctx.OnMessage<msg::TopoExitAttempt>("r1/laser/exit_attempt",
                                                [seen](const bus::Message<msg::TopoExitAttempt>& m) {
                                                  std::lock_guard<std::mutex> lock(seen->mutex);
                                                  ++seen->attempts;
                                                  seen->exit_messages.push_back(ExitAttemptFromMsg(m.msg));
                                                });
            ctx.OnMessage<msg::TopoMapUpdate>("r1/laser/map_update", [seen](const bus::Message<msg::TopoMapUpdate>& m) {
              std::lock_guard<std::mutex> lock(seen->mutex);
              seen->updates.push_back(NodeUpdateFromMsg(m.msg));
              seen->update_bytes += m.size;
            });
            ctx.OnMessage<msg::TopoMapSnapshot>("r1/laser/map", [seen](const bus::Message<msg::TopoMapSnapshot>& m) {
              std::lock_guard<std::mutex> lock(seen->mutex);
              seen->snapshots.emplace_back(m.msg.update_seq(), NodesFromMsg(m.msg));
              seen->snapshot_bytes += m.size;
            });
          }};
}

// Sends a malformed Path and PlanRequest (out-of-range values a typed publisher would refuse) on the
// first ticks: the bus drops them before any service sees them.
runtime::ServiceDefinition Attacker(std::shared_ptr<int> sent) {
  return {"attacker", "sends malformed map messages", [sent](runtime::ServiceContext& ctx) {
            auto node = std::make_shared<bus::Node*>(nullptr);
            ctx.OnBind([node](bus::Node& n) { *node = &n; });
            ctx.OnMessage<msg::LaserTruth>("r1/laser/truth", [node, sent](const bus::Message<msg::LaserTruth>&) {
              if (*node == nullptr || *sent >= 40) return;
              ++*sent;
              flatbuffers::FlatBufferBuilder path;
              const std::vector<msg::TopoWaypointEntry> wps{{0, std::nan(""), 0}, {-1, 1, 1}, {-1, 2, 2}};
              path.Finish(msg::CreateTopoPath(path, msg::CreateHeaderDirect(path, 0, 1, *sent, "attacker", false, 3), 1,
                                              0, true, path.CreateVectorOfStructs(wps), 0, 12, 0.0, 1),
                          "LPTH");
              (*node)->SendRaw("r1/laser/path", path.GetBufferPointer(), path.GetSize());
              flatbuffers::FlatBufferBuilder req;
              req.Finish(
                  msg::CreateTopoPlanRequest(req, msg::CreateHeaderDirect(req, 0, 1, *sent, "attacker", false, 3), 0,
                                             -4, std::numeric_limits<double>::infinity(), 0, false),
                  "LPRQ");
              (*node)->SendRaw("r1/laser/plan_request", req.GetBufferPointer(), req.GetSize());
            });
          }};
}

struct BusRun {
  bool perception = true, mapper = true, planner = true, attacker = false;
  std::string controller = "memory";
  std::vector<std::string> world = {kDensity, kIndex, "seed=4"};
  std::string slip = "slip_fraction=0";
  std::string laser_error = "laser_error=uniform";
};

std::shared_ptr<Seen> RunEpisode(const BusRun& run, runtime::InProcessStats* stats, int* attacks = nullptr) {
  auto seen = std::make_shared<Seen>();
  std::vector<std::string> participants = {"r1/laser_sim", "r1/laser_nav"};
  std::vector<runtime::HostedService> services;
  runtime::HostedService sim{LaserSimService(), {}};
  sim.options.period_s = 0.01;
  sim.options.coordinate = true;
  sim.options.max_ticks = 7000;
  sim.options.overrides = run.world;
  for (const std::string& o : {std::string("time_limit_s=60"), run.laser_error, run.slip}) {
    sim.options.overrides.push_back(o);
  }
  runtime::HostedService nav{LaserNavService(), {}};
  nav.options.period_s = 0.01;
  nav.options.overrides = {"controller=" + run.controller, "seed=9"};
  services.push_back(nav);
  auto add = [&](bool on, runtime::ServiceDefinition d, const std::string& name) {
    if (!on) return;
    runtime::HostedService h{std::move(d), {}};
    h.options.period_s = 0.01;
    services.push_back(h);
    participants.push_back("r1/" + name);
  };
  add(run.perception, LaserPerceptionService(), "laser_perception");
  add(run.mapper, LaserMapperService(), "laser_mapper");
  add(run.planner, LaserPlannerService(), "laser_planner");
  sim.options.participants = participants;
  services.push_back(sim);
  runtime::HostedService probe{Probe(seen), {}};
  probe.options.robot = "";
  services.push_back(probe);
  auto sent = std::make_shared<int>(0);
  if (run.attacker) {
    runtime::HostedService attacker{Attacker(sent), {}};
    attacker.options.robot = "";
    services.push_back(attacker);
  }
  std::atomic<bool> stop{false};
  EXPECT_EQ(runtime::RunInProcess("inproc://laser_topo_services", services, stop, {}, stats), 0)
      << (stats->errors.empty() ? "" : stats->errors.front());
  if (attacks) *attacks = *sent;
  return seen;
}

void ExpectSameRun(const Seen& a, const Seen& b) {
  EXPECT_EQ(a.x, b.x);
  EXPECT_EQ(a.y, b.y);
  EXPECT_EQ(a.time_s, b.time_s);
  EXPECT_EQ(a.solved, b.solved);
  EXPECT_EQ(a.collisions, b.collisions);
  EXPECT_EQ(a.headings, b.headings);
  EXPECT_EQ(a.heading_sum, b.heading_sum);
  EXPECT_EQ(a.following_cycles, b.following_cycles);
}

TEST(LaserTopoServices, MemoryOverTheBusBuildsAMapFollowsAPathAndRepeatsExactly) {
  runtime::InProcessStats s1, s2;
  const auto a = RunEpisode(BusRun{}, &s1);
  const auto b = RunEpisode(BusRun{}, &s2);
  std::lock_guard<std::mutex> la(a->mutex), lb(b->mutex);
  // The same world and seeds in process (`limbic laser episode ... --controller memory`), for comparison only:
  // over the bus the plan comes two ticks after the request, on a map up to 0.1 s old (README).
  {
    MemoryOptions mo;
    mo.cbr.seed = 9;
    MemoryController in_process(mo);
    EpisodeOptions eo;
    eo.time_limit_s = 60;
    const World world = GenerateWorld(25, 3);  // the episode keeps a reference
    LaserEpisode e(world, eo, 4);
    const auto begin = std::chrono::steady_clock::now();
    while (!e.done()) e.Advance(in_process.Step(e.frame()));
    const double wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count();
    const EpisodeResult r = e.Result();
    std::cout << "memory in process: solved " << r.solved << ", " << r.time_s << " s, " << r.collisions
              << " collisions, " << in_process.layer().map().nodes().size() << " nodes, "
              << in_process.layer().stats().plans << " plans, "
              << in_process.cbr().cycles_in_case()[static_cast<size_t>(in_process.cbr().map_following_case())]
              << " cycles map-following; " << wall_s << " s\n";
  }
  std::cout << "memory over the bus: solved " << a->solved << ", " << a->time_s << " s, " << a->collisions
            << " collisions, " << a->max_nodes << " nodes, " << a->requests << " requests, " << a->valid_paths << "/"
            << a->paths << " usable paths, " << a->attempts << " exit attempts, " << a->following_cycles
            << " cycles map-following; " << s1.ticks << " ticks in " << s1.total_s << " s\n";
  EXPECT_TRUE(a->done);
  EXPECT_GT(a->max_nodes, 0);
  EXPECT_GT(a->requests, 0);
  EXPECT_GT(a->valid_paths, 0);
  EXPECT_GT(a->following_cycles, 0);
  EXPECT_GT(a->attempts, 0);
  EXPECT_EQ(a->nan_headings, 0);
  ExpectSameRun(*a, *b);
  EXPECT_EQ(a->max_nodes, b->max_nodes);
  EXPECT_EQ(a->requests, b->requests);
  EXPECT_EQ(a->paths, b->paths);
}

// §5.2 items 11 and 15 over the bus: the mapper's TopoMapUpdates, in sequence, rebuild every snapshot it sent
// exactly (the planner's copy is the mapper's map); every ExitResult the reactive layer sends closes an attempt it
// started, and the attempts went through the mapper's two-tries rule.
TEST(LaserTopoServices, MapUpdatesRebuildTheMappersMapAndExitResultsCloseAttempts) {
  runtime::InProcessStats stats;
  const auto a = RunEpisode(BusRun{}, &stats);
  std::lock_guard<std::mutex> lock(a->mutex);
  ASSERT_FALSE(a->updates.empty());
  ASSERT_GE(a->snapshots.size(), 2u);
  std::sort(a->updates.begin(), a->updates.end(), [](const auto& x, const auto& y) { return x.seq < y.seq; });
  for (size_t i = 0; i < a->updates.size(); ++i) ASSERT_EQ(a->updates[i].seq, i + 1);  // none lost in process
  std::sort(a->snapshots.begin(), a->snapshots.end(), [](const auto& x, const auto& y) { return x.first < y.first; });
  MapReplica replica;
  size_t next = 0;
  for (const auto& [seq, nodes] : a->snapshots) {
    while (next < a->updates.size() && a->updates[next].seq <= seq) {
      ASSERT_EQ(replica.Apply(a->updates[next++]), MapReplica::Result::kApplied);
    }
    ASSERT_EQ(replica.seq(), seq);
    ASSERT_EQ(replica.map().nodes(), nodes) << "at update " << seq;
  }
  std::array<int64_t, 3> states{};
  int open_node = -1, open_sector = -1;
  for (const ExitAttemptOut& m : a->exit_messages) {
    ++states[static_cast<size_t>(m.outcome)];
    if (m.outcome == ExitOutcome::kStarted) {
      EXPECT_EQ(open_node, -1) << "a new attempt while one is open";
      open_node = m.node;
      open_sector = m.sector;
    } else {
      EXPECT_EQ(m.node, open_node);
      EXPECT_EQ(m.sector, open_sector);
      open_node = open_sector = -1;
    }
  }
  std::cout << "map over the bus: " << a->updates.size() << " updates, " << a->update_bytes << " B; "
            << a->snapshots.size() << " snapshots, " << a->snapshot_bytes << " B; exit attempts " << states[0]
            << " started, " << states[1] << " reached, " << states[2] << " abandoned\n";
  EXPECT_GT(states[0], 0);
  EXPECT_GE(states[0], states[1] + states[2]);
}

// §5.3: the reactive loop never waits for the map layer. Without a planner it asks, gets no answer,
// steers every tick, and is the case-based controller's run exactly; without the whole map layer too.
TEST(LaserTopoServices, WithoutThePlannerTheReactiveLayerIsTheCaseBasedController) {
  runtime::InProcessStats s1, s2, s3;
  BusRun no_planner;
  no_planner.planner = false;
  const auto a = RunEpisode(no_planner, &s1);
  BusRun cbr;
  cbr.controller = "cbr";
  cbr.perception = cbr.mapper = cbr.planner = false;
  const auto b = RunEpisode(cbr, &s2);
  BusRun alone;
  alone.perception = alone.mapper = alone.planner = false;
  const auto c = RunEpisode(alone, &s3);
  std::lock_guard<std::mutex> la(a->mutex), lb(b->mutex), lc(c->mutex);
  EXPECT_TRUE(a->done);
  EXPECT_GT(a->max_nodes, 0);
  EXPECT_GT(a->requests, 0);  // it asked
  EXPECT_EQ(a->paths, 0);
  EXPECT_EQ(a->following_cycles, 0);
  EXPECT_EQ(a->headings, s1.ticks);  // a heading every tick: no stall
  EXPECT_EQ(a->nan_headings, 0);
  ExpectSameRun(*a, *b);
  ExpectSameRun(*c, *b);
  EXPECT_EQ(c->requests, 0);  // no map, nothing to ask about
}

// Malformed Paths and PlanRequests are dropped by the bus and never reach the planner or the reactive layer:
// the run is the run without them.
TEST(LaserTopoServices, MalformedPathsAndPlanRequestsAreDroppedAndTheRunIsUnchanged) {
  runtime::InProcessStats s1, s2;
  BusRun attacked;
  attacked.attacker = true;
  int attacks = 0;
  const auto a = RunEpisode(attacked, &s1, &attacks);
  const auto b = RunEpisode(BusRun{}, &s2);
  std::lock_guard<std::mutex> la(a->mutex), lb(b->mutex);
  EXPECT_EQ(attacks, 40);
  ExpectSameRun(*a, *b);
  EXPECT_EQ(a->paths, b->paths);  // the probe never saw an attacker's message either
  EXPECT_EQ(a->requests, b->requests);
  // Counted per topic as invalid, as the broker and every bus do for any type (issue 15).
  bus::LocalBus local(std::chrono::milliseconds(0));
  bus::Node sender(local, {.name = "sender"});
  bus::Node nav(local, {.name = "nav"});
  int received = 0;
  nav.Subscribe<msg::TopoPath>("r1/laser/path", [&](const auto&) { ++received; });
  flatbuffers::FlatBufferBuilder fbb;
  fbb.Finish(msg::CreateTopoPath(fbb, msg::CreateHeaderDirect(fbb, 0, 1, 1, "sender", false, 3), 1, 0, true, 0, 0, 12),
             "LPTH");
  sender.SendRaw("r1/laser/path", fbb.GetBufferPointer(), fbb.GetSize());
  nav.Poll(std::chrono::milliseconds(0));
  EXPECT_EQ(received, 0);
  EXPECT_EQ(local.counts().at("r1/laser/path").drops_invalid, 1u);
}

// §3.7 / §5.2 EstimatedPose over the bus: with wheel slip the odometry drifts; after the calibration at a revisited
// node the mapper's estimate is nearer the simulator's truth (LaserTruth) than the odometry — in this seeded world
// (25 % No. 3, 50 % slip, an error-free laser; not in every world, see the README).
TEST(LaserTopoServices, AfterACorrectionTheEstimatedPoseIsNearerTheTruthThanOdometry) {
  runtime::InProcessStats stats;
  BusRun slipping;
  slipping.world = {"density=25", "index=2", "seed=3"};
  slipping.slip = "slip_fraction=0.5";
  slipping.laser_error = "laser_error=none";
  const auto a = RunEpisode(slipping, &stats);
  std::lock_guard<std::mutex> lock(a->mutex);
  ASSERT_FALSE(a->poses.empty());
  uint32_t seen_corrections = 0;
  int checked = 0;
  for (const auto& p : a->poses) {
    // The pose corrects the odometry of its own tick.
    ASSERT_TRUE(a->odom_at.count(p.tick));
    EXPECT_EQ(p.odom.x, a->odom_at[p.tick].x);
    if (p.corrections == seen_corrections) continue;
    seen_corrections = p.corrections;
    ASSERT_TRUE(a->truth_at.count(p.tick));
    const Vec2 truth = a->truth_at[p.tick];
    const double odom_error = Norm(p.odom - truth), estimate_error = Norm(p.estimate - truth);
    std::cout << "correction " << p.corrections << " at tick " << p.tick << ": odometry " << odom_error
              << " cm off the truth, estimate " << estimate_error << " cm\n";
    EXPECT_LT(estimate_error, odom_error);
    ++checked;
  }
  EXPECT_GT(checked, 0);
}

}  // namespace
}  // namespace limbic::laser
