// Summary statistics of runs.csv (§6.1 metrics): mean, standard deviation and median per
// (configuration, swept value, set), as "All" (every traversal), "Final" (the last two traversals
// of each run, Chapter 10) and per traversal ("iteration k", for per-iteration curves). Success is
// also given as a count with a Wilson score interval, and completion time also over successful
// traversals only (the §6.1 mean counts a timeout as 600 s, which mixes how often and how fast).
#pragma once

#include <array>
#include <string>
#include <vector>

#include "common/stats/proportion.hpp"
#include "tools/experiment/results.hpp"

namespace limbic::experiment {

enum class Metric {
  kCompletionTime,    // s, 600 on timeout
  kSuccessTime,       // s, completion time of the successful traversals only (timeouts left out)
  kSuccessRate,       // %, mean of 100·success
  kCollisions,        // contact events per traversal
  kCollisionsPerMin,  // reported as the mean (§6.1), the median is often 0
  kMeanVelocity,      // m/s
  kExecTimeRatio,     // compute ÷ simulated time
  kCoverage,          // once per run: the run's cumulative coverage at its last traversal in the scope
  kDistance,          // m
};
inline constexpr int kNumMetrics = 9;
inline constexpr std::array<Metric, kNumMetrics> kAllMetrics = {
    Metric::kCompletionTime, Metric::kSuccessTime,      Metric::kSuccessRate,
    Metric::kCollisions,     Metric::kCollisionsPerMin, Metric::kMeanVelocity,
    Metric::kExecTimeRatio,  Metric::kCoverage,         Metric::kDistance};

const char* MetricKey(Metric m);    // column stem in summary.csv: "completion_time_s", ...
const char* MetricTitle(Metric m);  // human title with unit: "Completion time (s)", ...
// The metric's value in one row (success: 0 or 100; kSuccessTime: the completion time, but rows
// that failed do not count for it: see Counts()).
double MetricValue(const IterationRow& row, Metric m);
// False for kSuccessTime of a failed traversal, and for a coverage or execution ratio that was not measured
// (NaN: a crowd robot's rows).
bool Counts(const IterationRow& row, Metric m);

struct Stat {
  int n = 0;
  double mean = 0.0;
  double sd = 0.0;  // sample standard deviation (n − 1); 0 for n < 2
  double median = 0.0;
};

// Mean, sample standard deviation and median of `values` (all 0 for an empty list).
Stat Describe(std::vector<double> values);

// The binomial proportion and its Wilson interval live in common/stats (shared with the laser navigator).
using stats::Proportion;
using stats::WilsonInterval;

// Which traversals a summary row covers.
enum class Scope { kAll, kFinal, kIteration };

struct SummaryRow {
  std::string config;
  std::string sweep;  // "name=value" or ""
  double sweep_value = 0.0;
  char set = 'B';
  Scope scope = Scope::kAll;
  int iteration = 0;  // for kIteration
  int runs = 0;       // distinct runs in the group
  std::array<Stat, kNumMetrics> stats;
  Proportion success;  // successful traversals of the scope with their 95 % Wilson interval

  std::string ScopeName() const;  // "All", "Final", "iteration 3"
  const Stat& Get(Metric m) const { return stats[static_cast<int>(m)]; }
};

// Groups ordered by configuration (in `config_order` first, then alphabetically), swept value, set;
// within a group: All, Final (only when runs have more than two traversals), then iterations 1..N
// (only when runs have more than one). Final = each run's two highest traversal numbers.
std::vector<SummaryRow> Summarize(const std::vector<IterationRow>& rows,
                                  const std::vector<std::string>& config_order = {});

// summary.csv: config,sweep,sweep_value,set,scope,iteration,runs, then <metric>_{n,mean,sd,median}
// (completion_time_s counts a timeout as 600 s; success_time_s is over successful traversals only),
// then successes,success_ci95_low_pct,success_ci95_high_pct.
void WriteSummaryCsv(const std::string& path, const std::vector<SummaryRow>& summary);
std::string SummaryCsvText(const std::vector<SummaryRow>& summary);

// per_traversal.csv: the per-traversal rows of `summary` (scope "iteration k") in a compact form,
// one line per configuration, swept value, set and traversal:
// config,sweep,sweep_value,set,traversal,
// traversals,successes,success_pct,success_ci95_low_pct,success_ci95_high_pct,
// time_timeouts_as_600_mean_s,time_successful_n,time_successful_mean_s,collisions_mean.
// Header only when no run has more than one traversal.
std::string PerTraversalCsvText(const std::vector<SummaryRow>& summary);
void WritePerTraversalCsv(const std::string& path, const std::vector<SummaryRow>& summary);

// The table `limbic experiment run/report` prints: All (and Final) per configuration, swept value
// and set, with success as k/n and its 95 % Wilson interval and both completion times, then a
// legend.
std::string SummaryTableText(const std::vector<SummaryRow>& summary);
// The per-traversal table (`--per-traversal`): per configuration, swept value and set, one line
// each for success %, its 95 % interval, the mean time with timeouts as 600 s and the mean time of
// the successful traversals, one column per traversal. "" when no run has more than one traversal.
std::string PerTraversalTableText(const std::vector<SummaryRow>& summary);

}  // namespace limbic::experiment
