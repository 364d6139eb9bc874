// Deploy files for `limbic launch`: which processes to start, how, and how to restart them.
#pragma once

#include <map>
#include <string>
#include <vector>

namespace limbic::cli {

struct ProcessSpec {
  std::string name;
  std::vector<std::string> command;  // argv; a bare name is looked up beside `limbic`, then in PATH
  std::string restart = "on-failure";  // always | on-failure | never
  double start_delay_s = 0.0;          // pause after starting it (e.g. the broker)
  std::map<std::string, std::string> env;
};

struct Backoff {
  double initial_s = 0.25;
  double max_s = 5.0;
  double reset_after_s = 10.0;  // a process that ran this long starts its back-off afresh
};

struct LaunchFile {
  std::map<std::string, std::string> vars;
  std::vector<ProcessSpec> processes;
  Backoff backoff;
  double stop_timeout_s = 5.0;
};

// Loads and validates a deploy file; `{name}` in commands and env values is replaced by vars (file
// defaults overridden by `overrides`). Throws config::ConfigError naming the file and key.
LaunchFile LoadLaunchFile(const std::string& path, const std::map<std::string, std::string>& overrides);

}  // namespace limbic::cli
