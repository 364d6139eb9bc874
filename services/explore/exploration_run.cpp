#include "services/explore/exploration_run.hpp"

#include <algorithm>
#include <iomanip>
#include <sstream>
#include <stdexcept>

#include "services/mapper/world_raster.hpp"

namespace limbic::explore {

double DefaultProcessingCells(const std::string& body) {
  if (body == "tank") return 1200;
  if (body == "itchy" || body == "scratchy") return 300;
  return 600;
}

ExplorerProfile ProfileFor(const std::string& robot, const std::string& body, const robot::RobotDescription& d,
                           double processing_cells) {
  ExplorerProfile p;
  p.robot = robot;
  p.body = body;
  p.sensing_range = d.long_range.d_max;
  p.processing_cells = processing_cells;
  p.clearance_radius = d.body.circumscribed_radius();
  p.turning_radius = d.drive.MinTurningRadius();
  return p;
}

std::vector<std::string> SplitList(const std::string& text, const std::string& what) {
  std::vector<std::string> out;
  std::stringstream in(text);
  std::string item;
  while (std::getline(in, item, ',')) {
    const auto b = item.find_first_not_of(' ');
    const auto e = item.find_last_not_of(' ');
    if (b == std::string::npos) throw std::invalid_argument(what + ": empty item in '" + text + "'");
    out.push_back(item.substr(b, e - b + 1));
  }
  if (out.empty()) throw std::invalid_argument(what + ": empty list");
  return out;
}

std::vector<std::string> PerRobot(const std::vector<std::string>& items, size_t robots, const std::string& what) {
  if (items.size() == robots) return items;
  if (items.size() == 1) return std::vector<std::string>(robots, items[0]);
  throw std::invalid_argument(what + ": " + std::to_string(items.size()) + " entries for " + std::to_string(robots) +
                              " robots (give one for all, or one per robot)");
}

std::vector<bool> FreeCells(const GridSpec& grid, const Vec2& min, const Vec2& max,
                            const std::vector<std::vector<Vec2>>& polygons) {
  std::vector<mapper::KnownPolygon> known;
  for (const auto& p : polygons) known.push_back({p, true});
  const mapper::GridMaps raster = mapper::KnownMap(grid, known, true);
  std::vector<bool> free(grid.CellCount(), false);
  for (int i = 0; i < grid.CellCount(); ++i) {
    const Vec2 c = grid.Center(grid.CellOfIndex(i));
    const bool inside = c.x() >= min.x() && c.x() <= max.x() && c.y() >= min.y() && c.y() <= max.y();
    free[i] = inside && raster.p_o[i] < 0.5;
  }
  return free;
}

std::pair<Vec2, Vec2> ArenaInterior(const Vec2& min, const Vec2& max, const std::vector<ArenaWall>& polygons) {
  Vec2 lo = min, hi = max;
  for (const ArenaWall& p : polygons) {
    if (!p.wall || p.vertices.empty()) continue;
    Vec2 b_lo = p.vertices.front(), b_hi = p.vertices.front();
    for (const Vec2& v : p.vertices) {
      b_lo = b_lo.cwiseMin(v);
      b_hi = b_hi.cwiseMax(v);
    }
    for (int axis = 0; axis < 2; ++axis) {
      const int along = 1 - axis;
      if (b_hi[along] - b_lo[along] < 0.5 * (max[along] - min[along])) continue;  // not an outer wall's length
      if (b_lo[axis] <= min[axis] && min[axis] <= b_hi[axis]) lo[axis] = std::max(lo[axis], b_hi[axis]);
      if (b_lo[axis] <= max[axis] && max[axis] <= b_hi[axis]) hi[axis] = std::min(hi[axis], b_lo[axis]);
    }
  }
  return {lo, hi};
}

void RunMeasures::AddSample(const RunSample& sample) {
  if (!samples.empty()) {
    const RunSample& last = samples.back();
    distance.resize(sample.positions.size(), 0.0);
    for (size_t r = 0; r < sample.positions.size() && r < last.positions.size(); ++r) {
      distance[r] += (sample.positions[r] - last.positions[r]).norm();
    }
  } else {
    distance.assign(sample.positions.size(), 0.0);
  }
  if (!time_to_90 && sample.coverage >= 0.9) time_to_90 = sample.time;
  final_coverage = sample.coverage;
  end_time = sample.time;
  samples.push_back(sample);
}

std::string RunCsvHeader() {
  return "run_id,configuration,set,env,seed,robots,bodies,all_done,end_time_s,final_coverage,time_to_90_s,"
         "robot_collisions,world_collisions,tasks_sent,reports_received,maps_received,allocation_changes,"
         "released_early,unreachable_tiles,distance_m,world_collisions_by_robot";
}

std::string RunCsvRow(const std::string& run_id, const std::string& configuration, char set, int env, uint64_t seed,
                      const std::vector<std::string>& bodies, const RunMeasures& m) {
  std::ostringstream out;
  std::string joined;
  for (const auto& b : bodies) joined += (joined.empty() ? "" : "+") + b;
  double distance = 0.0;
  for (double d : m.distance) distance += d;
  out << std::setprecision(10) << run_id << "," << configuration << "," << set << "," << env << "," << seed << ","
      << bodies.size() << "," << joined << "," << (m.all_done ? 1 : 0) << "," << m.end_time << "," << m.final_coverage
      << ",";
  if (m.time_to_90) out << *m.time_to_90;
  out << "," << m.robot_collisions << "," << m.world_collisions << "," << m.tasks_sent << "," << m.reports_received
      << "," << m.maps_received << "," << m.allocation_changes << "," << m.released_early << "," << m.unreachable_tiles
      << "," << distance << ",";
  for (size_t r = 0; r < m.world_collisions_by_robot.size(); ++r)
    out << (r ? "+" : "") << m.world_collisions_by_robot[r];
  return out.str();
}

std::string TraceCsvHeader(size_t robots) {
  std::string h = "run_id,time_s,coverage";
  for (size_t r = 0; r < robots; ++r) h += ",x" + std::to_string(r + 1) + ",y" + std::to_string(r + 1);
  return h;
}

std::string TraceCsvRow(const std::string& run_id, const RunSample& s) {
  std::ostringstream out;
  out << std::setprecision(8) << run_id << "," << s.time << "," << s.coverage;
  for (const Vec2& p : s.positions) out << "," << p.x() << "," << p.y();
  return out.str();
}

}  // namespace limbic::explore
