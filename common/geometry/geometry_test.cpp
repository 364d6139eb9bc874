#include "common/geometry/geometry.hpp"

#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "common/geometry/pose_frame.hpp"

namespace limbic::geometry {
namespace {

TEST(WrapAngle, MapsIntoHalfOpenInterval) {
  EXPECT_DOUBLE_EQ(WrapAngle(0.0), 0.0);
  EXPECT_DOUBLE_EQ(WrapAngle(kPi), -kPi);  // [-π, π): +π wraps to −π
  EXPECT_NEAR(WrapAngle(3 * kPi / 2), -kPi / 2, 1e-12);
  EXPECT_NEAR(WrapAngle(-3 * kPi / 2), kPi / 2, 1e-12);
  EXPECT_NEAR(WrapAngle(10 * kPi + 0.25), 0.25, 1e-9);
  EXPECT_NEAR(AngleDistance(kPi - 0.1, -kPi + 0.1), 0.2, 1e-12);
}

// PoseFrame evaluates the rotation once for many points (a scan's beams): every point must come out with the
// same bits as the one-point form it replaced (cos and sin of θ per call), here written out as the oracle.
TEST(PoseFrame, SameBitsAsOnePointToWorld) {
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> coord(-50.0, 50.0), angle(-10.0, 10.0), local(-0.5, 0.5);
  for (int k = 0; k < 2000; ++k) {
    const Pose2 pose{coord(rng), coord(rng), angle(rng)};
    const PoseFrame frame(pose);
    for (int j = 0; j < 8; ++j) {
      const Vec2 p(local(rng), local(rng));
      const double c = std::cos(pose.theta), s = std::sin(pose.theta);
      const Vec2 oracle(pose.x + c * p.x() - s * p.y(), pose.y + s * p.x() + c * p.y());
      const Vec2 framed = frame.ToWorld(p), single = pose.ToWorld(p);  // the oracle is also Pose2's own form
      ASSERT_EQ(framed.x(), oracle.x());
      ASSERT_EQ(framed.y(), oracle.y());
      ASSERT_EQ(single.x(), oracle.x());
      ASSERT_EQ(single.y(), oracle.y());
    }
  }
}

TEST(RaySegment, HitsAndMisses) {
  const Segment wall{{2, -1}, {2, 1}};
  auto t = RaySegmentIntersection({0, 0}, {1, 0}, wall);
  ASSERT_TRUE(t);
  EXPECT_DOUBLE_EQ(*t, 2.0);
  EXPECT_FALSE(RaySegmentIntersection({0, 0}, {-1, 0}, wall));  // behind
  EXPECT_FALSE(RaySegmentIntersection({0, 2}, {1, 0}, wall));   // passes above
  auto diag = RaySegmentIntersection({0, 0}, UnitVector(kPi / 4), {{1, 0}, {1, 5}});
  ASSERT_TRUE(diag);
  EXPECT_NEAR(*diag, std::sqrt(2.0), 1e-12);
}

TEST(RayCircle, NearestBoundaryOrZeroInside) {
  auto t = RayCircleIntersection({0, 0}, {1, 0}, {3, 0}, 1.0);
  ASSERT_TRUE(t);
  EXPECT_DOUBLE_EQ(*t, 2.0);
  EXPECT_DOUBLE_EQ(*RayCircleIntersection({3, 0.5}, {1, 0}, {3, 0}, 1.0), 0.0);
  EXPECT_FALSE(RayCircleIntersection({0, 0}, {0, 1}, {3, 0}, 1.0));
  EXPECT_FALSE(RayCircleIntersection({0, 0}, {-1, 0}, {3, 0}, 1.0));
  // Tangent-ish offset: chord at y = 0.6 of a unit circle starts at x = 3 − 0.8.
  EXPECT_NEAR(*RayCircleIntersection({0, 0.6}, {1, 0}, {3, 0}, 1.0), 2.2, 1e-12);
}

TEST(SegmentCircle, CountsCrossings) {
  auto two = SegmentCircleIntersections({{-2, 0}, {2, 0}}, {0, 0}, 1.0);
  ASSERT_EQ(two.count, 2);
  EXPECT_NEAR(two.points[0].x(), -1.0, 1e-12);
  EXPECT_NEAR(two.points[1].x(), 1.0, 1e-12);
  EXPECT_EQ(SegmentCircleIntersections({{0, 0}, {2, 0}}, {0, 0}, 1.0).count, 1);
  EXPECT_EQ(SegmentCircleIntersections({{-0.5, 0}, {0.5, 0}}, {0, 0}, 1.0).count, 0);  // inside
  EXPECT_EQ(SegmentCircleIntersections({{-2, 2}, {2, 2}}, {0, 0}, 1.0).count, 0);
}

TEST(IntegrateArc, MatchesClosedFormCircle) {
  // v = 1, ω = 1 → radius 1 circle around (0, 1) from the origin heading +x.
  const Pose2 start{0, 0, 0};
  for (double t : {0.1, 0.5, kPi / 2, 2.0, kPi}) {
    const Pose2 p = IntegrateArc(start, 1.0, 1.0, t);
    EXPECT_NEAR(p.x, std::sin(t), 1e-12);
    EXPECT_NEAR(p.y, 1.0 - std::cos(t), 1e-12);
    EXPECT_NEAR(p.theta, WrapAngle(t), 1e-12);
  }
  // Splitting the interval gives the same end pose (exactness of arc integration).
  Pose2 stepped = start;
  for (int i = 0; i < 10; ++i) stepped = IntegrateArc(stepped, 0.7, -0.4, 0.1);
  const Pose2 direct = IntegrateArc(start, 0.7, -0.4, 1.0);
  EXPECT_NEAR(stepped.x, direct.x, 1e-12);
  EXPECT_NEAR(stepped.y, direct.y, 1e-12);
  EXPECT_NEAR(stepped.theta, direct.theta, 1e-12);
}

TEST(IntegrateArc, StraightLimitIsContinuous) {
  const Pose2 start{1, 2, 0.3};
  const Pose2 straight = IntegrateArc(start, 0.5, 0.0, 1.0);
  const Pose2 almost = IntegrateArc(start, 0.5, 1e-7, 1.0);
  EXPECT_NEAR(straight.x, 1 + 0.5 * std::cos(0.3), 1e-12);
  EXPECT_NEAR(straight.y, 2 + 0.5 * std::sin(0.3), 1e-12);
  EXPECT_NEAR(almost.x, straight.x, 1e-6);
  EXPECT_NEAR(almost.y, straight.y, 1e-6);
}

TEST(CurvatureSegment, StraightArcAndPoint) {
  const Pose2 pose{0, 0, 0};
  // Straight segment from x = 0.1 to x = 1.0.
  EXPECT_NEAR(PointToCurvatureSegmentDistance({0.5, 0.3}, pose, 1.0, 0.0, 0.1, 1.0), 0.3, 1e-12);
  EXPECT_NEAR(PointToCurvatureSegmentDistance({-1, 0}, pose, 1.0, 0.0, 0.1, 1.0), 1.1, 1e-12);
  // v = 0: the robot's position.
  EXPECT_NEAR(PointToCurvatureSegmentDistance({3, 4}, pose, 0.0, 0.5, 0.1, 1.0), 5.0, 1e-12);
  // Arc of radius 1 around (0, 1), swept over angle 0.1..1 rad. The centre is 1 m from every arc point.
  EXPECT_NEAR(PointToCurvatureSegmentDistance({0, 1}, pose, 1.0, 1.0, 0.1, 1.0), 1.0, 1e-12);
  // A point on the radial line at arc angle 0.5, 0.5 m outside the arc.
  const Vec2 on_arc{std::sin(0.5), 1 - std::cos(0.5)};
  const Vec2 outward = (on_arc - Vec2(0, 1)).normalized();
  EXPECT_NEAR(PointToCurvatureSegmentDistance(on_arc + 0.5 * outward, pose, 1.0, 1.0, 0.1, 1.0), 0.5, 1e-12);
  // The start of the robot's current position lies before t1: its distance is to the arc's first end.
  const Vec2 first_end{std::sin(0.1), 1 - std::cos(0.1)};
  EXPECT_NEAR(PointToCurvatureSegmentDistance({0, 0}, pose, 1.0, 1.0, 0.1, 1.0), first_end.norm(), 1e-12);
  // Turning clockwise mirrors it.
  EXPECT_NEAR(PointToCurvatureSegmentDistance({0, -1}, pose, 1.0, -1.0, 0.1, 1.0), 1.0, 1e-12);
}

TEST(GridSpec, CellsAndCentres) {
  GridSpec grid{{-1.0, -1.0}, 0.5, 4, 3};
  EXPECT_EQ(grid.CellCount(), 12);
  EXPECT_EQ(grid.CellOf({-0.99, -0.99}), (Cell{0, 0}));
  EXPECT_EQ(grid.CellOf({0.74, 0.26}), (Cell{3, 2}));
  EXPECT_FALSE(grid.Contains(grid.CellOf({1.01, 0})));
  EXPECT_EQ(grid.Index({3, 2}), 11);
  EXPECT_EQ(grid.CellOfIndex(11), (Cell{3, 2}));
  EXPECT_TRUE(grid.Center({1, 1}).isApprox(Vec2(-0.25, -0.25)));
}

TEST(TraverseCells, VisitsEveryCrossedCellInOrder) {
  GridSpec grid{{0, 0}, 1.0, 10, 10};
  std::vector<Cell> cells;
  TraverseCells(grid, {0.5, 0.5}, {3.5, 0.5}, [&](Cell c) { cells.push_back(c); });
  ASSERT_EQ(cells.size(), 4u);
  EXPECT_EQ(cells.front(), (Cell{0, 0}));
  EXPECT_EQ(cells.back(), (Cell{3, 0}));
  cells.clear();
  TraverseCells(grid, {0.5, 0.5}, {2.5, 1.7}, [&](Cell c) { cells.push_back(c); });
  EXPECT_EQ(cells.front(), (Cell{0, 0}));
  EXPECT_EQ(cells.back(), (Cell{2, 1}));
  for (size_t i = 1; i < cells.size(); ++i) {  // 4-connected steps
    EXPECT_EQ(std::abs(cells[i].ix - cells[i - 1].ix) + std::abs(cells[i].iy - cells[i - 1].iy), 1);
  }
  cells.clear();  // clipped to the grid
  TraverseCells(grid, {-2.5, 0.5}, {1.5, 0.5}, [&](Cell c) { cells.push_back(c); });
  EXPECT_EQ(cells.size(), 2u);
}

}  // namespace
}  // namespace limbic::geometry
