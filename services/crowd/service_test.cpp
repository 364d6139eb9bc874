// Two crowd robots on an in-process bus in lockstep with the real simulator, hwio and mission (issue 19 item 2):
// limbic-crowd-sense tells each robot whom it sees, limbic-crowd-nav drives it through hwio like the controller
// would, and both publish what they computed.
#include <gtest/gtest.h>

#include <cmath>
#include <mutex>
#include <set>

#include "common/runtime/in_process.hpp"
#include "services/crowd/wiring.hpp"
#include "services/hwio/wiring.hpp"
#include "services/mission/wiring.hpp"
#include "services/simulator/wiring.hpp"

namespace limbic::crowd {
namespace {

struct Seen {
  std::mutex mutex;
  int64_t states[2] = {0, 0};
  double first_distance[2] = {-1, -1}, last_distance[2] = {-1, -1};
  int max_neighbours[2] = {0, 0};
  int64_t neighbour_messages = 0;
  std::set<int> ids_seen[2];  // the track ids each robot's neighbours carried
  bool finite = true;
  double max_speed = 0;
};

runtime::ServiceDefinition Probe(std::shared_ptr<Seen> seen) {
  return {"probe", "records the crowd robots' output", [seen](runtime::ServiceContext& ctx) {
            for (int i = 0; i < 2; ++i) {
              const std::string r = "r" + std::to_string(i + 1);
              ctx.OnMessage<msg::CrowdState>(r + "/crowd/state", [seen, i](const bus::Message<msg::CrowdState>& m) {
                std::lock_guard<std::mutex> lock(seen->mutex);
                ++seen->states[i];
                seen->finite = seen->finite && std::isfinite(m.msg.efficacy()) && std::isfinite(m.msg.task_delay());
                seen->max_neighbours[i] = std::max(seen->max_neighbours[i], static_cast<int>(m.msg.neighbours()));
              });
              ctx.OnMessage<msg::MissionStatus>(r + "/mission", [seen, i](const bus::Message<msg::MissionStatus>& m) {
                std::lock_guard<std::mutex> lock(seen->mutex);
                if (seen->first_distance[i] < 0) seen->first_distance[i] = m.msg.distance_to_goal();
                seen->last_distance[i] = m.msg.distance_to_goal();
              });
              ctx.OnMessage<msg::CrowdNeighbours>(r + "/crowd/neighbours",
                                                  [seen, i](const bus::Message<msg::CrowdNeighbours>& m) {
                                                    std::lock_guard<std::mutex> lock(seen->mutex);
                                                    ++seen->neighbour_messages;
                                                    if (m.msg.neighbours() != nullptr)
                                                      for (const auto* n : *m.msg.neighbours())
                                                        seen->ids_seen[i].insert(n->id());
                                                  });
              ctx.OnMessage<msg::VelocityCommand>(r + "/cmd_vel", [seen](const bus::Message<msg::VelocityCommand>& m) {
                std::lock_guard<std::mutex> lock(seen->mutex);
                seen->max_speed = std::max(seen->max_speed, m.msg.v());
              });
            }
          }};
}

TEST(CrowdServices, TwoRobotsDriveThroughHwioAndSeeEachOther) {
  auto seen = std::make_shared<Seen>();
  const std::vector<std::string> robots{"r1", "r2"};
  std::vector<runtime::HostedService> services;
  runtime::HostedService sim{simulator::SimulatorService(), {}};
  sim.options.robot = "r1";
  sim.options.coordinate = true;
  sim.options.max_ticks = 300;  // 30 s
  sim.options.overrides = {"set=B", "index=0", "seed=7", "robots=r1,r2"};
  sim.options.participants = {"simulator", "crowd_sense"};
  for (const auto& r : robots) {
    for (const char* p : {"/hwio.sense", "/hwio.actuate", "/crowd_nav", "/mission"})
      sim.options.participants.push_back(r + p);
  }
  services.push_back(sim);
  for (const auto& r : robots) {
    runtime::HostedService hwio{hwio::HwioService(), {}};
    hwio.options.robot = r;
    services.push_back(hwio);
    runtime::HostedService nav{CrowdNavService(), {}};
    nav.options.robot = r;
    nav.options.overrides = {"fov_deg=180"};  // all round: the two start 0.9 m apart, so each must see the other
    services.push_back(nav);
    runtime::HostedService mission{mission::MissionService(), {}};
    mission.options.robot = r;
    mission.options.overrides = {"iterations=1"};
    services.push_back(mission);
  }
  runtime::HostedService sense{CrowdSenseService(), {}};
  sense.options.robot = "";
  sense.options.overrides = {"robots=r1,r2"};
  services.push_back(sense);
  runtime::HostedService probe{Probe(seen), {}};
  probe.options.robot = "";
  services.push_back(probe);
  std::atomic<bool> stop{false};
  runtime::InProcessStats stats;
  ASSERT_EQ(runtime::RunInProcess("inproc://crowd_services", services, stop, {}, &stats), 0)
      << (stats.errors.empty() ? "" : stats.errors.front());
  std::lock_guard<std::mutex> lock(seen->mutex);
  EXPECT_GE(stats.ticks, 299);
  for (int i = 0; i < 2; ++i) {
    EXPECT_GE(seen->states[i], 299) << "r" << i + 1;
    // 30 s at up to 0.5 m/s towards the goal: well over a metre closer.
    EXPECT_LT(seen->last_distance[i], seen->first_distance[i] - 1.0) << "r" << i + 1;
    // Placed side by side, looking all round: each sees the other.
    EXPECT_GE(seen->max_neighbours[i], 1) << "r" << i + 1;
    // … and tells it apart by its track id (its index in the sense helper's list), which the memory needs.
    EXPECT_EQ(seen->ids_seen[i], std::set<int>{1 - i}) << "r" << i + 1;
  }
  EXPECT_TRUE(seen->finite);
  EXPECT_GT(seen->max_speed, 0.2);
  EXPECT_LE(seen->max_speed, 0.55 + 1e-9);  // v_opt 0.5, frustration's +0.05 at most
  EXPECT_GE(seen->neighbour_messages, 2 * 299);
}

TEST(CrowdServices, BadOptionsAreRefusedAtStart) {
  std::atomic<bool> stop{false};
  runtime::HostedService nav{CrowdNavService(), {}};
  nav.options.overrides = {"mode=sometimes"};
  EXPECT_THROW(runtime::RunInProcess("inproc://crowd_bad", {nav}, stop), config::ConfigError);
  nav.options.overrides = {"emotions=/nonexistent/emotions.yaml"};
  EXPECT_THROW(runtime::RunInProcess("inproc://crowd_bad2", {nav}, stop), config::ConfigError);
  nav.options.overrides = {"fov_deg=270"};
  EXPECT_THROW(runtime::RunInProcess("inproc://crowd_bad3", {nav}, stop), config::ConfigError);
  nav.options.overrides = {"neighbour_memory=-1"};
  EXPECT_THROW(runtime::RunInProcess("inproc://crowd_bad4", {nav}, stop), config::ConfigError);
}

}  // namespace
}  // namespace limbic::crowd
