// A small SVG plotting module for the experiment report (§7 "experiment summaries" and "affect time
// series"): line/marker plots with ±1 sd error bars, optional log-scale y, shaded bands, categorical
// x, histograms. Output is an inline <svg> element (no scripts, no external assets).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "common/markup/escape.hpp"

namespace limbic::experiment::plot {

// One line (and/or markers) with optional symmetric error bars.
struct Series {
  std::string label;
  std::vector<double> x, y;
  std::vector<double> err;  // ±err drawn as error bars when non-empty (same length as y)
  // An interval [lo, hi] per point drawn as an error bar when non-empty (same length as y): for an
  // asymmetric interval such as a binomial confidence interval. Used instead of err when given.
  std::vector<double> lo, hi;
  bool dashed = false;
  std::string colour;  // "" = next palette colour
  bool line = true;
  bool markers = true;
  double line_width = 1.6;
};

// A filled band between lo(x) and hi(x) (e.g. the survival drives' D_min..D_max).
struct Band {
  std::string label;
  std::vector<double> x, lo, hi;
  std::string colour = "#9ecae1";
  double opacity = 0.35;
};

struct PlotOptions {
  std::string title;
  std::string x_label;
  std::string y_label;
  double width = 560;
  double height = 330;
  bool log_y = false;  // values <= 0 are drawn at the bottom of the axis (noted in the y label)
  std::optional<double> y_min, y_max, x_min, x_max;
  // Categorical x: ticks at x = 0..n−1 labelled with these strings.
  std::vector<std::string> x_categories;
  bool legend = true;
};

// The palette used for series without a colour (colour-blind-friendly, 10 entries).
const std::string& PaletteColour(int i);

// About `target` "nice" tick values (1, 2, 5 × 10^k steps) covering [lo, hi].
std::vector<double> NiceTicks(double lo, double hi, int target = 5);
// Tick label without trailing noise ("0.3", "1e+03" only for very large/small values).
std::string TickLabel(double value, double step);

std::string LinePlot(const std::vector<Series>& series, const PlotOptions& options,
                     const std::vector<Band>& bands = {});

struct HistogramSeries {
  std::string label;
  std::vector<double> values;
  std::string colour;  // "" = palette
};

// Histograms over common bins (`bins` equal bins over the pooled range), the series' bars side by
// side inside each bin; y = count.
std::string HistogramPlot(const std::vector<HistogramSeries>& series, int bins, const PlotOptions& options);

// Escapes & < > " ' for SVG/HTML text (the shared escape).
using markup::Escape;

}  // namespace limbic::experiment::plot
