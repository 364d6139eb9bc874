#include "services/explore/line_scan.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <limits>
#include <stdexcept>

namespace limbic::explore {
namespace {

mapper::GridMaps Maps(int w, int h) {
  GridSpec g;
  g.width = w;
  g.height = h;
  g.resolution = 1.0;
  return mapper::GridMaps::Initial(g);  // unexplored, p_o = 0.2
}

LineScanOptions Range(double d) {
  LineScanOptions o;
  o.sensing_range = d;
  return o;
}

void ExpectPoint(const Vec2& p, double x, double y) {
  EXPECT_DOUBLE_EQ(p.x(), x);
  EXPECT_DOUBLE_EQ(p.y(), y);
}

TEST(LineScan, LanesTwiceTheSensingRangeApart) {
  // 20 × 8 m, d = 2: along x (wider than tall), n = ⌈8 / 4⌉ = 2 lanes at y = 2 and y = 6 (centred: (8 − 4)/2 = 2).
  const mapper::GridMaps m = Maps(20, 8);
  const auto lanes = Lanes(m, 0, 0, 20, 8, {}, Range(2.0));
  ASSERT_EQ(lanes.size(), 2u);
  EXPECT_DOUBLE_EQ(lanes[0].offset, 2.0);
  EXPECT_DOUBLE_EQ(lanes[1].offset, 6.0);
  EXPECT_DOUBLE_EQ(lanes[1].offset - lanes[0].offset, 2 * 2.0);
  // Swath of lane 0: rows whose centres lie within ±2 m of y = 2 (0.5 … 3.5): 4 rows × 20 cells.
  EXPECT_EQ(lanes[0].unexplored, 80);
  // The ends are cell centres on the lane's row (the row holding y = 2: row 2).
  ExpectPoint(lanes[0].a, 0.5, 2.5);
  ExpectPoint(lanes[0].b, 19.5, 2.5);
  ExpectPoint(lanes[1].a, 0.5, 6.5);
  // One lane in the middle of an environment narrower than 2d; 3 lanes for 9 m (⌈9/4⌉), centred: 0.5 + 4i.
  EXPECT_EQ(Lanes(m, 0, 0, 20, 3, {}, Range(2.0)).size(), 1u);
  EXPECT_DOUBLE_EQ(Lanes(m, 0, 0, 20, 3, {}, Range(2.0))[0].offset, 1.5);
  const mapper::GridMaps tall = Maps(9, 20);
  const auto columns = Lanes(tall, 0, 0, 9, 20, {}, Range(2.0));
  ASSERT_EQ(columns.size(), 3u);  // taller than wide: lanes along y
  EXPECT_DOUBLE_EQ(columns[0].offset, 0.5);
  EXPECT_DOUBLE_EQ(columns[2].offset, 8.5);
  ExpectPoint(columns[1].a, 4.5, 0.5);
  ExpectPoint(columns[1].b, 4.5, 19.5);
}

TEST(LineScan, FavoursUnexploredSpace) {
  mapper::GridMaps m = Maps(20, 8);
  // Rows 0–3 explored: lane 0's swath is seen, so it is skipped.
  for (int y = 0; y < 4; ++y) {
    for (int x = 0; x < 20; ++x) m.p_e[m.spec.Index({x, y})] = 1.0;
  }
  auto lanes = Lanes(m, 0, 0, 20, 8, {}, Range(2.0));
  ASSERT_EQ(lanes.size(), 1u);
  EXPECT_DOUBLE_EQ(lanes[0].offset, 6.0);
  // Columns 0–9 explored too: the lane is cut to the unexplored stretch, x 10 … 19.
  for (int y = 4; y < 8; ++y) {
    for (int x = 0; x < 10; ++x) m.p_e[m.spec.Index({x, y})] = 1.0;
  }
  lanes = Lanes(m, 0, 0, 20, 8, {}, Range(2.0));
  ASSERT_EQ(lanes.size(), 1u);
  ExpectPoint(lanes[0].a, 10.5, 6.5);
  ExpectPoint(lanes[0].b, 19.5, 6.5);
  EXPECT_EQ(lanes[0].unexplored, 40);
  // Cells outside the environment's mask do not count.
  lanes = Lanes(
      m, 0, 0, 20, 8, [](const Cell& c) { return c.ix < 15; }, Range(2.0));
  ASSERT_EQ(lanes.size(), 1u);
  ExpectPoint(lanes[0].b, 14.5, 6.5);
}

TEST(LineScan, LaneEndsLeaveObstacles) {
  mapper::GridMaps m = Maps(20, 8);
  m.p_o[m.spec.Index({19, 2})] = 0.9;  // the lane's right end: moves across to the nearest open row (1, before 3)
  const auto lanes = Lanes(m, 0, 0, 20, 8, {}, Range(2.0));
  ExpectPoint(lanes[0].b, 19.5, 1.5);
}

TEST(LineScan, BoustrophedonFromTheNearestEnd) {
  const mapper::GridMaps m = Maps(20, 8);
  const auto lanes = Lanes(m, 0, 0, 20, 8, {}, Range(2.0));
  // From (19, 7): the last lane's b end is nearest; then back along it, up to the first lane, along it.
  const auto w = LineScanWaypoints(lanes, Vec2(19, 7));
  ASSERT_EQ(w.size(), 4u);
  ExpectPoint(w[0], 19.5, 6.5);
  ExpectPoint(w[1], 0.5, 6.5);
  ExpectPoint(w[2], 0.5, 2.5);
  ExpectPoint(w[3], 19.5, 2.5);
  const auto from_origin = LineScanWaypoints(lanes, Vec2(0, 0));
  ExpectPoint(from_origin[0], 0.5, 2.5);
  ExpectPoint(from_origin[1], 19.5, 2.5);
  ExpectPoint(from_origin[2], 19.5, 6.5);
  EXPECT_TRUE(LineScanWaypoints({}, Vec2(0, 0)).empty());
}

TEST(LineScan, RejectsEmptyEnvironmentsAndRanges) {
  const mapper::GridMaps m = Maps(4, 4);
  EXPECT_THROW(Lanes(m, 2, 0, 2, 4, {}, Range(1.0)), std::invalid_argument);
  EXPECT_THROW(Lanes(m, 0, 0, 4, 4, {}, Range(0.0)), std::invalid_argument);
  LineScanOptions bad = Range(1.0);
  bad.end_clearance = -0.1;
  EXPECT_THROW(Lanes(m, 0, 0, 4, 4, {}, bad), std::invalid_argument);
  bad.end_clearance = std::numeric_limits<double>::quiet_NaN();
  EXPECT_THROW(Lanes(m, 0, 0, 4, 4, {}, bad), std::invalid_argument);
  LineScanOptions inverted = Range(1.0);
  inverted.interior_min = Vec2(3, 0);
  inverted.interior_max = Vec2(1, 4);
  EXPECT_THROW(Lanes(m, 0, 0, 4, 4, {}, inverted), std::invalid_argument);
  inverted.interior_max = Vec2(std::numeric_limits<double>::quiet_NaN(), 4);
  EXPECT_THROW(Lanes(m, 0, 0, 4, 4, {}, inverted), std::invalid_argument);
}

// A 20 × 8 m world at 0.25 m: the grid's edge is the world's outer wall.
mapper::GridMaps FineMaps() {
  GridSpec g;
  g.width = 80;
  g.height = 32;
  g.resolution = 0.25;
  return mapper::GridMaps::Initial(g);
}

TEST(LineScan, EndsKeepTheBodyClearOfTheOuterWall) {
  const mapper::GridMaps m = FineMaps();
  // Without a clearance the ends are the border cells' centres, 0.125 m from the wall: a 0.35 m body sent there
  // presses against it.
  auto lanes = Lanes(m, 0, 0, 80, 32, {}, Range(2.0));
  ASSERT_EQ(lanes.size(), 2u);
  ExpectPoint(lanes[0].a, 0.125, 2.125);
  ExpectPoint(lanes[0].b, 19.875, 2.125);
  // With the body's radius the ends move inward along the lane to the first column whose centre is 0.35 m clear.
  LineScanOptions o = Range(2.0);
  o.end_clearance = 0.35;
  lanes = Lanes(m, 0, 0, 80, 32, {}, o);
  ASSERT_EQ(lanes.size(), 2u);
  for (const Lane& lane : lanes) {
    for (const Vec2& end : {lane.a, lane.b}) {
      EXPECT_GE(std::min({end.x(), 20.0 - end.x(), end.y(), 8.0 - end.y()}), 0.35) << end.transpose();
    }
  }
  ExpectPoint(lanes[0].a, 0.375, 2.125);
  ExpectPoint(lanes[0].b, 19.625, 2.125);
  ExpectPoint(lanes[1].a, 0.375, 6.125);
}

// As the stack builds it: the grid reaches a cell beyond the world's box, and the outer wall stands across the box's
// edge (here 0.1 m thick inside it). Measured from the grid's edge the first clear column for a 0.35 m body is the
// second (0.375 m), 0.275 m from the wall's face — the body would press against it; measured from the interior it
// is the fourth (0.875 m: the face at 0.35 + 0.1 m from the grid's edge, plus 0.35 m).
TEST(LineScan, EndsKeepTheBodyClearOfTheArenasInteriorWhenTheGridReachesBeyondIt) {
  const mapper::GridMaps m = FineMaps();  // the world's box: [0.25, 19.75] × [0.25, 7.75], one cell inside the grid
  LineScanOptions o = Range(2.0);
  o.end_clearance = 0.35;
  auto lanes = Lanes(m, 0, 0, 80, 32, {}, o);
  ASSERT_EQ(lanes.size(), 2u);
  ExpectPoint(lanes[0].a, 0.375, 2.125);  // the grid's edge alone
  o.interior_min = Vec2(0.35, 0.35);
  o.interior_max = Vec2(19.65, 7.65);
  lanes = Lanes(m, 0, 0, 80, 32, {}, o);
  ASSERT_EQ(lanes.size(), 2u);
  for (const Lane& lane : lanes) {
    for (const Vec2& end : {lane.a, lane.b}) {
      EXPECT_GE(std::min({end.x() - 0.35, 19.65 - end.x(), end.y() - 0.35, 7.65 - end.y()}), 0.35) << end.transpose();
    }
  }
  ExpectPoint(lanes[0].a, 0.875, 2.125);
  ExpectPoint(lanes[0].b, 19.125, 2.125);
}

TEST(LineScan, EndsKeepTheBodyClearOfKnownObstacles) {
  mapper::GridMaps m = FineMaps();
  LineScanOptions o = Range(2.0);
  o.end_clearance = 0.35;  // reach: the four neighbours (a diagonal's centre is 0.354 m away)
  // A wall cell at the first lane's right end, in column 78 (the first column clear of the outer wall): the end
  // may not stand on it nor beside it, and moves across the lane to the nearest clear row (6; row 10 is as near and
  // later), as an end in an occupied cell always did.
  m.p_o[m.spec.Index({78, 8})] = 0.9;
  auto lanes = Lanes(m, 0, 0, 80, 32, {}, o);
  ASSERT_EQ(lanes.size(), 2u);
  ExpectPoint(lanes[0].b, 19.625, 1.625);
  // A whole wall across the lane's swath at column 78 and 77: the end moves inward along the lane to column 75, the
  // first whose cells are all clear of it by 0.35 m (76 touches 77).
  for (int w = 0; w < 32; ++w) {
    m.p_o[m.spec.Index({78, w})] = 0.9;
    m.p_o[m.spec.Index({77, w})] = 0.9;
  }
  lanes = Lanes(m, 0, 0, 80, 32, {}, o);
  ASSERT_EQ(lanes.size(), 2u);
  ExpectPoint(lanes[0].b, 18.875, 2.125);
  ExpectPoint(lanes[1].b, 18.875, 6.125);
}

}  // namespace
}  // namespace limbic::explore
