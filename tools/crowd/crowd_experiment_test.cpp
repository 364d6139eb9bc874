#include "tools/crowd/crowd_experiment.hpp"

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "common/config/config.hpp"

namespace limbic::crowd {
namespace {

namespace fs = std::filesystem;

fs::path TempDir(const std::string& name) {
  const fs::path dir = fs::temp_directory_path() / ("crowd_test_" + name + "_" + std::to_string(getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

std::string WriteYaml(const fs::path& dir, const std::string& name, const std::string& body) {
  const fs::path file = dir / (name + ".yaml");
  std::ofstream(file) << "name: " << name << "\n" << body;
  return file.string();
}

std::string Read(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// Runs a command, returns its exit status, output in *out.
int Shell(const std::string& command, std::string* out) {
  FILE* pipe = popen((command + " 2>&1").c_str(), "r");
  if (!pipe) return -1;
  char buffer[4096];
  size_t n;
  while ((n = fread(buffer, 1, sizeof buffer, pipe)) > 0) out->append(buffer, n);
  const int status = pclose(pipe);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

TEST(CrowdExperiment, ShippedDefinitionsLoad) {
  const auto files = ListCrowdExperimentFiles();
  ASSERT_GE(files.size(), 4u);
  for (const auto& f : files) {
    const CrowdExperiment e = LoadCrowdExperiment(f);
    if (e.name == "crowd_smoke") continue;
    EXPECT_GE(e.seeds, 20) << f;  // issue 19: ≥ 20 seeds each
    EXPECT_EQ(e.modes.size(), 3u) << f;
    EXPECT_EQ(e.robot.directions, 72) << f;
  }
}

TEST(CrowdExperiment, BadDefinitionsNameFileAndKey) {
  const fs::path dir = TempDir("bad");
  auto refused = [&](const std::string& body, const std::string& fragment) {
    const std::string file = WriteYaml(dir, "bad", body);
    try {
      LoadCrowdExperiment(file);
      ADD_FAILURE() << "accepted: " << body;
    } catch (const config::ConfigError& e) {
      EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("bad.yaml"), std::string::npos) << e.what();
    }
  };
  refused("scenario: stadium\n", "scenario");
  refused("modes: [on, sometimes]\n", "modes");
  refused("robots: [0]\n", "robots");
  refused("seeds: 2.5\n", "seeds");
  refused("run: {time_limit: .nan}\n", "time_limit");
  refused("robot: {caution: -1}\n", "caution");
  refused("robot: {fov_deg: 270}\n", "fov_deg");
  refused("robot: {progress_tolerance: -0.01}\n", "progress_tolerance");
  refused("run: {finished: vanish}\n", "finished");
  refused("run: {neighbour_memory: -1}\n", "neighbour_memory");
  refused("colour: red\n", "colour");
  refused("emotions: /nonexistent/emotions.yaml\n", "emotions");
  EXPECT_THROW(FindCrowdExperiment("no_such_experiment", dir.string()), config::ConfigError);
  fs::remove_all(dir);
}

TEST(CrowdExperiment, SmallRunWritesRowsSummaryAndReport) {
  const fs::path dir = TempDir("small");
  const std::string file = WriteYaml(dir, "tiny",
                                     "scenario: antipodal\nrobots: [2, 3]\nmodes: [off, on]\nseeds: 2\nseed: 5\n"
                                     "run: {time_limit: 60}\nrobot: {directions: 24}\n");
  const CrowdExperiment e = LoadCrowdExperiment(file);
  EXPECT_EQ(e.RunCount(), 8);
  CrowdRunOptions o;
  o.jobs = 2;
  o.quiet = true;
  const CrowdRunOutput out = RunCrowdExperiment(e, o);
  ASSERT_EQ(out.rows.size(), 8u);
  EXPECT_EQ(out.rows[0].robots, 2);
  EXPECT_EQ(out.rows[0].mode, EmotionMode::kOff);
  EXPECT_EQ(out.rows[0].seed, 5u);
  EXPECT_EQ(out.rows[7].robots, 3);
  EXPECT_EQ(out.rows[7].seed, 6u);
  for (const auto& r : out.rows) {
    EXPECT_TRUE(r.metrics.all_done);
    EXPECT_EQ(r.metrics.completion_times.size(), static_cast<size_t>(r.robots));
  }
  // The picture is the largest crowd with emotions on, first seed: 3 robots.
  EXPECT_EQ(out.picture_scenario.agents.size(), 3u);
  EXPECT_FALSE(out.picture_trajectory.empty());
  // Jobs do not change results.
  o.jobs = 1;
  const CrowdRunOutput again = RunCrowdExperiment(e, o);
  EXPECT_EQ(RunsCsv(e, out), RunsCsv(e, again));
  const std::string csv = RunsCsv(e, out);
  EXPECT_EQ(std::count(csv.begin(), csv.end(), '\n'), 9);
  EXPECT_NE(csv.find("frac_frustration,frac_fear,frac_calm,frac_none"), std::string::npos);
  const std::string md = SummaryMarkdown(e, out);
  EXPECT_NE(md.find("| 3 | on | 2/2 |"), std::string::npos) << md;
  const std::string svg = ReportSvg(e, out);
  EXPECT_EQ(svg.rfind("<svg", 0), 0u);
  EXPECT_NE(svg.find("emotion timeline"), std::string::npos);
  EXPECT_NE(svg.find("</svg>"), std::string::npos);
  const std::string completions = CompletionsCsv(out);  // a row per robot per run: 2·2·2 + 3·2·2 and the header
  EXPECT_EQ(std::count(completions.begin(), completions.end(), '\n'), 1 + 2 * 2 * 2 + 3 * 2 * 2);
  fs::remove_all(dir);
}

// The CI smoke test: the shipped crowd_smoke through the command line, as `limbic experiment run` forwards it.
TEST(CrowdExperiment, SmokeThroughTheCommandLine) {
  const fs::path dir = TempDir("smoke");
  const std::string bin = LIMBIC_BUILD_BIN_DIR;
  std::string out;
  ASSERT_EQ(Shell(bin + "/limbic-crowd experiment run crowd_smoke --jobs 2 --out " + dir.string(), &out), 0) << out;
  EXPECT_NE(out.find("| 4 | on | 2/2 |"), std::string::npos) << out;
  for (const char* f : {"runs.csv", "completions.csv", "summary.md", "report.svg"})
    EXPECT_TRUE(fs::exists(dir / f)) << f;
  EXPECT_EQ(Read(dir / "runs.csv").substr(0, 9), "scenario,");
  if (fs::exists(bin + "/limbic-experiment")) {
    std::string list;
    ASSERT_EQ(Shell(bin + "/limbic-experiment list", &list), 0) << list;
    EXPECT_NE(list.find("crowd_antipodal"), std::string::npos) << list;
    EXPECT_NE(list.find("crowd_doorway"), std::string::npos) << list;
    std::string forwarded;
    const fs::path dir2 = dir / "forwarded";
    EXPECT_EQ(Shell(bin + "/limbic-experiment run crowd_smoke --jobs 1 --out " + dir2.string(), &forwarded), 0)
        << forwarded;
    EXPECT_EQ(Read(dir2 / "runs.csv"), Read(dir / "runs.csv"));  // same seeds, same rows
  }
  // Unhappy paths: exit 2 with a message naming the problem.
  std::string bad;
  EXPECT_EQ(Shell(bin + "/limbic-crowd run --robots nan", &bad), 2);
  EXPECT_NE(bad.find("--robots"), std::string::npos) << bad;
  bad.clear();
  EXPECT_EQ(Shell(bin + "/limbic-crowd run --mode sometimes", &bad), 2);
  EXPECT_NE(bad.find("sometimes"), std::string::npos) << bad;
  bad.clear();
  EXPECT_EQ(Shell(bin + "/limbic-crowd run --scenario stadium", &bad), 2);
  bad.clear();
  EXPECT_EQ(Shell(bin + "/limbic-crowd experiment run no_such_thing", &bad), 1);
  EXPECT_NE(bad.find("no_such_thing"), std::string::npos) << bad;
  bad.clear();
  EXPECT_EQ(Shell(bin + "/limbic-crowd run --emotions /nonexistent.yaml", &bad), 1);
  EXPECT_NE(bad.find("nonexistent"), std::string::npos) << bad;
  bad.clear();
  EXPECT_EQ(Shell(bin + "/limbic-crowd --help", &bad), 0);
  EXPECT_NE(bad.find("examples:"), std::string::npos);
  fs::remove_all(dir);
}

}  // namespace
}  // namespace limbic::crowd
