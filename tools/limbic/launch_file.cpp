#include "tools/limbic/launch_file.hpp"

#include <set>

#include "common/bus/bus.hpp"
#include "common/config/config.hpp"

namespace limbic::cli {
namespace {

std::string Substitute(const std::string& text, const std::map<std::string, std::string>& vars,
                       const config::StrictMap& where, const std::string& key) {
  std::string out;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '{') {
      const auto close = text.find('}', i);
      if (close == std::string::npos) where.Fail(key, "has an unclosed '{' in '" + text + "'");
      const std::string name = text.substr(i + 1, close - i - 1);
      auto it = vars.find(name);
      if (it == vars.end()) where.Fail(key, "uses {" + name + "}, which is not defined in vars");
      out += it->second;
      i = close;
    } else {
      out += text[i];
    }
  }
  return out;
}

}  // namespace

LaunchFile LoadLaunchFile(const std::string& path, const std::map<std::string, std::string>& overrides) {
  config::StrictMap root(config::LoadFile(path), path);
  LaunchFile file;
  root.Optional("vars", &file.vars);
  for (const auto& [k, v] : overrides) file.vars[k] = v;
  root.Optional("stop_timeout_s", &file.stop_timeout_s);
  if (root.Has("backoff")) {
    auto b = root.Child("backoff");
    b.Optional("initial_s", &file.backoff.initial_s);
    b.Optional("max_s", &file.backoff.max_s);
    b.Optional("reset_after_s", &file.backoff.reset_after_s);
  }
  root.Optional("memory_limit_mb", &file.memory_limit_mb);
  if (!(file.memory_limit_mb >= 0)) root.Fail("memory_limit_mb", "must be >= 0 (0: no limit)");
  if (root.Has("watchdog")) {
    auto w = root.Child("watchdog");
    std::string bus;
    w.Optional("bus", &bus);
    file.watchdog.bus = Substitute(bus, file.vars, w, "bus");
    w.Optional("timeout_s", &file.watchdog.timeout_s);
    std::string keys;
    w.Optional("curve_keys", &keys);
    file.watchdog.curve_keys = Substitute(keys, file.vars, w, "curve_keys");
    if (!(file.watchdog.timeout_s > 0)) w.Fail("timeout_s", "must be > 0");
    w.Optional("output_timeout_s", &file.watchdog.output_timeout_s);
    if (!(file.watchdog.output_timeout_s > 0)) w.Fail("output_timeout_s", "must be > 0");
  }
  std::set<std::string> names;
  auto list = root.ChildList("processes");
  if (list.empty()) root.Fail("processes", "must list at least one process");
  for (auto& entry : list) {
    ProcessSpec spec;
    spec.name = entry.Required<std::string>("name");
    if (!names.insert(spec.name).second) entry.Fail("name", "'" + spec.name + "' is used twice");
    auto command = entry.Required<std::vector<std::string>>("command");
    if (command.empty()) entry.Fail("command", "is empty");
    for (auto& part : command) spec.command.push_back(Substitute(part, file.vars, entry, "command"));
    entry.Optional("restart", &spec.restart);
    if (spec.restart != "always" && spec.restart != "on-failure" && spec.restart != "never") {
      entry.Fail("restart", "must be always, on-failure or never (not '" + spec.restart + "')");
    }
    entry.Optional("start_delay_s", &spec.start_delay_s);
    spec.memory_limit_mb = file.memory_limit_mb;
    entry.Optional("memory_limit_mb", &spec.memory_limit_mb);
    if (!(spec.memory_limit_mb >= 0)) entry.Fail("memory_limit_mb", "must be >= 0 (0: no limit)");
    spec.heartbeat_timeout_s = file.watchdog.bus.empty() ? 0.0 : file.watchdog.timeout_s;
    entry.Optional("heartbeat_timeout_s", &spec.heartbeat_timeout_s);
    if (!(spec.heartbeat_timeout_s >= 0)) entry.Fail("heartbeat_timeout_s", "must be >= 0 (0: not watched)");
    std::vector<std::string> outputs;
    entry.Optional("outputs", &outputs);
    for (auto& topic : outputs) {
      if (topic.empty()) entry.Fail("outputs", "lists an empty topic");
      spec.outputs.push_back(Substitute(topic, file.vars, entry, "outputs"));
    }
    spec.output_timeout_s = file.watchdog.output_timeout_s;
    entry.Optional("output_timeout_s", &spec.output_timeout_s);
    if (!(spec.output_timeout_s > 0)) entry.Fail("output_timeout_s", "must be > 0");
    if (!spec.outputs.empty() && file.watchdog.bus.empty()) {
      entry.Fail("outputs", "needs watchdog.bus: the launcher watches the outputs on the bus");
    }
    std::map<std::string, std::string> env;
    entry.Optional("env", &env);
    for (const auto& [k, v] : env) spec.env[k] = Substitute(v, file.vars, entry, "env");
    file.processes.push_back(std::move(spec));
  }
  root.Optional("bus_path", &file.bus_path);
  if (!file.bus_path.empty()) {
    try {
      bus::ParseDataPath(file.bus_path, "bus_path");  // the one reading of a path's name ($LIMBIC_BUS_PATH's too)
    } catch (const std::invalid_argument& e) {
      root.Fail("bus_path", e.what());
    }
    for (auto& spec : file.processes) spec.env.emplace("LIMBIC_BUS_PATH", file.bus_path);  // its own entry wins
  }
  std::string shared_memory;
  if (root.Optional("shared_memory", &shared_memory)) {
    try {
      file.shared_memory = bus::ParseShmUse(shared_memory, "shared_memory");
    } catch (const std::invalid_argument& e) {
      root.Fail("shared_memory", e.what());
    }
  }
  if (file.shared_memory != bus::ShmUse::kOff) {
    bool listed = false;
    for (auto& spec : file.processes) {
      if (spec.name == kRouDiProcess) {
        listed = true;
        continue;
      }
      // A process's own env entry wins.
      spec.env.emplace("LIMBIC_SHM", file.shared_memory == bus::ShmUse::kOnly ? "only" : "1");
    }
    if (!listed) {
      // First, so that it runs before the services connect and is stopped after them (reverse order). No
      // address-space budget (it maps its memory pools, ~215 MB by default) and no heartbeat watch (it is not
      // on the bus); RouDi's own monitoring stays on, so it frees what a crashed client held.
      ProcessSpec roudi;
      roudi.name = kRouDiProcess;
      roudi.command = kRouDiCommand;
      roudi.restart = "always";
      roudi.start_delay_s = 0.5;
      roudi.memory_limit_mb = 0.0;
      roudi.heartbeat_timeout_s = 0.0;
      roudi.output_timeout_s = file.watchdog.output_timeout_s;
      file.processes.insert(file.processes.begin(), std::move(roudi));
    }
  }
  root.Finish();
  return file;
}

}  // namespace limbic::cli
