// Help and docs that work (issue 22 item 7): every program in the build's bin directory and every
// `limbic` subcommand answers --help with exit 0; every example in every --help text, every command in
// the README's ```sh blocks and every `limbic ...` command in the README's tables is run and must
// succeed — those that need a bus against a private `limbic demo` — unless it is listed below in
// kNotRun with the reason (long runs, the whole demo, build commands). An example that is neither run
// nor listed fails the test, so a new example is tested from the day it is written. Commands that
// would run until Ctrl-C or for minutes are bounded by the rewrites in kBounded (listed, each once).
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <thread>

#include "common/regex/regex.hpp"
#include "tests/testing/process.hpp"

namespace limbic {
namespace {

using namespace std::chrono_literals;
namespace fs = std::filesystem;

// Examples not run, each with why. Matched by prefix of the command as written.
const std::vector<std::pair<std::string, std::string>> kNotRun = {
    {"tools/dev ", "installs packages and builds: what CI itself does"},
    {"cmake ", "a build: what CI itself does"},
    {"tools/setup-debian.sh ", "installs Debian packages (the transport peers' middleware; CI installs what it needs)"},
    {"sudo ip route ", "changes the machine's routing (LCM's multicast through lo)"},
    {"build/bench/transport_peers ", "a benchmark of minutes in fresh processes (peers_exchange_test tests its parts)"},
    {"TSAN_OPTIONS=", "a sanitizer build's test run (CI runs it)"},
    {"export ", "sets the shell's environment only"},
    {"python3 ", "the Python client against the demo: python_client_live_test runs it"},
    {"limbic demo",
     "the whole stack in realtime until Ctrl-C or for minutes; this test starts one demo itself "
     "(--duration, --bus, --metrics) and supervision_test and the system tests start others"},
    {"limbic launch ", "starts processes until Ctrl-C (launch_watchdog_test, nodes_test)"},
    {"limbic experiment run ", "minutes of simulation (experiment tests run tiny definitions)"},
    {"limbic experiment report ", "needs the results folder of a run above"},
    {"limbic recruit experiment run", "842 simulations (~10 s on 2 cores; recruit tests run them)"},
    {"limbic recruit demo", "live radio and robots until Ctrl-C (recruit_live_test)"},
    {"limbic recruit crosscheck", "the 13-robot live cell, minutes (recruit_live_test)"},
    {"limbic play ", "publishes onto the demo's bus; record_play_test replays recordings"},
    {"limbic inject ", "faults on the shared demo would fail the examples after it (fault tests cover them)"},
    {"limbic-bus ", "a broker until Ctrl-C (bus_process_test, bind_test start it)"},
    {"limbic laser experiment run", "minutes of laser episodes (the laser tests run small ones)"},
    {"limbic laser evolve laser_e4_evolution",
     "a generation is 10,000 episodes, minutes (laser_evolve_test evolves small definitions)"},
    {"limbic crowd experiment run crowd_antipodal", "240 runs, minutes (crowd_experiment_test runs crowd_smoke)"},
    {"limbic explore experiment run explore_teams",
     "40 team runs, ~2 min of CPU (explore_experiment_test runs the smoke definition twice)"},
};

// Rewrites that bound a command running until Ctrl-C or for long, or keep what it writes in the test's
// directory (each: the text replaced, and by what).
const std::vector<std::pair<std::string, std::string>> kBounded = {
    {"--duration 60", "--duration 3"},
    {"--duration 30", "--duration 3"},
    {"--out /etc/limbic/keys", "--out keys"},
};
// Commands that run until Ctrl-C unless given a duration: bounded with this flag when they have none.
const std::vector<std::pair<std::string, std::string>> kUntilInterrupted = {
    {"limbic hz ", " --duration 2"},
    {"limbic record ", " --duration 3"},
};

std::string Slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string Trim(std::string s) {
  s.erase(0, s.find_first_not_of(" \t"));
  s.erase(s.find_last_not_of(" \t") + 1);
  return s;
}

// The command without its trailing `# comment` (a '#' after a space, outside quotes).
std::string WithoutComment(const std::string& line) {
  char quote = 0;
  for (size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quote) {
      if (c == quote) quote = 0;
    } else if (c == '\'' || c == '"') {
      quote = c;
    } else if (c == '#' && (i == 0 || line[i - 1] == ' ')) {
      return Trim(line.substr(0, i));
    }
  }
  return Trim(line);
}

struct ShellRun {
  int rc = -1;
  std::string out;
};

// A help text may not send its reader to a file outside the repository, nor to a section of a document
// that is not in it (docs/references.md says what such citations mean, for the code's comments).
void ExpectSelfContained(const std::string& help, const std::string& command) {
  EXPECT_EQ(help.find("../shared"), std::string::npos) << command << " --help points outside the repository";
  EXPECT_EQ(help.find("\u00a7"), std::string::npos) << command << " --help cites a section (§) of a document the "
                                                    << "repository does not hold:\n"
                                                    << help;
}

// `command` through /bin/sh in `cwd`, with the build's programs first on PATH and `env` set.
ShellRun Shell(const std::string& command, const std::string& cwd, const std::string& env, const std::string& log,
               std::chrono::seconds limit = 30s) {
  const std::string script =
      "cd '" + cwd + "' && export PATH='" + testing::BinDir() + "':\"$PATH\" " + env + " && exec " + command;
  testing::ChildProcess child({"/bin/sh", "-c", script}, log);
  ShellRun r;
  r.rc = child.Wait(limit);
  r.out = Slurp(log);
  return r;
}

// Examples of a --help text: the indented lines after a line ending in "example:" or "examples:".
std::vector<std::string> HelpExamples(const std::string& help) {
  std::vector<std::string> examples;
  std::istringstream in(help);
  std::string line;
  bool in_block = false;
  static const regex::Regex heading(R"((^|\s)[Ee]xamples?:\s*$)");
  while (std::getline(in, line)) {
    if (heading.Search(line)) {
      in_block = true;
      continue;
    }
    if (in_block) {
      if (line.empty() || (line[0] != ' ' && line[0] != '\t')) {
        in_block = false;
        continue;
      }
      const std::string command = WithoutComment(line);
      if (!command.empty()) examples.push_back(command);
    }
  }
  return examples;
}

// Commands of the README: every line of its ```sh blocks, and every `limbic ...` in backticks in a table row.
std::vector<std::string> ReadmeCommands(const std::string& readme) {
  std::vector<std::string> commands;
  std::istringstream in(readme);
  std::string line;
  bool in_sh = false;
  while (std::getline(in, line)) {
    if (line.rfind("```", 0) == 0) {
      in_sh = !in_sh && line == "```sh";
      continue;
    }
    if (in_sh) {
      const std::string command = WithoutComment(line);
      if (!command.empty()) commands.push_back(command);
    } else if (line.rfind("| `limbic ", 0) == 0) {
      // A table row `| \`limbic topics\` | ...`: its commands in the first cell (one or two, " / ").
      const std::string cell = line.substr(2, line.find(" | ", 2) - 2);
      static const regex::Regex code("`(limbic [^`]*)`");
      for (const auto& m : code.SearchAll(cell)) commands.push_back(m[1]);
    }
  }
  return commands;
}

const std::string* NotRunReason(const std::string& command) {
  for (const auto& [prefix, reason] : kNotRun) {
    if (command.rfind(prefix, 0) == 0) return &reason;
  }
  return nullptr;
}

std::string Bounded(std::string command) {
  // What an example writes under /tmp lands in the test's own tmp/ (cwd): a run never sees an earlier run's
  // results (an evolution resumed, a shard already collated) and leaves nothing behind.
  for (size_t at = command.find(" /tmp/"); at != std::string::npos; at = command.find(" /tmp/", at)) {
    command.replace(at, 6, " tmp/");
  }
  for (const auto& [from, to] : kBounded) {
    const auto at = command.find(from);
    if (at != std::string::npos) command.replace(at, from.size(), to);
  }
  for (const auto& [prefix, flag] : kUntilInterrupted) {
    if (command.rfind(prefix, 0) == 0 && command.find("--duration") == std::string::npos) command += flag;
  }
  return command;
}

// Files an example names (by extension), and the folder under tmp/ it writes or reads: examples that share one
// run in order (a recording, then `bag info` of it; an evolution, then an episode with its network; shards, then
// their collation); others run side by side.
std::set<std::string> FilesOf(const std::string& command) {
  static const regex::Regex file(R"([^\s'"]+\.(mcap|yaml|svg|txt|csv))");
  static const regex::Regex tmp_folder(R"((^|\s)(tmp/[A-Za-z0-9_.-]+))");
  std::set<std::string> files;
  for (const auto& m : file.SearchAll(command)) files.insert(m[0]);
  for (const auto& m : tmp_folder.SearchAll(command)) files.insert(m[2]);
  return files;
}

std::vector<std::string> Programs() {
  std::vector<std::string> names;
  for (const auto& entry : fs::directory_iterator(testing::BinDir())) {
    const std::string name = entry.path().filename().string();
    if (name.rfind("limbic", 0) == 0 && access(entry.path().c_str(), X_OK) == 0) names.push_back(name);
  }
  std::sort(names.begin(), names.end());
  return names;
}

// The subcommands `limbic --help` lists ("  NAME ..." lines), and the nested ones their helps list.
std::vector<std::vector<std::string>> Subcommands(const std::string& limbic_help) {
  std::vector<std::vector<std::string>> commands;
  std::istringstream in(limbic_help);
  std::string line;
  static const regex::Regex entry(R"(^  ([a-z]+)[ |])");
  while (std::getline(in, line)) {
    if (const auto m = entry.Search(line)) commands.push_back({(*m)[1]});
  }
  for (const auto& nested : std::vector<std::vector<std::string>>{{"experiment", "list"},
                                                                  {"experiment", "run"},
                                                                  {"experiment", "merge"},
                                                                  {"experiment", "report"},
                                                                  {"sim", "render"},
                                                                  {"sim", "list"},
                                                                  {"bag", "info"},
                                                                  {"bag", "echo"},
                                                                  {"param", "list"},
                                                                  {"topic", "info"},
                                                                  {"interface", "show"}}) {
    commands.push_back(nested);
  }
  return commands;
}

TEST(HelpAndExamples, EveryHelpAnswersAndEveryExampleRunsOrIsListedWithAReason) {
  testing::TempDir dir;
  // Examples name files of the source tree by relative paths (services/hwio/config/...): run them in a
  // directory that has those, and where what they write lands in the temporary directory.
  const fs::path work = dir.path() / "work";
  fs::create_directories(work / "tmp");
  for (const char* top : {"services", "deploy", "configs", "experiments", "messages", "docs"}) {
    fs::create_directory_symlink(fs::path(testing::SourceDir()) / top, work / top);
  }
  int logs = 0;
  auto log = [&] { return dir / ("run-" + std::to_string(++logs) + ".txt"); };

  // 1. Every program's --help and every subcommand's.
  std::vector<std::string> examples;
  std::map<std::string, std::string> origin;  // example -> where it was found
  auto add = [&](const std::vector<std::string>& found, const std::string& where) {
    for (const auto& e : found) {
      if (origin.emplace(e, where).second) examples.push_back(e);
    }
  };
  const auto programs = Programs();
  ASSERT_GT(programs.size(), 10u) << "bin directory " << testing::BinDir() << " looks incomplete";
  std::string limbic_help;
  for (const auto& program : programs) {
    const ShellRun r = Shell(program + " --help", work.string(), "", log());
    EXPECT_EQ(r.rc, 0) << program << " --help\n" << r.out;
    EXPECT_GT(r.out.size(), 40u) << program << " --help printed almost nothing:\n" << r.out;
    ExpectSelfContained(r.out, program);
    add(HelpExamples(r.out), program + " --help");
    if (program == "limbic") limbic_help = r.out;
  }
  ASSERT_FALSE(limbic_help.empty());
  for (const auto& sub : Subcommands(limbic_help)) {
    std::string command = "limbic";
    for (const auto& word : sub) command += " " + word;
    const ShellRun r = Shell(command + " --help", work.string(), "", log());
    EXPECT_EQ(r.rc, 0) << command << " --help\n" << r.out;
    EXPECT_EQ(r.out.find("usage: limbic-"), std::string::npos)
        << command << " --help names the program as users do not call it:\n"
        << r.out;
    ExpectSelfContained(r.out, command);
    add(HelpExamples(r.out), command + " --help");
  }
  add(ReadmeCommands(Slurp(testing::SourceDir() + "/README.md")), "README.md");
  // The documents likewise point only inside the repository.
  for (const auto& doc : {std::string("README.md"), std::string("docs/architecture.md"),
                          std::string("docs/protocol.md"), std::string("docs/metrics.md")}) {
    EXPECT_EQ(Slurp(testing::SourceDir() + "/" + doc).find("../shared"), std::string::npos) << doc;
  }
  ASSERT_GT(examples.size(), 20u);

  // 2. Each example: listed as not run (with its reason), or run — those that need the bus against a
  // private demo started here once. Examples run four at a time (most wait on the bus, not the CPU),
  // except that one naming a file waits for the earlier ones naming it.
  const std::string bus = "ipc://" + dir / "bus";
  static const regex::Regex needs_bus(R"(^limbic (topics|topic|nodes|echo|hz|pub|param get|param set|param list|)"
                                      R"(param dump|param load|record|inject))");
  std::vector<std::string> offline, online;
  int listed = 0;
  std::ostringstream report;
  for (const auto& example : examples) {
    if (const std::string* reason = NotRunReason(example)) {
      ++listed;
      report << "  not run: " << example << "  (" << *reason << ")\n";
      continue;
    }
    EXPECT_TRUE(example.rfind("limbic", 0) == 0)
        << "an example that is neither a limbic command nor listed in kNotRun: '" << example << "' (" << origin[example]
        << ")";
    if (example.rfind("limbic", 0) != 0) continue;
    (needs_bus.Search(example) ? online : offline).push_back(example);
  }
  // An offline example that names a file a bus example writes (`bag info run.mcap` after `record --out
  // run.mcap`) runs after it, in the bus phase.
  std::set<std::string> online_files;
  for (const auto& e : online) {
    for (const auto& f : FilesOf(Bounded(e))) online_files.insert(f);
  }
  std::vector<std::string> reordered;
  for (const auto& example : examples) {
    const bool bus_example = std::find(online.begin(), online.end(), example) != online.end();
    const bool follows = std::find(offline.begin(), offline.end(), example) != offline.end() &&
                         std::any_of(online_files.begin(), online_files.end(),
                                     [&](const std::string& f) { return FilesOf(Bounded(example)).count(f) > 0; });
    if (bus_example || follows) reordered.push_back(example);
    if (follows) offline.erase(std::find(offline.begin(), offline.end(), example));
  }
  online = reordered;
  std::unique_ptr<testing::ChildProcess> demo;
  if (!online.empty()) {
    demo = std::make_unique<testing::ChildProcess>(
        std::vector<std::string>{testing::Bin("limbic"), "demo", "--duration", "150", "--bus", bus, "--metrics",
                                 "127.0.0.1:" + std::to_string(testing::FreeTcpPortPair())},
        dir / "demo.txt");
  }
  struct Running {
    std::unique_ptr<testing::ChildProcess> child;
    std::string command, origin, log;
    std::set<std::string> files;
    std::chrono::steady_clock::time_point start;
  };
  int ran = 0;
  auto run_all = [&](const std::vector<std::string>& list, const std::string& env) {
    std::vector<Running> running;
    auto reap = [&](bool all) {
      for (auto it = running.begin(); it != running.end();) {
        const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - it->start).count();
        if (!it->child->Running() || s > 30.0) {
          const int rc = it->child->Wait(100ms);
          report << "  ran (" << s << " s): " << it->command << "\n";
          EXPECT_EQ(rc, 0) << "example from " << it->origin << " failed (exit " << rc << ", -1: still running after "
                           << "30 s): " << it->command << "\n"
                           << Slurp(it->log);
          it = running.erase(it);
        } else {
          ++it;
        }
      }
      if (all && !running.empty()) std::this_thread::sleep_for(50ms);
    };
    for (const auto& example : list) {
      const std::string command = Bounded(example);
      const auto files = FilesOf(command);
      auto blocked = [&] {
        if (running.size() >= 4) return true;
        for (const auto& r : running) {
          for (const auto& f : files) {
            if (r.files.count(f)) return true;
          }
        }
        return false;
      };
      while (blocked()) {
        reap(false);
        std::this_thread::sleep_for(50ms);
      }
      const std::string path = log();
      const std::string script = "cd '" + work.string() + "' && export PATH='" + testing::BinDir() + "':\"$PATH\" " +
                                 env + " && exec " + command;
      running.push_back(
          {std::make_unique<testing::ChildProcess>(std::vector<std::string>{"/bin/sh", "-c", script}, path), command,
           origin[example], path, files, std::chrono::steady_clock::now()});
      ++ran;
    }
    while (!running.empty()) reap(true);
  };
  run_all(offline, "");
  if (demo) {
    // Ready when the affect engine publishes (the last of the pipeline to start); the broker itself may
    // take a moment to come up on a loaded machine.
    const std::string env = "LIMBIC_BUS='" + bus + "'";
    const bool ready = testing::WaitFor(
        [&] { return Shell("limbic echo r1/affect --count 1 --timeout 20", work.string(), env, log(), 30s).rc == 0; },
        60s);
    ASSERT_TRUE(ready) << "the demo did not come up:\n" << Slurp(dir / "demo.txt");
    run_all(online, env);
  }
  std::cout << ran << " examples run, " << listed << " listed as not run:\n" << report.str();
  if (demo) demo->Signal(SIGINT);
  // The list stays honest: every entry still names an example somewhere.
  for (const auto& [prefix, reason] : kNotRun) {
    EXPECT_TRUE(
        std::any_of(examples.begin(), examples.end(), [&](const std::string& e) { return e.rfind(prefix, 0) == 0; }))
        << "kNotRun lists '" << prefix << "', which no help text or README command has any more";
  }
}

}  // namespace
}  // namespace limbic
