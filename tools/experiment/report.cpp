#include "tools/experiment/report.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <set>
#include <sstream>
#include <stdexcept>
#include <tuple>

#include "common/geometry/geometry.hpp"
#include "sim/environment.hpp"
#include "sim/render_svg.hpp"
#include "tools/experiment/definition.hpp"
#include "tools/experiment/durable_file.hpp"
#include "tools/experiment/plot.hpp"

namespace limbic::experiment {
namespace {

namespace fs = std::filesystem;
using plot::Escape;

using geometry::kNaN;

// Metrics shown in plots and the table (distance is in summary.csv only).
constexpr std::array<Metric, 8> kShown = {Metric::kCompletionTime, Metric::kSuccessTime,      Metric::kSuccessRate,
                                          Metric::kCollisions,     Metric::kCollisionsPerMin, Metric::kMeanVelocity,
                                          Metric::kExecTimeRatio,  Metric::kCoverage};

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
figure.fail{max-width:360px} figure.fail svg{max-width:100%;height:auto}
table.summary td.ci{white-space:nowrap} table.summary td.left{text-align:left}
p.warn{background:#fff4e5;border-left:4px solid #e69500;padding:6px 10px;font-size:13px;max-width:1100px}
)";

std::string Fmt(double v, int decimals = 3) {
  if (!std::isfinite(v)) return "–";
  char b[32];
  std::snprintf(b, sizeof b, "%.*f", decimals, v);
  return b;
}

int Decimals(Metric m) {
  switch (m) {
    case Metric::kCompletionTime:
      return 1;
    case Metric::kSuccessTime:
      return 1;
    case Metric::kSuccessRate:
      return 0;
    case Metric::kCollisions:
      return 2;
    case Metric::kCoverage:
      return 3;
    default:
      return 3;
  }
}

std::string SweepName(const std::vector<IterationRow>& rows) {
  for (const auto& r : rows) {
    const auto eq = r.sweep.find('=');
    if (eq != std::string::npos) return r.sweep.substr(0, eq);
  }
  return "";
}

// "47/50 · 94.0 % [83.8–97.9]"
std::string SuccessCell(const Proportion& p) {
  if (p.trials == 0) return "–";
  return std::to_string(p.successes) + "/" + std::to_string(p.trials) + " · " + Fmt(100.0 * p.estimate, 1) + " % [" +
         Fmt(100.0 * p.low, 1) + "–" + Fmt(100.0 * p.high, 1) + "]";
}

std::string SummaryTable(const std::vector<SummaryRow>& summary, bool has_sweep, bool many_sets) {
  std::ostringstream s;
  s << "<table class=\"summary\"><tr><th>configuration</th>";
  if (has_sweep) s << "<th>value</th>";
  if (many_sets) s << "<th>set</th>";
  s << "<th>scope</th><th>runs</th>";
  for (Metric m : kShown) {
    if (m == Metric::kSuccessRate) {
      s << "<th>Success<br><small>arrived/traversals, % [95 % Wilson CI]</small></th>";
    } else {
      s << "<th>" << Escape(MetricTitle(m)) << "<br><small>mean ± sd (median)</small></th>";
    }
  }
  s << "</tr>\n";
  for (const auto& r : summary) {
    if (r.scope == Scope::kIteration) continue;
    s << "<tr><td class=\"key\">" << Escape(r.config) << "</td>";
    if (has_sweep) s << "<td>" << FormatNumber(r.sweep_value) << "</td>";
    if (many_sets) s << "<td>" << r.set << "</td>";
    s << "<td>" << r.ScopeName() << "</td><td>" << r.runs << "</td>";
    for (Metric m : kShown) {
      const Stat& st = r.Get(m);
      if (m == Metric::kSuccessRate) {
        s << "<td class=\"ci\">" << SuccessCell(r.success) << "</td>";
      } else if (st.n == 0) {
        s << "<td>–</td>";  // no successful traversal: no time of successful traversals
      } else {
        s << "<td>" << Fmt(st.mean, Decimals(m)) << " ± " << Fmt(st.sd, Decimals(m)) << " ("
          << Fmt(st.median, Decimals(m)) << ")</td>";
      }
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

// Points at the mean with ±1 sd bars; for the success rate (values 0 or 100) the proportion with
// its 95 % Wilson interval instead (an sd of 0/1 values says little, and nothing at 0 or 100 %).
std::vector<plot::Series> CurvesToSeries(const std::vector<Curve>& curves, bool proportion = false) {
  std::vector<plot::Series> out;
  for (const auto& c : curves) {
    plot::Series s;
    s.label = c.label;
    for (const auto& [x, v] : c.values) {
      s.x.push_back(x);
      if (proportion) {
        const int k = static_cast<int>(std::count_if(v.begin(), v.end(), [](double y) { return y > 50.0; }));
        const Proportion p = WilsonInterval(k, static_cast<int>(v.size()));
        s.y.push_back(100.0 * p.estimate);
        s.lo.push_back(100.0 * p.low);
        s.hi.push_back(100.0 * p.high);
      } else {
        const Stat st = Describe(v);
        s.y.push_back(st.mean);
        s.err.push_back(st.sd);
      }
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
  options.title =
      "run " + trace.run_id + " (set " + std::string(1, trace.set) + ", environment " + std::to_string(trace.env) + ")";
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
    for (int i = 0; i < 2; ++i) s.push_back(series(kMoodLabels[i], [i](const AffectSample& a) { return a.moods[i]; }));
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

const char* FailureKindName(FailureKind kind) {
  switch (kind) {
    case FailureKind::kPinned:
      return "pinned (100+ collisions or 60+ s in contact)";
    case FailureKind::kStoppedNearGoal:
      return "stopped within 1 m of the goal";
    case FailureKind::kStopped:
      return "stopped further away";
    case FailureKind::kWandering:
      return "wandering (moving at the timeout)";
    case FailureKind::kUnknown:
      return "no path recorded";
  }
  return "";
}

double MovedOverLast(const std::vector<TrajectorySample>& path, double window_s) {
  if (path.empty()) return 0.0;
  const TrajectorySample& end = path.back();
  double moved = 0.0;
  for (size_t i = path.size(); i-- > 0;) {
    moved = std::max(moved, std::hypot(path[i].x - end.x, path[i].y - end.y));
    if (path[i].t < end.t - window_s) break;  // the last pose kept before the window: included, then stop
  }
  return moved;
}

FailureKind ClassifyFailure(const FailedTraversal* traversal, int collisions, int contact_cycles) {
  if (collisions >= kPinnedCollisions || contact_cycles >= kPinnedContactCycles) return FailureKind::kPinned;
  if (traversal == nullptr || traversal->samples.empty()) return FailureKind::kUnknown;
  if (MovedOverLast(traversal->samples, kStillWindowS) >= kStillMetres) return FailureKind::kWandering;
  return traversal->distance_to_goal < kNearGoalMetres ? FailureKind::kStoppedNearGoal : FailureKind::kStopped;
}

std::string RenderFailurePathSvg(const FailureTrace& run, const FailedTraversal& traversal) {
  const sim::Environment env = sim::GenerateEnvironment(run.set, run.env, run.environment_seed);
  sim::SvgOptions options;
  options.pixels_per_metre = 16;
  options.margin_px = 12;
  options.legend = false;  // too narrow at this scale; the section's note gives the key
  options.title = run.run_id + ", traversal " + std::to_string(traversal.iteration);
  sim::TrajectoryOverlay path;
  for (const auto& p : traversal.samples) path.poses.push_back({p.x, p.y, p.theta});
  path.arrow_every = std::max(1, static_cast<int>(path.poses.size()) / 8);  // ~8 heading arrows
  path.colour = "#d62728";
  path.end_marker = true;
  options.trajectories.push_back(path);
  return StripXmlProlog(sim::RenderSvg(env, options));
}

namespace {

// Per set: success per traversal (one curve per configuration, 95 % Wilson bars) and completion
// time per traversal (solid: successful traversals; dashed: timeouts as 600 s).
std::string PerTraversalBySet(const std::vector<SummaryRow>& summary, const std::set<char>& sets,
                              const std::vector<std::string>& configs, bool has_sweep) {
  std::ostringstream h;
  h << "<h2>Per-traversal success and time, per set</h2>\n<div class=\"grid\">\n";
  for (char set : sets) {
    std::vector<plot::Series> success, time;
    int colour = 0;
    size_t curves = 0;
    for (const auto& config : configs) {
      std::set<std::string> sweeps;
      for (const auto& r : summary) {
        if (r.scope == Scope::kIteration && r.set == set && r.config == config) sweeps.insert(r.sweep);
      }
      curves += sweeps.size();
    }
    for (const auto& config : configs) {
      std::map<std::string, std::vector<const SummaryRow*>> by_sweep;  // swept value → rows in traversal order
      for (const auto& r : summary) {
        if (r.scope == Scope::kIteration && r.set == set && r.config == config) by_sweep[r.sweep].push_back(&r);
      }
      for (const auto& [sweep, rows] : by_sweep) {
        const std::string label = has_sweep ? config + " · " + sweep : config;
        const std::string c = plot::PaletteColour(colour++);
        plot::Series ok, all, rate;
        rate.label = label;
        ok.label = label + ", arrived";
        all.label = label + ", all";
        rate.colour = ok.colour = all.colour = c;
        all.dashed = true;
        all.markers = false;
        // Side by side (±0.06 of a traversal per curve) so that the intervals do not hide each
        // other.
        const double dodge = 0.12 * (static_cast<double>(success.size()) - 0.5 * (static_cast<double>(curves) - 1.0));
        for (const SummaryRow* r : rows) {
          rate.x.push_back(r->iteration + dodge);
          rate.y.push_back(100.0 * r->success.estimate);
          rate.lo.push_back(100.0 * r->success.low);
          rate.hi.push_back(100.0 * r->success.high);
          const Stat& st = r->Get(Metric::kSuccessTime);
          ok.x.push_back(r->iteration);
          ok.y.push_back(st.n ? st.mean : kNaN);
          all.x.push_back(r->iteration);
          all.y.push_back(r->Get(Metric::kCompletionTime).mean);
        }
        success.push_back(rate);
        time.push_back(ok);
        time.push_back(all);
      }
    }
    if (success.empty()) continue;
    plot::PlotOptions o;
    o.x_label = "traversal";
    o.title = std::string("Set ") + set + ": success per traversal";
    o.y_label = "success (%)";
    o.y_min = 0;
    o.y_max = 100;
    h << plot::LinePlot(success, o);
    o.title = std::string("Set ") + set + ": completion time per traversal";
    o.y_label = "completion time (s)";
    o.y_max.reset();
    h << plot::LinePlot(time, o);
  }
  h << "</div>\n<p class=\"meta\">Success: proportion of the set's runs whose traversal k arrived, "
       "bars: 95 % Wilson "
       "score interval (curves set side by side). Time: solid (\"arrived\") = mean over the "
       "traversals that "
       "arrived; dashed (\"all\") = the §6.1 mean with a timeout counted as 600 s (the gap between "
       "them is the "
       "cost of the failures).</p>\n";
  return h.str();
}

// Success (k/n, % and interval) and both mean times for traversals 1..N, per configuration and set.
std::string PerTraversalTable(const std::vector<SummaryRow>& summary, bool has_sweep) {
  int most = 0;
  for (const auto& r : summary) {
    if (r.scope == Scope::kIteration) most = std::max(most, r.iteration);
  }
  std::ostringstream s;
  s << "<table class=\"summary\"><tr><th>configuration</th>";
  if (has_sweep) s << "<th>value</th>";
  s << "<th>set</th><th></th>";
  for (int k = 1; k <= most; ++k) s << "<th>" << k << "</th>";
  s << "</tr>\n";
  const SummaryRow* group = nullptr;
  std::map<int, const SummaryRow*> row_of;
  auto flush = [&] {
    if (group == nullptr) return;
    const char* labels[] = {"success, arrived/runs", "success % [95 % CI]", "time s, successful",
                            "time s, timeouts as 600 s"};
    for (int line = 0; line < 4; ++line) {
      s << "<tr>";
      if (line == 0) {
        s << "<td class=\"key\" rowspan=\"4\">" << Escape(group->config) << "</td>";
        if (has_sweep) s << "<td rowspan=\"4\">" << FormatNumber(group->sweep_value) << "</td>";
        s << "<td rowspan=\"4\">" << group->set << "</td>";
      }
      s << "<td class=\"left\">" << labels[line] << "</td>";
      for (int k = 1; k <= most; ++k) {
        const auto it = row_of.find(k);
        if (it == row_of.end()) {
          s << "<td>–</td>";
          continue;
        }
        const SummaryRow& r = *it->second;
        const Stat& ok = r.Get(Metric::kSuccessTime);
        switch (line) {
          case 0:
            s << "<td>" << r.success.successes << "/" << r.success.trials << "</td>";
            break;
          case 1:
            s << "<td class=\"ci\">" << Fmt(100.0 * r.success.estimate, 1) << " [" << Fmt(100.0 * r.success.low, 1)
              << "–" << Fmt(100.0 * r.success.high, 1) << "]</td>";
            break;
          case 2:
            s << "<td>" << (ok.n ? Fmt(ok.mean, 1) : "–") << "</td>";
            break;
          default:
            s << "<td>" << Fmt(r.Get(Metric::kCompletionTime).mean, 1) << "</td>";
            break;
        }
      }
      s << "</tr>\n";
    }
    row_of.clear();
  };
  for (const auto& r : summary) {
    if (r.scope != Scope::kIteration) continue;
    if (group == nullptr || group->config != r.config || group->sweep != r.sweep || group->set != r.set) {
      flush();
      group = &r;
    }
    row_of[r.iteration] = &r;
  }
  flush();
  s << "</table>\n<p class=\"meta\">The same numbers are in per_traversal.csv; "
       "<code>limbic experiment report DIR --per-traversal</code> prints them.</p>\n";
  return s.str();
}

std::string FailureAnchor(const std::string& run_id, int iteration) {
  std::string id = "fail-" + run_id + "-" + std::to_string(iteration);
  for (char& c : id) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '-' && c != '_') c = '_';
  }
  return id;
}

// Every failed traversal: where it stopped (distance to goal, collisions), a rough class, and its
// path.
std::string FailuresSection(const ReportInputs& in, const std::vector<SummaryRow>& summary,
                            const ReportOptions& options) {
  std::vector<const IterationRow*> failed;
  for (const auto& r : in.rows) {
    if (!r.success) failed.push_back(&r);
  }
  std::ostringstream h;
  h << "<h2 id=\"failures\">Failed traversals</h2>\n";
  for (const auto& e : in.failure_file_errors) h << "<p class=\"warn\">Unreadable: " << Escape(e) << "</p>\n";
  if (failed.empty()) {
    h << "<p>No traversal failed (" << in.rows.size() << " traversals).</p>\n";
    return h.str();
  }
  // (run, traversal) → its recorded path, if any.
  std::map<std::pair<std::string, int>, std::pair<const FailureTrace*, const FailedTraversal*>> paths;
  for (const auto& run : in.failures) {
    for (const auto& t : run.traversals) paths[{run.run_id, t.iteration}] = {&run, &t};
  }
  h << "<p class=\"meta\">" << failed.size() << " of " << in.rows.size()
    << " traversals failed (no arrival before the timeout). Classes, from the recorded path and "
       "collisions: "
       "<b>pinned</b> = "
    << kPinnedCollisions << "+ collision events in the traversal or " << kPinnedContactCycles / 10
    << "+ s in contact; <b>stopped</b> = moved less than " << FormatNumber(kStillMetres) << " m over its last "
    << FormatNumber(kStillWindowS)
    << " s, <b>within 1 m of the goal</b> or further away; <b>wandering</b> = still moving at the "
       "timeout. "
       "A rough guide for reading the pictures, not a diagnosis.</p>\n";
  if (in.failures.empty() && in.failure_file_errors.empty()) {
    h << "<p class=\"warn\">This folder has no failed_*.csv: it was written before the runner kept "
         "the paths of "
         "failed traversals, so where each traversal stopped and its path are not available here "
         "(the list has "
         "what runs.csv holds). Re-run the experiment into a new folder to get them.</p>\n";
  }

  // Counts per configuration and set.
  constexpr std::array<FailureKind, 5> kinds = {FailureKind::kPinned, FailureKind::kStoppedNearGoal,
                                                FailureKind::kStopped, FailureKind::kWandering, FailureKind::kUnknown};
  std::map<std::tuple<std::string, std::string, char>, std::array<int, 5>> counts;
  std::vector<FailureKind> kind_of;
  for (const IterationRow* r : failed) {
    const auto it = paths.find({r->run_id, r->iteration});
    const FailureKind kind =
        ClassifyFailure(it == paths.end() ? nullptr : it->second.second, r->collisions, r->contact_cycles);
    kind_of.push_back(kind);
    counts[{r->config, r->sweep, r->set}][static_cast<int>(kind)]++;
  }
  h << "<table class=\"summary\"><tr><th>configuration</th><th>set</th><th>failed</th>";
  for (FailureKind k : kinds) h << "<th>" << FailureKindName(k) << "</th>";
  h << "</tr>\n";
  std::set<std::tuple<std::string, std::string, char>> listed;
  for (const auto& r : summary) {  // summary order
    const auto key = std::make_tuple(r.config, r.sweep, r.set);
    const auto it = counts.find(key);
    if (it == counts.end() || !listed.insert(key).second) continue;
    int total = 0;
    for (int c : it->second) total += c;
    h << "<tr><td class=\"key\">" << Escape(r.config) << (r.sweep.empty() ? "" : " · " + Escape(r.sweep)) << "</td><td>"
      << r.set << "</td><td>" << total << "</td>";
    for (int c : it->second) h << "<td>" << c << "</td>";
    h << "</tr>\n";
  }
  h << "</table>\n";

  // Pictures: up to max_failure_pictures, taking the configuration-and-set groups in turn so that
  // each group is shown.
  std::map<std::tuple<std::string, std::string, char>, std::vector<size_t>> by_group;
  std::vector<std::tuple<std::string, std::string, char>> group_order;
  for (size_t i = 0; i < failed.size(); ++i) {
    const auto key = std::make_tuple(failed[i]->config, failed[i]->sweep, failed[i]->set);
    if (!paths.count({failed[i]->run_id, failed[i]->iteration})) continue;
    if (!by_group.count(key)) group_order.push_back(key);
    by_group[key].push_back(i);
  }
  std::set<size_t> pictured;
  std::vector<size_t> picture_order;
  for (size_t round = 0; static_cast<int>(picture_order.size()) < options.max_failure_pictures; ++round) {
    bool any = false;
    for (const auto& key : group_order) {
      const auto& list = by_group[key];
      if (round >= list.size() || static_cast<int>(picture_order.size()) >= options.max_failure_pictures) continue;
      any = true;
      picture_order.push_back(list[round]);
      pictured.insert(list[round]);
    }
    if (!any) break;
  }

  h << "<table "
       "class=\"summary\"><tr><th>#</th><th>run</th><th>configuration</th><th>set</th><th>env</th>"
       "<th>seed</th><th>traversal</th><th>distance to goal (m)</th><th>collisions</th><th>cycles "
       "in contact</th>"
       "<th>distance travelled (m)</th><th>moved in last 60 s "
       "(m)</th><th>class</th><th>path</th></tr>\n";
  for (size_t i = 0; i < failed.size(); ++i) {
    const IterationRow& r = *failed[i];
    const auto it = paths.find({r.run_id, r.iteration});
    const FailedTraversal* t = it == paths.end() ? nullptr : it->second.second;
    h << "<tr><td>" << i + 1 << "</td><td class=\"left\">" << Escape(r.run_id) << "</td><td class=\"left\">"
      << Escape(r.config) << "</td><td>" << r.set << "</td><td>" << r.env << "</td><td>" << r.seed << "</td><td>"
      << r.iteration << "</td><td>" << (t ? Fmt(t->distance_to_goal, 2) : "–") << "</td><td>" << r.collisions
      << "</td><td>" << r.contact_cycles << "</td><td>" << Fmt(r.distance_travelled, 1) << "</td><td>"
      << (t && !t->samples.empty() ? Fmt(MovedOverLast(t->samples, kStillWindowS), 2) : "–")
      << "</td><td class=\"left\">" << FailureKindName(kind_of[i]) << "</td><td>";
    if (pictured.count(i)) {
      h << "<a href=\"#" << FailureAnchor(r.run_id, r.iteration) << "\">picture</a>";
    } else {
      h << (t ? "in failed_" + Escape(r.run_id) + ".csv" : std::string("not recorded"));
    }
    h << "</td></tr>\n";
  }
  h << "</table>\n";
  if (!picture_order.empty()) {
    h << "<p class=\"meta\">Paths of " << picture_order.size() << " of " << failed.size() << " failed traversals";
    size_t with_path = 0;
    for (const auto& [key, list] : by_group) with_path += list.size();
    if (picture_order.size() < with_path)
      h << " (at most " << options.max_failure_pictures << ", the configuration-and-set groups in turn; every path "
        << "is in the failed_*.csv files)";
    h << ": the true path (red) from where the traversal began to the cross where it stood at the "
         "timeout; the "
         "traversal's goal is the yellow (odd traversals) or red (even traversals) disc. Walls "
         "black, obstacles "
         "grey-blue, undetectable obstacles green, human start positions cyan; blocks of 2 m.</p>\n"
         "<div class=\"grid\">\n";
    for (size_t i : picture_order) {
      const IterationRow& r = *failed[i];
      const auto& [run, t] = paths.at({r.run_id, r.iteration});
      h << "<figure class=\"fail\" id=\"" << FailureAnchor(r.run_id, r.iteration) << "\">"
        << RenderFailurePathSvg(*run, *t) << "<figcaption>#" << i + 1 << " · " << Escape(r.config) << " · set " << r.set
        << " env " << r.env << " · stopped " << Fmt(t->distance_to_goal, 2) << " m from the goal, " << r.collisions
        << " collisions · " << FailureKindName(kind_of[i]) << "</figcaption></figure>\n";
    }
    h << "</div>\n";
  }
  return h.str();
}

}  // namespace

// Issue 18 item 1: a team's results robot by robot — the summary table with one group per configuration and
// robot (the label "configuration · robot"), All scope only, and a bar chart of each robot's success.
std::string PerRobotSection(const std::vector<IterationRow>& lead, const std::vector<IterationRow>& team,
                            const ReportOptions& options, bool has_sweep, bool many_sets) {
  std::vector<IterationRow> all = lead;
  all.insert(all.end(), team.begin(), team.end());
  std::vector<std::string> robots;
  for (const auto& r : all) {
    if (std::find(robots.begin(), robots.end(), r.robot) == robots.end()) robots.push_back(r.robot);
  }
  // r1, r2, ..., r10 in numeric order (names are "r" and a number for a team).
  std::sort(robots.begin(), robots.end(), [](const std::string& a, const std::string& b) {
    return a.size() != b.size() ? a.size() < b.size() : a < b;
  });
  std::vector<std::string> order;
  for (const auto& config : options.config_order) {
    for (const auto& robot : robots) order.push_back(config + " · " + robot);
  }
  // Success per robot (x: the robots), one series per configuration (and set, swept value): the proportion
  // with its 95 % Wilson interval, as the other success plots.
  std::map<std::string, Curve> curves;
  for (const auto& r : all) {
    const std::string label = r.config + (many_sets ? " · " + std::string(1, r.set) : std::string()) +
                              (has_sweep ? " @ " + FormatNumber(r.sweep_value) : std::string());
    const double x = static_cast<double>(std::find(robots.begin(), robots.end(), r.robot) - robots.begin());
    curves[label].label = label;
    curves[label].values[x].push_back(r.success ? 100.0 : 0.0);
  }
  std::vector<Curve> ordered;
  for (const auto& [label, curve] : curves) ordered.push_back(curve);
  plot::PlotOptions o;
  o.title = "Success per robot";
  o.x_label = "robot";
  o.y_label = "success % [95 % Wilson CI]";
  o.x_categories = robots;
  o.y_min = 0.0;
  o.y_max = 100.0;
  for (auto& r : all) r.config += " · " + r.robot;
  std::vector<SummaryRow> summary;
  for (auto& row : Summarize(all, order)) {
    if (row.scope == Scope::kAll) summary.push_back(std::move(row));
  }
  std::ostringstream h;
  h << "<h2>Per robot</h2>\n<p class=\"meta\">Each robot of the team on its own (" << robots.size()
    << " robots; the summary above is robot " << kLeadRobot
    << "'s, which travels between the environment's start and goal as a single robot does). One row in "
       "runs.csv per robot and traversal (column <code>robot</code>).</p>\n"
    << SummaryTable(summary, has_sweep, many_sets);
  h << "<div class=\"grid\">" << StripXmlProlog(plot::LinePlot(CurvesToSeries(ordered, true), o)) << "</div>\n";
  return h.str();
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
  h << "<p class=\"meta\">" << run_ids.size() << " runs, " << rows.size() << " traversals; configurations: ";
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
  if (!in.team_rows.empty()) h << PerRobotSection(rows, in.team_rows, options, has_sweep, many_sets);
  h << "<p class=\"meta\">Two completion times: <b>timeouts as 600 s</b> is the §6.1 mean, in "
       "which a traversal "
       "that timed out counts 600 s (it mixes how often the robot arrives with how fast); "
       "<b>successful "
       "traversals</b> is the mean over the traversals that arrived only. Success: traversals that "
       "arrived out of "
       "all, with the 95 % Wilson score interval (it treats traversals as independent; traversals "
       "of one run "
       "share an environment, so pooled intervals are somewhat optimistic). Collisions per minute "
       "as the mean "
       "over traversals (§6.1); coverage once per run (cumulative at its last traversal, §8 item "
       "9). "
       "\"Final\" = the last two traversals of each run. (An experiment with its own "
       "<code>timeout</code> option "
       "counts a timeout as that many seconds; every shipped experiment uses 600 s.)</p>\n";

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
        const double x = has_sweep
                             ? r.sweep_value
                             : static_cast<double>(std::find(letters.begin(), letters.end(), r.set) - letters.begin());
        // Coverage once per run: its last traversal carries the cumulative value.
        if (m == Metric::kCoverage && r.iteration != last_iteration[r.run_id]) continue;
        if (!Counts(r, m)) continue;
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
      h << plot::LinePlot(CurvesToSeries(ordered(curves), m == Metric::kSuccessRate), o);
    }
    h << "</div>\n<p class=\"meta\">Points: mean; bars: ±1 standard deviation, except success: the "
         "proportion "
         "of traversals that arrived with its 95 % Wilson score interval.</p>\n";
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
        if (Counts(r, m)) c.values[r.iteration].push_back(MetricValue(r, m));
      }
      plot::PlotOptions o;
      o.title = std::string(MetricTitle(m)) + " per traversal";
      o.y_label = MetricTitle(m);
      o.x_label = "traversal";
      o.log_y = m == Metric::kCollisionsPerMin;
      if (!o.log_y) o.y_min = 0;  // every metric is non-negative
      if (m == Metric::kSuccessRate) o.y_max = 100;
      h << plot::LinePlot(CurvesToSeries(ordered(curves), m == Metric::kSuccessRate), o);
    }
    h << "</div>\n<p class=\"meta\">Pooled over " << (split_sets ? "environments" : "sets and environments")
      << (has_sweep ? " and swept values" : "")
      << "; bars: ±1 standard deviation (success: 95 % Wilson interval).</p>\n";
    h << PerTraversalBySet(summary, set_letters, configs, has_sweep);
    h << "<h2>Per-traversal table</h2>\n" << PerTraversalTable(summary, has_sweep);
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

  h << FailuresSection(in, summary, options);

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
  // Recordings (issue 17): every message of the run, for `limbic play`, `limbic bag info` or Foxglove.
  if (!in.recordings.empty()) {
    h << "<h2>Recordings</h2>\n<p>Every message of these runs as MCAP: <code>limbic bag info FILE</code>, "
         "<code>limbic play FILE</code>, or open in Foxglove.</p>\n<ul>\n";
    for (const auto& r : in.recordings) h << "<li><a href=\"" << Escape(r) << "\">" << Escape(r) << "</a></li>\n";
    h << "</ul>\n";
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
  in.team_rows = file.team_rows;
  std::vector<std::string> traces, affects, failed_files;
  for (const auto& entry : fs::directory_iterator(dir)) {
    const std::string name = entry.path().filename().string();
    if (!entry.is_regular_file() || !name.ends_with(".csv")) continue;
    if (name.starts_with("trace_")) traces.push_back(entry.path().string());
    if (name.starts_with("affect_")) affects.push_back(entry.path().string());
    if (name.starts_with("failed_")) failed_files.push_back(entry.path().string());
  }
  std::sort(failed_files.begin(), failed_files.end());
  for (const auto& f : failed_files) {
    try {
      in.failures.push_back(ReadFailureTrace(f));
    } catch (const std::exception& e) {
      in.failure_file_errors.push_back(e.what());  // the rest of the report stands without it
    }
  }
  std::sort(traces.begin(), traces.end());
  std::sort(affects.begin(), affects.end());
  if (fs::is_directory(fs::path(dir) / "recordings")) {
    for (const auto& entry : fs::directory_iterator(fs::path(dir) / "recordings")) {
      if (entry.is_regular_file() && entry.path().extension() == ".mcap") {
        in.recordings.push_back("recordings/" + entry.path().filename().string());
      }
    }
    std::sort(in.recordings.begin(), in.recordings.end());
  }
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
  const auto summary = Summarize(in.rows, options.config_order);
  WriteSummaryCsv(result.summary_csv, summary);
  if (std::any_of(summary.begin(), summary.end(), [](const SummaryRow& r) { return r.scope == Scope::kIteration; })) {
    result.per_traversal_csv = (fs::path(dir) / "per_traversal.csv").string();
    WritePerTraversalCsv(result.per_traversal_csv, summary);
  }
  WriteFileAtomically(result.report_html, RenderReportHtml(in, options));
  std::set<std::string> ids;
  for (const auto& r : in.rows) ids.insert(r.run_id);
  result.rows = static_cast<int>(in.rows.size());
  result.runs = static_cast<int>(ids.size());
  result.skipped_lines = file.skipped_lines;
  return result;
}

}  // namespace limbic::experiment
