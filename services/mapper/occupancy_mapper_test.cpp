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
    EXPECT_STREQ(e.what(), "danger_point must be surface, contact or sensed, got 'switch'");
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
