// Running a launch file beside a command that watches it (`limbic demo`, `limbic recruit demo`,
// `limbic recruit crosscheck`): the forked `limbic launch`, tied to the command's life, and the loop that
// polls the bus and redraws a status text until a signal, the launcher's end, a duration or a condition.
#pragma once

#include <sys/types.h>

#include <atomic>
#include <functional>
#include <string>
#include <vector>

#include "common/bus/bus.hpp"

namespace limbic::cli {

// The directory of the running executable (where `limbic` and the services are), or ".".
std::string SelfDir();

// Forks `SelfDir()/limbic launch <launch_args...>` in its own process group with stdout and stderr in
// `log_path`. The launcher, and through it every service, dies with the caller however the caller ends
// (SIGKILL included): PR_SET_PDEATHSIG delivers SIGTERM, on which it stops its children in order; a caller
// already gone before prctl is caught by getppid (issue 15 item 4). Returns the launcher's pid.
pid_t StartLauncher(const std::vector<std::string>& launch_args, const std::string& log_path);

// Stops the launcher (not yet reaped) with SIGINT and waits for it; returns its wait status.
int StopLauncher(pid_t launcher);

enum class LoopEnd { kSignal, kLauncherEnded, kDuration, kStopped };

struct StatusLoop {
  bus::Node* node = nullptr;
  pid_t launcher = -1;
  const std::atomic<int>* signal = nullptr;  // non-zero: stop (set by the caller's signal handler)
  double duration_s = 0.0;                   // 0: no limit
  std::function<std::string()> render;       // the status text; redrawn in place on a terminal
  std::function<bool()> stop;                // optional: true ends the loop (kStopped)
};

// Polls the bus and redraws every 0.5 s on a terminal (5 s otherwise, each text printed whole) until one
// of the ends. `launcher_status` receives the launcher's wait status when it ended by itself.
LoopEnd RunStatusLoop(const StatusLoop& loop, int* launcher_status);

}  // namespace limbic::cli
