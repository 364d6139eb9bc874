// A mixed crowd (issue 19 item 5): one hybrid-navigator robot (hwio, mapper, planner, affect, controller, mission)
// and one crowd robot (hwio, limbic-crowd-nav, mission) in one simulated world, built by tools/stack from the
// robots' navigators, in lockstep on an in-process bus, with limbic-crowd-sense deciding whom the crowd robot sees.
// Both must make progress towards their goals, and the crowd robot must see the hybrid one with its body's size.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <mutex>

#include "common/config/config.hpp"
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

// tools/stack builds a crowd robot in place of a hybrid one: its hwio and mission stay, limbic-crowd-nav takes the
// place of the mapper, planner, affect and controller, and one crowd_sense serves the team.
TEST(MixedCrowd, TheStackBuildsCrowdRobotsWhereTheNavigatorsSaySo) {
  stack::StackSpec spec;
  spec.robots = 3;
  spec.navigators = {"hybrid", "crowd", "crowd"};
  std::map<std::string, std::vector<std::string>> by_robot;
  int sensors = 0;
  for (const auto& s : stack::BuildStack(spec)) {
    by_robot[s.options.robot].push_back(s.definition.name);
    if (s.definition.name == "crowd_sense") {
      ++sensors;
      EXPECT_TRUE(std::find(s.options.overrides.begin(), s.options.overrides.end(), "robots=r1,r2,r3") !=
                  s.options.overrides.end());
    }
  }
  EXPECT_EQ(sensors, 1);
  EXPECT_EQ(by_robot[""], std::vector<std::string>{"crowd_sense"});  // global: it reads every robot's truth
  for (const char* name : {"mapper", "planner", "affect", "controller"}) {
    EXPECT_EQ(std::count(by_robot["r1"].begin(), by_robot["r1"].end(), name), 1) << name;
    EXPECT_EQ(std::count(by_robot["r2"].begin(), by_robot["r2"].end(), name), 0) << name;
  }
  EXPECT_EQ(std::count(by_robot["r2"].begin(), by_robot["r2"].end(), "crowd_nav"), 1);
  EXPECT_EQ(std::count(by_robot["r3"].begin(), by_robot["r3"].end(), "mission"), 1);
  const auto participants = stack::Participants(spec);
  auto has = [&](const std::string& p) {
    return std::find(participants.begin(), participants.end(), p) != participants.end();
  };
  EXPECT_TRUE(has("r1/controller"));
  EXPECT_TRUE(has("r2/crowd_nav"));
  EXPECT_TRUE(has("crowd_sense"));
  EXPECT_FALSE(has("r2/controller"));
  EXPECT_FALSE(has("r3/mapper"));
  // As processes (limbic launch, the determinism test): crowd_sense runs outside every namespace (`--robot ""`;
  // without it a service runs as r1), the crowd robots' limbic-crowd-nav under their own.
  bool sense_command = false, nav_command = false;
  for (const auto& [name, argv] : stack::StackCommands(spec, "/bin", "ipc:///tmp/mixed")) {
    const auto robot = std::find(argv.begin(), argv.end(), "--robot");
    ASSERT_NE(robot, argv.end()) << name;
    ASSERT_NE(robot + 1, argv.end()) << name;
    if (name == "crowd_sense") {
      sense_command = true;
      EXPECT_EQ(argv[0], "/bin/limbic-crowd-sense");
      EXPECT_EQ(*(robot + 1), "");
    }
    if (name == "r2-crowd_nav") {
      nav_command = true;
      EXPECT_EQ(argv[0], "/bin/limbic-crowd-nav");
      EXPECT_EQ(*(robot + 1), "r2");
    }
  }
  EXPECT_TRUE(sense_command && nav_command);
  // Without crowd robots nothing of the crowd is built, and an option for the crowd robots has nowhere to go.
  spec.navigators = {"hybrid"};
  for (const auto& s : stack::BuildStack(spec)) EXPECT_NE(s.definition.name, "crowd_nav");
  EXPECT_FALSE(stack::HasCrowdRobots(spec));
  spec.options = {"crowd_nav.mode=off"};
  EXPECT_THROW(stack::BuildStack(spec), config::ConfigError);
  // Nor has a controller option in an all-crowd team.
  spec.navigators = {"crowd"};
  spec.options = {"controller.map_point_inset=0.1"};
  EXPECT_THROW(stack::BuildStack(spec), config::ConfigError);
  spec.options = {"crowd_nav.mode=off", "mission.timeout_s=60"};
  EXPECT_NO_THROW(stack::BuildStack(spec));
  spec.options.clear();
  // A careless list: a wrong count or name is refused before anything runs.
  spec.navigators = {"hybrid", "crowd"};
  EXPECT_THROW(stack::BuildStack(spec), config::ConfigError);
  spec.navigators = {"crowded"};
  EXPECT_THROW(stack::BuildStack(spec), config::ConfigError);
}

TEST(MixedCrowd, AHybridRobotAndACrowdRobotBothMakeProgress) {
  stack::StackSpec spec;
  spec.set = 'B';
  spec.index = 0;
  spec.env_seed = 7;
  spec.seed = 7;
  spec.robots = 2;
  spec.max_ticks = 400;                   // 40 s
  spec.navigators = {"hybrid", "crowd"};  // r2 runs limbic-crowd-nav
  spec.options = {"crowd_nav.fov_deg=180"};
  std::vector<runtime::HostedService> services = stack::BuildStack(spec);
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
