// Summaries of laser experiments (spec reactive-topological §4.0): per configuration and density the
// percentage of worlds solved with its 95 % Wilson score interval, the efficiency of solved worlds
// (Eq. 4-2) and their average time with 95 % t intervals, the performance index
//   PI = %solved² × %efficiency_solved × (100 − average_time)            (Eq. 4-3)
// and, for sweeps, the index normalised by its maximum at each density (A35) and summed over densities.
#pragma once

#include <string>
#include <vector>

#include "tools/laser/laser_experiment.hpp"

namespace limbic::laser {

struct Interval {
  double mean = 0, low = 0, high = 0;
  int n = 0;
};

// 95 % Wilson score interval of k successes in n (as fractions).
Interval WilsonInterval(int k, int n);
// Mean with its 95 % Student t interval (a single value: low = high = mean).
Interval MeanInterval(const std::vector<double>& values);

struct CellSummary {
  std::string configuration;
  double density = 0;
  int worlds = 0;
  int solved = 0;
  Interval solved_pct;      // percent
  Interval efficiency_pct;  // solved worlds
  Interval time_s;          // solved worlds
  double collisions_per_episode = 0;
  double performance_index = 0;  // Eq. 4-3
  double normalised_index = 0;   // PI / max PI at this density
};

struct ConfigurationTotal {
  std::string configuration;
  double summed_normalised_index = 0;
};

struct LaserSummary {
  std::vector<CellSummary> cells;          // configuration order, then density
  std::vector<ConfigurationTotal> totals;  // configuration order
  std::string optimum;                     // the configuration with the largest summed index
};

LaserSummary Summarise(const LaserExperiment& experiment, const std::vector<EpisodeRow>& rows);

// Eq. 4-3 with percentages and seconds.
double PerformanceIndex(double solved_pct, double efficiency_pct, double average_time_s);

std::string SummaryCsv(const LaserSummary& summary);
std::string SummaryMarkdown(const LaserExperiment& experiment, const LaserSummary& summary);

// E6/E7 (controller memory): per configuration and density, nodes per world and links per node (95 % t
// intervals), and how the map layer was used: plans per episode, how map-following ended, time in it.
std::string MapSummaryMarkdown(const LaserExperiment& experiment, const std::vector<EpisodeRow>& rows);
// E8: the CPU share of each stage (simulator, reactive controller, perception, mapping, planning, map
// following), CPU time per control cycle, the wall/simulated time ratio and bytes per map node, per
// configuration and density.
std::string CostSummaryMarkdown(const LaserExperiment& e, const std::vector<EpisodeRow>& rows);

// E1: per density, realised density, optimal path length and obstacle count with 95 % intervals.
std::string WorldSummaryCsv(const std::vector<WorldRow>& rows);
std::string WorldSummaryMarkdown(const LaserExperiment& experiment, const std::vector<WorldRow>& rows);

// E3's failure case studies (case_studies): per configuration and density, how many episodes ended in each
// failure kind (failure_cases.hpp).
std::string FailureSummaryMarkdown(const LaserExperiment& experiment, const std::vector<EpisodeRow>& rows);

// E2c (kind: field): per density, the potential-minimum places per world and the cells they cover (95 % t
// intervals), and the share of worlds with at least one place (95 % Wilson interval).
std::string FieldSummaryCsv(const std::vector<WorldRow>& rows);
std::string FieldSummaryMarkdown(const LaserExperiment& experiment, const std::vector<WorldRow>& rows);

}  // namespace limbic::laser
