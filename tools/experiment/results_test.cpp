#include "tools/experiment/results.hpp"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>

#include "tools/experiment/durable_file.hpp"
#include "tools/experiment/traces.hpp"

namespace limbic::experiment {
namespace {

namespace fs = std::filesystem;

fs::path FreshDir(const std::string& name) {
  const fs::path dir = fs::temp_directory_path() / ("limbic_experiment_" + name);
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

IterationRow Row(const std::string& id, int iteration, const std::string& experiment = "exp") {
  IterationRow r;
  r.run_id = id;
  r.experiment = experiment;
  r.config = "constant";
  r.set = 'C';
  r.env = 7;
  r.repeat = 2;
  r.seed = 18446744073709551557ull;
  r.sweep = "W_v4=0.25";
  r.sweep_value = 0.25;
  r.iteration = iteration;
  r.completion_time_s = 123.4 + iteration;
  r.success = iteration % 2;
  r.collisions = 3;
  r.collisions_per_min = 3 / (123.4 + iteration) * 60;
  r.mean_velocity = 0.1 + 0.2;  // not exactly 0.3: round trip must keep every bit
  r.exec_time_ratio = 0.017;
  r.coverage = 0.42;
  r.distance_travelled = 40.5;
  r.contact_cycles = 11;
  return r;
}

TEST(Csv, QuotingFollowsRfc4180) {
  EXPECT_EQ(CsvLine({"a", "b,c", "say \"hi\"", "line\nbreak", ""}), "a,\"b,c\",\"say \"\"hi\"\"\",\"line\nbreak\",");
  bool complete = false;
  const auto records = ParseCsv("a,\"b,c\",\"say \"\"hi\"\"\",\"line\nbreak\",\r\nx,y\n", &complete);
  ASSERT_EQ(records.size(), 2u);
  EXPECT_EQ(records[0], (std::vector<std::string>{"a", "b,c", "say \"hi\"", "line\nbreak", ""}));
  EXPECT_EQ(records[1], (std::vector<std::string>{"x", "y"}));
  EXPECT_TRUE(complete);
  ParseCsv("x,y\nz", &complete);
  EXPECT_FALSE(complete);
}

TEST(RunsCsv, RoundTripWithQuotedFields) {
  const fs::path dir = FreshDir("roundtrip");
  std::vector<IterationRow> rows = {Row("a-1", 1), Row("a-1", 2), Row("b,\"quoted\"", 1)};
  rows[2].config = "with, comma";
  WriteRuns((dir / "runs.csv").string(), rows);
  const RunsFile back = ReadRuns((dir / "runs.csv").string());
  EXPECT_EQ(back.skipped_lines, 0);
  ASSERT_EQ(back.rows.size(), 3u);
  for (size_t i = 0; i < rows.size(); ++i) EXPECT_EQ(back.rows[i], rows[i]) << i;
}

TEST(RunsCsv, ErrorRowsCarryTheMessageAndAreKeptApartFromData) {
  const fs::path dir = FreshDir("errors");
  IterationRow error = Row("c-1", 0);
  error.status = "error";
  error.error = "step r1/controller failed at tick 0: ControlParameters.n_theta must be at least 1, \"got\" 0";
  WriteRuns((dir / "runs.csv").string(), {Row("a-1", 1), error});
  const RunsFile back = ReadRuns((dir / "runs.csv").string());
  ASSERT_EQ(back.rows.size(), 1u);
  EXPECT_EQ(back.rows[0], Row("a-1", 1));
  ASSERT_EQ(back.errors.size(), 1u);
  EXPECT_EQ(back.errors[0], error);
  EXPECT_EQ(FinishedRuns((dir / "runs.csv").string(), 1), (std::set<std::string>{"a-1", "c-1"}));
}

TEST(RunsCsv, AFileFromBeforeTheStatusColumnReadsAsData) {
  const fs::path dir = FreshDir("legacy");
  const auto& columns = RunsCsvColumns();
  ASSERT_EQ(columns[columns.size() - 3], "status");
  std::string text = CsvLine(std::vector<std::string>(columns.begin(), columns.end() - 3)) + "\n";
  std::string line = FormatRow(Row("old-1", 1));
  line = line.substr(0, line.size() - std::string(",ok,,r1").size());  // the row without status, error, robot
  text += line + "\n";
  std::ofstream((dir / "runs.csv").string()) << text;
  const RunsFile back = ReadRuns((dir / "runs.csv").string());
  EXPECT_EQ(back.skipped_lines, 0);
  ASSERT_EQ(back.rows.size(), 1u);
  EXPECT_EQ(back.rows[0], Row("old-1", 1));
}

// Issue 18 item 1: files written before the robot column read as robot r1, and can be read but not extended.
TEST(RunsCsv, AFileFromBeforeTheRobotColumnReadsAsRobotR1) {
  const fs::path dir = FreshDir("before-robot");
  const auto& columns = RunsCsvColumns();
  ASSERT_EQ(columns.back(), "robot");
  std::string text = CsvLine(std::vector<std::string>(columns.begin(), columns.end() - 1)) + "\n";
  std::string line = FormatRow(Row("old-1", 1));
  line = line.substr(0, line.size() - std::string(",r1").size());
  text += line + "\n";
  const std::string path = (dir / "runs.csv").string();
  std::ofstream(path) << text;
  const RunsFile back = ReadRuns(path);
  EXPECT_EQ(back.skipped_lines, 0);
  ASSERT_EQ(back.rows.size(), 1u);
  EXPECT_EQ(back.rows[0].robot, "r1");
  EXPECT_EQ(back.rows[0], Row("old-1", 1));
  EXPECT_THROW(AppendRows(path, {Row("new-1", 1)}), std::runtime_error);
}

// A team run has one row per robot and traversal: robot r1's are the results (rows), the others are kept
// apart (team_rows), each (run, robot, traversal) once; a row with an empty robot is malformed.
TEST(RunsCsv, TeamRowsAreKeptPerRobot) {
  const fs::path dir = FreshDir("team");
  const std::string path = (dir / "runs.csv").string();
  auto robot_row = [](const std::string& robot, int iteration, bool success) {
    IterationRow r = Row("team-1", iteration);
    r.robot = robot;
    r.success = success;
    return r;
  };
  AppendRows(path, {robot_row("r1", 1, true), robot_row("r2", 1, false), robot_row("r3", 1, true)});
  AppendRows(path, {robot_row("r2", 1, true)});  // a later row for (team-1, r2, 1) replaces the earlier one
  {
    std::ofstream out(path, std::ios::app);
    std::string bad = FormatRow(robot_row("r4", 1, true));
    out << bad.substr(0, bad.size() - 2) << "\n";  // robot column empty
  }
  const RunsFile back = ReadRuns(path);
  EXPECT_EQ(back.skipped_lines, 1);
  ASSERT_EQ(back.rows.size(), 1u);
  EXPECT_EQ(back.rows[0].robot, "r1");
  ASSERT_EQ(back.team_rows.size(), 2u);
  EXPECT_EQ(back.team_rows[0].robot, "r2");
  EXPECT_TRUE(back.team_rows[0].success);
  EXPECT_EQ(back.team_rows[1].robot, "r3");
  // Merging keeps every robot's rows.
  const fs::path merged = dir / "merged";
  const MergeResult m = Merge({dir.string()}, merged.string());
  EXPECT_EQ(m.rows, 3);
  EXPECT_EQ(m.runs, 1);
  EXPECT_EQ(ReadRuns((merged / "runs.csv").string()).team_rows.size(), 2u);
}

// A crowd robot's unmeasured coverage and execution ratio (NaN) survive the file as "nan".
TEST(RunsCsv, UnmeasuredValuesRoundTripAsNaN) {
  const fs::path dir = FreshDir("nan");
  IterationRow r = Row("mixed-1", 1);
  r.coverage = std::numeric_limits<double>::quiet_NaN();
  r.exec_time_ratio = std::numeric_limits<double>::quiet_NaN();
  WriteRuns((dir / "runs.csv").string(), {r});
  const RunsFile back = ReadRuns((dir / "runs.csv").string());
  EXPECT_EQ(back.skipped_lines, 0);
  ASSERT_EQ(back.rows.size(), 1u);
  EXPECT_TRUE(std::isnan(back.rows[0].coverage));
  EXPECT_TRUE(std::isnan(back.rows[0].exec_time_ratio));
  EXPECT_DOUBLE_EQ(back.rows[0].completion_time_s, r.completion_time_s);
}

TEST(RunsCsv, AppendWritesHeaderOnceAndRejectsForeignFiles) {
  const fs::path dir = FreshDir("append");
  const std::string path = (dir / "runs.csv").string();
  AppendRows(path, {Row("a", 1)});
  AppendRows(path, {Row("b", 1), Row("b", 2)});
  std::ifstream in(path);
  std::string text((std::istreambuf_iterator<char>(in)), {});
  EXPECT_EQ(text.find("run_id,experiment"), 0u);
  EXPECT_EQ(text.find("run_id,experiment", 1), std::string::npos);
  EXPECT_EQ(ReadRuns(path).rows.size(), 3u);
  const std::string other = (dir / "other.csv").string();
  std::ofstream(other) << "a,b,c\n1,2,3\n";
  EXPECT_THROW(AppendRows(other, {Row("a", 1)}), std::runtime_error);
  EXPECT_THROW(ReadRuns(other), std::runtime_error);
}

TEST(RunsCsv, ResumeAfterATornWrite) {
  const fs::path dir = FreshDir("resume");
  const std::string path = (dir / "runs.csv").string();
  AppendRows(path, {Row("done", 1), Row("done", 2)});
  AppendRows(path, {Row("torn", 1)});
  {  // simulate a kill in the middle of the second row of run "torn"
    std::ofstream out(path, std::ios::app);
    out << FormatRow(Row("torn", 2)).substr(0, 20);
  }
  EXPECT_EQ(FinishedRuns(path, 2), (std::set<std::string>{"done"}));
  RunsFile file = ReadRuns(path);
  EXPECT_EQ(file.skipped_lines, 1);
  EXPECT_EQ(file.rows.size(), 3u);
  // The resumed run appends all its rows again; the newer ones replace the old.
  IterationRow again = Row("torn", 1);
  again.completion_time_s = 99;
  AppendRows(path, {again, Row("torn", 2)});
  EXPECT_EQ(FinishedRuns(path, 2), (std::set<std::string>{"done", "torn"}));
  file = ReadRuns(path);
  EXPECT_EQ(file.skipped_lines, 0);  // the torn fragment was cut off before appending, never kept
  ASSERT_EQ(file.rows.size(), 4u);
  EXPECT_DOUBLE_EQ(file.rows[2].completion_time_s, 99);
  EXPECT_TRUE(FinishedRuns((dir / "missing.csv").string(), 2).empty());
}

TEST(Merge, ConcatenatesAndDropsDuplicateRuns) {
  const fs::path a = FreshDir("merge_a"), b = FreshDir("merge_b"), out = FreshDir("merge_out");
  WriteRuns((a / "runs.csv").string(), {Row("r1", 1), Row("r1", 2), Row("r2", 1)});
  IterationRow dup = Row("r2", 1);
  dup.completion_time_s = 1;
  WriteRuns((b / "runs.csv").string(), {dup, Row("r3", 1)});
  std::ofstream(b / "trace_r3.csv") << "x";
  std::ofstream(b / "affect_r3.csv") << "x";
  std::ofstream(b / "failed_r3.csv") << "x";
  std::ofstream(b / "notes.csv") << "x";
  const MergeResult m = Merge({a.string(), b.string()}, out.string());
  EXPECT_EQ(m.experiment, "exp");
  EXPECT_EQ(m.rows, 4);
  EXPECT_EQ(m.runs, 3);
  EXPECT_EQ(m.duplicate_runs, 1);
  EXPECT_EQ(m.trace_files, 3);  // trace_, affect_ and failed_ (the failures section's paths)
  const auto rows = ReadRuns((out / "runs.csv").string()).rows;
  ASSERT_EQ(rows.size(), 4u);
  EXPECT_NE(rows[2].completion_time_s, 1);  // r2 from the first directory
  EXPECT_TRUE(fs::exists(out / "trace_r3.csv"));
  EXPECT_TRUE(fs::exists(out / "failed_r3.csv"));
  EXPECT_FALSE(fs::exists(out / "notes.csv"));
}

TEST(Merge, RefusesDifferentExperiments) {
  const fs::path a = FreshDir("mismatch_a"), b = FreshDir("mismatch_b"), out = FreshDir("mismatch_out");
  WriteRuns((a / "runs.csv").string(), {Row("r1", 1, "ch10_integrated")});
  WriteRuns((b / "runs.csv").string(), {Row("r2", 1, "ch7_safety_r_o")});
  try {
    Merge({a.string(), b.string()}, out.string());
    FAIL() << "expected an error";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("ch7_safety_r_o"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("ch10_integrated"), std::string::npos) << e.what();
  }
  EXPECT_THROW(Merge({(a / "nope").string()}, out.string()), std::runtime_error);
}

std::string ReadAll(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Runs `fn` in a child whose files may not grow beyond `limit` bytes (RLIMIT_FSIZE: EFBIG instead of
// SIGXFSZ, as `limbic experiment` sets it); returns the error text it caught ("" if none).
template <typename Fn>
std::string UnderFileSizeLimit(rlim_t limit, Fn fn) {
  int pipefd[2];
  if (pipe(pipefd) != 0) return "pipe failed";
  const pid_t pid = fork();
  if (pid == 0) {
    close(pipefd[0]);
    signal(SIGXFSZ, SIG_IGN);
    rlimit r{limit, limit};
    setrlimit(RLIMIT_FSIZE, &r);
    std::string error;
    try {
      fn();
    } catch (const std::exception& e) {
      error = e.what();
    }
    (void)!write(pipefd[1], error.data(), error.size());
    _exit(0);
  }
  close(pipefd[1]);
  std::string error;
  char buffer[512];
  for (ssize_t n; (n = read(pipefd[0], buffer, sizeof(buffer))) > 0;) error.append(buffer, static_cast<size_t>(n));
  close(pipefd[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  EXPECT_TRUE(WIFEXITED(status)) << "the child died (SIGXFSZ?)";
  return error;
}

// Issue 16 finding 5: a full disk left runs.csv ending in half a row and said only "write failed".
TEST(RunsCsv, AFullDiskAppendsWholeRowsOrNoneAndNamesTheCause) {
  const fs::path dir = FreshDir("fsize");
  const std::string path = (dir / "runs.csv").string();
  AppendRows(path, {Row("first", 1), Row("first", 2)});
  const std::string before = ReadAll(path);
  const std::string error = UnderFileSizeLimit(before.size() + 100, [&] {
    AppendRows(path, {Row("second", 1), Row("second", 2)});  // ~300 bytes: only 100 fit
  });
  EXPECT_NE(error.find(path), std::string::npos) << error;
  EXPECT_NE(error.find("File too large"), std::string::npos) << error;
  EXPECT_EQ(ReadAll(path), before);  // not half a row: nothing
  EXPECT_EQ(ReadRuns(path).skipped_lines, 0);
  // summary.csv and the traces are replaced whole or not at all: the old file survives.
  const std::string summary = (dir / "summary.csv").string();
  WriteFileAtomically(summary, "old summary\n");
  const std::string summary_error =
      UnderFileSizeLimit(50, [&] { WriteFileAtomically(summary, std::string(1000, 'x')); });
  EXPECT_NE(summary_error.find("summary.csv: cannot write 1000 bytes: File too large"), std::string::npos)
      << summary_error;
  EXPECT_EQ(ReadAll(summary), "old summary\n");
  for (const auto& entry : fs::directory_iterator(dir)) {
    EXPECT_EQ(entry.path().filename().string().find(".tmp-"), std::string::npos) << "temporary left behind";
  }
}

// The same on a real full file system (a 64 KiB tmpfs), which needs root.
TEST(RunsCsv, ATinyTmpfsFillsUpWithoutATornRow) {
  const fs::path dir = FreshDir("tmpfs");
  if (mount("tmpfs", dir.c_str(), "tmpfs", 0, "size=64k") != 0) {
    GTEST_SKIP() << "cannot mount a tmpfs here (" << std::strerror(errno) << "; needs root): the RLIMIT_FSIZE "
                 << "test covers the same code";
  }
  struct Unmount {
    std::string path;
    ~Unmount() { umount2(path.c_str(), MNT_DETACH); }
  } unmount{dir.string()};
  const std::string path = (dir / "runs.csv").string();
  std::string error;
  int runs = 0;
  for (; runs < 10000 && error.empty(); ++runs) {
    try {
      AppendRows(path, {Row("run" + std::to_string(runs), 1), Row("run" + std::to_string(runs), 2)});
    } catch (const std::exception& e) {
      error = e.what();
    }
  }
  ASSERT_FALSE(error.empty()) << "64 KiB never filled up";
  EXPECT_NE(error.find(path + ": cannot append"), std::string::npos) << error;
  EXPECT_NE(error.find("No space left on device"), std::string::npos) << error;
  const std::string text = ReadAll(path);
  ASSERT_FALSE(text.empty());
  EXPECT_EQ(text.back(), '\n');
  const RunsFile file = ReadRuns(path);
  EXPECT_EQ(file.skipped_lines, 0);
  EXPECT_EQ(file.rows.size(), 2u * static_cast<size_t>(runs - 1));  // every finished run whole
  EXPECT_EQ(FinishedRuns(path, 2).size(), static_cast<size_t>(runs - 1));
}

TEST(Traces, ACutTraceIsReportedAsCut) {
  const fs::path dir = FreshDir("cut_trace");
  RunTrace t;
  t.run_id = "x-B-0-0";
  t.grid.width = t.grid.height = 4;
  t.occupancy.assign(16, 0.25);
  for (int i = 0; i < 50; ++i) t.samples.push_back({0.1 * i, 1, 0.01 * i, 0.0, 0.0});
  const std::string path = (dir / "trace.csv").string();
  WriteRunTrace(path, t);
  EXPECT_TRUE(TraceFileComplete(path));
  EXPECT_EQ(ReadRunTrace(path).samples.size(), 50u);
  // Cut anywhere (mid-line or at a line end), the file is cut, not malformed.
  const std::string text = ReadAll(path);
  for (size_t keep : {text.size() / 2, text.find("# p_o") + 6, text.size() - 1}) {
    std::ofstream(path, std::ios::binary | std::ios::trunc) << text.substr(0, keep);
    EXPECT_FALSE(TraceFileComplete(path)) << keep;
    EXPECT_THROW(ReadRunTrace(path), TraceCutError) << keep;
  }
  std::ofstream(path, std::ios::binary | std::ios::trunc);  // empty: created, nothing written
  EXPECT_THROW(ReadRunTrace(path), TraceCutError);
}

}  // namespace
}  // namespace limbic::experiment
