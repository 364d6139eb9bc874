// Introspection as ROS users expect it (issue 22 item 5), each against a private bus with real service
// processes: `limbic topic info` (type, publishers with service, host and pid, subscribers, drops by
// reason; a publisher that dies leaves the list and the topic goes stale in `limbic topics`),
// `limbic echo --timeout` waiting for a topic nobody has published on yet, `limbic interface show`,
// and `limbic param list|dump|load` (refused values reported per parameter, bad YAML, unknown service).
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <fstream>
#include <sstream>
#include <thread>

#include "common/bus/bus.hpp"
#include "tests/testing/process.hpp"

namespace limbic {
namespace {

using namespace std::chrono_literals;

std::string Slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

struct Result {
  int rc = -1;
  std::string out;  // stdout and stderr
};

// Runs `limbic ARGS...` to completion (bounded) in `dir`'s log.
Result Limbic(const testing::TempDir& dir, std::vector<std::string> args, std::chrono::seconds limit = 20s) {
  static int n = 0;
  const std::string log = dir / ("limbic-" + std::to_string(++n) + ".txt");
  args.insert(args.begin(), testing::Bin("limbic"));
  testing::ChildProcess child(args, log);
  Result r;
  r.rc = child.Wait(limit);
  r.out = Slurp(log);
  return r;
}

std::string HostName() {
  char buffer[256] = {};
  gethostname(buffer, sizeof(buffer) - 1);
  return buffer;
}

// On the direct path (the default; not the ctest entry introspect_test_broker_path) the talker publishes its counter
// as odometry, a state type: a direct node sends only state directly and events such as the talker's default velocity
// command through the broker (docs/protocol.md section 13, "First messages"), which would leave the direct publisher
// untested.
bool DirectPath() { return bus::DefaultDataPath() == bus::DataPath::kDirect; }
const char* ChatterType() { return DirectPath() ? "Odometry" : "VelocityCommand"; }

std::vector<std::string> Toy(const std::string& service, const std::string& bus, bool state) {
  std::vector<std::string> argv{testing::Bin("limbic-toy"), service, "--bus", bus, "--robot", "r1"};
  if (state) argv.insert(argv.end(), {"--set", "state=true"});
  return argv;
}

// A broker, the toy talker (publishes `chatter` every tick; live parameter `count`) and the toy
// listener (subscribes to it), as separate processes; `state`: the counter as odometry, not a velocity command.
class Stack {
 public:
  explicit Stack(const testing::TempDir& dir, bool listener = true, bool state = DirectPath())
      : bus_("ipc://" + dir / "bus"),
        broker_({testing::Bin("limbic-bus"), "--bus", bus_}, dir / "bus.log"),
        talker_(std::make_unique<testing::ChildProcess>(Toy("talker", bus_, state), dir / "talker.log")) {
    if (listener) {
      listener_ = std::make_unique<testing::ChildProcess>(Toy("listener", bus_, state), dir / "listener.log");
    }
    // Both heartbeat once a second; the broker's stats come once a second too.
    std::this_thread::sleep_for(3s);
  }
  const std::string& bus() const { return bus_; }
  testing::ChildProcess& talker() { return *talker_; }

 private:
  std::string bus_;
  testing::ChildProcess broker_;
  std::unique_ptr<testing::ChildProcess> talker_;
  std::unique_ptr<testing::ChildProcess> listener_;
};

TEST(LimbicTopicInfo, TypePublishersSubscribersHostsAndDropsThenStaleWhenThePublisherDies) {
  testing::TempDir dir;
  Stack stack(dir);
  // A NavGoal on the talker's topic: `limbic pub` refuses to send it (it knows the topic's type); sent
  // raw, the broker drops it as wrong_type (the topic carries VelocityCommand, or Odometry on the direct path).
  const Result wrong = Limbic(dir, {"pub", "chatter", R"({"active": true, "goal": {"x": 1, "y": 2}})", "--type",
                                    "NavGoal", "--bus", stack.bus()});
  EXPECT_EQ(wrong.rc, 2) << wrong.out;
  {
    zmq::context_t context;
    // Through the broker on either data path: the drop counted here is the broker's check (on the direct path a
    // raw send would go straight to the listener, which drops and counts it in its own `in` counts).
    bus::Node node(context, stack.bus(), {.name = "hostile", .data_path = bus::DataPath::kBroker});
    std::this_thread::sleep_for(1s);  // the publisher's connection comes up
    flatbuffers::FlatBufferBuilder fbb;
    const msg::Vec2 goal(1, 2);
    fbb.Finish(msg::CreateNavGoal(fbb, msg::CreateHeaderDirect(fbb, 1, -1, 1, "hostile"), true, &goal),
               messages::Traits<msg::NavGoal>::kIdentifier);
    for (int i = 0; i < 3; ++i) node.SendRaw("chatter", fbb.GetBufferPointer(), fbb.GetSize());
    std::this_thread::sleep_for(500ms);
  }

  const Result info = Limbic(dir, {"topic", "info", "chatter", "--bus", stack.bus()});
  ASSERT_EQ(info.rc, 0) << info.out;
  EXPECT_NE(info.out.find(std::string("type:         ") + ChatterType()), std::string::npos) << info.out;
  // The publisher by its header source, with the host and pid its heartbeat gives.
  const auto at = info.out.find("publishers:   1");
  ASSERT_NE(at, std::string::npos) << info.out;
  const std::string where = "host " + HostName() + ", pid " + std::to_string(stack.talker().pid());
  EXPECT_NE(info.out.find(where, at), std::string::npos) << "expected '" << where << "'\n" << info.out;
  // Subscribers: the broker counts connections, the listener's heartbeat says it receives the topic.
  EXPECT_NE(info.out.find("r1/listener"), std::string::npos) << info.out;
  EXPECT_EQ(info.out.find("subscribers:  0 connection"), std::string::npos) << info.out;
  EXPECT_NE(info.out.find("(cumulative)"), std::string::npos) << info.out;
  const auto wrong_at = info.out.find("wrong_type ");
  ASSERT_NE(wrong_at, std::string::npos) << info.out;
  EXPECT_GE(std::stoi(info.out.substr(wrong_at + 11)), 1) << info.out;
  EXPECT_NE(info.out.find("invalid 0"), std::string::npos) << info.out;
  // A rate near the talker's (10 Hz by default in realtime): not zero.
  EXPECT_EQ(info.out.find("rate:         0.0 Hz"), std::string::npos) << info.out;

  // Unknown topic: exit 1 with a hint; a bad --wait is a usage error.
  const Result unknown = Limbic(dir, {"topic", "info", "chatte", "--bus", stack.bus()});
  EXPECT_EQ(unknown.rc, 1) << unknown.out;
  EXPECT_NE(unknown.out.find("unknown topic 'chatte'"), std::string::npos) << unknown.out;
  EXPECT_NE(unknown.out.find("did you mean chatter"), std::string::npos) << unknown.out;
  EXPECT_EQ(Limbic(dir, {"topic", "info", "chatter", "--wait", "nan", "--bus", stack.bus()}).rc, 2);
  EXPECT_EQ(Limbic(dir, {"topic", "info"}).rc, 2);

  // The publisher dies: within the broker's publisher_idle_s (10 s) it leaves the list, and the topic
  // is marked stale in `limbic topics` (no message for 5 s).
  stack.talker().Signal(SIGKILL);
  stack.talker().Wait(5s);
  std::string last;
  const bool gone = testing::WaitFor(
      [&] {
        std::this_thread::sleep_for(1s);
        last = Limbic(dir, {"topic", "info", "chatter", "--wait", "0.5", "--bus", stack.bus()}).out;
        return last.find("publishers:   0") != std::string::npos;
      },
      20s);
  EXPECT_TRUE(gone) << last;
  EXPECT_NE(last.find("STALE"), std::string::npos) << last;
  const Result topics = Limbic(dir, {"topics", "--bus", stack.bus()});
  ASSERT_EQ(topics.rc, 0) << topics.out;
  EXPECT_NE(topics.out.find("DROPS(TOTAL)"), std::string::npos) << topics.out;
  std::istringstream lines(topics.out);
  std::string line;
  bool stale = false;
  while (std::getline(lines, line)) {
    if (line.rfind("chatter ", 0) == 0) stale = line.find("STALE") != std::string::npos;
  }
  EXPECT_TRUE(stale) << topics.out;
}

// On the direct path the broker never sees the data: what a direct publisher sends that is bad is dropped by the
// receiving service, whose heartbeat (runtime::Host's) carries its counts by reason; the broker adds them to the
// topic's bus/stats row and `limbic topics` shows them (docs/protocol.md §13, "Counts"). On either path of the
// talker: with it on the broker path the row is the one merged with what the broker carried.
TEST(LimbicTopics, ShowsTheDropsADirectTopicsReceiverCounted) {
  testing::TempDir dir;
  Stack stack(dir, true, false);  // chatter a velocity command, the type the hostile node offers
  zmq::context_t context;
  // A command topic, sent direct all the same (NodeOptions::direct_events): only its receivers see it.
  bus::Node hostile(context, stack.bus(),
                    {.name = "hostile", .data_path = bus::DataPath::kDirect, .direct_events = true});
  hostile.Advertise<msg::VelocityCommand>("chatter");  // offered at its own socket: the listener connects
  // Straight to the listener: one that fails verification, a NavGoal on a VelocityCommand topic, a NaN command.
  flatbuffers::FlatBufferBuilder corrupt_fbb;
  corrupt_fbb.Finish(
      msg::CreateVelocityCommand(corrupt_fbb, msg::CreateHeaderDirect(corrupt_fbb, 1, -1, 1, "hostile"), 0.5, 0.0),
      messages::Traits<msg::VelocityCommand>::kIdentifier);
  std::vector<uint8_t> corrupt(corrupt_fbb.GetBufferPointer(), corrupt_fbb.GetBufferPointer() + corrupt_fbb.GetSize());
  corrupt[0] = 0xff;  // root offset far outside the buffer
  flatbuffers::FlatBufferBuilder goal_fbb;
  const msg::Vec2 goal(1, 2);
  goal_fbb.Finish(msg::CreateNavGoal(goal_fbb, msg::CreateHeaderDirect(goal_fbb, 1, -1, 1, "hostile"), true, &goal),
                  messages::Traits<msg::NavGoal>::kIdentifier);
  flatbuffers::FlatBufferBuilder nan_fbb;
  nan_fbb.Finish(
      msg::CreateVelocityCommand(nan_fbb, msg::CreateHeaderDirect(nan_fbb, 1, -1, 1, "hostile"), std::nan(""), 0.0),
      messages::Traits<msg::VelocityCommand>::kIdentifier);
  std::string out, line;
  const bool shown = testing::WaitFor(
      [&] {
        // Sent for a while, polled so the node keeps its link with the broker: the listener connects only once the
        // broker has told it where, so the first ones may reach nobody.
        for (int i = 0; i < 20; ++i) {
          hostile.SendRaw("chatter", corrupt.data(), corrupt.size());
          hostile.SendRaw("chatter", goal_fbb.GetBufferPointer(), goal_fbb.GetSize());
          hostile.SendRaw("chatter", nan_fbb.GetBufferPointer(), nan_fbb.GetSize());
          hostile.Poll(50ms);
        }
        out = Limbic(dir, {"topics", "--bus", stack.bus()}).out;
        std::istringstream lines(out);
        while (std::getline(lines, line)) {
          if (line.rfind("chatter ", 0) == 0) break;
        }
        return line.rfind("chatter ", 0) == 0 && line.find("malformed ") != std::string::npos &&
               line.find("wrong_type ") != std::string::npos && line.find("invalid ") != std::string::npos;
      },
      60s);
  EXPECT_TRUE(shown) << out;
  // The broker forwarded none of them (a direct publisher's data does not cross it): the counts are the listener's.
  EXPECT_EQ(line.find("oversize"), std::string::npos) << line;
}

TEST(LimbicEcho, WaitsForTheFirstMessageOnATopicWithNoTrafficYet) {
  testing::TempDir dir;
  const std::string bus = "ipc://" + dir / "bus";
  testing::ChildProcess broker({testing::Bin("limbic-bus"), "--bus", bus}, dir / "bus.log");
  std::this_thread::sleep_for(1500ms);
  // Nothing on it and no timeout: an error at once; a timeout with nothing coming: exit 1 after it.
  const Result at_once = Limbic(dir, {"echo", "late/topic", "--count", "1", "--bus", bus});
  EXPECT_EQ(at_once.rc, 1) << at_once.out;
  EXPECT_NE(at_once.out.find("unknown topic"), std::string::npos) << at_once.out;
  const auto t0 = std::chrono::steady_clock::now();
  const Result nothing = Limbic(dir, {"echo", "late/topic", "--count", "1", "--timeout", "1", "--bus", bus});
  EXPECT_EQ(nothing.rc, 1) << nothing.out;
  EXPECT_NE(nothing.out.find("no message on 'late/topic' within 1 s"), std::string::npos) << nothing.out;
  EXPECT_LT(std::chrono::steady_clock::now() - t0, 8s);
  EXPECT_EQ(Limbic(dir, {"echo", "late/topic", "--timeout", "-1", "--bus", bus}).rc, 2);

  // Waiting: the message published 2 s after echo started is printed.
  const std::string log = dir / "echo.txt";
  testing::ChildProcess echo(
      {testing::Bin("limbic"), "echo", "late/topic", "--count", "1", "--timeout", "15", "--compact", "--bus", bus},
      log);
  std::this_thread::sleep_for(2s);
  const Result pub =
      Limbic(dir, {"pub", "late/topic", R"({"v": 0.25, "omega": 0.5})", "--type", "VelocityCommand", "--bus", bus});
  EXPECT_EQ(pub.rc, 0) << pub.out;
  EXPECT_EQ(echo.Wait(15s), 0) << Slurp(log);
  EXPECT_NE(Slurp(log).find("\"omega\": 0.5"), std::string::npos) << Slurp(log);
}

TEST(LimbicInterface, ShowsTheSchemaWithCommentsAndWhatItUses) {
  testing::TempDir dir;
  const Result show = Limbic(dir, {"interface", "show", "NavGoal"});
  ASSERT_EQ(show.rc, 0) << show.out;
  EXPECT_NE(show.out.find("// navigation/nav_goal.fbs  (identifier GOAL)"), std::string::npos) << show.out;
  EXPECT_NE(show.out.find("table NavGoal"), std::string::npos) << show.out;
  EXPECT_NE(show.out.find("// Navigation instruction (latched)"), std::string::npos) << show.out;
  EXPECT_NE(show.out.find("received_at_s: double;    // t_0"), std::string::npos) << show.out;
  // What it uses, from the files it includes.
  EXPECT_NE(show.out.find("table Header"), std::string::npos) << show.out;
  EXPECT_NE(show.out.find("struct Vec2"), std::string::npos) << show.out;
  EXPECT_EQ(
      Limbic(dir, {"interface", "show", "limbic.msg.Heartbeat"}).out.find("enum ServiceState") == std::string::npos,
      false);
  const Result list = Limbic(dir, {"interface", "list"});
  EXPECT_EQ(list.rc, 0);
  EXPECT_NE(list.out.find("AffectState"), std::string::npos) << list.out;

  const Result unknown = Limbic(dir, {"interface", "show", "NoSuchType"});
  EXPECT_EQ(unknown.rc, 1) << unknown.out;
  EXPECT_NE(unknown.out.find("unknown message type 'NoSuchType'"), std::string::npos) << unknown.out;
  EXPECT_EQ(Limbic(dir, {"interface", "show"}).rc, 2);
  // The schema directory is looked up in one place; an override to nowhere says so.
  setenv("LIMBIC_SCHEMA_DIR", (dir / "none").c_str(), 1);
  const Result missing = Limbic(dir, {"interface", "show", "NavGoal"});
  unsetenv("LIMBIC_SCHEMA_DIR");
  EXPECT_EQ(missing.rc, 1) << missing.out;
  EXPECT_NE(missing.out.find("no schema directory"), std::string::npos) << missing.out;
}

TEST(LimbicParam, ListDumpAndLoadWithRefusedValuesReportedPerParameter) {
  testing::TempDir dir;
  Stack stack(dir, /*listener=*/false);
  const Result list = Limbic(dir, {"param", "list", "--bus", stack.bus()});
  ASSERT_EQ(list.rc, 0) << list.out;
  EXPECT_NE(list.out.find("r1/talker:"), std::string::npos) << list.out;
  EXPECT_NE(list.out.find("count"), std::string::npos) << list.out;
  EXPECT_NE(list.out.find("option"), std::string::npos) << list.out;

  const std::string dump_file = dir / "dump.yaml";
  const Result dump = Limbic(dir, {"param", "dump", "--out", dump_file, "--bus", stack.bus()});
  ASSERT_EQ(dump.rc, 0) << dump.out;
  const std::string dumped = Slurp(dump_file);
  EXPECT_NE(dumped.find("r1/talker:\n  count: -1\n"), std::string::npos) << dumped;
  EXPECT_NE(dumped.find("# topic: chatter  (start-up option)"), std::string::npos) << dumped;
  // What was dumped loads back as it is.
  const Result reload = Limbic(dir, {"param", "load", dump_file, "--bus", stack.bus()});
  EXPECT_EQ(reload.rc, 0) << reload.out;
  EXPECT_NE(reload.out.find("1 applied, 0 refused"), std::string::npos) << reload.out;

  // One good value, one invalid (count >= -1), one unknown name, one start-up option: the good one is
  // applied, each other is named with its reason, and the exit status is 1.
  const std::string mixed = dir / "mixed.yaml";
  std::ofstream(mixed) << "r1/talker:\n  count: 40\n  latched: true\n  nope: 3\n"
                       << "r9/ghost:\n  count: 1\n";
  const Result load = Limbic(dir, {"param", "load", mixed, "--bus", stack.bus()});
  EXPECT_EQ(load.rc, 1) << load.out;
  EXPECT_NE(load.out.find("r1/talker: count = 40 (applied)"), std::string::npos) << load.out;
  EXPECT_NE(load.out.find("r1/talker: latched refused:"), std::string::npos) << load.out;
  EXPECT_NE(load.out.find("r1/talker: nope refused:"), std::string::npos) << load.out;
  EXPECT_NE(load.out.find("r9/ghost: no such service"), std::string::npos) << load.out;
  EXPECT_NE(load.out.find("1 applied, 3 refused"), std::string::npos) << load.out;
  const Result get = Limbic(dir, {"param", "get", "r1/talker", "count", "--bus", stack.bus()});
  EXPECT_NE(get.out.find("count = 40"), std::string::npos) << get.out;
  const std::string invalid = dir / "invalid.yaml";
  std::ofstream(invalid) << "r1/talker:\n  count: -7\n";
  const Result refused = Limbic(dir, {"param", "load", invalid, "--bus", stack.bus()});
  EXPECT_EQ(refused.rc, 1) << refused.out;
  EXPECT_NE(refused.out.find("count refused"), std::string::npos) << refused.out;

  // Files that are not such YAML: exit 2, nothing sent.
  const std::string bad = dir / "bad.yaml";
  std::ofstream(bad) << "r1/talker: {count: [1,\n";
  const Result bad_yaml = Limbic(dir, {"param", "load", bad, "--bus", stack.bus()});
  EXPECT_EQ(bad_yaml.rc, 2) << bad_yaml.out;
  EXPECT_NE(bad_yaml.out.find("bad YAML at line"), std::string::npos) << bad_yaml.out;
  const std::string scalar = dir / "scalar.yaml";
  std::ofstream(scalar) << "just a string\n";
  EXPECT_EQ(Limbic(dir, {"param", "load", scalar, "--bus", stack.bus()}).rc, 2);
  EXPECT_EQ(Limbic(dir, {"param", "load", dir / "missing.yaml", "--bus", stack.bus()}).rc, 2);
  EXPECT_EQ(Limbic(dir, {"param", "dump", "r9/ghost", "--bus", stack.bus()}).rc, 1);
  EXPECT_EQ(Limbic(dir, {"param", "list", "--timeout", "inf", "--bus", stack.bus()}).rc, 2);
}

}  // namespace
}  // namespace limbic
