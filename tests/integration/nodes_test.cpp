// `limbic nodes` (issue 15, item 2) against a private bus run by `limbic launch`: real service
// processes — the simulator (healthy), a service that reports itself degraded, one whose step
// failed once and recovered (ok, with its last error), one that crashed once and was restarted by
// the launcher, and one that hangs (silent) — and the line it prints for each: state, rate,
// restarts, detail. Plus the unhappy paths: an unreachable bus (a clear error and a non-zero exit
// within a bounded time) and bad flags.
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <fstream>
#include <map>
#include <sstream>
#include <thread>

#include "common/bus/bus.hpp"
#include "tests/testing/process.hpp"

namespace limbic {
namespace {

using namespace std::chrono_literals;

struct NodeLine {
  std::string state, rate, restarts, pid, host, detail;
};

// The table `limbic nodes` printed: SERVICE STATE RATE RESTARTS DETAIL, one line per service.
std::map<std::string, NodeLine> ParseNodes(const std::string& text, std::string* header) {
  std::map<std::string, NodeLine> lines;
  std::istringstream in(text);
  std::string line;
  bool table = false;
  while (std::getline(in, line)) {
    if (line.rfind("SERVICE", 0) == 0) {
      table = true;
      *header = line;
      continue;
    }
    if (!table || line.empty()) continue;
    std::istringstream fields(line);
    std::string name;
    NodeLine n;
    fields >> name >> n.state >> n.rate;
    if (n.rate != "-") {
      std::string unit;
      fields >> unit;  // "Hz"
      n.rate += " " + unit;
    }
    fields >> n.restarts >> n.pid >> n.host;
    std::getline(fields, n.detail);
    n.detail.erase(0, n.detail.find_first_not_of(' '));
    lines[name] = n;
  }
  return lines;
}

double RateHz(const NodeLine& n) { return n.rate == "-" ? -1.0 : std::stod(n.rate); }

std::string Slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

TEST(LimbicNodes, OneLinePerServiceWithStateRateRestartsAndLastError) {
  testing::TempDir dir;
  const std::string bus = "ipc://" + dir / "bus";
  const std::string launch_file = dir / "launch.yaml";
  auto talker = [&](const std::string& robot, const std::string& extra) {
    return "  - name: " + robot + "\n    command: [limbic-toy, talker, --bus, \"" + bus + "\", --robot, " + robot +
           extra + "]\n    restart: always\n";
  };
  std::ofstream(launch_file) << "backoff: {initial_s: 0.1, max_s: 1, reset_after_s: 30}\n"
                             << "processes:\n"
                             << "  - name: bus\n    command: [limbic-bus, --bus, \"" << bus << "\"]\n"
                             << "    restart: always\n    start_delay_s: 0.3\n"
                             << "  - name: sim\n    command: [limbic-simulator, --bus, \"" << bus
                             << "\", --robot, r1]\n    restart: always\n"
                             << talker("sad", ", --set, \"degraded=lidar blinded by the sun\"")
                             << talker("flaky", ", --set, fail_at=3")
                             << talker("crashy", ", --set, \"crash_once=" + dir / "crashed" + "\"");
  const std::string events = dir / "events.jsonl";
  testing::ChildProcess launch({testing::Bin("limbic"), "launch", launch_file, "--events", events}, dir / "launch.log");

  // The crashy talker dies at its tick 5 and is restarted; then give every service time to tick and
  // heartbeat (the flaky one needs one heartbeat and 10 good ticks to count as recovered).
  ASSERT_TRUE(testing::WaitFor(
      [&] {
        std::this_thread::sleep_for(100ms);
        return std::ifstream(dir / "crashed").good();
      },
      20s))
      << launch.Log();
  std::this_thread::sleep_for(4s);

  const std::string out = dir / "nodes.txt";
  testing::ChildProcess nodes({testing::Bin("limbic"), "nodes", "--bus", bus, "--wait", "3"}, out);
  const int rc = nodes.Wait(20s);
  const std::string text = Slurp(out);
  EXPECT_EQ(rc, 1) << "a degraded service makes `limbic nodes` exit 1\n" << text;
  std::string header;
  const auto lines = ParseNodes(text, &header);
  EXPECT_EQ(header.substr(0, 7), "SERVICE") << text;
  EXPECT_NE(header.find("STATE"), std::string::npos);
  EXPECT_NE(header.find("RESTARTS"), std::string::npos);
  EXPECT_NE(header.find("PID"), std::string::npos);
  EXPECT_NE(header.find("HOST"), std::string::npos);

  ASSERT_TRUE(lines.count("sad/talker")) << text;
  ASSERT_TRUE(lines.count("flaky/talker")) << text;
  ASSERT_TRUE(lines.count("crashy/talker")) << text;
  ASSERT_TRUE(lines.count("simulator")) << text;

  const NodeLine& sim = lines.at("simulator");
  EXPECT_EQ(sim.state, "ok") << text;
  EXPECT_EQ(sim.restarts, "0") << text;
  EXPECT_EQ(sim.detail, "") << text;
  EXPECT_GT(RateHz(sim), 0.0) << text;
  // Where it runs (issue 22 item 5): its pid and this host, from its heartbeat.
  EXPECT_GT(std::atoi(sim.pid.c_str()), 1) << text;
  char host[256] = {};
  gethostname(host, sizeof(host) - 1);
  EXPECT_EQ(sim.host, host) << text;

  const NodeLine& sad = lines.at("sad/talker");
  EXPECT_EQ(sad.state, "degraded") << text;
  EXPECT_EQ(sad.detail, "lidar blinded by the sun") << text;
  EXPECT_EQ(sad.restarts, "0") << text;
  // Realtime period 0.1 s: about 10 ticks a second (a loaded machine may tick a little late).
  EXPECT_GT(RateHz(sad), 5.0) << text;
  EXPECT_LT(RateHz(sad), 12.0) << text;

  const NodeLine& flaky = lines.at("flaky/talker");
  EXPECT_EQ(flaky.state, "ok") << "one failed step, then recovered\n" << text;
  EXPECT_EQ(flaky.detail, "last error: step flaky/talker failed at tick 3: toy failure at tick 3") << text;
  EXPECT_EQ(flaky.restarts, "0") << text;

  const NodeLine& crashy = lines.at("crashy/talker");
  EXPECT_EQ(crashy.state, "ok") << text;
  EXPECT_EQ(crashy.restarts, "1") << "restarted once by limbic launch\n" << text;
  EXPECT_GT(RateHz(crashy), 5.0) << text;

  // A service that hangs (SIGSTOP: alive, no heartbeats) is listed as silent, with no rate.
  int sad_pid = 0;
  {
    std::ifstream in(events);
    for (std::string line; std::getline(in, line);) {
      if (line.find("\"process\": \"sad\"") == std::string::npos ||
          line.find("\"event\": \"started\"") == std::string::npos) {
        continue;
      }
      sad_pid = std::stoi(line.substr(line.find("\"pid\": ") + 7));
    }
  }
  ASSERT_GT(sad_pid, 0) << Slurp(events);
  ASSERT_EQ(kill(sad_pid, SIGSTOP), 0);
  std::this_thread::sleep_for(1500ms);  // its last heartbeat is behind us
  const std::string out2 = dir / "nodes2.txt";
  testing::ChildProcess nodes2({testing::Bin("limbic"), "nodes", "--bus", bus, "--wait", "2"}, out2);
  EXPECT_EQ(nodes2.Wait(20s), 1);
  const std::string text2 = Slurp(out2);
  const auto lines2 = ParseNodes(text2, &header);
  kill(sad_pid, SIGCONT);
  ASSERT_TRUE(lines2.count("sad/talker")) << text2;
  EXPECT_EQ(lines2.at("sad/talker").state, "silent") << text2;
  EXPECT_EQ(lines2.at("sad/talker").rate, "-") << text2;
  EXPECT_EQ(lines2.at("crashy/talker").state, "ok") << text2;

  launch.Signal(SIGTERM);
  EXPECT_EQ(launch.Wait(15s), 0) << launch.Log();
}

TEST(LimbicNodes, UnreachableBusIsAClearErrorWithinABoundedTime) {
  testing::TempDir dir;
  const auto begin = std::chrono::steady_clock::now();
  testing::ChildProcess nodes({testing::Bin("limbic"), "nodes", "--bus", "ipc://" + dir / "nobody-here"},
                              dir / "nodes.txt");
  const int rc = nodes.Wait(30s);
  const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count();
  const std::string text = Slurp(dir / "nodes.txt");
  EXPECT_NE(rc, 0) << text;
  EXPECT_NE(rc, -1) << "still running after 30 s\n" << text;
  EXPECT_LT(elapsed, 15.0) << text;
  EXPECT_NE(text.find("cannot reach the bus at ipc://" + dir / "nobody-here"), std::string::npos) << text;
}

TEST(LimbicNodes, BadFlagsAreRefusedWithAMessage) {
  testing::TempDir dir;
  const std::pair<std::vector<std::string>, std::string> cases[] = {
      {{"--frobnicate"}, "unknown option '--frobnicate'"},
      {{"--wait"}, "--wait needs a value"},
      {{"--wait", "soon"}, "--wait needs a number of seconds in (0, 3600] (got 'soon')"},
      {{"--wait", "-1"}, "--wait needs a number of seconds in (0, 3600] (got '-1')"},
      {{"--wait", "2s"}, "(got '2s')"},
  };
  for (const auto& [flags, message] : cases) {
    std::vector<std::string> argv = {testing::Bin("limbic"), "nodes", "--bus", "ipc://" + dir / "nobody-here"};
    argv.insert(argv.end(), flags.begin(), flags.end());
    testing::ChildProcess nodes(argv, dir / "nodes.txt");
    const int rc = nodes.Wait(30s);
    const std::string text = Slurp(dir / "nodes.txt");
    EXPECT_NE(rc, 0) << flags[0] << "\n" << text;
    EXPECT_NE(rc, -1) << flags[0] << ": still running\n" << text;
    EXPECT_NE(text.find(message), std::string::npos) << flags[0] << "\n" << text;
  }
  // --help works and shows an example.
  testing::ChildProcess help({testing::Bin("limbic"), "nodes", "--help"}, dir / "help.txt");
  EXPECT_EQ(help.Wait(10s), 0);
  EXPECT_NE(Slurp(dir / "help.txt").find("limbic nodes"), std::string::npos);
}

// Issue 23: `--bus-path direct|broker` beside $LIMBIC_BUS_PATH, on every service (RunServiceMain) and the `limbic`
// tool; a misspelt value is a usage error (exit 2) naming the flag and the value; --help shows it.
TEST(BusPathFlag, ServicesAndTheToolTakeItAndRefuseAMisspeltOne) {
  testing::TempDir dir;
  const auto run = [&](std::vector<std::string> argv) {
    testing::ChildProcess child(argv, dir / "out.txt");
    const int rc = child.Wait(20s);
    return std::make_pair(rc, Slurp(dir / "out.txt"));
  };
  auto [rc, text] = run({testing::Bin("limbic-toy"), "talker", "--bus-path", "drect", "--check"});
  EXPECT_EQ(rc, 2) << text;
  EXPECT_NE(text.find("--bus-path='drect': expected broker or direct"), std::string::npos) << text;
  std::tie(rc, text) = run({testing::Bin("limbic-toy"), "talker", "--bus-path=direct", "--check"});
  EXPECT_EQ(rc, 0) << text;
  std::tie(rc, text) = run({testing::Bin("limbic-toy"), "talker", "--help"});
  EXPECT_EQ(rc, 0) << text;
  EXPECT_NE(text.find("--bus-path PATH"), std::string::npos) << text;
  std::tie(rc, text) = run({testing::Bin("limbic"), "nodes", "--bus-path", "drect", "--bus", "ipc://" + dir / "x"});
  EXPECT_EQ(rc, 2) << text;
  EXPECT_NE(text.find("--bus-path='drect'"), std::string::npos) << text;
  std::tie(rc, text) = run({testing::Bin("limbic"), "nodes", "--bus", "ipc://" + dir / "x", "--bus-path"});
  EXPECT_EQ(rc, 2) << text;
  EXPECT_NE(text.find("--bus-path needs a value"), std::string::npos) << text;
  std::tie(rc, text) = run({testing::Bin("limbic"), "--help"});
  EXPECT_NE(text.find("--bus-path direct|broker"), std::string::npos) << text;
}

// Issue 23 item 2: $LIMBIC_SHM (which `limbic launch` sets) is read strictly: a misspelt value is a usage error naming
// what it accepts, not a quiet "off"; --shm-only is a flag of every service.
TEST(ShmSetting, AMisspeltLimbicShmIsRefusedWithExit2) {
  testing::TempDir dir;
  const auto run = [&](const char* value, std::vector<std::string> flags) {
    testing::ScopedEnvironment shm("LIMBIC_SHM", value);
    std::vector<std::string> argv = {testing::Bin("limbic-toy"), "talker"};
    argv.insert(argv.end(), flags.begin(), flags.end());
    testing::ChildProcess child(argv, dir / "out.txt");
    const int rc = child.Wait(20s);
    return std::make_pair(rc, Slurp(dir / "out.txt"));
  };
  auto [rc, text] = run("yes", {"--check"});
  EXPECT_EQ(rc, 2) << text;
  EXPECT_NE(text.find("$LIMBIC_SHM: 'yes' is not a shared-memory setting"), std::string::npos) << text;
  EXPECT_NE(text.find("only"), std::string::npos) << "names the accepted values: " << text;
  for (const char* good : {"0", "1", "only", "true", "false"}) {
    std::tie(rc, text) = run(good, {"--check"});
    EXPECT_EQ(rc, 0) << good << ": " << text;
  }
  std::tie(rc, text) = run("", {"--shm-only", "--check"});
  EXPECT_EQ(rc, 0) << text;
  std::tie(rc, text) = run("", {"--help"});
  EXPECT_NE(text.find("--shm-only"), std::string::npos) << text;
}

// Every service's common flags: a value that is not a finite number, an integer out of range or a choice not offered
// is a usage error (exit 2) naming the flag — also under --check, which says what a start would (`--period nan`
// once passed as a valid period).
TEST(ServiceFlags, BadNumbersAndChoicesAreRefusedWithExit2) {
  testing::TempDir dir;
  const std::pair<std::vector<std::string>, std::string> cases[] = {
      {{"--period", "nan"}, "--period needs a finite number, got 'nan'"},
      {{"--period", "0.1s"}, "--period needs a finite number, got '0.1s'"},
      {{"--period", "0"}, "--period must be a positive number of seconds"},
      {{"--speedup", "-2"}, "--speedup must be a positive number"},
      {{"--mode", "fast"}, "--mode must be realtime or lockstep, not 'fast'"},
      {{"--realtime-ticks", "sometimes"}, "--realtime-ticks must be input or timer, not 'sometimes'"},
      {{"--max-ticks", "-5"}, "--max-ticks"},
      {{"--stop-quorum", "0"}, "--stop-quorum"},
  };
  for (const auto& [flags, message] : cases) {
    std::vector<std::string> argv = {testing::Bin("limbic-toy"), "talker"};
    argv.insert(argv.end(), flags.begin(), flags.end());
    argv.push_back("--check");
    testing::ChildProcess child(argv, dir / "out.txt");
    const int rc = child.Wait(20s);
    const std::string text = Slurp(dir / "out.txt");
    EXPECT_EQ(rc, 2) << flags[0] << " " << flags[1] << "\n" << text;
    EXPECT_NE(text.find(message), std::string::npos) << flags[0] << " " << flags[1] << "\n" << text;
  }
}

// And it does what it says: a talker started with --bus-path direct publishes straight to its subscriber (this
// test's node, which follows the broker's directory, connects to the talker's own socket). Its counter as odometry:
// a direct node sends only state directly (docs/protocol.md §13, "First messages").
TEST(BusPathFlag, AServiceStartedWithDirectPublishesDirectly) {
  testing::TempDir dir;
  const std::string bus = "ipc://" + dir / "bus";
  testing::ChildProcess broker({testing::Bin("limbic-bus"), "--bus", bus}, dir / "bus.log");
  testing::ChildProcess talker({testing::Bin("limbic-toy"), "talker", "--bus", bus, "--robot", "r1", "--bus-path",
                                "direct", "--set", "state=true"},
                               dir / "talker.log");
  zmq::context_t context;
  bus::Node node(context, bus, {.name = "listener", .data_path = bus::DataPath::kBroker});
  int heard = 0;
  node.SubscribeAny("chatter", [&](const bus::RawMessage&) { ++heard; });
  const bool direct = testing::WaitFor(
      [&] {
        node.Poll(50ms);
        return heard > 3 && node.direct_links().endpoints() == 1;
      },
      20s);
  EXPECT_TRUE(direct) << heard << " heard, " << node.direct_links().endpoints() << " direct link(s)\n"
                      << Slurp(dir / "talker.log");
  EXPECT_NE(Slurp(dir / "talker.log").find("publishes directly on ipc://"), std::string::npos)
      << Slurp(dir / "talker.log");
}

}  // namespace
}  // namespace limbic
