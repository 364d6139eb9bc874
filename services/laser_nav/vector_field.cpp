#include "services/laser_nav/vector_field.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

#include "services/laser_sim/laser_scanner.hpp"

namespace limbic::laser {
namespace {

constexpr double kVanishing = 1e-9;  // as ResultantHeading: below it R has no bearing

void Require(bool ok, const std::string& what) {
  if (!ok) throw std::invalid_argument("vector field: " + what);
}

}  // namespace

void ValidateVectorFieldOptions(const VectorFieldOptions& o) {
  Require(std::isfinite(o.cell_cm) && o.cell_cm >= 1.0 && o.cell_cm <= 100.0, "cell_cm must be in [1, 100]");
  Require(std::isfinite(o.gains.gg) && o.gains.gg >= 0.0, "gg must be finite and >= 0");
  Require(std::isfinite(o.gains.og) && o.gains.og >= 0.0, "og must be finite and >= 0");
  Require(std::isfinite(o.gains.s_cm) && o.gains.s_cm > 0.0 && o.gains.s_cm <= kMaxRangeCm, "s_cm must be in (0, 250]");
  Require(std::isfinite(o.minimum_angle_deg) && o.minimum_angle_deg > 0.0 && o.minimum_angle_deg <= 180.0,
          "minimum_angle_deg must be in (0, 180]");
  Require(std::isfinite(o.goal_radius_cm) && o.goal_radius_cm >= 0.0, "goal_radius_cm must be finite and >= 0");
  ValidateWeightOptions(o.weight);
}

std::vector<uint8_t> PotentialMinima(int nx, int ny, const std::vector<double>& heading_deg, double minimum_angle_deg,
                                     const std::vector<uint8_t>& vanished) {
  const size_t cells = static_cast<size_t>(nx) * static_cast<size_t>(ny);
  if (nx < 0 || ny < 0 || heading_deg.size() != cells || (!vanished.empty() && vanished.size() != cells)) {
    throw std::invalid_argument("potential minima: the grids do not match " + std::to_string(nx) + " x " +
                                std::to_string(ny));
  }
  std::vector<uint8_t> minimum(cells, 0);
  for (size_t k = 0; k < vanished.size(); ++k) minimum[k] = vanished[k];
  // Each unordered pair of 8-neighbours once: east, north-west, north, north-east.
  constexpr int kDi[] = {1, -1, 0, 1};
  constexpr int kDj[] = {0, 1, 1, 1};
  for (int j = 0; j < ny; ++j) {
    for (int i = 0; i < nx; ++i) {
      const size_t a = static_cast<size_t>(j) * nx + i;
      if (std::isnan(heading_deg[a])) continue;
      for (int n = 0; n < 4; ++n) {
        const int i2 = i + kDi[n], j2 = j + kDj[n];
        if (i2 < 0 || i2 >= nx || j2 >= ny) continue;
        const size_t b = static_cast<size_t>(j2) * nx + i2;
        if (std::isnan(heading_deg[b])) continue;
        if (AngDiff(heading_deg[a], heading_deg[b]) > minimum_angle_deg) minimum[a] = minimum[b] = 1;
      }
    }
  }
  return minimum;
}

VectorField ComputeVectorField(const World& world, const VectorFieldOptions& options) {
  ValidateVectorFieldOptions(options);
  WorldOptions grid_options;
  grid_options.cell_cm = options.cell_cm;
  grid_options.size_cm = world.width;
  grid_options.robot_radius_cm = options.weight.robot_radius_cm;
  const CSpaceGrid cspace(world, grid_options);

  VectorField field;
  field.nx = cspace.nx();
  field.ny = cspace.ny();
  field.cell_cm = cspace.cell_cm();
  const size_t cells = static_cast<size_t>(field.nx) * static_cast<size_t>(field.ny);
  field.heading_deg.assign(cells, kNaN);
  field.resultant.assign(cells, Vec2{});
  field.free.assign(cells, 0);
  std::vector<uint8_t> vanished(cells, 0);

  LaserOptions laser;
  laser.error_model = LaserErrorModel::kNone;
  LaserScanner scanner(world, laser, /*seed=*/1);
  ObstacleField obstacles(options.weight);
  RangeScan scan{};
  const ControlGains& g = options.gains;
  const double arrival_cm = options.goal_radius_cm + std::sqrt(2.0) * field.cell_cm;
  for (int j = 0; j < field.ny; ++j) {
    for (int i = 0; i < field.nx; ++i) {
      if (!cspace.Free(i, j)) continue;
      const size_t k = field.Index(i, j);
      const Vec2 p = field.Centre(i, j);
      field.free[k] = 1;
      ++field.free_cells;
      scanner.Scan(p, &scan);
      // Eq. 4-1 with NG = 0: what StaticController::Step forms, minus the noise.
      const Vec2 gv = GoalVector(p, world.goal);
      const Vec2 ov = obstacles.Compute(scan, g.s_cm);
      const Vec2 r = g.gg * gv + g.og * ov;
      field.resultant[k] = r;
      if (Norm(p - world.goal) <= arrival_cm) continue;  // the intended sink
      if (Norm(r) < kVanishing) {
        vanished[k] = 1;  // no bearing at all: the robot stands still here
        continue;
      }
      field.heading_deg[k] = BearingOf(r);
    }
  }
  field.minimum = PotentialMinima(field.nx, field.ny, field.heading_deg, options.minimum_angle_deg, vanished);
  for (uint8_t m : field.minimum) field.minima += m;
  return field;
}

std::vector<MinimumRegion> MinimumRegions(const VectorField& f) {
  std::vector<MinimumRegion> regions;
  std::vector<uint8_t> seen(f.minimum.size(), 0);
  std::vector<std::pair<int, int>> stack;
  for (int j = 0; j < f.ny; ++j) {
    for (int i = 0; i < f.nx; ++i) {
      if (!f.minimum[f.Index(i, j)] || seen[f.Index(i, j)]) continue;
      MinimumRegion region;
      Vec2 sum;
      seen[f.Index(i, j)] = 1;
      stack.assign(1, {i, j});
      while (!stack.empty()) {
        const auto [ci, cj] = stack.back();
        stack.pop_back();
        ++region.cells;
        const Vec2 c = f.Centre(ci, cj);
        sum.x += c.x;
        sum.y += c.y;
        for (int dj = -1; dj <= 1; ++dj) {
          for (int di = -1; di <= 1; ++di) {
            const int ni = ci + di, nj = cj + dj;
            if (ni < 0 || nj < 0 || ni >= f.nx || nj >= f.ny) continue;
            const size_t k = f.Index(ni, nj);
            if (!f.minimum[k] || seen[k]) continue;
            seen[k] = 1;
            stack.push_back({ni, nj});
          }
        }
      }
      region.centroid = {sum.x / region.cells, sum.y / region.cells};
      regions.push_back(region);
    }
  }
  // Found south-west first; a stable sort keeps that order among equal sizes.
  std::stable_sort(regions.begin(), regions.end(),
                   [](const MinimumRegion& a, const MinimumRegion& b) { return a.cells > b.cells; });
  return regions;
}

}  // namespace limbic::laser
