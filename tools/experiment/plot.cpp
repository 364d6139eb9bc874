#include "tools/experiment/plot.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <sstream>

namespace limbic::experiment::plot {
namespace {

constexpr double kLeft = 64, kTop = 30, kBottom = 46, kLegendWidth = 150, kRightPlain = 18;

std::string Num(double v) {
  char buffer[32];
  std::snprintf(buffer, sizeof(buffer), "%.2f", v);
  return buffer;
}

// Maps data to pixels for one plot.
struct Frame {
  double x0, x1, y0, y1;      // data range (y in log10 when log_y)
  double px0, px1, py0, py1;  // pixel box (py0 bottom, py1 top)
  bool log_y = false;
  double floor_value = 1e-3;  // what <= 0 becomes on a log axis

  double Y(double v) const {
    if (log_y) v = std::log10(std::max(v, floor_value));
    return py0 - (v - y0) / (y1 - y0) * (py0 - py1);
  }
  double X(double v) const { return px0 + (v - x0) / (x1 - x0) * (px1 - px0); }
};

void Range(double* lo, double* hi) {
  if (!std::isfinite(*lo) || !std::isfinite(*hi)) {
    *lo = 0;
    *hi = 1;
  }
  if (*hi - *lo < 1e-12) {
    const double pad = std::abs(*lo) > 1e-12 ? 0.1 * std::abs(*lo) : 0.5;
    *lo -= pad;
    *hi += pad;
  }
}

std::string Header(const PlotOptions& o) {
  std::ostringstream s;
  s << "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"plot\" width=\"" << o.width << "\" height=\"" << o.height
    << "\" viewBox=\"0 0 " << o.width << " " << o.height
    << "\" font-family=\"Helvetica, Arial, sans-serif\" font-size=\"11\">\n"
    << "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n";
  if (!o.title.empty())
    s << "<text x=\"" << Num(o.width / 2) << "\" y=\"18\" text-anchor=\"middle\" font-size=\"13\""
      << " font-weight=\"bold\">" << Escape(o.title) << "</text>\n";
  return s.str();
}

// Axes, grid lines, ticks and labels.
std::string Axes(const Frame& f, const PlotOptions& o) {
  std::ostringstream s;
  s << "<rect x=\"" << Num(f.px0) << "\" y=\"" << Num(f.py1) << "\" width=\"" << Num(f.px1 - f.px0) << "\" height=\""
    << Num(f.py0 - f.py1) << "\" fill=\"none\" stroke=\"#444\"/>\n";
  // y ticks
  std::vector<double> yt;
  double ystep = 1;
  if (f.log_y) {
    for (int k = static_cast<int>(std::ceil(f.y0 - 1e-9)); k <= static_cast<int>(std::floor(f.y1 + 1e-9)); ++k)
      yt.push_back(k);
  } else {
    yt = NiceTicks(f.y0, f.y1);
    if (yt.size() > 1) ystep = yt[1] - yt[0];
  }
  for (double t : yt) {
    const double value = f.log_y ? std::pow(10.0, t) : t;
    const double py = f.py0 - (t - f.y0) / (f.y1 - f.y0) * (f.py0 - f.py1);
    s << "<line x1=\"" << Num(f.px0) << "\" x2=\"" << Num(f.px1) << "\" y1=\"" << Num(py) << "\" y2=\"" << Num(py)
      << "\" stroke=\"#e3e3e3\"/>\n";
    s << "<line x1=\"" << Num(f.px0 - 4) << "\" x2=\"" << Num(f.px0) << "\" y1=\"" << Num(py) << "\" y2=\"" << Num(py)
      << "\" stroke=\"#444\"/>\n";
    s << "<text x=\"" << Num(f.px0 - 6) << "\" y=\"" << Num(py + 3.5) << "\" text-anchor=\"end\">"
      << Escape(TickLabel(value, f.log_y ? value : ystep)) << "</text>\n";
  }
  // x ticks
  if (!o.x_categories.empty()) {
    for (size_t i = 0; i < o.x_categories.size(); ++i) {
      const double px = f.X(static_cast<double>(i));
      s << "<line x1=\"" << Num(px) << "\" x2=\"" << Num(px) << "\" y1=\"" << Num(f.py0) << "\" y2=\"" << Num(f.py0 + 4)
        << "\" stroke=\"#444\"/>\n";
      s << "<text x=\"" << Num(px) << "\" y=\"" << Num(f.py0 + 16) << "\" text-anchor=\"middle\">"
        << Escape(o.x_categories[i]) << "</text>\n";
    }
  } else {
    const auto xt = NiceTicks(f.x0, f.x1, 6);
    const double xstep = xt.size() > 1 ? xt[1] - xt[0] : 1;
    for (double t : xt) {
      const double px = f.X(t);
      s << "<line x1=\"" << Num(px) << "\" x2=\"" << Num(px) << "\" y1=\"" << Num(f.py1) << "\" y2=\"" << Num(f.py0)
        << "\" stroke=\"#f0f0f0\"/>\n";
      s << "<line x1=\"" << Num(px) << "\" x2=\"" << Num(px) << "\" y1=\"" << Num(f.py0) << "\" y2=\"" << Num(f.py0 + 4)
        << "\" stroke=\"#444\"/>\n";
      s << "<text x=\"" << Num(px) << "\" y=\"" << Num(f.py0 + 16) << "\" text-anchor=\"middle\">"
        << Escape(TickLabel(t, xstep)) << "</text>\n";
    }
  }
  if (!o.x_label.empty())
    s << "<text x=\"" << Num((f.px0 + f.px1) / 2) << "\" y=\"" << Num(f.py0 + 34) << "\" text-anchor=\"middle\">"
      << Escape(o.x_label) << "</text>\n";
  std::string ylabel = o.y_label;
  if (f.log_y) ylabel += " (log; 0 at bottom)";
  if (!ylabel.empty())
    s << "<text transform=\"translate(14," << Num((f.py0 + f.py1) / 2) << ") rotate(-90)\" text-anchor=\"middle\">"
      << Escape(ylabel) << "</text>\n";
  return s.str();
}

std::string Legend(const std::vector<std::pair<std::string, std::string>>& entries, const std::vector<bool>& filled,
                   const Frame& f, const std::vector<bool>& dashed = {}) {
  std::ostringstream s;
  double y = f.py1 + 6;
  const double x = f.px1 + 12;
  for (size_t i = 0; i < entries.size(); ++i) {
    if (entries[i].first.empty()) continue;
    if (filled[i]) {
      s << "<rect x=\"" << Num(x) << "\" y=\"" << Num(y) << "\" width=\"14\" height=\"9\" fill=\"" << entries[i].second
        << "\" fill-opacity=\"0.5\" stroke=\"" << entries[i].second << "\"/>\n";
    } else {
      s << "<line x1=\"" << Num(x) << "\" x2=\"" << Num(x + 14) << "\" y1=\"" << Num(y + 4.5) << "\" y2=\""
        << Num(y + 4.5) << "\" stroke=\"" << entries[i].second << "\" stroke-width=\"2.2\""
        << (i < dashed.size() && dashed[i] ? " stroke-dasharray=\"4,2\"" : "") << "/>\n";
    }
    std::string label = entries[i].first;
    if (label.size() > 22) label = label.substr(0, 21) + "…";
    s << "<text x=\"" << Num(x + 19) << "\" y=\"" << Num(y + 8.5) << "\">" << Escape(label) << "</text>\n";
    y += 15;
  }
  return s.str();
}

Frame MakeFrame(const PlotOptions& o, bool legend) {
  Frame f{};
  f.px0 = kLeft;
  f.px1 = o.width - (legend ? kLegendWidth : kRightPlain);
  f.py1 = kTop;
  f.py0 = o.height - kBottom;
  f.log_y = o.log_y;
  return f;
}

}  // namespace

const std::string& PaletteColour(int i) {
  static const std::vector<std::string> palette = {"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd",
                                                   "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"};
  return palette[static_cast<size_t>(std::abs(i)) % palette.size()];
}

std::vector<double> NiceTicks(double lo, double hi, int target) {
  if (!(hi > lo)) return {lo};
  const double raw = (hi - lo) / std::max(1, target);
  const double mag = std::pow(10.0, std::floor(std::log10(raw)));
  double step = mag;
  for (double m : {1.0, 2.0, 2.5, 5.0, 10.0}) {
    step = m * mag;
    if (step >= raw) break;
  }
  std::vector<double> ticks;
  const double first = std::ceil(lo / step - 1e-9) * step;
  for (double t = first; t <= hi + step * 1e-9; t += step) {
    ticks.push_back(std::abs(t) < step * 1e-9 ? 0.0 : t);
    if (ticks.size() > 50) break;
  }
  return ticks;
}

std::string TickLabel(double value, double step) {
  char buffer[32];
  const double a = std::abs(step);
  if (value != 0 && (std::abs(value) >= 1e5 || std::abs(value) < 1e-4)) {
    std::snprintf(buffer, sizeof(buffer), "%.0e", value);
  } else {
    int decimals = 0;
    if (a > 0 && a < 1) decimals = std::min(6, static_cast<int>(std::ceil(-std::log10(a) - 1e-9)));
    if (a > 0 && std::abs(a * std::pow(10.0, decimals) - std::round(a * std::pow(10.0, decimals))) > 1e-6)
      ++decimals;  // 2.5 × 10^k steps
    std::snprintf(buffer, sizeof(buffer), "%.*f", decimals, value);
  }
  return buffer;
}

std::string LinePlot(const std::vector<Series>& series, const PlotOptions& o, const std::vector<Band>& bands) {
  const bool legend =
      o.legend && (series.size() + bands.size() > 1 || (series.size() == 1 && !series[0].label.empty()));
  Frame f = MakeFrame(o, legend);
  const double inf = std::numeric_limits<double>::infinity();
  double xlo = inf, xhi = -inf, ylo = inf, yhi = -inf, min_positive = inf;
  auto take_y = [&](double v) {
    if (!std::isfinite(v)) return;
    ylo = std::min(ylo, v);
    yhi = std::max(yhi, v);
    if (v > 0) min_positive = std::min(min_positive, v);
  };
  for (const auto& s : series) {
    for (size_t i = 0; i < s.x.size() && i < s.y.size(); ++i) {
      if (!std::isfinite(s.y[i])) continue;
      xlo = std::min(xlo, s.x[i]);
      xhi = std::max(xhi, s.x[i]);
      const double e = i < s.err.size() && std::isfinite(s.err[i]) ? s.err[i] : 0.0;
      take_y(s.y[i] - e);
      take_y(s.y[i] + e);
      take_y(s.y[i]);
      if (i < s.lo.size() && i < s.hi.size()) {
        take_y(s.lo[i]);
        take_y(s.hi[i]);
      }
    }
  }
  for (const auto& b : bands) {
    for (size_t i = 0; i < b.x.size(); ++i) {
      xlo = std::min(xlo, b.x[i]);
      xhi = std::max(xhi, b.x[i]);
      take_y(b.lo[i]);
      take_y(b.hi[i]);
    }
  }
  if (!o.x_categories.empty()) {
    xlo = -0.5;
    xhi = static_cast<double>(o.x_categories.size()) - 0.5;
  }
  if (o.x_min) xlo = *o.x_min;
  if (o.x_max) xhi = *o.x_max;
  Range(&xlo, &xhi);
  if (o.x_categories.empty()) {
    const double pad = 0.03 * (xhi - xlo);
    xlo -= pad;
    xhi += pad;
  }
  if (o.log_y) {
    if (!std::isfinite(min_positive)) min_positive = 0.1;
    f.floor_value = std::pow(10.0, std::floor(std::log10(min_positive)) - (ylo <= 0 ? 1 : 0));
    ylo = std::log10(f.floor_value);
    yhi = std::ceil(std::log10(std::max(yhi, f.floor_value * 10)) - 1e-9);
    if (yhi <= ylo) yhi = ylo + 1;
  } else {
    if (o.y_min) ylo = *o.y_min;
    if (o.y_max) yhi = *o.y_max;
    if (o.y_min && !o.y_max && yhi - ylo < 1e-12) yhi = ylo + 1;
    Range(&ylo, &yhi);
    if (!o.y_min || !o.y_max) {  // round the free ends out to a tick
      const auto ticks = NiceTicks(ylo, yhi);
      const double step = ticks.size() > 1 ? ticks[1] - ticks[0] : (yhi - ylo);
      if (!o.y_min) ylo = std::floor(ylo / step + 1e-9) * step;
      if (!o.y_max) yhi = std::ceil(yhi / step - 1e-9) * step;
      Range(&ylo, &yhi);
    }
  }
  f.x0 = xlo;
  f.x1 = xhi;
  f.y0 = ylo;
  f.y1 = yhi;

  std::ostringstream s;
  s << Header(o) << Axes(f, o);
  s << "<g clip-path=\"none\">\n";
  std::vector<std::pair<std::string, std::string>> legend_entries;
  std::vector<bool> filled, dashed;
  for (const auto& b : bands) {
    std::string pts;
    for (size_t i = 0; i < b.x.size(); ++i) pts += Num(f.X(b.x[i])) + "," + Num(f.Y(b.hi[i])) + " ";
    for (size_t i = b.x.size(); i-- > 0;) pts += Num(f.X(b.x[i])) + "," + Num(f.Y(b.lo[i])) + " ";
    s << "<polygon points=\"" << pts << "\" fill=\"" << b.colour << "\" fill-opacity=\"" << b.opacity
      << "\" stroke=\"none\"/>\n";
    legend_entries.push_back({b.label, b.colour});
    filled.push_back(true);
    dashed.push_back(false);
  }
  for (size_t k = 0; k < series.size(); ++k) {
    const auto& se = series[k];
    const std::string colour = se.colour.empty() ? PaletteColour(static_cast<int>(k)) : se.colour;
    legend_entries.push_back({se.label, colour});
    filled.push_back(false);
    dashed.push_back(se.dashed);
    // Error bars: [lo, hi] when given, else ±err.
    const bool interval = !se.lo.empty() && !se.hi.empty();
    for (size_t i = 0; i < (interval ? std::min(se.lo.size(), se.hi.size()) : se.err.size()) && i < se.y.size(); ++i) {
      const double low = interval ? se.lo[i] : se.y[i] - se.err[i];
      const double high = interval ? se.hi[i] : se.y[i] + se.err[i];
      if (!std::isfinite(se.y[i]) || !std::isfinite(low) || !std::isfinite(high) || !(high > low)) continue;
      const double px = f.X(se.x[i]);
      // Clamped to the plot box (a fixed 0..100 % axis, a log axis).
      const double a = std::clamp(f.Y(low), f.py1, f.py0);
      const double b = std::clamp(f.Y(high), f.py1, f.py0);
      s << "<path d=\"M" << Num(px) << "," << Num(a) << "V" << Num(b) << "M" << Num(px - 3) << "," << Num(a) << "h6M"
        << Num(px - 3) << "," << Num(b) << "h6\" stroke=\"" << colour << "\" stroke-opacity=\"0.7\" fill=\"none\"/>\n";
    }
    if (se.line) {
      std::string d;
      bool pen = false;
      for (size_t i = 0; i < se.x.size() && i < se.y.size(); ++i) {
        if (!std::isfinite(se.y[i])) {
          pen = false;
          continue;
        }
        d += (pen ? "L" : "M") + Num(f.X(se.x[i])) + "," + Num(f.Y(se.y[i]));
        pen = true;
      }
      if (!d.empty())
        s << "<path d=\"" << d << "\" fill=\"none\" stroke=\"" << colour << "\" stroke-width=\"" << se.line_width
          << "\" stroke-linejoin=\"round\"" << (se.dashed ? " stroke-dasharray=\"5,3\"" : "") << "/>\n";
    }
    if (se.markers) {
      for (size_t i = 0; i < se.x.size() && i < se.y.size(); ++i) {
        if (!std::isfinite(se.y[i])) continue;
        s << "<circle cx=\"" << Num(f.X(se.x[i])) << "\" cy=\"" << Num(f.Y(se.y[i])) << "\" r=\"2.8\" fill=\"" << colour
          << "\"/>\n";
      }
    }
  }
  s << "</g>\n";
  if (legend) s << Legend(legend_entries, filled, f, dashed);
  s << "</svg>\n";
  return s.str();
}

std::string HistogramPlot(const std::vector<HistogramSeries>& series, int bins, const PlotOptions& o) {
  bins = std::max(1, bins);
  double lo = std::numeric_limits<double>::infinity(), hi = -lo;
  for (const auto& h : series) {
    for (double v : h.values) {
      if (!std::isfinite(v)) continue;
      lo = std::min(lo, v);
      hi = std::max(hi, v);
    }
  }
  if (o.x_min) lo = *o.x_min;
  if (o.x_max) hi = *o.x_max;
  Range(&lo, &hi);
  const double width = (hi - lo) / bins;
  std::vector<std::vector<int>> counts(series.size(), std::vector<int>(bins, 0));
  int most = 1;
  for (size_t k = 0; k < series.size(); ++k) {
    for (double v : series[k].values) {
      if (!std::isfinite(v) || v < lo || v > hi) continue;
      const int b = std::min(bins - 1, static_cast<int>((v - lo) / width));
      most = std::max(most, ++counts[k][b]);
    }
  }
  const bool legend = o.legend && !series.empty();
  Frame f = MakeFrame(o, legend);
  f.log_y = false;
  f.x0 = lo;
  f.x1 = hi;
  const auto ticks = NiceTicks(0, most);
  f.y0 = 0;
  f.y1 = ticks.size() > 1 ? std::ceil(most / (ticks[1] - ticks[0]) - 1e-9) * (ticks[1] - ticks[0]) : most;
  if (f.y1 < most) f.y1 = most;
  PlotOptions axes = o;
  axes.log_y = false;
  axes.x_categories.clear();
  std::ostringstream s;
  s << Header(o) << Axes(f, axes);
  std::vector<std::pair<std::string, std::string>> entries;
  std::vector<bool> filled;
  const double n = static_cast<double>(std::max<size_t>(1, series.size()));
  for (size_t k = 0; k < series.size(); ++k) {
    const std::string colour = series[k].colour.empty() ? PaletteColour(static_cast<int>(k)) : series[k].colour;
    entries.push_back({series[k].label + " (n=" + std::to_string(series[k].values.size()) + ")", colour});
    filled.push_back(true);
    for (int b = 0; b < bins; ++b) {
      if (!counts[k][b]) continue;
      // Side-by-side sub-bars inside each bin, so overlapping distributions stay readable.
      const double x0 = f.X(lo + b * width) + (f.X(lo + width) - f.X(lo)) * k / n;
      const double w = (f.X(lo + width) - f.X(lo)) / n;
      const double y = f.Y(counts[k][b]);
      s << "<rect x=\"" << Num(x0) << "\" y=\"" << Num(y) << "\" width=\"" << Num(std::max(0.5, w - 0.6))
        << "\" height=\"" << Num(f.py0 - y) << "\" fill=\"" << colour << "\" fill-opacity=\"0.75\"/>\n";
    }
  }
  if (legend) s << Legend(entries, filled, f);
  s << "</svg>\n";
  return s.str();
}

}  // namespace limbic::experiment::plot
