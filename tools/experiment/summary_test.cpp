#include "tools/experiment/summary.hpp"

#include <gtest/gtest.h>

#include <cmath>

namespace limbic::experiment {
namespace {

IterationRow Row(const std::string& id, const std::string& config, int it, double time, bool ok,
                 double cpm, double coverage) {
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
  EXPECT_DOUBLE_EQ(all.Get(Metric::kSuccessRate).mean, 50.0);  // 3 of 6, in %
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
  EXPECT_EQ(text.rfind("config,sweep,sweep_value,set,scope,iteration,runs,completion_time_s_n,", 0),
            0u);
  EXPECT_EQ(std::count(text.begin(), text.end(), '\n'), 6);
  EXPECT_NE(text.find("a,,0,C,All,0,2,6,233.33333333333334,"), std::string::npos) << text;
  EXPECT_NE(text.find("a,,0,C,Final,0,2,4,312.5,"), std::string::npos);
}

}  // namespace
}  // namespace limbic::experiment
