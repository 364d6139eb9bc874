#include "tools/experiment/definition.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "common/config/config.hpp"
#include "services/affect/affect_config.hpp"
#include "tools/experiment/expand.hpp"
#include "tools/experiment/shipped_experiments.hpp"

namespace limbic::experiment {
namespace {

namespace fs = std::filesystem;

std::string WriteTemp(const std::string& name, const std::string& text) {
  // One directory per process: ctest runs every test of this file as its own process, in parallel, and they
  // all write "tiny.yaml" (a shared directory let one test read another's half-written file).
  const fs::path dir = fs::temp_directory_path() / ("limbic_experiment_definition_test_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const fs::path path = dir / (name + ".yaml");
  std::ofstream(path) << text;
  return path.string();
}

constexpr char kMinimal[] = "name: tiny\nchapter: test\ndescription: d\nseed: 5\nsets: [B]\niterations: 1\n";

// Every shipped file loads through the real loader, and every run it expands to loads its affect
// configuration (with the run's overrides) through the affect engine's own strict loader.
TEST(ExperimentDefinition, EveryShippedExperimentLoads) {
  const auto files = ListExperimentFiles(ShippedExperimentsDir());
  ASSERT_GE(files.size(), 40u);
  std::set<std::string> names;
  for (const auto& file : files) {
    SCOPED_TRACE(file);
    ExperimentDefinition d;
    ASSERT_NO_THROW(d = LoadExperiment(file));
    EXPECT_TRUE(names.insert(d.name).second) << "duplicate name " << d.name;
    EXPECT_FALSE(d.description.empty());
    const auto runs = Expand(d);
    EXPECT_EQ(static_cast<int>(runs.size()), d.RunCount());
    std::set<std::string> checked;  // one affect load per distinct (config, overrides)
    for (const auto& r : runs) {
      EXPECT_NO_THROW(r.Parameters());
      if (r.affect == kNoAffect) continue;
      const auto overrides = r.AffectOverrides();
      std::string key = r.affect;
      for (const auto& o : overrides) key += "|" + o;
      if (!checked.insert(key).second) continue;
      EXPECT_NO_THROW(affect::LoadAffectConfig(r.affect, affect::DefaultConfigDir(), overrides)) << r.run_id;
    }
  }
}

TEST(ExperimentDefinition, SamplesFollowSection61) {
  const auto ch10 = FindExperiment("ch10_integrated", ShippedExperimentsDir());
  EXPECT_EQ(ch10.sets.size(), 7u);
  EXPECT_EQ(ch10.environments.size() * ch10.runs_per_environment, 100u);
  EXPECT_EQ(ch10.iterations, 9);
  EXPECT_EQ(FindExperiment("ch7_introspection_w_p2", ShippedExperimentsDir()).runs_per_environment *
                FindExperiment("ch7_introspection_w_p2", ShippedExperimentsDir()).environments.size(),
            40u);
  const auto single = FindExperiment("ch10_distribution_single_env", ShippedExperimentsDir());
  EXPECT_EQ(single.environments.size() * single.runs_per_environment, 200u);
  const auto all = FindExperiment("ch10_distribution_all_envs", ShippedExperimentsDir());
  EXPECT_EQ(all.environments.size() * all.runs_per_environment, 200u);
  const auto companion = FindExperiment("companion2006", ShippedExperimentsDir());
  EXPECT_EQ(companion.environments.size() * companion.runs_per_environment, 30u);
  EXPECT_EQ(companion.iterations, 4);
  for (const auto& file : ListExperimentFiles(ShippedExperimentsDir())) {
    const auto d = LoadExperiment(file);
    if (d.chapter == "6" || d.chapter == "9" || (d.chapter == "7" && d.name != "ch7_introspection_w_p2")) {
      EXPECT_EQ(d.environments.size() * d.runs_per_environment, 20u) << file;
    }
  }
}

TEST(ExperimentDefinition, MultiplierSweepSetsThreeWeights) {
  const auto d = FindExperiment("chapter6/ch6_hybrid_multiplier", ShippedExperimentsDir());
  ASSERT_TRUE(d.sweep);
  ASSERT_EQ(d.sweep->values.size(), 11u);
  EXPECT_DOUBLE_EQ(d.sweep->values[3], 0.3);
  const auto runs = Expand(d);
  const RunSpec& r = runs[20 * 4];  // M = 0.4
  EXPECT_EQ(r.sweep, "M=0.4");
  const ControlParameters p = r.Parameters();
  EXPECT_DOUBLE_EQ(p.w_theta4, 0.2);
  EXPECT_DOUBLE_EQ(p.w_theta5, 0.2);
  EXPECT_DOUBLE_EQ(p.w_theta6, 0.3);
  EXPECT_DOUBLE_EQ(p.w_theta3, 0.75);
  EXPECT_EQ(p.n_v, 9);
}

TEST(ExperimentDefinition, MisspelledKeyNamesFileAndKey) {
  const std::string path = WriteTemp("tiny", std::string(kMinimal) + "iteratoins: 3\n");
  try {
    LoadExperiment(path);
    FAIL() << "expected ConfigError";
  } catch (const config::ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find(path), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("iteratoins"), std::string::npos) << e.what();
  }
}

TEST(ExperimentDefinition, RecordTakesNoneTracedOrAll) {
  const std::string base = std::string(kMinimal) + "configurations:\n  - label: a\n";
  EXPECT_EQ(LoadExperiment(WriteTemp("tiny", base)).record, "none");
  EXPECT_EQ(LoadExperiment(WriteTemp("tiny", base + "record: traced\n")).record, "traced");
  EXPECT_EQ(LoadExperiment(WriteTemp("tiny", base + "record: all\n")).record, "all");
  try {
    LoadExperiment(WriteTemp("tiny", base + "record: everything\n"));
    FAIL() << "accepted record: everything";
  } catch (const config::ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("none, traced or all"), std::string::npos) << e.what();
  }
}

// Issue 18: robots in one world, placed by the simulator or start and goal per robot.
TEST(ExperimentDefinition, RobotsTakeACountAndOptionallyStartAndGoalPerRobot) {
  const std::string base = std::string(kMinimal) + "configurations:\n  - label: a\n";
  const auto single = LoadExperiment(WriteTemp("tiny", base));
  EXPECT_EQ(single.team.count, 1);
  const auto three = LoadExperiment(WriteTemp("tiny", base + "robots: {count: 3}\n"));
  EXPECT_EQ(three.team.count, 3);
  EXPECT_EQ(three.team.StartsOption(), "");
  const auto placed = LoadExperiment(WriteTemp(
      "tiny", base + "robots:\n  count: 2\n  starts: [[1, 1], [2.5, 1, 1.5]]\n  goals: [[19, 11], [17.5, 11]]\n"));
  EXPECT_EQ(placed.team.StartsOption(), "1,1;2.5,1,1.5");
  EXPECT_EQ(placed.team.GoalsOption(), "19,11;17.5,11");
  const auto runs = Expand(placed);
  ASSERT_FALSE(runs.empty());
  EXPECT_EQ(runs[0].team.count, 2);
  EXPECT_EQ(runs[0].team.GoalsOption(), "19,11;17.5,11");
  auto fails = [&](const std::string& robots, const std::string& expected) {
    try {
      LoadExperiment(WriteTemp("tiny", base + robots));
      ADD_FAILURE() << "accepted " << robots;
    } catch (const config::ConfigError& e) {
      EXPECT_NE(std::string(e.what()).find(expected), std::string::npos) << e.what();
    }
  };
  fails("robots: {count: 0}\n", "1..16");
  fails("robots: {count: 17}\n", "1..16");
  fails("robots: {starts: [[1, 1]]}\n", "count");
  fails("robots: {count: 2, starts: [[1, 1]]}\n", "one entry per robot");
  fails("robots: {count: 1, goals: [[1, 1, 0]]}\n", "[x, y]");
  fails("robots: {count: 1, starts: [[1]]}\n", "[x, y]");
  fails("robots: {count: 1, strats: [[1, 1]]}\n", "strats");
}

// A definition `text` must be refused with a message containing `expected`.
void ExpectRefused(const std::string& text, const std::string& expected) {
  try {
    LoadExperiment(WriteTemp("tiny", text));
    ADD_FAILURE() << "accepted " << text;
  } catch (const config::ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find(expected), std::string::npos) << e.what();
  }
}

// A configuration's label names files and CSV columns: letters, digits and underscores only, the whole of it.
TEST(ExperimentDefinition, ALabelIsLettersDigitsAndUnderscoresOnly) {
  const auto ok = LoadExperiment(WriteTemp("tiny", std::string(kMinimal) + "configurations:\n  - label: Run_2b\n"));
  ASSERT_EQ(ok.configurations.size(), 1u);
  EXPECT_EQ(ok.configurations[0].label, "Run_2b");
  ExpectRefused(std::string(kMinimal) + "configurations:\n  - label: \"a b\"\n", "'a b' must match [A-Za-z0-9_]+");
  ExpectRefused(std::string(kMinimal) + "configurations:\n  - label: a-b\n", "'a-b' must match");
  ExpectRefused(std::string(kMinimal) + "configurations:\n  - label: \"ab\\n\"\n", "must match");
}

// Issue 18 item 2: a body per robot (robot descriptions), or one body for a configuration.
TEST(ExperimentDefinition, RobotsTakeBodiesAndConfigurationsABody) {
  const std::string base = std::string(kMinimal) + "configurations:\n  - label: a\n";
  const auto team = LoadExperiment(WriteTemp("tiny", base + "robots: {count: 2, bodies: [marvin, itchy]}\n"));
  EXPECT_EQ(team.team.bodies, (std::vector<std::string>{"marvin", "itchy"}));
  EXPECT_EQ(team.team.BodiesOption(), "marvin,itchy");
  EXPECT_EQ(Expand(team)[0].team.bodies, team.team.bodies);
  EXPECT_EQ(LoadExperiment(WriteTemp("tiny", base + "robots: {count: 3, bodies: [tank]}\n")).team.bodies.size(), 1u);
  const auto one = LoadExperiment(
      WriteTemp("tiny", std::string(kMinimal) + "configurations:\n  - label: t\n    options: {body: tank}\n"));
  EXPECT_EQ(one.configurations[0].options.at("body"), "tank");
  ExpectRefused(base + "robots: {count: 3, bodies: [marvin, itchy]}\n",
                "one description for all robots or one per robot");
  ExpectRefused(base + "robots: {count: 1, bodies: [hal9000]}\n", "hal9000");
  ExpectRefused(std::string(kMinimal) + "configurations:\n  - label: t\n    options: {body: hal9000}\n",
                "names no usable robot description");
}

// Issue 19 item 5: mixed crowds — each robot's navigator in the team, or per configuration as an option.
TEST(ExperimentDefinition, RobotsAndConfigurationsTakeNavigators) {
  const std::string base = std::string(kMinimal) + "configurations:\n  - label: a\n";
  const auto team = LoadExperiment(WriteTemp("tiny", base + "robots: {count: 2, navigators: [hybrid, crowd]}\n"));
  EXPECT_EQ(team.team.navigators, (std::vector<std::string>{"hybrid", "crowd"}));
  EXPECT_EQ(team.team.NavigatorsOption(), "hybrid,crowd");
  EXPECT_EQ(Expand(team)[0].team.navigators, team.team.navigators);
  const auto mixed = LoadExperiment(WriteTemp("tiny", std::string(kMinimal) + "robots: {count: 2}\n" +
                                                          "configurations:\n  - label: m\n    options: "
                                                          "{navigators: \"hybrid,crowd\", crowd_mode: invisible}\n"));
  EXPECT_EQ(mixed.configurations[0].options.at("navigators"), "hybrid,crowd");
  EXPECT_EQ(mixed.configurations[0].options.at("crowd_mode"), "invisible");
  ExpectRefused(base + "robots: {count: 3, navigators: [hybrid, crowd]}\n",
                "one navigator for all robots or one per robot");
  ExpectRefused(base + "robots: {count: 1, navigators: [planner]}\n", "hybrid or crowd, got 'planner'");
  ExpectRefused(std::string(kMinimal) +
                    "robots: {count: 3}\nconfigurations:\n  - label: m\n    options: {navigators: "
                    "\"hybrid,crowd\"}\n",
                "one navigator for all robots or one per robot (3), not 2");
  ExpectRefused(std::string(kMinimal) + "configurations:\n  - label: m\n    options: {navigators: \"hybrid,b_nav\"}\n",
                "got 'b_nav'");
  ExpectRefused(std::string(kMinimal) + "configurations:\n  - label: m\n    options: {crowd_mode: \"off\"}\n",
                "sets crowd_mode but none of its robots is a crowd robot");
  ExpectRefused(std::string(kMinimal) + "configurations:\n  - label: m\n    options: {crowd_mode: angry}\n",
                "emotion modes (off, on, invisible), got 'angry'");
}

TEST(ExperimentDefinition, MisspelledParameterAndOptionFail) {
  const std::string base = std::string(kMinimal) + "configurations:\n  - label: a\n";
  try {
    LoadExperiment(WriteTemp("tiny", base + "    parameters: {w_v9: 1}\n"));
    FAIL();
  } catch (const config::ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("configurations[0].parameters.w_v9"), std::string::npos) << e.what();
  }
  EXPECT_THROW(LoadExperiment(WriteTemp("tiny", base + "    options: {prebuilt_mapp: true}\n")), config::ConfigError);
  EXPECT_THROW(LoadExperiment(WriteTemp("tiny", base + "    options: {prebuilt_map: yes}\n")), config::ConfigError);
  EXPECT_THROW(LoadExperiment(WriteTemp("tiny", base + "    options: {danger_point: switch}\n")), config::ConfigError);
  EXPECT_NO_THROW(LoadExperiment(WriteTemp("tiny", base + "    options: {danger_point: contact}\n")));
  EXPECT_NO_THROW(LoadExperiment(WriteTemp("tiny", base + "    options: {danger_point: sector}\n")));
  EXPECT_THROW(LoadExperiment(WriteTemp("tiny", base + "    options: {danger_forget: always}\n")), config::ConfigError);
  EXPECT_NO_THROW(LoadExperiment(WriteTemp("tiny", base + "    options: {danger_forget: free_space}\n")));
  EXPECT_THROW(LoadExperiment(WriteTemp("tiny", base + "    parameters: {n_v: 3.5}\n")), config::ConfigError);
  EXPECT_THROW(LoadExperiment(WriteTemp("tiny", base + "sweep: {name: x, set: [w_v99], values: [1]}\n")),
               config::ConfigError);
  // affect sweep without an affect engine
  EXPECT_THROW(
      LoadExperiment(WriteTemp("tiny", base + "sweep: {name: x, set: [affect.drives.safety.fixed], values: [1]}\n")),
      config::ConfigError);
}

TEST(ExperimentDefinition, BadValuesFail) {
  EXPECT_THROW(LoadExperiment(WriteTemp("tiny",
                                        "name: tiny\nchapter: test\ndescription: d\nseed: 5\n"
                                        "sets: [H]\niterations: 1\n")),
               config::ConfigError);
  EXPECT_THROW(LoadExperiment(WriteTemp("tiny", std::string(kMinimal) + "environments: [0, 20]\n")),
               config::ConfigError);
  EXPECT_THROW(LoadExperiment(WriteTemp("other", kMinimal)), config::ConfigError);  // name != stem
  EXPECT_THROW(
      LoadExperiment(WriteTemp("tiny", std::string(kMinimal) + "sweep: {name: x, set: [w_v1], values: [1, 1]}\n")),
      config::ConfigError);
}

TEST(ExperimentDefinition, DefaultsMergeAndRangesExpand) {
  const auto d = LoadExperiment(
      WriteTemp("tiny", std::string(kMinimal) +
                            "environments: {first: 3, last: 5}\n"
                            "defaults:\n  affect: constant\n  parameters: {r_o: 0.25, n_theta: 30}\n"
                            "  affect_overrides: [\"moods.positive.weight=2\"]\n"
                            "configurations:\n  - label: a\n  - label: b\n    parameters: {r_o: 0.3}\n"
                            "    affect_overrides: [\"moods.negative.weight=2\"]\n"
                            "sweep: {name: v, set: [v_limit], values: {start: 0.4, stop: 1.0, step: 0.2}}\n"));
  EXPECT_EQ(d.environments, (std::vector<int>{3, 4, 5}));
  ASSERT_EQ(d.configurations.size(), 2u);
  EXPECT_EQ(d.configurations[0].affect, "constant");
  EXPECT_DOUBLE_EQ(d.configurations[0].parameters.at("r_o"), 0.25);
  EXPECT_DOUBLE_EQ(d.configurations[1].parameters.at("r_o"), 0.3);
  EXPECT_DOUBLE_EQ(d.configurations[1].parameters.at("n_theta"), 30);
  EXPECT_EQ(d.configurations[1].affect_overrides.size(), 2u);
  EXPECT_EQ(d.sweep->values, (std::vector<double>{0.4, 0.6, 0.8, 1.0}));
  EXPECT_EQ(d.RunCount(), 2 * 4 * 1 * 3 * 1);
}

TEST(ExperimentDefinition, ApplyParameterOverrides) {
  ControlParameters p;
  ApplyParameterOverrides({{"n_theta", 30}, {"r_o", 0.25}}, &p);
  EXPECT_EQ(p.n_theta, 30);
  EXPECT_DOUBLE_EQ(p.r_o, 0.25);
  EXPECT_THROW(ApplyParameterOverrides({{"nope", 1}}, &p), std::invalid_argument);
  EXPECT_THROW(ApplyParameterOverrides({{"n_o", 1.5}}, &p), std::invalid_argument);
}

TEST(ExperimentDefinition, FormatNumberIsShortest) {
  EXPECT_EQ(FormatNumber(0.25), "0.25");
  EXPECT_EQ(FormatNumber(3), "3");
  EXPECT_EQ(FormatNumber(-0.5), "-0.5");
  EXPECT_EQ(FormatNumber(-0.0), "0");
  EXPECT_EQ(FormatNumber(0.1 + 0.2), "0.30000000000000004");
}

}  // namespace
}  // namespace limbic::experiment
