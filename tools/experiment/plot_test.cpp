#include "tools/experiment/plot.hpp"

#include <gtest/gtest.h>

#include <cmath>

namespace limbic::experiment::plot {
namespace {

int Count(const std::string& text, const std::string& what) {
  int n = 0;
  for (size_t p = text.find(what); p != std::string::npos; p = text.find(what, p + 1)) ++n;
  return n;
}

TEST(Plot, NiceTicks) {
  EXPECT_EQ(NiceTicks(0, 1), (std::vector<double>{0, 0.2, 0.4, 0.6000000000000001, 0.8, 1}));
  const auto t = NiceTicks(0, 600);
  EXPECT_EQ(t.front(), 0);
  EXPECT_EQ(t.back(), 600);
  EXPECT_EQ(t[1] - t[0], 200);  // raw step 120 → next nice step 200
  EXPECT_EQ(NiceTicks(-0.5, 0.5, 4)[1] - NiceTicks(-0.5, 0.5, 4)[0], 0.25);
  EXPECT_EQ(TickLabel(0.6000000000000001, 0.2), "0.6");
  EXPECT_EQ(TickLabel(0.25, 0.25), "0.25");
  EXPECT_EQ(TickLabel(300, 100), "300");
}

TEST(Plot, LinePlotDrawsSeriesErrorBarsAndLegend) {
  Series a;
  a.label = "constant";
  a.x = {0, 0.5, 1};
  a.y = {10, 20, 15};
  a.err = {1, 2, 0};
  Series b;
  b.label = "affective";
  b.x = {0, 0.5, 1};
  b.y = {12, 18, 11};
  PlotOptions o;
  o.title = "Completion <time>";
  const std::string svg = LinePlot({a, b}, o);
  EXPECT_EQ(svg.rfind("<svg", 0), 0u);
  EXPECT_NE(svg.find("</svg>"), std::string::npos);
  EXPECT_EQ(Count(svg, "<circle"), 6);
  EXPECT_EQ(Count(svg, "stroke-opacity=\"0.7\""), 2);  // two non-zero error bars
  EXPECT_NE(svg.find("Completion &lt;time&gt;"), std::string::npos);
  EXPECT_NE(svg.find(">constant</text>"), std::string::npos);
  EXPECT_NE(svg.find(">affective</text>"), std::string::npos);
  EXPECT_EQ(svg.find("<script"), std::string::npos);
}

TEST(Plot, AsymmetricIntervalsAndDashedLines) {
  Series a;
  a.label = "success";
  a.x = {1, 2, 3};
  a.y = {100, 50, 0};
  a.lo = {72.2, 23.7, 0};  // Wilson intervals of 10/10, 5/10, 0/10
  a.hi = {100, 76.3, 27.8};
  a.err = {40, 40, 40};  // ignored: the interval is drawn instead
  a.dashed = true;
  PlotOptions o;
  o.y_min = 0;
  o.y_max = 100;
  o.height = 330;
  const std::string svg = LinePlot({a}, o);
  EXPECT_EQ(Count(svg, "stroke-opacity=\"0.7\""), 3);
  EXPECT_EQ(Count(svg, "stroke-dasharray=\"5,3\""), 1);
  EXPECT_EQ(Count(svg, "stroke-dasharray=\"4,2\""), 1) << "the legend's line is dashed too";
  Series b = a;
  b.label = "other";
  b.dashed = false;
  const std::string two = LinePlot({a, b}, o);
  EXPECT_EQ(Count(two, "stroke-dasharray=\"4,2\""), 1) << "only the dashed series' legend line is dashed";
  a.lo = {100, 50, 0};  // zero-width intervals draw no bar
  a.hi = {100, 50, 0};
  EXPECT_EQ(Count(LinePlot({a}, o), "stroke-opacity=\"0.7\""), 0);
}

TEST(Plot, LogScaleLabelsDecadesAndKeepsZeros) {
  Series a;
  a.label = "rate";
  a.x = {1, 2, 3};
  a.y = {0, 0.5, 12};
  PlotOptions o;
  o.log_y = true;
  const std::string svg = LinePlot({a}, o);
  EXPECT_NE(svg.find(">0.01</text>"), std::string::npos) << svg;  // floor: a decade below 0.1
  EXPECT_NE(svg.find(">100</text>"), std::string::npos);
  EXPECT_NE(svg.find("log; 0 at bottom"), std::string::npos);
  EXPECT_EQ(Count(svg, "<circle"), 3);
  EXPECT_EQ(svg.find("nan"), std::string::npos);
}

TEST(Plot, HistogramCountsIntoBins) {
  HistogramSeries h{"a", {0, 0.1, 0.2, 0.9, 1.0}, ""};
  PlotOptions o;
  const std::string svg = HistogramPlot({h}, 2, o);
  EXPECT_EQ(Count(svg, "fill-opacity=\"0.75\""), 2);  // [0,0.5): 3, [0.5,1]: 2
  EXPECT_NE(svg.find("a (n=5)"), std::string::npos);
}

TEST(Plot, EscapesText) { EXPECT_EQ(Escape("a<b & \"c\""), "a&lt;b &amp; &quot;c&quot;"); }

}  // namespace
}  // namespace limbic::experiment::plot
