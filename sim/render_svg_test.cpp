#include "sim/render_svg.hpp"

#include <gtest/gtest.h>

#include <cstdio>
#include <string>

namespace limbic::sim {
namespace {

int Count(const std::string& text, const std::string& needle) {
  int n = 0;
  for (size_t pos = text.find(needle); pos != std::string::npos; pos = text.find(needle, pos + 1)) ++n;
  return n;
}

TEST(RenderSvg, DrawsEveryObjectHumansStartAndGoal) {
  const Environment env = GenerateEnvironment('E', 4, 1);
  const std::string svg = RenderSvg(env);
  EXPECT_EQ(svg.rfind("<svg", 0), 0u);
  EXPECT_NE(svg.find("</svg>"), std::string::npos);
  EXPECT_EQ(Count(svg, "<polygon"), static_cast<int>(env.objects.size()));
  EXPECT_EQ(Count(svg, "fill=\"cyan\"/>"), static_cast<int>(env.human_starts.size()));
  EXPECT_EQ(Count(svg, "fill=\"red\"/>"), 1);
  EXPECT_EQ(Count(svg, "fill=\"yellow\"/>"), 1);
  EXPECT_NE(svg.find("2.00 m"), std::string::npos);  // scale bar
  EXPECT_EQ(Count(svg, "#2ca02c"), 0);               // set E has no undetectable obstacles
}

TEST(RenderSvg, UndetectableObstaclesAreGreen) {
  const Environment env = GenerateEnvironment('G', 4, 1);
  int undetectable = 0;
  for (const WorldObject& o : env.objects) undetectable += o.property == ObjectProperty::kLimitedVisibility;
  ASSERT_GT(undetectable, 0);
  const std::string svg = RenderSvg(env);
  EXPECT_EQ(Count(svg, "data-property=\"limited_visibility\" fill=\"#2ca02c\""), undetectable);
}

TEST(RenderSvg, DrawsTrajectoryAndOccupancyOverlays) {
  const Environment env = GenerateEnvironment('B', 0, 1);
  SvgOptions opt;
  TrajectoryOverlay t;
  for (int i = 0; i < 101; ++i) t.poses.push_back({1.0 + 0.05 * i, 1.0, 0.0});
  t.arrow_every = 50;
  opt.trajectories.push_back(t);
  OccupancyOverlay occ;
  occ.grid.resolution = 0.35;
  occ.grid.width = 4;
  occ.grid.height = 2;
  occ.probability = {0.0, 0.5, 1.0, 0.2, 0.0, 0.0, 0.9, 0.01};
  opt.occupancy.push_back(occ);
  const std::string svg = RenderSvg(env, opt);
  EXPECT_EQ(Count(svg, "<polyline"), 1 + 3);                            // path + arrows at poses 0, 50, 100
  EXPECT_EQ(Count(svg, "fill=\"rgb("), 4);                              // cells ≥ 0.05
  EXPECT_NE(svg.find("fill=\"rgb(128,128,128)\""), std::string::npos);  // p = 0.5
  EXPECT_EQ(Count(svg, "trajectory-end"), 0);
}

TEST(RenderSvg, EndMarkerIsACrossAtTheLastPose) {
  const Environment env = GenerateEnvironment('B', 0, 1);
  SvgOptions opt;
  opt.pixels_per_metre = 10;
  opt.margin_px = 20;
  TrajectoryOverlay t;
  t.poses = {{1.0, 1.0, 0.0}, {4.0, 2.0, 0.0}};
  t.end_marker = true;
  opt.trajectories.push_back(t);
  const std::string svg = RenderSvg(env, opt);
  ASSERT_EQ(Count(svg, "id=\"trajectory-end\""), 1);
  // (4, 2) → x = 20 + 40 = 60 px, y = 20 + (height − 2)·10 px; the cross's arms reach ±0.3 m = ±3
  // px.
  char start[64];
  std::snprintf(start, sizeof start, "d=\"M57.00,%.2fl6.00,6.00M57.00,%.2fl6.00,-6.00\"",
                20 + (env.height - 2.0) * 10 - 3, 20 + (env.height - 2.0) * 10 + 3);
  EXPECT_NE(svg.find(start), std::string::npos) << start << " in " << svg.substr(svg.find("trajectory-end"), 120);
}

}  // namespace
}  // namespace limbic::sim
