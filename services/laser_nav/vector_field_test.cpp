// E2c: the static law's field with NG = 0 and its potential minima (vector_field.hpp).
#include "services/laser_nav/vector_field.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

namespace limbic::laser {
namespace {

World Room(std::vector<Circle> obstacles) {
  World w;
  w.width = w.height = 660.0;
  w.start = {330.0, 40.0};
  w.goal = {330.0, 620.0};
  w.obstacles = std::move(obstacles);
  w.name = "test room";
  return w;
}

TEST(VectorField, NeighboursMoreThanTheThresholdApartAreBothMarked) {
  // A row of three: 0°, 160°, 0° — both pairs differ by 160° > 150°.
  EXPECT_EQ(PotentialMinima(3, 1, {0.0, 160.0, 0.0}, 150.0), (std::vector<uint8_t>{1, 1, 1}));
  // 149° apart: nothing; exactly the threshold is not more than it.
  EXPECT_EQ(PotentialMinima(3, 1, {0.0, 149.0, 0.0}, 150.0), (std::vector<uint8_t>{0, 0, 0}));
  EXPECT_EQ(PotentialMinima(2, 1, {0.0, 150.0}, 150.0), (std::vector<uint8_t>{0, 0}));
  // Across 0°/360°: 175° and 5° are 170° apart, 355° and 5° only 10°.
  EXPECT_EQ(PotentialMinima(2, 1, {175.0, 5.0}, 150.0), (std::vector<uint8_t>{1, 1}));
  EXPECT_EQ(PotentialMinima(2, 1, {355.0, 5.0}, 150.0), (std::vector<uint8_t>{0, 0}));
  // Diagonal neighbours count, both diagonals; a cell that is not free (NaN) separates.
  EXPECT_EQ(PotentialMinima(2, 2, {0.0, kNaN, kNaN, 180.0}, 150.0), (std::vector<uint8_t>{1, 0, 0, 1}));
  EXPECT_EQ(PotentialMinima(2, 2, {kNaN, 0.0, 180.0, kNaN}, 150.0), (std::vector<uint8_t>{0, 1, 1, 0}));
  EXPECT_EQ(PotentialMinima(3, 1, {0.0, kNaN, 180.0}, 150.0), (std::vector<uint8_t>{0, 0, 0}));
  // A vanishing resultant is marked by itself.
  EXPECT_EQ(PotentialMinima(2, 1, {kNaN, 10.0}, 150.0, {1, 0}), (std::vector<uint8_t>{1, 0}));
}

TEST(VectorField, RegionsAreEightConnectedPlaces) {
  VectorField f;
  f.nx = 5;
  f.ny = 3;
  f.cell_cm = 10.0;
  // Row by row from the south: a diagonal pair at the west, a single cell at the east, a row of three on top.
  f.minimum = {1, 0, 0, 0, 1,  //
               0, 1, 0, 0, 0,  //
               0, 0, 1, 1, 1};
  const std::vector<MinimumRegion> r = MinimumRegions(f);
  ASSERT_EQ(r.size(), 2u);  // the diagonal chain and the top row touch diagonally: one place
  EXPECT_EQ(r[0].cells, 5);
  EXPECT_EQ(r[1].cells, 1);
  EXPECT_DOUBLE_EQ(r[1].centroid.x, 45.0);
  EXPECT_DOUBLE_EQ(r[1].centroid.y, 5.0);
  EXPECT_DOUBLE_EQ(r[0].centroid.x, (5.0 + 15.0 + 25.0 + 35.0 + 45.0) / 5.0);
}

TEST(VectorField, MismatchedGridsAndBadOptionsAreRefused) {
  EXPECT_THROW(PotentialMinima(2, 2, {0.0, 1.0, 2.0}, 150.0), std::invalid_argument);
  EXPECT_THROW(PotentialMinima(2, 1, {0.0, 1.0}, 150.0, {1}), std::invalid_argument);
  VectorFieldOptions o;
  o.cell_cm = 0.0;
  EXPECT_THROW(ComputeVectorField(Room({}), o), std::invalid_argument);
  o = {};
  o.minimum_angle_deg = 200.0;
  EXPECT_THROW(ComputeVectorField(Room({}), o), std::invalid_argument);
  o = {};
  o.gains.og = kNaN;
  EXPECT_THROW(ComputeVectorField(Room({}), o), std::invalid_argument);
  o = {};
  o.gains.s_cm = 300.0;
  EXPECT_THROW(ComputeVectorField(Room({}), o), std::invalid_argument);
}

TEST(VectorField, AnEmptyRoomLeadsToTheGoal) {
  const VectorField f = ComputeVectorField(Room({}));
  ASSERT_EQ(f.nx, 66);
  ASSERT_EQ(f.ny, 66);
  // Free: the room less the robot's radius along the walls (centres 5, 15, ...: 15 cm from a wall is free).
  EXPECT_EQ(f.free_cells, 64 * 64);
  // On the centre line the walls' pushes cancel: straight north to the goal.
  for (int j = 2; j < 50; ++j) {
    const size_t k = f.Index(32, j);  // centre x = 325 cm, 5 cm west of the goal's line
    ASSERT_FALSE(std::isnan(f.heading_deg[k])) << j;
    EXPECT_LT(AngDiff(f.heading_deg[k], 0.0), 5.0) << "row " << j;
  }
  // Nowhere in the southern two thirds does the field trap the robot.
  for (int j = 0; j < 44; ++j) {
    for (int i = 0; i < f.nx; ++i) EXPECT_EQ(f.minimum[f.Index(i, j)], 0) << i << "," << j;
  }
  // The arrival zone around the goal is left out (cells there point at each other by design).
  EXPECT_TRUE(std::isnan(f.heading_deg[f.Index(33, 62)]));
}

TEST(VectorField, ACupFacingTheStartHoldsAMinimumAndASingleDiscDoesNot) {
  // Three discs forming a cup that opens towards the start: inside it the goal's pull (GG = 6) meets the discs'
  // push (OG = 5) and the side discs push inwards too — the flows from north and south meet, headings flip by
  // ~180° between neighbouring cells: the potential minimum the static law is stuck in (§2.2.1).
  const VectorField cup = ComputeVectorField(Room({{260, 330, 45}, {330, 370, 45}, {400, 330, 45}}));
  const std::vector<MinimumRegion> regions = MinimumRegions(cup);
  bool in_cup = false;
  int cells = 0;
  for (const MinimumRegion& r : regions) {
    cells += r.cells;
    if (std::fabs(r.centroid.x - 330.0) < 30.0 && r.centroid.y > 200.0 && r.centroid.y < 280.0) in_cup = true;
  }
  EXPECT_TRUE(in_cup);
  EXPECT_EQ(cells, cup.minima);
  for (size_t k = 1; k < regions.size(); ++k) EXPECT_GE(regions[k - 1].cells, regions[k].cells);
  // Nothing far from the obstacles and the walls.
  for (int j = 0; j < cup.ny; ++j) {
    for (int i = 0; i < cup.nx; ++i) {
      const Vec2 c = cup.Centre(i, j);
      if (c.y < 150.0 && c.x > 100.0 && c.x < 560.0) {
        EXPECT_EQ(cup.minimum[cup.Index(i, j)], 0) << c.x << "," << c.y;
      }
    }
  }
  // Far south on the centre line the field points at the goal, straight through the cup.
  EXPECT_LT(AngDiff(cup.heading_deg[cup.Index(32, 5)], 0.0), 5.0);

  // One convex disc in the way: close to its south side the push wins and the robot is sent back, but off the
  // axis the field turns sideways around the disc (a saddle the robot slides off, not a trap), so no neighbours
  // are more than 150° apart there.
  const VectorField disc = ComputeVectorField(Room({{330, 330, 50}}));
  const size_t near = disc.Index(32, 26);  // centre (325, 265): 65.2 cm from the disc's centre
  ASSERT_TRUE(disc.free[near]);
  EXPECT_GT(AngDiff(disc.heading_deg[near], 0.0), 150.0);
  for (int j = 0; j < disc.ny; ++j) {
    for (int i = 0; i < disc.nx; ++i) {
      const Vec2 c = disc.Centre(i, j);
      if (c.y > 150.0 && c.y < 330.0) {
        EXPECT_EQ(disc.minimum[disc.Index(i, j)], 0) << c.x << "," << c.y;
      }
    }
  }
}

TEST(VectorField, AGoalCloseToAWallSitsBehindABalance) {
  // The goal 40 cm from the north wall (§1.2's rooms): just south of it the wall's push cancels the pull's
  // northward part and the two columns beside the goal's line turn towards each other — the robot is held
  // short of the goal (the known limit in services/laser_sim/README.md).
  const VectorField f = ComputeVectorField(Room({{330, 330, 50}}));
  const std::vector<MinimumRegion> regions = MinimumRegions(f);
  ASSERT_EQ(regions.size(), 1u);
  EXPECT_NEAR(regions[0].centroid.x, 330.0, 1e-9);
  EXPECT_GT(regions[0].centroid.y, 560.0);
  EXPECT_LT(regions[0].centroid.y, 600.0);
}

TEST(VectorField, ResultantIsTheStaticLawWithoutNoise) {
  // With OG = 0 the field is GG times the unit vector to the goal everywhere.
  VectorFieldOptions o;
  o.gains.og = 0.0;
  const World w = Room({Circle{200.0, 300.0, 40.0}});
  const VectorField f = ComputeVectorField(w, o);
  const size_t k = f.Index(10, 10);
  const Vec2 p = f.Centre(10, 10);
  const double d = std::hypot(w.goal.x - p.x, w.goal.y - p.y);
  EXPECT_NEAR(f.resultant[k].x, 6.0 * (w.goal.x - p.x) / d, 1e-12);
  EXPECT_NEAR(f.resultant[k].y, 6.0 * (w.goal.y - p.y) / d, 1e-12);
  EXPECT_EQ(f.minima, 0);
}

}  // namespace
}  // namespace limbic::laser
