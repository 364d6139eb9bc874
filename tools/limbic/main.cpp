// limbic: the command line. Built-in subcommands talk to the bus; any other subcommand NAME runs the
// executable limbic-NAME beside this one (git-style), e.g. `limbic sim render` -> `limbic-sim render`.
#include <unistd.h>

#include <filesystem>
#include <iostream>

#include "common/bus/bus.hpp"
#include "common/flags/flags.hpp"
#include "tools/limbic/commands.hpp"

namespace {

const char* kUsage = R"(usage: limbic COMMAND [options]     (limbic COMMAND --help for details)

Running things:
  demo                  start the whole stack with a robot travelling back and forth
  launch FILE           start the processes of a deploy file, restart crashed ones, stop all on Ctrl-C
  experiment ...        list, run, merge and report reproducible experiments
  recruit ...           affective multi-robot recruitment: experiments, one simulation, live demo, crosscheck
  crowd ...             crowds of b_nav robots coordinated by visible emotions: experiments, one run
  explore ...           heterogeneous team exploration (task manager, local environments): experiments
  sim list | render     environment sets and pictures of generated environments

Looking at a running bus:
  topics                topics with their type, rate, bandwidth and drops by reason (stale ones marked)
  topic info TOPIC      one topic: type, rate, publishers and subscribers with service and host, drops
  nodes                 running services: health (ok, degraded, failing), rate, restarts, host, pid, last error
  echo TOPIC            print messages as JSON
  hz TOPIC              measure a topic's rate
  pub TOPIC JSON        publish a message
  param get|set ...     read or change a live parameter of a service
  param list|dump|load  every service's settings; live parameters to and from YAML
  interface list|show   message types; one type's schema with its comments
  inject ...            inject a fault

Recordings (MCAP):
  record ...            write bus traffic to an MCAP file
  play FILE             publish a recording onto the bus
  bag info|echo FILE    what a recording holds; its messages as JSON

Security:
  keys generate ...     make CURVE key pairs and the bus/service key files

The bus address comes from --bus or $LIMBIC_BUS (default ipc:///tmp/limbic/bus).
--bus-path direct|broker, with any command, sets $LIMBIC_BUS_PATH for it and every process it starts (`launch`,
`demo`): their publications go straight to subscribers or through the broker (docs/protocol.md, "Direct
delivery"; default: $LIMBIC_BUS_PATH, else direct). The tools' own one-shot publications (`pub`, `play`, `inject`, `param`) always go through the broker.
)";

std::string SelfDir() {
  std::error_code ec;
  auto exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  return ec ? "." : exe.parent_path().string();
}

}  // namespace

int main(int argc, char** argv) {
  using namespace limbic::cli;
  if (argc < 2 || std::string(argv[1]) == "--help" || std::string(argv[1]) == "-h" || std::string(argv[1]) == "help") {
    std::cout << kUsage;
    return argc < 2 ? 2 : 0;
  }
  const std::string command = argv[1];
  // --bus-path applies to every command (and to what `launch` and `demo` start): taken out here, set as
  // $LIMBIC_BUS_PATH. A misspelt value is a usage error.
  std::vector<std::string> rest;
  for (int i = 2; i < argc; ++i) {
    const std::string arg = argv[i];
    try {
      if (arg == "--bus-path") {
        if (i + 1 >= argc) throw std::invalid_argument("--bus-path needs a value (direct or broker)");
        limbic::bus::UseDataPathForProcess(argv[++i]);
      } else if (arg.rfind("--bus-path=", 0) == 0) {
        limbic::bus::UseDataPathForProcess(arg.substr(11));
      } else {
        rest.push_back(arg);
      }
    } catch (const std::invalid_argument& e) {
      std::cerr << "limbic " << command << ": " << e.what() << "\n";
      return 2;
    }
  }
  const Args args(rest.begin(), rest.end());
  try {
    if (command == "topics") return TopicsCommand(args);
    if (command == "topic") return TopicCommand(args);
    if (command == "interface") return InterfaceCommand(args);
    if (command == "nodes") return NodesCommand(args);
    if (command == "echo") return EchoCommand(args);
    if (command == "hz") return HzCommand(args);
    if (command == "pub") return PubCommand(args);
    if (command == "param") return ParamCommand(args);
    if (command == "launch") return LaunchCommand(args);
    if (command == "inject") return InjectCommand(args);
    if (command == "keys") return KeysCommand(args);
    if (command == "record") return RecordCommand(args);
    if (command == "play") return PlayCommand(args);
    if (command == "bag") return BagCommand(args);
  } catch (const limbic::flags::FlagValueError& e) {
    std::cerr << "limbic " << command << ": " << e.what() << "\n";
    return 2;  // a usage error, as for an unknown flag
  } catch (const std::exception& e) {
    std::cerr << "limbic " << command << ": " << e.what() << "\n";
    return 1;
  }
  const std::string external = SelfDir() + "/limbic-" + command;
  if (access(external.c_str(), X_OK) == 0) {
    std::vector<char*> exec_args{const_cast<char*>(external.c_str())};
    for (const auto& arg : rest) exec_args.push_back(const_cast<char*>(arg.c_str()));
    exec_args.push_back(nullptr);
    execv(external.c_str(), exec_args.data());
    std::cerr << "limbic: cannot run " << external << "\n";
    return 1;
  }
  std::cerr << "limbic: unknown command '" << command << "' (see limbic --help)\n";
  return 2;
}
