#include "tools/experiment/summary.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <functional>
#include <limits>
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
  int successes = 0;
  std::map<std::string, const IterationRow*> last_of_run;  // coverage once per run
  for (const IterationRow* r : rows) {
    for (Metric m : kAllMetrics) {
      if (m != Metric::kCoverage && Counts(*r, m)) values[static_cast<int>(m)].push_back(MetricValue(*r, m));
    }
    successes += r->success ? 1 : 0;
    auto& last = last_of_run[r->run_id];
    if (!last || r->iteration > last->iteration) last = r;
  }
  for (const auto& [id, r] : last_of_run) {
    if (Counts(*r, Metric::kCoverage)) values[static_cast<int>(Metric::kCoverage)].push_back(r->coverage);
  }
  for (int i = 0; i < kNumMetrics; ++i) out.stats[i] = Describe(values[i]);
  out.runs = static_cast<int>(last_of_run.size());
  out.success = WilsonInterval(successes, static_cast<int>(rows.size()));
  return out;
}

}  // namespace

double MetricValue(const IterationRow& r, Metric m) {
  switch (m) {
    case Metric::kCompletionTime:
      return r.completion_time_s;
    case Metric::kSuccessTime:
      return r.completion_time_s;
    case Metric::kSuccessRate:
      return r.success ? 100.0 : 0.0;
    case Metric::kCollisions:
      return r.collisions;
    case Metric::kCollisionsPerMin:
      return r.collisions_per_min;
    case Metric::kMeanVelocity:
      return r.mean_velocity;
    case Metric::kExecTimeRatio:
      return r.exec_time_ratio;
    case Metric::kCoverage:
      return r.coverage;
    case Metric::kDistance:
      return r.distance_travelled;
  }
  return 0.0;
}

bool Counts(const IterationRow& r, Metric m) {
  if (m == Metric::kSuccessTime) return r.success;
  // Not measured (NaN): a crowd robot builds no map and runs no controller or affect engine.
  if (m == Metric::kCoverage || m == Metric::kExecTimeRatio) return std::isfinite(MetricValue(r, m));
  return true;
}

const char* MetricKey(Metric m) {
  switch (m) {
    case Metric::kCompletionTime:
      return "completion_time_s";
    case Metric::kSuccessTime:
      return "success_time_s";
    case Metric::kSuccessRate:
      return "success_rate_pct";
    case Metric::kCollisions:
      return "collisions";
    case Metric::kCollisionsPerMin:
      return "collisions_per_min";
    case Metric::kMeanVelocity:
      return "mean_velocity";
    case Metric::kExecTimeRatio:
      return "exec_time_ratio";
    case Metric::kCoverage:
      return "coverage";
    case Metric::kDistance:
      return "distance_travelled";
  }
  return "";
}

const char* MetricTitle(Metric m) {
  switch (m) {
    case Metric::kCompletionTime:
      return "Completion time, timeouts as 600 s (s)";
    case Metric::kSuccessTime:
      return "Completion time, successful traversals (s)";
    case Metric::kSuccessRate:
      return "Success rate (%)";
    case Metric::kCollisions:
      return "Collisions";
    case Metric::kCollisionsPerMin:
      return "Collisions per minute";
    case Metric::kMeanVelocity:
      return "Mean velocity (m/s)";
    case Metric::kExecTimeRatio:
      return "Execution time ratio";
    case Metric::kCoverage:
      return "Exploration coverage";
    case Metric::kDistance:
      return "Distance travelled (m)";
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
    case Scope::kAll:
      return "All";
    case Scope::kFinal:
      return "Final";
    case Scope::kIteration:
      return "iteration " + std::to_string(iteration);
  }
  return "";
}

std::vector<SummaryRow> Summarize(const std::vector<IterationRow>& rows, const std::vector<std::string>& config_order) {
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
  std::vector<std::string> header = {"config", "sweep", "sweep_value", "set", "scope", "iteration", "runs"};
  for (Metric m : kAllMetrics) {
    for (const char* part : {"_n", "_mean", "_sd", "_median"}) header.push_back(std::string(MetricKey(m)) + part);
  }
  for (const char* column : {"successes", "success_ci95_low_pct", "success_ci95_high_pct"}) header.push_back(column);
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
      // No values (success_time_s of a scope without a success): empty fields, not a made-up 0.
      f.push_back(std::to_string(s.n));
      f.push_back(s.n ? FormatNumber(s.mean) : "");
      f.push_back(s.n ? FormatNumber(s.sd) : "");
      f.push_back(s.n ? FormatNumber(s.median) : "");
    }
    f.push_back(std::to_string(r.success.successes));
    f.push_back(r.success.trials ? FormatNumber(100.0 * r.success.low) : "");
    f.push_back(r.success.trials ? FormatNumber(100.0 * r.success.high) : "");
    text += CsvLine(f) + "\n";
  }
  return text;
}

std::string PerTraversalCsvText(const std::vector<SummaryRow>& summary) {
  std::string text =
      CsvLine({"config", "sweep", "sweep_value", "set", "traversal", "traversals", "successes", "success_pct",
               "success_ci95_low_pct", "success_ci95_high_pct", "time_timeouts_as_600_mean_s", "time_successful_n",
               "time_successful_mean_s", "collisions_mean"}) +
      "\n";
  auto pct = [](double p) { return std::isfinite(p) ? FormatNumber(100.0 * p) : std::string(); };
  for (const auto& r : summary) {
    if (r.scope != Scope::kIteration) continue;
    const Stat& ok = r.Get(Metric::kSuccessTime);
    text += CsvLine({r.config, r.sweep, FormatNumber(r.sweep_value), std::string(1, r.set), std::to_string(r.iteration),
                     std::to_string(r.success.trials), std::to_string(r.success.successes), pct(r.success.estimate),
                     pct(r.success.low), pct(r.success.high), FormatNumber(r.Get(Metric::kCompletionTime).mean),
                     std::to_string(ok.n), ok.n ? FormatNumber(ok.mean) : "",
                     FormatNumber(r.Get(Metric::kCollisions).mean)}) +
            "\n";
  }
  return text;
}

void WritePerTraversalCsv(const std::string& path, const std::vector<SummaryRow>& summary) {
  WriteFileAtomically(path, PerTraversalCsvText(summary));
}

namespace {

std::string Fixed(double v, int decimals) {
  if (!std::isfinite(v)) return "-";
  char b[48];
  std::snprintf(b, sizeof b, "%.*f", decimals, v);
  return b;
}

std::string Pad(const std::string& text, size_t width, bool left) {
  if (text.size() >= width) return left ? text + " " : " " + text;
  const std::string fill(width - text.size(), ' ');
  return left ? text + fill : fill + text;
}

// "94.0 [91.2-96.0]": success in % with its 95 % Wilson interval.
std::string SuccessWithInterval(const Proportion& p) {
  if (p.trials == 0) return "-";
  return Fixed(100.0 * p.estimate, 1) + " [" + Fixed(100.0 * p.low, 1) + "-" + Fixed(100.0 * p.high, 1) + "]";
}

std::string MeanSd(const Stat& s) { return s.n ? Fixed(s.mean, 1) + " (" + Fixed(s.sd, 1) + ")" : "-"; }
std::string Mean(const Stat& s, int decimals) { return s.n ? Fixed(s.mean, decimals) : "-"; }

}  // namespace

std::string SummaryTableText(const std::vector<SummaryRow>& summary) {
  bool has_sweep = false;
  size_t config_width = 15;
  for (const auto& s : summary) {
    has_sweep = has_sweep || !s.sweep.empty();
    config_width = std::max(config_width, s.config.size() + 1);
  }
  std::string out = Pad("configuration", config_width, true);
  if (has_sweep) out += Pad("value", 12, true);
  out += Pad("set", 4, true) + Pad("scope", 7, true) + Pad("runs", 6, false) + Pad("ok/n", 11, false) +
         Pad("success % [95% CI]", 21, false) + Pad("time s (sd)", 15, false) + Pad("time ok s (sd)", 16, false) +
         Pad("coll/min", 10, false) + Pad("v m/s", 8, false) + Pad("cover", 7, false) + Pad("exec", 8, false) + "\n";
  for (const auto& s : summary) {
    if (s.scope == Scope::kIteration) continue;
    out += Pad(s.config, config_width, true);
    if (has_sweep) out += Pad(s.sweep.substr(s.sweep.find('=') + 1), 12, true);
    out += Pad(std::string(1, s.set), 4, true) + Pad(s.ScopeName(), 7, true) + Pad(std::to_string(s.runs), 6, false) +
           Pad(std::to_string(s.success.successes) + "/" + std::to_string(s.success.trials), 11, false) +
           Pad(SuccessWithInterval(s.success), 21, false) + Pad(MeanSd(s.Get(Metric::kCompletionTime)), 15, false) +
           Pad(MeanSd(s.Get(Metric::kSuccessTime)), 16, false) +
           Pad(Mean(s.Get(Metric::kCollisionsPerMin), 2), 10, false) +
           Pad(Mean(s.Get(Metric::kMeanVelocity), 3), 8, false) + Pad(Mean(s.Get(Metric::kCoverage), 3), 7, false) +
           Pad(Mean(s.Get(Metric::kExecTimeRatio), 4), 8, false) + "\n";
  }
  out +=
      "success: traversals that arrived, with the 95 % Wilson score interval; time: mean "
      "completion time with a "
      "timeout counted as 600 s; time ok: successful traversals only.\n";
  return out;
}

std::string PerTraversalTableText(const std::vector<SummaryRow>& summary) {
  // Group the per-traversal rows by (configuration, swept value, set), keeping the summary's order.
  struct Group {
    const SummaryRow* first = nullptr;
    std::map<int, const SummaryRow*> by_traversal;
  };
  std::vector<Group> groups;
  int most = 0;
  for (const auto& r : summary) {
    if (r.scope != Scope::kIteration) continue;
    if (groups.empty() || groups.back().first->config != r.config || groups.back().first->sweep != r.sweep ||
        groups.back().first->set != r.set) {
      groups.push_back({&r, {}});
    }
    groups.back().by_traversal[r.iteration] = &r;
    most = std::max(most, r.iteration);
  }
  if (groups.empty()) return "";
  bool has_sweep = false;
  size_t config_width = 15;
  for (const auto& g : groups) {
    has_sweep = has_sweep || !g.first->sweep.empty();
    config_width = std::max(config_width, g.first->config.size() + 1);
  }
  const size_t cell = 12;
  std::string out = Pad("configuration", config_width, true);
  if (has_sweep) out += Pad("value", 12, true);
  out += Pad("set", 4, true) + Pad("traversal", 26, true);
  for (int k = 1; k <= most; ++k) out += Pad(std::to_string(k), cell, false);
  out += "\n";
  for (const auto& g : groups) {
    const std::vector<std::pair<std::string, std::function<std::string(const SummaryRow&)>>> lines = {
        {"success %", [](const SummaryRow& r) { return Fixed(100.0 * r.success.estimate, 1); }},
        {"  95% CI",
         [](const SummaryRow& r) {
           return r.success.trials ? Fixed(100.0 * r.success.low, 0) + "-" + Fixed(100.0 * r.success.high, 0) : "-";
         }},
        {"time s, timeouts as 600", [](const SummaryRow& r) { return Fixed(r.Get(Metric::kCompletionTime).mean, 1); }},
        {"time s, successful",
         [](const SummaryRow& r) {
           const Stat& ok = r.Get(Metric::kSuccessTime);
           return ok.n ? Fixed(ok.mean, 1) : std::string("-");
         }},
    };
    for (size_t i = 0; i < lines.size(); ++i) {
      out += Pad(i == 0 ? g.first->config : "", config_width, true);
      if (has_sweep) out += Pad(i == 0 ? g.first->sweep.substr(g.first->sweep.find('=') + 1) : "", 12, true);
      out += Pad(i == 0 ? std::string(1, g.first->set) : "", 4, true) + Pad(lines[i].first, 26, true);
      for (int k = 1; k <= most; ++k) {
        const auto it = g.by_traversal.find(k);
        out += Pad(it == g.by_traversal.end() ? "-" : lines[i].second(*it->second), cell, false);
      }
      out += "\n";
    }
  }
  return out;
}

void WriteSummaryCsv(const std::string& path, const std::vector<SummaryRow>& summary) {
  WriteFileAtomically(path, SummaryCsvText(summary));  // a full disk leaves the old summary, never an empty one
}

}  // namespace limbic::experiment
