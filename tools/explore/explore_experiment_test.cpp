#include "tools/explore/explore_experiment.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>

#include "common/config/config.hpp"
#include "services/explore/exploration_run.hpp"
#include "tools/stack/stack.hpp"

namespace limbic::explore {
namespace {

namespace fs = std::filesystem;

fs::path Temp(const std::string& name) {
  const fs::path dir = fs::temp_directory_path() / ("limbic_explore_test_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  return dir / name;
}

void WriteFile(const fs::path& p, const std::string& text) { std::ofstream(p) << text; }

TEST(ExploreExperiment, ShippedDefinitionsLoad) {
  int n = 0;
  for (const auto& entry : fs::directory_iterator(DefaultExploreExperimentDir())) {
    if (entry.path().extension() != ".yaml") continue;
    const ExploreExperiment e = LoadExploreExperiment(entry.path().string());
    EXPECT_GT(e.RunCount(), 0) << e.name;
    ++n;
  }
  EXPECT_GE(n, 2);
  const ExploreExperiment teams = FindExploreExperiment("explore_teams");
  EXPECT_EQ(teams.RunCount(), 2 * 4 * 5);  // sets B, C × environments 0–3 × 5 teams × 1 seed
  EXPECT_EQ(teams.teams[0].bodies, (std::vector<std::string>{"marvin", "itchy", "tank"}));
}

TEST(ExploreExperiment, RunsShareTheirSeedAcrossTeams) {
  const ExploreExperiment e = FindExploreExperiment("explore_teams");
  const auto runs = ExpandRuns(e);
  ASSERT_EQ(runs.size(), 40u);
  std::set<std::string> ids;
  std::set<uint64_t> seeds;
  for (const auto& r : runs) {
    ids.insert(r.run_id);
    seeds.insert(r.seed);
    EXPECT_EQ(r.seed, runs[(&r - runs.data()) / 5 * 5].seed);  // the five teams of one (set, env, k) share it
  }
  EXPECT_EQ(ids.size(), 40u);
  EXPECT_EQ(seeds.size(), 8u);
  EXPECT_EQ(runs[0].run_id, "explore_teams-B0-team3-s0");
}

TEST(ExploreExperiment, BadDefinitionsAreNamed) {
  auto error = [](const std::string& text) {
    const fs::path p = Temp("bad.yaml");
    WriteFile(p, text);
    try {
      LoadExploreExperiment(p.string());
    } catch (const config::ConfigError& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  const std::string team = "teams:\n  - {label: a, bodies: [marvin]}\n";
  EXPECT_EQ(error("name: bad\n" + team), "");
  EXPECT_NE(error("name: bad\nsurprise: 1\n" + team).find("surprise"), std::string::npos);
  EXPECT_NE(error("name: bad\nsets: [Q]\n" + team).find("sets"), std::string::npos);
  EXPECT_NE(error("name: bad\nteams:\n  - {label: a, bodies: [hovercraft]}\n").find("hovercraft"), std::string::npos);
  EXPECT_NE(error("name: bad\n").find("teams"), std::string::npos);
  EXPECT_NE(error("name: bad\ntime_limit: -1\n" + team).find("time_limit"), std::string::npos);
  EXPECT_NE(error("name: other\n" + team).find("name"), std::string::npos);
  EXPECT_THROW(LoadExploreExperiment(Temp("missing.yaml").string()), config::ConfigError);
}

TEST(ExploreExperiment, RunRowsAreReadStrictly) {
  const fs::path p = Temp("row.csv");
  WriteFile(p, "nonsense\n1,2\n");
  EXPECT_THROW(ReadRunCsv(p.string()), std::runtime_error);
  EXPECT_THROW(ReadRunCsv(Temp("absent.csv").string()), std::runtime_error);
  // A row the manager wrote: read field by field, the contacts split by robot.
  const std::string good = "x,team3,B,2,7,3,marvin+itchy+tank,0,300,0.5,,1,12,4,5,6,7,0,0,100.5,";
  WriteFile(p, RunCsvHeader() + "\n" + good + "2+9+1\n");
  const ExploreRunResult r = ReadRunCsv(p.string());
  EXPECT_EQ(r.world_collisions, 12);
  EXPECT_EQ(r.world_collisions_by_robot, (std::vector<double>{2, 9, 1}));
  EXPECT_FALSE(r.time_to_90_s);
  // One count too few for three robots, or one that is not a number: refused.
  WriteFile(p, RunCsvHeader() + "\n" + good + "2+9\n");
  EXPECT_THROW(ReadRunCsv(p.string()), std::runtime_error);
  WriteFile(p, RunCsvHeader() + "\n" + good + "2+x+1\n");
  EXPECT_THROW(ReadRunCsv(p.string()), std::runtime_error);
}

TEST(ExploreExperiment, TheStackGainsTheManagerAndExplorerMissions) {
  stack::StackSpec spec;
  spec.robots = 2;
  spec.bodies = {"marvin", "tank"};
  spec.explore = true;
  const auto participants = stack::Participants(spec);
  EXPECT_NE(std::find(participants.begin(), participants.end(), "explore_manager"), participants.end());
  bool manager = false;
  int explorers = 0;
  for (const auto& [name, argv] : stack::StackCommands(spec, "/bin", "ipc:///tmp/x")) {
    const std::string all = [&] {
      std::string a;
      for (const auto& s : argv) a += s + " ";
      return a;
    }();
    if (name == "explore_manager") {
      manager = true;
      EXPECT_EQ(argv[0], "/bin/limbic-explore-manager");
      EXPECT_NE(all.find("robots=r1,r2"), std::string::npos) << all;
      EXPECT_NE(all.find("bodies=marvin,tank"), std::string::npos) << all;
    }
    if (name.ends_with("-mission")) explorers += all.find("explore=true") != std::string::npos ? 1 : 0;
  }
  EXPECT_TRUE(manager);
  EXPECT_EQ(explorers, 2);
  spec.options = {"explore_manager.bogus_key=1"};  // a known service: its own loader refuses the key at start
  EXPECT_NO_THROW(stack::StackCommands(spec, "/bin", "ipc:///tmp/x"));
  spec.options = {"explorer.x=1"};
  EXPECT_THROW(stack::StackCommands(spec, "/bin", "ipc:///tmp/x"), config::ConfigError);
}

// A real (short) run: the three-type team explores set A environment 0 for 60 s in lockstep.
TEST(ExploreExperiment, TheSmokeRunExplores) {
  const ExploreExperiment e = FindExploreExperiment("explore_smoke");
  std::atomic<bool> stop{false};
  const ExploreOutput out = RunExploreExperiment(e, Temp("smoke").string(), 1, 0, stop);
  ASSERT_EQ(out.runs.size(), 1u);
  const ExploreRunResult& r = out.runs[0];
  EXPECT_EQ(r.error, "");
  EXPECT_EQ(r.robots, 3);
  EXPECT_EQ(r.bodies, "marvin+itchy+tank");
  EXPECT_GE(r.allocation_changes, 3);       // every robot got an environment
  EXPECT_GE(r.tasks_sent, 3 + 3);           // its tasks and the final stop
  EXPECT_GT(r.reports_received, 3 * 50.0);  // 1 Hz and on changes, 60 s
  EXPECT_GT(r.final_coverage, 0.2);
  EXPECT_GT(r.distance_m, 10.0);
  ASSERT_EQ(r.world_collisions_by_robot.size(), 3u);
  EXPECT_EQ(r.world_collisions_by_robot[0] + r.world_collisions_by_robot[1] + r.world_collisions_by_robot[2],
            r.world_collisions);
  EXPECT_NE(SummaryMarkdown(e, out).find("| r1 marvin "), std::string::npos) << SummaryMarkdown(e, out);
  const auto trace = out.traces.at(r.run_id);
  ASSERT_GE(trace.size(), 55u);
  EXPECT_LE(trace.front()[1], trace.back()[1]);  // coverage does not fall
  EXPECT_FALSE(PathSvgs(e, out).empty());
  // Lockstep and seeded: the same run again gives the same measures, to the bit.
  const ExploreOutput again = RunExploreExperiment(e, Temp("smoke_again").string(), 1, 0, stop);
  ASSERT_EQ(again.runs.size(), 1u);
  EXPECT_EQ(again.runs[0].final_coverage, r.final_coverage);
  EXPECT_EQ(again.runs[0].distance_m, r.distance_m);
  EXPECT_EQ(again.runs[0].reports_received, r.reports_received);
  EXPECT_EQ(again.traces.at(r.run_id), trace);
}

}  // namespace
}  // namespace limbic::explore
