#include "tools/experiment/summary.hpp"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>
#include <set>
#include <stdexcept>
#include <tuple>

#include "tools/experiment/definition.hpp"
#include "tools/experiment/durable_file.hpp"

namespace limbic::experiment {
namespace {


// Statistics of one scope over the rows of one group (rows of several runs).
SummaryRow Aggregate(const std::vector<const IterationRow*>& rows) {
  SummaryRow out;
  std::array<std::vector<double>, kNumMetrics> values;
  std::map<std::string, const IterationRow*> last_of_run;  // coverage once per run
  for (const IterationRow* r : rows) {
    for (Metric m : kAllMetrics) {
      if (m != Metric::kCoverage) values[static_cast<int>(m)].push_back(MetricValue(*r, m));
    }
    auto& last = last_of_run[r->run_id];
    if (!last || r->iteration > last->iteration) last = r;
  }
  for (const auto& [id, r] : last_of_run)
    values[static_cast<int>(Metric::kCoverage)].push_back(r->coverage);
  for (int i = 0; i < kNumMetrics; ++i) out.stats[i] = Describe(values[i]);
  out.runs = static_cast<int>(last_of_run.size());
  return out;
}

}  // namespace

double MetricValue(const IterationRow& r, Metric m) {
  switch (m) {
    case Metric::kCompletionTime: return r.completion_time_s;
    case Metric::kSuccessRate: return r.success ? 100.0 : 0.0;
    case Metric::kCollisions: return r.collisions;
    case Metric::kCollisionsPerMin: return r.collisions_per_min;
    case Metric::kMeanVelocity: return r.mean_velocity;
    case Metric::kExecTimeRatio: return r.exec_time_ratio;
    case Metric::kCoverage: return r.coverage;
    case Metric::kDistance: return r.distance_travelled;
  }
  return 0.0;
}

const char* MetricKey(Metric m) {
  switch (m) {
    case Metric::kCompletionTime: return "completion_time_s";
    case Metric::kSuccessRate: return "success_rate_pct";
    case Metric::kCollisions: return "collisions";
    case Metric::kCollisionsPerMin: return "collisions_per_min";
    case Metric::kMeanVelocity: return "mean_velocity";
    case Metric::kExecTimeRatio: return "exec_time_ratio";
    case Metric::kCoverage: return "coverage";
    case Metric::kDistance: return "distance_travelled";
  }
  return "";
}

const char* MetricTitle(Metric m) {
  switch (m) {
    case Metric::kCompletionTime: return "Completion time (s)";
    case Metric::kSuccessRate: return "Success rate (%)";
    case Metric::kCollisions: return "Collisions";
    case Metric::kCollisionsPerMin: return "Collisions per minute";
    case Metric::kMeanVelocity: return "Mean velocity (m/s)";
    case Metric::kExecTimeRatio: return "Execution time ratio";
    case Metric::kCoverage: return "Exploration coverage";
    case Metric::kDistance: return "Distance travelled (m)";
  }
  return "";
}

Stat Describe(std::vector<double> values) {
  Stat s;
  s.n = static_cast<int>(values.size());
  if (values.empty()) return s;
  double sum = 0;
  for (double v : values) sum += v;
  s.mean = sum / s.n;
  if (s.n > 1) {
    double sq = 0;
    for (double v : values) sq += (v - s.mean) * (v - s.mean);
    s.sd = std::sqrt(sq / (s.n - 1));
  }
  std::sort(values.begin(), values.end());
  s.median = s.n % 2 ? values[s.n / 2] : 0.5 * (values[s.n / 2 - 1] + values[s.n / 2]);
  return s;
}

std::string SummaryRow::ScopeName() const {
  switch (scope) {
    case Scope::kAll: return "All";
    case Scope::kFinal: return "Final";
    case Scope::kIteration: return "iteration " + std::to_string(iteration);
  }
  return "";
}

std::vector<SummaryRow> Summarize(const std::vector<IterationRow>& rows,
                                  const std::vector<std::string>& config_order) {
  auto config_rank = [&](const std::string& c) {
    const auto it = std::find(config_order.begin(), config_order.end(), c);
    return static_cast<int>(it - config_order.begin());  // unknown: config_order.size()
  };
  using Key = std::tuple<int, std::string, double, std::string, char>;
  std::map<Key, std::vector<const IterationRow*>> groups;
  std::map<std::string, int> max_iteration;
  for (const auto& r : rows) {
    groups[Key{config_rank(r.config), r.config, r.sweep_value, r.sweep, r.set}].push_back(&r);
    max_iteration[r.run_id] = std::max(max_iteration[r.run_id], r.iteration);
  }
  std::vector<SummaryRow> out;
  for (const auto& [key, group] : groups) {
    auto stamp = [&](SummaryRow row, Scope scope, int iteration) {
      row.config = std::get<1>(key);
      row.sweep_value = std::get<2>(key);
      row.sweep = std::get<3>(key);
      row.set = std::get<4>(key);
      row.scope = scope;
      row.iteration = iteration;
      return row;
    };
    out.push_back(stamp(Aggregate(group), Scope::kAll, 0));
    int most = 0;
    for (const IterationRow* r : group) most = std::max(most, r->iteration);
    if (most > 2) {
      std::vector<const IterationRow*> final_rows;
      for (const IterationRow* r : group) {
        if (r->iteration > max_iteration[r->run_id] - 2) final_rows.push_back(r);
      }
      out.push_back(stamp(Aggregate(final_rows), Scope::kFinal, 0));
    }
    if (most > 1) {
      for (int k = 1; k <= most; ++k) {
        std::vector<const IterationRow*> it_rows;
        for (const IterationRow* r : group) {
          if (r->iteration == k) it_rows.push_back(r);
        }
        if (!it_rows.empty()) out.push_back(stamp(Aggregate(it_rows), Scope::kIteration, k));
      }
    }
  }
  return out;
}

std::string SummaryCsvText(const std::vector<SummaryRow>& summary) {
  std::vector<std::string> header = {"config", "sweep", "sweep_value", "set", "scope", "iteration",
                                     "runs"};
  for (Metric m : kAllMetrics) {
    for (const char* part : {"_n", "_mean", "_sd", "_median"})
      header.push_back(std::string(MetricKey(m)) + part);
  }
  std::string text = CsvLine(header) + "\n";
  for (const auto& r : summary) {
    std::vector<std::string> f = {r.config,
                                  r.sweep,
                                  FormatNumber(r.sweep_value),
                                  std::string(1, r.set),
                                  r.scope == Scope::kIteration ? "iteration" : r.ScopeName(),
                                  std::to_string(r.iteration),
                                  std::to_string(r.runs)};
    for (const Stat& s : r.stats) {
      f.push_back(std::to_string(s.n));
      f.push_back(FormatNumber(s.mean));
      f.push_back(FormatNumber(s.sd));
      f.push_back(FormatNumber(s.median));
    }
    text += CsvLine(f) + "\n";
  }
  return text;
}

void WriteSummaryCsv(const std::string& path, const std::vector<SummaryRow>& summary) {
  WriteFileAtomically(path, SummaryCsvText(summary));  // a full disk leaves the old summary, never an empty one
}

}  // namespace limbic::experiment
