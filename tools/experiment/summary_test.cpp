#include "tools/experiment/summary.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

namespace limbic::experiment {
namespace {

IterationRow Row(const std::string& id, const std::string& config, int it, double time, bool ok, double cpm,
                 double coverage) {
  IterationRow r;
  r.run_id = id;
  r.experiment = "e";
  r.config = config;
  r.set = 'C';
  r.iteration = it;
  r.completion_time_s = time;
  r.success = ok;
  r.collisions_per_min = cpm;
  r.coverage = coverage;
  return r;
}

// Two runs of three traversals each (numbers worked by hand in the comments).
std::vector<IterationRow> TwoRuns() {
  return {Row("r1", "a", 1, 100, true, 0, 0.2),  Row("r1", "a", 2, 200, true, 1, 0.4),
          Row("r1", "a", 3, 300, false, 2, 0.5), Row("r2", "a", 1, 50, true, 3, 0.1),
          Row("r2", "a", 2, 150, false, 0, 0.3), Row("r2", "a", 3, 600, false, 0, 0.7)};
}

TEST(Describe, MeanSampleSdMedian) {
  const Stat s = Describe({2, 4, 4, 4, 5, 5, 7, 9});
  EXPECT_EQ(s.n, 8);
  EXPECT_DOUBLE_EQ(s.mean, 5.0);
  EXPECT_DOUBLE_EQ(s.sd, std::sqrt(32.0 / 7.0));  // Σ(x − 5)² = 32, n − 1 = 7
  EXPECT_DOUBLE_EQ(s.median, 4.5);
  EXPECT_DOUBLE_EQ(Describe({3}).sd, 0.0);
  EXPECT_DOUBLE_EQ(Describe({3, 1, 2}).median, 2.0);
  EXPECT_EQ(Describe({}).n, 0);
}

TEST(Summarize, AllFinalAndPerIteration) {
  const auto s = Summarize(TwoRuns());
  // All, Final, iterations 1..3
  ASSERT_EQ(s.size(), 5u);
  const SummaryRow& all = s[0];
  EXPECT_EQ(all.ScopeName(), "All");
  EXPECT_EQ(all.runs, 2);
  // completion: 100, 200, 300, 50, 150, 600 → mean 1400/6, median (150 + 200)/2
  EXPECT_DOUBLE_EQ(all.Get(Metric::kCompletionTime).mean, 1400.0 / 6.0);
  EXPECT_DOUBLE_EQ(all.Get(Metric::kCompletionTime).median, 175.0);
  // Σ(x − 233.33)² = 198333.33 → sd = √(198333.33 / 5)
  EXPECT_NEAR(all.Get(Metric::kCompletionTime).sd, std::sqrt(198333.3333333 / 5.0), 1e-6);
  EXPECT_DOUBLE_EQ(all.Get(Metric::kSuccessRate).mean, 50.0);      // 3 of 6, in %
  EXPECT_DOUBLE_EQ(all.Get(Metric::kCollisionsPerMin).mean, 1.0);  // (0+1+2+3+0+0)/6
  EXPECT_DOUBLE_EQ(all.Get(Metric::kCollisionsPerMin).median, 0.5);
  // coverage once per run, the cumulative value at the last traversal: 0.5 and 0.7
  EXPECT_EQ(all.Get(Metric::kCoverage).n, 2);
  EXPECT_DOUBLE_EQ(all.Get(Metric::kCoverage).mean, 0.6);

  const SummaryRow& fin = s[1];
  EXPECT_EQ(fin.ScopeName(), "Final");
  // traversals 2 and 3: 200, 300, 150, 600
  EXPECT_DOUBLE_EQ(fin.Get(Metric::kCompletionTime).mean, 312.5);
  EXPECT_DOUBLE_EQ(fin.Get(Metric::kCompletionTime).median, 250.0);
  EXPECT_DOUBLE_EQ(fin.Get(Metric::kSuccessRate).mean, 25.0);
  EXPECT_DOUBLE_EQ(fin.Get(Metric::kCollisionsPerMin).mean, 0.75);
  EXPECT_DOUBLE_EQ(fin.Get(Metric::kCoverage).mean, 0.6);

  EXPECT_EQ(s[2].ScopeName(), "iteration 1");
  EXPECT_DOUBLE_EQ(s[2].Get(Metric::kCompletionTime).mean, 75.0);
  EXPECT_DOUBLE_EQ(s[2].Get(Metric::kCoverage).mean, 0.15);
  EXPECT_DOUBLE_EQ(s[4].Get(Metric::kSuccessRate).mean, 0.0);
}

TEST(Summarize, SuccessAsProportionAndTimeOfSuccessfulTraversals) {
  const auto s = Summarize(TwoRuns());
  ASSERT_EQ(s.size(), 5u);
  // All: 3 of 6 succeeded → Wilson [0.187616, 0.812384]
  EXPECT_EQ(s[0].success.successes, 3);
  EXPECT_EQ(s[0].success.trials, 6);
  EXPECT_NEAR(s[0].success.low, 0.1876163, 1e-7);
  EXPECT_NEAR(s[0].success.high, 0.8123837, 1e-7);
  // Successful traversals only: 100, 200, 50 (the 300, 150 and 600 s of failures are left out),
  // against 1400/6 = 233.3 s with the failures in.
  const Stat& ok_all = s[0].Get(Metric::kSuccessTime);
  EXPECT_EQ(ok_all.n, 3);
  EXPECT_DOUBLE_EQ(ok_all.mean, 350.0 / 3.0);
  EXPECT_DOUBLE_EQ(ok_all.median, 100.0);
  // Final (traversals 2, 3): only r1's 200 s succeeded.
  EXPECT_EQ(s[1].Get(Metric::kSuccessTime).n, 1);
  EXPECT_DOUBLE_EQ(s[1].Get(Metric::kSuccessTime).mean, 200.0);
  EXPECT_EQ(s[1].success.successes, 1);
  EXPECT_EQ(s[1].success.trials, 4);
  // Traversal 3: nobody succeeded → no success time at all, and 0/2 with interval [0, 0.657620].
  EXPECT_EQ(s[4].Get(Metric::kSuccessTime).n, 0);
  EXPECT_EQ(s[4].success.successes, 0);
  EXPECT_DOUBLE_EQ(s[4].success.low, 0.0);
  EXPECT_NEAR(s[4].success.high, 3.841458820694124 / (2 + 3.841458820694124), 1e-12);
}

TEST(Summarize, PerTraversalCsvHasOneLinePerTraversalOfEachGroup) {
  std::vector<IterationRow> rows = TwoRuns();
  for (IterationRow r : TwoRuns()) {  // the same runs in set D, all successful and 10 s faster
    r.run_id += "d";
    r.set = 'D';
    r.success = true;
    r.completion_time_s -= 10;
    rows.push_back(r);
  }
  const auto lines = ParseCsv(PerTraversalCsvText(Summarize(rows)));
  ASSERT_EQ(lines.size(), 1u + 2 * 3);  // header + (C, D) × traversals 1..3, no All or Final
  EXPECT_EQ(lines[0][4], "traversal");
  EXPECT_EQ(lines[0][10], "time_timeouts_as_600_mean_s");
  // Set C, traversal 2: r1 200 s ok, r2 150 s failed → 1 of 2, Wilson [0.094531, 0.905469];
  // mean time with the failure's time in: 175 s; successful only: 200 s.
  const auto& c2 = lines[2];
  EXPECT_EQ(c2[3], "C");
  EXPECT_EQ(c2[4], "2");
  EXPECT_EQ(c2[5], "2");
  EXPECT_EQ(c2[6], "1");
  EXPECT_EQ(c2[7], "50");
  EXPECT_NEAR(std::stod(c2[8]), 9.4531, 1e-3);
  EXPECT_NEAR(std::stod(c2[9]), 90.5469, 1e-3);
  EXPECT_EQ(c2[10], "175");
  EXPECT_EQ(c2[11], "1");
  EXPECT_EQ(c2[12], "200");
  // Set C, traversal 3: nobody arrived → no successful time (empty), success 0 %.
  EXPECT_EQ(lines[3][4], "3");
  EXPECT_EQ(lines[3][7], "0");
  EXPECT_EQ(lines[3][11], "0");
  EXPECT_EQ(lines[3][12], "");
  // Set D, traversal 3: 290 and 590 s, both successful: the two means agree.
  EXPECT_EQ(lines[6][3], "D");
  EXPECT_EQ(lines[6][7], "100");
  EXPECT_EQ(lines[6][10], "440");
  EXPECT_EQ(lines[6][12], "440");
  // One traversal per run: no per-traversal lines.
  EXPECT_EQ(ParseCsv(PerTraversalCsvText(Summarize({TwoRuns()[0]}))).size(), 1u);
}

TEST(SummaryTableText, LabelsBothTimesAndGivesSuccessWithItsInterval) {
  const std::string text = SummaryTableText(Summarize(TwoRuns()));
  // All: 3/6 = 50 % [18.8-81.2]; time with timeouts 233.3 s, successful only 116.7 s.
  EXPECT_NE(text.find("3/6"), std::string::npos) << text;
  EXPECT_NE(text.find("50.0 [18.8-81.2]"), std::string::npos) << text;
  EXPECT_NE(text.find("233.3 ("), std::string::npos) << text;
  EXPECT_NE(text.find("116.7 ("), std::string::npos) << text;
  EXPECT_NE(text.find("timeout counted as 600 s"), std::string::npos);
  EXPECT_NE(text.find("time ok: successful traversals only"), std::string::npos);
  EXPECT_EQ(text.find("iteration"), std::string::npos) << "per-traversal rows are not in the short table";
}

// A crowd robot's rows carry NaN coverage and execution ratio (not measured): they are left out of the
// statistics and shown as "-", never averaged in as 0 (or as NaN).
TEST(Summarize, UnmeasuredCoverageAndExecutionRatioAreLeftOut) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  std::vector<IterationRow> rows = TwoRuns();
  for (IterationRow& r : rows) r.exec_time_ratio = 0.25;
  const std::vector<IterationRow> measured = rows;
  for (IterationRow& r : rows) {
    if (r.run_id == "r2") r.coverage = r.exec_time_ratio = nan;  // run r2: a crowd robot
  }
  const auto summary = Summarize(rows);
  const SummaryRow& all = summary.front();
  ASSERT_EQ(all.scope, Scope::kAll);
  EXPECT_EQ(all.Get(Metric::kCoverage).n, 1);  // run r1 only: its last traversal
  EXPECT_DOUBLE_EQ(all.Get(Metric::kCoverage).mean, 0.5);
  EXPECT_EQ(all.Get(Metric::kExecTimeRatio).n, 3);
  EXPECT_DOUBLE_EQ(all.Get(Metric::kExecTimeRatio).mean, 0.25);
  EXPECT_EQ(all.Get(Metric::kCompletionTime).n, 6);  // the other metrics still count every row
  EXPECT_DOUBLE_EQ(Summarize(measured).front().Get(Metric::kCoverage).mean, 0.6);  // (0.5 + 0.7) / 2

  for (IterationRow& r : rows) r.coverage = r.exec_time_ratio = nan;  // every run a crowd robot
  const std::string text = SummaryTableText(Summarize(rows));
  EXPECT_EQ(text.find("nan"), std::string::npos) << text;
  EXPECT_NE(text.find("      -       -\n"), std::string::npos) << text;  // the cover and exec columns
  const std::string csv = SummaryCsvText(Summarize(rows));
  EXPECT_EQ(csv.find("nan"), std::string::npos) << csv;
}

TEST(PerTraversalTableText, OneColumnPerTraversalAndADashWithoutSuccess) {
  const std::string text = PerTraversalTableText(Summarize(TwoRuns()));
  std::vector<std::string> lines;
  for (size_t a = 0, b; (b = text.find('\n', a)) != std::string::npos; a = b + 1)
    lines.push_back(text.substr(a, b - a));
  ASSERT_EQ(lines.size(), 5u) << text;  // header + success, CI, time, time of successes
  EXPECT_NE(lines[0].find("traversal"), std::string::npos);
  // Traversals 1, 2, 3: 2/2, 1/2, 0/2 arrived.
  EXPECT_NE(lines[1].find("100.0        50.0         0.0"), std::string::npos) << lines[1];
  EXPECT_NE(lines[2].find("34-100"), std::string::npos) << lines[2];  // 2/2: [34.2, 100]
  EXPECT_NE(lines[3].find("75.0       175.0       450.0"), std::string::npos) << lines[3];
  EXPECT_NE(lines[4].find("75.0       200.0           -"), std::string::npos) << lines[4];
  EXPECT_EQ(PerTraversalTableText(Summarize({TwoRuns()[0]})), "");
}

TEST(Summarize, GroupsByConfigSweepAndSetInOrder) {
  std::vector<IterationRow> rows;
  for (double v : {0.5, 0.25}) {
    for (const char* c : {"constant", "affective"}) {
      IterationRow r = Row(std::string(c) + std::to_string(v), c, 1, 10 * v, true, 0, 0);
      r.sweep_value = v;
      r.sweep = "x=" + std::to_string(v);
      rows.push_back(r);
    }
  }
  auto s = Summarize(rows, {"constant"});
  ASSERT_EQ(s.size(), 4u);  // one traversal: All only
  EXPECT_EQ(s[0].config, "constant");
  EXPECT_DOUBLE_EQ(s[0].sweep_value, 0.25);
  EXPECT_EQ(s[1].config, "constant");
  EXPECT_DOUBLE_EQ(s[1].sweep_value, 0.5);
  EXPECT_EQ(s[2].config, "affective");
  s = Summarize(rows);
  EXPECT_EQ(s[0].config, "affective");  // alphabetical without an order
}

TEST(Summarize, CsvHasOneLinePerRowAndTheStats) {
  const std::string text = SummaryCsvText(Summarize(TwoRuns()));
  EXPECT_EQ(text.rfind("config,sweep,sweep_value,set,scope,iteration,runs,completion_time_s_n,", 0), 0u);
  EXPECT_EQ(std::count(text.begin(), text.end(), '\n'), 6);
  EXPECT_NE(text.find("a,,0,C,All,0,2,6,233.33333333333334,"), std::string::npos) << text;
  EXPECT_NE(text.find("a,,0,C,Final,0,2,4,312.5,"), std::string::npos);
  const auto lines = ParseCsv(text);
  const auto& header = lines[0];
  ASSERT_EQ(header.size(), 7u + 4 * kNumMetrics + 3);
  const auto column = [&](const std::string& name) {
    return static_cast<size_t>(std::find(header.begin(), header.end(), name) - header.begin());
  };
  ASSERT_LT(column("success_time_s_mean"), header.size());
  ASSERT_LT(column("success_ci95_high_pct"), header.size());
  EXPECT_EQ(lines[1][column("success_time_s_n")], "3");
  EXPECT_EQ(lines[1][column("successes")], "3");
  EXPECT_NEAR(std::stod(lines[1][column("success_ci95_low_pct")]), 18.76163, 1e-5);
  EXPECT_NEAR(std::stod(lines[1][column("success_ci95_high_pct")]), 81.23837, 1e-5);
  // Traversal 3 had no success: its success-time fields are empty, not 0.
  EXPECT_EQ(lines[5][column("scope")], "iteration");
  EXPECT_EQ(lines[5][column("iteration")], "3");
  EXPECT_EQ(lines[5][column("success_time_s_n")], "0");
  EXPECT_EQ(lines[5][column("success_time_s_mean")], "");
  EXPECT_EQ(lines[5][column("successes")], "0");
  EXPECT_EQ(lines[5][column("success_ci95_low_pct")], "0");
}

}  // namespace
}  // namespace limbic::experiment
