#include "tools/limbic/team_launch.hpp"

#include <yaml-cpp/yaml.h>

#include <set>

#include "common/config/config.hpp"

namespace limbic::cli {

namespace {

// The --set a per-robot program takes for its body ("" for programs without one).
std::string BodyKey(const std::string& program) {
  if (program == "limbic-hwio") return "robot.body=";
  if (program == "limbic-mapper" || program == "limbic-affect" || program == "limbic-controller") return "body=";
  return "";
}

void AddBody(YAML::Node& process, const std::string& program, const std::string& body) {
  const std::string key = BodyKey(program);
  if (key.empty() || body.empty()) return;
  process["command"].push_back("--set");
  process["command"].push_back(key + body);
}

}  // namespace

std::string TeamLaunchYaml(const std::string& path, int robots, const std::vector<std::string>& bodies) {
  if (robots < 1 || robots > 64) {
    throw config::ConfigError("robots must be 1..64 (got " + std::to_string(robots) + ")");
  }
  if (!bodies.empty() && bodies.size() != 1 && bodies.size() != static_cast<size_t>(robots)) {
    throw config::ConfigError(std::to_string(bodies.size()) + " bodies for " + std::to_string(robots) +
                              " robots (give one for all, or one per robot)");
  }
  auto body_of = [&](int i) { return bodies.empty() ? std::string() : bodies[bodies.size() == 1 ? 0 : i]; };
  YAML::Node root;
  try {
    root = YAML::LoadFile(path);
  } catch (const std::exception& e) {
    throw config::ConfigError(path + ": " + e.what());
  }
  if (!root["processes"] || !root["processes"].IsSequence()) throw config::ConfigError(path + ": no processes list");
  static const std::set<std::string> kPerRobot{"limbic-hwio",   "limbic-mapper",     "limbic-planner",
                                               "limbic-affect", "limbic-controller", "limbic-mission"};
  std::string names;
  for (int i = 1; i <= robots; ++i) names += (i > 1 ? ",r" : "r") + std::to_string(i);
  YAML::Node processes(YAML::NodeType::Sequence);
  for (const auto& p : root["processes"]) {
    const auto command = p["command"];
    const std::string program =
        command && command.IsSequence() && command.size() > 0 ? command[0].as<std::string>() : "";
    if (kPerRobot.count(program) && robots > 1) {
      for (int i = 1; i <= robots; ++i) {
        const std::string robot = "r" + std::to_string(i);
        YAML::Node copy = YAML::Clone(p);
        copy["name"] = robot + "-" + p["name"].as<std::string>();
        copy["command"].push_back("--robot");
        copy["command"].push_back(robot);
        AddBody(copy, program, body_of(i - 1));
        processes.push_back(copy);
      }
      continue;
    }
    YAML::Node copy = YAML::Clone(p);
    AddBody(copy, program, body_of(0));  // a single robot's services
    if (program == "limbic-simulator") {
      copy["command"].push_back("--set");
      copy["command"].push_back("robots=" + names);
      if (!bodies.empty()) {
        std::string list;
        for (int i = 0; i < robots; ++i) list += (i ? "," : "") + body_of(i);
        copy["command"].push_back("--set");
        copy["command"].push_back("bodies=" + list);
      }
    }
    processes.push_back(copy);
  }
  root["processes"] = processes;
  YAML::Emitter out;
  out << root;
  return std::string(out.c_str()) + "\n";
}

}  // namespace limbic::cli
