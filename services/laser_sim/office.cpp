#include "services/laser_sim/office.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>
#include <utility>

namespace limbic::laser {
namespace {

constexpr double kCmPerM = 100.0;
constexpr double kIndexCellM = 1.0;  // broad-phase cells: a 2.5 m beam crosses at most four

geometry::Vec2 ToMetres(Vec2 p) { return {p.x / kCmPerM, p.y / kCmPerM}; }

}  // namespace

OfficeSurroundings::OfficeSurroundings(sim::Environment environment)
    : environment_(std::move(environment)), index_(environment_.objects, kIndexCellM) {}

void OfficeSurroundings::Cast(Vec2 p, std::array<float, kBeams>* ranges, std::array<bool, kBeams>* hit) const {
  const auto& u = BeamUnitVectors();
  const geometry::Vec2 origin = ToMetres(p);
  const double max_m = kMaxRangeCm / kCmPerM;
  std::lock_guard<std::mutex> lock(mutex_);
  for (int a = 0; a < kBeams; ++a) {
    const double d = index_.CastRay(origin, {u[a].x, u[a].y}, max_m, sim::kLongRangeBeamMask);
    const bool met = d <= max_m;
    (*ranges)[a] = static_cast<float>(met ? std::min(kMaxRangeCm, d * kCmPerM) : kMaxRangeCm);
    (*hit)[a] = met;
  }
}

double OfficeSurroundings::Clearance(Vec2 p, double radius, double horizon) const {
  const geometry::Vec2 c = ToMetres(p);
  double nearest_m = (radius + horizon) / kCmPerM;
  std::lock_guard<std::mutex> lock(mutex_);
  index_.ForEachNear(c, nearest_m, sim::kBodyMask, [&](const sim::IndexedSegment& s) {
    nearest_m = std::min(nearest_m, geometry::PointSegmentDistance(c, s.segment));
  });
  return nearest_m * kCmPerM - radius;
}

std::vector<std::vector<Vec2>> OfficeSurroundings::Outlines() const {
  std::vector<std::vector<Vec2>> out;
  for (const sim::WorldObject& o : environment_.objects) {
    if (!(sim::PropertyBit(o.property) & (sim::kBodyMask | sim::kLongRangeBeamMask))) continue;
    std::vector<Vec2>& outline = out.emplace_back();
    for (const geometry::Vec2& v : o.vertices) outline.push_back({v.x() * kCmPerM, v.y() * kCmPerM});
  }
  return out;
}

World OfficeLaserWorld(char set, int index, uint64_t environment_seed) {
  if (set == 'D' || set == 'E') {
    throw std::invalid_argument(std::string("office: set ") + set +
                                " has walking humans, which the laser simulator does not move; use A, B, C, F or G");
  }
  sim::Environment env = sim::GenerateEnvironment(set, index, environment_seed);  // throws for a bad set/index
  World w;
  w.id = index;
  w.name = std::string("office ") + set + "-" + std::to_string(index);
  w.width = env.width * kCmPerM;
  w.height = env.height * kCmPerM;
  w.start = {env.start.x() * kCmPerM, env.start.y() * kCmPerM};
  w.goal = {env.goal.x() * kCmPerM, env.goal.y() * kCmPerM};
  w.start_heading_deg = 0.0;
  w.seed = environment_seed;
  w.attempts = env.attempt + 1;
  w.surroundings = std::make_shared<OfficeSurroundings>(std::move(env));
  w.optimal_path_cm = OptimalPath(w).length_cm;
  return w;
}

World MakeLaserWorld(const LaserWorldChoice& choice) {
  if (choice.office) return OfficeLaserWorld(choice.office, choice.index, choice.salt);
  return GenerateWorld(choice.density, choice.index, choice.salt);
}

}  // namespace limbic::laser
