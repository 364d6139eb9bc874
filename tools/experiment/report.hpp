// The experiment report: summary.csv and a self-contained report.html (inline CSS and SVG, no
// scripts, no external assets) with the §7 experiment-summary plots, example paths over the
// occupancy map and the affect time series of a run.
#pragma once

#include <string>
#include <vector>

#include "tools/experiment/results.hpp"
#include "tools/experiment/summary.hpp"
#include "tools/experiment/traces.hpp"

namespace limbic::experiment {

struct ReportOptions {
  std::vector<std::string> config_order;  // configurations listed first, in this order
  int max_paths = 4;        // example paths drawn (trace files, in run-id order)
  int max_affect_runs = 2;  // affect time series drawn
  int histogram_bins = 20;
};

// Everything one report shows (already read from disk).
struct ReportInputs {
  std::string experiment;   // "" = taken from the rows
  std::string description;  // optional text under the title
  std::vector<IterationRow> rows;
  std::vector<RunTrace> paths;
  std::vector<AffectTrace> affect;
};

// The HTML document. Pure: the walls of example paths come from
// sim::GenerateEnvironment(trace.set, trace.env, trace.environment_seed).
std::string RenderReportHtml(const ReportInputs& inputs, const ReportOptions& options = {});

// The SVG panels of one affect trace: stimuli, emotions, moods, survival drives inside their
// D_min..D_max band, strategic drives.
std::string RenderAffectPanels(const AffectTrace& trace);

// The SVG map of one trace: walls, occupancy as grey squares, trajectory with a heading arrow
// every 5 s.
std::string RenderPathSvg(const RunTrace& trace);

struct ReportResult {
  std::string summary_csv;
  std::string report_html;
  int rows = 0;
  int runs = 0;
  int skipped_lines = 0;  // torn or malformed runs.csv records ignored
  std::vector<std::string> cut_traces;  // trace files that end before their end marker: skipped
};

// Reads <dir>/runs.csv and the trace_*.csv / affect_*.csv files in dir, writes <dir>/summary.csv and
// <dir>/report.html (each replaced whole or not at all). A cut trace file is skipped and listed in
// cut_traces. Throws std::runtime_error when runs.csv is missing or unreadable, or a write fails
// (naming the file and the cause).
ReportResult Report(const std::string& dir, const ReportOptions& options = {});

}  // namespace limbic::experiment
