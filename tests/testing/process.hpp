// Test helpers: child processes with their output in a log file, and private temporary directories.
#pragma once

#include <signal.h>
#include <sys/types.h>

#include <chrono>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace limbic::testing {

// The directory of the built executables (LIMBIC_BIN_DIR, set by ctest).
std::string BinDir();
std::string Bin(const std::string& name);
std::string SourceDir();

// A TCP port p on 127.0.0.1 such that p and p + 1 are both free now (a tcp bus address takes both:
// the broker binds p for publishers and p + 1 for subscribers). Drawn at random below the kernel's
// ephemeral range and checked by binding both, so neither parallel tests nor their outgoing connections
// take it in between.
int FreeTcpPortPair();

// Sets an environment variable (empty value: unsets it) for this object's life, then restores the value it had.
// Processes started meanwhile inherit it (a node reads its data path from LIMBIC_BUS_PATH, for instance).
class ScopedEnvironment {
 public:
  ScopedEnvironment(std::string name, const std::string& value);
  ~ScopedEnvironment();
  ScopedEnvironment(const ScopedEnvironment&) = delete;
  ScopedEnvironment& operator=(const ScopedEnvironment&) = delete;

 private:
  std::string name_;
  std::optional<std::string> saved_;
};

// A fresh directory under /tmp removed on destruction.
class TempDir {
 public:
  TempDir();
  ~TempDir();
  const std::filesystem::path& path() const { return path_; }
  std::string operator/(const std::string& name) const { return (path_ / name).string(); }

 private:
  std::filesystem::path path_;
};

// A child process; killed (SIGKILL) on destruction if still running.
class ChildProcess {
 public:
  ChildProcess(std::vector<std::string> argv, const std::string& log_path);
  ~ChildProcess();
  ChildProcess(const ChildProcess&) = delete;
  ChildProcess& operator=(const ChildProcess&) = delete;

  pid_t pid() const { return pid_; }
  bool Running();
  void Signal(int sig);
  // Waits for exit; returns the exit status (or 128 + signal), or -1 on timeout.
  int Wait(std::chrono::milliseconds timeout);
  std::string Log() const;

 private:
  pid_t pid_ = -1;
  int status_ = -1;
  bool reaped_ = false;
  std::string log_path_;
};

// Polls `done` until it holds or `limit` passes.
template <typename Done>
bool WaitFor(Done done, std::chrono::milliseconds limit) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  while (std::chrono::steady_clock::now() < deadline) {
    if (done()) return true;
  }
  return done();
}

// One line of `limbic launch --events FILE` (JSON lines: {"event": ..., "process": ..., "pid": ...}).
struct LaunchEvent {
  std::string event;  // started, restarted, exited, watchdog, ...
  int pid = 0;
};
// The events of `process`, in order, as the launcher has written them so far (none if the file is not there yet).
std::vector<LaunchEvent> LaunchEventsOf(const std::string& path, const std::string& process);
// The pids `process` was started or restarted with, in order.
std::vector<int> LaunchedPids(const std::string& path, const std::string& process);

}  // namespace limbic::testing
