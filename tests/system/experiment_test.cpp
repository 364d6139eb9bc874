// `limbic experiment` end to end through the real executable: the smoke experiment (set B,
// environments 0 and 1, one traversal, constant parameters) runs in two parallel in-process stacks,
// writes runs.csv, summary.csv, report.html and the trace files; a second run resumes and skips
// everything; shards 1/2 + 2/2 merged give the unsharded rows; bad input fails with one line.
#include <gtest/gtest.h>

#include <csignal>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "tests/testing/process.hpp"
#include "tools/experiment/results.hpp"

namespace limbic {
namespace {

namespace fs = std::filesystem;
using experiment::IterationRow;

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

struct Result {
  int status = -1;
  std::string log;
};

// Runs `limbic-experiment args...` to completion (5 minutes at most) with its output in `log_path`.
Result RunExperiment(const std::vector<std::string>& args, const std::string& log_path) {
  std::vector<std::string> argv{testing::Bin("limbic-experiment")};
  argv.insert(argv.end(), args.begin(), args.end());
  testing::ChildProcess child(argv, log_path);
  Result r;
  r.status = child.Wait(std::chrono::minutes(5));
  r.log = child.Log();
  return r;
}

std::map<std::pair<std::string, int>, IterationRow> ByRunAndIteration(const std::vector<IterationRow>& rows) {
  std::map<std::pair<std::string, int>, IterationRow> out;
  for (const auto& r : rows) out[{r.run_id, r.iteration}] = r;
  return out;
}

TEST(Experiment, SmokeRunsResumesAndShardsMergeToTheSameRows) {
  ASSERT_TRUE(fs::exists(testing::Bin("limbic-experiment"))) << "build limbic-experiment first";
  testing::TempDir tmp;
  const std::string out = tmp / "smoke";

  // 1. The whole experiment, two runs in parallel.
  const Result first = RunExperiment({"run", "smoke", "--jobs", "2", "--out", out}, tmp / "first.log");
  ASSERT_EQ(first.status, 0) << first.log;
  const auto runs = experiment::ReadRuns(out + "/runs.csv");
  EXPECT_EQ(runs.skipped_lines, 0);
  ASSERT_EQ(runs.rows.size(), 2u) << "two environments × one traversal";
  const auto rows = ByRunAndIteration(runs.rows);
  for (const char* id : {"constant-B-0-0", "constant-B-1-0"}) {
    ASSERT_TRUE(rows.count({id, 1})) << "no row for " << id;
    const IterationRow& r = rows.at({id, 1});
    EXPECT_EQ(r.experiment, "smoke");
    EXPECT_EQ(r.config, "constant");
    EXPECT_EQ(r.set, 'B');
    EXPECT_GT(r.completion_time_s, 0.0);
    EXPECT_LE(r.completion_time_s, 600.0);
    EXPECT_EQ(r.success, r.completion_time_s < 600.0);
    EXPECT_GT(r.distance_travelled, 0.0);
    EXPECT_GT(r.mean_velocity, 0.0);
    EXPECT_GE(r.coverage, 0.0);
    EXPECT_LE(r.coverage, 1.0);
  }
  EXPECT_EQ(rows.at({"constant-B-0-0", 1}).env, 0);
  EXPECT_EQ(rows.at({"constant-B-1-0", 1}).env, 1);
  EXPECT_TRUE(rows.at({"constant-B-0-0", 1}).success) << "set B environment 0 is reached with constant parameters";

  const std::string summary = ReadFile(out + "/summary.csv");
  EXPECT_EQ(summary.rfind("config,sweep,sweep_value,set,scope,iteration,runs,", 0), 0u) << summary;
  EXPECT_NE(summary.find("constant,,0,B,All,0,2,"), std::string::npos) << summary;
  const std::string report = ReadFile(out + "/report.html");
  EXPECT_NE(report.find("<svg"), std::string::npos);
  EXPECT_NE(report.find("smoke"), std::string::npos);
  EXPECT_EQ(report.find("<script"), std::string::npos) << "the report is self-contained, without scripts";
  // One traced run per (configuration, set): the first environment's.
  EXPECT_TRUE(fs::exists(out + "/trace_constant-B-0-0.csv"));
  EXPECT_TRUE(fs::exists(out + "/affect_constant-B-0-0.csv"));
  EXPECT_FALSE(fs::exists(out + "/trace_constant-B-1-0.csv"));
  EXPECT_NE(ReadFile(out + "/trace_constant-B-0-0.csv").find("# p_o"), std::string::npos) << "final map missing";
  // Failed traversals keep their path whether traced or not; a run without a failure writes none.
  for (const char* id : {"constant-B-0-0", "constant-B-1-0"}) {
    EXPECT_EQ(fs::exists(out + "/failed_" + id + ".csv"), !rows.at({id, 1}).success) << id;
  }
  EXPECT_NE(report.find("Failed traversals"), std::string::npos);
  // The printed summary gives success as k/n with its interval and labels both times.
  EXPECT_NE(first.log.find("success % [95% CI]"), std::string::npos) << first.log;
  EXPECT_NE(first.log.find("time ok: successful traversals only"), std::string::npos) << first.log;
  const Result per = RunExperiment({"report", out, "--per-traversal"}, tmp / "per.log");
  ASSERT_EQ(per.status, 0) << per.log;
  EXPECT_NE(per.log.find("per traversal: every run has a single traversal"), std::string::npos) << per.log;

  // 2. Again: everything is done, nothing runs, runs.csv is untouched.
  const std::string before = ReadFile(out + "/runs.csv");
  const Result again = RunExperiment({"run", "smoke", "--jobs", "2", "--out", out}, tmp / "again.log");
  ASSERT_EQ(again.status, 0) << again.log;
  EXPECT_NE(again.log.find("2 already done, 0 to run"), std::string::npos) << again.log;
  EXPECT_EQ(ReadFile(out + "/runs.csv"), before);

  // 3. Shards 1/2 and 2/2, merged, give the same rows (exec_time_ratio is wall-clock based).
  const Result s1 =
      RunExperiment({"run", "smoke", "--jobs", "1", "--shard", "1/2", "--out", tmp / "s1"}, tmp / "s1.log");
  ASSERT_EQ(s1.status, 0) << s1.log;
  const Result s2 =
      RunExperiment({"run", "smoke", "--jobs", "1", "--shard", "2/2", "--out", tmp / "s2"}, tmp / "s2.log");
  ASSERT_EQ(s2.status, 0) << s2.log;
  EXPECT_EQ(experiment::ReadRuns(tmp / "s1/runs.csv").rows.size(), 1u);
  EXPECT_EQ(experiment::ReadRuns(tmp / "s2/runs.csv").rows.size(), 1u);
  const Result merge = RunExperiment({"merge", tmp / "s1", tmp / "s2", "--out", tmp / "merged"}, tmp / "merge.log");
  ASSERT_EQ(merge.status, 0) << merge.log;
  EXPECT_TRUE(fs::exists(tmp / "merged/report.html"));
  auto merged = ByRunAndIteration(experiment::ReadRuns(tmp / "merged/runs.csv").rows);
  ASSERT_EQ(merged.size(), rows.size());
  for (auto [key, row] : merged) {
    ASSERT_TRUE(rows.count(key)) << key.first;
    IterationRow expected = rows.at(key);
    expected.exec_time_ratio = row.exec_time_ratio = 0.0;
    EXPECT_EQ(row, expected) << "run " << key.first << " differs between the sharded and the whole experiment";
  }
}

TEST(Experiment, BadInputFailsWithOneClearLine) {
  ASSERT_TRUE(fs::exists(testing::Bin("limbic-experiment"))) << "build limbic-experiment first";
  testing::TempDir tmp;
  struct Case {
    std::vector<std::string> args;
    std::string message;
  };
  const std::vector<Case> cases = {
      {{"run", "no_such_experiment", "--out", tmp / "x"}, "no_such_experiment"},
      {{"run", "smoke", "--shard", "3/2", "--out", tmp / "x"}, "--shard 3/2"},
      {{"run", "smoke", "--shard", "two", "--out", tmp / "x"}, "--shard expects K/N"},
      {{"run", "smoke", "--jobs", "0"}, "--jobs needs an integer >= 1, got '0'"},
      {{"run", "smoke", "--out", "/proc/limbic-not-writable"}, "/proc/limbic-not-writable"},
      {{"frobnicate"}, "unknown command 'frobnicate'"},
      {{"report", tmp / "missing"}, "no such directory"},
      {{"report", tmp / "missing", "--per-travesal"}, "unknown option '--per-travesal'"},
      {{"report", tmp / "missing", "--failure-pictures", "many"},
       "--failure-pictures needs an integer >= 1, got 'many'"},
  };
  int i = 0;
  for (const auto& c : cases) {
    const Result r = RunExperiment(c.args, tmp / ("bad" + std::to_string(i++) + ".log"));
    EXPECT_NE(r.status, 0) << c.args[0] << " " << c.args[1];
    EXPECT_NE(r.log.find("limbic experiment: error: "), std::string::npos) << r.log;
    EXPECT_NE(r.log.find(c.message), std::string::npos) << r.log;
    EXPECT_EQ(std::count(r.log.begin(), r.log.end(), '\n'), 1) << "one line expected:\n" << r.log;
  }
  EXPECT_FALSE(fs::exists(tmp / "x/runs.csv"));
  const Result help = RunExperiment({"run", "--help"}, tmp / "help.log");
  EXPECT_EQ(help.status, 0);
  EXPECT_NE(help.log.find("--shard K/N"), std::string::npos);
}

// A missing data folder (a moved installation, a mistyped LIMBIC_DATA_DIR): the help still prints and says so, and
// a command that needs the folder fails with one clear line (the help once ended in "terminate called").
TEST(Experiment, WithoutItsDataFolderTheHelpPrintsAndCommandsSayWhy) {
  testing::TempDir tmp;
  const std::string missing = tmp / "no-such-data";
  ::setenv("LIMBIC_DATA_DIR", missing.c_str(), 1);
  const Result help = RunExperiment({"--help"}, tmp / "help.log");
  const Result list_help = RunExperiment({"list", "--help"}, tmp / "list-help.log");
  const Result list = RunExperiment({"list"}, tmp / "list.log");
  ::unsetenv("LIMBIC_DATA_DIR");
  for (const Result* r : {&help, &list_help}) {
    EXPECT_EQ(r->status, 0) << r->log;
    EXPECT_NE(r->log.find("not found: LIMBIC_DATA_DIR names no folder: " + missing), std::string::npos) << r->log;
  }
  EXPECT_EQ(list.status, 1) << list.log;
  EXPECT_NE(list.log.find("limbic experiment: error: LIMBIC_DATA_DIR names no folder: " + missing), std::string::npos)
      << list.log;
  EXPECT_EQ(std::count(list.log.begin(), list.log.end(), '\n'), 1) << "one line expected:\n" << list.log;
}

TEST(Experiment, InterruptKeepsFinishedRunsAndAReRunCompletesTheRest) {
  ASSERT_TRUE(fs::exists(testing::Bin("limbic-experiment"))) << "build limbic-experiment first";
  testing::TempDir tmp;
  const std::string out = tmp / "smoke";
  {
    testing::ChildProcess child({testing::Bin("limbic-experiment"), "run", "smoke", "--jobs", "1", "--out", out},
                                tmp / "interrupted.log");
    // Ctrl-C as soon as the first run is in runs.csv (the second is then in flight or done).
    ASSERT_TRUE(
        testing::WaitFor([&] { return !child.Running() || fs::exists(out + "/runs.csv"); }, std::chrono::minutes(3)));
    child.Signal(SIGINT);
    const int status = child.Wait(std::chrono::minutes(3));
    EXPECT_TRUE(status == 130 || status == 0) << status << "\n" << child.Log();
  }
  const auto partial = experiment::ReadRuns(out + "/runs.csv");
  EXPECT_EQ(partial.skipped_lines, 0) << "a finished run is written whole";
  EXPECT_GE(partial.rows.size(), 1u);
  const Result rest = RunExperiment({"run", "smoke", "--jobs", "1", "--out", out}, tmp / "rest.log");
  ASSERT_EQ(rest.status, 0) << rest.log;
  EXPECT_NE(rest.log.find(std::to_string(partial.rows.size()) + " already done"), std::string::npos) << rest.log;
  EXPECT_EQ(experiment::ReadRuns(out + "/runs.csv").rows.size(), 2u);
}

}  // namespace
}  // namespace limbic
