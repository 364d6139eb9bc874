// limbic launch FILE: starts the processes of a deploy file, prefixes their output, restarts a crashed
// one per its policy with exponential back-off, and stops everything in reverse order on Ctrl-C.
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <map>
#include <set>
#include <thread>

#include "common/bus/bus.hpp"
#include "common/bus/curve_keys.hpp"
#include "common/config/config.hpp"
#include "common/runtime/liveness.hpp"
#include "tools/limbic/commands.hpp"
#include "tools/limbic/launch_file.hpp"

namespace limbic::cli {
namespace {

using SteadyClock = std::chrono::steady_clock;
std::atomic<int> g_launch_signal{0};
void OnLaunchSignal(int sig) { g_launch_signal = sig; }

std::string SelfDir() {
  std::error_code ec;
  auto exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  return ec ? "." : exe.parent_path().string();
}

std::string Resolve(const std::string& command) {
  if (command.find('/') != std::string::npos) return command;
  const std::string local = SelfDir() + "/" + command;
  if (access(local.c_str(), X_OK) == 0) return local;
  return command;  // execvp searches PATH
}

// ---------------------------------------------------------------------------------------------------
// Supervision without orphans (issue 15 item 4).

// In a child after fork, before exec: the kernel sends `signal` to it when the launcher dies, however it
// dies (SIGKILL included), and the setting survives exec. A launcher that died between fork and prctl
// is caught by the parent check: the child then exits at once instead of running as an orphan.
void DieWithParent(pid_t expected_parent, int signal) {
  if (prctl(PR_SET_PDEATHSIG, signal) != 0) _exit(126);
  if (getppid() != expected_parent) _exit(126);
}

// A child leads its own process group (setpgid in the child); whatever it started in that group goes
// with it. ESRCH (nothing left) is the normal case.
void SignalGroup(pid_t leader, int signal) {
  if (leader > 0) kill(-leader, signal);
}

// The line a person should see when a process keeps failing: its last error line (log level E or F,
// or a line naming an error), else its last line.
bool LooksLikeError(const std::string& line) {
  if (line.size() > 2 && (line[0] == 'E' || line[0] == 'F') && line[1] == ' ') return true;
  return line.find("error") != std::string::npos || line.find("Error") != std::string::npos ||
         line.find("cannot") != std::string::npos || line.find("terminate called") != std::string::npos;
}

std::string JsonEscape(const std::string& text) {
  std::string out;
  for (const char c : text) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (static_cast<unsigned char>(c) < 0x20) {
      out += ' ';
    } else {
      out += c;
    }
  }
  return out;
}

// Consecutive exits this soon after a start are start failures; this many in a row are reported.
constexpr int kReportStartFailuresAfter = 3;

// In the child, before exec: the process's memory budget (RLIMIT_AS, inherited across exec). An
// allocation beyond it fails with ENOMEM / std::bad_alloc instead of growing to the kernel's OOM
// killer, which on a robot may pick any process (issue 16: 15 GB before the OOM killer acted).
void ApplyResourceLimits(const ProcessSpec& spec) {
  if (spec.memory_limit_mb <= 0) return;
  rlimit limit{};
  limit.rlim_cur = limit.rlim_max = static_cast<rlim_t>(spec.memory_limit_mb * 1024.0 * 1024.0);
  if (setrlimit(RLIMIT_AS, &limit) != 0) {
    std::fprintf(stderr, "cannot set a memory limit of %.0f MB: %s\n", spec.memory_limit_mb, std::strerror(errno));
  }
}

struct Running {
  const ProcessSpec* spec = nullptr;
  pid_t pid = -1;
  int fd = -1;
  std::string partial;
  int restarts = 0;
  int consecutive_failures = 0;
  SteadyClock::time_point started{};
  SteadyClock::time_point restart_at{};
  bool waiting_restart = false;
  bool finished = false;
  int last_status = 0;
  bool watchdog_kill = false;  // killed by a watchdog: reported as such
  const char* watchdog_what = "";
  const char* color = "";
  std::string last_line;  // of its output, for start-failure reports
  std::string last_error_line;
  bool start_failure_reported = false;
};

class Launcher {
 public:
  Launcher(LaunchFile file, std::string events_path, std::string until, int give_up_after)
      : file_(std::move(file)), until_(std::move(until)), give_up_after_(give_up_after) {
    if (!events_path.empty()) events_.open(events_path, std::ios::app);
    color_ = isatty(STDOUT_FILENO);
    static const char* kColors[] = {"\033[36m", "\033[33m", "\033[32m", "\033[35m", "\033[34m", "\033[91m", "\033[92m"};
    for (size_t i = 0; i < file_.processes.size(); ++i) {
      Running r;
      r.spec = &file_.processes[i];
      r.color = color_ ? kColors[i % 7] : "";
      procs_.push_back(r);
      width_ = std::max(width_, file_.processes[i].name.size());
    }
  }

  int Run() {
    start_ = SteadyClock::now();
    StartLocalLiveness();
    StartWatchdog();
    for (auto& p : procs_) {
      if (g_launch_signal)
        break;  // Ctrl-C while an earlier one was starting: start no more (the loop below stops them)
      Start(p);
      if (p.spec->name == kRouDiProcess) {
        WaitForRouDi(p);
      } else if (p.spec->start_delay_s > 0) {
        Sleep(p.spec->start_delay_s);
      }
    }
    int result = 0;
    while (true) {
      if (g_launch_signal) {
        Say("received signal " + std::to_string(g_launch_signal.load()) + ", stopping all processes");
        break;
      }
      PumpOutput(100);
      CheckHeartbeats();
      CheckOutputs();
      if (ReapAndRestart(&result)) break;
      for (auto& p : procs_) {
        if (p.waiting_restart && SteadyClock::now() >= p.restart_at) {
          p.waiting_restart = false;
          ++p.restarts;
          Start(p);
          Event(p, "restarted");
        }
      }
      if (std::all_of(procs_.begin(), procs_.end(), [](const Running& p) { return p.finished; })) break;
    }
    StopAll();
    Summary();
    return result;
  }

 private:
  void Sleep(double s) {
    const auto until = SteadyClock::now() + std::chrono::duration<double>(s);
    while (SteadyClock::now() < until && !g_launch_signal) PumpOutput(20);
  }

  // A service asks for RouDi once, as it starts (runtime::HostOptions::shm_wait, 3 s), and keeps the socket path
  // for good when none answers; so the processes after RouDi start once it answers, not after a fixed pause (a RouDi
  // reserving its 215 MB on a loaded machine took 4.5 s, and every service came up without shared memory: seen
  // 2026-11-28). Bounded: a RouDi that exits (it is left to the restart policy, not reaped here) or does not answer
  // within kRouDiReadyTimeout is said, and the others start. Where the bus has no shared-memory transport nobody
  // asks, and the process's start_delay_s is kept.
  void WaitForRouDi(const Running& p) {
    const ProcessSpec& spec = *p.spec;
#ifdef LIMBIC_HAVE_ICEORYX
    constexpr double kRouDiReadyTimeout = 20.0;
    const auto begin = SteadyClock::now();
    const auto deadline = begin + std::chrono::duration<double>(kRouDiReadyTimeout);
    while (!bus::ShmRuntime::RouDiRunning() && !g_launch_signal) {
      siginfo_t info{};
      if (p.pid > 0 && waitid(P_PID, static_cast<id_t>(p.pid), &info, WEXITED | WNOHANG | WNOWAIT) == 0 &&
          info.si_pid == p.pid) {
        Say(spec.name + " exited before it answered; starting the others, which will use the socket path");
        return;
      }
      if (SteadyClock::now() >= deadline) {
        Say(spec.name + " does not answer after " + std::to_string(static_cast<int>(kRouDiReadyTimeout)) +
            " s; starting the others, which will use the socket path");
        return;
      }
      PumpOutput(20);
    }
    const double waited = std::chrono::duration<double>(SteadyClock::now() - begin).count();
    if (waited > 1.0) Say(spec.name + " answered after " + FormatSeconds(waited));
#else
    if (spec.start_delay_s > 0) Sleep(spec.start_delay_s);
#endif
  }

  double Elapsed() const { return std::chrono::duration<double>(SteadyClock::now() - start_).count(); }

  void Event(const Running& p, const std::string& what, int status = 0, const std::string& error = "") {
    if (!events_) return;
    events_ << "{\"t\": " << std::fixed << std::setprecision(3) << Elapsed() << ", \"process\": \"" << p.spec->name
            << "\", \"event\": \"" << what << "\", \"pid\": " << p.pid << ", \"status\": " << status;
    if (!error.empty()) events_ << ", \"error\": \"" << JsonEscape(error) << "\"";
    events_ << "}\n";
    events_.flush();
  }

  void Say(const std::string& text) {
    std::cout << (color_ ? "\033[1m" : "") << "[launch] " << text << (color_ ? "\033[0m" : "") << std::endl;
  }

  void Start(Running& p) {
    int pipefd[2];
    if (pipe(pipefd) != 0) throw std::runtime_error("pipe failed");
    std::vector<std::string> argv = p.spec->command;
    argv[0] = Resolve(argv[0]);
    const pid_t self = getpid();
    const pid_t pid = fork();
    if (pid < 0) throw std::runtime_error("fork failed");
    if (pid == 0) {
      setpgid(0, 0);  // Ctrl-C reaches the launcher only; it stops children in order
      // SIGTERM: a service stops cleanly; one that ignores it is what stop_timeout_s is for, which a
      // dead launcher cannot apply, so services must honour SIGTERM (the runtime does).
      DieWithParent(self, SIGTERM);
      dup2(pipefd[1], STDOUT_FILENO);
      dup2(pipefd[1], STDERR_FILENO);
      close(pipefd[0]);
      close(pipefd[1]);
      // The service reports it in its heartbeat (`limbic nodes` shows restarts).
      setenv("LIMBIC_RESTARTS", std::to_string(p.restarts).c_str(), 1);
      // Its liveness pings come to this launcher, never to a supervisor above it (systemd's NOTIFY_SOCKET is
      // for the launcher's own pid).
      if (liveness_) {
        setenv("NOTIFY_SOCKET", liveness_->address().c_str(), 1);
      } else {
        unsetenv("NOTIFY_SOCKET");
      }
      for (const auto& [k, v] : p.spec->env) setenv(k.c_str(), v.c_str(), 1);
      ApplyResourceLimits(*p.spec);
      std::vector<char*> args;
      for (auto& a : argv) args.push_back(a.data());
      args.push_back(nullptr);
      execvp(args[0], args.data());
      std::fprintf(stderr, "cannot start %s: %s\n", args[0], std::strerror(errno));
      _exit(127);
    }
    close(pipefd[1]);
    fcntl(pipefd[0], F_SETFL, O_NONBLOCK);
    p.pid = pid;
    p.fd = pipefd[0];
    p.started = SteadyClock::now();
    p.watchdog_kill = false;
    Event(p, "started");
  }

  void Print(Running& p, const std::string& line) {
    if (!line.empty()) {
      p.last_line = line;
      if (LooksLikeError(line)) p.last_error_line = line;
    }
    std::cout << p.color << std::left << std::setw(static_cast<int>(width_)) << p.spec->name << " |"
              << (color_ ? "\033[0m" : "") << " " << line << "\n";
  }

  void Drain(Running& p) {
    char buffer[4096];
    while (true) {
      const ssize_t n = read(p.fd, buffer, sizeof(buffer));
      if (n <= 0) break;
      p.partial.append(buffer, n);
      size_t pos;
      while ((pos = p.partial.find('\n')) != std::string::npos) {
        Print(p, p.partial.substr(0, pos));
        p.partial.erase(0, pos + 1);
      }
    }
    std::cout.flush();
  }

  void PumpOutput(int timeout_ms) {
    std::vector<pollfd> fds;
    std::vector<Running*> owners;
    for (auto& p : procs_) {
      if (p.fd >= 0) {
        fds.push_back({p.fd, POLLIN, 0});
        owners.push_back(&p);
      }
    }
    if (fds.empty()) {
      std::this_thread::sleep_for(std::chrono::milliseconds(timeout_ms));
      return;
    }
    if (poll(fds.data(), fds.size(), timeout_ms) <= 0) return;
    for (size_t i = 0; i < fds.size(); ++i) {
      if (fds[i].revents & (POLLIN | POLLHUP)) Drain(*owners[i]);
    }
  }

  // Returns true when the launch should end (the --until process finished).
  bool ReapAndRestart(int* result) {
    int status = 0;
    pid_t pid;
    while ((pid = waitpid(-1, &status, WNOHANG)) > 0) {
      auto it = std::find_if(procs_.begin(), procs_.end(), [&](const Running& p) { return p.pid == pid; });
      if (it == procs_.end()) continue;
      Running& p = *it;
      Drain(p);
      if (!p.partial.empty()) Print(p, p.partial);
      p.partial.clear();
      close(p.fd);
      p.fd = -1;
      const int code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
      p.last_status = code;
      std::string how = WIFEXITED(status) ? "exited with status " + std::to_string(code)
                                          : "was killed by signal " + std::to_string(WTERMSIG(status));
      if (p.watchdog_kill) how = std::string("was killed by the ") + p.watchdog_what + " watchdog";
      heartbeats_.erase(pid);
      pinged_.erase(pid);
      Event(p, "exited", code);
      if (p.spec->name == until_) {
        Say(p.spec->name + " " + how + "; stopping the others");
        p.finished = true;
        *result = code;
        return true;
      }
      const bool restart = p.spec->restart == "always" || (p.spec->restart == "on-failure" && code != 0);
      if (!restart) {
        Say(p.spec->name + " " + how + (code == 0 ? "" : " (restart policy: " + p.spec->restart + ")"));
        p.finished = true;
        if (code != 0) *result = 1;
        continue;
      }
      const double ran = std::chrono::duration<double>(SteadyClock::now() - p.started).count();
      if (ran > file_.backoff.reset_after_s) {
        p.consecutive_failures = 0;
        p.start_failure_reported = false;
      }
      const double delay =
          std::min(file_.backoff.max_s, file_.backoff.initial_s * std::pow(2.0, p.consecutive_failures));
      ++p.consecutive_failures;
      if (ReportStartFailures(p, result)) return true;
      std::ostringstream msg;
      msg << p.spec->name << " " << how << "; restarting in " << std::setprecision(2) << delay << " s (restart "
          << p.restarts + 1 << ")";
      Say(msg.str());
      p.waiting_restart = true;
      p.restart_at =
          SteadyClock::now() + std::chrono::duration_cast<SteadyClock::duration>(std::chrono::duration<double>(delay));
    }
    return false;
  }

  // --- Heartbeat watchdog ------------------------------------------------------------------------
  // Heartbeats (health/<service>, 1 Hz) carry the sender's pid, which ties them to our children.
  struct HeartbeatSeen {
    SteadyClock::time_point last;
    std::string topic;
  };

  // Local liveness: each child's runtime pings NOTIFY_SOCKET at every heartbeat (common/runtime/liveness.hpp).
  // A child that pings is judged by its pings alone: they cannot be delayed by a slow or lossy link to a broker
  // on another host, which once made this watchdog restart healthy services whose bus heartbeats were late.
  void StartLocalLiveness() {
    if (file_.watchdog.bus.empty()) return;
    try {
      liveness_ = std::make_unique<runtime::LivenessListener>();
    } catch (const std::exception& e) {
      Say(std::string("local liveness disabled (hangs judged by bus heartbeats only): ") + e.what());
    }
  }

  void StartWatchdog() {
    if (file_.watchdog.bus.empty()) return;
    watch_context_ = std::make_unique<zmq::context_t>(1);
    bus::NodeOptions options;
    options.name = "launch.watchdog";
    try {
      options.curve = bus::CurveKeysFromFlagOrEnvironment(file_.watchdog.curve_keys);
      watch_node_ = std::make_unique<bus::Node>(*watch_context_, file_.watchdog.bus, options);
    } catch (const std::exception& e) {
      // The processes still run and crashes are still restarted; only hangs go unnoticed.
      Say(std::string("heartbeat watchdog disabled: ") + e.what());
      watch_node_.reset();
      return;
    }
    watch_node_->SubscribeAny("health/", [this](const bus::RawMessage& m) {
      if (messages::IdentifierOf(m.data, m.size) != std::string_view(messages::Traits<msg::Heartbeat>::kIdentifier)) {
        return;
      }
      const auto* hb = flatbuffers::GetRoot<msg::Heartbeat>(m.data);
      const auto now = SteadyClock::now();
      last_any_heartbeat_ = now;
      if (hb->pid() > 0) heartbeats_[hb->pid()] = HeartbeatSeen{now, m.topic};
    });
    // Output watchdog: the last time each declared output carried a new message (the node counts a
    // latched re-send of a value it has as a duplicate and does not call this).
    std::set<std::string> outputs;
    for (const auto& p : procs_) outputs.insert(p.spec->outputs.begin(), p.spec->outputs.end());
    for (const auto& topic : outputs) {
      watch_node_->SubscribeAny(topic, [this, topic](const bus::RawMessage& m) {
        if (m.topic == topic) output_seen_[topic] = SteadyClock::now();
      });
      Say("output watchdog: " + topic + " must keep being published");
    }
    Say("heartbeat watchdog on " + file_.watchdog.bus + ": a process silent for " +
        FormatSeconds(file_.watchdog.timeout_s) + " is restarted");
  }

  static std::string FormatSeconds(double s) {
    std::ostringstream out;
    out << s << " s";
    return out.str();
  }

  void CheckHeartbeats() {
    if (!watch_node_) return;
    for (int i = 0; i < 10 && watch_node_->Poll(std::chrono::milliseconds(0)) > 0; ++i) {
    }
    const auto now = SteadyClock::now();
    if (liveness_) liveness_->Drain([&](pid_t pid) { pinged_[pid] = now; });
    for (auto& p : procs_) {
      if (p.pid <= 0 || p.finished || p.waiting_restart || p.watchdog_kill) continue;
      if (p.spec->heartbeat_timeout_s <= 0) continue;
      if (const auto ping = pinged_.find(p.pid); ping != pinged_.end()) {
        const double silent = std::chrono::duration<double>(now - ping->second).count();
        if (silent < p.spec->heartbeat_timeout_s) continue;
        std::ostringstream msg;
        msg << p.spec->name << " (pid " << p.pid << ") sent no heartbeat (no liveness ping on this host) for "
            << std::fixed << std::setprecision(1) << silent << " s without exiting; killing it to restart it";
        Kill(p, msg.str(), "heartbeat");
        continue;
      }
      const auto seen = heartbeats_.find(p.pid);
      // Only a process that has sent a heartbeat is watched: one that never does (a tool, or a
      // service still starting) is not judged by this.
      if (seen == heartbeats_.end()) continue;
      const double silent = std::chrono::duration<double>(now - seen->second.last).count();
      if (silent < p.spec->heartbeat_timeout_s) continue;
      // If nothing at all arrives, the bus (or this connection) is what failed: only the broker is
      // restarted then, never every service at once.
      const double bus_silent = std::chrono::duration<double>(now - last_any_heartbeat_).count();
      const bool others_alive = bus_silent < p.spec->heartbeat_timeout_s / 2;
      if (!others_alive && seen->second.topic != "health/bus") continue;
      std::ostringstream msg;
      msg << p.spec->name << " (pid " << p.pid << ") sent no heartbeat on " << seen->second.topic << " for "
          << std::fixed << std::setprecision(1) << silent << " s without exiting; killing it to restart it";
      Kill(p, msg.str(), "heartbeat");
    }
  }

  void Kill(Running& p, const std::string& why, const char* watchdog) {
    Say(why);
    Event(p, "watchdog");
    p.watchdog_kill = true;
    p.watchdog_what = watchdog;
    kill(p.pid, SIGKILL);
  }

  // A process that heartbeats but has published nothing on one of its declared outputs for its
  // output_timeout_s (issue 16) is killed and restarted. An output is judged only once it has been seen
  // since this start (a service waiting for its inputs is not stalled), and only while the process's
  // heartbeats arrive (if they stop too, the heartbeat watchdog judges; if the bus is silent, neither).
  void CheckOutputs() {
    if (!watch_node_) return;
    const auto now = SteadyClock::now();
    for (auto& p : procs_) {
      if (p.pid <= 0 || p.finished || p.waiting_restart || p.watchdog_kill || p.spec->outputs.empty()) continue;
      const auto hb = heartbeats_.find(p.pid);
      if (hb == heartbeats_.end()) continue;
      const double hb_silent = std::chrono::duration<double>(now - hb->second.last).count();
      if (hb_silent > std::max(2.5, p.spec->output_timeout_s / 2)) continue;
      for (const auto& topic : p.spec->outputs) {
        const auto seen = output_seen_.find(topic);
        if (seen == output_seen_.end() || seen->second < p.started) continue;
        const double silent = std::chrono::duration<double>(now - seen->second).count();
        if (silent < p.spec->output_timeout_s) continue;
        std::ostringstream msg;
        msg << p.spec->name << " (pid " << p.pid << ") published nothing on " << topic << " for " << std::fixed
            << std::setprecision(1) << silent << " s while it kept heartbeating; killing it to restart it";
        Say(msg.str());
        Event(p, "output_watchdog");
        p.watchdog_kill = true;
        p.watchdog_what = "output";
        kill(p.pid, SIGKILL);
        break;
      }
    }
  }

  void StopAll() {
    // Reverse start order: consumers first, the broker last.
    for (auto it = procs_.rbegin(); it != procs_.rend(); ++it) {
      it->waiting_restart = false;
      if (it->fd >= 0 || (it->pid > 0 && kill(it->pid, 0) == 0 && !it->finished)) {
        if (it->pid > 0) SignalGroup(it->pid, SIGTERM);
        const auto deadline = SteadyClock::now() + std::chrono::duration<double>(file_.stop_timeout_s);
        int status = 0;
        while (SteadyClock::now() < deadline) {
          PumpOutput(20);
          if (waitpid(it->pid, &status, WNOHANG) == it->pid) break;
        }
        if (waitpid(it->pid, &status, WNOHANG) == 0) {
          Say(it->spec->name + " did not stop within " + std::to_string(file_.stop_timeout_s) + " s; killing it");
          SignalGroup(it->pid, SIGKILL);
          waitpid(it->pid, &status, 0);
        }
        SignalGroup(it->pid, SIGKILL);  // anything the process left behind in its group
        if (it->fd >= 0) {
          Drain(*it);
          close(it->fd);
          it->fd = -1;
        }
        Event(*it, "stopped");
      }
    }
  }

  // A process that exits soon after each start, kReportStartFailuresAfter times in a row, is reported
  // with its last error line (on the terminal and as a "start_failed" event). With --give-up-after N,
  // N in a row end the launch with status 3. Returns true when the launch should end.
  bool ReportStartFailures(Running& p, int* result) {
    if (p.consecutive_failures < kReportStartFailuresAfter &&
        (give_up_after_ <= 0 || p.consecutive_failures < give_up_after_)) {
      return false;
    }
    const std::string error = !p.last_error_line.empty() ? p.last_error_line : p.last_line;
    if (!p.start_failure_reported) {
      p.start_failure_reported = true;
      Say(p.spec->name + " failed to start " + std::to_string(p.consecutive_failures) +
          " times in a row; last error: " + (error.empty() ? "(no output)" : error));
      Event(p, "start_failed", p.last_status, error.empty() ? "(no output)" : error);
    }
    if (give_up_after_ > 0 && p.consecutive_failures >= give_up_after_) {
      Say("giving up on " + p.spec->name + " after " + std::to_string(p.consecutive_failures) +
          " failed starts; stopping the others");
      p.finished = true;
      *result = 3;
      return true;
    }
    return false;
  }

  void Summary() {
    std::ostringstream out;
    out << "ran " << std::fixed << std::setprecision(1) << Elapsed() << " s;";
    for (const auto& p : procs_)
      out << " " << p.spec->name << ": " << p.restarts << " restart" << (p.restarts == 1 ? "" : "s") << ";";
    Say(out.str());
  }

  LaunchFile file_;
  std::unique_ptr<zmq::context_t> watch_context_;
  std::unique_ptr<bus::Node> watch_node_;
  std::map<pid_t, HeartbeatSeen> heartbeats_;
  std::unique_ptr<runtime::LivenessListener> liveness_;
  std::map<pid_t, SteadyClock::time_point> pinged_;  // each child's last liveness ping
  SteadyClock::time_point last_any_heartbeat_{};
  std::map<std::string, SteadyClock::time_point> output_seen_;  // declared outputs: last new message
  std::string until_;
  int give_up_after_ = 0;  // 0: keep restarting (a robot may wait for its hardware)
  std::vector<Running> procs_;
  std::ofstream events_;
  bool color_ = false;
  size_t width_ = 6;
  SteadyClock::time_point start_;
};

}  // namespace

int LaunchCommand(const Args& args) {
  ArgReader reader(args, {"--var", "--events", "--until", "--give-up-after"}, {"--help"});
  if (reader.Has("--help") || reader.positional().size() != 1) {
    std::cout << R"(usage: limbic launch FILE [--var NAME=VALUE]... [--until PROCESS] [--events FILE]

Starts the processes listed in a deploy file (deploy/*.yaml), prefixes each line of their output with
the process name, restarts a crashed process according to its policy (always | on-failure | never)
with exponential back-off, and on Ctrl-C stops them in reverse order (SIGTERM, then SIGKILL after
stop_timeout_s). `{NAME}` in commands is replaced by the file's vars, overridden with --var.
Each process gets the memory budget memory_limit_mb (RLIMIT_AS; file default, per process override;
$LIMBIC_MEMORY_LIMIT_MB overrides all, 0 = none, e.g. for sanitizer builds).
With `watchdog: {bus: ADDR, timeout_s: N}` a process whose heartbeats stop for N s while others still
arrive is killed and restarted (per process: heartbeat_timeout_s, 0 = not watched).
With `shared_memory: true` large messages between these processes go through shared memory: the
launcher starts iceoryx's daemon iox-roudi first (process `roudi`, restarted always, stopped last;
a file may list its own `roudi`), the others once it answers (at most 20 s), and gives every other
process LIMBIC_SHM=1 (each large message also over the sockets, for readers without shared memory
such as the Python client); `shared_memory: only` gives LIMBIC_SHM=only (no socket copy).
With `bus_path: direct` (or broker) every process gets LIMBIC_BUS_PATH (a process's own env wins); so
does `limbic launch FILE --bus-path direct`, through the launcher's environment.
  --until PROCESS   stop everything when PROCESS exits, and exit with its status
  --events FILE     append one JSON line per start, exit, restart and watchdog kill (for tests and tooling)
  --give-up-after N when a process fails to start N times in a row, stop everything and exit 3
                    (default: keep restarting; 3 failed starts in a row are always reported with
                    the process's last error line)

Children die with the launcher, however it ends (SIGKILL included): each gets SIGTERM from the
kernel when the launcher goes, and its process group is killed when the launcher stops it.

examples:
  limbic launch deploy/demo.yaml --var bus=ipc:///tmp/my-bus
  limbic launch deploy/demo.yaml --give-up-after 3 --events /tmp/events.jsonl
)";
    return reader.Has("--help") ? 0 : 2;
  }
  std::map<std::string, std::string> vars;
  for (const auto& a : args) (void)a;
  // Collect every --var (ArgReader keeps the last; read them all here).
  for (size_t i = 0; i < args.size(); ++i) {
    std::string v;
    if (args[i] == "--var" && i + 1 < args.size())
      v = args[i + 1];
    else if (args[i].rfind("--var=", 0) == 0)
      v = args[i].substr(6);
    else
      continue;
    const auto eq = v.find('=');
    if (eq == std::string::npos) {
      std::cerr << "limbic launch: --var needs NAME=VALUE, got '" << v << "'\n";
      return 2;
    }
    vars[v.substr(0, eq)] = v.substr(eq + 1);
  }
  LaunchFile file;
  try {
    file = LoadLaunchFile(reader.positional()[0], vars);
  } catch (const std::exception& e) {
    std::cerr << "limbic launch: " << e.what() << "\n";
    return 2;
  }
  // Sanitizer builds reserve terabytes of address space: LIMBIC_MEMORY_LIMIT_MB overrides every
  // process's budget (0: none), e.g. for an ASan CI job.
  if (const char* limit = std::getenv("LIMBIC_MEMORY_LIMIT_MB")) {
    try {
      const double mb = std::stod(limit);
      if (!(mb >= 0)) throw std::invalid_argument("negative");
      for (auto& p : file.processes) p.memory_limit_mb = mb;
    } catch (const std::exception&) {
      std::cerr << "limbic launch: LIMBIC_MEMORY_LIMIT_MB must be a number of MiB >= 0, got '" << limit << "'\n";
      return 2;
    }
  }
  if (!reader.Get("--until").empty() && std::none_of(file.processes.begin(), file.processes.end(),
                                                     [&](const auto& p) { return p.name == reader.Get("--until"); })) {
    std::cerr << "limbic launch: --until names no process of " << reader.positional()[0] << "\n";
    return 2;
  }
  int give_up_after = 0;
  try {
    const std::string text = reader.Get("--give-up-after", "0");
    size_t used = 0;
    give_up_after = std::stoi(text, &used);
    if (used != text.size() || give_up_after < 0) throw std::invalid_argument(text);
  } catch (const std::exception&) {
    std::cerr << "limbic launch: --give-up-after takes a count >= 0 (0: never give up)\n";
    return 2;
  }
  struct sigaction sa {};
  sa.sa_handler = OnLaunchSignal;
  sigaction(SIGINT, &sa, nullptr);
  sigaction(SIGTERM, &sa, nullptr);
  sigaction(SIGHUP, &sa, nullptr);  // the terminal closed: stop the children in order, as on Ctrl-C
  Launcher launcher(std::move(file), reader.Get("--events"), reader.Get("--until"), give_up_after);
  return launcher.Run();
}

}  // namespace limbic::cli
