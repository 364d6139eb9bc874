#include "services/mapper/occupancy_mapper.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#include "common/types/option_names.hpp"

namespace limbic::mapper {

using geometry::Cell;
using geometry::GridSpec;
using geometry::Vec2;

namespace {

constexpr int8_t kNotFlagged = -1;

// Points strictly inside a polygon (even-odd rule).
bool InsidePolygon(const Vec2& p, const std::vector<Vec2>& v) {
  bool inside = false;
  for (size_t i = 0, j = v.size() - 1; i < v.size(); j = i++) {
    if ((v[i].y() > p.y()) != (v[j].y() > p.y())) {
      const double x = v[j].x() + (p.y() - v[j].y()) * (v[i].x() - v[j].x()) / (v[i].y() - v[j].y());
      if (p.x() < x) inside = !inside;
    }
  }
  return inside;
}

}  // namespace

DangerPoint ParseDangerPoint(const std::string& name) {
  return types::EnumFromName<DangerPoint>(kDangerPointNames, name, "danger_point");
}

DangerForget ParseDangerForget(const std::string& name) {
  return types::EnumFromName<DangerForget>(kDangerForgetNames, name, "danger_forget");
}

namespace {

// How far a beam's reading proves free space (see SectorDangerPoint): d_max without a reading; the reading when
// it exceeds the longest dead-zone fold d_min + d_min·(d_max − d_min) of eq. 4.10; else nothing.
double ProvenFreeLength(const RangeBeam& beam) {
  if (!beam.valid) return beam.d_max;
  const double longest_fold = beam.d_min + beam.d_min * (beam.d_max - beam.d_min);
  return beam.range > longest_fold ? beam.range : 0.0;
}

constexpr double kBeamWidth = 0.01;   // m: a candidate this close to a free stretch is ruled out
constexpr double kBodyMargin = 0.02;  // m: the body rules out points nearer than r_R − this to its centre

}  // namespace

Vec2 SectorDangerPoint(const MapperOptions& options, const geometry::Pose2& pose, const Vec2& contact,
                       double speed_before, const std::vector<Vec2>& sensed, const std::vector<RangeBeam>& beams,
                       const std::vector<Vec2>& past_positions) {
  MapperOptions sensed_only = options;
  sensed_only.danger_point = DangerPoint::kSensed;
  // Step 1: a surface the sensors saw in the sector within reach.
  if (const std::optional<Vec2> seen = DangerPointFor(sensed_only, pose, contact, sensed)) return *seen;
  MapperOptions surface = options;
  surface.danger_point = DangerPoint::kSurface;
  const Vec2 fallback = *DangerPointFor(surface, pose, contact, sensed);  // kSurface always gives a point
  const Vec2 robot = pose.Position();
  const Vec2 offset = contact - robot;
  const double half_sector = geometry::kPi / std::max(1, options.bumper_switches);
  const double cos_half = std::cos(std::min(half_sector, 0.5 * geometry::kPi - 1e-6));
  const double step = std::isfinite(speed_before) ? std::abs(speed_before) * options.period_s : 0.0;
  const double reach = (options.robot_radius + 0.01 + step) / cos_half;
  if (!(offset.norm() > 1e-9) || offset.norm() > reach) return fallback;  // no direction; a contact further out
  // Step 2: candidates on the arc, every 0.5°, ordered by their distance from the switches' direction.
  const double centre = std::atan2(offset.y(), offset.x());
  const int steps = std::max(1, static_cast<int>(std::floor(half_sector / (0.5 * geometry::kPi / 180.0))));
  std::vector<Vec2> candidates;
  candidates.reserve(static_cast<size_t>(2 * steps + 1));
  candidates.push_back(robot + reach * geometry::UnitVector(centre));
  for (int k = 1; k <= steps; ++k) {
    const double delta = half_sector * k / steps;
    candidates.push_back(robot + reach * geometry::UnitVector(centre - delta));
    candidates.push_back(robot + reach * geometry::UnitVector(centre + delta));
  }
  auto seen_free = [&](const Vec2& pt) {
    for (const RangeBeam& beam : beams) {
      const double free_length = ProvenFreeLength(beam);
      if (free_length <= 0.0) continue;
      const Vec2 origin = pose.ToWorld(beam.origin_local);
      const Vec2 dir = geometry::UnitVector(pose.theta + beam.angle_local);
      const Vec2 d = pt - origin;
      const double t = d.dot(dir);
      if (t <= 0.0 || t >= free_length) continue;
      if (std::abs(dir.x() * d.y() - dir.y() * d.x()) < kBeamWidth) return true;
    }
    return false;
  };
  auto body_was_there = [&](const Vec2& pt) {
    const double r = options.robot_radius - kBodyMargin;
    for (const Vec2& past : past_positions) {
      if ((pt - past).squaredNorm() < r * r) return true;
    }
    return false;
  };
  std::vector<uint8_t> by_beams(candidates.size());
  bool all_by_beams = true;
  for (size_t i = 0; i < candidates.size(); ++i) {
    by_beams[i] = seen_free(candidates[i]);
    all_by_beams = all_by_beams && by_beams[i];
  }
  // Step 3: the first candidate left (beams ignored if they rule out all: an obstacle they cannot see).
  for (size_t i = 0; i < candidates.size(); ++i) {
    if (by_beams[i] && !all_by_beams) continue;
    if (body_was_there(candidates[i])) continue;
    return candidates[i];
  }
  return fallback;
}

std::optional<Vec2> DangerPointFor(const MapperOptions& options, const geometry::Pose2& pose, const Vec2& contact,
                                   const std::vector<Vec2>& sensed) {
  if (options.danger_point == DangerPoint::kContact) return contact;
  const Vec2 robot = pose.Position();
  const Vec2 offset = contact - robot;
  if (!(offset.norm() > 1e-9))
    return options.danger_point != DangerPoint::kSensed ? std::optional<Vec2>(contact) : std::nullopt;
  const Vec2 direction = offset.normalized();
  const double half_sector = geometry::kPi / std::max(1, options.bumper_switches);
  const double cos_half = std::cos(std::min(half_sector, 0.5 * geometry::kPi - 1e-6));
  const double reach = (options.robot_radius + 0.01) / cos_half;  // see the header: 1 cm = §2.2 item 7's shift
  // The nearest sensed point in the sector within reach (first found on a tie: cycles oldest first).
  std::optional<Vec2> nearest;
  double nearest_distance = reach;
  for (const Vec2& pt : sensed) {
    const Vec2 d = pt - robot;
    const double distance = d.norm();
    if (!(distance <= nearest_distance) || distance < 1e-9) continue;
    if (d.dot(direction) < distance * std::cos(half_sector)) continue;  // outside the sector
    if (nearest && distance == nearest_distance) continue;
    nearest = pt;
    nearest_distance = distance;
  }
  if (nearest || options.danger_point == DangerPoint::kSensed) return nearest;
  return robot + std::max(offset.norm(), reach) * direction;  // pushed outward, never pulled in
}

Vec2 BeamHitPoint(const geometry::Pose2& pose, const RangeBeam& beam) {
  return BeamHitPoint(geometry::PoseFrame(pose), beam);
}

Vec2 BeamHitPoint(const geometry::PoseFrame& frame, const RangeBeam& beam) {
  const Vec2 origin = frame.ToWorld(beam.origin_local);
  return origin + beam.range * geometry::UnitVector(frame.pose.theta + beam.angle_local);
}

double MapDensity(const GridMaps& maps) {
  double num = 0.0, den = 0.0;
  for (size_t i = 0; i < maps.p_e.size(); ++i) {
    num += maps.p_e[i] * maps.p_o[i];
    den += maps.p_e[i];
  }
  return den > 0.0 ? num / den : 0.0;
}

double MeanExploration(const GridMaps& maps) {
  if (maps.p_e.empty()) return 0.0;
  double sum = 0.0;
  for (double p : maps.p_e) sum += p;
  return sum / static_cast<double>(maps.p_e.size());
}

MapSums MapSums::Of(const GridMaps& maps) {
  MapSums sums;
  sums.cells = maps.p_e.size();
  for (size_t i = 0; i < maps.p_e.size(); ++i) {
    sums.p_e_p_o += maps.p_e[i] * maps.p_o[i];
    sums.p_e += maps.p_e[i];
    sums.p_o += maps.p_o[i];
  }
  return sums;
}

bool MapSums::Finite() const { return std::isfinite(p_e) && std::isfinite(p_e_p_o) && std::isfinite(p_o); }

namespace {

bool InUnitRange(double v) { return v >= 0.0 && v <= 1.0; }  // false for NaN

// The first non-finite value among the inputs the mapper integrates, named; "" if all are finite.
// (The bus already refuses such messages; this keeps the library safe on its own: a NaN position
// would otherwise reach the float-to-int conversion of the grid traversal.)
std::string NonFiniteInput(const MapperInputs& in) {
  auto bad = [](double v) { return !std::isfinite(v); };
  if (bad(in.pose.x) || bad(in.pose.y) || bad(in.pose.theta)) return "pose";
  for (const RangeBeam& b : in.scan.beams) {
    if (bad(b.origin_local.x()) || bad(b.origin_local.y()) || bad(b.angle_local) || bad(b.d_max) ||
        (b.valid && bad(b.range))) {
      return "scan";
    }
  }
  if (in.collision.occurred && (bad(in.collision.contact_point.x()) || bad(in.collision.contact_point.y()))) {
    return "collision.contact_point";
  }
  return "";
}

}  // namespace

OccupancyMapper::OccupancyMapper(const GridSpec& spec, const MapperOptions& options) : options_(options) {
  if (options_.max_buffer_cycles < 1) throw std::invalid_argument("MapperOptions: max_buffer_cycles must be >= 1");
  if (options_.bumper_switches < 1) throw std::invalid_argument("MapperOptions: bumper_switches must be >= 1");
  if (options_.danger_forget_cycles < 1 || options_.danger_forget_cycles > 65535) {
    throw std::invalid_argument("MapperOptions: danger_forget_cycles must be in [1, 65535]");
  }
  if (options_.body_history_cycles < 0) throw std::invalid_argument("MapperOptions: body_history_cycles must be >= 0");
  state_.maps = GridMaps::Initial(spec, options_.initial_p_o);
  state_.danger_from_collision.assign(static_cast<size_t>(spec.CellCount()), 0);
  state_.danger_seen_free.assign(static_cast<size_t>(spec.CellCount()), 0);
  state_.dirty.assign(static_cast<size_t>(spec.CellCount()), 0);
  s_o_.assign(static_cast<size_t>(spec.CellCount()), kNotFlagged);
}

void OccupancyMapper::MarkDirty(int index) {
  if (!state_.dirty[index]) {
    state_.dirty[index] = 1;
    state_.dirty_cells.push_back(index);
  }
}

void OccupancyMapper::SetDangerBit(int index) {
  if (!state_.maps.danger[index]) {
    undo_.push_back({index, state_.maps.p_o[index], state_.maps.p_e[index], state_.maps.danger[index]});
    state_.maps.danger[index] = 1;
    MarkDirty(index);
  }
}

void OccupancyMapper::SetCollisionDanger(int index, const Vec2& point, bool sensed_surface) {
  const uint8_t source = sensed_surface ? 2 : 1;
  if (!state_.maps.danger[index]) {
    SetDangerBit(index);
    state_.danger_from_collision[index] = source;
  } else if (state_.danger_from_collision[index]) {
    state_.danger_from_collision[index] = std::min(state_.danger_from_collision[index], source);
  }
  // The cell's site follows its latest collision (a cell tagged a priori keeps none: the tag stands for the cell).
  if (state_.danger_from_collision[index]) {
    if (!sites_before_) sites_before_ = state_.maps.danger_sites;
    state_.maps.SetSite(index, point);
    MarkDirty(index);
  }
  if (state_.danger_from_collision[index] && options_.danger_forget == DangerForget::kBody) {
    state_.danger_marks.push_back({index, point});
  }
}

void OccupancyMapper::ClearDanger(int index) {
  state_.maps.danger[index] = 0;
  state_.maps.EraseSite(index);
  state_.danger_from_collision[index] = 0;
  state_.danger_seen_free[index] = 0;
  MarkDirty(index);
}

void OccupancyMapper::Forget(const Vec2& robot, const std::vector<int>& looked_through) {
  if (options_.danger_forget == DangerForget::kFreeSpace || options_.danger_forget == DangerForget::kSeenFreeSpace) {
    const uint8_t needs = options_.danger_forget == DangerForget::kSeenFreeSpace ? 2 : 1;
    for (int i : looked_through) {  // each cell once (the caller deduplicates)
      if (state_.danger_from_collision[i] < needs || !state_.maps.danger[i]) continue;
      if (++state_.danger_seen_free[i] >= options_.danger_forget_cycles) ClearDanger(i);
    }
  } else if (options_.danger_forget == DangerForget::kBody) {
    const double r = options_.robot_radius - kBodyMargin;
    std::vector<int> emptied;
    auto& marks = state_.danger_marks;
    for (size_t k = 0; k < marks.size();) {
      if ((marks[k].point - robot).squaredNorm() < r * r) {
        emptied.push_back(marks[k].cell);
        marks.erase(marks.begin() + static_cast<long>(k));
      } else {
        ++k;
      }
    }
    for (int cell : emptied) {
      const bool standing =
          std::any_of(marks.begin(), marks.end(), [cell](const MapperState::DangerMark& m) { return m.cell == cell; });
      if (!standing && state_.danger_from_collision[cell] && state_.maps.danger[cell]) ClearDanger(cell);
    }
  }
}

void OccupancyMapper::LoadMaps(const GridMaps& maps) {
  maps.Validate();
  if (!(maps.spec == state_.maps.spec)) throw std::invalid_argument("OccupancyMapper::LoadMaps: grid spec differs");
  state_.maps = maps;
  // A loaded map's danger cells are a-priori knowledge: never forgotten.
  std::fill(state_.danger_from_collision.begin(), state_.danger_from_collision.end(), 0);
  std::fill(state_.danger_seen_free.begin(), state_.danger_seen_free.end(), 0);
  state_.danger_marks.clear();
  for (int i = 0; i < maps.CellCount(); ++i) MarkDirty(i);
}

void OccupancyMapper::Reset() {
  state_.maps = GridMaps::Initial(state_.maps.spec, options_.initial_p_o);
  state_.point_history.clear();
  state_.sensed_in_history.clear();
  state_.permanent_collision_points.clear();
  std::fill(state_.danger_from_collision.begin(), state_.danger_from_collision.end(), 0);
  std::fill(state_.danger_seen_free.begin(), state_.danger_seen_free.end(), 0);
  state_.danger_marks.clear();
  state_.past_positions.clear();
  for (int i = 0; i < state_.maps.CellCount(); ++i) MarkDirty(i);
}

void OccupancyMapper::MarkDanger(const Vec2& point) {
  const Cell c = state_.maps.spec.CellOf(point);
  if (state_.maps.spec.Contains(c)) SetDanger(state_.maps.spec.Index(c));
}

void OccupancyMapper::SetDanger(int index) {
  SetDangerBit(index);
  state_.danger_from_collision[index] = 0;  // a tag: never cleared (SetCollisionDanger sets it back if it set the bit)
  state_.danger_seen_free[index] = 0;
  if (state_.maps.SiteOf(index) != nullptr) {
    state_.maps.EraseSite(index);
    MarkDirty(index);
  }
}

void OccupancyMapper::MarkDangerPolygon(const std::vector<Vec2>& vertices) {
  if (vertices.empty()) return;
  const GridSpec& spec = state_.maps.spec;
  for (size_t i = 0; i < vertices.size(); ++i) {
    const Vec2& a = vertices[i];
    const Vec2& b = vertices[(i + 1) % vertices.size()];
    geometry::TraverseCells(spec, a, b, [&](const Cell& c) { SetDanger(spec.Index(c)); });
  }
  if (vertices.size() < 3) return;
  for (int i = 0; i < spec.CellCount(); ++i) {
    if (InsidePolygon(spec.Center(spec.CellOfIndex(i)), vertices)) SetDanger(i);
  }
}

MapperOutputs OccupancyMapper::Update(const MapperInputs& in) {
  const GridSpec& spec = state_.maps.spec;
  GridMaps& maps = state_.maps;
  const ControlParameters& p = in.params;
  ValidateParameters(p);  // n_o sizes the obstacle buffer: refused before the state changes
  MapperOutputs out;
  if (in.tick <= state_.tick) {
    throw std::invalid_argument("OccupancyMapper::Update: tick " + std::to_string(in.tick) +
                                " is not after the previous tick " + std::to_string(state_.tick));
  }
  undo_.clear();
  sites_before_.reset();
  if (const std::string what = NonFiniteInput(in); !what.empty()) {
    fault_ = "input " + what + " not finite: cycle skipped";
    const MapSums sums = MapSums::Of(maps);
    return Finish(in, nullptr, {{}, sums.MeanExploration(), sums.Density()});
  }
  const size_t permanent_before = state_.permanent_collision_points.size();
  const size_t marks_before = state_.danger_marks.size();

  // Flag a cell with its instantaneous status; s_o = 1 overrides s_o = 0 (rule 3).
  auto flag = [&](int index, int8_t s_o) {
    if (s_o_[index] == kNotFlagged) flagged_.push_back(index);
    if (s_o_[index] < s_o) s_o_[index] = s_o;
  };

  // Points detected this cycle (world frame), for rule 3 and the obstacle buffer: the range-sensor points first,
  // then the collision point if any.
  std::vector<Vec2> cycle_points;
  cycle_points.reserve(in.scan.beams.size() + 1);

  // Rule 1: cells traversed by each beam, from its origin to the hit (valid) or to d_max, get s_o = 0.
  const geometry::PoseFrame frame(in.pose);  // the pose's cos and sin once for all beams
  for (const RangeBeam& beam : in.scan.beams) {
    const Vec2 origin = frame.ToWorld(beam.origin_local);
    const double length = beam.valid ? beam.range : beam.d_max;
    const Vec2 end = origin + length * geometry::UnitVector(in.pose.theta + beam.angle_local);
    geometry::TraverseCells(spec, origin, end, [&](const Cell& c) { flag(spec.Index(c), 0); });
    if (beam.valid) cycle_points.push_back(end);
  }

  // DangerForget::kFreeSpace: the cells this cycle's beams looked through — their proven-free stretch (a reading
  // that may be a dead-zone fold proves nothing), the cell of the reading itself left out.
  std::vector<int> looked_through;
  if (options_.danger_forget == DangerForget::kFreeSpace || options_.danger_forget == DangerForget::kSeenFreeSpace) {
    for (const RangeBeam& beam : in.scan.beams) {
      const double length = ProvenFreeLength(beam);
      if (length <= 0.0) continue;
      const Vec2 origin = frame.ToWorld(beam.origin_local);
      const Vec2 end = origin + length * geometry::UnitVector(in.pose.theta + beam.angle_local);
      const Cell end_cell = spec.CellOf(end);
      geometry::TraverseCells(spec, origin, end, [&](const Cell& c) {
        const int i = spec.Index(c);
        if (maps.danger[i] && state_.danger_from_collision[i] && !(beam.valid && c == end_cell)) {
          looked_through.push_back(i);
        }
      });
    }
    std::sort(looked_through.begin(), looked_through.end());
    looked_through.erase(std::unique(looked_through.begin(), looked_through.end()), looked_through.end());
  }

  const size_t sensed_this_cycle = cycle_points.size();

  // Rule 2: cells within r_R of the robot get s_o = 0.
  const Vec2 robot = in.pose.Position();
  const double r = options_.robot_radius;
  const Cell robot_cell = spec.CellOf(robot);
  if (spec.Contains(robot_cell)) flag(spec.Index(robot_cell), 0);
  const int reach = static_cast<int>(std::ceil(r / spec.resolution)) + 1;
  for (int dy = -reach; dy <= reach; ++dy) {
    for (int dx = -reach; dx <= reach; ++dx) {
      const Cell c{robot_cell.ix + dx, robot_cell.iy + dy};
      if (!spec.Contains(c)) continue;
      double d;
      if (options_.robot_disc == RobotDiscRule::kCellCentre) {
        d = (spec.Center(c) - robot).norm();
      } else {  // distance from the robot to the nearest point of the cell
        const Vec2 lo = spec.origin + Vec2(c.ix * spec.resolution, c.iy * spec.resolution);
        const Vec2 hi = lo + Vec2(spec.resolution, spec.resolution);
        const Vec2 nearest(std::clamp(robot.x(), lo.x(), hi.x()), std::clamp(robot.y(), lo.y(), hi.y()));
        d = (nearest - robot).norm();
      }
      if (d <= r) flag(spec.Index(c), 0);
    }
  }

  // Collision: danger map, obstacle buffer and (optionally) rule 3.
  if (in.collision.occurred) {
    const Vec2& cp = in.collision.contact_point;
    std::vector<Vec2> sensed = cycle_points;  // this cycle's range-sensor points (no collision point yet)
    if (options_.danger_point != DangerPoint::kContact) {
      for (size_t k = 0; k < state_.point_history.size(); ++k) {
        const auto& cycle = state_.point_history[k];
        sensed.insert(sensed.end(), cycle.begin(), cycle.begin() + static_cast<long>(state_.sensed_in_history[k]));
      }
    }
    std::optional<Vec2> danger;
    if (options_.danger_point == DangerPoint::kSector) {
      danger = SectorDangerPoint(options_, in.pose, cp, in.collision.speed_before, sensed, in.scan.beams,
                                 state_.past_positions);
    } else {
      danger = DangerPointFor(options_, in.pose, cp, sensed);
    }
    if (danger) {
      const Cell c = spec.CellOf(*danger);
      MapperOptions sensed_only = options_;
      sensed_only.danger_point = DangerPoint::kSensed;
      const bool sensed_surface = DangerPointFor(sensed_only, in.pose, cp, sensed).has_value();
      if (spec.Contains(c)) SetCollisionDanger(spec.Index(c), *danger, sensed_surface);
    }
    if (options_.collision_points == CollisionPointLifetime::kPermanent) {
      state_.permanent_collision_points.push_back(cp);
    }
  }

  // Rule 3: cells containing a detected obstacle point get s_o = 1.
  for (const Vec2& pt : cycle_points) {
    const Cell c = spec.CellOf(pt);
    if (spec.Contains(c)) flag(spec.Index(c), 1);
  }
  if (in.collision.occurred && options_.collision_marks_occupied) {
    const Cell c = spec.CellOf(in.collision.contact_point);
    if (spec.Contains(c)) flag(spec.Index(c), 1);
  }
  if (in.collision.occurred && options_.collision_points == CollisionPointLifetime::kObstacleBuffer) {
    cycle_points.push_back(in.collision.contact_point);
  }

  // Eq. 5.1 on flagged cells and eq. 5.2 on every updated cell, in ascending index order.
  std::sort(flagged_.begin(), flagged_.end());
  out.stats.updated_cells.reserve(flagged_.size());
  for (int i : flagged_) {
    const double s_o = s_o_[i];
    const double before = maps.p_o[i];
    undo_.push_back({i, before, maps.p_e[i], maps.danger[i]});
    const double eps = s_o < before ? p.eps_1 : p.eps_2;  // ε_1 for decreases, ε_2 for increases
    maps.p_o[i] = eps * s_o + (1.0 - eps) * before;
    maps.p_e[i] = p.eps_3 + (1.0 - p.eps_3) * maps.p_e[i];
    out.stats.updated_cells.push_back({i, s_o, before});
    s_o_[i] = kNotFlagged;
    MarkDirty(i);
  }
  flagged_.clear();

  // Issue 15, item 1: the state that feeds the outputs is checked after the cycle — the cells it changed
  // (finite, in [0, 1]), the whole grid through its sums (computed for eqs. 8.9–8.10 anyway, so the
  // check costs no extra pass), and the points that enter the obstacle buffer.
  const MapSums sums = MapSums::Of(maps);
  std::string why;
  for (const CellPatch& u : undo_) {
    if (!InUnitRange(maps.p_o[u.index]) || !InUnitRange(maps.p_e[u.index]) || maps.danger[u.index] > 1) {
      why = "cell " + std::to_string(u.index) + " not finite or out of [0, 1]";
      break;
    }
  }
  if (why.empty() && !sums.Finite()) why = "map sums not finite";
  for (const Vec2& pt : cycle_points) {
    if (why.empty() && !(std::isfinite(pt.x()) && std::isfinite(pt.y()))) why = "obstacle point not finite";
  }
  if (why.empty() && sites_before_) {
    for (const DangerSite& site : maps.danger_sites) {
      if (!(std::isfinite(site.point.x()) && std::isfinite(site.point.y()))) why = "danger site not finite";
    }
  }
  if (!why.empty()) {
    state_.permanent_collision_points.resize(permanent_before);
    state_.danger_marks.resize(marks_before);
    if (sites_before_) maps.danger_sites = std::move(*sites_before_);
    const int reset = RollBack();
    fault_ = why + ": cycle rolled back" +
             (reset ? ", " + std::to_string(reset) + " bad cell(s) reset to unexplored" : std::string());
    const MapSums good = MapSums::Of(maps);
    return Finish(in, nullptr, {{}, good.MeanExploration(), good.Density()});
  }
  fault_.clear();
  // Forgetting changes only danger bits (0/1): after the check, never rolled back. It leaves p_o and p_e alone, so
  // the statistics below stay those of the cycle's eq. 5.1–5.2 update.
  Forget(robot, looked_through);
  if (options_.danger_point == DangerPoint::kSector && options_.body_history_cycles > 0) {
    auto& past = state_.past_positions;
    past.push_back(robot);
    if (static_cast<int>(past.size()) > options_.body_history_cycles) past.erase(past.begin());
  }
  out.stats.mean_p_e = sums.MeanExploration();
  out.stats.density = sums.Density();
  return Finish(in, &cycle_points, std::move(out.stats), sensed_this_cycle);
}

int OccupancyMapper::RollBack() {
  GridMaps& maps = state_.maps;
  // Newest first, so a cell changed twice (danger, then eq. 5.1) ends at its value before the cycle.
  for (auto it = undo_.rbegin(); it != undo_.rend(); ++it) {
    maps.p_o[it->index] = it->p_o;
    maps.p_e[it->index] = it->p_e;
    maps.danger[it->index] = it->danger;
  }
  undo_.clear();
  // A bad value from before the cycle has no good value to go back to: the cell is unexplored again
  // (the mapper relearns it). A full pass, but only on a violation.
  int reset = 0;
  for (int i = 0; i < maps.CellCount(); ++i) {
    if (InUnitRange(maps.p_o[i]) && InUnitRange(maps.p_e[i]) && maps.danger[i] <= 1) continue;
    maps.p_o[i] = options_.initial_p_o;
    maps.p_e[i] = kInitialExploration;
    if (maps.danger[i] > 1) maps.danger[i] = 1;  // it said danger, if not in the one encoding
    MarkDirty(i);
    ++reset;
  }
  return reset;
}

MapperOutputs OccupancyMapper::Finish(const MapperInputs& in, std::vector<Vec2>* cycle_points, MapUpdateStats stats,
                                      size_t sensed_points) {
  const GridMaps& maps = state_.maps;
  MapperOutputs out;
  out.stats = std::move(stats);

  // Obstacle point buffer (ObstacleSet).
  if (cycle_points != nullptr) {
    state_.sensed_in_history.push_back(std::min(sensed_points, cycle_points->size()));
    state_.point_history.push_back(std::move(*cycle_points));
  }
  const int keep = options_.max_buffer_cycles;
  if (static_cast<int>(state_.point_history.size()) > keep) {
    state_.point_history.erase(state_.point_history.begin(), state_.point_history.end() - keep);
    state_.sensed_in_history.erase(state_.sensed_in_history.begin(), state_.sensed_in_history.end() - keep);
  }
  const int n_o = std::clamp(in.params.n_o, 1, keep);
  const size_t first = state_.point_history.size() > static_cast<size_t>(n_o)
                           ? state_.point_history.size() - static_cast<size_t>(n_o)
                           : 0;
  for (size_t k = first; k < state_.point_history.size(); ++k) {
    out.obstacle_points.insert(out.obstacle_points.end(), state_.point_history[k].begin(),
                               state_.point_history[k].end());
  }
  out.obstacle_points.insert(out.obstacle_points.end(), state_.permanent_collision_points.begin(),
                             state_.permanent_collision_points.end());

  // Patch: every cell changed since the previous Update (this cycle, danger tags, loads, resets and
  // repairs).
  out.patch.base_tick = state_.tick;
  out.patch.tick = in.tick;
  // Usually sorted already: a cycle marks its flagged cells in ascending order, and other changes are rare
  // (issue 18: sorting sorted input was a sort per tick).
  if (!std::is_sorted(state_.dirty_cells.begin(), state_.dirty_cells.end())) {
    std::sort(state_.dirty_cells.begin(), state_.dirty_cells.end());
  }
  out.patch.cells.reserve(state_.dirty_cells.size());
  for (int i : state_.dirty_cells) {
    out.patch.cells.push_back({i, maps.p_o[i], maps.p_e[i], maps.danger[i]});
    if (const DangerSite* site = maps.SiteOf(i)) out.patch.danger_sites.push_back(*site);
    state_.dirty[i] = 0;
  }
  state_.dirty_cells.clear();
  state_.tick = in.tick;
  return out;
}

}  // namespace limbic::mapper
