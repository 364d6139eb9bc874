// Deploy files for `limbic launch`: which processes to start, how, and how to restart them.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "common/bus/shm.hpp"

namespace limbic::cli {

struct ProcessSpec {
  std::string name;
  std::vector<std::string> command;    // argv; a bare name is looked up beside `limbic`, then in PATH
  std::string restart = "on-failure";  // always | on-failure | never
  double start_delay_s = 0.0;          // pause after starting it (e.g. the broker)
  std::map<std::string, std::string> env;
  // Address-space budget (RLIMIT_AS) in MiB set in the child before exec: an allocation beyond it fails
  // (std::bad_alloc) instead of growing to the OOM killer. 0: none. Default: the file's memory_limit_mb.
  double memory_limit_mb = -1.0;
  // Heartbeat watchdog: a process whose heartbeats (health/..., matched by pid) stop for this long while
  // others still arrive is killed (SIGKILL) and restarted per its policy. 0: not watched. Default: the
  // file's watchdog.timeout_s.
  double heartbeat_timeout_s = -1.0;
  // Output watchdog (issue 16: a planner kept heartbeating but had stopped publishing): topics this
  // process must keep publishing. Once one has been seen on the bus since the process (re)started, a
  // silence of output_timeout_s on it while the process still heartbeats gets it killed and restarted
  // per its policy. Latched re-sends of an old value do not count (same sequence number). Needs
  // watchdog.bus. Default timeout: the file's watchdog.output_timeout_s.
  std::vector<std::string> outputs;
  double output_timeout_s = -1.0;
};

// Watching heartbeats on the bus the processes use (issue 16: a planner at 14 GB had stopped
// publishing without crashing and was never restarted).
struct Watchdog {
  std::string bus;  // empty: no watchdog
  double timeout_s = 10.0;
  double output_timeout_s = 5.0;  // default for processes that list `outputs`
  std::string curve_keys;         // client keys when the broker requires CURVE
};

struct Backoff {
  double initial_s = 0.25;
  double max_s = 5.0;
  double reset_after_s = 10.0;  // a process that ran this long starts its back-off afresh
};

// `shared_memory: true` in a launch file (issue 23 item 2): large messages between the processes of this host go
// through shared memory (common/bus/shm.hpp). The launcher then starts iceoryx's daemon first, as the process
// `roudi` (kRouDiCommand, restarted always; a file may list its own process of that name instead, e.g. with
// -c CONFIG for larger memory pools), and gives every other process LIMBIC_SHM=1 (the runtime's --shm: a socket copy
// too, for readers without shared memory). `shared_memory: only` gives LIMBIC_SHM=only (--shm-only: no socket copy).
inline constexpr const char* kRouDiProcess = "roudi";
inline const std::vector<std::string> kRouDiCommand = {"iox-roudi"};

struct LaunchFile {
  std::map<std::string, std::string> vars;
  bus::ShmUse shared_memory = bus::ShmUse::kOff;
  // `bus_path: direct | broker` (issue 23; docs/protocol.md §13): LIMBIC_BUS_PATH for every process (a process's own
  // env entry wins). Empty: not set by the file (the launcher's environment, e.g. `limbic launch --bus-path`, holds).
  std::string bus_path;
  std::vector<ProcessSpec> processes;
  Backoff backoff;
  double stop_timeout_s = 5.0;
  double memory_limit_mb = 0.0;  // default budget of every process (0: none)
  Watchdog watchdog;
};

// Loads and validates a deploy file; `{name}` in commands and env values is replaced by vars (file
// defaults overridden by `overrides`). Throws config::ConfigError naming the file and key.
LaunchFile LoadLaunchFile(const std::string& path, const std::map<std::string, std::string>& overrides);

}  // namespace limbic::cli
