// Heterogeneous exploration over a private bus with real processes (issue 18, "Teams" item 4): the task manager's
// resource-utilisation feedback reaches a robot's planner as a live parameter and the planner replans less; the
// robots bid for local environments over the bus and the manager allocates from their bids.
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <limits>
#include <memory>
#include <string>
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
  double plans, cap;
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
// CPU from their heartbeats, lowers its planning rate to the minimum (the planner's live max_replan_hz) and the
// planner replans less per simulated second than before. Hostile heartbeats on the planner's health topic (a
// non-finite loop time, a negative CPU figure) are dropped or refused and counted; nothing crashes.
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
    planner.push_back({m.msg.tick(), CounterOf(m.msg, "plans"), CounterOf(m.msg, "max_replan_hz")});
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
  ASSERT_GT(capped, 0u);
  ASSERT_LT(capped + 1, planner.size());
  auto rate = [](const PlannerBeat& a, const PlannerBeat& b) {
    return (b.plans - a.plans) / (static_cast<double>(b.tick - a.tick) * 0.1);
  };
  const double before = rate(planner.front(), planner[capped]);
  const double after = rate(planner[capped], planner.back());
  std::cout << "replans per simulated second: " << before << " before the cap (ticks " << planner.front().tick << "-"
            << planner[capped].tick << "), " << after << " after (to tick " << planner.back().tick << "); " << retunes
            << " retunes\n";
  EXPECT_LT(after, before);
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

}  // namespace
}  // namespace limbic
