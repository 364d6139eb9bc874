// The laser robot in the hybrid navigator's offices (issue 21 item 5): the beams measure the office's
// walls as an independent ray cast over every segment does, the body never enters a wall, and the
// case-based controller (Appendix A) drives through a set-B office.
#include "services/laser_sim/office.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <optional>

#include "common/geometry/geometry.hpp"
#include "services/laser_nav/controllers.hpp"
#include "services/laser_sim/episode.hpp"
#include "services/laser_sim/laser_scanner.hpp"

namespace limbic::laser {
namespace {

// Every beam by brute force over every edge the laser sees (no broad phase), in centimetres.
ExactScan BruteForceScan(const sim::Environment& env, Vec2 p) {
  ExactScan out{};
  const auto& u = BeamUnitVectors();
  for (int a = 0; a < kBeams; ++a) {
    double best = kMaxRangeCm;
    for (const sim::WorldObject& o : env.objects) {
      if (!(sim::PropertyBit(o.property) & sim::kLongRangeBeamMask)) continue;
      for (size_t k = 0; k < o.vertices.size(); ++k) {
        const geometry::Segment edge{o.vertices[k], o.vertices[(k + 1) % o.vertices.size()]};
        const auto t = geometry::RaySegmentIntersection({p.x / 100.0, p.y / 100.0}, {u[a].x, u[a].y}, edge);
        if (t) best = std::min(best, *t * 100.0);
      }
    }
    out[a] = static_cast<float>(best);
  }
  return out;
}

const OfficeSurroundings& Office(const World& w) { return dynamic_cast<const OfficeSurroundings&>(*w.surroundings); }

TEST(OfficeLaser, BeamsMeasureTheWallsAsABruteForceCastDoes) {
  const World w = OfficeLaserWorld('B', 4);
  ASSERT_TRUE(w.surroundings);
  EXPECT_TRUE(w.obstacles.empty());
  EXPECT_DOUBLE_EQ(w.width, 2000.0);
  EXPECT_DOUBLE_EQ(w.height, 1200.0);
  const sim::Environment& env = Office(w).environment();
  int compared = 0, walls_seen = 0;
  for (const Vec2 p : {w.start, w.goal, Vec2{w.start.x + 40.0, w.start.y + 25.0}}) {
    ExactScan exact{};
    std::array<int16_t, kBeams> hit{};
    CastExact(w, p, &exact, &hit);
    const ExactScan reference = BruteForceScan(env, p);
    for (int a = 0; a < kBeams; ++a) {
      EXPECT_NEAR(exact[a], reference[a], 1e-3) << "beam " << a << " from (" << p.x << ", " << p.y << ")";
      EXPECT_EQ(hit[a] == kWall, reference[a] < kMaxRangeCm) << "beam " << a;
      walls_seen += hit[a] == kWall;
      ++compared;
    }
  }
  EXPECT_EQ(compared, 3 * kBeams);
  // The start and goal lie in corner blocks: the outer walls are within the laser's 2.5 m there.
  EXPECT_GT(walls_seen, 100);
  // The quantised scan (§1.5.3, no error): whole centimetres of the exact ranges.
  LaserScanner scanner(w, {LaserErrorModel::kNone, 2, false}, 1);
  RangeScan scan{};
  ExactScan exact{};
  scanner.Scan(w.start, &scan, &exact);
  for (int a = 0; a < kBeams; ++a) EXPECT_EQ(scan[a], static_cast<int>(std::lround(exact[a]))) << a;
}

TEST(OfficeLaser, ClearanceIsTheDistanceToTheNearestSurfaceLessTheRadius) {
  const World w = OfficeLaserWorld('B', 4);
  const sim::Environment& env = Office(w).environment();
  // Brute force over every edge the body meets, at a few points along the start's row.
  for (double dx : {0.0, 30.0, 60.0}) {
    const Vec2 p{w.start.x + dx, w.start.y};
    double nearest = std::numeric_limits<double>::infinity();
    for (const sim::WorldObject& o : env.objects) {
      if (!(sim::PropertyBit(o.property) & sim::kBodyMask)) continue;
      for (size_t k = 0; k < o.vertices.size(); ++k) {
        nearest = std::min(
            nearest, 100.0 * geometry::PointSegmentDistance({p.x / 100.0, p.y / 100.0},
                                                            {o.vertices[k], o.vertices[(k + 1) % o.vertices.size()]}));
      }
    }
    EXPECT_NEAR(w.surroundings->Clearance(p, 15.0, 1000.0), nearest - 15.0, 1e-9);
    // Beyond the horizon nothing is looked for: the horizon comes back.
    if (nearest - 15.0 > 5.0) {
      EXPECT_DOUBLE_EQ(w.surroundings->Clearance(p, 15.0, 5.0), 5.0);
    }
  }
}

TEST(OfficeLaser, TheOptimalPathGoesAroundTheWalls) {
  const World w = OfficeLaserWorld('B', 4);
  const FloodResult flood = OptimalPath(w);
  ASSERT_TRUE(flood.reachable);
  EXPECT_DOUBLE_EQ(w.optimal_path_cm, flood.length_cm);
  EXPECT_GT(flood.length_cm, Norm(w.goal - w.start));  // offices: never the straight line
  for (const Vec2& c : flood.path) EXPECT_GE(w.surroundings->Clearance(c, 15.0, 5.0), 0.0);
}

TEST(OfficeLaser, TheChoiceOfWorldIsARoomOrAnOffice) {
  const World room = MakeLaserWorld({20, 3, 1, 0});
  EXPECT_FALSE(room.surroundings);
  EXPECT_EQ(room.obstacles.size(), GenerateWorld(20, 3, 1).obstacles.size());
  const World office = MakeLaserWorld({20, 3, 1, 'C'});
  ASSERT_TRUE(office.surroundings);
  EXPECT_EQ(office.name, "office C-3");
  EXPECT_EQ(Office(office).environment().set, 'C');
  EXPECT_THROW(MakeLaserWorld({50, 3, 1, 0}), std::invalid_argument);
}

TEST(OfficeLaser, RefusesSetsWithHumansAndEnvironmentsThatDoNotExist) {
  EXPECT_THROW(OfficeLaserWorld('D', 0), std::invalid_argument);
  EXPECT_THROW(OfficeLaserWorld('E', 0), std::invalid_argument);
  EXPECT_THROW(OfficeLaserWorld('H', 0), std::invalid_argument);
  EXPECT_THROW(OfficeLaserWorld('B', -1), std::invalid_argument);
  EXPECT_THROW(OfficeLaserWorld('B', 20), std::invalid_argument);
}

// Drives straight at the west wall with the motion law and a heading of 270°: the stopping-distance
// law or a contact stops it, and the disc is never inside the wall.
TEST(OfficeLaser, TheBodyNeverEntersAWall) {
  const World w = OfficeLaserWorld('B', 4);
  EpisodeOptions options;
  options.time_limit_s = 5.0;
  LaserEpisode episode(w, options, 3);
  double west_most = episode.truth().x_cm;
  while (!episode.done()) {
    episode.Advance(270.0);
    west_most = std::min(west_most, episode.truth().x_cm);
    ASSERT_GE(w.surroundings->Clearance({episode.truth().x_cm, episode.truth().y_cm}, 15.0, 5.0), 0.0);
  }
  EXPECT_LT(west_most, w.start.x - 20.0) << "it never moved toward the wall";
  EXPECT_GE(episode.Result().closest_contact_cm, 15.0);
}

// Chosen by measurement (see the README: the case-based controller in the 20 set-B offices).
constexpr int kCrossedEnvironment = 13;

struct Crossing {
  EpisodeResult result;
  int64_t case_switches = 0;
};

Crossing RunCaseBased(const World& w, uint64_t seed, double time_limit_s) {
  EpisodeOptions options;
  options.time_limit_s = time_limit_s;
  LaserEpisode episode(w, options, seed);
  CbrOptions cbr;
  cbr.seed = seed;
  CaseBasedController controller(cbr);
  while (!episode.done()) episode.Advance(controller.Step(episode.frame()));
  return {episode.Result(), controller.switches()};
}

TEST(OfficeLaser, TheCaseBasedControllerCrossesASetBOffice) {
  const World w = OfficeLaserWorld('B', kCrossedEnvironment);
  const Crossing a = RunCaseBased(w, 7, 200.0);
  EXPECT_TRUE(a.result.solved) << "final distance " << a.result.final_goal_distance_cm << " cm";
  EXPECT_GT(a.result.efficiency, 0.3);
  EXPECT_GT(a.case_switches, 0);
  // Seeded: the same crossing again.
  const Crossing b = RunCaseBased(w, 7, 200.0);
  EXPECT_EQ(a.result.cycles, b.result.cycles);
  EXPECT_DOUBLE_EQ(a.result.path_cm, b.result.path_cm);
}

}  // namespace
}  // namespace limbic::laser
