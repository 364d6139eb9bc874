#include "tests/testing/process.hpp"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <random>
#include <sstream>
#include <stdexcept>
#include <thread>
#include <utility>

namespace limbic::testing {

ScopedEnvironment::ScopedEnvironment(std::string name, const std::string& value) : name_(std::move(name)) {
  if (const char* old = std::getenv(name_.c_str())) saved_ = old;
  if (value.empty()) {
    ::unsetenv(name_.c_str());
  } else {
    ::setenv(name_.c_str(), value.c_str(), 1);
  }
}

ScopedEnvironment::~ScopedEnvironment() {
  if (saved_) {
    ::setenv(name_.c_str(), saved_->c_str(), 1);
  } else {
    ::unsetenv(name_.c_str());
  }
}

std::string BinDir() {
  const char* dir = std::getenv("LIMBIC_BIN_DIR");
  return dir ? dir : LIMBIC_BUILD_BIN_DIR;
}
std::string Bin(const std::string& name) { return BinDir() + "/" + name; }
std::string SourceDir() {
  const char* dir = std::getenv("LIMBIC_SOURCE_DIR");
  return dir ? dir : LIMBIC_SOURCE_ROOT;
}

namespace {

// Binds a TCP socket on 127.0.0.1:port (0: any free port); returns the fd (the bound port in
// *bound), or -1.
int BindLoopback(int port, int* bound) {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) return -1;
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = htons(static_cast<uint16_t>(port));
  socklen_t len = sizeof(addr);
  if (bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0 ||
      getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) != 0) {
    close(fd);
    return -1;
  }
  *bound = ntohs(addr.sin_port);
  return fd;
}

}  // namespace

// The kernel's ephemeral range (the local ports of outgoing connections and of bind(0)); 32768–60999 if
// it cannot be read.
std::pair<int, int> EphemeralRange() {
  std::ifstream in("/proc/sys/net/ipv4/ip_local_port_range");
  int low = 32768, high = 60999;
  if (!(in >> low >> high) || low > high) return {32768, 60999};
  return {low, high};
}

int FreeTcpPortPair() {
  // Drawn outside the ephemeral range: a port the kernel hands out by bind(0) is free only until the
  // next outgoing connection of any test running in parallel takes it as its local port (a broker once
  // failed with "Address already in use" that way). Below the range no connection is given a port
  // unasked, so only another test drawing the same number at the same moment could collide.
  const auto [ephemeral_low, ephemeral_high] = EphemeralRange();
  int low = 20000, high = ephemeral_low - 2;
  if (high - low < 1000) {  // an unusual range: above it instead
    low = ephemeral_high + 1;
    high = 65534;
  }
  std::mt19937 random(std::random_device{}() ^ static_cast<unsigned>(getpid()));
  std::uniform_int_distribution<int> pick(low, high);
  for (int attempt = 0; attempt < 200; ++attempt) {
    const int port = pick(random);
    int first = 0, second = 0;
    const int a = BindLoopback(port, &first);
    if (a < 0) continue;
    const int b = BindLoopback(port + 1, &second);
    close(a);
    if (b >= 0) {
      close(b);
      return port;
    }
  }
  throw std::runtime_error("FreeTcpPortPair: no free pair of TCP ports on 127.0.0.1 in " + std::to_string(low) + "–" +
                           std::to_string(high + 1));
}

TempDir::TempDir() {
  std::random_device rd;
  path_ =
      std::filesystem::temp_directory_path() / ("limbic-test-" + std::to_string(getpid()) + "-" + std::to_string(rd()));
  std::filesystem::create_directories(path_);
}
TempDir::~TempDir() {
  std::error_code ec;
  std::filesystem::remove_all(path_, ec);
}

ChildProcess::ChildProcess(std::vector<std::string> argv, const std::string& log_path) : log_path_(log_path) {
  pid_ = fork();
  if (pid_ < 0) throw std::runtime_error("fork failed");
  if (pid_ == 0) {
    const int fd = open(log_path.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
    if (fd >= 0) {
      dup2(fd, 1);
      dup2(fd, 2);
      close(fd);
    }
    std::vector<char*> args;
    for (auto& a : argv) args.push_back(a.data());
    args.push_back(nullptr);
    execv(args[0], args.data());
    _exit(127);
  }
}

ChildProcess::~ChildProcess() {
  if (Running()) {
    Signal(SIGKILL);
    Wait(std::chrono::milliseconds(2000));
  }
}

bool ChildProcess::Running() {
  if (reaped_) return false;
  int status = 0;
  const pid_t r = waitpid(pid_, &status, WNOHANG);
  if (r == pid_) {
    reaped_ = true;
    status_ = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    return false;
  }
  return true;
}

void ChildProcess::Signal(int sig) {
  if (!reaped_) kill(pid_, sig);
}

int ChildProcess::Wait(std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (Running()) {
    if (std::chrono::steady_clock::now() >= deadline) return -1;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return status_;
}

std::string ChildProcess::Log() const {
  std::ifstream in(log_path_);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::vector<LaunchEvent> LaunchEventsOf(const std::string& path, const std::string& process) {
  std::vector<LaunchEvent> events;
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line)) {
    if (line.find("\"process\": \"" + process + "\"") == std::string::npos) continue;
    const auto e = line.find("\"event\": \"");
    const auto p = line.find("\"pid\": ");
    if (e == std::string::npos || p == std::string::npos) continue;  // a line still being written
    LaunchEvent event;
    event.event = line.substr(e + 10, line.find('"', e + 10) - (e + 10));
    event.pid = std::atoi(line.c_str() + p + 7);
    events.push_back(event);
  }
  return events;
}

std::vector<int> LaunchedPids(const std::string& path, const std::string& process) {
  std::vector<int> pids;
  for (const LaunchEvent& e : LaunchEventsOf(path, process)) {
    if (e.event == "started" || e.event == "restarted") pids.push_back(e.pid);
  }
  return pids;
}

}  // namespace limbic::testing
