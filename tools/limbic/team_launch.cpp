#include "tools/limbic/team_launch.hpp"

#include <yaml-cpp/yaml.h>

#include <set>

#include "common/config/config.hpp"

namespace limbic::cli {

std::string TeamLaunchYaml(const std::string& path, int robots) {
  if (robots < 1 || robots > 64) {
    throw config::ConfigError("robots must be 1..64 (got " + std::to_string(robots) + ")");
  }
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
        processes.push_back(copy);
      }
      continue;
    }
    YAML::Node copy = YAML::Clone(p);
    if (program == "limbic-simulator") {
      copy["command"].push_back("--set");
      copy["command"].push_back("robots=" + names);
    }
    processes.push_back(copy);
  }
  root["processes"] = processes;
  YAML::Emitter out;
  out << root;
  return std::string(out.c_str()) + "\n";
}

}  // namespace limbic::cli
