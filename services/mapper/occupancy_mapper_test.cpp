#include "services/mapper/occupancy_mapper.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <map>
#include <random>
#include <stdexcept>

#include "services/mapper/testing/occupancy_mapper_peer.hpp"

namespace limbic::mapper {
namespace {

using geometry::GridSpec;
using geometry::kPi;
using geometry::Vec2;

// 20 × 20 cells of 0.35 m from the origin; cell (ix, iy) has index 20·iy + ix.
const GridSpec kSpec{{0, 0}, 0.35, 20, 20};
int Idx(int ix, int iy) { return kSpec.Index({ix, iy}); }

// Robot at (1.3, 1.2), inside cell (3, 3) = [1.05, 1.4]², away from cell edges. Centre distances:
// (3,3) 0.079, (4,3) 0.276, (3,2) 0.334 (all ≤ r_R = 0.35); (3,4) 0.382, (2,3) 0.426 (outside).
MapperInputs BaseInputs(int64_t tick) {
  MapperInputs in;
  in.tick = tick;
  in.pose = {1.3, 1.2, 0.0};
  in.params.eps_1 = 0.1;  // distinct rates so the direction choice of eq. 5.1 is visible
  in.params.eps_2 = 0.05;
  in.params.eps_3 = 0.01;
  return in;
}

RangeBeam Beam(double angle, double range, bool valid, double d_max = 3.0, Vec2 origin = {0, 0}) {
  RangeBeam b;
  b.origin_local = origin;
  b.angle_local = angle;
  b.d_max = d_max;
  b.range = range;
  b.valid = valid;
  return b;
}

std::map<int, double> SoByCell(const MapUpdateStats& stats) {
  std::map<int, double> m;
  for (const UpdatedCell& c : stats.updated_cells) m[c.index] = c.s_o;
  return m;
}

TEST(OccupancyMapper, OutOfRangeParametersAreRefused) {
  OccupancyMapper mapper(kSpec);
  MapperInputs in = BaseInputs(1);
  in.params.n_o = 1 << 30;  // the obstacle buffer length in cycles
  EXPECT_THROW(mapper.Update(in), std::invalid_argument);
  in.params.n_o = 5;
  EXPECT_NO_THROW(mapper.Update(in));  // the same tick: the refused one changed nothing
}

TEST(OccupancyMapper, RobotDiscCellsGetFreeStatusByCentreDistance) {
  OccupancyMapper mapper(kSpec);
  const MapperOutputs out = mapper.Update(BaseInputs(1));
  const std::map<int, double> expected{{Idx(3, 2), 0.0}, {Idx(3, 3), 0.0}, {Idx(4, 3), 0.0}};
  EXPECT_EQ(SoByCell(out.stats), expected);
  // Eq. 5.1 decrease with ε_1 = 0.1: 0.1·0 + 0.9·0.2 = 0.18. Eq. 5.2: 0.01 + 0.99·0 = 0.01.
  for (const auto& [i, s] : expected) {
    EXPECT_DOUBLE_EQ(mapper.maps().p_o[i], 0.18);
    EXPECT_DOUBLE_EQ(mapper.maps().p_e[i], 0.01);
  }
  EXPECT_EQ(mapper.maps().p_o[Idx(3, 4)], 0.2);  // not flagged: untouched
  EXPECT_EQ(mapper.maps().p_e[Idx(3, 4)], 0.0);
  // Updated cells carry the prior p_o for the mismatch stimulus (eq. 8.11), in ascending index order.
  ASSERT_EQ(out.stats.updated_cells.size(), 3u);
  EXPECT_EQ(out.stats.updated_cells[0].index, Idx(3, 2));
  EXPECT_EQ(out.stats.updated_cells[0].p_o_before, 0.2);
}

TEST(OccupancyMapper, RobotDiscOverlapOptionFlagsEveryTouchedCell) {
  MapperOptions opt;
  opt.robot_disc = RobotDiscRule::kCellOverlap;
  OccupancyMapper mapper(kSpec, opt);
  const auto so = SoByCell(mapper.Update(BaseInputs(1)).stats);
  // Disc [0.95, 1.65] × [0.85, 1.55]: columns 2..4, rows 2..4; the corners need the nearest-point test:
  // (2,2) nearest (1.05,1.05) d = 0.292 in; (4,4) nearest (1.4,1.4) d = 0.224 in; (2,4) (1.05,1.4) 0.32 in;
  // (4,2) (1.4,1.05) 0.18 in. All nine cells.
  EXPECT_EQ(so.size(), 9u);
  EXPECT_TRUE(so.count(Idx(2, 2)) && so.count(Idx(4, 4)) && so.count(Idx(2, 4)) && so.count(Idx(4, 2)));
}

TEST(OccupancyMapper, BeamTraversalFreesCellsAndHitCellIsOccupied) {
  OccupancyMapper mapper(kSpec);
  MapperInputs in = BaseInputs(1);
  in.scan.beams.push_back(Beam(0.0, 1.0, true));  // (1.3,1.2) → (2.3,1.2): cells (3..6, 3)
  const MapperOutputs out = mapper.Update(in);
  const std::map<int, double> expected{
      {Idx(3, 2), 0.0}, {Idx(3, 3), 0.0}, {Idx(4, 3), 0.0}, {Idx(5, 3), 0.0}, {Idx(6, 3), 1.0}};
  EXPECT_EQ(SoByCell(out.stats), expected);
  EXPECT_DOUBLE_EQ(mapper.maps().p_o[Idx(5, 3)], 0.18);
  // Eq. 5.1 increase with ε_2 = 0.05: 0.05·1 + 0.95·0.2 = 0.24.
  EXPECT_DOUBLE_EQ(mapper.maps().p_o[Idx(6, 3)], 0.24);
  EXPECT_DOUBLE_EQ(mapper.maps().p_e[Idx(6, 3)], 0.01);
  // Density (eq. 8.9): every explored cell has p_e = 0.01, so it is the mean p_o of the five cells.
  EXPECT_NEAR(out.stats.density, (4 * 0.18 + 0.24) / 5, 1e-15);
  EXPECT_NEAR(out.stats.mean_p_e, 5 * 0.01 / 400, 1e-18);
  ASSERT_EQ(out.obstacle_points.size(), 1u);
  EXPECT_NEAR(out.obstacle_points[0].x(), 2.3, 1e-12);
  EXPECT_NEAR(out.obstacle_points[0].y(), 1.2, 1e-12);
}

TEST(OccupancyMapper, InvalidBeamFreesCellsUpToMaximumRange) {
  OccupancyMapper mapper(kSpec);
  MapperInputs in = BaseInputs(1);
  in.scan.beams.push_back(Beam(kPi / 2, 3.0, false, /*d_max=*/1.0));  // (1.3,1.2) → (1.3,2.2): (3, 3..6)
  const MapperOutputs out = mapper.Update(in);
  const std::map<int, double> expected{{Idx(3, 2), 0.0}, {Idx(3, 3), 0.0}, {Idx(4, 3), 0.0},
                                       {Idx(3, 4), 0.0}, {Idx(3, 5), 0.0}, {Idx(3, 6), 0.0}};
  EXPECT_EQ(SoByCell(out.stats), expected);
  EXPECT_TRUE(out.obstacle_points.empty());
}

TEST(OccupancyMapper, BeamUsesPoseRotationAndMountingOffset) {
  OccupancyMapper mapper(kSpec);
  MapperInputs in = BaseInputs(1);
  in.pose.theta = kPi / 2;
  // Emitter 0.1 m ahead of the centre → world (1.3, 1.3); beam straight ahead (+y) for 0.5 m → (1.3, 1.8).
  in.scan.beams.push_back(Beam(0.0, 0.5, true, 3.0, {0.1, 0.0}));
  const auto so = SoByCell(mapper.Update(in).stats);
  EXPECT_EQ(so.at(Idx(3, 4)), 0.0);
  EXPECT_EQ(so.at(Idx(3, 5)), 1.0);
  EXPECT_EQ(so.count(Idx(3, 6)), 0u);
}

TEST(OccupancyMapper, ObstaclePointOverridesRobotDiscAndBeamCells) {
  OccupancyMapper mapper(kSpec);
  MapperInputs in = BaseInputs(1);
  in.scan.beams.push_back(Beam(0.0, 0.2, true));  // hit (1.5, 1.2) in cell (4,3), a robot-disc cell
  in.scan.beams.push_back(Beam(0.0, 1.0, true));  // passes through (4,3) as free
  const auto so = SoByCell(mapper.Update(in).stats);
  EXPECT_EQ(so.at(Idx(4, 3)), 1.0);
  EXPECT_EQ(so.at(Idx(3, 3)), 0.0);
  EXPECT_DOUBLE_EQ(mapper.maps().p_o[Idx(4, 3)], 0.24);
}

TEST(OccupancyMapper, RepeatedUpdatesFollowEq51And52) {
  OccupancyMapper mapper(kSpec);
  MapperInputs in = BaseInputs(1);
  in.scan.beams.push_back(Beam(0.0, 1.0, true));
  mapper.Update(in);
  in.tick = 2;
  mapper.Update(in);
  // Free cell: 0.2 → 0.18 → 0.162. Occupied: 0.2 → 0.24 → 0.05 + 0.95·0.24 = 0.278.
  EXPECT_DOUBLE_EQ(mapper.maps().p_o[Idx(5, 3)], 0.162);
  EXPECT_DOUBLE_EQ(mapper.maps().p_o[Idx(6, 3)], 0.278);
  // p_e: 0.01 → 0.01 + 0.99·0.01 = 0.0199.
  EXPECT_DOUBLE_EQ(mapper.maps().p_e[Idx(5, 3)], 0.0199);
  EXPECT_THROW(mapper.Update(in), std::invalid_argument);  // same tick again
}

TEST(OccupancyMapper, EqualStatusStillCountsAsUpdate) {
  // A cell already at p_o = 0 with s_o = 0 keeps p_o but its exploration grows (it was updated).
  OccupancyMapper mapper(kSpec);
  GridMaps m = GridMaps::Initial(kSpec);
  m.p_o[Idx(3, 3)] = 0.0;
  mapper.LoadMaps(m);
  mapper.Update(BaseInputs(1));
  EXPECT_EQ(mapper.maps().p_o[Idx(3, 3)], 0.0);
  EXPECT_DOUBLE_EQ(mapper.maps().p_e[Idx(3, 3)], 0.01);
}

TEST(OccupancyMapper, CollisionMarksDangerOccupancyAndBuffer) {
  OccupancyMapper mapper(kSpec);
  MapperInputs in = BaseInputs(1);
  in.collision.occurred = true;
  in.collision.new_event = true;
  in.collision.contact_point = {1.75, 1.2};  // cell (5, 3)
  const MapperOutputs out = mapper.Update(in);
  EXPECT_EQ(mapper.maps().danger[Idx(5, 3)], 1);
  int danger_cells = 0;
  for (uint8_t d : mapper.maps().danger) danger_cells += d;
  EXPECT_EQ(danger_cells, 1);
  EXPECT_EQ(SoByCell(out.stats).at(Idx(5, 3)), 1.0);
  ASSERT_EQ(out.obstacle_points.size(), 1u);
  EXPECT_EQ(out.obstacle_points[0], Vec2(1.75, 1.2));
}

TEST(OccupancyMapper, ACollisionDangerCellKeepsWhereTheCollisionPutItsMark) {
  MapperOptions o;
  o.danger_point = DangerPoint::kContact;  // the mark is the contact point itself: easy to state
  OccupancyMapper mapper(kSpec, o);
  MapReplica replica;
  replica.Reset(mapper.Snapshot());
  MapperInputs in = BaseInputs(1);
  in.collision.occurred = true;
  in.collision.contact_point = {1.80, 1.10};  // cell (5, 3), 0.075 m from its centre
  MapperOutputs out = mapper.Update(in);
  ASSERT_NE(mapper.maps().SiteOf(Idx(5, 3)), nullptr);
  EXPECT_EQ(mapper.maps().SiteOf(Idx(5, 3))->point, Vec2(1.80, 1.10));
  ASSERT_EQ(out.patch.danger_sites.size(), 1u);  // consumers learn where it is
  EXPECT_EQ(out.patch.danger_sites[0], (DangerSite{Idx(5, 3), {1.80, 1.10}}));
  EXPECT_EQ(replica.Apply(out.patch), MapReplica::ApplyResult::kApplied);
  // A later collision in the same cell moves the site (the latest mark), and the patch says so.
  in.tick = 2;
  in.collision.contact_point = {1.90, 1.30};
  out = mapper.Update(in);
  EXPECT_EQ(mapper.maps().SiteOf(Idx(5, 3))->point, Vec2(1.90, 1.30));
  EXPECT_EQ(replica.Apply(out.patch), MapReplica::ApplyResult::kApplied);
  EXPECT_EQ(replica.maps(), mapper.maps());
  // An a-priori tag stands for the whole cell: it takes the site away.
  mapper.MarkDanger({1.80, 1.10});
  EXPECT_EQ(mapper.maps().SiteOf(Idx(5, 3)), nullptr);
  in.tick = 3;
  in.collision.occurred = false;
  EXPECT_EQ(replica.Apply(mapper.Update(in).patch), MapReplica::ApplyResult::kApplied);
  EXPECT_EQ(replica.maps(), mapper.maps());
  EXPECT_TRUE(replica.maps().danger_sites.empty());
  EXPECT_EQ(replica.maps().danger[Idx(5, 3)], 1);
  mapper.Reset();
  EXPECT_TRUE(mapper.maps().danger_sites.empty());
}

TEST(OccupancyMapper, CollisionOccupancyCanBeSwitchedOff) {
  MapperOptions opt;
  opt.collision_marks_occupied = false;
  OccupancyMapper mapper(kSpec, opt);
  MapperInputs in = BaseInputs(1);
  in.collision.occurred = true;
  in.collision.contact_point = {1.75, 1.2};
  const MapperOutputs out = mapper.Update(in);
  EXPECT_EQ(mapper.maps().danger[Idx(5, 3)], 1);
  EXPECT_EQ(SoByCell(out.stats).count(Idx(5, 3)), 0u);
}

TEST(OccupancyMapper, ObstacleBufferKeepsLastNoCycles) {
  for (CollisionPointLifetime lifetime :
       {CollisionPointLifetime::kObstacleBuffer, CollisionPointLifetime::kPermanent}) {
    MapperOptions opt;
    opt.collision_points = lifetime;
    OccupancyMapper mapper(kSpec, opt);
    MapperOutputs out;
    for (int k = 1; k <= 3; ++k) {
      MapperInputs in = BaseInputs(k);
      in.params.n_o = 2;
      in.scan.beams.push_back(Beam(0.0, 0.5 * k, true));  // hits at x = 1.8, 2.3, 2.8
      in.collision.occurred = k == 1;
      in.collision.contact_point = {1.0, 1.0};
      out = mapper.Update(in);
    }
    // Cycles 2 and 3 only; the cycle-1 collision point stays only when permanent; danger stays for good.
    std::vector<Vec2> expected{{1.3 + 1.0, 1.2}, {1.3 + 1.5, 1.2}};
    if (lifetime == CollisionPointLifetime::kPermanent) expected.push_back({1.0, 1.0});
    ASSERT_EQ(out.obstacle_points.size(), expected.size());
    for (size_t i = 0; i < expected.size(); ++i) EXPECT_NEAR((out.obstacle_points[i] - expected[i]).norm(), 0, 1e-12);
    EXPECT_EQ(mapper.maps().danger[kSpec.Index(kSpec.CellOf({1.0, 1.0}))], 1);

    // A live increase of n_o shows older cycles that are still in the history.
    MapperInputs in = BaseInputs(4);
    in.params.n_o = 4;
    out = mapper.Update(in);
    EXPECT_EQ(out.obstacle_points.size(), 4u);  // cycles 1..4: three beam hits + the cycle-1 collision
  }
}

// Issue 14, recorded in set G, environment 10, seed 1001, traversal 1 (tick 1491): an obstacle the sensors cannot
// see, x ∈ [8.126, 8.741], y ∈ [7.054, 7.430], leaves a 0.974 m gap above a wall whose face is at y = 6.08. The
// robot (published pose after the collision response) touches the obstacle's corner (8.126, 7.054) at 55° off
// its heading; switch 1 (45°) closes, and hwio places the contact point on the chassis at (8.1485, 6.9896): 1 cm
// below the edge y = 7.0 of the 0.35 m grid. That cell, [8.05, 8.4] × [6.65, 7.0], centre y = 6.825, lies in the
// gap: a danger cell there closes the passage in the map (§4.4 a_m with r_o around the centre).
const GridSpec kG10Spec{{0, 0}, 0.35, 58, 35};
const geometry::Pose2 kG10Pose{7.865812570725, 6.783195612658, -0.154743299812};
const geometry::Cell kGapCell{23, 19};       // [8.05, 8.4] × [6.65, 7.0]: in the gap
const geometry::Cell kObstacleCell{23, 20};  // [8.05, 8.4] × [7.0, 7.35]: centre (8.225, 7.175) in the obstacle

MapperInputs G10Contact(int64_t tick) {
  MapperInputs in;
  in.tick = tick;
  in.pose = kG10Pose;
  in.collision.occurred = true;
  in.collision.new_event = true;
  in.collision.sensor_ids = {1};
  in.collision.contact_point = kG10Pose.ToWorld(0.35 * geometry::UnitVector(kPi / 4));  // what hwio sends
  return in;
}

TEST(DangerPoint, OptionNamesParseInOrderAndOthersAreRefused) {
  EXPECT_EQ(ParseDangerPoint("surface"), DangerPoint::kSurface);
  EXPECT_EQ(ParseDangerPoint("contact"), DangerPoint::kContact);
  EXPECT_EQ(ParseDangerPoint("sensed"), DangerPoint::kSensed);
  try {
    ParseDangerPoint("switch");
    ADD_FAILURE() << "accepted 'switch'";
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(), "danger_point must be surface, contact, sensed or sector, got 'switch'");
  }
}

TEST(DangerPoint, G10ContactPointOnTheChassisLiesInTheGap) {
  const MapperInputs in = G10Contact(1);
  EXPECT_NEAR(in.collision.contact_point.x(), 8.148487, 1e-6);  // as recorded on r1/collision
  EXPECT_NEAR(in.collision.contact_point.y(), 6.989581, 1e-6);
  MapperOptions contact;
  contact.danger_point = DangerPoint::kContact;
  OccupancyMapper mapper(kG10Spec, contact);
  mapper.Update(in);
  EXPECT_EQ(mapper.maps().danger[kG10Spec.Index(kGapCell)], 1);
  EXPECT_EQ(mapper.maps().danger[kG10Spec.Index(kObstacleCell)], 0);
}

TEST(DangerPoint, G10SurfaceEstimateMarksTheObstacleCellNotTheGap) {
  OccupancyMapper mapper(kG10Spec);  // the default: DangerPoint::kSurface
  const MapperOutputs out = mapper.Update(G10Contact(1));
  EXPECT_EQ(mapper.maps().danger[kG10Spec.Index(kObstacleCell)], 1);
  EXPECT_EQ(mapper.maps().danger[kG10Spec.Index(kGapCell)], 0);
  int danger_cells = 0;
  for (uint8_t d : mapper.maps().danger) danger_cells += d;
  EXPECT_EQ(danger_cells, 1);
  // The point: on the contact's ray at (r_R + 0.01)/cos(22.5°) = 0.38966 m from the robot.
  const auto point = DangerPointFor(MapperOptions{}, kG10Pose, G10Contact(1).collision.contact_point, {});
  ASSERT_TRUE(point.has_value());
  EXPECT_NEAR((*point - kG10Pose.Position()).norm(), 0.36 / std::cos(kPi / 8), 1e-12);
  // Only the danger map moves: the obstacle buffer and rule 3 still take the contact point as received.
  ASSERT_EQ(out.obstacle_points.size(), 1u);
  EXPECT_EQ(out.obstacle_points[0], G10Contact(1).collision.contact_point);
  EXPECT_EQ(SoByCell(out.stats).at(kG10Spec.Index(kGapCell)), 1.0);
}

TEST(DangerPoint, ASensedPointInTheSectorIsTheSurface) {
  // A wall the sensors see, at 0.37 m in the switch's direction and 3° off it.
  MapperInputs in = G10Contact(1);
  const double beam_angle = kPi / 4 + 3 * kPi / 180;
  in.scan.beams.push_back(Beam(beam_angle, 0.37, true));  // beam origin at the robot centre
  const Vec2 seen = kG10Pose.ToWorld(0.37 * geometry::UnitVector(beam_angle));
  for (DangerPoint mode : {DangerPoint::kSurface, DangerPoint::kSensed}) {
    MapperOptions options;
    options.danger_point = mode;
    OccupancyMapper mapper(kG10Spec, options);
    mapper.Update(in);
    int danger_cells = 0;
    for (uint8_t d : mapper.maps().danger) danger_cells += d;
    EXPECT_EQ(danger_cells, 1);
    EXPECT_EQ(mapper.maps().danger[kG10Spec.Index(kG10Spec.CellOf(seen))], 1);
  }
  // Points outside the sector (30° off) or beyond its reach (0.40 m) are not the surface the robot touched.
  const Vec2 contact = in.collision.contact_point;
  MapperOptions sensed;
  sensed.danger_point = DangerPoint::kSensed;
  const Vec2 off_sector = kG10Pose.ToWorld(0.36 * geometry::UnitVector(kPi / 4 + kPi / 6));
  const Vec2 too_far = kG10Pose.ToWorld(0.40 * geometry::UnitVector(kPi / 4));
  EXPECT_FALSE(DangerPointFor(sensed, kG10Pose, contact, {off_sector, too_far}).has_value());
  // The nearest of two in the sector wins.
  const Vec2 near = kG10Pose.ToWorld(0.355 * geometry::UnitVector(kPi / 4 - 0.2));
  const auto chosen = DangerPointFor(sensed, kG10Pose, contact, {seen, near, off_sector});
  ASSERT_TRUE(chosen.has_value());
  EXPECT_EQ(*chosen, near);
}

TEST(DangerPoint, SensedOnlyLeavesAnUnseenObstacleUnmarkedAndOldCollisionPointsAreNotSensed) {
  MapperOptions sensed;
  sensed.danger_point = DangerPoint::kSensed;
  OccupancyMapper mapper(kG10Spec, sensed);
  mapper.Update(G10Contact(1));  // its contact point enters the obstacle buffer's history
  MapperInputs again = G10Contact(2);
  again.pose.x += 0.005;  // the previous contact point is now in the sector, within reach
  EXPECT_TRUE(DangerPointFor(sensed, again.pose, again.collision.contact_point, {G10Contact(1).collision.contact_point})
                  .has_value());
  const MapperOutputs out = mapper.Update(again);
  EXPECT_EQ(out.obstacle_points.size(), 2u);               // both contact points are in the buffer ...
  for (uint8_t d : mapper.maps().danger) EXPECT_EQ(d, 0);  // ... but neither counts as seen by the sensors
}

TEST(DangerPoint, AContactFurtherOutIsNotPulledIn) {
  const Vec2 robot{1.3, 1.2};
  const auto p = DangerPointFor(MapperOptions{}, {robot.x(), robot.y(), 0.0}, {1.75, 1.2}, {});
  ASSERT_TRUE(p.has_value());
  EXPECT_EQ(*p, Vec2(1.75, 1.2));
  MapperOptions bad;
  bad.bumper_switches = 0;
  EXPECT_THROW(OccupancyMapper(kSpec, bad), std::invalid_argument);
}

// ---- Issue 14, stop 16: DangerPoint::kSector and DangerForget -------------------------------------------------

// The robot of BaseInputs, heading +x, touching something with switch 0: hwio's contact point (1.65, 1.2); the
// sector's arc at reach (0.35 + 0.01)/cos(22.5°) = 0.38966 m. Its centre (1.68966, 1.2) lies in cell (4, 3).
const double kReach = 0.36 / std::cos(kPi / 8);

MapperInputs SwitchZeroContact(int64_t tick, geometry::Pose2 pose = {1.3, 1.2, 0.0}) {
  MapperInputs in = BaseInputs(tick);
  in.pose = pose;
  in.collision.occurred = true;
  in.collision.new_event = true;
  in.collision.sensor_ids = {0};
  in.collision.contact_point = pose.ToWorld({0.35, 0.0});
  return in;
}

Vec2 ArcPoint(double bearing) { return Vec2(1.3, 1.2) + kReach * geometry::UnitVector(bearing); }

MapperOptions Sector() {
  MapperOptions o;
  o.danger_point = DangerPoint::kSector;
  return o;
}

TEST(SectorDangerPoint, WithoutEvidenceItIsTheSurfacePointOnTheSwitchRay) {
  const MapperInputs in = SwitchZeroContact(1);
  const Vec2 p = SectorDangerPoint(Sector(), in.pose, in.collision.contact_point, 0.0, {}, {}, {});
  EXPECT_NEAR((p - ArcPoint(0.0)).norm(), 0.0, 1e-12);
  EXPECT_EQ(p, *DangerPointFor(MapperOptions{}, in.pose, in.collision.contact_point, {}));
  // A sensed point in the sector within reach is still the surface (kSurface's first rule).
  const Vec2 seen = ArcPoint(0.3) - 0.02 * geometry::UnitVector(0.3);
  EXPECT_EQ(SectorDangerPoint(Sector(), in.pose, in.collision.contact_point, 0.0, {seen}, {}, {}), seen);
}

TEST(SectorDangerPoint, AnUnfoldedBeamThroughTheRayMovesThePointBesideIt) {
  const MapperInputs in = SwitchZeroContact(1);
  // The long-range beam of sensor 0 (emitter 0.2 m ahead, straight on) with no reading: free to 3 m.
  const RangeBeam through = Beam(0.0, 3.0, false, 3.0, {0.2, 0.0});
  const Vec2 p = SectorDangerPoint(Sector(), in.pose, in.collision.contact_point, 0.0, {}, {through}, {});
  // 1 cm beside the beam: the first 0.5° step with 0.38966·sin(δ) ≥ 0.01 is δ = 1.5°; −δ is tried first.
  EXPECT_NEAR((p - ArcPoint(-1.5 * kPi / 180)).norm(), 0.0, 1e-12);
  // A reading that may be a dead-zone fold (eq. 4.10: up to 0.4 + 0.4·2.6 = 1.44 m) proves nothing.
  RangeBeam folded = Beam(0.0, 1.2, true, 3.0, {0.2, 0.0});
  folded.d_min = 0.4;
  EXPECT_EQ(SectorDangerPoint(Sector(), in.pose, in.collision.contact_point, 0.0, {}, {folded}, {}), ArcPoint(0.0));
  RangeBeam far = folded;
  far.range = 1.5;  // beyond any fold: free to 1.5 m
  EXPECT_NEAR((SectorDangerPoint(Sector(), in.pose, in.collision.contact_point, 0.0, {}, {far}, {}) -
               ArcPoint(-1.5 * kPi / 180))
                  .norm(),
              0.0, 1e-12);
}

TEST(SectorDangerPoint, BeamsThatRuleOutTheWholeSectorAreIgnored) {
  // Beams every 0.25° across the sector, all free: the sensors looked through whatever was touched (an obstacle
  // they cannot see): their evidence is void and the switch ray's point stands.
  const MapperInputs in = SwitchZeroContact(1);
  std::vector<RangeBeam> beams;
  for (double deg = -24.0; deg <= 24.0; deg += 0.25) beams.push_back(Beam(deg * kPi / 180, 3.0, false));
  EXPECT_EQ(SectorDangerPoint(Sector(), in.pose, in.collision.contact_point, 0.0, {}, beams, {}), ArcPoint(0.0));
}

TEST(SectorDangerPoint, WhereTheBodyWasTheObstacleIsNot) {
  const MapperInputs in = SwitchZeroContact(1);
  const Vec2 past{1.75, 1.5};  // covers the ray's point (0.306 m < 0.33 m) and the upper half of the arc
  ASSERT_LT((ArcPoint(0.0) - past).norm(), 0.33);
  const Vec2 p = SectorDangerPoint(Sector(), in.pose, in.collision.contact_point, 0.0, {}, {}, {past});
  EXPECT_NEAR((p - Vec2(1.3, 1.2)).norm(), kReach, 1e-12);
  const double bearing = std::atan2(p.y() - 1.2, p.x() - 1.3);
  EXPECT_LT(bearing, 0.0);
  EXPECT_GE((p - past).norm(), 0.33);                                    // outside the body's disc ...
  EXPECT_LT((ArcPoint(bearing + 0.5 * kPi / 180) - past).norm(), 0.33);  // ... the step nearer the ray is inside
  // Every point of the arc covered: the surface point stands.
  EXPECT_EQ(SectorDangerPoint(Sector(), in.pose, in.collision.contact_point, 0.0, {}, {}, {{1.55, 1.2}}),
            ArcPoint(0.0));
}

TEST(SectorDangerPoint, TheMapperRemembersRecentPositionsOnlyForTheSectorRule) {
  MapperOptions sector = Sector();
  sector.body_history_cycles = 3;
  OccupancyMapper mapper(kSpec, sector);
  for (int t = 1; t <= 5; ++t) mapper.Update(BaseInputs(t));
  EXPECT_EQ(mapper.state().past_positions.size(), 3u);
  OccupancyMapper surface(kSpec);
  surface.Update(BaseInputs(1));
  EXPECT_TRUE(surface.state().past_positions.empty());
  // Through Update: the upper arc was swept by the body a cycle ago; the danger cell is still (4, 3) here, but the
  // point is the one SectorDangerPoint gives.
  OccupancyMapper m(kSpec, Sector());
  MapperInputs before = BaseInputs(1);
  before.pose = {1.75, 1.5, 0.0};
  m.Update(before);
  m.Update(SwitchZeroContact(2));
  EXPECT_EQ(m.maps().danger[Idx(4, 3)], 1);
}

int DangerCount(const OccupancyMapper& m) {
  int n = 0;
  for (uint8_t d : m.maps().danger) n += d;
  return n;
}

// Recorded G-10, traversal 1 of the ch10 affective configuration (`limbic experiment run` of a one-traversal
// definition with `record: all`, r1/odom, r1/scan and r1/collision at tick 1254; 2026-11-25): the first contact
// with the unseen obstacle x [8.1257, 8.7412] × y [7.0539, 7.4297], whose lower-left corner leaves a 0.974 m gap
// to the wall below (top face y = 6.08). The robot met the corner 16° left of its heading at 0.64 m/s; only
// switch 0 closed. The grid of G-10: origin (−0.35, −0.35), 60 × 37 cells.
const GridSpec kG10bSpec{{-0.35, -0.35}, 0.35, 60, 37};
const geometry::Pose2 kG10bPose{7.713719075697, 6.995839510062, -0.138734421498};
const Vec2 kG10bCorner{8.125691378057, 7.053856060189};
const geometry::Cell kG10bGapCell{24, 20};       // [8.05, 8.4] × [6.65, 7.0]: the only row of the gap ...
const geometry::Cell kG10bObstacleCell{24, 21};  // [8.05, 8.4] × [7.0, 7.35]: ... and the corner's cell

MapperInputs G10FirstContact() {
  MapperInputs in;
  in.tick = 1254;
  in.pose = kG10bPose;
  in.collision.occurred = true;
  in.collision.new_event = true;
  in.collision.sensor_ids = {0};
  in.collision.contact_point = {8.06035620777, 6.94743807756};
  in.collision.speed_before = 0.635588566724;
  in.scan.beams = {
      {0, {0.2, 0.0}, -0.174532925199, 0.4, 3.0, 2.793405322245, true},
      {0, {0.2, 0.0}, -0.0872664626, 0.4, 3.0, 3.0, false},
      {0, {0.2, 0.0}, 0.0, 0.4, 3.0, 3.0, false},
      {0, {0.2, 0.0}, 0.0872664626, 0.4, 3.0, 3.0, false},
      {0, {0.2, 0.0}, 0.174532925199, 0.4, 3.0, 3.0, false},
      {1, {0.161803398875, 0.117557050458}, 0.453785605519, 0.4, 3.0, 2.765022784703, true},
      {1, {0.161803398875, 0.117557050458}, 0.541052068118, 0.4, 3.0, 2.087900907709, true},
      {1, {0.161803398875, 0.117557050458}, 0.628318530718, 0.4, 3.0, 1.772576377711, true},
      {1, {0.161803398875, 0.117557050458}, 0.715584993318, 0.4, 3.0, 1.434533911048, true},
      {1, {0.161803398875, 0.117557050458}, 0.802851455917, 0.4, 3.0, 1.322275190012, true},
      {2, {0.061803398875, 0.190211303259}, 1.082104136236, 0.4, 3.0, 0.881313789589, true},
      {2, {0.061803398875, 0.190211303259}, 1.169370598836, 0.4, 3.0, 0.837415245156, true},
      {2, {0.061803398875, 0.190211303259}, 1.256637061436, 0.4, 3.0, 0.828291177295, true},
      {2, {0.061803398875, 0.190211303259}, 1.343903524036, 0.4, 3.0, 0.779292442859, true},
      {2, {0.061803398875, 0.190211303259}, 1.431169986635, 0.4, 3.0, 0.754733622371, true},
      {3, {-0.061803398875, 0.190211303259}, 1.710422666954, 0.4, 3.0, 0.712685404955, true},
      {3, {-0.061803398875, 0.190211303259}, 1.797689129554, 0.4, 3.0, 0.700617814781, true},
      {3, {-0.061803398875, 0.190211303259}, 1.884955592154, 0.4, 3.0, 0.694198106735, true},
      {3, {-0.061803398875, 0.190211303259}, 1.972222054754, 0.4, 3.0, 0.714472442287, true},
      {3, {-0.061803398875, 0.190211303259}, 2.059488517353, 0.4, 3.0, 0.751129079567, true},
      {4, {-0.161803398875, 0.117557050458}, 2.338741197672, 0.4, 3.0, 0.916309955916, true},
      {4, {-0.161803398875, 0.117557050458}, 2.426007660272, 0.4, 3.0, 0.959249136442, true},
      {4, {-0.161803398875, 0.117557050458}, 2.513274122872, 0.4, 3.0, 1.126635973085, true},
      {4, {-0.161803398875, 0.117557050458}, 2.600540585472, 0.4, 3.0, 1.21921022271, true},
      {4, {-0.161803398875, 0.117557050458}, 2.687807048071, 0.4, 3.0, 1.300094705906, true},
      {5, {-0.2, 0.0}, 2.96705972839, 0.4, 3.0, 1.465587285555, true},
      {5, {-0.2, 0.0}, 3.05432619099, 0.4, 3.0, 3.0, false},
      {5, {-0.2, 0.0}, -3.14159265359, 0.4, 3.0, 3.0, false},
      {5, {-0.2, 0.0}, -3.05432619099, 0.4, 3.0, 3.0, false},
      {5, {-0.2, 0.0}, -2.96705972839, 0.4, 3.0, 3.0, false},
      {6, {-0.161803398875, -0.117557050458}, -2.687807048071, 0.4, 3.0, 1.614197665276, true},
      {6, {-0.161803398875, -0.117557050458}, -2.600540585472, 0.4, 3.0, 1.535012333296, true},
      {6, {-0.161803398875, -0.117557050458}, -2.513274122872, 0.4, 3.0, 1.4886326664, true},
      {6, {-0.161803398875, -0.117557050458}, -2.426007660272, 0.4, 3.0, 1.472799295181, true},
      {6, {-0.161803398875, -0.117557050458}, -2.338741197672, 0.4, 3.0, 1.38882038582, true},
      {7, {-0.061803398875, -0.190211303259}, -2.059488517353, 0.4, 3.0, 0.927019880754, true},
      {7, {-0.061803398875, -0.190211303259}, -1.972222054754, 0.4, 3.0, 0.869392278845, true},
      {7, {-0.061803398875, -0.190211303259}, -1.884955592154, 0.4, 3.0, 0.840070106628, true},
      {7, {-0.061803398875, -0.190211303259}, -1.797689129554, 0.4, 3.0, 0.856422617333, true},
      {7, {-0.061803398875, -0.190211303259}, -1.710422666954, 0.4, 3.0, 0.776076931696, true},
      {8, {0.061803398875, -0.190211303259}, -1.431169986635, 0.4, 3.0, 0.733473411609, true},
      {8, {0.061803398875, -0.190211303259}, -1.343903524036, 0.4, 3.0, 0.742109192596, true},
      {8, {0.061803398875, -0.190211303259}, -1.256637061436, 0.4, 3.0, 0.726045284871, true},
      {8, {0.061803398875, -0.190211303259}, -1.169370598836, 0.4, 3.0, 0.745517757375, true},
      {8, {0.061803398875, -0.190211303259}, -1.082104136236, 0.4, 3.0, 0.82065207654, true},
      {9, {0.161803398875, -0.117557050458}, -0.802851455917, 0.4, 3.0, 1.008939563334, true},
      {9, {0.161803398875, -0.117557050458}, -0.715584993318, 0.4, 3.0, 1.034460900214, true},
      {9, {0.161803398875, -0.117557050458}, -0.628318530718, 0.4, 3.0, 1.112688648896, true},
      {9, {0.161803398875, -0.117557050458}, -0.541052068118, 0.4, 3.0, 1.201740826332, true},
      {9, {0.161803398875, -0.117557050458}, -0.453785605519, 0.4, 3.0, 1.395391448522, true},
      {10, {0.2, 0.0}, 0.0, 0.14, 0.75, 0.75, false},
      {11, {0.161803398875, 0.117557050458}, 0.628318530718, 0.14, 0.75, 0.75, false},
      {12, {0.061803398875, 0.190211303259}, 1.256637061436, 0.14, 0.75, 0.75, false},
      {13, {-0.061803398875, 0.190211303259}, 1.884955592154, 0.14, 0.75, 0.717073199258, true},
      {14, {-0.161803398875, 0.117557050458}, 2.513274122872, 0.14, 0.75, 0.75, false},
      {15, {-0.2, 0.0}, -3.14159265359, 0.14, 0.75, 0.75, false},
      {16, {-0.161803398875, -0.117557050458}, -2.513274122872, 0.14, 0.75, 0.75, false},
      {17, {-0.061803398875, -0.190211303259}, -1.884955592154, 0.14, 0.75, 0.75, false},
      {18, {0.061803398875, -0.190211303259}, -1.256637061436, 0.14, 0.75, 0.75, false},
      {19, {0.161803398875, -0.117557050458}, -0.628318530718, 0.14, 0.75, 0.75, false},
  };
  return in;
}

TEST(SectorDangerPoint, G10TheSensorsLookThroughTheUnseenCornerSoTheSectorPointStaysInTheGap) {
  const MapperInputs in = G10FirstContact();
  // The truth: the corner is in switch 0's sector (16° left), 0.42 m from the restored chassis centre.
  const Vec2 to_corner = kG10bCorner - kG10bPose.Position();
  const double bearing = geometry::WrapAngle(std::atan2(to_corner.y(), to_corner.x()) - kG10bPose.theta);
  EXPECT_NEAR(bearing * 180 / kPi, 16.0, 0.5);
  EXPECT_NEAR(to_corner.norm(), 0.416, 0.001);
  // Sensor 0's five beams (−10° … +10°, the middle of the sector) cross the obstacle and read nothing up to 3 m:
  // by eq. 4.10 such a reading cannot be a fold, so to the sensors the corner is free space — they are no evidence
  // about an obstacle they cannot see (§3.1), and nothing rules out the gap side of the sector.
  int blind_through_sector = 0;
  for (const RangeBeam& b : in.scan.beams) {
    if (b.sensor_id == 0 && !b.valid) ++blind_through_sector;
  }
  EXPECT_EQ(blind_through_sector, 4);  // −5°, 0°, +5°, +10° (−10° sees the far wall at 2.79 m)
  OccupancyMapper surface(kG10bSpec);
  surface.Update(in);
  EXPECT_EQ(surface.maps().danger[kG10bSpec.Index(kG10bGapCell)], 1);
  OccupancyMapper sector(kG10bSpec, Sector());
  sector.Update(in);
  EXPECT_EQ(sector.maps().danger[kG10bSpec.Index(kG10bGapCell)], 1);
  EXPECT_EQ(DangerCount(sector), 1);
  // The sector's arc at reach (0.36 + 0.0636)/cos 22.5° = 0.4585 m: its point at the corner's bearing would be in
  // the obstacle's cell — the estimate is off by the bearing alone, which one switch cannot resolve.
  const Vec2 at_corner_bearing = kG10bPose.Position() + (0.36 + 0.635588566724 * 0.1) / std::cos(kPi / 8) *
                                                            geometry::UnitVector(kG10bPose.theta + bearing);
  EXPECT_EQ(kG10bSpec.CellOf(at_corner_bearing), kG10bObstacleCell);
}

MapperInputs LookingAhead(int64_t tick) {  // no collision; sensor 0's beam sees nothing up to 3 m
  MapperInputs in = BaseInputs(tick);
  in.scan.beams.push_back(Beam(0.0, 3.0, false, 3.0, {0.2, 0.0}));
  return in;
}

TEST(DangerForget, OptionNamesParseInOrder) {
  EXPECT_EQ(ParseDangerForget("none"), DangerForget::kNone);
  EXPECT_EQ(ParseDangerForget("free_space"), DangerForget::kFreeSpace);
  EXPECT_EQ(ParseDangerForget("seen_free_space"), DangerForget::kSeenFreeSpace);
  EXPECT_EQ(ParseDangerForget("body"), DangerForget::kBody);
  EXPECT_THROW(ParseDangerForget("decay"), std::invalid_argument);
  MapperOptions bad;
  bad.danger_forget_cycles = 0;
  EXPECT_THROW(OccupancyMapper(kSpec, bad), std::invalid_argument);
}

TEST(DangerForget, NoneKeepsACollisionCellForGood) {
  OccupancyMapper mapper(kSpec);  // the default: the spec's binary map, never cleared
  mapper.Update(SwitchZeroContact(1));
  for (int t = 2; t <= 500; ++t) mapper.Update(LookingAhead(t));
  EXPECT_EQ(mapper.maps().danger[Idx(4, 3)], 1);
  EXPECT_EQ(DangerCount(mapper), 1);
}

TEST(DangerForget, FreeSpaceClearsACellLookedThroughForTheGivenCycles) {
  MapperOptions o;
  o.danger_forget = DangerForget::kFreeSpace;
  o.danger_forget_cycles = 10;
  OccupancyMapper mapper(kSpec, o);
  mapper.MarkDanger({2.3, 1.2});        // a tag on the same beam, cell (6, 3): never cleared
  mapper.Update(SwitchZeroContact(1));  // no beams this cycle
  ASSERT_EQ(mapper.maps().danger[Idx(4, 3)], 1);
  for (int t = 2; t <= 10; ++t) mapper.Update(LookingAhead(t));  // 9 cycles
  EXPECT_EQ(mapper.maps().danger[Idx(4, 3)], 1);
  const MapperOutputs out = mapper.Update(LookingAhead(11));  // the 10th
  EXPECT_EQ(mapper.maps().danger[Idx(4, 3)], 0);
  EXPECT_EQ(mapper.maps().SiteOf(Idx(4, 3)), nullptr) << "a forgotten cell keeps no site";
  EXPECT_NO_THROW(mapper.maps().Validate());
  EXPECT_EQ(mapper.maps().danger[Idx(6, 3)], 1);
  bool in_patch = false;
  for (const CellPatch& c : out.patch.cells) in_patch = in_patch || (c.index == Idx(4, 3) && c.danger == 0);
  EXPECT_TRUE(in_patch);  // consumers (planner, controller) learn of it
}

TEST(DangerForget, SeenFreeSpaceForgetsOnlyWhatTheSensorsCouldSee) {
  MapperOptions o;
  o.danger_forget = DangerForget::kSeenFreeSpace;
  o.danger_forget_cycles = 10;
  // Seen: at the contact a beam read the surface 0.37 m ahead (in the sector, within reach): cell (4, 3).
  OccupancyMapper seen(kSpec, o);
  MapperInputs touch = SwitchZeroContact(1);
  touch.scan.beams.push_back(Beam(0.0, 0.37, true));
  seen.Update(touch);
  ASSERT_EQ(seen.maps().danger[Idx(4, 3)], 1);
  EXPECT_EQ(seen.state().danger_from_collision[Idx(4, 3)], 2);
  for (int t = 2; t <= 11; ++t) seen.Update(LookingAhead(t));  // 10 cycles looking through it: it moved away
  EXPECT_EQ(seen.maps().danger[Idx(4, 3)], 0);
  // Unseen (an obstacle the sensors cannot see, sets F and G): kept however long they look through it ...
  OccupancyMapper unseen(kSpec, o);
  unseen.Update(SwitchZeroContact(1));
  for (int t = 2; t <= 200; ++t) unseen.Update(LookingAhead(t));
  EXPECT_EQ(unseen.maps().danger[Idx(4, 3)], 1);
  // ... and a cell with one unseen collision among seen ones is kept too.
  OccupancyMapper mixed(kSpec, o);
  mixed.Update(touch);
  // From below, switch 0 facing +y: its point (1.45, 1.23966) is in (4, 3); the surface seen at tick 1 is 0.41 m
  // away, beyond the sector's reach, and nothing else was sensed.
  mixed.Update(SwitchZeroContact(2, {1.45, 0.85, kPi / 2}));
  EXPECT_EQ(mixed.state().danger_from_collision[Idx(4, 3)], 1);
  for (int t = 3; t <= 200; ++t) mixed.Update(LookingAhead(t));
  EXPECT_EQ(mixed.maps().danger[Idx(4, 3)], 1);
  // free_space forgets the unseen one as well.
  o.danger_forget = DangerForget::kFreeSpace;
  OccupancyMapper any(kSpec, o);
  any.Update(SwitchZeroContact(1));
  for (int t = 2; t <= 11; ++t) any.Update(LookingAhead(t));
  EXPECT_EQ(any.maps().danger[Idx(4, 3)], 0);
}

TEST(DangerForget, FreeSpaceIgnoresFoldableReadingsAndTheReadingsOwnCell) {
  MapperOptions o;
  o.danger_forget = DangerForget::kFreeSpace;
  o.danger_forget_cycles = 3;
  OccupancyMapper mapper(kSpec, o);
  mapper.Update(SwitchZeroContact(1));
  for (int t = 2; t <= 20; ++t) {
    MapperInputs in = BaseInputs(t);
    RangeBeam folded = Beam(0.0, 1.2, true, 3.0, {0.2, 0.0});  // ≤ 1.44 m: may hide an obstacle at the chassis
    // A short-range reading (d_min 0.14, d_max 0.75: folds reach 0.225 m) of 0.24 m: proven free, but it ends at
    // x = 1.74 m, inside the danger cell (4, 3) itself: the sensors saw something there.
    RangeBeam ends_there = Beam(0.0, 0.24, true, 0.75, {0.2, 0.0});
    ends_there.d_min = 0.14;
    in.scan.beams = {folded, ends_there};
    mapper.Update(in);
  }
  EXPECT_EQ(mapper.maps().danger[Idx(4, 3)], 1);
}

TEST(DangerForget, BodyDropsAPointTheRobotCoversAndClearsTheCellWhenNoneIsLeft) {
  MapperOptions o;
  o.danger_forget = DangerForget::kBody;
  OccupancyMapper mapper(kSpec, o);
  mapper.Update(SwitchZeroContact(1));                             // P1 = (1.68966, 1.2), cell (4, 3)
  mapper.Update(SwitchZeroContact(2, {1.66, 1.77966, -kPi / 2}));  // P2 = (1.66, 1.39), cell (4, 3) too
  ASSERT_EQ(mapper.state().danger_marks.size(), 2u);
  mapper.MarkDanger({0.5, 0.5});  // a tag, cell (1, 1)
  auto at = [](int64_t tick, double x, double y) {
    MapperInputs in = BaseInputs(tick);
    in.pose = {x, y, 0.0};
    return in;
  };
  mapper.Update(at(3, 1.34, 1.2));  // 0.3497 m from P1: not covered (r_R − 2 cm = 0.33 m)
  EXPECT_EQ(mapper.state().danger_marks.size(), 2u);
  mapper.Update(at(4, 1.98, 1.2));  // covers P1 only
  EXPECT_EQ(mapper.state().danger_marks.size(), 1u);
  EXPECT_EQ(mapper.maps().danger[Idx(4, 3)], 1);
  mapper.Update(at(5, 1.66, 1.7));  // covers P2: the cell has no point left
  EXPECT_TRUE(mapper.state().danger_marks.empty());
  EXPECT_EQ(mapper.maps().danger[Idx(4, 3)], 0);
  mapper.Update(at(6, 0.5, 0.5));  // on the tag
  EXPECT_EQ(mapper.maps().danger[Idx(1, 1)], 1);
  EXPECT_EQ(DangerCount(mapper), 1);
}

TEST(OccupancyMapper, DangerTagsForPointAndPolygon) {
  OccupancyMapper mapper(kSpec);
  mapper.MarkDanger({0.5, 0.5});   // cell (1, 1)
  mapper.MarkDanger({-3.0, 0.5});  // off the grid: ignored
  // Rectangle [1.0, 1.7]²: columns and rows 2..4 (1.7/0.35 = 4.86).
  mapper.MarkDangerPolygon({{1.0, 1.0}, {1.7, 1.0}, {1.7, 1.7}, {1.0, 1.7}});
  int count = 0;
  for (uint8_t d : mapper.maps().danger) count += d;
  EXPECT_EQ(count, 1 + 9);
  EXPECT_EQ(mapper.maps().danger[Idx(1, 1)], 1);
  EXPECT_EQ(mapper.maps().danger[Idx(3, 3)], 1);
  EXPECT_EQ(mapper.maps().danger[Idx(5, 5)], 0);
  // The tags go out in the next patch.
  const MapPatch patch = mapper.Update(BaseInputs(1)).patch;
  int tagged = 0;
  for (const CellPatch& c : patch.cells) tagged += c.danger;
  EXPECT_EQ(tagged, 10);
}

TEST(OccupancyMapper, LateJoinerRebuildsBitIdenticalMap) {
  OccupancyMapper mapper(kSpec);
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  MapReplica early, late;
  early.Reset(mapper.Snapshot());  // initial maps, tick -1
  std::vector<MapPatch> patches;
  for (int k = 1; k <= 60; ++k) {
    MapperInputs in = BaseInputs(k);
    in.pose = {1.0 + 5.0 * u(rng), 1.0 + 5.0 * u(rng), 2 * kPi * u(rng)};
    in.params.eps_2 = 0.01 + 0.01 * u(rng);  // live modulation
    for (int b = 0; b < 12; ++b) in.scan.beams.push_back(Beam(b * kPi / 6, 0.4 + 2.6 * u(rng), u(rng) < 0.6));
    in.collision.occurred = u(rng) < 0.1;
    in.collision.contact_point = in.pose.Position() + Vec2(0.35, 0);
    if (k == 25) mapper.MarkDangerPolygon({{4, 4}, {5, 4}, {5, 5}});
    const MapperOutputs out = mapper.Update(in);
    patches.push_back(out.patch);
    EXPECT_EQ(early.Apply(out.patch), MapReplica::ApplyResult::kApplied);
    if (k == 20) late.Reset(mapper.Snapshot());
    if (k > 20) {
      EXPECT_EQ(late.Apply(out.patch), MapReplica::ApplyResult::kApplied);
    }
  }
  // A stale patch (already inside the snapshot) is ignored.
  EXPECT_EQ(late.Apply(patches[10]), MapReplica::ApplyResult::kStale);
  for (const MapReplica* r : {&early, &late}) {
    const GridMaps& a = r->maps();
    const GridMaps& b = mapper.maps();
    EXPECT_EQ(r->tick(), 60);
    ASSERT_EQ(a.p_o.size(), b.p_o.size());
    EXPECT_EQ(0, std::memcmp(a.p_o.data(), b.p_o.data(), a.p_o.size() * sizeof(double)));
    EXPECT_EQ(0, std::memcmp(a.p_e.data(), b.p_e.data(), a.p_e.size() * sizeof(double)));
    EXPECT_EQ(a.danger, b.danger);
    EXPECT_FALSE(b.danger_sites.empty());
    EXPECT_EQ(a.danger_sites, b.danger_sites);
    EXPECT_EQ(a.spec, b.spec);
  }
  // Reset goes out as a patch with every cell.
  mapper.Reset();
  const MapPatch reset_patch = mapper.Update(BaseInputs(61)).patch;
  EXPECT_EQ(reset_patch.cells.size(), static_cast<size_t>(kSpec.CellCount()));
  EXPECT_EQ(late.Apply(reset_patch), MapReplica::ApplyResult::kApplied);
  EXPECT_EQ(late.maps(), mapper.maps());
}

TEST(MapStatistics, DensityAndMeanExplorationByHand) {
  GridMaps m = GridMaps::Initial(GridSpec{{0, 0}, 0.35, 2, 2});
  m.p_e = {0.5, 0.25, 0.0, 0.25};
  m.p_o = {0.8, 0.4, 0.9, 0.0};
  // Σ p_e·p_o = 0.4 + 0.1 + 0 + 0 = 0.5; Σ p_e = 1.0.
  EXPECT_DOUBLE_EQ(MapDensity(m), 0.5);
  EXPECT_DOUBLE_EQ(MeanExploration(m), 0.25);
  m.p_e = {0, 0, 0, 0};
  EXPECT_EQ(MapDensity(m), 0.0);
}

// --- Issue 15, item 1: the state that feeds the outputs is checked after each cycle ---------------------

// Three cycles looking along +x from (1.3, 1.2): the beam crosses cells (3..6, 3) and hits in (6, 3).
OccupancyMapper MapperAfterThreeCycles(MapperOutputs* last) {
  OccupancyMapper mapper(kSpec);
  for (int64_t t = 1; t <= 3; ++t) {
    MapperInputs in = BaseInputs(t);
    in.scan.beams = {Beam(0.0, 1.0, true)};
    *last = mapper.Update(in);
  }
  return mapper;
}

MapperInputs FourthCycle() {
  MapperInputs in = BaseInputs(4);
  in.scan.beams = {Beam(0.0, 1.0, true)};
  in.collision.occurred = true;  // also marks danger: two kinds of change to undo
  in.collision.contact_point = {2.4, 1.2};
  return in;
}

void ExpectAllFinite(const MapperOutputs& out) {
  EXPECT_TRUE(std::isfinite(out.stats.mean_p_e));
  EXPECT_TRUE(std::isfinite(out.stats.density));
  for (const CellPatch& c : out.patch.cells) {
    EXPECT_TRUE(c.p_o >= 0.0 && c.p_o <= 1.0) << c.index << " " << c.p_o;
    EXPECT_TRUE(c.p_e >= 0.0 && c.p_e <= 1.0) << c.index << " " << c.p_e;
    EXPECT_LE(c.danger, 1) << c.index;
  }
  for (const Vec2& p : out.obstacle_points) EXPECT_TRUE(std::isfinite(p.x()) && std::isfinite(p.y()));
}

TEST(OccupancyMapperRollback, ANonFiniteCellTheCycleUpdatesIsRolledBackAndReset) {
  MapperOutputs before_out;
  OccupancyMapper mapper = MapperAfterThreeCycles(&before_out);
  ASSERT_EQ(mapper.fault(), "");
  const int poisoned = Idx(4, 3);  // on the beam: eq. 5.1 turns NaN into NaN
  OccupancyMapperTestPeer::SetOccupancy(mapper, poisoned, std::nan(""));
  GridMaps expected = mapper.maps();
  expected.p_o[poisoned] = kInitialOccupancy;  // no good value before the cycle: unexplored again
  expected.p_e[poisoned] = kInitialExploration;

  const MapperOutputs out = mapper.Update(FourthCycle());
  EXPECT_NE(mapper.fault().find("cell " + std::to_string(poisoned) + " not finite or out of [0, 1]: cycle rolled back"),
            std::string::npos)
      << mapper.fault();
  EXPECT_NE(mapper.fault().find("1 bad cell(s) reset to unexplored"), std::string::npos) << mapper.fault();
  EXPECT_TRUE(mapper.maps() == expected) << "every change of the cycle (occupancy, exploration, danger) undone";
  EXPECT_EQ(mapper.maps().danger[Idx(6, 3)], 0);
  EXPECT_TRUE(mapper.maps().danger_sites.empty()) << "the cycle's danger site undone with its cell";
  EXPECT_TRUE(out.patch.danger_sites.empty());
  EXPECT_TRUE(out.stats.updated_cells.empty());
  EXPECT_EQ(out.stats.mean_p_e, MeanExploration(expected));
  EXPECT_EQ(out.stats.density, MapDensity(expected));
  EXPECT_EQ(out.obstacle_points, before_out.obstacle_points) << "the refused cycle adds nothing to the buffer";
  ExpectAllFinite(out);
  // The patch carries the repaired cell, so replicas that took the bad value are mended.
  ASSERT_FALSE(out.patch.cells.empty());
  bool repaired = false;
  for (const CellPatch& c : out.patch.cells) {
    if (c.index == poisoned) repaired = c.p_o == kInitialOccupancy && c.p_e == kInitialExploration;
  }
  EXPECT_TRUE(repaired);
  EXPECT_EQ(out.patch.base_tick, 3);
  EXPECT_EQ(out.patch.tick, 4);

  // The next good cycle carries on and clears the fault.
  MapperInputs next = FourthCycle();
  next.tick = 5;
  const MapperOutputs after = mapper.Update(next);
  EXPECT_EQ(mapper.fault(), "");
  EXPECT_FALSE(after.stats.updated_cells.empty());
  EXPECT_EQ(mapper.maps().danger[Idx(6, 3)], 1);
  EXPECT_NE(mapper.maps().SiteOf(Idx(6, 3)), nullptr);
  ExpectAllFinite(after);
}

TEST(OccupancyMapperRollback, ABadCellTheCycleDoesNotTouchIsFoundThroughTheMapSums) {
  MapperOutputs unused;
  for (double bad : {std::numeric_limits<double>::infinity(), std::nan("")}) {
    OccupancyMapper mapper = MapperAfterThreeCycles(&unused);
    const int far = Idx(19, 19);  // nowhere near the robot or its beam
    OccupancyMapperTestPeer::SetExploration(mapper, far, bad);
    GridMaps expected = mapper.maps();
    expected.p_e[far] = kInitialExploration;
    const MapperOutputs out = mapper.Update(FourthCycle());
    EXPECT_NE(mapper.fault().find("map sums not finite: cycle rolled back"), std::string::npos) << mapper.fault();
    EXPECT_TRUE(mapper.maps() == expected);
    ExpectAllFinite(out);
  }
  // p_o = inf where p_e = 0 (nothing explored yet): eq. 8.9 alone would say density 0; Σ p_o catches it.
  OccupancyMapper fresh(kSpec);
  OccupancyMapperTestPeer::SetOccupancy(fresh, Idx(19, 19), std::numeric_limits<double>::infinity());
  MapperInputs in = BaseInputs(1);
  EXPECT_NO_THROW(fresh.Update(in));
  EXPECT_NE(fresh.fault().find("map sums not finite"), std::string::npos) << fresh.fault();
  EXPECT_EQ(fresh.maps().p_o[Idx(19, 19)], kInitialOccupancy);
}

TEST(OccupancyMapperRollback, AnOutOfRangeValueIsRefusedLikeANonFiniteOne) {
  MapperOutputs unused;
  OccupancyMapper mapper = MapperAfterThreeCycles(&unused);
  OccupancyMapperTestPeer::SetOccupancy(mapper, Idx(5, 3), 3.0);  // finite, but no probability
  OccupancyMapperTestPeer::SetDangerValue(mapper, Idx(0, 0), 7);  // far away: found by the repair pass
  const MapperOutputs out = mapper.Update(FourthCycle());
  EXPECT_NE(mapper.fault().find("out of [0, 1]: cycle rolled back, 2 bad cell(s)"), std::string::npos)
      << mapper.fault();
  EXPECT_EQ(mapper.maps().p_o[Idx(5, 3)], kInitialOccupancy);
  EXPECT_EQ(mapper.maps().danger[Idx(0, 0)], 1);
  ExpectAllFinite(out);
}

TEST(OccupancyMapperRollback, ANonFiniteInputSkipsTheCycleWithoutTouchingTheMaps) {
  MapperOutputs before_out;
  OccupancyMapper mapper = MapperAfterThreeCycles(&before_out);
  const GridMaps maps = mapper.maps();
  MapperInputs in = FourthCycle();
  in.pose.x = std::nan("");
  MapperOutputs out = mapper.Update(in);
  EXPECT_EQ(mapper.fault(), "input pose not finite: cycle skipped");
  EXPECT_TRUE(mapper.maps() == maps);
  EXPECT_TRUE(out.patch.cells.empty());
  EXPECT_EQ(out.obstacle_points, before_out.obstacle_points);
  in = FourthCycle();
  in.tick = 5;
  in.scan.beams[0].range = std::numeric_limits<double>::infinity();
  mapper.Update(in);
  EXPECT_EQ(mapper.fault(), "input scan not finite: cycle skipped");
  in.scan.beams[0].range = 1.0;
  in.collision.contact_point = {std::nan(""), 0.0};
  in.tick = 6;
  mapper.Update(in);
  EXPECT_EQ(mapper.fault(), "input collision.contact_point not finite: cycle skipped");
  EXPECT_TRUE(mapper.maps() == maps);
  in = FourthCycle();
  in.tick = 7;
  mapper.Update(in);
  EXPECT_EQ(mapper.fault(), "");
  EXPECT_FALSE(mapper.maps() == maps);
}

TEST(MapStatistics, OnePassSumsAreBitIdenticalToTheEquations) {
  GridMaps m = GridMaps::Initial(kSpec);
  std::mt19937 rng(5);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  for (int i = 0; i < m.CellCount(); ++i) {
    m.p_o[i] = u(rng);
    m.p_e[i] = i % 3 ? u(rng) : 0.0;
  }
  const MapSums sums = MapSums::Of(m);
  EXPECT_TRUE(sums.Finite());
  EXPECT_EQ(sums.Density(), MapDensity(m));
  EXPECT_EQ(sums.MeanExploration(), MeanExploration(m));
  m.p_o[7] = std::nan("");
  EXPECT_FALSE(MapSums::Of(m).Finite());
}

}  // namespace
}  // namespace limbic::mapper
