// Recruitment experiment definitions (spec affective-recruitment §7): every shipped file loads, the
// simulation counts add up, strategies share placements and draws, the use cases come out as designed,
// and the rows survive a CSV round trip.
#include "tools/recruit/experiment.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "common/config/config.hpp"
#include "tools/recruit/report.hpp"

namespace limbic::recruit {
namespace {

namespace fs = std::filesystem;

std::string Dir() { return std::string(LIMBIC_SOURCE_ROOT) + "/experiments/recruitment"; }

TEST(RecruitExperiment, EveryShippedDefinitionLoadsAndTheCountsAddUp) {
  std::map<std::string, int> counts;
  for (const auto& f : ListRecruitExperimentFiles(Dir())) {
    const RecruitExperiment e = LoadRecruitExperiment(f);
    counts[e.name] = e.RunCount();
    EXPECT_EQ(static_cast<int>(Expand(e).size()), e.RunCount()) << e.name;
  }
  EXPECT_EQ(counts.at("recruit_team_size"), 600);     // 4 × 5 × 30
  EXPECT_EQ(counts.at("recruit_message_loss"), 180);  // 4 × 3 × 5 × 3
  EXPECT_EQ(counts.at("recruit_unicast"), 18);        // 9 unicast + 9 paired broadcast
  EXPECT_EQ(counts.at("recruit_use_case_opportunistic"), 3);
  EXPECT_EQ(counts.at("recruit_use_case_stealth"), 1);
  EXPECT_EQ(counts.at("recruit_fairness"), 40);  // 4 × 10
}

TEST(RecruitExperiment, StrategiesSharePlacementsAndDraws) {
  const RecruitExperiment e = FindRecruitExperiment("recruit_message_loss", Dir());
  const auto runs = Expand(e);
  std::map<std::tuple<std::string, int, int>, uint64_t> radio_seed;
  std::set<uint64_t> placements;
  for (const RecruitRun& r : runs) {
    const auto key = std::make_tuple(r.condition, r.configuration, r.repetition);
    auto [it, inserted] = radio_seed.emplace(key, r.options.radio.seed);
    if (!inserted) {
      EXPECT_EQ(it->second, r.options.radio.seed) << "paired draws across strategies";
    }
    placements.insert(r.options.config_seed);
    EXPECT_EQ(r.options.idle_ugvs, 10);
  }
  EXPECT_EQ(placements.size(), 5u);
  EXPECT_EQ(radio_seed.size(), 3u * 5u * 3u);
}

TEST(RecruitExperiment, OpportunisticUseCaseRecruitsTheBusyButCloserRobotOnlyWhenAffective) {
  const RecruitExperiment e = FindRecruitExperiment("recruit_use_case_opportunistic", Dir());
  std::map<std::string, std::string> counts;
  std::map<std::string, double> wait;
  for (const RecruitRun& run : Expand(e)) {
    const RecruitRow row = RunOne(e, run);
    ASSERT_TRUE(row.success) << run.strategy;
    counts[run.strategy] = row.recruit_counts;
    wait[run.strategy] = row.wait_total_s;
  }
  EXPECT_EQ(counts["affective"], "1:0;2:1;3:0");
  EXPECT_EQ(counts["greedy"], "1:1;2:0;3:0");
  EXPECT_EQ(counts["random"], "1:1;2:0;3:0");
  EXPECT_LT(wait["affective"], wait["greedy"]);  // r2's remaining task + travel < r1's travel
}

TEST(RecruitExperiment, StealthUseCaseOnlyTheNearestRobotTransmits) {
  const RecruitExperiment e = FindRecruitExperiment("recruit_use_case_stealth", Dir());
  ScenarioResult full;
  const RecruitRow row = RunOne(e, Expand(e).at(0), &full);
  ASSERT_TRUE(row.success);
  EXPECT_EQ(row.recruit_counts, "1:0;2:1;3:0");
  EXPECT_EQ(full.counts.attempts_by_robot.count(1), 0u);
  EXPECT_EQ(full.counts.attempts_by_robot.count(3), 0u);
  EXPECT_EQ(row.by_type[static_cast<int>(MsgType::kAccept)], 1u);
  const std::string svg = UseCasePicture(full, "stealth");
  EXPECT_NE(svg.find("r2 (3 tx)"), std::string::npos);
  EXPECT_NE(svg.find("r1 (0 tx)"), std::string::npos);
}

TEST(RecruitExperiment, BadDefinitionsAreRefusedWithTheKeyNamed) {
  const fs::path dir = fs::temp_directory_path() / ("recruit_defs_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const auto write = [&](const std::string& name, const std::string& text) {
    std::ofstream(dir / (name + ".yaml")) << text;
    return (dir / (name + ".yaml")).string();
  };
  const std::string head = "section: '7.1'\ndescription: d\nseed: 1\n";
  const auto message = [](const std::string& path) {
    try {
      LoadRecruitExperiment(path);
    } catch (const config::ConfigError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(message(write("a", "name: a\n" + head + "strategies: [affective]\nscenario: {los: 0.1}\n")).find("los"),
            std::string::npos);
  EXPECT_NE(message(write("b", "name: b\n" + head + "strategies: [auction]\n")).find("auction"), std::string::npos);
  EXPECT_NE(message(write("c", "name: c\n" + head + "strategies: [greedy]\nscenario: {loss: 1.5}\n")).find("loss"),
            std::string::npos);
  EXPECT_NE(
      message(write("d", "name: d\n" + head + "strategies: [greedy]\nvary: {variable: idle_ugvs, values: [\"ten\"]}\n"))
          .find("ten"),
      std::string::npos);
  EXPECT_NE(message(write("e", "name: wrong\n" + head + "strategies: [greedy]\n")).find("file name"),
            std::string::npos);
  EXPECT_NE(message((dir / "missing.yaml").string()).find("missing"), std::string::npos);
  fs::remove_all(dir);
}

TEST(RecruitExperiment, RowsSurviveACsvRoundTripAndBadFilesAreRefused) {
  const RecruitExperiment e = FindRecruitExperiment("recruit_use_case_stealth", Dir());
  const RecruitRow row = RunOne(e, Expand(e).at(0));
  const std::string path = (fs::temp_directory_path() / ("recruit_rows_" + std::to_string(::getpid()))).string();
  WriteRows(path, {row, row});
  const auto back = ReadRows(path);
  ASSERT_EQ(back.size(), 2u);
  EXPECT_EQ(back[1].messages, row.messages);
  EXPECT_EQ(back[1].recruit_counts, row.recruit_counts);
  EXPECT_DOUBLE_EQ(back[1].wait_total_s, row.wait_total_s);
  EXPECT_EQ(back[1].by_type, row.by_type);
  std::ofstream(path) << "not,a,runs,file\n";
  EXPECT_THROW(ReadRows(path), std::runtime_error);
  fs::remove(path);
  EXPECT_THROW(ReadRows(path), std::runtime_error);
}

}  // namespace
}  // namespace limbic::recruit
