// Issue 15, item 1 on the whole stack: the mapper's and the planner's state goes bad mid-run
// (poisoned through their test seams, as a bug or a corrupted memory would), and each service rolls
// back to its last good state, says so in its heartbeat (Degraded with the reason, on the bus),
// publishes nothing non-finite, recovers to ok, and the robot still reaches its goal.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <map>

#include "common/bus/local_bus.hpp"
#include "common/runtime/in_process.hpp"
#include "services/mapper/testing/occupancy_mapper_peer.hpp"
#include "services/mapper/wiring.hpp"
#include "services/planner/testing/planner_peer.hpp"
#include "services/planner/wiring.hpp"
#include "tests/testing/finite_scan.hpp"
#include "tools/stack/stack.hpp"

namespace limbic {
namespace {

using namespace std::chrono_literals;

constexpr int64_t kMapperPoisonTick = 100;   // 10 s into the run
constexpr int64_t kPlannerPoisonTick = 150;  // 15 s

// What the services publish and say about themselves.
struct Monitor {
  uint64_t checked = 0;
  std::vector<std::string> violations;
  // Per service ("mapper", "planner"): the Degraded reasons heard, in order, and the last state.
  std::map<std::string, std::vector<std::string>> degraded;
  std::map<std::string, std::vector<msg::ServiceState>> states;  // every heartbeat's state, in order
  std::map<std::string, int64_t> degraded_at_tick;               // the first Degraded heartbeat's tick
  std::vector<bool> traversals;                                  // success per traversal
  void Attach(bus::Node& node) {
    node.SubscribeAny("", [this](const bus::RawMessage& m) {
      ++checked;
      if (const std::string bad = testing::FindNonFinite(m.type, m.data); !bad.empty() && violations.size() < 20) {
        violations.push_back(m.topic + ": " + bad);
      }
      if (m.topic.rfind("health/", 0) == 0 && std::string_view(m.type.identifier) == "HBT1") {
        const auto* hb = flatbuffers::GetRoot<msg::Heartbeat>(m.data);
        const std::string service = hb->service() ? hb->service()->str() : "";
        for (const char* name : {"mapper", "planner"}) {
          if (service.find(name) == std::string::npos) continue;
          states[name].push_back(hb->state());
          if (hb->state() == msg::ServiceState::Degraded) {
            degraded[name].push_back(hb->status_reason() ? hb->status_reason()->str() : "");
            degraded_at_tick.try_emplace(name, hb->tick());
          }
        }
      }
      if (m.topic == "r1/metrics") traversals.push_back(flatbuffers::GetRoot<msg::RunMetrics>(m.data)->success());
    });
  }
};

TEST(Rollback, MapperAndPlannerRollBackReportDegradedOnTheBusAndTheRobotArrives) {
  bus::LocalBus bus;
  stack::StackSpec spec;
  spec.set = 'B';
  spec.index = 0;
  spec.iterations = 1;
  spec.affect_config = "affective";
  spec.max_ticks = 6100;
  int mapper_poisoned = 0, planner_poisoned = 0;
  std::vector<std::unique_ptr<runtime::Host>> hosts;
  for (auto& s : stack::BuildStack(spec)) {
    if (s.definition.name == "mapper") {
      // A cell far from the robot's path (the grid's corner, in the margin around the world): only
      // the whole-grid check (the map sums) can find it.
      s.definition = mapper::MapperService([&](mapper::OccupancyMapper& m, int64_t tick) {
        if (tick == kMapperPoisonTick) {
          mapper::OccupancyMapperTestPeer::SetOccupancy(m, 0, std::nan(""));
          ++mapper_poisoned;
        }
      });
    }
    if (s.definition.name == "planner") {
      s.definition = planner::PlannerService([&](planner::Planner& p, int64_t tick) {
        if (tick == kPlannerPoisonTick) {
          planner::PlannerTestPeer::PoisonPathCost(p);
          ++planner_poisoned;
        }
      });
    }
    s.options.bus = "inproc://rollback";
    s.options.mode = runtime::Mode::kLockstep;
    s.options.probe_period = 1ms;
    s.options.heartbeat_period = 20ms;  // wall clock: many heartbeats in a run of a few seconds
    hosts.push_back(std::make_unique<runtime::Host>(bus, s.options, s.definition));
  }
  bus::Node monitor_node(bus, {.name = "monitor"});
  Monitor monitor;
  monitor.Attach(monitor_node);
  for (auto& h : hosts) h->Start();
  std::atomic<bool> stop{false};
  std::vector<bool> running(hosts.size(), true);
  std::vector<int> status(hosts.size(), 0);
  size_t alive = hosts.size();
  const auto begin = std::chrono::steady_clock::now();
  while (alive > 0 && std::chrono::steady_clock::now() - begin < 240s) {
    bus.RunTimers();
    for (size_t i = 0; i < hosts.size(); ++i) {
      if (running[i] && !hosts[i]->Pump(0ms, stop)) {
        running[i] = false;
        status[i] = hosts[i]->Finish();
        --alive;
      }
    }
    monitor_node.Poll(0ms, 1 << 20);
  }
  monitor_node.Poll(0ms, 1 << 20);
  ASSERT_EQ(alive, 0u) << "the run did not end within 240 s";
  for (size_t i = 0; i < hosts.size(); ++i) {
    EXPECT_EQ(status[i], 0) << hosts[i]->context().instance() << ": " << hosts[i]->last_error();
    EXPECT_EQ(hosts[i]->step_errors(), 0u) << "a rollback is no step failure: " << hosts[i]->last_error();
  }
  ASSERT_EQ(mapper_poisoned, 1);
  ASSERT_EQ(planner_poisoned, 1);

  // Said on the bus, with the reason, after the poisoning and not before.
  ASSERT_FALSE(monitor.degraded["mapper"].empty()) << "the mapper never reported itself degraded";
  EXPECT_NE(monitor.degraded["mapper"].front().find("mapper: map sums not finite: cycle rolled back, 1 bad cell(s) "
                                                    "reset to unexplored"),
            std::string::npos)
      << monitor.degraded["mapper"].front();
  EXPECT_GE(monitor.degraded_at_tick["mapper"], kMapperPoisonTick);
  ASSERT_FALSE(monitor.degraded["planner"].empty()) << "the planner never reported itself degraded";
  EXPECT_NE(
      monitor.degraded["planner"].front().find("planner: state path cost not finite: restored the last good path"),
      std::string::npos)
      << monitor.degraded["planner"].front();
  EXPECT_GE(monitor.degraded_at_tick["planner"], kPlannerPoisonTick);
  // ... and ok again once the good cycles carry on: a Running heartbeat after the Degraded ones.
  for (const char* name : {"mapper", "planner"}) {
    const auto& st = monitor.states[name];
    const auto first_degraded = std::find(st.begin(), st.end(), msg::ServiceState::Degraded);
    EXPECT_NE(std::find(first_degraded, st.end(), msg::ServiceState::Running), st.end())
        << name << " did not report ok again after its rollback";
    EXPECT_EQ(std::count(st.begin(), first_degraded, msg::ServiceState::Degraded), 0);
  }
  // Nothing non-finite was published by anyone, the poisoned services included.
  EXPECT_GT(monitor.checked, 10000u);
  EXPECT_TRUE(monitor.violations.empty()) << monitor.violations.front();
  ASSERT_EQ(monitor.traversals.size(), 1u);
  EXPECT_TRUE(monitor.traversals[0]) << "the robot did not reach its goal after the rollbacks";
  std::cout << "mapper degraded heartbeats: " << monitor.degraded["mapper"].size()
            << " (first: " << monitor.degraded["mapper"].front() << "); planner: " << monitor.degraded["planner"].size()
            << " (first: " << monitor.degraded["planner"].front() << "); " << monitor.checked
            << " messages checked finite\n";
}

}  // namespace
}  // namespace limbic
