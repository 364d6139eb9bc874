// `limbic recruit` on the command line: the examples of its --help work, bad input gives a clear error
// and a non-zero exit, and an experiment run writes its rows, tables and report.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace {

struct Result {
  int status;
  std::string output;
};

Result Recruit(const std::string& args) {
  const std::string command = std::string(LIMBIC_BUILD_BIN_DIR) + "/limbic-recruit " + args + " 2>&1";
  FILE* pipe = popen(command.c_str(), "r");
  std::string out;
  std::array<char, 4096> buf;
  while (size_t n = fread(buf.data(), 1, buf.size(), pipe)) out.append(buf.data(), n);
  const int status = pclose(pipe);
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, out};
}

TEST(RecruitCli, HelpExampleSimulationRuns) {
  const Result r = Recruit("sim --strategy affective_sq --idle 50 --loss 0.1");
  EXPECT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("M1 messages"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("M4 success yes"), std::string::npos) << r.output;
  EXPECT_EQ(Recruit("--help").status, 0);
  EXPECT_EQ(Recruit("demo --help").status, 0);
  EXPECT_EQ(Recruit("crosscheck --help").status, 0);
}

TEST(RecruitCli, BadInputGivesAClearErrorAndNonZeroExit) {
  Result r = Recruit("sim --loss 2");
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.output.find("loss"), std::string::npos) << r.output;
  r = Recruit("sim --strategy auction");
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.output.find("auction"), std::string::npos) << r.output;
  r = Recruit("sim --idle many");
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.output.find("--idle"), std::string::npos) << r.output;
  r = Recruit("experiment run no_such_experiment");
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.output.find("no_such_experiment"), std::string::npos) << r.output;
  r = Recruit("experiment report /nonexistent/dir");
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.output.find("runs.csv"), std::string::npos) << r.output;
  EXPECT_EQ(Recruit("fly").status, 2);
  EXPECT_EQ(Recruit("demo --strategy auction").status, 2);
  EXPECT_EQ(Recruit("demo --loss 3").status, 2);
  // crosscheck refuses before it starts anything.
  r = Recruit("crosscheck --loss 2");
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.output.find("--loss"), std::string::npos) << r.output;
  r = Recruit("crosscheck --strategy auction");
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.output.find("auction"), std::string::npos) << r.output;
  EXPECT_EQ(Recruit("crosscheck --episodes many").status, 2);
  EXPECT_EQ(Recruit("crosscheck --draws").status, 2);
  // A NaN passes a range check written as `x < lo || x > hi`; trailing junk used to be cut off silently.
  for (const char* bad : {"sim --loss nan", "demo --loss nan", "demo --speedup 2x", "crosscheck --loss nan",
                          "crosscheck --seed -1", "sim --seed 1.5"}) {
    r = Recruit(bad);
    EXPECT_EQ(r.status, 2) << bad << "\n" << r.output;
    EXPECT_NE(r.output.find("got '"), std::string::npos) << bad << "\n" << r.output;
  }
}

TEST(RecruitCli, ExperimentRunWritesRowsTablesAndReport) {
  const auto dir = std::filesystem::temp_directory_path() / ("recruit_cli_" + std::to_string(::getpid()));
  const Result r = Recruit("experiment run recruit_use_case_opportunistic --jobs 2 --out " + dir.string());
  ASSERT_EQ(r.status, 0) << r.output;
  std::ifstream html(dir / "report.html");
  std::stringstream text;
  text << html.rdbuf();
  EXPECT_NE(text.str().find("<svg"), std::string::npos);
  EXPECT_NE(text.str().find("UAV ("), std::string::npos) << "use-case pictures";
  EXPECT_TRUE(std::filesystem::exists(dir / "runs.csv"));
  EXPECT_TRUE(std::filesystem::exists(dir / "summary.md"));
  // report rewrites the same files from runs.csv
  std::filesystem::remove(dir / "report.html");
  EXPECT_EQ(Recruit("experiment report " + dir.string()).status, 0);
  EXPECT_TRUE(std::filesystem::exists(dir / "report.html"));
  std::filesystem::remove_all(dir);
}

}  // namespace
