#include "sim/render_svg.hpp"

#include <gtest/gtest.h>

#include <string>

namespace limbic::sim {
namespace {

int Count(const std::string& text, const std::string& needle) {
  int n = 0;
  for (size_t pos = text.find(needle); pos != std::string::npos; pos = text.find(needle, pos + 1))
    ++n;
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
  for (const WorldObject& o : env.objects)
    undetectable += o.property == ObjectProperty::kLimitedVisibility;
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
  EXPECT_EQ(Count(svg, "<polyline"), 1 + 3);  // path + arrows at poses 0, 50, 100
  EXPECT_EQ(Count(svg, "fill=\"rgb("), 4);    // cells ≥ 0.05
  EXPECT_NE(svg.find("fill=\"rgb(128,128,128)\""), std::string::npos);  // p = 0.5
}

}  // namespace
}  // namespace limbic::sim
