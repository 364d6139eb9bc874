#include "services/explore/exploration_run.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>

namespace limbic::explore {
namespace {

TEST(ExplorationRun, ProfilesFromDescriptions) {
  const robot::RobotDescription marvin = robot::LoadRobotDescription("marvin");
  const ExplorerProfile p = ProfileFor("r2", "marvin", marvin, DefaultProcessingCells("marvin"));
  EXPECT_EQ(p.robot, "r2");
  EXPECT_DOUBLE_EQ(p.sensing_range, 3.0);      // the long-range ring's d_max
  EXPECT_DOUBLE_EQ(p.clearance_radius, 0.35);  // r_R
  EXPECT_DOUBLE_EQ(p.processing_cells, 600.0);
  EXPECT_DOUBLE_EQ(DefaultProcessingCells("tank"), 1200.0);
  EXPECT_DOUBLE_EQ(DefaultProcessingCells("itchy"), 300.0);
  // The tank's rectangle 0.70 × 0.52 about its middle: circumscribed radius √(0.35² + 0.26²).
  const ExplorerProfile tank = ProfileFor("r1", "tank", robot::LoadRobotDescription("tank"), 1200);
  EXPECT_NEAR(tank.clearance_radius, std::hypot(0.35, 0.26), 1e-9);
  // Turning radius: 0 for drives that turn on the spot; Itchy's tricycle r_lmin = 0.40 m / tan 50°.
  EXPECT_EQ(p.turning_radius, 0.0);
  EXPECT_EQ(tank.turning_radius, 0.0);
  const ExplorerProfile itchy = ProfileFor("r3", "itchy", robot::LoadRobotDescription("itchy"), 300);
  EXPECT_NEAR(itchy.turning_radius, 0.40 / std::tan(50.0 * M_PI / 180.0), 1e-9);
}

TEST(ExplorationRun, Lists) {
  EXPECT_EQ(SplitList("marvin, itchy ,tank", "bodies"), (std::vector<std::string>{"marvin", "itchy", "tank"}));
  EXPECT_THROW(SplitList("a,,b", "bodies"), std::invalid_argument);
  EXPECT_THROW(SplitList("", "bodies"), std::invalid_argument);
  EXPECT_EQ(PerRobot({"marvin"}, 3, "bodies"), (std::vector<std::string>{"marvin", "marvin", "marvin"}));
  EXPECT_THROW(PerRobot({"a", "b"}, 3, "bodies"), std::invalid_argument);
}

TEST(ExplorationRun, FreeCellsInsideTheWorldAndOutsideObstacles) {
  GridSpec g;
  g.width = 4;
  g.height = 1;
  g.resolution = 1.0;
  // World box x ∈ [0, 3]: cell 3 (centre 3.5) is outside; a box over cell 1.
  const auto free = FreeCells(g, Vec2(0, 0), Vec2(3, 1), {{{1.2, 0.2}, {1.8, 0.2}, {1.8, 0.8}, {1.2, 0.8}}});
  EXPECT_EQ(free, (std::vector<bool>{true, false, true, false}));
}

// A 20 × 12 m world whose outer walls (0.2 m thick) are centred on the box's edges, an interior wall that meets the
// west wall (too short to be taken for it), a long interior wall that does not straddle a side, and furniture.
TEST(ExplorationRun, TheArenasInteriorIsInsideTheOuterWallsInnerFaces) {
  auto rect = [](double x0, double y0, double x1, double y1, bool wall) {
    return ArenaWall{{{x0, y0}, {x1, y0}, {x1, y1}, {x0, y1}}, wall};
  };
  const std::vector<ArenaWall> world = {
      rect(-0.1, -0.1, 20.1, 0.1, true),   // south
      rect(-0.1, 11.9, 20.1, 12.1, true),  // north
      rect(-0.1, -0.1, 0.1, 12.1, true),   // west
      rect(19.9, -0.1, 20.1, 12.1, true),  // east
      rect(-0.1, 5.9, 4.0, 6.1, true),     // interior wall meeting the west wall: 4.1 m of 12
      rect(2.0, 3.0, 18.0, 3.2, true),     // interior wall 16 m long, clear of every side
      rect(-0.5, 2.0, 19.0, 2.5, false),   // not a wall (furniture): never the boundary
  };
  const auto [lo, hi] = ArenaInterior(Vec2(0, 0), Vec2(20, 12), world);
  EXPECT_DOUBLE_EQ(lo.x(), 0.1);
  EXPECT_DOUBLE_EQ(lo.y(), 0.1);
  EXPECT_DOUBLE_EQ(hi.x(), 19.9);
  EXPECT_DOUBLE_EQ(hi.y(), 11.9);
  // No walls: the box itself.
  const auto [box_lo, box_hi] = ArenaInterior(Vec2(0, 0), Vec2(20, 12), {});
  EXPECT_EQ(box_lo, Vec2(0, 0));
  EXPECT_EQ(box_hi, Vec2(20, 12));
}

TEST(ExplorationRun, MeasuresFromSamples) {
  RunMeasures m;
  m.AddSample({0.0, 0.1, {Vec2(0, 0), Vec2(1, 1)}});
  m.AddSample({1.0, 0.5, {Vec2(3, 4), Vec2(1, 1)}});
  m.AddSample({2.0, 0.9, {Vec2(3, 4), Vec2(1, 2)}});
  m.AddSample({3.0, 0.95, {Vec2(3, 4), Vec2(1, 2)}});
  ASSERT_TRUE(m.time_to_90);
  EXPECT_DOUBLE_EQ(*m.time_to_90, 2.0);
  EXPECT_DOUBLE_EQ(m.final_coverage, 0.95);
  EXPECT_EQ(m.distance, (std::vector<double>{5.0, 1.0}));
  m.world_collisions = 12;
  m.world_collisions_by_robot = {3, 9};
  const std::string row = RunCsvRow("x", "team", 'B', 3, 7, {"marvin", "tank"}, m);
  EXPECT_EQ(row.rfind("x,team,B,3,7,2,marvin+tank,0,3,0.95,2,0,12,", 0), 0u) << row;
  EXPECT_TRUE(row.ends_with(",3+9")) << row;  // world_collisions_by_robot, the last column
  EXPECT_TRUE(RunCsvHeader().ends_with(",world_collisions_by_robot"));
  EXPECT_EQ(TraceCsvRow("x", m.samples[1]), "x,1,0.5,3,4,1,1");
  EXPECT_EQ(TraceCsvHeader(2), "run_id,time_s,coverage,x1,y1,x2,y2");
}

}  // namespace
}  // namespace limbic::explore
