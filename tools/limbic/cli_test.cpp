#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <set>

#include "common/config/config.hpp"
#include "tools/limbic/commands.hpp"
#include "tools/limbic/json_codec.hpp"
#include "tools/limbic/launch_file.hpp"
#include "tools/limbic/team_launch.hpp"
#include "tools/limbic/topic_groups.hpp"

namespace limbic::cli {
namespace {

TEST(JsonCodec, RoundTripsAMessageAndFillsTheHeader) {
  JsonCodec codec;
  const auto* type = messages::FindByName("NavGoal");
  ASSERT_NE(type, nullptr);
  const auto bytes = codec.FromJson(*type, R"({"active": true, "goal": {"x": 3.5, "y": -2}, "instruction_id": 4})", 9,
                                    "tester", 77, true);
  ASSERT_TRUE(type->verify(bytes.data(), bytes.size()));
  const auto* goal = flatbuffers::GetRoot<msg::NavGoal>(bytes.data());
  EXPECT_DOUBLE_EQ(goal->goal()->x(), 3.5);
  EXPECT_EQ(goal->instruction_id(), 4);
  EXPECT_EQ(goal->header()->seq(), 9u);
  EXPECT_EQ(goal->header()->source()->str(), "tester");
  EXPECT_TRUE(goal->header()->latched());
  const std::string json = codec.ToJson(*type, bytes.data(), bytes.size(), true);
  EXPECT_NE(json.find("\"instruction_id\": 4"), std::string::npos) << json;
  EXPECT_NE(json.find("\"x\": 3.5"), std::string::npos) << json;
}

// Issue 22 item 5: `limbic echo` prints AffectState's arrays with the names the metrics use.
TEST(JsonCodec, NamesAffectArrayElementsAsTheMetricsDo) {
  JsonCodec codec;
  const auto* type = messages::FindByName("AffectState");
  ASSERT_NE(type, nullptr);
  const auto bytes = codec.FromJson(*type,
                                    R"({"model": "affective", "emotions_global": [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7],
                                        "moods": [0.25, -0.5], "drives": [1, 2, 3, 4, 5, 6],
                                        "stimuli_raw": [1, 2, 3, 4, 5, 6, 7, 8, 9], "emotions_mapped": [1, 2]})",
                                    1, "tester", 1, false);
  for (const bool compact : {true, false}) {
    const std::string json = NameArrayElements(*type, codec.ToJson(*type, bytes.data(), bytes.size(), compact));
    EXPECT_NE(json.find(R"("emotions_global": {"anger": 0.1, "fear": 0.2, "happiness": 0.3, "sadness": 0.4, )"
                        R"("curiosity": 0.5, "surprise": 0.6, "confusion": 0.7})"),
              std::string::npos)
        << json;
    EXPECT_NE(json.find(R"("moods": {"positive": 0.25, "negative": -0.5})"), std::string::npos) << json;
    EXPECT_NE(json.find(R"("exploration": 4.0, "action": 5.0, "introspection": 6.0})"), std::string::npos) << json;
    EXPECT_NE(json.find(R"("danger": 1.0, "stuck": 2.0)"), std::string::npos) << json;
    EXPECT_NE(json.find(R"("error": 9.0})"), std::string::npos) << json;
    // An array of another length than the names keeps its plain form; the text stays JSON-shaped.
    EXPECT_EQ(json.find("\"emotions_mapped\": {"), std::string::npos) << json;
    EXPECT_NE(json.find("\"model\": \"affective\""), std::string::npos) << json;
    EXPECT_EQ(std::count(json.begin(), json.end(), '{'), std::count(json.begin(), json.end(), '}')) << json;
  }
  // Other types are left exactly as they are.
  const auto* goal = messages::FindByName("NavGoal");
  const auto goal_bytes = codec.FromJson(*goal, R"({"active": true})", 1, "tester", 1, false);
  const std::string plain = codec.ToJson(*goal, goal_bytes.data(), goal_bytes.size(), true);
  EXPECT_EQ(NameArrayElements(*goal, plain), plain);
}

TEST(JsonCodec, BadJsonIsAClearError) {
  JsonCodec codec;
  const auto* type = messages::FindByName("NavGoal");
  EXPECT_THROW(codec.FromJson(*type, "not json", 1, "t", 1, false), std::invalid_argument);
  EXPECT_THROW(codec.FromJson(*type, R"({"no_such_field": 1})", 1, "t", 1, false), std::invalid_argument);
  EXPECT_THROW(codec.FromJson(*type, R"({"goal": {"x": "three"}})", 1, "t", 1, false), std::invalid_argument);
}

TEST(LaunchFile, SubstitutesVarsAndValidates) {
  const std::string path = "/tmp/limbic-launch-test.yaml";
  std::ofstream(path) << R"(vars: {bus: "ipc:///tmp/x"}
processes:
  - name: bus
    command: [limbic-bus, --bus, "{bus}"]
    restart: always
  - name: talker
    command: [limbic-toy, talker, --bus, "{bus}"]
)";
  auto file = LoadLaunchFile(path, {{"bus", "ipc:///tmp/y"}});
  ASSERT_EQ(file.processes.size(), 2u);
  EXPECT_EQ(file.processes[0].command[2], "ipc:///tmp/y");
  EXPECT_EQ(file.processes[0].restart, "always");
  EXPECT_EQ(file.processes[1].restart, "on-failure");

  std::ofstream(path) << "processes:\n  - name: a\n    command: [x, '{nope}']\n";
  EXPECT_THROW(LoadLaunchFile(path, {}), config::ConfigError);
  std::ofstream(path) << "processes:\n  - name: a\n    command: [x]\n    restart: sometimes\n";
  EXPECT_THROW(LoadLaunchFile(path, {}), config::ConfigError);
  std::ofstream(path) << "processes:\n  - name: a\n    command: [x]\n    retsart: always\n";
  EXPECT_THROW(LoadLaunchFile(path, {}), config::ConfigError);
  EXPECT_THROW(LoadLaunchFile("/nonexistent.yaml", {}), config::ConfigError);
}

TEST(LaunchFile, OutputWatchdogTopicsAndTimeouts) {
  const std::string path = "/tmp/limbic-launch-outputs-test.yaml";
  std::ofstream(path) << R"(vars: {bus: "ipc:///tmp/x", robot: r1}
watchdog: {bus: "{bus}", output_timeout_s: 3}
processes:
  - name: planner
    command: [limbic-planner]
    outputs: ["{robot}/path", "{robot}/plan_status"]
  - name: controller
    command: [limbic-controller]
    outputs: ["{robot}/cmd_vel"]
    output_timeout_s: 0.5
  - name: metrics
    command: [limbic-metrics]
)";
  auto file = LoadLaunchFile(path, {});
  ASSERT_EQ(file.processes.size(), 3u);
  EXPECT_EQ(file.processes[0].outputs, (std::vector<std::string>{"r1/path", "r1/plan_status"}));
  EXPECT_DOUBLE_EQ(file.processes[0].output_timeout_s, 3.0);  // the file's default
  EXPECT_DOUBLE_EQ(file.processes[1].output_timeout_s, 0.5);
  EXPECT_TRUE(file.processes[2].outputs.empty());
  // Outputs are watched on the bus: without watchdog.bus they are an error, as are bad timeouts.
  std::ofstream(path) << "processes:\n  - name: a\n    command: [x]\n    outputs: [t]\n";
  EXPECT_THROW(LoadLaunchFile(path, {}), config::ConfigError);
  std::ofstream(path) << "watchdog: {bus: ipc:///x}\nprocesses:\n  - name: a\n    command: [x]\n    outputs: [t]\n"
                         "    output_timeout_s: 0\n";
  EXPECT_THROW(LoadLaunchFile(path, {}), config::ConfigError);
  std::ofstream(path) << "watchdog: {bus: ipc:///x, output_timeout_s: -1}\nprocesses:\n  - name: a\n    command: [x]\n";
  EXPECT_THROW(LoadLaunchFile(path, {}), config::ConfigError);
  std::ofstream(path) << "watchdog: {bus: ipc:///x}\nprocesses:\n  - name: a\n    command: [x]\n    outputs: ['']\n";
  EXPECT_THROW(LoadLaunchFile(path, {}), config::ConfigError);
}

// Issue 23 item 2: `shared_memory: true` starts iceoryx's RouDi first and tells every other process to use it.
TEST(LaunchFile, SharedMemoryStartsRouDiFirstAndSetsLimbicShm) {
  const std::string path = "/tmp/limbic-launch-shm-test.yaml";
  std::ofstream(path) << R"(shared_memory: true
memory_limit_mb: 1024
watchdog: {bus: ipc:///tmp/x, timeout_s: 5}
processes:
  - name: bus
    command: [limbic-bus]
  - name: mapper
    command: [limbic-mapper]
    env: {LIMBIC_SHM: "0"}
)";
  auto file = LoadLaunchFile(path, {});
  ASSERT_EQ(file.processes.size(), 3u);
  const auto& roudi = file.processes[0];
  EXPECT_EQ(roudi.name, "roudi");
  EXPECT_EQ(roudi.command, kRouDiCommand);
  EXPECT_EQ(roudi.restart, "always");
  EXPECT_GT(roudi.start_delay_s, 0.0);
  EXPECT_EQ(roudi.memory_limit_mb, 0.0) << "RouDi maps its pools: no address-space budget";
  EXPECT_EQ(roudi.heartbeat_timeout_s, 0.0) << "RouDi is not on the bus: never judged by heartbeats";
  EXPECT_TRUE(roudi.env.empty());
  EXPECT_EQ(file.processes[1].env.at("LIMBIC_SHM"), "1");
  EXPECT_EQ(file.processes[2].env.at("LIMBIC_SHM"), "0") << "a process's own setting wins";

  // A file may bring its own RouDi (e.g. with a config of larger pools): it is used as written.
  std::ofstream(path) << "shared_memory: true\nprocesses:\n  - name: roudi\n    command: [iox-roudi, -c, pools.toml]\n"
                         "  - name: a\n    command: [x]\n";
  file = LoadLaunchFile(path, {});
  ASSERT_EQ(file.processes.size(), 2u);
  EXPECT_EQ(file.processes[0].command.back(), "pools.toml");
  EXPECT_EQ(file.processes[1].env.at("LIMBIC_SHM"), "1");
  // Off (the default): nothing added.
  std::ofstream(path) << "processes:\n  - name: a\n    command: [x]\n";
  file = LoadLaunchFile(path, {});
  ASSERT_EQ(file.processes.size(), 1u);
  EXPECT_TRUE(file.processes[0].env.empty());
  // `only`: shared memory alone, no socket copy for readers without it; `false` is off as the default.
  std::ofstream(path) << "shared_memory: only\nprocesses:\n  - name: a\n    command: [x]\n";
  file = LoadLaunchFile(path, {});
  ASSERT_EQ(file.processes.size(), 2u);
  EXPECT_EQ(file.processes[0].name, "roudi");
  EXPECT_EQ(file.processes[1].env.at("LIMBIC_SHM"), "only");
  std::ofstream(path) << "shared_memory: false\nprocesses:\n  - name: a\n    command: [x]\n";
  file = LoadLaunchFile(path, {});
  ASSERT_EQ(file.processes.size(), 1u);
  EXPECT_TRUE(file.processes[0].env.empty());
  std::ofstream(path) << "shared_memory: maybe\nprocesses:\n  - name: a\n    command: [x]\n";
  try {
    LoadLaunchFile(path, {});
    ADD_FAILURE() << "a misspelt shared_memory was accepted";
  } catch (const config::ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("only"), std::string::npos) << "names what it accepts: " << e.what();
  }
}

// Issue 23: `bus_path: direct` gives every process LIMBIC_BUS_PATH (its own env wins); a misspelt one is refused.
TEST(LaunchFile, BusPathSetsLimbicBusPathForEveryProcess) {
  const std::string path = "/tmp/limbic-launch-bus-path-test.yaml";
  std::ofstream(path) << "bus_path: direct\nprocesses:\n  - name: a\n    command: [x]\n  - name: b\n"
                         "    command: [y]\n    env: {LIMBIC_BUS_PATH: broker}\n";
  auto file = LoadLaunchFile(path, {});
  ASSERT_EQ(file.processes.size(), 2u);
  EXPECT_EQ(file.processes[0].env.at("LIMBIC_BUS_PATH"), "direct");
  EXPECT_EQ(file.processes[1].env.at("LIMBIC_BUS_PATH"), "broker") << "a process's own setting wins";
  std::ofstream(path) << "bus_path: drect\nprocesses:\n  - name: a\n    command: [x]\n";
  try {
    LoadLaunchFile(path, {});
    ADD_FAILURE() << "a misspelt bus_path was accepted";
  } catch (const config::ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("bus_path"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("drect"), std::string::npos) << e.what();
  }
  std::ofstream(path) << "processes:\n  - name: a\n    command: [x]\n";
  EXPECT_TRUE(LoadLaunchFile(path, {}).processes[0].env.empty());
}

// Issue 18: `limbic demo --robots 3` launches the shipped demo file expanded to a team.
TEST(TeamLaunch, ExpandsTheDemoFileToOneStackPerRobotAroundOneSimulator) {
  const std::string demo = std::string(LIMBIC_SOURCE_ROOT) + "/deploy/demo.yaml";
  const std::string path = "/tmp/limbic-team-launch-test.yaml";
  std::ofstream(path) << TeamLaunchYaml(demo, 3);
  const auto team = LoadLaunchFile(path, {});
  const auto single = LoadLaunchFile(demo, {});
  ASSERT_EQ(single.processes.size(), 9u);
  ASSERT_EQ(team.processes.size(), 3u + 6u * 3u);  // bus, metrics, simulator + six per robot
  std::set<std::string> names;
  int simulators = 0;
  for (const auto& p : team.processes) {
    EXPECT_TRUE(names.insert(p.name).second) << "two processes named " << p.name;
    const std::string& program = p.command[0];
    if (program == "limbic-simulator") {
      ++simulators;
      EXPECT_EQ(p.command.back(), "robots=r1,r2,r3");
    } else if (program != "limbic-bus" && program != "limbic-metrics") {
      ASSERT_GE(p.command.size(), 2u);
      EXPECT_EQ(p.command[p.command.size() - 2], "--robot") << p.name;
      EXPECT_EQ(p.name.substr(0, 3), p.command.back() + "-") << p.name;
    }
  }
  EXPECT_EQ(simulators, 1);
  EXPECT_TRUE(names.count("r2-planner"));
  EXPECT_EQ(team.vars, single.vars);
  EXPECT_EQ(team.watchdog.timeout_s, single.watchdog.timeout_s);
  EXPECT_THROW(TeamLaunchYaml(demo, 0), config::ConfigError);
  EXPECT_THROW(TeamLaunchYaml(demo, 65), config::ConfigError);
  EXPECT_THROW(TeamLaunchYaml("/nonexistent.yaml", 2), config::ConfigError);
}

// Issue 18 item 2: `limbic demo --bodies marvin,itchy` gives each robot's services its body.
TEST(TeamLaunch, GivesEachRobotsServicesItsBody) {
  const std::string demo = std::string(LIMBIC_SOURCE_ROOT) + "/deploy/demo.yaml";
  const std::string path = "/tmp/limbic-team-bodies-test.yaml";
  std::ofstream(path) << TeamLaunchYaml(demo, 2, {"marvin", "itchy"});
  const auto team = LoadLaunchFile(path, {});
  auto has = [](const std::vector<std::string>& command, const std::string& arg) {
    return std::find(command.begin(), command.end(), arg) != command.end();
  };
  int bodies = 0;
  for (const auto& p : team.processes) {
    const std::string& program = p.command[0];
    const bool r2 = p.name.rfind("r2-", 0) == 0;
    if (program == "limbic-simulator") {
      EXPECT_TRUE(has(p.command, "bodies=marvin,itchy"));
    } else if (program == "limbic-hwio") {
      EXPECT_TRUE(has(p.command, r2 ? "robot.body=itchy" : "robot.body=marvin")) << p.name;
      ++bodies;
    } else if (program == "limbic-mapper" || program == "limbic-affect" || program == "limbic-controller") {
      EXPECT_TRUE(has(p.command, r2 ? "body=itchy" : "body=marvin")) << p.name;
      ++bodies;
    } else if (program == "limbic-planner" || program == "limbic-mission") {
      for (const auto& a : p.command) EXPECT_EQ(a.find("body="), std::string::npos) << p.name;
    }
  }
  EXPECT_EQ(bodies, 8);
  // One robot with a body: the same file with the body on its services.
  std::ofstream(path) << TeamLaunchYaml(demo, 1, {"tank"});
  for (const auto& p : LoadLaunchFile(path, {}).processes) {
    if (p.command[0] == "limbic-controller") {
      EXPECT_TRUE(has(p.command, "body=tank"));
    }
  }
  EXPECT_THROW(TeamLaunchYaml(demo, 3, {"marvin", "itchy"}), config::ConfigError);
}

TEST(TopicGroups, GlobalFirstThenEachRobotInNaturalOrder) {
  const std::vector<std::string> topics{"clock",           "health/r1/planner", "humans",  "r1/affect", "r1/map",
                                        "r10/truth",       "r10/scan",          "r2/odom", "r2/goal",   "world",
                                        "param/r2/mapper", "rc/state/3",        "faults"};
  const auto groups = GroupTopicsByRobot(topics);
  ASSERT_EQ(groups.size(), 4u);
  EXPECT_EQ(groups[0].first, "");
  EXPECT_EQ(groups[0].second, (std::vector<std::string>{"clock", "health/r1/planner", "humans", "world",
                                                        "param/r2/mapper", "rc/state/3", "faults"}));
  EXPECT_EQ(groups[1], (std::pair<std::string, std::vector<std::string>>{"r1", {"r1/affect", "r1/map"}}));
  EXPECT_EQ(groups[2], (std::pair<std::string, std::vector<std::string>>{"r2", {"r2/odom", "r2/goal"}}));
  EXPECT_EQ(groups[3], (std::pair<std::string, std::vector<std::string>>{"r10", {"r10/truth", "r10/scan"}}));
  // Only global topics: one group; nothing: none.
  EXPECT_EQ(GroupTopicsByRobot({"clock", "world"}).size(), 1u);
  EXPECT_TRUE(GroupTopicsByRobot({}).empty());
}

TEST(ArgReader, FlagsSwitchesAndUnknowns) {
  ArgReader reader({"topic", "--count", "3", "--compact", "--bus=ipc:///x"}, {"--count", "--bus"}, {"--compact"});
  EXPECT_EQ(reader.Get("--count"), "3");
  EXPECT_EQ(reader.Get("--bus"), "ipc:///x");
  EXPECT_TRUE(reader.Has("--compact"));
  ASSERT_EQ(reader.positional().size(), 1u);
  EXPECT_THROW(ArgReader({"--bogus"}, {}, {}), std::invalid_argument);
  EXPECT_THROW(ArgReader({"--count"}, {"--count"}, {}), std::invalid_argument);
}

}  // namespace
}  // namespace limbic::cli

namespace limbic::cli {
namespace {

TEST(JsonCodec, TheWordHeaderInsideAStringDoesNotSuppressTheHeader) {
  JsonCodec codec;
  const auto* type = messages::FindByName("Heartbeat");
  const auto bytes = codec.FromJson(*type, R"({"service": "a \"header\" in text"})", 5, "tester", 1, false);
  const auto* hb = flatbuffers::GetRoot<msg::Heartbeat>(bytes.data());
  ASSERT_NE(hb->header(), nullptr);
  EXPECT_EQ(hb->header()->seq(), 5u);
  EXPECT_EQ(hb->service()->str(), "a \"header\" in text");
}

TEST(JsonCodec, RendersStringsThatAreNotUtf8) {
  JsonCodec codec;
  flatbuffers::FlatBufferBuilder fbb;
  const std::string odd("sd\0\x95", 4);
  fbb.Finish(msg::CreateVelocityCommand(fbb, msg::CreateHeader(fbb, 0, 1, 1, fbb.CreateString(odd))), "CMDV");
  const auto* type = messages::FindByName("VelocityCommand");
  ASSERT_TRUE(type->verify(fbb.GetBufferPointer(), fbb.GetSize()));
  EXPECT_NO_THROW(codec.ToJson(*type, fbb.GetBufferPointer(), fbb.GetSize(), true));
}

}  // namespace
}  // namespace limbic::cli
