// transport_peers (issue 23 item 4): limbic's bus beside raw ZeroMQ, a bare ZeroMQ proxy and other middleware,
// side by side on one machine, in interleaved rounds, written as one table.
//
//   build/bench/transport_peers --rounds 10 --out table.md     (also table.csv and table.rounds.csv)
//   build/bench/transport_peers --help                          (flags; --list: which contenders are built)
//
// Contenders: raw ZeroMQ PUB/SUB (ipc, tcp), a bare zmq::proxy XSUB/XPUB (ipc), limbic through its broker (ipc,
// tcp), and, where their Debian packages were found when configuring, Cyclone DDS, Fast DDS, LCM and iceoryx
// (tools/setup-debian.sh cyclonedds-dev cyclonedds-tools libfastrtps-dev liblcm-dev libiceoryx-posh-dev iceoryx).
// limbic direct (issue 23 item 1: the broker as directory only, data node to node; ipc and tcp); limbic through its
// broker and direct with CURVE (tcp: what crossing hosts costs); limbic shared memory (issue 23 item 2) is built with
// iceoryx.
//
// Processes: every measurement runs in fresh processes of this program, started with fork + exec: end A and
// end B (and, where the contender has one, the middle: limbic's broker, the proxy, or iceoryx's RouDi daemon,
// which this program starts and stops itself). The parent only starts, reads and kills; it never opens a
// transport. Each measurement gets its own ipc paths, TCP ports, DDS domain and names (link.hpp's Rendezvous).
//
// Round trip: A sends one message, B sends it back, A waits for it before the next (exchange.cpp); p50 and p99
// over --samples per size. Throughput: A sends --messages per size (at most --blast-mib of them) as fast as it
// can, B counts; rate = received / (B's last receive − A's first send), both read from the machine's steady
// clock. Each contender is set up not to lose messages where it can (ZeroMQ and limbic with unlimited queues,
// DDS reliable with KEEP_ALL history, iceoryx blocking the publisher); LCM cannot, so its losses are reported.
//
// Interleaved rounds: round r runs every contender once, in an order rotated by r; a contender's ratio to raw
// ZeroMQ (ipc for ipc and shared-memory transports, tcp for tcp and UDP ones) is formed within each round, and
// the table gives the median over rounds of each figure and of each ratio (report.hpp).
//
// Unhappy paths end in a line, not a hang: every receive has a timeout, every process a deadline; a contender
// whose daemon does not start (iceoryx) or whose multicast route is missing (LCM: sudo ip route add 224.0.0.0/4
// dev lo) is skipped with the reason in the table.
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <map>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "bench/peers/exchange.hpp"
#include "bench/peers/link.hpp"
#include "bench/peers/report.hpp"
#include "common/flags/flags.hpp"
#include "tests/testing/process.hpp"

namespace limbic::peers {
namespace {

using Clock = std::chrono::steady_clock;
using namespace std::chrono_literals;

enum class Middle { kNone, kBroker, kProxy, kRouDi };

struct Contender {
  ContenderInfo info;
  Middle middle = Middle::kNone;
  std::function<std::unique_ptr<Link>(Side, const Rendezvous&)> open;
  std::function<std::string()> check;  // in the parent before each measurement: "" or why it is skipped
  bool curve = false;                  // Middle::kBroker: the broker requires CURVE (on tcp)
};

#ifdef LIMBIC_PEERS_LCM
std::string LcmRouteCheck() {
  std::ifstream in("/proc/net/route");
  std::stringstream text;
  text << in.rdbuf();
  if (MulticastRoutedToLoopback(text.str(), 0xEFFF4C43)) return "";
  return "skipped: no multicast route through lo (sudo ip route add 224.0.0.0/4 dev lo)";
}
#endif

std::vector<Contender> Contenders() {
  std::vector<Contender> all;
  const auto add = [&](std::string key, std::string name, std::string baseline, Middle middle,
                       std::function<std::unique_ptr<Link>(Side, const Rendezvous&)> open, std::string missing = "") {
    Contender c;
    c.info = {std::move(key), std::move(name), std::move(baseline), open ? "" : std::move(missing)};
    c.middle = middle;
    c.open = std::move(open);
    all.push_back(std::move(c));
  };
  add("zmq-ipc", "raw ZeroMQ PUB/SUB, ipc", "zmq-ipc", Middle::kNone,
      [](Side s, const Rendezvous& r) { return OpenZmqLink(s, r, false); });
  add("zmq-tcp", "raw ZeroMQ PUB/SUB, tcp", "zmq-tcp", Middle::kNone,
      [](Side s, const Rendezvous& r) { return OpenZmqLink(s, r, true); });
  add("proxy-ipc", "bare zmq::proxy XSUB/XPUB, ipc", "zmq-ipc", Middle::kProxy,
      [](Side s, const Rendezvous& r) { return OpenProxyLink(s, r); });
  add("limbic-ipc", "limbic broker, ipc", "zmq-ipc", Middle::kBroker,
      [](Side s, const Rendezvous& r) { return OpenLimbicLink(s, r, false); });
  add("limbic-tcp", "limbic broker, tcp", "zmq-tcp", Middle::kBroker,
      [](Side s, const Rendezvous& r) { return OpenLimbicLink(s, r, true); });
  // The broker runs as the directory only: the data goes from node to node (issue 23 item 1).
  add("limbic-direct", "limbic direct, ipc", "zmq-ipc", Middle::kBroker,
      [](Side s, const Rendezvous& r) { return OpenLimbicLink(s, r, false, /*direct=*/true); });
  add("limbic-direct-tcp", "limbic direct, tcp", "zmq-tcp", Middle::kBroker,
      [](Side s, const Rendezvous& r) { return OpenLimbicLink(s, r, true, /*direct=*/true); });
  // CURVE's cost (encryption and authentication, as across hosts): on tcp, beside raw ZeroMQ tcp without it.
  add("limbic-broker-curve", "limbic broker, tcp + CURVE", "zmq-tcp", Middle::kBroker,
      [](Side s, const Rendezvous& r) { return OpenLimbicLink(s, r, true, /*direct=*/false, /*curve=*/true); });
  all.back().curve = true;
  add("limbic-direct-curve", "limbic direct, tcp + CURVE", "zmq-tcp", Middle::kBroker,
      [](Side s, const Rendezvous& r) { return OpenLimbicLink(s, r, true, /*direct=*/true, /*curve=*/true); });
  all.back().curve = true;
#ifdef LIMBIC_PEERS_ICEORYX
  add("limbic-shm", "limbic shared memory (iceoryx, RouDi)", "zmq-ipc", Middle::kRouDi, OpenLimbicShmLink);
#else
  add("limbic-shm", "limbic shared memory", "zmq-ipc", Middle::kNone, nullptr,
      "not built: libiceoryx-posh-dev not found");
#endif
#ifdef LIMBIC_PEERS_CYCLONE
  add("cyclone", "Cyclone DDS (UDP on lo)", "zmq-tcp", Middle::kNone, OpenCycloneLink);
#else
  add("cyclone", "Cyclone DDS", "zmq-tcp", Middle::kNone, nullptr, "not built: cyclonedds-dev not found");
#endif
#ifdef LIMBIC_PEERS_FASTDDS
  add("fastdds", "Fast DDS (shared memory + UDP on lo)", "zmq-ipc", Middle::kNone, OpenFastDdsLink);
#else
  add("fastdds", "Fast DDS", "zmq-ipc", Middle::kNone, nullptr, "not built: libfastrtps-dev not found");
#endif
#ifdef LIMBIC_PEERS_LCM
  add("lcm", "LCM (UDP multicast on lo)", "zmq-tcp", Middle::kNone, OpenLcmLink);
  all.back().check = LcmRouteCheck;
#else
  add("lcm", "LCM", "zmq-tcp", Middle::kNone, nullptr, "not built: liblcm-dev not found");
#endif
#ifdef LIMBIC_PEERS_ICEORYX
  add("iceoryx", "iceoryx (shared memory, RouDi)", "zmq-ipc", Middle::kRouDi, OpenIceoryxLink);
#else
  add("iceoryx", "iceoryx", "zmq-ipc", Middle::kNone, nullptr, "not built: libiceoryx-posh-dev not found");
#endif
  return all;
}

std::vector<size_t> ParseSizes(const std::string& text) {
  std::vector<size_t> sizes;
  std::stringstream in(text);
  std::string item;
  while (std::getline(in, item, ',')) {
    sizes.push_back(static_cast<size_t>(flags::ParseInteger("--sizes", item, 16, 16 << 20)));
  }
  if (sizes.empty()) throw flags::FlagValueError("--sizes needs at least one size");
  return sizes;
}

std::string JoinSizes(const std::vector<size_t>& sizes) {
  std::string text;
  for (size_t s : sizes) text += (text.empty() ? "" : ",") + std::to_string(s);
  return text;
}

// ---------------------------------------------------------------------------------------------------------------
// The child side: one end or one middle of one measurement.

std::atomic<bool> g_stop{false};
void OnTerm(int) { g_stop = true; }
void SayReady() { std::cout << "ready" << std::endl; }

int RunChild(const std::string& role, const std::string& key, const Rendezvous& r, const ExchangeOptions& options) {
  for (const Contender& c : Contenders()) {
    if (c.info.key != key) continue;
    try {
      if (role == "serve") {
        signal(SIGTERM, OnTerm);
        if (c.middle == Middle::kProxy) ServeProxy(r, SayReady);
        if (c.middle == Middle::kBroker)
          ServeLimbicBroker(r, key.ends_with("tcp") || c.curve, SayReady, g_stop, c.curve);
        return 0;
      }
      const bool is_a = role == "ping" || role == "blast";
      auto link = c.open(is_a ? Side::kA : Side::kB, r);
      if (role == "ping") return RunPing(*link, options, std::cout);
      if (role == "echo") return RunEcho(*link, options, std::cout);
      if (role == "blast") return RunBlast(*link, options, std::cout);
      if (role == "sink") return RunSink(*link, options, std::cout);
    } catch (const std::exception& e) {
      std::cout << "fail -1 " << role << ": " << e.what() << std::endl;
      return 1;
    }
  }
  std::cout << "fail -1 no contender or role " << key << " " << role << std::endl;
  return 2;
}

// ---------------------------------------------------------------------------------------------------------------
// The parent side: processes with their standard output read line by line.

class Process {
 public:
  // Starts `argv` (argv[0] found on PATH) with standard output into a pipe and standard error into `log_fd`.
  Process(const std::vector<std::string>& argv, int log_fd) {
    int fds[2];
    if (pipe2(fds, O_CLOEXEC) != 0) throw std::runtime_error("pipe: " + std::string(std::strerror(errno)));
    pid_ = fork();
    if (pid_ < 0) throw std::runtime_error("fork: " + std::string(std::strerror(errno)));
    if (pid_ == 0) {
      dup2(fds[1], STDOUT_FILENO);
      dup2(log_fd, STDERR_FILENO);
      setpgid(0, 0);  // its own group: killing it takes whatever it started
      std::vector<char*> args;
      for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
      args.push_back(nullptr);
      execvp(args[0], args.data());
      std::fprintf(stderr, "transport_peers: cannot run %s: %s\n", args[0], std::strerror(errno));
      _exit(127);
    }
    close(fds[1]);
    fd_ = fds[0];
  }
  ~Process() {
    Kill(SIGKILL);
    Reap(1s);
    if (fd_ >= 0) close(fd_);
  }
  Process(const Process&) = delete;
  Process& operator=(const Process&) = delete;

  int fd() const { return fd_; }
  bool eof() const { return eof_; }
  const std::vector<std::string>& lines() const { return lines_; }
  // Reads what is there (after poll said so); false at end of file.
  bool ReadSome() {
    char buffer[4096];
    const ssize_t n = read(fd_, buffer, sizeof buffer);
    if (n <= 0) {
      eof_ = true;
      return false;
    }
    partial_.append(buffer, static_cast<size_t>(n));
    size_t newline;
    while ((newline = partial_.find('\n')) != std::string::npos) {
      lines_.push_back(partial_.substr(0, newline));
      partial_.erase(0, newline + 1);
    }
    return true;
  }
  void Kill(int sig) {
    if (pid_ > 0 && !reaped_) kill(-pid_, sig);
  }
  // Waits up to `limit` for the exit; the exit status (128 + signal), or -1 if still running.
  int Reap(std::chrono::milliseconds limit) {
    const auto deadline = Clock::now() + limit;
    while (!reaped_) {
      int status = 0;
      const pid_t done = waitpid(pid_, &status, WNOHANG);
      if (done == pid_) {
        reaped_ = true;
        status_ = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
        break;
      }
      if (Clock::now() >= deadline) return -1;
      std::this_thread::sleep_for(5ms);
    }
    return status_;
  }

 private:
  pid_t pid_ = -1;
  int fd_ = -1;
  bool eof_ = false;
  bool reaped_ = false;
  int status_ = -1;
  std::string partial_;
  std::vector<std::string> lines_;
};

// Reads the processes' output until `done()` holds, all of them reached end of file, or `deadline` passes.
bool ReadUntil(const std::vector<Process*>& processes, const std::function<bool()>& done, Clock::time_point deadline) {
  while (!done()) {
    std::vector<pollfd> fds;
    std::vector<Process*> open;
    for (Process* p : processes) {
      if (p->eof()) continue;
      fds.push_back({p->fd(), POLLIN, 0});
      open.push_back(p);
    }
    if (fds.empty()) return done();
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
    if (left <= 0) return false;
    if (poll(fds.data(), fds.size(), static_cast<int>(std::min<int64_t>(left, 200))) < 0 && errno != EINTR) {
      return false;
    }
    for (size_t i = 0; i < fds.size(); ++i) {
      if (fds[i].revents & (POLLIN | POLLHUP | POLLERR)) open[i]->ReadSome();
    }
  }
  return true;
}

bool HasLine(const Process& p, const std::string& text) {
  for (const std::string& line : p.lines())
    if (line.find(text) != std::string::npos) return true;
  return false;
}

struct Run {
  std::string self;  // this program
  int log_fd = -1;
  std::string log_path;
  ExchangeOptions options;
  int next = 0;                                // measurements started, for fresh rendezvous
  std::map<std::string, std::string> skipped;  // contenders whose daemon did not start: skipped from then on
};

Rendezvous Fresh(Run& run) {
  const int id = ++run.next;
  const int pid = static_cast<int>(getpid());
  Rendezvous r;
  r.ipc_base = "/tmp/limbic-peers-" + std::to_string(pid) + "-" + std::to_string(id);
  r.tcp_port = testing::FreeTcpPortPair();
  r.domain = 1 + (pid * 7 + id) % 200;
  r.tag = "p" + std::to_string(pid) + "n" + std::to_string(id);
  return r;
}

std::vector<std::string> ChildArgs(const Run& run, const std::string& role, const std::string& key,
                                   const Rendezvous& r) {
  const ExchangeOptions& o = run.options;
  return {run.self,
          "--child",
          role,
          "--contender",
          key,
          "--ipc",
          r.ipc_base,
          "--port",
          std::to_string(r.tcp_port),
          "--domain",
          std::to_string(r.domain),
          "--tag",
          r.tag,
          "--sizes",
          JoinSizes(o.sizes),
          "--samples",
          std::to_string(o.samples),
          "--messages",
          std::to_string(o.messages),
          "--blast-mib",
          std::to_string(o.blast_bytes >> 20),
          "--discovery-ms",
          std::to_string(o.discovery.count())};
}

// The middle process of a contender: started and ready, or the reason it is not.
std::unique_ptr<Process> StartMiddle(Run& run, const Contender& c, const Rendezvous& r, std::string* why) {
  if (c.middle == Middle::kNone) return nullptr;
  std::unique_ptr<Process> p;
  std::string ready = "ready";
  if (c.middle == Middle::kRouDi) {
    // Monitoring off: the ends are killed when a measurement times out and RouDi need not wait for them.
    p = std::make_unique<Process>(std::vector<std::string>{"iox-roudi", "-m", "off", "-l", "info"}, run.log_fd);
    ready = "RouDi is ready for clients";
  } else {
    p = std::make_unique<Process>(ChildArgs(run, "serve", c.info.key, r), run.log_fd);
  }
  if (!ReadUntil(
          {p.get()}, [&] { return HasLine(*p, ready); }, Clock::now() + 10s)) {
    *why = c.middle == Middle::kRouDi
               ? "skipped: iox-roudi did not start (another RouDi running? see " + run.log_path + ")"
               : "skipped: the middle process did not start (see " + run.log_path + ")";
    return nullptr;
  }
  return p;
}

void StopMiddle(std::unique_ptr<Process>& p) {
  if (!p) return;
  p->Kill(SIGTERM);
  if (p->Reap(5s) < 0) p->Kill(SIGKILL);
  p->Reap(1s);
  p.reset();
}

std::vector<std::string> Words(const std::string& line) {
  std::vector<std::string> words;
  std::istringstream in(line);
  std::string w;
  while (in >> w) words.push_back(w);
  return words;
}

// One contender, one kind, one round: a Sample per size.
std::vector<Sample> Measure(Run& run, const Contender& c, Kind kind, int round) {
  const size_t n_sizes = run.options.sizes.size();
  std::vector<Sample> samples(n_sizes);
  for (size_t z = 0; z < n_sizes; ++z) {
    samples[z].contender = c.info.key;
    samples[z].kind = kind;
    samples[z].size_index = z;
    samples[z].round = round;
  }
  const auto fail_all = [&](const std::string& why) {
    for (Sample& s : samples)
      if (!s.ok && s.note.empty()) s.note = why;
    return samples;
  };
  if (c.check) {
    if (std::string why = c.check(); !why.empty()) return fail_all(why);
  }
  if (const auto it = run.skipped.find(c.info.key); it != run.skipped.end()) return fail_all(it->second);
  const Rendezvous r = Fresh(run);
  std::string why;
  auto middle = StartMiddle(run, c, r, &why);
  if (c.middle != Middle::kNone && !middle) {
    run.skipped[c.info.key] = why;  // not waited for again in later rounds
    return fail_all(why);
  }
  const bool rtt = kind == Kind::kRoundTrip;
  {
    Process b(ChildArgs(run, rtt ? "echo" : "sink", c.info.key, r), run.log_fd);
    Process a(ChildArgs(run, rtt ? "ping" : "blast", c.info.key, r), run.log_fd);
    // Generous: discovery per size plus the blast's worst case; a hung contender costs this once.
    const auto deadline = Clock::now() + (run.options.discovery + 60s) * static_cast<int>(n_sizes);
    ReadUntil(
        {&a}, [] { return false; }, deadline);
    ReadUntil(
        {&b}, [] { return false; }, Clock::now() + 5s);  // B's last lines, or it is stuck
    const int status_a = a.Reap(2s), status_b = b.Reap(2s);
    // Results.
    std::map<size_t, std::vector<std::string>> sent;
    for (const Process* p : {&a, &b}) {
      for (const std::string& line : p->lines()) {
        const auto w = Words(line);
        if (w.size() < 2) continue;
        const long z = std::strtol(w[1].c_str(), nullptr, 10);
        if (w[0] == "fail") {
          std::string reason = line.substr(line.find(w[1]) + w[1].size() + 1);
          for (size_t i = z < 0 ? 0 : static_cast<size_t>(z); i < n_sizes; ++i)
            if (samples[i].note.empty()) samples[i].note = reason;
          continue;
        }
        if (z < 0 || static_cast<size_t>(z) >= n_sizes) continue;
        Sample& s = samples[static_cast<size_t>(z)];
        if (w[0] == "rtt" && w.size() >= 6) {
          s.bytes = std::stoul(w[2]);
          s.p50_us = std::stod(w[3]);
          s.p99_us = std::stod(w[4]);
          s.ok = std::stol(w[5]) > 0;
        } else if (w[0] == "sent" && w.size() >= 5) {
          sent[static_cast<size_t>(z)] = w;
        } else if (w[0] == "recv" && w.size() >= 5) {
          s.bytes = std::stoul(w[2]);
          s.received = std::stoull(w[3]);
          s.msgs_per_s = static_cast<double>(std::stoll(w[4]));  // last_ns until matched below
        }
      }
    }
    if (!rtt) {
      for (size_t z = 0; z < n_sizes; ++z) {
        Sample& s = samples[z];
        const auto it = sent.find(z);
        const double last_ns = s.msgs_per_s;
        s.msgs_per_s = 0;
        if (it == sent.end() || s.received == 0) continue;
        const double t0 = std::stod(it->second[3]);
        s.sent = std::stoull(it->second[4]);
        if (last_ns <= t0) continue;
        s.msgs_per_s = static_cast<double>(s.received) / ((last_ns - t0) * 1e-9);
        s.ok = true;
      }
    }
    for (Sample& s : samples) {
      if (!s.ok && s.note.empty()) {
        s.note = "no result (exit status A " + std::to_string(status_a) + ", B " + std::to_string(status_b) + "; see " +
                 run.log_path + ")";
      }
    }
  }
  StopMiddle(middle);
  std::error_code ignored;
  for (const char* suffix : {"-ping", "-pong", "-in", "-out", "-bus.in", "-bus.out"}) {
    std::filesystem::remove(r.ipc_base + suffix, ignored);
  }
  return samples;
}

std::string Duration(double seconds) {
  const int s = static_cast<int>(seconds + 0.5);
  if (s < 60) return std::to_string(s) + " s";
  return std::to_string(s / 60) + " min " + std::to_string(s % 60) + " s";
}

std::string BriefResult(const std::vector<Sample>& samples, const std::vector<size_t>& sizes) {
  std::string text;
  const bool one_reason = std::all_of(samples.begin(), samples.end(),
                                      [&](const Sample& s) { return !s.ok && s.note == samples.front().note; });
  if (!samples.empty() && one_reason) return samples.front().note;
  for (const Sample& s : samples) {
    text += (text.empty() ? "" : ", ") + SizeLabel(sizes[s.size_index]) + " ";
    char figure[64];
    if (!s.ok) {
      text += "— " + s.note;
    } else if (s.kind == Kind::kRoundTrip) {
      std::snprintf(figure, sizeof figure, "%.1f µs", s.p50_us);
      text += figure;
    } else {
      text += RateLabel(s.msgs_per_s) + "/s";
      if (s.received < s.sent) {
        std::snprintf(figure, sizeof figure, " (%.1f %% lost)",
                      100.0 * static_cast<double>(s.sent - s.received) / static_cast<double>(s.sent));
        text += figure;
      }
    }
  }
  return text;
}

std::string Today() {
  const std::time_t now = std::time(nullptr);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%d", std::localtime(&now));
  return text;
}

void WriteFile(const std::string& path, const std::string& text) {
  std::ofstream out(path);
  out << text;
  if (!out) throw std::runtime_error("cannot write " + path);
}

constexpr const char* kHelp = R"(transport_peers: limbic's bus beside raw ZeroMQ, a bare proxy and other middleware
(Cyclone DDS, Fast DDS, LCM, iceoryx where built), round trip and throughput, in interleaved rounds.

  transport_peers [--rounds 10] [--out transport_peers.md] [flags]

  --rounds N          rounds; each runs every contender once, in an order rotated per round (default 10)
  --out FILE.md       the Markdown table; FILE.csv (medians) and FILE.rounds.csv (every round) beside it
  --sizes A,B,...     message sizes in bytes (default 64,1024,65536)
  --samples N         round trips measured per size and round (default 1000, after 50 unmeasured)
  --messages N        messages blasted per size and round (default 50000) ...
  --blast-mib N       ... but at most N MiB of them (default 128: 2048 messages of 64 KiB)
  --only K1,K2        only these contenders (keys from --list); raw ZeroMQ is added where a ratio needs it
  --kinds K           round-trip, throughput or both (default both)
  --discovery-ms N    how long an end waits for the first answer of each size (default 10000)
  --date TEXT         the date written in the table's title (default today)
  --machine TEXT      the machine written in the title (default "N-core machine")
  --log FILE          the children's standard error (default /tmp/transport_peers-PID.log)
  --list              the contenders, and why any is not built; then exit

Peers are built where their Debian packages were found when configuring:
  tools/setup-debian.sh cyclonedds-dev cyclonedds-tools libfastrtps-dev liblcm-dev libiceoryx-posh-dev iceoryx
LCM needs a multicast route through lo (sudo ip route add 224.0.0.0/4 dev lo) and is skipped without one.
)";

int Main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  int rounds = 10;
  std::string out_path = "transport_peers.md";
  std::string only, kinds = "both", date, machine, log_path, child_role, child_key;
  ExchangeOptions options;
  options.sizes = {64, 1024, 65536};
  Rendezvous rendezvous;
  bool list = false;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "--help" || a == "-h") {
      std::cout << kHelp;
      return 0;
    } else if (a == "--rounds") {
      rounds = flags::ParseInt(a, flags::NextValue(args, &i), 1, 1000);
    } else if (a == "--out") {
      out_path = flags::NextValue(args, &i);
    } else if (a == "--sizes") {
      options.sizes = ParseSizes(flags::NextValue(args, &i));
    } else if (a == "--samples") {
      options.samples = flags::ParseInt(a, flags::NextValue(args, &i), 1, 10000000);
    } else if (a == "--messages") {
      options.messages = static_cast<uint64_t>(flags::ParseInteger(a, flags::NextValue(args, &i), 1, 1000000000));
    } else if (a == "--blast-mib") {
      options.blast_bytes = static_cast<uint64_t>(flags::ParseInteger(a, flags::NextValue(args, &i), 1, 65536)) << 20;
    } else if (a == "--only") {
      only = flags::NextValue(args, &i);
    } else if (a == "--kinds") {
      kinds = flags::NextValue(args, &i);
      if (kinds != "both" && kinds != "round-trip" && kinds != "throughput") {
        throw flags::FlagValueError("--kinds takes round-trip, throughput or both, not '" + kinds + "'");
      }
    } else if (a == "--discovery-ms") {
      options.discovery = std::chrono::milliseconds(flags::ParseInt(a, flags::NextValue(args, &i), 100, 600000));
    } else if (a == "--date") {
      date = flags::NextValue(args, &i);
    } else if (a == "--machine") {
      machine = flags::NextValue(args, &i);
    } else if (a == "--log") {
      log_path = flags::NextValue(args, &i);
    } else if (a == "--list") {
      list = true;
    } else if (a == "--child") {  // the rest: set by the parent for its children
      child_role = flags::NextValue(args, &i);
    } else if (a == "--contender") {
      child_key = flags::NextValue(args, &i);
    } else if (a == "--ipc") {
      rendezvous.ipc_base = flags::NextValue(args, &i);
    } else if (a == "--port") {
      rendezvous.tcp_port = flags::ParseInt(a, flags::NextValue(args, &i), 1, 65534);
    } else if (a == "--domain") {
      rendezvous.domain = flags::ParseInt(a, flags::NextValue(args, &i), 0, 232);
    } else if (a == "--tag") {
      rendezvous.tag = flags::NextValue(args, &i);
    } else {
      throw flags::UsageError("unknown argument '" + a + "'");
    }
  }
  if (!child_role.empty()) return RunChild(child_role, child_key, rendezvous, options);

  const std::vector<Contender> all = Contenders();
  if (list) {
    for (const Contender& c : all) {
      std::cout << c.info.key << "\t" << c.info.name << (c.info.unavailable.empty() ? "" : "\t" + c.info.unavailable)
                << "\n";
    }
    return 0;
  }
  // The contenders of this run, in the table's order; raw ZeroMQ pairs that others divide by come along.
  std::vector<Contender> chosen;
  {
    std::vector<std::string> wanted;
    std::stringstream in(only);
    std::string key;
    while (std::getline(in, key, ',')) wanted.push_back(key);
    for (const std::string& w : wanted) {
      bool known = false;
      for (const Contender& c : all) known = known || c.info.key == w;
      if (!known) throw flags::FlagValueError("--only: no contender '" + w + "' (see --list)");
    }
    const auto in_wanted = [&](const std::string& k) {
      return wanted.empty() || std::find(wanted.begin(), wanted.end(), k) != wanted.end();
    };
    for (const Contender& c : all) {
      bool needed = in_wanted(c.info.key);
      for (const Contender& other : all) {
        needed = needed || (in_wanted(other.info.key) && other.info.baseline == c.info.key && other.open);
      }
      if (needed) chosen.push_back(c);
    }
  }

  Run run;
  // The parent's own executable, even if the file is rebuilt during a run (children exec the same inode).
  run.self = "/proc/" + std::to_string(getpid()) + "/exe";
  run.options = options;
  run.log_path = log_path.empty() ? "/tmp/transport_peers-" + std::to_string(getpid()) + ".log" : log_path;
  if (const auto dir = std::filesystem::path(run.log_path).parent_path(); !dir.empty()) {
    std::filesystem::create_directories(dir);
  }
  run.log_fd = open(run.log_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (run.log_fd < 0) throw std::runtime_error("cannot write " + run.log_path);
  signal(SIGPIPE, SIG_IGN);

  std::vector<size_t> measured;  // indices into `chosen` of the contenders that are built
  for (size_t i = 0; i < chosen.size(); ++i) {
    if (chosen[i].open) {
      measured.push_back(i);
    } else {
      std::cout << "transport_peers: " << chosen[i].info.name << ": " << chosen[i].info.unavailable << "\n";
    }
  }
  std::vector<Kind> kind_list;
  if (kinds != "throughput") kind_list.push_back(Kind::kRoundTrip);
  if (kinds != "round-trip") kind_list.push_back(Kind::kThroughput);
  const size_t total = static_cast<size_t>(rounds) * measured.size() * kind_list.size();
  std::cout << "transport_peers: " << rounds << " rounds of " << measured.size() << " contenders × " << kind_list.size()
            << " kinds, sizes " << JoinSizes(options.sizes) << " B; children's stderr in " << run.log_path << std::endl;

  std::vector<Sample> samples;
  const auto start = Clock::now();
  size_t done = 0;
  for (int round = 0; round < rounds; ++round) {
    for (size_t position : RotatedOrder(measured.size(), round)) {
      const Contender& c = chosen[measured[position]];
      for (Kind kind : kind_list) {
        const auto result = Measure(run, c, kind, round);
        samples.insert(samples.end(), result.begin(), result.end());
        ++done;
        const double elapsed = std::chrono::duration<double>(Clock::now() - start).count();
        const double eta = elapsed / static_cast<double>(done) * static_cast<double>(total - done);
        std::cout << "[round " << round + 1 << "/" << rounds << ", " << done << "/" << total << ", ETA "
                  << Duration(eta) << "] " << c.info.name << ", "
                  << (kind == Kind::kRoundTrip ? "round trip p50" : "throughput") << ": "
                  << BriefResult(result, options.sizes) << std::endl;
      }
    }
  }

  std::vector<ContenderInfo> infos;
  for (const Contender& c : chosen) infos.push_back(c.info);
  const Summary summary = Summarize(infos, options.sizes, rounds, samples);
  ReportContext context;
  context.date = date.empty() ? Today() : date;
  context.machine = machine.empty() ? std::to_string(std::thread::hardware_concurrency()) + "-core machine" : machine;
  context.command = "transport_peers";
  for (const std::string& a : args) context.command += " " + a;
  const std::string markdown = MarkdownReport(summary, context);
  std::string stem = out_path;
  if (stem.size() > 3 && stem.substr(stem.size() - 3) == ".md") stem.resize(stem.size() - 3);
  if (const auto dir = std::filesystem::path(out_path).parent_path(); !dir.empty()) {
    std::filesystem::create_directories(dir);
  }
  WriteFile(out_path, markdown);
  WriteFile(stem + ".csv", SummaryCsv(summary));
  WriteFile(stem + ".rounds.csv", SamplesCsv(samples, options.sizes));
  size_t failed = 0;
  for (const Sample& s : samples) failed += s.ok ? 0 : 1;
  std::cout << "\n"
            << markdown << "\ntransport_peers: " << samples.size() - failed << " figures, " << failed << " missing, in "
            << Duration(std::chrono::duration<double>(Clock::now() - start).count()) << "; wrote " << out_path << ", "
            << stem << ".csv, " << stem << ".rounds.csv" << std::endl;
  close(run.log_fd);
  return 0;
}

}  // namespace
}  // namespace limbic::peers

int main(int argc, char** argv) {
  return limbic::flags::RunTool("transport_peers", [&] { return limbic::peers::Main(argc, argv); });
}
