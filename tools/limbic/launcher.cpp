#include "tools/limbic/launcher.hpp"

#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <iostream>

namespace limbic::cli {

std::string SelfDir() {
  std::error_code ec;
  auto exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  return ec ? "." : exe.parent_path().string();
}

pid_t StartLauncher(const std::vector<std::string>& launch_args, const std::string& log_path) {
  std::vector<std::string> a{SelfDir() + "/limbic", "launch"};
  a.insert(a.end(), launch_args.begin(), launch_args.end());
  std::vector<char*> c;
  for (auto& s : a) c.push_back(s.data());
  c.push_back(nullptr);
  const pid_t parent = getpid();
  const pid_t launcher = fork();
  if (launcher == 0) {
    setpgid(0, 0);
    if (prctl(PR_SET_PDEATHSIG, SIGTERM) != 0 || getppid() != parent) _exit(126);
    if (!freopen(log_path.c_str(), "w", stdout)) _exit(126);
    dup2(fileno(stdout), STDERR_FILENO);
    execv(c[0], c.data());
    _exit(127);
  }
  return launcher;
}

int StopLauncher(pid_t launcher) {
  int status = 0;
  if (waitpid(launcher, &status, WNOHANG) == launcher) return status;  // it ended meanwhile
  kill(launcher, SIGINT);
  waitpid(launcher, &status, 0);
  return status;
}

LoopEnd RunStatusLoop(const StatusLoop& loop, int* launcher_status) {
  using namespace std::chrono_literals;
  const bool tty = isatty(STDOUT_FILENO);
  const auto start = std::chrono::steady_clock::now();
  auto next_print = start;
  long printed_lines = -1;  // -1: nothing drawn yet
  while (!(loop.signal && *loop.signal)) {
    loop.node->Poll(50ms);
    if (waitpid(loop.launcher, launcher_status, WNOHANG) == loop.launcher) return LoopEnd::kLauncherEnded;
    if (loop.stop && loop.stop()) return LoopEnd::kStopped;
    const auto now = std::chrono::steady_clock::now();
    if (loop.duration_s > 0 && now - start > std::chrono::duration<double>(loop.duration_s)) return LoopEnd::kDuration;
    if (now < next_print || !loop.render) continue;
    next_print = now + (tty ? 500ms : 5s);
    const std::string text = loop.render();
    if (tty) {
      // Redraw in place: back to the first line drawn last time, clear to the end of the screen.
      if (printed_lines > 0) std::cout << "\033[" << printed_lines << "A";
      if (printed_lines >= 0) std::cout << "\r\033[J";
      std::cout << text << std::flush;
      printed_lines = static_cast<long>(std::count(text.begin(), text.end(), '\n'));
    } else {
      std::cout << text << (text.empty() || text.back() != '\n' ? "\n" : "") << std::flush;
    }
  }
  return LoopEnd::kSignal;
}

}  // namespace limbic::cli
