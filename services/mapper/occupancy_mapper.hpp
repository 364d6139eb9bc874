// Occupancy, exploration and danger mapping from range scans and collisions (spec §4.1, §1.2 steps 2–3).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "common/geometry/geometry.hpp"
#include "common/geometry/pose_frame.hpp"
#include "common/robot/robot_description.hpp"
#include "common/types/control_parameters.hpp"
#include "common/types/navigation.hpp"
#include "common/types/sensing.hpp"
#include "services/mapper/grid_maps.hpp"

namespace limbic::mapper {

// Which cells rule 2 of §4.1 ("cells within radius r_R of the robot get s_o = 0") clears.
enum class RobotDiscRule {
  kCellCentre,   // recommended: cells whose centre is within r_R of the robot (plus the robot's own cell)
  kCellOverlap,  // alternative: every cell the disc of radius r_R overlaps
};

// How long a collision point stays in the obstacle point buffer (the "ObstacleSet"). The danger map keeps
// collision cells for good in both cases.
enum class CollisionPointLifetime {
  kObstacleBuffer,  // recommended: like IR points, for the last n_o cycles
  kPermanent,       // alternative: every collision point of the run stays in the buffer
};

// Which point of a collision marks the danger map (issue 14). §2.4 defines the collision point as a point of
// the obstacle (the segment midpoint, or the midpoint of the segment's intersections with the robot circle)
// and uses it to "mark the danger map". A bumper robot does not know that point: hwio places the contact
// point on the chassis at the closed switches' direction (estimate frame), up to π/n off the true direction
// (n switches) and so up to ~6 cm inside the free space beside the obstacle. With 0.35 m cells that is often
// the free cell next to the obstacle, and at a narrow passage the danger cell then sits inside the passage.
enum class DangerPoint {
  kSurface,  // recommended (§2.4's collision point is on the obstacle): the estimate of the obstacle's surface
             // point in the closed switches' sector, see DangerPointFor
  kContact,  // the contact point as received (the switch position on the chassis); the reading before issue 14
  kSensed,   // only where the range sensors saw the obstacle: the nearest sensed point in the sector, else no
             // danger cell (so an obstacle the sensors cannot see is never marked)
  kSector,   // kSurface, but where the sensors saw no surface in reach: the point of the closed switches' sector
             // (on its arc at the sector's reach) that the evidence leaves possible and lies nearest the switches'
             // direction: the obstacle is not where a beam that cannot have been folded (eq. 4.10) saw free space,
             // nor where the robot's body was in the last cycles. See SectorDangerPoint (issue 14, stop 16)
};

// The option's names, in the enum's order (mapper start-up option and experiment option `danger_point`).
inline const std::vector<std::string> kDangerPointNames = {"surface", "contact", "sensed", "sector"};
// Throws std::invalid_argument naming the choices for anything else.
DangerPoint ParseDangerPoint(const std::string& name);

// Whether collision danger cells are ever cleared (issue 14, stop 16). §4.1 (§5.1.1.2) sets a cell to 1 and never
// clears it; the nearest thing the spec has to forgetting is the mapped emotions' decay γ_2 (Table 8.4: 1e-4 for
// confusion, i.e. a time constant of 10^4 cycles ≈ 17 min at 10 Hz — longer than most traversals), so `none` is
// the spec's reading. A-priori tags (MarkDanger, MarkDangerPolygon, a loaded map) are never cleared.
enum class DangerForget {
  kNone,           // the spec: a danger cell stays for good
  kFreeSpace,      // a collision danger cell that beams which cannot have been folded (eq. 4.10) pass through in
                   // danger_forget_cycles cycles (not necessarily consecutive) is cleared: the robot looked through it.
                   // An obstacle the sensors cannot see (sets F, G) is looked through too: its marks fade as well
  kSeenFreeSpace,  // kFreeSpace for the cells whose every collision the sensors saw (a sensed point in the
                   // switches' sector within reach, DangerPointFor's first rule): the sensors looked through the cell
                   // and they could see what was hit there. Marks of obstacles they cannot see stay
  kBody,  // a collision's danger point that the robot's body later covers (nearer than r_R − 2 cm to its centre)
          // was not on the obstacle: it is dropped, and a cell whose points are all dropped is cleared
};
inline const std::vector<std::string> kDangerForgetNames = {"none", "free_space", "seen_free_space", "body"};
DangerForget ParseDangerForget(const std::string& name);

struct MapperOptions {
  double robot_radius = robot::RobotDescription{}.body.circumscribed_radius();  // r_R (m), rule 2 of §4.1
  double initial_p_o = kInitialOccupancy;                                       // p_o of unexplored cells
  RobotDiscRule robot_disc = RobotDiscRule::kCellCentre;
  CollisionPointLifetime collision_points = CollisionPointLifetime::kObstacleBuffer;
  // A collision contact point is a detected obstacle point: its cell gets s_o = 1 (rule 3) this cycle.
  // false: collision points only mark the danger map and enter the obstacle buffer.
  bool collision_marks_occupied = true;
  // Cycles of history kept so that a live increase of n_o (efficiency drive 7 → 1 and back) shows points
  // that are already old; n_o is clamped to [1, max_buffer_cycles].
  int max_buffer_cycles = 16;
  DangerPoint danger_point = DangerPoint::kSurface;
  // Bumper switches evenly spaced around the chassis (§2.4: 8, every 45°): a closed switch says the contact lies
  // within ±π/bumper_switches of its direction. Only DangerPoint::kSurface and kSensed read it.
  int bumper_switches = 8;
  DangerForget danger_forget = DangerForget::kNone;
  int danger_forget_cycles = 50;  // kFreeSpace: cycles of looking through a danger cell before it is cleared
  int body_history_cycles = 50;   // DangerPoint::kSector: past robot positions whose disc rules points out
  double period_s = 0.1;          // T (s): kSector's reach adds the distance the body moved into the contact
};

// Everything the mapper needs for one cycle.
struct MapperInputs {
  int64_t tick = 0;
  geometry::Pose2 pose;      // estimated robot pose (odometry), world frame
  RangeScan scan;            // median-filtered beams in the robot frame
  CollisionEvent collision;  // contact_point in the world frame
  ControlParameters params;  // reads eps_1, eps_2, eps_3 and n_o
};

struct MapperOutputs {
  MapUpdateStats stats;                         // updated cells (s_o, p_o before), mean p_e, density (eq. 8.9)
  MapPatch patch;                               // every cell changed since the previous Update
  std::vector<geometry::Vec2> obstacle_points;  // ObstacleSet: IR points of the last n_o cycles + collision points
};

// All mutable state of the mapper (replayable and comparable).
struct MapperState {
  int64_t tick = -1;  // tick of the last Update; -1 before the first (the initial maps)
  GridMaps maps;
  // IR and collision points of the most recent cycles, oldest first (at most max_buffer_cycles entries).
  std::vector<std::vector<geometry::Vec2>> point_history;
  // Per point_history entry: how many of its points (the leading ones) are range-sensor points; the rest are
  // collision points (DangerPoint::kSurface looks for the sensed ones only).
  std::vector<size_t> sensed_in_history;
  std::vector<geometry::Vec2> permanent_collision_points;  // CollisionPointLifetime::kPermanent only
  // Forgetting (DangerForget): per cell, where a collision set the danger bit and no tag did (only those may be
  // cleared): 2 while every collision there had a sensed surface, else 1 and the cycles a beam looked through it
  // (kFreeSpace); the danger points still standing (kBody).
  std::vector<uint8_t> danger_from_collision;
  std::vector<uint16_t> danger_seen_free;
  struct DangerMark {
    int cell = 0;
    geometry::Vec2 point{0, 0};
    bool operator==(const DangerMark&) const = default;
  };
  std::vector<DangerMark> danger_marks;
  std::vector<geometry::Vec2> past_positions;  // robot positions of the last body_history_cycles cycles, oldest first
  std::vector<uint8_t> dirty;                  // per cell: changed since the last patch
  std::vector<int> dirty_cells;                // indices with dirty = 1, unordered
  bool operator==(const MapperState&) const = default;
};

// Builds and maintains the grid maps of §4.1.
// Inputs (per cycle): pose estimate, filtered RangeScan, CollisionEvent, ControlParameters (ε_1, ε_2, ε_3, n_o).
// Outputs: MapUpdateStats, a MapPatch, the obstacle point buffer.
// Implements: the s_o rules 1–3 of §4.1, eq. 5.1 (ε_1 for decreases, ε_2 for increases) on flagged cells
// only, eq. 5.2 on every updated cell, danger = 1 at collision points, eq. 8.9 (density) and the mean p_e
// of eq. 8.10. Cells traversed by a beam are found with an exact grid traversal (TraverseCells).
class OccupancyMapper {
 public:
  OccupancyMapper(const geometry::GridSpec& spec, const MapperOptions& options = {});

  // Throws std::invalid_argument unless inputs.tick is greater than the previous Update's tick.
  // Never lets a non-finite or out-of-range value into the maps or the outputs (issue 15, item 1): a
  // non-finite input skips the cycle; a cycle whose result is not finite or not in [0, 1] is rolled back
  // (the last good state; a cell that held a bad value before the cycle, with no good value to go back
  // to, returns to unexplored). Either way the cycle still answers — no updated cells, the obstacle
  // buffer as it was, a patch of the cells changed since the last good one (repairs included) — and
  // fault() says why, so the service can report itself degraded. fault() is "" after a good cycle.
  MapperOutputs Update(const MapperInputs& inputs);
  const std::string& fault() const { return fault_; }

  // Replaces the maps (a pre-built map, §6.4 "with a pre-built map"); every cell goes into the next patch.
  // Throws std::invalid_argument if the maps' spec differs from the mapper's.
  void LoadMaps(const GridMaps& maps);
  // Back to the initial maps (a new run); clears the obstacle buffer. Every cell goes into the next patch.
  void Reset();

  // A-priori danger tags (Ch. 7.6 / 9.1.6: cells of undetectable obstacles). Off-grid parts are ignored.
  void MarkDanger(const geometry::Vec2& point);
  // Every cell a polygon's boundary crosses or whose centre lies inside it.
  void MarkDangerPolygon(const std::vector<geometry::Vec2>& vertices);

  MapSnapshot Snapshot() const { return {state_.tick, state_.maps}; }
  const GridMaps& maps() const { return state_.maps; }
  const MapperState& state() const { return state_; }
  const MapperOptions& options() const { return options_; }

 private:
  friend struct OccupancyMapperTestPeer;  // test seam (testing/occupancy_mapper_peer.hpp): poisons the state

  void MarkDirty(int index);
  void SetDangerBit(int index);
  // An a-priori tag: the bit, never cleared by DangerForget.
  void SetDanger(int index);
  // Collision danger: SetDanger, remembered as clearable (DangerForget) with the point that set it.
  void SetCollisionDanger(int index, const geometry::Vec2& point, bool sensed_surface);
  // DangerForget after a good cycle; `looked_through`: cells beams that cannot be folded crossed this cycle.
  void Forget(const geometry::Vec2& robot, const std::vector<int>& looked_through);
  void ClearDanger(int index);
  // The outputs of a cycle once the maps are final: the obstacle buffer (with `cycle_points` pushed
  // unless null: a refused cycle leaves the buffer as it was), the patch, and the tick advanced.
  // `sensed_points`: how many leading points of `cycle_points` the range sensors saw.
  MapperOutputs Finish(const MapperInputs& in, std::vector<geometry::Vec2>* cycle_points, MapUpdateStats stats,
                       size_t sensed_points = 0);
  // Undoes the cycle's cell changes (undo_) and resets any cell still non-finite or out of range to
  // its initial value. Returns the number of cells so reset.
  int RollBack();

  MapperOptions options_;
  MapperState state_;
  // Scratch (not state): per-cell s_o flag of the current cycle (-1 = not flagged) and the flagged list.
  std::vector<int8_t> s_o_;
  std::vector<int> flagged_;
  // Undo log of the current cycle (scratch): each changed cell's values before its first change, so a
  // refused cycle costs O(cells changed), not a copy of the grid per cycle.
  std::vector<CellPatch> undo_;
  // The danger sites before the cycle's first site change (scratch): restored when the cycle is rolled back.
  std::optional<std::vector<DangerSite>> sites_before_;
  std::string fault_;
};

// Where a collision marks the danger map (DangerPoint; world frame), or nothing. `contact` is the contact point
// hwio placed on the chassis (radius r_R, direction of the closed switches), `sensed` the range-sensor points
// of the recent cycles (from the obstacle buffer's history, this cycle included; collision points left out).
// kSurface: the nearest sensed point in the contact's sector (within ±π/n of its direction, n =
//   bumper_switches) no further from the robot than the sector's reach below: the obstacle's surface as the
//   sensors saw it. Else (an obstacle the sensors do not see, §3.1 limited_visibility) the contact pushed
//   outward along its ray to the sector's reach, (r_R + 0.01)/cos(π/n) (a contact already further out stays): a flat
//   face touching the chassis anywhere in the sector crosses the ray no further out than r_R/cos(π/n), and the
//   collision response (§2.2 item 7) put the robot 1 cm back from it, so this point lies on or beyond the face — in the
//   obstacle, not in the free space beside it (for 8 switches 3.9 cm beyond the chassis).
// kContact: `contact`. kSensed: the sensed point of kSurface, else nothing.
std::optional<geometry::Vec2> DangerPointFor(const MapperOptions& options, const geometry::Pose2& pose,
                                             const geometry::Vec2& contact, const std::vector<geometry::Vec2>& sensed);

// DangerPoint::kSector's estimate (world frame). The sector: ±π/n about the contact's direction (n =
// bumper_switches): one closed switch's sector; for two adjacent switches, hwio's contact lies on their common
// boundary and ±π/n spans the two switch directions, between which the contact lies.
// `beams`: this cycle's scan (robot frame); `past_positions`: where the robot's centre was in recent cycles.
// 1. A sensed point in the sector within reach (kSurface's rule): the nearest.
// 2. Else candidates every 0.5° on the sector's arc at reach (r_R + 0.01 + |speed_before|·T)/cos(π/n): as in
//    DangerPointFor, plus the step the body made into the contact — the simulator (§2.2 item 7) rejects the
//    pose that touched and restores the previous one, so the surface lies up to v·T further out than the
//    restored chassis (G-10, tick 1254: 6.4 cm at 0.64 m/s, more than the 3.9 cm kSurface pushes). A candidate is ruled
//    out by a beam whose free stretch passes within 1 cm of it — free stretch: to d_max for a beam with no reading, to
//    the reading when that reading cannot be a dead-zone fold (eq. 4.10 maps an obstacle at t < d_min to d_min + (d_min
//    − t)(d_max − d_min), so a reading up to d_min·(1 + d_max − d_min) may hide an obstacle at the chassis: no free
//    stretch) — or by a past position nearer than r_R − 2 cm (the body was there; the collision response lets it
//    overlap an obstacle by < 1 cm). If the beams rule out every candidate, the obstacle is one the sensors cannot see
//    (§3.1 limited visibility): the beams say nothing about it and only the body's evidence counts.
// 3. The remaining candidate nearest the switches' direction (the sector's centre on a tie, then the lower
//    bearing); if none remains, kSurface's pushed point.
geometry::Vec2 SectorDangerPoint(const MapperOptions& options, const geometry::Pose2& pose,
                                 const geometry::Vec2& contact, double speed_before,
                                 const std::vector<geometry::Vec2>& sensed, const std::vector<RangeBeam>& beams,
                                 const std::vector<geometry::Vec2>& past_positions);

// The world-frame obstacle point of a valid beam seen from `pose`. The PoseFrame form, for a scan's beams,
// evaluates the pose's rotation once (same bits).
geometry::Vec2 BeamHitPoint(const geometry::Pose2& pose, const RangeBeam& beam);
geometry::Vec2 BeamHitPoint(const geometry::PoseFrame& frame, const RangeBeam& beam);

// Eq. 8.9: Σ p_e·p_o / Σ p_e over all cells; 0 when Σ p_e = 0 (nothing explored yet).
double MapDensity(const GridMaps& maps);
// Mean p_e over all cells (the numerator of eq. 8.10).
double MeanExploration(const GridMaps& maps);

// The sums behind eqs. 8.9 and 8.10 in one pass, plus Σ p_o: a checksum of the whole grid for free —
// a non-finite p_o or p_e anywhere makes a sum non-finite (0·inf is NaN too). Bit-identical to
// MapDensity and MeanExploration (same terms, same order).
struct MapSums {
  double p_e = 0.0;      // Σ p_e
  double p_e_p_o = 0.0;  // Σ p_e·p_o
  double p_o = 0.0;      // Σ p_o
  size_t cells = 0;
  static MapSums Of(const GridMaps& maps);
  bool Finite() const;
  double Density() const { return p_e > 0.0 ? p_e_p_o / p_e : 0.0; }  // eq. 8.9
  double MeanExploration() const { return cells ? p_e / static_cast<double>(cells) : 0.0; }
};

}  // namespace limbic::mapper
