#include "services/controller/directional_controller.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <set>
#include <vector>

#include "services/controller/terms.hpp"

namespace limbic::controller {
namespace {

using geometry::kPi;
using geometry::Vec2;

// Parameters with every directional weight at 0 so one term can be switched on at a time.
ControlParameters NoWeights() {
  ControlParameters p;
  p.w_theta1 = p.w_theta2 = p.w_theta3 = p.w_theta4 = p.w_theta5 = p.w_theta6 = 0.0;
  return p;
}

TEST(DirectionalTermsTest, AvoidanceFromDistanceEq512) {
  EXPECT_DOUBLE_EQ(DirectionalAvoidance(0.0, 3.0), 0.0);
  EXPECT_DOUBLE_EQ(DirectionalAvoidance(1.5, 3.0), 0.5);
  EXPECT_DOUBLE_EQ(DirectionalAvoidance(2.97, 3.0), 0.99);
  EXPECT_DOUBLE_EQ(DirectionalAvoidance(3.0, 3.0), 1.0);
  EXPECT_DOUBLE_EQ(DirectionalAvoidance(7.0, 3.0), 1.0);
}

TEST(PeakEdgeSmoothTest, HalfWidthEq514) {
  EXPECT_EQ(SmoothingHalfWidth(0.1, 10), 1);
  EXPECT_EQ(SmoothingHalfWidth(0.2, 10), 2);
  EXPECT_EQ(SmoothingHalfWidth(0.1, 50), 5);
  EXPECT_EQ(SmoothingHalfWidth(0.1, 30), 3);
  EXPECT_EQ(SmoothingHalfWidth(0.5, 50), 25);
  EXPECT_EQ(SmoothingHalfWidth(0.0, 50), 0);
}

TEST(PeakEdgeSmoothTest, TenBinsAtS01IsIdentityForUnitValues) {
  // n = 10, s = 0.1 → m = 1 and the ramp is |j|/(s·n) = 1 per bin: a neighbour adds ≥ 1, so no
  // value in [0, 1] can be lowered.
  const std::vector<double> h = {1, 1, 1, 0.2, 1, 1, 1, 1, 1, 0};
  std::vector<double> out(h.size());
  PeakEdgeSmooth(h, 0.1, out);
  for (size_t k = 0; k < h.size(); ++k) EXPECT_DOUBLE_EQ(out[k], h[k]) << k;
}

TEST(PeakEdgeSmoothTest, TenBinsAtS02ByHand) {
  // n = 10, s = 0.2 → m = 2, ramp 0.5 per bin: h'(k) = min(h(k), h(k±1) + 0.5, h(k±2) + 1),
  // circular.
  const std::vector<double> h = {1, 1, 1, 0.2, 1, 1, 1, 1, 1, 0};
  const std::vector<double> expected = {0.5, 1, 0.7, 0.2, 0.7, 1, 1, 1, 0.5, 0};
  std::vector<double> out(h.size());
  PeakEdgeSmooth(h, 0.2, out);
  for (size_t k = 0; k < h.size(); ++k) EXPECT_NEAR(out[k], expected[k], 1e-12) << k;
}

TEST(PeakEdgeSmoothTest, FiftyBinsAtS01RampsOverFiveBins) {
  // n = 50, s = 0.1 → m = 5, ramp 0.2 per bin around a single zero at bin 10.
  std::vector<double> h(50, 1.0);
  h[10] = 0.0;
  std::vector<double> out(50);
  PeakEdgeSmooth(h, 0.1, out);
  for (int j = -6; j <= 6; ++j) {
    const double expected = std::min(1.0, 0.2 * std::abs(j));
    EXPECT_NEAR(out[10 + j], expected, 1e-12) << j;
  }
  EXPECT_DOUBLE_EQ(out[40], 1.0);
}

HeadingSet Headings(int n) {
  HeadingSet set;
  set.Resize(n);
  return set;
}

TEST(RayCircleDistancesTest, KnownLayout) {
  // Headings −π, −π/2, 0, π/2; circles of r_o = 0.35.
  const HeadingSet headings = Headings(4);
  EXPECT_DOUBLE_EQ(headings.headings[2], 0.0);
  const std::vector<Vec2> points = {{2.0, 0.0}, {0.0, 1.0}};
  std::vector<double> d(4);
  RayCircleDistances({0, 0}, points, 0.35, 3.0, headings, d);
  EXPECT_NEAR(d[2], 1.65, 1e-12);  // straight at the circle centre: 2 − 0.35
  EXPECT_NEAR(d[3], 0.65, 1e-12);
  EXPECT_DOUBLE_EQ(d[0], 3.0);  // no hit → d_o(max)
  EXPECT_DOUBLE_EQ(d[1], 3.0);
}

TEST(RayCircleDistancesTest, OffCentreHitByHand) {
  // Circle at (1, 0.2), r = 0.35, ray θ = 0 from the origin: b = −1, c = 1.04 − 0.1225 = 0.9175,
  // t = 1 − sqrt(1 − 0.9175) = 1 − sqrt(0.0825).
  const HeadingSet headings = Headings(4);
  const std::vector<Vec2> points = {{1.0, 0.2}};
  std::vector<double> d(4);
  RayCircleDistances({0, 0}, points, 0.35, 3.0, headings, d);
  EXPECT_NEAR(d[2], 1.0 - std::sqrt(0.0825), 1e-12);
  EXPECT_DOUBLE_EQ(d[3], 3.0);  // the θ = π/2 ray passes 1 m from the centre
}

TEST(RayCircleDistancesTest, CappedAtMaximumAndZeroInside) {
  const HeadingSet headings = Headings(4);
  std::vector<double> d(4);
  const std::vector<Vec2> near_cap = {{3.3, 0.0}};
  RayCircleDistances({0, 0}, near_cap, 0.35, 3.0, headings, d);
  EXPECT_NEAR(d[2], 2.95, 1e-12);
  const std::vector<Vec2> beyond = {{3.4, 0.0}};  // first hit at 3.05 → d_o(max)
  RayCircleDistances({0, 0}, beyond, 0.35, 3.0, headings, d);
  EXPECT_DOUBLE_EQ(d[2], 3.0);
  const std::vector<Vec2> inside = {{3.0, 0.0}, {0.1, -0.1}};
  RayCircleDistances({0, 0}, inside, 0.35, 3.0, headings, d);
  for (double x : d) EXPECT_DOUBLE_EQ(x, 0.0);
}

TEST(RayCircleDistancesTest, MatchesBruteForceRayCircleIntersection) {
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> coord(-4.0, 4.0);
  for (int n : {7, 50, 360}) {
    const HeadingSet headings = Headings(n);
    for (int trial = 0; trial < 20; ++trial) {
      const Vec2 origin(coord(rng) * 0.2, coord(rng) * 0.2);
      std::vector<Vec2> points;
      while (points.size() < 100) {
        const Vec2 p(coord(rng), coord(rng));
        if ((p - origin).norm() > 0.301) points.push_back(p);  // include near-tangent windows
      }
      std::vector<double> fast(n);
      RayCircleDistances(origin, points, 0.3, 3.0, headings, fast);
      for (int k = 0; k < n; ++k) {
        double brute = 3.0;
        for (const Vec2& p : points) {
          const auto t = geometry::RayCircleIntersection(origin, geometry::UnitVector(headings.headings[k]), p, 0.3);
          if (t && *t < brute) brute = *t;
        }
        EXPECT_NEAR(fast[k], brute, 1e-12) << "n " << n << " trial " << trial << " k " << k;
      }
    }
  }
}

TEST(MapVirtualObstaclesTest, FusesOccupancyAndDangerWithinRadius) {
  geometry::GridSpec spec{Vec2(0, 0), 0.35, 10, 10};
  std::vector<double> p_o(100, 0.2), danger(100, 0.0);
  auto idx = [&](int ix, int iy) { return spec.Index({ix, iy}); };
  p_o[idx(5, 5)] = 0.6;                         // > 0.5 → virtual point
  p_o[idx(6, 5)] = 0.3, danger[idx(6, 5)] = 1;  // 0.3 + 1 − 0.3 = 1 → virtual point
  p_o[idx(4, 5)] = 0.5;                         // not above the threshold
  p_o[idx(0, 0)] = 0.9;                         // above, but its centre is 1.98 m from the robot
  const Vec2 robot(1.75, 1.75);
  std::vector<Vec2> points;
  MapVirtualObstacles({spec, p_o, danger}, robot, 1.0, 0.5, 1.0, 1.0, &points);
  ASSERT_EQ(points.size(), 2u);
  EXPECT_NEAR(points[0].x(), 1.925, 1e-12);
  EXPECT_NEAR(points[0].y(), 1.925, 1e-12);
  EXPECT_NEAR(points[1].x(), 2.275, 1e-12);
  // Without the danger map cell (6, 5) is 0.3 only.
  MapVirtualObstacles({spec, p_o, {}}, robot, 1.0, 0.5, 1.0, 1.0, &points);
  EXPECT_EQ(points.size(), 1u);
  // A larger radius reaches cell (0, 0), whose centre is 1.575·√2 ≈ 2.23 m away.
  MapVirtualObstacles({spec, p_o, danger}, robot, 2.5, 0.5, 1.0, 1.0, &points);
  EXPECT_EQ(points.size(), 3u);
  std::vector<double> wrong(99, 0.0);
  EXPECT_THROW(MapVirtualObstacles({spec, wrong, {}}, robot, 1.0, 0.5, 1.0, 1.0, &points), std::invalid_argument);
}

// Issue 14 (G-10): an unseen obstacle's face at y = 7.054 narrows a corridor to a 0.97 m passage above a wall
// whose face is at 6.08. A bumper contact point 6 cm below the face fell in the cell centred at 6.825, so with
// r_o = 0.28 the map's virtual circle reaches down to 6.545 and a ray along the passage at y = 6.6 is blocked
// 0.46 m ahead, where the sensors see the passage open. map_point_inset = 0.175 (half a cell) leaves it open.
TEST(MapObstacleRadiusTest, InsetReopensAPassageClosedByAQuantisedDangerCell) {
  EXPECT_DOUBLE_EQ(MapObstacleRadius(0.28, 0.0), 0.28);
  EXPECT_NEAR(MapObstacleRadius(0.28, 0.175), 0.105, 1e-15);
  EXPECT_DOUBLE_EQ(MapObstacleRadius(0.25, 0.35), 0.0);  // never negative
  HeadingSet headings;
  headings.Resize(20);  // θ_10 = 0
  const std::vector<Vec2> points = {{8.225, 6.825}, {7.525, 6.125}, {7.875, 6.125}, {8.225, 6.125}, {8.575, 6.125}};
  std::vector<double> d(20);
  const Vec2 robot(7.6, 6.6);
  RayCircleDistances(robot, points, MapObstacleRadius(0.28, 0.0), 3.0, headings, d);
  EXPECT_NEAR(d[10], 0.625 - std::sqrt(0.28 * 0.28 - 0.225 * 0.225), 1e-9);
  RayCircleDistances(robot, points, MapObstacleRadius(0.28, 0.175), 3.0, headings, d);
  EXPECT_DOUBLE_EQ(d[10], 3.0);
}

TEST(MapDangerPointTest, OptionNamesParseInOrderAndOthersAreRefused) {
  EXPECT_EQ(ParseMapDangerPoint("centre"), MapDangerPoint::kCellCentre);
  EXPECT_EQ(ParseMapDangerPoint("site"), MapDangerPoint::kSite);
  EXPECT_THROW(ParseMapDangerPoint("center"), std::invalid_argument);
}

// The same G-10 passage: the collision's mark (the mapper's surface estimate) lies on the unseen obstacle's face at
// y = 7.054, in the cell centred at (8.225, 6.825). Standing the cell there instead of at its centre keeps the
// passage open with the spec's full r_o; a danger cell without a site (an a-priori tag) and an occupied cell stay
// at their centres.
TEST(MapDangerPointTest, ASiteStandsACollisionDangerCellWhereTheCollisionPutItsMark) {
  const geometry::GridSpec spec{Vec2(0, 0), 0.35, 30, 30};
  std::vector<double> p_o(900, 0.2), danger(900, 0.0);
  const int marked = spec.Index({23, 19});  // centre (8.225, 6.825)
  const int tagged = spec.Index({25, 19});  // centre (8.925, 6.825), a tag: no site
  const int wall = spec.Index({22, 17});    // centre (7.875, 6.125), occupied
  danger[marked] = danger[tagged] = 1;
  p_o[wall] = 0.9;
  const std::vector<DangerSite> sites = {{marked, {8.2, 7.054}}};
  const Vec2 robot(7.6, 6.6);
  std::vector<Vec2> points;
  MapVirtualObstacles({spec, p_o, danger, sites}, robot, 2.0, 0.5, 1.0, 1.0, &points);
  ASSERT_EQ(points.size(), 3u);
  EXPECT_EQ(points[1], spec.Center({23, 19})) << "the spec's cell centre by default";
  MapVirtualObstacles({spec, p_o, danger, sites}, robot, 2.0, 0.5, 1.0, 1.0, &points, MapDangerPoint::kSite);
  ASSERT_EQ(points.size(), 3u);
  EXPECT_EQ(points[0], spec.Center({22, 17}));
  EXPECT_EQ(points[1], Vec2(8.2, 7.054));
  EXPECT_EQ(points[2], spec.Center({25, 19}));
  // Along the passage (heading 0 at y = 6.6): the centre closes it with r_o = 0.28, the site does not.
  HeadingSet headings;
  headings.Resize(20);
  std::vector<double> d(20);
  const std::vector<Vec2> centre = {spec.Center({23, 19})}, site = {Vec2(8.2, 7.054)};
  RayCircleDistances(robot, centre, 0.28, 3.0, headings, d);
  EXPECT_LT(d[10], 1.0);
  RayCircleDistances(robot, site, 0.28, 3.0, headings, d);
  EXPECT_DOUBLE_EQ(d[10], 3.0);
}

TEST(LookAheadTest, ClosestNodeThenWalkAlongPath) {
  const std::vector<Vec2> nodes = {{0, 0}, {1, 0}, {2, 0}, {2, 1}, {2, 2}};
  const Vec2 robot(0.9, 0.3);
  EXPECT_EQ(FindLookAheadTarget(nodes, robot, 0.0).target_index, 1);
  const LookAheadTarget t = FindLookAheadTarget(nodes, robot, 1.5);
  EXPECT_EQ(t.closest_index, 1);
  EXPECT_EQ(t.target_index, 3);  // 1 m to node 2, 2 m to node 3 ≥ 1.5
  EXPECT_EQ(t.point, Vec2(2, 1));
  EXPECT_EQ(FindLookAheadTarget(nodes, robot, 2.0).target_index, 3);
  EXPECT_EQ(FindLookAheadTarget(nodes, robot, 10.0).target_index,
            4);  // beyond the end → the last node
  EXPECT_EQ(FindLookAheadTarget({}, robot, 1.0).target_index, -1);
}

TEST(WanderTest, HeadingEq517SpansPlusMinus135Degrees) {
  EXPECT_NEAR(WanderHeading(0.2, 0.75, 0.0), 0.2 - 0.75 * kPi, 1e-12);
  EXPECT_NEAR(WanderHeading(0.2, 0.75, 0.5), 0.2, 1e-12);
  EXPECT_NEAR(WanderHeading(0.2, 0.75, 0.75), 0.2 + 0.375 * kPi, 1e-12);
  EXPECT_NEAR(WanderHeading(3.0, 0.75, 0.75), geometry::WrapAngle(3.0 + 0.375 * kPi),
              1e-12);  // wrapped
}

TEST(DirectionalControllerTest, GoalSeekingEq515) {
  ControlParameters p = NoWeights();
  p.w_theta4 = 0.5;
  DirectionalController ctrl;
  DirectionalInputs in;
  in.goal = Vec2(10 * std::cos(0.3), 10 * std::sin(0.3));
  DirectionalOutput out;
  ctrl.Tick(in, p, &out);
  ASSERT_EQ(out.headings.size(), 50u);
  EXPECT_NEAR(out.goal_bearing, 0.3, 1e-12);
  for (int k = 0; k < 50; ++k) {
    const double g = 1.0 - std::abs(geometry::WrapAngle(out.headings[k] - 0.3)) / kPi;
    EXPECT_NEAR(out.goal_seeking[k], g, 1e-12);
    EXPECT_NEAR(out.objective[k], 1.0 - 0.5 * (1.0 - g), 1e-12);
  }
  // The nearest heading to 0.3: θ_27 = −π + 27·2π/50 ≈ 0.2513.
  EXPECT_EQ(out.target_index, 27);
  EXPECT_NEAR(out.target_heading, -kPi + 27 * 2 * kPi / 50, 1e-12);
}

TEST(DirectionalControllerTest, AngularInertiaEq516StartsAtCurrentHeading) {
  ControlParameters p = NoWeights();
  p.w_theta5 = 0.5;
  DirectionalController ctrl;
  DirectionalInputs in;
  in.pose.theta = 1.0;
  in.goal = Vec2(-10, 0);
  DirectionalOutput out;
  ctrl.Tick(in, p, &out);
  EXPECT_DOUBLE_EQ(out.previous_target, 1.0);  // θ_T(prev) initialised to the current heading
  EXPECT_EQ(out.target_index, 33);             // θ_33 = −π + 33·2π/50 ≈ 1.0053 is nearest to 1.0
  const double theta33 = out.target_heading;
  EXPECT_NEAR(out.inertia[33], 1.0 - std::abs(theta33 - 1.0) / kPi, 1e-12);
  // Next tick: the field is centred on the previous θ_T, not on the (unchanged) heading.
  ctrl.Tick(in, p, &out);
  EXPECT_DOUBLE_EQ(out.previous_target, theta33);
  EXPECT_DOUBLE_EQ(out.inertia[33], 1.0);
  EXPECT_NEAR(out.inertia[0], 1.0 - std::abs(geometry::WrapAngle(-kPi - theta33)) / kPi, 1e-12);
}

TEST(DirectionalControllerTest, WanderRedrawnEveryPeriodWithinRangeOfGoal) {
  ControlParameters p = NoWeights();
  p.w_theta6 = 0.75;
  DirectionalOptions options;
  options.wander_seed = 42;
  DirectionalController ctrl(options);
  DirectionalInputs in;
  const double theta_g = -2.5;
  in.goal = Vec2(20 * std::cos(theta_g), 20 * std::sin(theta_g));
  DirectionalOutput out;
  std::vector<double> draw_times;
  std::set<double> headings;
  double last = std::nan("");
  for (int tick = 0; tick <= 600; ++tick) {  // 0 … 60 s at T = 0.1 s
    in.time = tick * 0.1;
    ctrl.Tick(in, p, &out);
    if (out.wander_heading != last) {
      draw_times.push_back(in.time);
      last = out.wander_heading;
      headings.insert(last);
      EXPECT_LE(geometry::AngleDistance(last, theta_g), 0.75 * kPi + 1e-12);
    }
    EXPECT_NEAR(out.wander[0], HeadingPreference(out.headings[0], out.wander_heading), 1e-12);
  }
  ASSERT_EQ(draw_times.size(), 5u);  // t = 0, 15, 30, 45, 60
  for (int i = 0; i < 5; ++i) EXPECT_NEAR(draw_times[i], 15.0 * i, 1e-9);
  EXPECT_EQ(headings.size(), 5u);
  // Same seed → same draws; the state replays.
  DirectionalController twin(options);
  DirectionalOutput twin_out;
  for (int tick = 0; tick <= 600; ++tick) {
    in.time = tick * 0.1;
    twin.Tick(in, p, &twin_out);
  }
  EXPECT_EQ(twin.state(), ctrl.state());
  EXPECT_EQ(twin_out.objective, out.objective);
}

TEST(DirectionalControllerTest, WanderStatisticsCoverTheRange) {
  // Many draws: all within ±135° of the goal bearing, spread over most of that range.
  DirectionalController ctrl;
  ControlParameters p = NoWeights();
  p.w_theta6 = 0.75;
  p.wander_period = 1.0;
  DirectionalInputs in;
  in.goal = Vec2(5, 0);
  DirectionalOutput out;
  double lo = 0, hi = 0;
  for (int i = 0; i < 400; ++i) {
    in.time = i;
    ctrl.Tick(in, p, &out);
    EXPECT_LE(std::abs(out.wander_heading), 0.75 * kPi);
    lo = std::min(lo, out.wander_heading);
    hi = std::max(hi, out.wander_heading);
  }
  EXPECT_LT(lo, -0.7 * kPi);
  EXPECT_GT(hi, 0.7 * kPi);
}

TEST(DirectionalControllerTest, GoalProximityModulationValues) {
  ControlParameters p;
  p.w_theta1 = 0.99, p.w_theta2 = 0.4, p.w_theta3 = 0.75, p.w_theta4 = 0.0, p.w_theta5 = 0.5, p.w_theta6 = 0.75;
  DirectionalInputs in;
  in.goal = Vec2(0.75, 0.0);  // d_g = 0.75 = d_g(max)/2
  DirectionalOutput out;
  DirectionalController ctrl;
  ctrl.Tick(in, p, &out);
  EXPECT_NEAR(out.weights.sensor, 0.495, 1e-12);  // eq. 5.19
  EXPECT_NEAR(out.weights.map, 0.2, 1e-12);       // eq. 5.19
  EXPECT_NEAR(out.weights.path, 0.75, 1e-12);     // unchanged (§8 item 19)
  EXPECT_NEAR(out.weights.goal, 0.5, 1e-12);      // eq. 5.18: 0 + 0.5·(1 − 0)
  EXPECT_NEAR(out.weights.inertia, 0.25, 1e-12);
  EXPECT_NEAR(out.weights.wander, 0.375, 1e-12);

  DirectionalOptions alt;
  alt.reduce_path_following_near_goal = true;
  alt.reduce_map_avoidance_near_goal = false;
  DirectionalController alt_ctrl(alt);
  alt_ctrl.Tick(in, p, &out);
  EXPECT_NEAR(out.weights.path, 0.375, 1e-12);
  EXPECT_NEAR(out.weights.map, 0.4, 1e-12);

  in.goal = Vec2(0.0, 0.0);  // at the goal: goal seeking boosted to 1, then capped
  ctrl.Tick(in, p, &out);
  EXPECT_DOUBLE_EQ(out.weights.goal, 0.99);
  EXPECT_DOUBLE_EQ(out.weights.sensor, 0.0);
  in.goal = Vec2(3.0, 0.0);  // far: table values
  ctrl.Tick(in, p, &out);
  EXPECT_DOUBLE_EQ(out.weights.sensor, 0.99);
  EXPECT_DOUBLE_EQ(out.weights.goal, 0.0);
  EXPECT_DOUBLE_EQ(out.weights.wander, 0.75);
}

TEST(DirectionalControllerTest, EmptyWorldHeadsToLookAheadPoint) {
  ControlParameters p;  // defaults: W_θ1 = 0.99, W_θ3 = 0.75, d_L = 0.7
  DirectionalController ctrl;
  DirectionalInputs in;
  const std::vector<Vec2> path = {{0, 0}, {0.35, 0.35}, {0.7, 0.7}, {0.7, 1.05}, {0.7, 1.4}, {0.7, 3.0}};
  in.path_nodes = path;
  in.goal = Vec2(0.7, 3.0);
  DirectionalOutput out;
  ctrl.Tick(in, p, &out);
  // Closest node 0; 0.495 m to node 1, 0.99 m to node 2 ≥ 0.7 → look-ahead (0.7, 0.7), bearing π/4.
  EXPECT_EQ(out.look_ahead.target_index, 2);
  EXPECT_NEAR(out.path_bearing, kPi / 4, 1e-12);
  EXPECT_LE(geometry::AngleDistance(out.target_heading, kPi / 4),
            kPi / 50 + 1e-12);  // within half a step
  for (double a : out.sensor_avoidance) EXPECT_DOUBLE_EQ(a, 1.0);
}

TEST(DirectionalControllerTest, NoPathFallsBackToGoalBearingOrIsNeutral) {
  ControlParameters p = NoWeights();
  p.w_theta3 = 0.75;
  DirectionalInputs in;
  in.goal = Vec2(0.0, -4.0);
  DirectionalOutput out;
  DirectionalController ctrl;
  ctrl.Tick(in, p, &out);
  EXPECT_NEAR(out.path_bearing, -kPi / 2, 1e-12);
  // −π/2 lies exactly between θ_12 and θ_13: a tie, resolved to the first maximum.
  EXPECT_NEAR(out.objective[12], out.objective[13], 1e-12);
  EXPECT_EQ(out.target_index, 12);
  DirectionalOptions closest;
  closest.tie_break = TieBreak::kClosestToCurrent;  // heading 0: θ_13 ≈ −1.508 is closer than θ_12
  DirectionalController c_ctrl(closest);
  c_ctrl.Tick(in, p, &out);
  EXPECT_EQ(out.target_index, 13);
  DirectionalOptions neutral;
  neutral.no_path = NoPathBehaviour::kNeutral;
  DirectionalController n_ctrl(neutral);
  n_ctrl.Tick(in, p, &out);
  for (double v : out.path_following) EXPECT_DOUBLE_EQ(v, 1.0);
  EXPECT_EQ(out.target_index, 0);  // every option equal → first maximum
}

// Issue 15: `limbic param set r1/controller tie_break closest` reaches a running controller. Same tie as
// above; the live change decides it at the next tick, as a controller built with it would.
TEST(DirectionalControllerTest, ALiveTieBreakChangeDecidesTheNextTie) {
  ControlParameters p = NoWeights();
  p.w_theta3 = 0.75;
  DirectionalInputs in;
  in.goal = Vec2(0.0, -4.0);
  DirectionalOutput out;
  DirectionalController ctrl;
  ctrl.Tick(in, p, &out);
  EXPECT_EQ(out.target_index, 12);
  ctrl.set_tie_break(TieBreak::kClosestToCurrent);
  ctrl.Tick(in, p, &out);
  EXPECT_EQ(out.target_index, 13);
  ctrl.set_tie_break(TieBreak::kFirstMaximum);
  ctrl.Tick(in, p, &out);
  EXPECT_EQ(out.target_index, 12);
}

TEST(DirectionalControllerTest, ObstacleStraightAheadDeflectsTarget) {
  ControlParameters p;
  DirectionalInputs in;
  const std::vector<Vec2> path = {{0, 0}, {1, 0}, {2, 0}, {3, 0}, {4, 0}};
  in.path_nodes = path;
  in.goal = Vec2(4, 0);
  DirectionalOutput out;
  DirectionalController free_ctrl;
  free_ctrl.Tick(in, p, &out);
  EXPECT_NEAR(out.target_heading, 0.0, 1e-12);  // θ_25 = 0

  std::vector<Vec2> wall;
  for (double y = -0.4; y <= 0.4001; y += 0.1) wall.push_back({1.0, y});
  in.obstacle_points = wall;
  DirectionalController ctrl;
  ctrl.Tick(in, p, &out);
  EXPECT_NEAR(out.sensor_distance[25], 0.65,
              1e-12);  // ray θ = 0 meets the circle around (1, 0) at 0.65
  EXPECT_LT(out.sensor_avoidance[25], 0.65 / 3.0 + 1e-12);
  EXPECT_GT(std::abs(out.target_heading), 0.5);  // deviates well clear of the wall
  EXPECT_LT(std::abs(out.target_heading), kPi / 2 + 1e-9);
  // The raw field is unsmoothed: headings beside the wall keep d_o(max).
  EXPECT_DOUBLE_EQ(out.sensor_distance[0], 3.0);
}

TEST(DirectionalControllerTest, MapAvoidanceUsesVirtualPoints) {
  ControlParameters p = NoWeights();
  p.w_theta2 = 0.99;
  p.w_theta4 = 0.5;
  geometry::GridSpec spec{Vec2(-1.75, -1.75), 0.35, 10, 10};
  std::vector<double> p_o(100, 0.2);
  p_o[spec.Index(spec.CellOf({1.0, 0.0}))] = 0.9;
  DirectionalInputs in;
  in.map = GridView{spec, p_o, {}};
  in.goal = Vec2(3, 0);
  DirectionalOutput out;
  DirectionalController ctrl;
  ctrl.Tick(in, p, &out);
  ASSERT_EQ(out.map_points.size(), 1u);
  const Vec2 c = out.map_points[0];
  EXPECT_NEAR(c.x(), 0.875, 1e-12);  // cell centre
  EXPECT_NEAR(c.y(), 0.175, 1e-12);
  EXPECT_LT(out.map_avoidance[25], 1.0);
  for (double a : out.sensor_avoidance) EXPECT_DOUBLE_EQ(a, 1.0);
  EXPECT_NE(out.target_index, 25);
}

TEST(DirectionalControllerTest, InvalidParametersThrow) {
  ControlParameters p;
  p.n_theta = 0;
  DirectionalController ctrl;
  DirectionalInputs in;
  DirectionalOutput out;
  EXPECT_THROW(ctrl.Tick(in, p, &out), std::invalid_argument);
}

}  // namespace
}  // namespace limbic::controller
