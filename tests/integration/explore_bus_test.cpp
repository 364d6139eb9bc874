// Heterogeneous exploration over a private bus with real processes (issue 18, "Teams" item 4): the task manager's
// resource-utilisation feedback reaches a robot's planner as a live parameter and the planner replans less; the
// robots bid for local environments over the bus and the manager allocates from their bids; the manager killed
// mid-run (realtime) and restarted takes over where its predecessor was and allocates again.
#include <gtest/gtest.h>
#include <signal.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <iostream>
#include <limits>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "common/bus/bus.hpp"
#include "tests/testing/process.hpp"
#include "tools/stack/stack.hpp"

namespace limbic {
namespace {

using namespace std::chrono_literals;

double CounterOf(const msg::Heartbeat& h, const std::string& name) {
  if (h.counters() == nullptr) return std::numeric_limits<double>::quiet_NaN();
  for (const auto* c : *h.counters()) {
    if (c->name() && c->name()->str() == name) return c->value();
  }
  return std::numeric_limits<double>::quiet_NaN();
}

struct PlannerBeat {
  int64_t tick;
  double plans, timer_plans, cap;
};

// A lockstep exploration stack (separate processes, `limbic-bus` in the middle) and a node of the test's own.
class ExploreBus {
 public:
  ExploreBus(const stack::StackSpec& spec, const std::string& name)
      : bus_("ipc://" + (dir_ / "bus")),
        broker_({testing::Bin("limbic-bus"), "--bus", bus_}, dir_ / (name + "-bus.log")) {
    for (const auto& [service, argv] : stack::StackCommands(spec, testing::BinDir(), bus_)) {
      services_.push_back(std::make_unique<testing::ChildProcess>(argv, dir_ / (name + "-" + service + ".log")));
    }
    bus::NodeOptions options;
    options.name = "explore_bus_test";
    node_ = std::make_unique<bus::Node>(context_, bus_, options);
  }
  ~ExploreBus() {
    for (auto& s : services_) {
      if (s->Running()) s->Signal(SIGTERM);
      s->Wait(5s);
    }
    node_.reset();
    broker_.Signal(SIGTERM);
    broker_.Wait(5s);
  }
  bus::Node& node() { return *node_; }
  // Polls the test's node until every service has exited (true) or `limit` passes.
  bool RunToEnd(std::chrono::seconds limit, const std::function<void()>& each = {}) {
    const auto end = std::chrono::steady_clock::now() + limit;
    while (std::chrono::steady_clock::now() < end) {
      node_->Poll(50ms);
      if (each) each();
      bool any = false;
      for (auto& s : services_) any = any || s->Running();
      if (!any) return true;
    }
    return false;
  }
  std::string Logs() const {
    std::string all;
    for (const auto& s : services_) all += s->Log().substr(s->Log().size() > 3000 ? s->Log().size() - 3000 : 0);
    return all;
  }

 private:
  testing::TempDir dir_;
  std::string bus_;
  testing::ChildProcess broker_;
  std::vector<std::unique_ptr<testing::ChildProcess>> services_;
  zmq::context_t context_;
  std::unique_ptr<bus::Node> node_;
};

// One MARVIN explores set A environment 0 with a CPU budget no robot can meet: the manager measures its services'
// CPU from their heartbeats, lowers its planning rate to the minimum (the planner's live max_replan_hz, 0.1 Hz) and
// the planner replans on its timer at most every 10 simulated seconds from then on, where its own replan period t_r
// (from r1/params) is shorter. Hostile heartbeats on the planner's health topic (a non-finite loop time, a negative
// CPU figure) are dropped or refused and counted; nothing crashes. The cap comes after the manager's wall-clock
// heartbeats, so at a tick that depends on the machine's speed (on a starved machine before the planner's first
// plan): the test checks the rate under the cap, not a comparison with the ticks before it.
TEST(ExploreFeedback, ATinyBudgetLowersThePlanningRateAndThePlannerReplansLess) {
  stack::StackSpec spec;
  spec.set = 'A';
  spec.index = 0;
  spec.explore = true;
  spec.options = {"mapper.full_map_period=10", "explore_manager.time_limit_s=300", "explore_manager.feedback=true",
                  "explore_manager.feedback_budget=0.0001", "explore_manager.feedback_planning_min_hz=0.1"};
  ExploreBus run(spec, "feedback");
  std::vector<PlannerBeat> planner;
  double retunes = 0, sets = 0, refused_samples = 0, refused_sets = 0;
  run.node().Subscribe<msg::Heartbeat>("health/r1/planner", [&](const bus::Message<msg::Heartbeat>& m) {
    if (m.header.source() && m.header.source()->str() == "explore_bus_test") return;  // ours
    planner.push_back(
        {m.msg.tick(), CounterOf(m.msg, "plans"), CounterOf(m.msg, "timer_plans"), CounterOf(m.msg, "max_replan_hz")});
  });
  double longest_t_r = 0;
  run.node().Subscribe<msg::ControlParams>("r1/params", [&](const bus::Message<msg::ControlParams>& m) {
    longest_t_r = std::max(longest_t_r, m.msg.t_r());
  });
  run.node().Subscribe<msg::Heartbeat>("health/explore_manager", [&](const bus::Message<msg::Heartbeat>& m) {
    retunes = CounterOf(m.msg, "feedback_retunes");
    sets = CounterOf(m.msg, "feedback_sets");
    refused_samples = CounterOf(m.msg, "feedback_samples_refused");
    refused_sets = CounterOf(m.msg, "feedback_sets_refused");
  });
  auto fake = run.node().Advertise<msg::Heartbeat>("health/r1/planner");
  bool sent_hostile = false;
  const bool ended = run.RunToEnd(240s, [&] {
    if (sent_hostile || planner.size() < 3) return;
    sent_hostile = true;
    // A negative CPU figure passes the message rules (counters are free-form) and is refused by the estimator.
    fake.Publish(0, planner.back().tick + 1, [&](flatbuffers::FlatBufferBuilder& fbb, auto header) {
      std::vector<flatbuffers::Offset<msg::Counter>> counters{msg::CreateCounterDirect(fbb, "step_cpu_s", -1.0),
                                                              msg::CreateCounterDirect(fbb, "plans", 1.0)};
      return msg::CreateHeartbeatDirect(fbb, header, "r1/planner", msg::ServiceState::Running, "lockstep",
                                        planner.back().tick + 1, 1.0, 0.0, 0.001, 0.001, nullptr, 0, &counters);
    });
    // A NaN loop time is refused by the message rules: sent raw, dropped by every receiver.
    flatbuffers::FlatBufferBuilder fbb;
    const double nan = std::numeric_limits<double>::quiet_NaN();
    auto header = msg::CreateHeaderDirect(fbb, 0, planner.back().tick + 1, 1, "explore_bus_test", false, 1);
    fbb.Finish(msg::CreateHeartbeatDirect(fbb, header, "r1/planner", msg::ServiceState::Running, "lockstep", 1, 1.0,
                                          nan, nan, nan),
               "HBT1");
    run.node().SendRaw("health/r1/planner", fbb.GetBufferPointer(), fbb.GetSize());
  });
  ASSERT_TRUE(ended) << run.Logs();
  ASSERT_GE(planner.size(), 4u) << run.Logs();
  EXPECT_GE(retunes, 1) << run.Logs();
  EXPECT_GE(sets, 1);
  EXPECT_EQ(refused_sets, 0);
  EXPECT_GE(refused_samples, 1);  // the negative CPU figure
  // The cap the planner reports goes from none (0) to the minimum the manager may command.
  size_t capped = 0;
  while (capped < planner.size() && planner[capped].cap != 0.1) ++capped;
  ASSERT_LT(capped, planner.size()) << "the planner was never capped\n" << run.Logs();
  ASSERT_LT(capped + 1, planner.size());
  // Uncapped, the timer replans every t_r; the cap's period must be the longer one for the cap to bind.
  ASSERT_GT(longest_t_r, 0.0) << "no control parameters seen on r1/params";
  EXPECT_LT(longest_t_r, 10.0);
  const PlannerBeat& from = planner[capped];
  const PlannerBeat& to = planner.back();
  const double window_s = static_cast<double>(to.tick - from.tick) * 0.1;
  ASSERT_GE(window_s, 30.0) << "too little of the run under the cap to judge its rate\n" << run.Logs();
  // At most one timer replan every 10 s of the window (the first may come at once: the period counts from the last
  // plan of any kind), and the timer still runs: a cap, not a stop.
  const double timer_plans = to.timer_plans - from.timer_plans;
  std::cout << "under the cap (ticks " << from.tick << "-" << to.tick << ", " << window_s << " s): " << timer_plans
            << " timer replans, " << to.plans - from.plans << " in all; uncapped period t_r up to " << longest_t_r
            << " s; " << retunes << " retunes\n";
  EXPECT_LE(timer_plans, std::floor(window_s / 10.0) + 1);
  EXPECT_GE(timer_plans, 1);
}

// Two MARVINs, bidding=robots (the default): the manager calls for bids on <robot>/explore/call, each robot's
// mission answers with its coarse-tier costs on <robot>/explore/bid, and the manager allocates from what arrived.
TEST(ExploreBids, TheRobotsBidOverTheBusAndTheManagerAllocatesFromTheirBids) {
  stack::StackSpec spec;
  spec.set = 'A';
  spec.index = 0;
  spec.robots = 2;
  spec.explore = true;
  spec.options = {"mapper.full_map_period=10", "explore_manager.time_limit_s=60"};
  ExploreBus run(spec, "bids");
  int calls = 0, bids = 0, tasks = 0;
  size_t call_tiles = 0;
  bool sizes_match = true;
  double rounds = 0, received = 0, stale = 0, malformed = 0, allocations = 0;
  for (const std::string r : {"r1", "r2"}) {
    run.node().Subscribe<msg::ExploreCall>(r + "/explore/call", [&](const bus::Message<msg::ExploreCall>& m) {
      ++calls;
      call_tiles = m.msg.centres() ? m.msg.centres()->size() : 0;
    });
    run.node().Subscribe<msg::ExploreBid>(r + "/explore/bid", [&](const bus::Message<msg::ExploreBid>& m) {
      ++bids;
      sizes_match = sizes_match && m.msg.costs() && m.msg.costs()->size() == call_tiles;
    });
    run.node().Subscribe<msg::ExploreTask>(
        r + "/explore/task", [&](const bus::Message<msg::ExploreTask>& m) { tasks += m.msg.finished() ? 0 : 1; });
  }
  run.node().Subscribe<msg::Heartbeat>("health/explore_manager", [&](const bus::Message<msg::Heartbeat>& m) {
    rounds = CounterOf(m.msg, "bid_rounds");
    received = CounterOf(m.msg, "bids_received");
    stale = CounterOf(m.msg, "bids_stale");
    malformed = CounterOf(m.msg, "bids_malformed");
    allocations = CounterOf(m.msg, "allocation_changes");
  });
  ASSERT_TRUE(run.RunToEnd(240s)) << run.Logs();
  std::cout << calls << " calls, " << bids << " bids, " << tasks << " tasks seen; manager: " << rounds << " rounds, "
            << received << " bids taken, " << allocations << " allocations\n";
  EXPECT_GE(calls, 2) << run.Logs();
  EXPECT_GE(bids, 2);
  EXPECT_TRUE(sizes_match);
  EXPECT_GE(rounds, 1);
  EXPECT_GE(received, 2);
  EXPECT_EQ(stale, 0);
  EXPECT_EQ(malformed, 0);
  EXPECT_GE(allocations, 2);  // both robots won an environment through their bids
  EXPECT_GE(tasks, 2);
}

// The stack's commands made realtime at `speedup`: no coordinator, each process on its own clock.
std::vector<std::pair<std::string, std::vector<std::string>>> RealtimeCommands(const stack::StackSpec& spec,
                                                                               const std::string& bus, double speedup) {
  auto commands = stack::StackCommands(spec, testing::BinDir(), bus);
  for (auto& [name, argv] : commands) {
    std::vector<std::string> out;
    for (size_t i = 0; i < argv.size(); ++i) {
      if (argv[i] == "--coordinate") continue;
      if (argv[i] == "--participants" || argv[i] == "--stop-quorum" || argv[i] == "--max-ticks") {
        ++i;
        continue;
      }
      out.push_back(argv[i]);
      if (argv[i] == "--mode" && i + 1 < argv.size()) {
        out.push_back("realtime");
        ++i;
      }
    }
    out.push_back("--speedup");
    out.push_back(std::to_string(speedup));
    argv = out;
  }
  return commands;
}

// Issue 18's unhappy paths: the exploration task manager is killed (SIGKILL) mid-run and restarted, here by the
// test (`limbic launch` restarts it the same way: restart: on-failure in deploy/explore-hosts/world.yaml). Two
// MARVINs in set A environment 0, realtime at speedup 2, separate processes. (At speedup 4 a loaded machine made the
// robots touch each other after the restart: 5 robot-robot contacts in one run of five with two CPU burners beside
// it, and once in a -j2 ctest batch; at speedup 2, 0 in four runs with the burners, 31-44 s a run.) While the manager
// is down the robots keep driving the latched tasks they hold; the restarted manager takes over each task a robot
// reports under way (its tiles stay that robot's), allocates again as robots finish (fresh task ids, which the robots
// take: a robot ignores an id it holds, so an id issued twice would be lost), and coverage keeps rising. The robots
// never run into each other.
TEST(ExploreManagerKilled, TheRobotsCarryOnAndTheRestartedManagerTakesOverAndAllocates) {
  stack::StackSpec spec;
  spec.set = 'A';
  spec.index = 0;
  spec.robots = 2;
  spec.explore = true;
  spec.options = {"mapper.full_map_period=10", "explore_manager.time_limit_s=3600"};
  testing::TempDir dir;
  const std::string bus = "ipc://" + (dir / "bus");
  testing::ChildProcess broker({testing::Bin("limbic-bus"), "--bus", bus}, dir / "bus.log");
  std::vector<std::unique_ptr<testing::ChildProcess>> services;
  std::vector<std::string> manager_argv;
  for (const auto& [name, argv] : RealtimeCommands(spec, bus, 2.0)) {
    if (name == "explore_manager") {
      manager_argv = argv;
      continue;
    }
    services.push_back(std::make_unique<testing::ChildProcess>(argv, dir / (name + ".log")));
  }
  ASSERT_FALSE(manager_argv.empty());
  auto manager = std::make_unique<testing::ChildProcess>(manager_argv, dir / "explore_manager-1.log");
  zmq::context_t context;
  bus::NodeOptions options;
  options.name = "explore_restart_test";
  bus::Node node(context, bus, options);

  struct Manager {
    uint64_t incarnation = 0;
    double coverage = 0, allocations = 0, adopted = 0, missing = 0;
  } seen;
  node.Subscribe<msg::Heartbeat>("health/explore_manager", [&](const bus::Message<msg::Heartbeat>& m) {
    seen.incarnation = m.header.incarnation();
    seen.coverage = CounterOf(m.msg, "coverage");
    seen.allocations = CounterOf(m.msg, "allocation_changes");
    seen.adopted = CounterOf(m.msg, "tasks_adopted");
    seen.missing = CounterOf(m.msg, "bids_missing");
  });
  struct Robot {
    std::map<uint64_t, std::vector<int64_t>> tasks;  // by the sending manager's incarnation, in order
    int64_t reported = -1;                           // the task id in its latest report
    std::set<int64_t> reported_ids;
    double x = 0, y = 0;
    uint64_t world_contacts = 0, robot_contacts = 0;
  };
  std::map<std::string, Robot> robots;
  for (const std::string r : {"r1", "r2"}) {
    node.Subscribe<msg::ExploreTask>(r + "/explore/task", [&, r](const bus::Message<msg::ExploreTask>& m) {
      if (m.msg.finished()) return;
      auto& ids = robots[r].tasks[m.header.incarnation()];
      if (ids.empty() || ids.back() != m.msg.task_id()) ids.push_back(m.msg.task_id());  // latched re-sends
    });
    node.Subscribe<msg::ExploreReport>(r + "/explore/report", [&, r](const bus::Message<msg::ExploreReport>& m) {
      robots[r].reported = m.msg.task_id();
      robots[r].reported_ids.insert(m.msg.task_id());
    });
    node.Subscribe<msg::GroundTruth>(r + "/truth", [&, r](const bus::Message<msg::GroundTruth>& m) {
      if (m.msg.pose()) {
        robots[r].x = m.msg.pose()->x();
        robots[r].y = m.msg.pose()->y();
      }
      robots[r].world_contacts = m.msg.world_collisions();
      robots[r].robot_contacts = m.msg.robot_collisions();
    });
  }
  auto poll_until = [&](auto done, std::chrono::seconds limit) {
    const auto end = std::chrono::steady_clock::now() + limit;
    while (std::chrono::steady_clock::now() < end) {
      node.Poll(50ms);
      if (done()) return true;
    }
    return done();
  };
  auto logs = [&] {
    std::string all = manager->Log();
    for (const auto& s : services) all += s->Log().substr(s->Log().size() > 2000 ? s->Log().size() - 2000 : 0);
    return all;
  };

  // 1. Both robots get a task and work at it for a few (simulated) seconds.
  ASSERT_TRUE(poll_until([&] { return robots["r1"].reported > 0 && robots["r2"].reported > 0; }, 90s))
      << "the robots were never both allocated\n"
      << logs();
  poll_until([] { return false; }, 3s);
  const uint64_t first = seen.incarnation;
  const double coverage_at_kill = seen.coverage;
  const double allocations_at_kill = seen.allocations;
  const std::map<std::string, int64_t> held_at_kill{{"r1", robots["r1"].reported}, {"r2", robots["r2"].reported}};
  const std::pair<double, double> p1{robots["r1"].x, robots["r1"].y}, p2{robots["r2"].x, robots["r2"].y};
  auto contacts = [&] { return robots["r1"].world_contacts + robots["r2"].world_contacts; };
  auto robot_contacts = [&] { return robots["r1"].robot_contacts + robots["r2"].robot_contacts; };
  const uint64_t contacts_at_kill = contacts();
  const uint64_t robot_contacts_at_kill = robot_contacts();

  // 2. SIGKILL; the robots carry on alone for 2 s of wall time (4 simulated s), then the manager is started again.
  manager->Signal(SIGKILL);
  ASSERT_EQ(manager->Wait(5s), 128 + SIGKILL);
  poll_until([] { return false; }, 2s);
  const double moved = std::hypot(robots["r1"].x - p1.first, robots["r1"].y - p1.second) +
                       std::hypot(robots["r2"].x - p2.first, robots["r2"].y - p2.second);
  manager = std::make_unique<testing::ChildProcess>(manager_argv, dir / "explore_manager-2.log");
  ASSERT_TRUE(poll_until([&] { return seen.incarnation != 0 && seen.incarnation != first; }, 30s))
      << "the restarted manager never sent a heartbeat\n"
      << manager->Log();
  const uint64_t second = seen.incarnation;

  // 3. It takes over, allocates again (a robot finishing its environment), and coverage rises past the kill's.
  auto new_ids = [&] {
    int n = 0;
    for (auto& [r, robot] : robots) {
      for (int64_t id : robot.tasks[second]) n += id != held_at_kill.at(r) ? 1 : 0;
    }
    return n;
  };
  const uint64_t contacts_at_restart = contacts();
  const uint64_t robot_contacts_at_restart = robot_contacts();
  const bool allocated = poll_until(
      [&] { return new_ids() > 0 && seen.coverage > coverage_at_kill && seen.allocations > allocations_at_kill; },
      120s);
  // Give the robots a moment to take the newest task (they report at 1 Hz).
  poll_until(
      [&] {
        for (auto& [r, robot] : robots) {
          if (!robot.tasks[second].empty() && robot.reported != robot.tasks[second].back()) return false;
        }
        return true;
      },
      10s);
  std::cout << "killed with coverage " << coverage_at_kill << " after " << allocations_at_kill << " allocations (tasks "
            << held_at_kill.at("r1") << ", " << held_at_kill.at("r2") << " under way); robots moved " << moved
            << " m while it was down; restarted manager: " << seen.adopted << " tasks taken over, " << new_ids()
            << " new allocations, coverage " << seen.coverage << ", allocation count " << seen.allocations
            << ", bids missing " << seen.missing << "; world contacts " << contacts_at_kill << " before the kill, "
            << contacts_at_restart - contacts_at_kill << " while it was down, " << contacts() - contacts_at_restart
            << " after; robot-robot contacts " << robot_contacts_at_kill << ", "
            << robot_contacts_at_restart - robot_contacts_at_kill << ", "
            << robot_contacts() - robot_contacts_at_restart << "\n";
  ASSERT_TRUE(allocated) << "no allocation after the restart, or coverage did not rise\n" << manager->Log();
  EXPECT_GT(seen.coverage, coverage_at_kill);
  EXPECT_GT(moved, 0.3) << "the robots stopped while the manager was down";
  // Every task the robots held at the kill and still reported was taken over, not re-allocated.
  EXPECT_GE(seen.adopted, 1) << manager->Log();
  EXPECT_GT(seen.allocations, allocations_at_kill);  // the count continues from the predecessor's
  for (auto& [r, robot] : robots) {
    int64_t before_max = 0;
    for (auto& [incarnation, ids] : robot.tasks) {
      if (incarnation != second)
        for (int64_t id : ids) before_max = std::max(before_max, id);
    }
    for (int64_t id : robot.tasks[second]) {
      // A new task of the restarted manager has an id the robot never held, and the robot took it.
      if (id == held_at_kill.at(r)) continue;
      EXPECT_GT(id, before_max) << r;
      EXPECT_TRUE(robot.reported_ids.count(id)) << r << " never took task " << id << "\n" << manager->Log();
    }
  }
  // No pile-up of the two robots (a takeover that sent both to one environment would make one). A single touch is
  // what a team meets anyway: three MARVINs touch 1.4-1.9 times in a 300 s exploration without any manager outage
  // (services/explore/README.md, explore_teams_lanes_clear); with the lane ends kept clear of the walls one touch
  // was seen here in one run of several. Contacts with the world are printed, not asserted.
  EXPECT_LE(robot_contacts(), 2u) << "the robots kept running into each other";
}

// Issue 18 item 4's unhappy path over the bus: an executor that refuses the manager's live set, and one that never
// answers. The test is robot r1's planner, mapper and controller (their heartbeats, at 10 Hz, each using half a
// core against a budget of 0.0001 of one) and answers their parameter requests; the manager and the simulator (for
// the latched world) are real processes, realtime. The mapper takes every set. The planner refuses the first: the
// manager puts its cap back, counts the refusal, logs it and sends no planning set for the hold (2 s); the
// mapper's set stands. The planner leaves the next unanswered: after the reply timeout (5 s) it is counted as
// unanswered and held twice as long. (Every real planner takes every rate the manager may command, so this cannot
// be provoked from one.)
TEST(ExploreFeedback, ARefusedSetIsPutBackAndHeldAndAnUnansweredOneTimesOut) {
  stack::StackSpec spec;
  spec.set = 'A';
  spec.index = 0;
  spec.explore = true;
  spec.options = {"explore_manager.time_limit_s=3600",         "explore_manager.feedback=true",
                  "explore_manager.feedback_budget=0.0001",    "explore_manager.feedback_planning_min_hz=0.1",
                  "explore_manager.feedback_refusal_hold_s=2", "explore_manager.bidding=manager"};
  testing::TempDir dir;
  const std::string bus = "ipc://" + (dir / "bus");
  testing::ChildProcess broker({testing::Bin("limbic-bus"), "--bus", bus}, dir / "bus.log");
  std::vector<std::unique_ptr<testing::ChildProcess>> services;
  for (const auto& [name, argv] : RealtimeCommands(spec, bus, 1.0)) {
    if (name == "simulator" || name == "explore_manager")
      services.push_back(std::make_unique<testing::ChildProcess>(argv, dir / (name + ".log")));
  }
  ASSERT_EQ(services.size(), 2u);
  auto logs = [&] {
    std::string all;
    for (const auto& s : services) all += s->Log().substr(s->Log().size() > 4000 ? s->Log().size() - 4000 : 0);
    return all;
  };
  zmq::context_t context;
  bus::NodeOptions options;
  options.name = "r1-executor";
  bus::Node node(context, bus, options);

  struct Request {
    double at_s;
    std::string value;
  };
  std::map<std::string, std::vector<Request>> requests;  // by service
  double refused = 0, unanswered = 0, held = 0;
  node.Subscribe<msg::Heartbeat>("health/explore_manager", [&](const bus::Message<msg::Heartbeat>& m) {
    refused = CounterOf(m.msg, "feedback_sets_refused");
    unanswered = CounterOf(m.msg, "feedback_sets_unanswered");
    held = CounterOf(m.msg, "feedback_sets_held");
  });
  const auto start = std::chrono::steady_clock::now();
  auto now_s = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(); };
  std::map<std::string, bus::Publisher<msg::ParameterReply>> replies;
  for (const std::string service : {"planner", "mapper"}) {
    replies.emplace(service, node.Advertise<msg::ParameterReply>("param/r1/" + service + "/reply"));
    node.Subscribe<msg::ParameterRequest>(
        "param/r1/" + service, [&, service](const bus::Message<msg::ParameterRequest>& m) {
          auto& seen = requests[service];
          seen.push_back({now_s(), m.msg.value() ? m.msg.value()->str() : ""});
          const bool refuse = service == "planner" && seen.size() == 1;
          const bool ignore = service == "planner" && seen.size() == 2;
          if (ignore) return;
          replies.at(service).Publish(0, 0, [&](flatbuffers::FlatBufferBuilder& fbb, auto header) {
            return msg::CreateParameterReplyDirect(fbb, header, m.msg.request_id(), !refuse,
                                                   refuse ? "max_replan_hz: out of range (test)" : "");
          });
        });
  }
  std::map<std::string, bus::Publisher<msg::Heartbeat>> beats;
  for (const std::string service : {"planner", "mapper", "controller"})
    beats.emplace(service, node.Advertise<msg::Heartbeat>("health/r1/" + service));
  int64_t tick = 0;
  auto beat = [&] {
    ++tick;
    for (auto& [service, out] : beats) {
      out.Publish(0, tick, [&](flatbuffers::FlatBufferBuilder& fbb, auto header) {
        std::vector<flatbuffers::Offset<msg::Counter>> counters{
            msg::CreateCounterDirect(fbb, "step_cpu_s", 0.05 * static_cast<double>(tick))};
        if (service == "planner") counters.push_back(msg::CreateCounterDirect(fbb, "plans", static_cast<double>(tick)));
        if (service == "mapper")
          counters.push_back(msg::CreateCounterDirect(fbb, "full_maps", static_cast<double>(tick)));
        return msg::CreateHeartbeatDirect(fbb, header, ("r1/" + service).c_str(), msg::ServiceState::Running,
                                          "realtime", tick, 1.0, 0.0, 0.001, 0.001, nullptr, 0, &counters);
      });
    }
  };
  // Beats every 100 ms (a tick each: 0.05 CPU s a tick is half a core) until `done` or `limit` (s from start).
  auto run_until = [&](const std::function<bool()>& done, double limit_s) {
    auto next = std::chrono::steady_clock::now();
    while (now_s() < limit_s) {
      if (std::chrono::steady_clock::now() >= next) {
        beat();
        next += 100ms;
      }
      node.Poll(20ms);
      if (done()) return true;
    }
    return done();
  };

  // 1. The first planning set, refused; its hold passes with no planning set.
  ASSERT_TRUE(run_until([&] { return requests["planner"].size() >= 1; }, 60)) << "no planning set\n" << logs();
  const double refused_at = requests["planner"][0].at_s;
  ASSERT_TRUE(run_until([&] { return refused >= 1; }, refused_at + 10)) << logs();
  run_until([] { return false; }, refused_at + 1.8);
  EXPECT_EQ(requests["planner"].size(), 1u) << "a planning set during the 2 s hold";

  // 2. After the hold, the next planning set (the same cap, since the first was put back), left unanswered: counted
  // after the 5 s reply timeout, and the hold doubles (4 s) before a third.
  ASSERT_TRUE(run_until([&] { return requests["planner"].size() >= 2; }, refused_at + 15)) << logs();
  const double ignored_at = requests["planner"][1].at_s;
  EXPECT_GE(ignored_at - refused_at, 2.0);
  EXPECT_EQ(requests["planner"][1].value, requests["planner"][0].value) << "the refused cap was not put back";
  // The decisions within the hold (one a second) wanted the same cut and were held (the manager's heartbeat, once
  // a second, says so).
  EXPECT_TRUE(run_until([&] { return held >= 1; }, ignored_at + 3)) << "no decision was held";
  ASSERT_TRUE(run_until([&] { return unanswered >= 1; }, ignored_at + 12)) << logs();
  const bool third = run_until([&] { return requests["planner"].size() >= 3; }, ignored_at + 20);
  ASSERT_TRUE(third) << logs();
  EXPECT_GE(requests["planner"][2].at_s - ignored_at, 5.0 + 4.0 - 1.0)  // timeout + doubled hold, a decision's slack
      << "the third planning set came " << requests["planner"][2].at_s - ignored_at << " s after the second";
  EXPECT_EQ(refused, 1);
  // The mapper took its set (its period at the lowest rate in one step: the budget is out of reach) at the first
  // planning set's decision, and nothing put it back or sent it again.
  ASSERT_EQ(requests["mapper"].size(), 1u);
  EXPECT_NEAR(requests["mapper"][0].at_s, refused_at, 0.5);
  EXPECT_EQ(requests["mapper"][0].value, "50");  // 0.2 Hz, feedback_sensing_min_hz, at 10 ticks a second
  const std::string manager_log = services[1]->Log();
  EXPECT_NE(manager_log.find("r1/planner refused max_replan_hz"), std::string::npos) << manager_log;
  for (auto& s : services) s->Signal(SIGTERM);
  for (auto& s : services) EXPECT_EQ(s->Wait(10s), 0) << s->Log();
  std::cout << "planning sets at " << refused_at << ", " << ignored_at << ", " << requests["planner"][2].at_s
            << " s; mapping sets " << requests["mapper"].size() << "; held decisions " << held << "\n";
}

// A careless manager command line: the refusal hold longer than its cap, or a cap below the default hold, is
// refused at start-up with a message naming both, and the manager exits non-zero — instead of the cap being raised
// silently (as it was) or a hold that never doubles.
TEST(ExploreManagerOptions, AHoldAboveItsCapIsRefusedAtStartUp) {
  testing::TempDir dir;
  const std::vector<std::vector<std::string>> cases = {{"feedback_refusal_hold_s=700"},
                                                       {"feedback_refusal_hold_max_s=10"}};
  for (const auto& sets : cases) {
    std::vector<std::string> argv = {testing::Bin("limbic-explore-manager"), "--bus", "ipc://" + dir / "nobody"};
    for (const auto& s : sets) argv.insert(argv.end(), {"--set", s});
    testing::ChildProcess manager(argv, dir / "manager.log");
    const int rc = manager.Wait(30s);
    EXPECT_NE(rc, -1) << sets[0] << ": still running";
    EXPECT_NE(rc, 0) << sets[0] << "\n" << manager.Log();
    EXPECT_NE(manager.Log().find("refusal_hold_s <= refusal_hold_max_s"), std::string::npos) << sets[0] << "\n"
                                                                                             << manager.Log();
  }
  // Both raised together are accepted: the manager starts and waits for its bus (stopped here).
  std::vector<std::string> argv = {
      testing::Bin("limbic-explore-manager"), "--bus", "ipc://" + dir / "nobody",         "--set",
      "feedback_refusal_hold_s=700",          "--set", "feedback_refusal_hold_max_s=7000"};
  testing::ChildProcess manager(argv, dir / "accepted.log");
  std::this_thread::sleep_for(1s);
  EXPECT_TRUE(manager.Running()) << manager.Log();
  manager.Signal(SIGTERM);
  EXPECT_NE(manager.Wait(10s), -1);
}

}  // namespace
}  // namespace limbic
