#include "tools/experiment/report.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <random>

#include "sim/environment.hpp"
#include "tools/experiment/definition.hpp"

namespace limbic::experiment {
namespace {

namespace fs = std::filesystem;

int Count(const std::string& text, const std::string& what) {
  int n = 0;
  for (size_t p = text.find(what); p != std::string::npos; p = text.find(what, p + 1)) ++n;
  return n;
}

// Synthetic results: configurations × sets × 3 environments × 2 runs × `iterations`, optionally a
// sweep over {0, 0.5, 1}. Affective runs get faster with traversals, constant ones do not.
std::vector<IterationRow> Synthetic(const std::string& experiment, bool sweep, int iterations,
                                    const std::vector<char>& sets) {
  std::mt19937_64 rng(7);
  std::normal_distribution<double> noise(0, 1);
  std::vector<IterationRow> rows;
  for (const std::string config : {"constant", "affective"}) {
    for (double v : sweep ? std::vector<double>{0, 0.5, 1} : std::vector<double>{0}) {
      for (char set : sets) {
        for (int env = 0; env < 3; ++env) {
          for (int rep = 0; rep < 2; ++rep) {
            double coverage = 0;
            for (int it = 1; it <= iterations; ++it) {
              IterationRow r;
              r.experiment = experiment;
              r.config = config;
              r.set = set;
              r.env = env;
              r.repeat = rep;
              r.seed = 100 + env * 10 + rep;
              if (sweep) {
                r.sweep = "W_v4=" + FormatNumber(v);
                r.sweep_value = v;
              }
              r.run_id = config + (sweep ? "-" + FormatNumber(v) : "") + "-" + std::string(1, set) + "-" +
                         std::to_string(env) + "-" + std::to_string(rep);
              r.iteration = it;
              const double base = config == "affective" ? 90 - 6 * it : 80;
              r.completion_time_s = std::clamp(base + 40 * v + 15 * noise(rng), 20.0, 600.0);
              r.success = r.completion_time_s < 120;
              r.collisions = std::max(0, static_cast<int>(std::lround(1.5 * v + noise(rng))));
              r.collisions_per_min = r.collisions / (r.completion_time_s / 60);
              r.mean_velocity = 25 / r.completion_time_s;
              r.exec_time_ratio = (config == "affective" ? 0.03 : 0.02) + 0.002 * noise(rng);
              coverage = std::min(1.0, coverage + 0.15 + 0.02 * noise(rng));
              r.coverage = coverage;
              r.distance_travelled = 25 + 2 * noise(rng);
              rows.push_back(r);
            }
          }
        }
      }
    }
  }
  return rows;
}

RunTrace SyntheticTrace(const std::string& run_id, char set, int env) {
  const sim::Environment world = sim::GenerateEnvironment(set, env, 1);
  RunTrace t;
  t.run_id = run_id;
  t.set = set;
  t.env = env;
  t.environment_seed = 1;
  t.seed = 3;
  const int n = 900;  // 90 s at 10 Hz
  for (int i = 0; i <= n; ++i) {
    const double f = static_cast<double>(i) / n;
    const double wiggle = 1.5 * std::sin(f * 9.0);
    const double x = world.start.x() + f * (world.goal.x() - world.start.x());
    const double y = world.start.y() + f * (world.goal.y() - world.start.y()) + wiggle * (1 - f) * f * 4;
    t.samples.push_back(
        {0.1 * i, 1, x, y,
         std::atan2(world.goal.y() - world.start.y(), world.goal.x() - world.start.x()) + 0.3 * std::cos(f * 9.0)});
  }
  t.grid.origin = {0, 0};
  t.grid.resolution = 0.35;
  t.grid.width = static_cast<int>(std::ceil(world.width / 0.35));
  t.grid.height = static_cast<int>(std::ceil(world.height / 0.35));
  t.occupancy.assign(static_cast<size_t>(t.grid.CellCount()), 0.2);
  for (const auto& o : world.objects) {
    double x0 = 1e9, y0 = 1e9, x1 = -1e9, y1 = -1e9;
    for (const auto& v : o.vertices) {
      x0 = std::min(x0, v.x());
      y0 = std::min(y0, v.y());
      x1 = std::max(x1, v.x());
      y1 = std::max(y1, v.y());
    }
    for (int iy = 0; iy < t.grid.height; ++iy)
      for (int ix = 0; ix < t.grid.width; ++ix) {
        const auto c = t.grid.Center({ix, iy});
        if (c.x() > x0 - 0.1 && c.x() < x1 + 0.1 && c.y() > y0 - 0.1 && c.y() < y1 + 0.1 && (ix + iy) % 3)
          t.occupancy[t.grid.Index({ix, iy})] = 0.85;
      }
  }
  return t;
}

AffectTrace SyntheticAffect(const std::string& run_id) {
  AffectTrace a;
  a.run_id = run_id;
  for (int i = 0; i <= 600; ++i) {
    AffectSample s;
    s.t = 0.1 * i;
    for (int k = 0; k < 9; ++k) s.stimuli[k] = 0.5 + 0.45 * std::sin(0.05 * i + k);
    for (int k = 0; k < 7; ++k) s.emotions[k] = 0.5 + 0.4 * std::sin(0.03 * i + 2 * k);
    s.moods = {0.5 + 0.2 * std::sin(0.01 * i), 0.5 - 0.2 * std::sin(0.01 * i)};
    s.d_min = 0.3 - 0.1 * std::sin(0.01 * i);
    s.d_max = 0.7 + 0.1 * std::sin(0.01 * i);
    for (int k = 0; k < 3; ++k) s.drives[k] = std::clamp(0.5 + 0.3 * std::sin(0.04 * i + k), s.d_min, s.d_max);
    for (int k = 3; k < 6; ++k) s.drives[k] = 0.3 + 0.25 * std::sin(0.02 * i + k);
    a.samples.push_back(s);
  }
  return a;
}

fs::path WriteSyntheticDir(const std::string& name, bool sweep, int iterations, const std::vector<char>& sets) {
  const fs::path dir = fs::temp_directory_path() / name;
  fs::remove_all(dir);
  fs::create_directories(dir);
  WriteRuns((dir / "runs.csv").string(), Synthetic(name, sweep, iterations, sets));
  const std::string id = sweep ? "affective-0.5-B-0-0" : "affective-B-0-0";
  WriteRunTrace((dir / TraceFileName(id)).string(), SyntheticTrace(id, 'B', 0));
  const std::string id2 = sweep ? "constant-0.5-B-1-0" : "constant-B-1-0";
  WriteRunTrace((dir / TraceFileName(id2)).string(), SyntheticTrace(id2, 'B', 1));
  WriteAffectTrace((dir / AffectTraceFileName(id)).string(), SyntheticAffect(id));
  return dir;
}

TEST(Traces, RoundTrip) {
  const fs::path dir = fs::temp_directory_path() / "limbic_experiment_traces";
  fs::create_directories(dir);
  const RunTrace t = SyntheticTrace("x-B-0-0", 'B', 0);
  WriteRunTrace((dir / "trace.csv").string(), t);
  const RunTrace back = ReadRunTrace((dir / "trace.csv").string());
  EXPECT_EQ(back.run_id, t.run_id);
  EXPECT_EQ(back.set, 'B');
  EXPECT_EQ(back.seed, 3u);
  EXPECT_EQ(back.grid, t.grid);
  EXPECT_EQ(back.occupancy, t.occupancy);
  ASSERT_EQ(back.samples.size(), t.samples.size());
  EXPECT_EQ(back.samples[17].theta, t.samples[17].theta);
  const AffectTrace a = SyntheticAffect("x-B-0-0");
  WriteAffectTrace((dir / "affect.csv").string(), a);
  const AffectTrace ab = ReadAffectTrace((dir / "affect.csv").string());
  ASSERT_EQ(ab.samples.size(), a.samples.size());
  EXPECT_EQ(ab.samples[100].drives, a.samples[100].drives);
  EXPECT_EQ(ab.samples[100].d_max, a.samples[100].d_max);
  std::ofstream(dir / "bad.csv") << "# limbic run trace v1\n# grid,0,0\n";
  EXPECT_THROW(ReadRunTrace((dir / "bad.csv").string()), std::runtime_error);
}

TEST(Report, SweepReportRendersFromRunsDirectory) {
  const fs::path dir = WriteSyntheticDir("limbic_experiment_report_sweep", true, 1, {'B', 'C'});
  const ReportResult result = Report(dir.string());
  EXPECT_EQ(result.runs, 2 * 3 * 2 * 3 * 2);
  EXPECT_EQ(result.rows, result.runs);
  std::ifstream in(result.report_html);
  const std::string html((std::istreambuf_iterator<char>(in)), {});
  EXPECT_EQ(html.rfind("<!DOCTYPE html>", 0), 0u);
  EXPECT_NE(html.find("</html>"), std::string::npos);
  EXPECT_NE(html.find("<table class=\"summary\">"), std::string::npos);
  EXPECT_NE(html.find("Metrics against W_v4"), std::string::npos);
  // 8 metric plots (both completion times) + 2 histograms + 2 maps + 5 affect panels; no failure
  // pictures: this folder has no failed_*.csv
  EXPECT_EQ(Count(html, "<svg"), 8 + 2 + 2 + 5);
  EXPECT_EQ(Count(html, "<svg"), Count(html, "</svg>"));
  const std::string summary_table = html.substr(0, html.find("</table>"));
  EXPECT_EQ(Count(summary_table, "<tr>"), 1 + 2 * 3 * 2);  // header + (config, value, set) All rows
  EXPECT_TRUE(result.per_traversal_csv.empty()) << "one traversal per run: no per-traversal file";
  EXPECT_FALSE(fs::exists(dir / "per_traversal.csv"));
  EXPECT_EQ(html.find("<script"), std::string::npos);
  EXPECT_EQ(html.find("http://"), html.find("http://www.w3.org/2000/svg"));  // no external assets
  EXPECT_EQ(html.find("nan"), std::string::npos);
  EXPECT_TRUE(fs::exists(result.summary_csv));
}

TEST(Report, Chapter10StyleReportHasPerTraversalCurves) {
  const fs::path dir = WriteSyntheticDir("limbic_experiment_report_ch10", false, 9, {'A', 'B', 'C'});
  const ReportResult result = Report(dir.string());
  std::ifstream in(result.report_html);
  const std::string html((std::istreambuf_iterator<char>(in)), {});
  EXPECT_NE(html.find("Metrics per set"), std::string::npos);
  EXPECT_NE(html.find("Per-traversal curves"), std::string::npos);
  EXPECT_NE(html.find("<td>Final</td>"), std::string::npos);
  EXPECT_NE(html.find("Per-traversal success and time, per set"), std::string::npos);
  EXPECT_NE(html.find("Per-traversal table"), std::string::npos);
  // 8 per-set + 8 per-traversal + 3 sets × (success, time) + 2 histograms + 2 maps + 5 affect
  EXPECT_EQ(Count(html, "<svg"), 8 + 8 + 3 * 2 + 2 + 2 + 5);
  // The per-traversal table: per (config, set) 4 lines (arrived/runs, %, both times) of 9
  // traversals.
  EXPECT_EQ(Count(html, "success, arrived/runs"), 2 * 3);
  EXPECT_EQ(Count(html, "<td>6/6</td>") + Count(html, "<td>5/6</td>") + Count(html, "<td>4/6</td>") +
                Count(html, "<td>3/6</td>") + Count(html, "<td>2/6</td>") + Count(html, "<td>1/6</td>") +
                Count(html, "<td>0/6</td>"),
            2 * 3 * 9);
  ASSERT_FALSE(result.per_traversal_csv.empty());
  std::ifstream per_traversal(result.per_traversal_csv);
  const std::string per_csv((std::istreambuf_iterator<char>(per_traversal)), {});
  EXPECT_EQ(std::count(per_csv.begin(), per_csv.end(), '\n'), 2 * 3 * 9 + 1);
  std::ifstream summary(result.summary_csv);
  const std::string csv((std::istreambuf_iterator<char>(summary)), {});
  // (2 configs × 3 sets) groups × (All + Final + 9 traversals) + header
  EXPECT_EQ(std::count(csv.begin(), csv.end(), '\n'), 6 * 11 + 1);
  EXPECT_EQ(html.find("Recordings"), std::string::npos);  // none made
}

TEST(Report, LinksTheRecordingsBesideRunsCsv) {
  const fs::path dir = WriteSyntheticDir("limbic_experiment_report_bags", false, 1, {'B'});
  fs::create_directories(dir / "recordings");
  std::ofstream(dir / "recordings" / "affective-B-0-0.mcap") << "x";
  std::ofstream(dir / "recordings" / "notes.txt") << "x";
  const ReportResult result = Report(dir.string());
  std::ifstream in(result.report_html);
  const std::string html((std::istreambuf_iterator<char>(in)), {});
  EXPECT_NE(html.find("<h2>Recordings</h2>"), std::string::npos);
  EXPECT_NE(html.find("<a href=\"recordings/affective-B-0-0.mcap\">"), std::string::npos);
  EXPECT_EQ(html.find("notes.txt"), std::string::npos);
}

TEST(Report, ACutTraceIsSkippedAndReported) {
  const fs::path dir = WriteSyntheticDir("limbic_experiment_report_cut", false, 1, {'B'});
  std::vector<fs::path> traces;
  for (const auto& e : fs::directory_iterator(dir)) {
    if (e.path().filename().string().starts_with("trace_")) traces.push_back(e.path());
  }
  ASSERT_FALSE(traces.empty());
  const auto cut = traces.front();
  fs::resize_file(cut, fs::file_size(cut) / 2);  // a full disk in the middle of the file
  const ReportResult result = Report(dir.string());
  ASSERT_EQ(result.cut_traces.size(), 1u);
  EXPECT_EQ(fs::path(result.cut_traces[0]).filename(), cut.filename());
  EXPECT_TRUE(fs::exists(result.report_html));
}

// Two runs of set B, three traversals each: run "constant-B-0-0" fails traversal 2 (pinned, 140
// collisions) and run "affective-B-1-0" fails traversal 3 (stopped 0.6 m from the goal).
std::vector<IterationRow> RunsWithFailures() {
  std::vector<IterationRow> rows;
  for (const std::string id : {"constant-B-0-0", "affective-B-1-0"}) {
    for (int it = 1; it <= 3; ++it) {
      IterationRow r;
      r.run_id = id;
      r.experiment = "failures";
      r.config = id.substr(0, id.find('-'));
      r.set = 'B';
      r.env = id[id.size() - 3] - '0';
      r.seed = 40 + r.env;
      r.iteration = it;
      r.success = !((id == "constant-B-0-0" && it == 2) || (id == "affective-B-1-0" && it == 3));
      r.completion_time_s = r.success ? 50.0 + it : 600.0;
      r.collisions = id == "constant-B-0-0" && it == 2 ? 140 : 1;
      r.coverage = 0.2 * it;
      rows.push_back(r);
    }
  }
  return rows;
}

FailureTrace FailureOf(const std::string& run_id, int env, int iteration, double distance, bool still) {
  const sim::Environment world = sim::GenerateEnvironment('B', env, 1);
  FailureTrace t;
  t.run_id = run_id;
  t.set = 'B';
  t.env = env;
  t.environment_seed = 1;
  t.seed = 40 + static_cast<uint64_t>(env);
  FailedTraversal f;
  f.iteration = iteration;
  f.goal_x = world.goal.x();
  f.goal_y = world.goal.y();
  f.distance_to_goal = distance;
  // 100 s of driving towards the goal in 0.1 m steps, then (still) 500 s standing, or 500 s moving
  // on.
  for (int i = 0; i <= 100; ++i) {
    const double a = 0.01 * i;
    f.samples.push_back({1.0 * i, iteration, world.start.x() + a * (world.goal.x() - world.start.x()) * 0.9,
                         world.start.y() + a * (world.goal.y() - world.start.y()) * 0.9, 0.3});
  }
  if (still) {
    f.samples.push_back({600.0, iteration, f.samples.back().x + 0.02, f.samples.back().y, 0.3});
  } else {
    for (int i = 1; i <= 50; ++i)
      f.samples.push_back({100.0 + 10 * i, iteration, f.samples.back().x, 1.0 + 0.1 * (i % 20), 0});
  }
  t.traversals.push_back(f);
  return t;
}

TEST(FailureClass, FollowsTheRulesInOrder) {
  FailedTraversal t;
  t.distance_to_goal = 0.6;
  // Drove 10 m in the first 100 s, then stood still for 500 s (one last pose at the timeout).
  for (int i = 0; i <= 100; ++i) t.samples.push_back({1.0 * i, 1, 0.1 * i, 0, 0});
  t.samples.push_back({600, 1, 10.02, 0, 0});
  EXPECT_NEAR(MovedOverLast(t.samples, 60), 0.02,
              1e-12);  // the pose at 100 s, kept before the window
  EXPECT_NEAR(MovedOverLast(t.samples, 600), 10.02, 1e-12);
  EXPECT_EQ(ClassifyFailure(&t, 3, 3), FailureKind::kStoppedNearGoal);
  EXPECT_EQ(ClassifyFailure(&t, 100, 100), FailureKind::kPinned) << "100+ collisions first";
  EXPECT_EQ(ClassifyFailure(&t, 1, 600), FailureKind::kPinned) << "one long contact of 60 s";
  EXPECT_EQ(ClassifyFailure(&t, 99, 599), FailureKind::kStoppedNearGoal);
  t.distance_to_goal = 1.0;
  EXPECT_EQ(ClassifyFailure(&t, 3, 3), FailureKind::kStopped) << "1 m is not within 1 m";
  t.samples.push_back({600.1, 1, 10.6, 0, 0});  // moved 0.58 m in the last minute
  EXPECT_EQ(ClassifyFailure(&t, 3, 3), FailureKind::kWandering);
  EXPECT_EQ(ClassifyFailure(nullptr, 3, 3), FailureKind::kUnknown);
  EXPECT_EQ(ClassifyFailure(nullptr, 250, 250), FailureKind::kPinned);
  EXPECT_EQ(MovedOverLast({}, 60), 0.0);
}

TEST(Report, FailuresSectionListsEachFailedTraversalWithItsPath) {
  const fs::path dir = fs::temp_directory_path() / "limbic_experiment_report_failures";
  fs::remove_all(dir);
  fs::create_directories(dir);
  WriteRuns((dir / "runs.csv").string(), RunsWithFailures());
  WriteFailureTrace((dir / FailureTraceFileName("constant-B-0-0")).string(),
                    FailureOf("constant-B-0-0", 0, 2, 7.25, /*still=*/false));
  WriteFailureTrace((dir / FailureTraceFileName("affective-B-1-0")).string(),
                    FailureOf("affective-B-1-0", 1, 3, 0.6, /*still=*/true));
  const ReportResult result = Report(dir.string());
  std::ifstream in(result.report_html);
  const std::string html((std::istreambuf_iterator<char>(in)), {});
  const size_t section = html.find("<h2 id=\"failures\">Failed traversals</h2>");
  ASSERT_NE(section, std::string::npos);
  const std::string failures = html.substr(section, html.find("<h2", section + 1) - section);
  EXPECT_NE(failures.find("2 of 6 traversals failed"), std::string::npos);
  // Both listed with where they stopped, their collisions, class and a link to the picture.
  EXPECT_NE(failures.find("<td class=\"left\">constant-B-0-0</td>"), std::string::npos);
  EXPECT_NE(failures.find("<td>7.25</td><td>140</td>"), std::string::npos) << failures;
  EXPECT_NE(failures.find("<td>0.60</td><td>1</td>"), std::string::npos);
  EXPECT_NE(failures.find(FailureKindName(FailureKind::kPinned)), std::string::npos);
  EXPECT_NE(failures.find(FailureKindName(FailureKind::kStoppedNearGoal)), std::string::npos);
  EXPECT_NE(failures.find("href=\"#fail-constant-B-0-0-2\""), std::string::npos);
  EXPECT_NE(failures.find("id=\"fail-affective-B-1-0-3\""), std::string::npos);
  // Two path pictures, each with the path's end cross.
  EXPECT_EQ(Count(failures, "<svg"), 2);
  EXPECT_EQ(Count(failures, "id=\"trajectory-end\""), 2);
  EXPECT_EQ(failures.find("no failed_*.csv"), std::string::npos);
  // Success as a proportion with its interval in the summary: 2 of 3 traversals of each
  // configuration.
  EXPECT_NE(html.find("2/3 · 66.7 % [20.8–93.9]"), std::string::npos);
  EXPECT_NE(html.find("95 % Wilson CI"), std::string::npos);
  EXPECT_EQ(html.find("Success rate (%)<br><small>mean"), std::string::npos);

  // A picture cap still lists every failure.
  ReportOptions capped;
  capped.max_failure_pictures = 1;
  ReportInputs inputs;
  inputs.rows = RunsWithFailures();
  inputs.failures = {FailureOf("constant-B-0-0", 0, 2, 7.25, false), FailureOf("affective-B-1-0", 1, 3, 0.6, true)};
  const std::string one = RenderReportHtml(inputs, capped);
  EXPECT_EQ(Count(one, "id=\"trajectory-end\""), 1);
  EXPECT_NE(one.find("in failed_affective-B-1-0.csv"), std::string::npos);
  EXPECT_NE(one.find("at most 1"), std::string::npos);
}

TEST(Report, AnOldFolderWithoutFailedPathsSaysSoAndStillListsTheFailures) {
  const fs::path dir = fs::temp_directory_path() / "limbic_experiment_report_old";
  fs::remove_all(dir);
  fs::create_directories(dir);
  WriteRuns((dir / "runs.csv").string(), RunsWithFailures());
  const ReportResult result = Report(dir.string());
  std::ifstream in(result.report_html);
  const std::string html((std::istreambuf_iterator<char>(in)), {});
  EXPECT_NE(html.find("This folder has no failed_*.csv"), std::string::npos);
  EXPECT_EQ(Count(html, "not recorded"), 2);
  EXPECT_NE(html.find(FailureKindName(FailureKind::kPinned)), std::string::npos) << "collisions are in runs.csv";
  EXPECT_EQ(Count(html, "id=\"trajectory-end\""), 0);

  // A broken failed_*.csv is named; the report is still written.
  std::ofstream(dir / "failed_constant-B-0-0.csv") << "# limbic failed traversals v1\n# run_id,x\n1,2,3,4\n# end\n";
  const ReportResult again = Report(dir.string());
  std::ifstream in2(again.report_html);
  const std::string html2((std::istreambuf_iterator<char>(in2)), {});
  EXPECT_NE(html2.find("Unreadable: "), std::string::npos);
  EXPECT_NE(html2.find("a path point before any"), std::string::npos);
  // One without its end line was cut (a full disk): named as cut.
  std::ofstream(dir / "failed_constant-B-0-0.csv") << "# limbic failed traversals v1\n# run_id,x\n";
  const ReportResult cut = Report(dir.string());
  std::ifstream in3(cut.report_html);
  const std::string html3((std::istreambuf_iterator<char>(in3)), {});
  EXPECT_NE(html3.find("Unreadable: "), std::string::npos);
  EXPECT_NE(html3.find("cut (ends at line"), std::string::npos);
}

TEST(Report, NoFailureSaysSo) {
  std::vector<IterationRow> rows = RunsWithFailures();
  for (auto& r : rows) r.success = true;
  ReportInputs inputs;
  inputs.rows = rows;
  EXPECT_NE(RenderReportHtml(inputs).find("No traversal failed (6 traversals)."), std::string::npos);
}

TEST(Report, MissingRunsIsAnError) {
  EXPECT_THROW(Report((fs::temp_directory_path() / "limbic_no_such_dir").string()), std::runtime_error);
}

}  // namespace
}  // namespace limbic::experiment
