// A mixed crowd (issue 19 item 5): one hybrid-navigator robot (hwio, mapper, planner, affect, controller, mission:
// tools/stack's team stack) and one crowd robot (hwio, limbic-crowd-nav, mission) in one simulated world, in
// lockstep on an in-process bus, with limbic-crowd-sense deciding whom the crowd robot sees. Both must make
// progress towards their goals, and the crowd robot must see the hybrid one with its body's size.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <mutex>

#include "common/runtime/in_process.hpp"
#include "services/crowd/wiring.hpp"
#include "tools/stack/stack.hpp"

namespace limbic::crowd {
namespace {

struct Seen {
  std::mutex mutex;
  double first_distance[2] = {-1, -1}, last_distance[2] = {-1, -1};
  int64_t crowd_states = 0;
  double max_neighbour_radius = 0;  // of what r2 sees
};

runtime::ServiceDefinition Probe(std::shared_ptr<Seen> seen) {
  return {"probe", "records both robots' progress", [seen](runtime::ServiceContext& ctx) {
            for (int i = 0; i < 2; ++i) {
              const std::string r = "r" + std::to_string(i + 1);
              ctx.OnMessage<msg::MissionStatus>(r + "/mission", [seen, i](const bus::Message<msg::MissionStatus>& m) {
                std::lock_guard<std::mutex> lock(seen->mutex);
                if (seen->first_distance[i] < 0) seen->first_distance[i] = m.msg.distance_to_goal();
                seen->last_distance[i] = m.msg.distance_to_goal();
              });
            }
            ctx.OnMessage<msg::CrowdState>("r2/crowd/state", [seen](const bus::Message<msg::CrowdState>&) {
              std::lock_guard<std::mutex> lock(seen->mutex);
              ++seen->crowd_states;
            });
            ctx.OnMessage<msg::CrowdNeighbours>(
                "r2/crowd/neighbours", [seen](const bus::Message<msg::CrowdNeighbours>& m) {
                  std::lock_guard<std::mutex> lock(seen->mutex);
                  if (m.msg.neighbours() == nullptr) return;
                  for (const auto* n : *m.msg.neighbours())
                    seen->max_neighbour_radius = std::max(seen->max_neighbour_radius, double(n->radius()));
                });
          }};
}

TEST(MixedCrowd, AHybridRobotAndACrowdRobotBothMakeProgress) {
  stack::StackSpec spec;
  spec.set = 'B';
  spec.index = 0;
  spec.env_seed = 7;
  spec.seed = 7;
  spec.robots = 2;
  spec.max_ticks = 400;  // 40 s
  std::vector<runtime::HostedService> services = stack::BuildStack(spec);
  // r2 becomes a crowd robot: its mapper, planner, affect and controller give way to limbic-crowd-nav.
  const std::vector<std::string> replaced{"mapper", "planner", "affect", "controller"};
  std::erase_if(services, [&](const runtime::HostedService& s) {
    return s.options.robot == "r2" && std::find(replaced.begin(), replaced.end(), s.definition.name) != replaced.end();
  });
  for (auto& s : services) {
    if (s.definition.name != "simulator") continue;
    std::erase_if(s.options.participants, [&](const std::string& p) {
      return std::find(replaced.begin(), replaced.end(), p.substr(p.find('/') + 1)) != replaced.end() &&
             p.rfind("r2/", 0) == 0;
    });
    s.options.participants.push_back("r2/crowd_nav");
    s.options.participants.push_back("crowd_sense");
  }
  runtime::HostedService nav{CrowdNavService(), {}};
  nav.options.robot = "r2";
  nav.options.overrides = {"fov_deg=180"};
  services.push_back(nav);
  runtime::HostedService sense{CrowdSenseService(), {}};
  sense.options.robot = "";
  sense.options.overrides = {"robots=r1,r2"};
  services.push_back(sense);
  auto seen = std::make_shared<Seen>();
  runtime::HostedService probe{Probe(seen), {}};
  probe.options.robot = "";
  services.push_back(probe);

  std::atomic<bool> stop{false};
  runtime::InProcessStats stats;
  ASSERT_EQ(runtime::RunInProcess("inproc://mixed_crowd", services, stop, {}, &stats), 0)
      << (stats.errors.empty() ? "" : stats.errors.front());
  std::lock_guard<std::mutex> lock(seen->mutex);
  EXPECT_GE(stats.ticks, 399);
  EXPECT_GE(seen->crowd_states, 399);
  for (int i = 0; i < 2; ++i) {
    ASSERT_GE(seen->first_distance[i], 0) << "r" << i + 1 << " has no mission status";
    // 40 s at up to 0.5 m/s: well over a metre closer (or arrived).
    EXPECT_LT(seen->last_distance[i], seen->first_distance[i] - 1.0) << "r" << i + 1;
  }
  // Placed side by side and looking all round, the crowd robot sees the hybrid one, as a body (MARVIN, 0.35 m),
  // not as a point.
  EXPECT_NEAR(seen->max_neighbour_radius, 0.35, 1e-6);
}

}  // namespace
}  // namespace limbic::crowd
