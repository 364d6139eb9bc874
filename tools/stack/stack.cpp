#include "tools/stack/stack.hpp"

#include <algorithm>
#include <atomic>
#include <sstream>

#include "common/config/config.hpp"
#include "services/affect/wiring.hpp"
#include "services/controller/wiring.hpp"
#include "services/crowd/wiring.hpp"
#include "services/explore/wiring.hpp"
#include "services/hwio/wiring.hpp"
#include "services/mapper/wiring.hpp"
#include "services/mission/wiring.hpp"
#include "services/planner/wiring.hpp"
#include "services/simulator/wiring.hpp"
#include "sim/random.hpp"
#include "tools/stack/bag_recorder.hpp"

namespace limbic::stack {
namespace {

std::string YamlList(const std::vector<std::string>& items) {
  std::string out = "[";
  for (size_t i = 0; i < items.size(); ++i) out += (i ? ", \"" : "\"") + items[i] + "\"";
  return out + "]";
}

// "service.key=value" options, split by service.
std::vector<std::string> OptionsFor(const StackSpec& spec, const std::string& service) {
  std::vector<std::string> out;
  for (const auto& o : spec.options) {
    const auto dot = o.find('.');
    if (dot == std::string::npos) throw config::ConfigError("stack option '" + o + "' is not service.key=value");
    if (o.substr(0, dot) == service) out.push_back(o.substr(dot + 1));
  }
  return out;
}

// Seeds are uint64 (SplitMix64-derived) while the services' seed parameters are int64: pass the same
// 64 bits as a signed number; every service casts it back with static_cast<uint64_t>, so seeds of
// 2^63 and above survive exactly (a plain decimal would be refused by the int64 parameter).
std::string SeedText(uint64_t seed) { return std::to_string(static_cast<int64_t>(seed)); }

struct ServicePlan {
  runtime::ServiceDefinition definition;
  std::string robot;              // namespace it runs under
  std::vector<std::string> sets;  // --set assignments
};

std::string Join(const std::vector<std::string>& items) {
  std::string out;
  for (const auto& i : items) out += (out.empty() ? "" : ",") + i;
  return out;
}

std::vector<ServicePlan> Plan(const StackSpec& spec) {
  static const char* kKnown[] = {"simulator",  "hwio",    "mapper",          "planner",   "affect",
                                 "controller", "mission", "explore_manager", "crowd_nav", "crowd_sense"};
  for (const auto& o : spec.options) {
    const std::string service = o.substr(0, o.find('.'));
    if (std::find(std::begin(kKnown), std::end(kKnown), service) == std::end(kKnown)) {
      throw config::ConfigError("stack option '" + o + "': unknown service '" + service + "'");
    }
  }
  const auto names = RobotNames(spec);
  if (!spec.bodies.empty() && spec.bodies.size() != 1 && spec.bodies.size() != names.size()) {
    throw config::ConfigError("stack: " + std::to_string(spec.bodies.size()) + " bodies for " +
                              std::to_string(names.size()) + " robots (give one for all, or one per robot)");
  }
  // Robot i's description name ("" when none was given: every service's default, MARVIN).
  auto body_of = [&](size_t i) {
    return spec.bodies.empty() ? std::string() : spec.bodies[spec.bodies.size() == 1 ? 0 : i];
  };
  auto with_body = [&](size_t i, const char* key, std::vector<std::string> sets) {
    if (!body_of(i).empty()) sets.push_back(key + body_of(i));
    return sets;
  };
  std::vector<ServicePlan> plans;
  auto add = [&](runtime::ServiceDefinition def, const std::string& robot, std::vector<std::string> sets) {
    for (auto& o : OptionsFor(spec, def.name)) sets.push_back(o);
    plans.push_back({std::move(def), robot, std::move(sets)});
  };
  std::vector<std::string> simulator{"set=" + std::string(1, spec.set), "index=" + std::to_string(spec.index),
                                     "env_seed=" + SeedText(spec.env_seed), "seed=" + SeedText(spec.seed),
                                     "robots=" + Join(names)};
  if (!spec.bodies.empty()) simulator.push_back("bodies=" + Join(spec.bodies));
  add(simulator::SimulatorService(), names[0], simulator);
  // Service by service, then robot by robot: for one robot the order of old.
  for (size_t i = 0; i < names.size(); ++i) add(hwio::HwioService(), names[i], with_body(i, "robot.body=", {}));
  auto hybrid = [&](size_t i) { return NavigatorOf(spec, i) == "hybrid"; };
  for (size_t i = 0; i < names.size(); ++i)
    if (hybrid(i)) add(mapper::MapperService(), names[i], with_body(i, "body=", {}));
  for (size_t i = 0; i < names.size(); ++i)
    if (hybrid(i)) add(planner::PlannerService(), names[i], {});
  std::vector<std::string> affect{"config=" + spec.affect_config};
  if (!spec.affect_overrides.empty()) affect.push_back("overrides=" + YamlList(spec.affect_overrides));
  for (size_t i = 0; i < names.size(); ++i)
    if (hybrid(i)) add(affect::AffectService(), names[i], with_body(i, "body=", affect));
  for (size_t i = 0; i < names.size(); ++i) {
    if (hybrid(i))
      add(controller::ControllerService(), names[i], with_body(i, "body=", {"seed=" + SeedText(RobotSeed(spec, i))}));
    else
      add(crowd::CrowdNavService(), names[i], with_body(i, "body=", {}));
  }
  // One for the team, outside every robot's namespace (it reads each robot's truth and state).
  if (HasCrowdRobots(spec)) {
    std::vector<std::string> sense{"robots=" + Join(names)};
    if (spec.bodies.size() == 1) sense.push_back("body=" + spec.bodies[0]);  // how it sizes the hybrid robots
    add(crowd::CrowdSenseService(), "", sense);
  }
  for (const auto& r : names) {
    std::vector<std::string> mission{
        "iterations=" + std::to_string(spec.iterations), "run_id=" + spec.run_id,
        "configuration=" + (spec.configuration.empty() ? spec.affect_config : spec.configuration),
        "seed=" + SeedText(spec.seed)};
    if (!spec.metrics_csv.empty()) mission.push_back("metrics_csv=" + MetricsCsvFor(spec, r));
    if (spec.explore) mission.push_back("explore=true");
    add(mission::MissionService(), r, mission);
  }
  if (spec.explore) {
    std::vector<std::string> manager{
        "robots=" + Join(names), "run_id=" + spec.run_id,
        "configuration=" + (spec.configuration.empty() ? spec.affect_config : spec.configuration),
        "seed=" + SeedText(spec.seed)};
    if (!spec.bodies.empty()) manager.push_back("bodies=" + Join(spec.bodies));
    add(explore::TaskManagerService(), names[0], manager);
  }
  // An option meant for a service this stack does not run (crowd_nav in an all-hybrid team, the controller in
  // an all-crowd one, explore_manager outside explore mode) would take effect nowhere: say so instead.
  for (const auto& o : spec.options) {
    const std::string service = o.substr(0, o.find('.'));
    const bool runs =
        std::any_of(plans.begin(), plans.end(), [&](const ServicePlan& p) { return p.definition.name == service; });
    if (!runs) throw config::ConfigError("stack option '" + o + "': no " + service + " runs in this stack");
  }
  return plans;
}

}  // namespace

std::string NavigatorOf(const StackSpec& spec, size_t robot_index) {
  const size_t robots = static_cast<size_t>(std::max(spec.robots, 1));
  if (spec.navigators.empty()) return "hybrid";
  if (spec.navigators.size() != 1 && spec.navigators.size() != robots) {
    throw config::ConfigError("stack: " + std::to_string(spec.navigators.size()) + " navigators for " +
                              std::to_string(robots) + " robots (give one for all, or one per robot)");
  }
  const std::string& n = spec.navigators[spec.navigators.size() == 1 ? 0 : robot_index];
  if (n != "hybrid" && n != "crowd")
    throw config::ConfigError("stack: navigator must be hybrid or crowd, got '" + n + "'");
  return n;
}

bool HasCrowdRobots(const StackSpec& spec) {
  for (size_t i = 0; i < static_cast<size_t>(std::max(spec.robots, 1)); ++i)
    if (NavigatorOf(spec, i) == "crowd") return true;
  return false;
}

std::vector<std::string> RobotNames(const StackSpec& spec) {
  if (spec.robots < 1)
    throw config::ConfigError("stack: robots must be at least 1 (got " + std::to_string(spec.robots) + ")");
  if (spec.robots == 1) return {spec.robot};
  std::vector<std::string> names;
  for (int i = 1; i <= spec.robots; ++i) names.push_back("r" + std::to_string(i));
  return names;
}

uint64_t RobotSeed(const StackSpec& spec, size_t robot_index) {
  return robot_index == 0 ? spec.seed : sim::DeriveSeed(spec.seed, static_cast<uint64_t>(robot_index + 1));
}

std::string MetricsCsvFor(const StackSpec& spec, const std::string& robot) {
  if (spec.robots == 1 || spec.metrics_csv.empty()) return spec.metrics_csv;
  const auto slash = spec.metrics_csv.rfind('/');
  const auto dot = spec.metrics_csv.rfind('.');
  if (dot == std::string::npos || (slash != std::string::npos && dot < slash)) return spec.metrics_csv + "-" + robot;
  return spec.metrics_csv.substr(0, dot) + "-" + robot + spec.metrics_csv.substr(dot);
}

std::vector<std::string> Participants(const StackSpec& spec) {
  std::vector<std::string> participants{"simulator"};
  const auto names = RobotNames(spec);
  for (size_t i = 0; i < names.size(); ++i) {
    const bool hybrid = NavigatorOf(spec, i) == "hybrid";
    const std::vector<const char*> own =
        hybrid ? std::vector<const char*>{"/hwio.sense", "/hwio.actuate", "/mapper", "/planner",
                                          "/affect",     "/controller",   "/mission"}
               : std::vector<const char*>{"/hwio.sense", "/hwio.actuate", "/crowd_nav", "/mission"};
    for (const char* s : own) participants.push_back(names[i] + s);
  }
  if (HasCrowdRobots(spec)) participants.push_back("crowd_sense");
  if (spec.explore) participants.push_back("explore_manager");
  if (spec.recording) participants.push_back(names[0] + "/recorder");
  for (size_t i = 1; i < names.size(); ++i) {
    if (spec.team_recordings.count(names[i])) participants.push_back(names[i] + "/recorder");
  }
  return participants;
}

std::vector<runtime::HostedService> BuildStack(const StackSpec& spec) {
  std::vector<runtime::HostedService> services;
  const std::string first = RobotNames(spec)[0];
  for (auto& plan : Plan(spec)) {
    runtime::HostedService s{plan.definition, {}};
    s.options.robot = plan.robot;
    s.options.period_s = spec.period_s;
    s.options.overrides = plan.sets;
    if (plan.definition.name == "simulator") {
      s.options.coordinate = true;
      s.options.participants = Participants(spec);
      s.options.max_ticks = spec.max_ticks;
      s.options.stop_quorum = spec.robots;  // every robot's mission ends its own run
    }
    services.push_back(std::move(s));
  }
  if (spec.recording) {
    runtime::HostedService s{RecorderService(spec.recorder_options, spec.recording), {}};
    s.options.robot = first;
    s.options.period_s = spec.period_s;
    services.push_back(std::move(s));
  }
  for (const auto& name : RobotNames(spec)) {
    const auto it = spec.team_recordings.find(name);
    if (name == first || it == spec.team_recordings.end()) continue;
    runtime::HostedService s{RecorderService(spec.team_recorder_options, it->second), {}};
    s.options.robot = name;
    s.options.period_s = spec.period_s;
    services.push_back(std::move(s));
  }
  if (spec.bag) {
    // First, so it is bound before any service starts and records their start-up publications too.
    runtime::HostedService s{BagRecorderService(spec.bag), {}};
    s.options.robot = first;
    s.options.period_s = spec.period_s;
    services.insert(services.begin(), std::move(s));
  }
  return services;
}

std::vector<std::pair<std::string, std::vector<std::string>>> StackCommands(const StackSpec& stack_spec,
                                                                            const std::string& bin_dir,
                                                                            const std::string& bus) {
  StackSpec spec = stack_spec;
  spec.recording.reset();  // in-process only
  spec.team_recordings.clear();
  spec.bag.reset();
  std::vector<std::pair<std::string, std::vector<std::string>>> commands;
  const std::string participants = Join(Participants(spec));
  for (auto& plan : Plan(spec)) {
    // Executables are named with hyphens (explore_manager: limbic-explore-manager).
    std::string program = plan.definition.name;
    std::replace(program.begin(), program.end(), '_', '-');
    // `--robot ""` for the team's global services (crowd_sense): without it a service runs as r1.
    std::vector<std::string> argv{
        bin_dir + "/limbic-" + program, "--bus", bus, "--robot", plan.robot, "--mode", "lockstep", "--period",
        std::to_string(spec.period_s)};
    if (plan.definition.name == "simulator") {
      for (const auto& a : {std::string("--coordinate"), std::string("--participants"), participants})
        argv.push_back(a);
      if (spec.max_ticks >= 0) {
        argv.push_back("--max-ticks");
        argv.push_back(std::to_string(spec.max_ticks));
      }
      if (spec.robots > 1) {
        argv.push_back("--stop-quorum");
        argv.push_back(std::to_string(spec.robots));
      }
    }
    for (const auto& set : plan.sets) {
      argv.push_back("--set");
      argv.push_back(set);
    }
    // One name per process: a team's services are told apart by their robot.
    commands.emplace_back(spec.robots > 1 && !plan.definition.global && !plan.robot.empty()
                              ? plan.robot + "-" + plan.definition.name
                              : plan.definition.name,
                          argv);
  }
  return commands;
}

int RunInProcess(const StackSpec& spec) {
  std::atomic<bool> stop{false};
  return RunInProcess(spec, stop);
}

int RunInProcess(const StackSpec& spec, const std::atomic<bool>& stop) { return RunInProcess(spec, stop, nullptr); }

int RunInProcess(const StackSpec& spec, const std::atomic<bool>& stop, std::string* error) {
  static std::atomic<int> counter{0};
  std::ostringstream address;
  address << "inproc://stack-" << counter++;
  runtime::InProcessStats stats;
  auto services = BuildStack(spec);
  if (spec.customize) spec.customize(services);
  const int status =
      runtime::RunInProcess(address.str(), std::move(services), stop, runtime::InProcessOptions{}, &stats);
  if (error) {
    error->clear();
    for (const auto& e : stats.errors) *error += (error->empty() ? "" : "; ") + e;
  }
  return status;
}

}  // namespace limbic::stack
