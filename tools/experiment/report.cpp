#include "tools/experiment/report.hpp"

#include "tools/experiment/durable_file.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <set>
#include <sstream>
#include <stdexcept>

#include "sim/environment.hpp"
#include "sim/render_svg.hpp"
#include "tools/experiment/definition.hpp"
#include "tools/experiment/plot.hpp"

namespace limbic::experiment {
namespace {

namespace fs = std::filesystem;
using plot::Escape;

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// Metrics shown in plots and the table (distance is in summary.csv only).
constexpr std::array<Metric, 7> kShown = {Metric::kCompletionTime, Metric::kSuccessRate,
                                          Metric::kCollisions,     Metric::kCollisionsPerMin,
                                          Metric::kMeanVelocity,   Metric::kExecTimeRatio,
                                          Metric::kCoverage};

const char* kCss = R"(
body{font-family:Helvetica,Arial,sans-serif;margin:24px auto;max-width:1180px;color:#222;background:#fafafa}
h1{font-size:22px;margin:0 0 4px} h2{font-size:17px;margin:28px 0 8px;border-bottom:1px solid #ccc;padding-bottom:3px}
p.meta{color:#555;margin:2px 0 10px;font-size:13px} p.desc{font-size:13px;max-width:900px;white-space:pre-wrap}
table.summary{border-collapse:collapse;font-size:12px;background:white}
table.summary th,table.summary td{border:1px solid #d0d0d0;padding:3px 7px;text-align:right}
table.summary th{background:#eef2f7} table.summary td.key{text-align:left;font-weight:bold}
.grid{display:flex;flex-wrap:wrap;gap:10px}
.grid svg.plot{border:1px solid #ddd}
figure{margin:0 0 12px;background:white;border:1px solid #ddd;padding:6px}
figcaption{font-size:12px;color:#444;margin-top:4px}
figure.map{max-width:570px} figure.map svg{max-width:100%;height:auto}
)";

std::string Fmt(double v, int decimals = 3) {
  if (!std::isfinite(v)) return "–";
  char b[32];
  std::snprintf(b, sizeof b, "%.*f", decimals, v);
  return b;
}

int Decimals(Metric m) {
  switch (m) {
    case Metric::kCompletionTime: return 1;
    case Metric::kSuccessRate: return 0;
    case Metric::kCollisions: return 2;
    case Metric::kCoverage: return 3;
    default: return 3;
  }
}

std::string SweepName(const std::vector<IterationRow>& rows) {
  for (const auto& r : rows) {
    const auto eq = r.sweep.find('=');
    if (eq != std::string::npos) return r.sweep.substr(0, eq);
  }
  return "";
}

std::string SummaryTable(const std::vector<SummaryRow>& summary, bool has_sweep, bool many_sets) {
  std::ostringstream s;
  s << "<table class=\"summary\"><tr><th>configuration</th>";
  if (has_sweep) s << "<th>value</th>";
  if (many_sets) s << "<th>set</th>";
  s << "<th>scope</th><th>runs</th>";
  for (Metric m : kShown) s << "<th>" << Escape(MetricTitle(m)) << "<br><small>mean ± sd (median)</small></th>";
  s << "</tr>\n";
  for (const auto& r : summary) {
    if (r.scope == Scope::kIteration) continue;
    s << "<tr><td class=\"key\">" << Escape(r.config) << "</td>";
    if (has_sweep) s << "<td>" << FormatNumber(r.sweep_value) << "</td>";
    if (many_sets) s << "<td>" << r.set << "</td>";
    s << "<td>" << r.ScopeName() << "</td><td>" << r.runs << "</td>";
    for (Metric m : kShown) {
      const Stat& st = r.Get(m);
      s << "<td>" << Fmt(st.mean, Decimals(m)) << " ± " << Fmt(st.sd, Decimals(m)) << " ("
        << Fmt(st.median, Decimals(m)) << ")</td>";
    }
    s << "</tr>\n";
  }
  s << "</table>\n";
  return s.str();
}

// Groups rows by a key and an x value; returns (mean, sd) per x for each key, in key order.
struct Curve {
  std::string label;
  std::map<double, std::vector<double>> values;
};

std::vector<plot::Series> CurvesToSeries(const std::vector<Curve>& curves) {
  std::vector<plot::Series> out;
  for (const auto& c : curves) {
    plot::Series s;
    s.label = c.label;
    for (const auto& [x, v] : c.values) {
      const Stat st = Describe(v);
      s.x.push_back(x);
      s.y.push_back(st.mean);
      s.err.push_back(st.sd);
    }
    out.push_back(s);
  }
  return out;
}

std::string StripXmlProlog(std::string svg) {
  if (svg.rfind("<?xml", 0) == 0) svg = svg.substr(svg.find("?>") + 2);
  return svg;
}

}  // namespace

std::string RenderPathSvg(const RunTrace& trace) {
  const sim::Environment env = sim::GenerateEnvironment(trace.set, trace.env, trace.environment_seed);
  sim::SvgOptions options;
  options.pixels_per_metre = 26;
  options.title = "run " + trace.run_id + " (set " + std::string(1, trace.set) + ", environment " +
                  std::to_string(trace.env) + ")";
  if (!trace.occupancy.empty()) {
    sim::OccupancyOverlay occupancy;
    occupancy.grid = trace.grid;
    occupancy.probability = trace.occupancy;
    occupancy.min_value = 0.25;  // the initial p_o is 0.2 (§8 item 33): draw only what was learnt
    options.occupancy.push_back(occupancy);
  }
  sim::TrajectoryOverlay path;
  for (const auto& p : trace.samples) path.poses.push_back({p.x, p.y, p.theta});
  if (trace.samples.size() > 1) {
    std::vector<double> dts;
    for (size_t i = 1; i < trace.samples.size(); ++i) dts.push_back(trace.samples[i].t - trace.samples[i - 1].t);
    std::nth_element(dts.begin(), dts.begin() + dts.size() / 2, dts.end());
    const double dt = dts[dts.size() / 2];
    path.arrow_every = dt > 0 ? std::max(1, static_cast<int>(std::lround(5.0 / dt))) : 50;
  }
  options.trajectories.push_back(path);
  return StripXmlProlog(sim::RenderSvg(env, options));
}

std::string RenderAffectPanels(const AffectTrace& trace) {
  std::vector<double> t;
  for (const auto& a : trace.samples) t.push_back(a.t);
  auto series = [&](const char* label, auto get) {
    plot::Series s;
    s.label = label;
    s.x = t;
    for (const auto& a : trace.samples) s.y.push_back(get(a));
    s.markers = false;
    s.line_width = 1.3;
    return s;
  };
  plot::PlotOptions o;
  o.width = 560;
  o.height = 260;
  o.x_label = "time (s)";
  o.y_min = 0;
  o.y_max = 1;
  std::ostringstream out;
  {
    std::vector<plot::Series> s;
    for (int i = 0; i < 9; ++i)
      s.push_back(series(kStimulusLabels[i], [i](const AffectSample& a) { return a.stimuli[i]; }));
    o.title = "Stimuli";
    o.y_label = "stimulus";
    out << plot::LinePlot(s, o);
  }
  {
    std::vector<plot::Series> s;
    for (int i = 0; i < 7; ++i)
      s.push_back(series(kEmotionLabels[i], [i](const AffectSample& a) { return a.emotions[i]; }));
    o.title = "Emotions";
    o.y_label = "emotion";
    out << plot::LinePlot(s, o);
  }
  {
    std::vector<plot::Series> s;
    for (int i = 0; i < 2; ++i)
      s.push_back(series(kMoodLabels[i], [i](const AffectSample& a) { return a.moods[i]; }));
    s[0].colour = "#2ca02c";
    s[1].colour = "#d62728";
    o.title = "Moods";
    o.y_label = "mood";
    out << plot::LinePlot(s, o);
  }
  {
    std::vector<plot::Series> s;
    for (int i = 0; i < 3; ++i)
      s.push_back(series(kDriveLabels[i], [i](const AffectSample& a) { return a.drives[i]; }));
    plot::Band band;
    band.label = "D_min..D_max";
    band.x = t;
    for (const auto& a : trace.samples) {
      band.lo.push_back(a.d_min);
      band.hi.push_back(a.d_max);
    }
    o.title = "Survival drives within the mood bounds";
    o.y_label = "drive";
    out << plot::LinePlot(s, o, {band});
  }
  {
    std::vector<plot::Series> s;
    for (int i = 3; i < 6; ++i)
      s.push_back(series(kDriveLabels[i], [i](const AffectSample& a) { return a.drives[i]; }));
    for (size_t k = 0; k < s.size(); ++k) s[k].colour = plot::PaletteColour(static_cast<int>(k) + 3);
    o.title = "Strategic drives";
    out << plot::LinePlot(s, o);
  }
  return out.str();
}

std::string RenderReportHtml(const ReportInputs& in, const ReportOptions& options) {
  const auto& rows = in.rows;
  std::string experiment = in.experiment;
  if (experiment.empty() && !rows.empty()) experiment = rows.front().experiment;
  const auto summary = Summarize(rows, options.config_order);

  std::vector<std::string> configs;  // summary order
  std::set<char> set_letters;
  std::set<std::string> run_ids;
  int max_iteration = 0;
  for (const auto& r : summary) {
    if (std::find(configs.begin(), configs.end(), r.config) == configs.end()) configs.push_back(r.config);
  }
  std::map<std::string, int> last_iteration;
  for (const auto& r : rows) {
    last_iteration[r.run_id] = std::max(last_iteration[r.run_id], r.iteration);
    set_letters.insert(r.set);
    run_ids.insert(r.run_id);
    max_iteration = std::max(max_iteration, r.iteration);
  }
  const std::string sweep_name = SweepName(rows);
  const bool has_sweep = !sweep_name.empty();
  const bool many_sets = set_letters.size() > 1;

  std::ostringstream h;
  h << "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n<title>limbic experiment "
    << Escape(experiment) << "</title>\n<style>" << kCss << "</style></head><body>\n";
  h << "<h1>Experiment " << Escape(experiment) << "</h1>\n";
  h << "<p class=\"meta\">" << run_ids.size() << " runs, " << rows.size()
    << " traversals; configurations: ";
  for (size_t i = 0; i < configs.size(); ++i) h << (i ? ", " : "") << Escape(configs[i]);
  h << "; sets: ";
  for (char s : set_letters) h << s;
  if (has_sweep) h << "; swept: " << Escape(sweep_name);
  h << "; traversals per run: " << max_iteration << "</p>\n";
  if (!in.description.empty()) h << "<p class=\"desc\">" << Escape(in.description) << "</p>\n";
  if (rows.empty()) {
    h << "<p>No results yet.</p></body></html>\n";
    return h.str();
  }

  h << "<h2>Summary</h2>\n" << SummaryTable(summary, has_sweep, many_sets);
  h << "<p class=\"meta\">Success rate in %; collisions per minute as the mean over traversals (§6.1); "
       "coverage once per run (cumulative at its last traversal, §8 item 9). \"Final\" = the last two "
       "traversals of each run.</p>\n";

  auto label_of = [&](const IterationRow& r, bool with_set) {
    return with_set && many_sets ? r.config + " · " + std::string(1, r.set) : r.config;
  };
  auto ordered = [&](std::map<std::string, Curve>& by_label) {
    std::vector<Curve> out;
    for (const auto& c : configs) {
      for (auto& [label, curve] : by_label) {
        if (label == c || label.rfind(c + " · ", 0) == 0) out.push_back(curve);
      }
    }
    return out;
  };

  // Metric against the swept value (one curve per configuration and set), or per set.
  if (has_sweep || many_sets) {
    h << "<h2>" << (has_sweep ? "Metrics against " + Escape(sweep_name) : std::string("Metrics per set"))
      << "</h2>\n<div class=\"grid\">\n";
    for (Metric m : kShown) {
      std::map<std::string, Curve> curves;
      std::map<std::string, std::map<std::string, double>> cov_last;  // coverage once per run
      std::vector<char> letters(set_letters.begin(), set_letters.end());
      for (const auto& r : rows) {
        const std::string label = has_sweep ? label_of(r, true) : r.config;
        Curve& c = curves[label];
        c.label = label;
        const double x = has_sweep ? r.sweep_value
                                   : static_cast<double>(std::find(letters.begin(), letters.end(), r.set) -
                                                         letters.begin());
        // Coverage once per run: its last traversal carries the cumulative value.
        if (m == Metric::kCoverage && r.iteration != last_iteration[r.run_id]) continue;
        c.values[x].push_back(MetricValue(r, m));
      }
      plot::PlotOptions o;
      o.title = MetricTitle(m);
      o.y_label = MetricTitle(m);
      o.x_label = has_sweep ? sweep_name : "environment set";
      if (!has_sweep)
        for (char s : letters) o.x_categories.push_back(std::string(1, s));
      o.log_y = m == Metric::kCollisionsPerMin;
      if (!o.log_y) o.y_min = 0;  // every metric is non-negative
      if (m == Metric::kSuccessRate) o.y_max = 100;
      h << plot::LinePlot(CurvesToSeries(ordered(curves)), o);
    }
    h << "</div>\n<p class=\"meta\">Points: mean; bars: ±1 standard deviation.</p>\n";
  }

  // Per-iteration curves (Chapter 10).
  if (max_iteration > 1) {
    h << "<h2>Per-traversal curves</h2>\n<div class=\"grid\">\n";
    const bool split_sets = set_letters.size() <= 2;
    for (Metric m : kShown) {
      std::map<std::string, Curve> curves;
      for (const auto& r : rows) {
        std::string label = split_sets ? label_of(r, true) : r.config;
        if (has_sweep && !split_sets) label = r.config;
        Curve& c = curves[label];
        c.label = label;
        c.values[r.iteration].push_back(MetricValue(r, m));
      }
      plot::PlotOptions o;
      o.title = std::string(MetricTitle(m)) + " per traversal";
      o.y_label = MetricTitle(m);
      o.x_label = "traversal";
      o.log_y = m == Metric::kCollisionsPerMin;
      if (!o.log_y) o.y_min = 0;  // every metric is non-negative
      if (m == Metric::kSuccessRate) o.y_max = 100;
      h << plot::LinePlot(CurvesToSeries(ordered(curves)), o);
    }
    h << "</div>\n<p class=\"meta\">Pooled over " << (split_sets ? "environments" : "sets and environments")
      << (has_sweep ? " and swept values" : "") << "; bars: ±1 standard deviation.</p>\n";
  }

  // Histograms.
  h << "<h2>Distributions</h2>\n<div class=\"grid\">\n";
  for (Metric m : {Metric::kCompletionTime, Metric::kCollisionsPerMin}) {
    std::vector<plot::HistogramSeries> hist;
    for (const auto& c : configs) {
      plot::HistogramSeries hs;
      hs.label = c;
      for (const auto& r : rows)
        if (r.config == c) hs.values.push_back(MetricValue(r, m));
      hist.push_back(hs);
    }
    plot::PlotOptions o;
    o.title = std::string(MetricTitle(m)) + " histogram";
    o.x_label = MetricTitle(m);
    o.y_label = "traversals";
    h << plot::HistogramPlot(hist, options.histogram_bins, o);
  }
  h << "</div>\n";

  // Example paths.
  if (!in.paths.empty() && options.max_paths > 0) {
    h << "<h2>Example paths</h2>\n<div class=\"grid\">\n";
    int shown = 0;
    for (const auto& trace : in.paths) {
      if (shown++ >= options.max_paths) break;
      h << "<figure class=\"map\">" << RenderPathSvg(trace)
        << "<figcaption>Trajectory (orange) over the final occupancy map (grey, darker = more likely "
           "occupied), heading arrows every 5 s; start red, goal yellow.</figcaption></figure>\n";
    }
    h << "</div>\n";
  }

  // Affect time series.
  if (!in.affect.empty() && options.max_affect_runs > 0) {
    h << "<h2>Affect time series</h2>\n";
    int shown = 0;
    for (const auto& trace : in.affect) {
      if (shown++ >= options.max_affect_runs) break;
      h << "<h3>run " << Escape(trace.run_id) << "</h3>\n<div class=\"grid\">\n"
        << RenderAffectPanels(trace) << "</div>\n";
    }
  }
  h << "</body></html>\n";
  return h.str();
}

ReportResult Report(const std::string& dir, const ReportOptions& options) {
  const std::string runs_path = (fs::path(dir) / "runs.csv").string();
  if (!fs::exists(runs_path)) throw std::runtime_error(dir + ": no runs.csv (run the experiment first)");
  const RunsFile file = ReadRuns(runs_path);
  ReportInputs in;
  in.rows = file.rows;
  std::vector<std::string> traces, affects;
  for (const auto& entry : fs::directory_iterator(dir)) {
    const std::string name = entry.path().filename().string();
    if (!entry.is_regular_file() || !name.ends_with(".csv")) continue;
    if (name.starts_with("trace_")) traces.push_back(entry.path().string());
    if (name.starts_with("affect_")) affects.push_back(entry.path().string());
  }
  std::sort(traces.begin(), traces.end());
  std::sort(affects.begin(), affects.end());
  // One example per configuration first, then the rest, up to the limits.
  auto pick = [](const std::vector<std::string>& files, const std::string& prefix, int limit) {
    std::vector<std::string> chosen, rest;
    std::set<std::string> configs;
    for (const auto& f : files) {
      const std::string id = fs::path(f).stem().string().substr(prefix.size());
      const std::string config = id.substr(0, id.find('-'));
      (configs.insert(config).second ? chosen : rest).push_back(f);
    }
    chosen.insert(chosen.end(), rest.begin(), rest.end());
    if (static_cast<int>(chosen.size()) > limit) chosen.resize(static_cast<size_t>(std::max(0, limit)));
    return chosen;
  };
  ReportResult result;
  // A cut trace (a full disk, an interrupted copy) is skipped and reported; the rest of the report
  // does not depend on it. A trace whose content is wrong otherwise is still an error.
  for (auto* files : {&traces, &affects}) {
    std::vector<std::string> whole;
    for (const auto& f : *files) (TraceFileComplete(f) ? whole : result.cut_traces).push_back(f);
    *files = std::move(whole);
  }
  for (const auto& f : pick(traces, "trace_", options.max_paths)) in.paths.push_back(ReadRunTrace(f));
  for (const auto& f : pick(affects, "affect_", options.max_affect_runs)) in.affect.push_back(ReadAffectTrace(f));

  result.summary_csv = (fs::path(dir) / "summary.csv").string();
  result.report_html = (fs::path(dir) / "report.html").string();
  WriteSummaryCsv(result.summary_csv, Summarize(in.rows, options.config_order));
  WriteFileAtomically(result.report_html, RenderReportHtml(in, options));
  std::set<std::string> ids;
  for (const auto& r : in.rows) ids.insert(r.run_id);
  result.rows = static_cast<int>(in.rows.size());
  result.runs = static_cast<int>(ids.size());
  result.skipped_lines = file.skipped_lines;
  return result;
}

}  // namespace limbic::experiment
