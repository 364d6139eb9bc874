#include "services/laser_sim/laser_world.hpp"

#include <algorithm>
#include <cmath>
#include <istream>
#include <limits>
#include <ostream>
#include <queue>
#include <random>
#include <sstream>
#include <stdexcept>

#include "sim/random.hpp"

namespace limbic::laser {
namespace {

// Distance from point c to the half-disc of radius `radius` centred on `centre` that opens north
// (`north` = true: points with y ≥ centre.y) or south. The half-disc is convex: outside its own
// half-plane the nearest point lies on its diameter.
double DistanceToHalfDisc(Vec2 c, Vec2 centre, double radius, bool north) {
  const bool inside_half_plane = north ? c.y >= centre.y : c.y <= centre.y;
  if (inside_half_plane) return std::max(0.0, Norm(c - centre) - radius);
  const double dx = std::max(0.0, std::fabs(c.x - centre.x) - radius);
  return std::hypot(dx, c.y - centre.y);
}

int GridSize(const WorldOptions& o) {
  const int n = static_cast<int>(std::lround(o.size_cm / o.cell_cm));
  if (!(o.size_cm > 0.0) || !(o.cell_cm > 0.0) || n < 8 || n > 4096) {
    throw std::invalid_argument("laser world: size_cm / cell_cm must give 8..4096 cells per side");
  }
  return n;
}

// Calls f(index) for every cell whose centre lies within `radius` of `c` (strictly inside).
template <typename F>
void ForCellsInDisc(Vec2 c, double radius, int n, double cell, F&& f) {
  const int i0 = std::max(0, static_cast<int>(std::floor((c.x - radius) / cell)));
  const int i1 = std::min(n - 1, static_cast<int>(std::floor((c.x + radius) / cell)));
  const int j0 = std::max(0, static_cast<int>(std::floor((c.y - radius) / cell)));
  const int j1 = std::min(n - 1, static_cast<int>(std::floor((c.y + radius) / cell)));
  const double r2 = radius * radius;
  for (int j = j0; j <= j1; ++j) {
    const double dy = cell * (j + 0.5) - c.y;
    for (int i = i0; i <= i1; ++i) {
      const double dx = cell * (i + 0.5) - c.x;
      if (dx * dx + dy * dy < r2) f(static_cast<size_t>(j) * n + i);
    }
  }
}

void CheckDensity(double density_pct) {
  if (!(density_pct >= kMinDensityPct && density_pct <= kMaxDensityPct)) {  // NaN fails both
    std::ostringstream msg;
    msg << "laser world: obstacle density " << density_pct << " % is outside " << kMinDensityPct << ".."
        << kMaxDensityPct << " % (spec §1.2)";
    throw std::invalid_argument(msg.str());
  }
}

// One draw of §1.2 steps 2–4 (no path check).
World DrawWorld(double density_pct, uint64_t seed, const WorldOptions& o) {
  const int n = GridSize(o);
  std::mt19937_64 rng(seed);
  World w;
  w.density_pct = density_pct;
  w.width = w.height = o.size_cm;
  w.seed = seed;
  w.start = {sim::UniformReal(rng, o.place_x_min_cm, o.place_x_max_cm), o.start_y_cm};
  w.goal = {sim::UniformReal(rng, o.place_x_min_cm, o.place_x_max_cm), o.goal_y_cm};
  std::vector<uint8_t> occupied(static_cast<size_t>(n) * n, 0);
  const double total = static_cast<double>(occupied.size());
  const double target = density_pct / 100.0;
  const double ceiling = (density_pct + o.density_tolerance_pct) / 100.0;
  size_t covered = 0;
  // Enough draws for any density this generator accepts; a run-away loop would be a bug.
  for (int draw = 0; draw < 1000000; ++draw) {
    Circle c;
    c.r = 0.5 * sim::UniformReal(rng, o.min_diameter_cm, o.max_diameter_cm);
    c.cx = sim::UniformReal(rng, 0.0, o.size_cm);
    c.cy = sim::UniformReal(rng, 0.0, o.size_cm);
    const Vec2 centre{c.cx, c.cy};
    if (DistanceToHalfDisc(centre, w.start, o.free_radius_cm, /*north=*/true) < c.r) continue;
    if (DistanceToHalfDisc(centre, w.goal, o.free_radius_cm, /*north=*/false) < c.r) continue;
    // The half-discs open away from the walls; the robot's own disc at the start and the goal must be free
    // on the wall side too (a disc just south of the start would pin the robot before it moves).
    if (Norm(centre - w.start) < c.r + o.robot_radius_cm || Norm(centre - w.goal) < c.r + o.robot_radius_cm) continue;
    size_t added = 0;
    ForCellsInDisc(centre, c.r, n, o.cell_cm, [&](size_t k) { added += occupied[k] ? 0 : 1; });
    if (static_cast<double>(covered + added) / total > ceiling) continue;  // overshoot: keep drawing smaller ones
    ForCellsInDisc(centre, c.r, n, o.cell_cm, [&](size_t k) { occupied[k] = 1; });
    covered += added;
    w.obstacles.push_back(c);
    if (static_cast<double>(covered) / total >= target) {
      w.realised_pct = 100.0 * static_cast<double>(covered) / total;
      return w;
    }
  }
  throw std::logic_error("laser world: density never reached (generator bug)");
}

}  // namespace

uint64_t WorldSeed(double density_pct, int index, uint64_t library_salt) {
  const auto density_key = static_cast<uint64_t>(std::llround(density_pct * 1000.0));
  return sim::DeriveSeed(sim::DeriveSeed(library_salt, density_key), static_cast<uint64_t>(index));
}

World GenerateWorld(double density_pct, int index, uint64_t library_salt, const WorldOptions& options) {
  CheckDensity(density_pct);
  if (index < 0) throw std::invalid_argument("laser world: the world index must be >= 0");
  GridSize(options);
  if (!(options.max_diameter_cm >= options.min_diameter_cm) || !(options.min_diameter_cm > 0.0)) {
    throw std::invalid_argument("laser world: obstacle diameters need 0 < min <= max");
  }
  if (options.max_attempts < 1) throw std::invalid_argument("laser world: max_attempts must be >= 1");
  const uint64_t base = WorldSeed(density_pct, index, library_salt);
  for (int attempt = 0; attempt < options.max_attempts; ++attempt) {
    // §1.2 step 6: a world without a path is discarded and drawn again from a new sub-seed.
    World w = DrawWorld(density_pct, sim::DeriveSeed(base, static_cast<uint64_t>(attempt)), options);
    const FloodResult flood = OptimalPath(w, options);
    if (!flood.reachable) continue;
    w.id = index;
    w.optimal_path_cm = flood.length_cm;
    w.attempts = attempt + 1;
    return w;
  }
  std::ostringstream msg;
  msg << "laser world: no world with a path from start to goal in " << options.max_attempts << " draws (density "
      << density_pct << " %, index " << index << ")";
  throw std::runtime_error(msg.str());
}

CSpaceGrid::CSpaceGrid(const World& world, const WorldOptions& o) : cell_(o.cell_cm) {
  const double clearance = o.robot_radius_cm + o.cspace_margin_cm;
  if (world.surroundings) {
    if (!(cell_ > 0.0) || !(world.width > 0.0) || !(world.height > 0.0)) {
      throw std::invalid_argument("laser world: the grid needs a positive cell and box");
    }
    nx_ = static_cast<int>(std::ceil(world.width / cell_));
    ny_ = static_cast<int>(std::ceil(world.height / cell_));
    if (nx_ > 16384 || ny_ > 16384) throw std::invalid_argument("laser world: more than 16384 cells a side");
  } else {
    nx_ = ny_ = GridSize(o);
  }
  free_.assign(static_cast<size_t>(nx_) * ny_, 1);
  for (int j = 0; j < ny_; ++j) {
    for (int i = 0; i < nx_; ++i) {
      const Vec2 c = Centre(i, j);
      if (c.x < clearance || c.y < clearance || c.x > world.width - clearance || c.y > world.height - clearance ||
          (world.surroundings && world.surroundings->Clearance(c, clearance, cell_) < 0.0)) {
        free_[static_cast<size_t>(j) * nx_ + i] = 0;
      }
    }
  }
  for (const Circle& c : world.obstacles) {
    ForCellsInDisc({c.cx, c.cy}, c.r + clearance, nx_, cell_, [&](size_t k) { free_[k] = 0; });
  }
}

void CSpaceGrid::CellOf(Vec2 p, int* i, int* j) const {
  *i = std::clamp(static_cast<int>(std::floor(p.x / cell_)), 0, nx_ - 1);
  *j = std::clamp(static_cast<int>(std::floor(p.y / cell_)), 0, ny_ - 1);
}

FloodResult OptimalPath(const World& world, const WorldOptions& options) {
  const CSpaceGrid grid(world, options);
  const int n = grid.nx(), rows = grid.ny();
  int si, sj, gi, gj;
  grid.CellOf(world.start, &si, &sj);
  grid.CellOf(world.goal, &gi, &gj);
  FloodResult result;
  if (!grid.Free(si, sj) || !grid.Free(gi, gj)) return result;
  const double step = grid.cell_cm();
  const double diag = step * std::sqrt(2.0);
  std::vector<double> dist(static_cast<size_t>(n) * rows, std::numeric_limits<double>::infinity());
  std::vector<int> parent(dist.size(), -1);
  using Item = std::pair<double, int>;
  std::priority_queue<Item, std::vector<Item>, std::greater<Item>> open;
  const int start = sj * n + si, goal = gj * n + gi;
  dist[start] = 0.0;
  open.push({0.0, start});
  static constexpr int kDi[8] = {1, -1, 0, 0, 1, 1, -1, -1};
  static constexpr int kDj[8] = {0, 0, 1, -1, 1, -1, 1, -1};
  while (!open.empty()) {
    const auto [d, k] = open.top();
    open.pop();
    if (d > dist[k]) continue;
    if (k == goal) break;
    const int i = k % n, j = k / n;
    for (int m = 0; m < 8; ++m) {
      const int ni = i + kDi[m], nj = j + kDj[m];
      if (ni < 0 || nj < 0 || ni >= n || nj >= rows || !grid.Free(ni, nj)) continue;
      // A diagonal step may not cut the corner of a blocked cell (the disc would touch it).
      if (m >= 4 && (!grid.Free(ni, j) || !grid.Free(i, nj))) continue;
      const double nd = d + (m < 4 ? step : diag);
      const int nk = nj * n + ni;
      if (nd < dist[nk]) {
        dist[nk] = nd;
        parent[nk] = k;
        open.push({nd, nk});
      }
    }
  }
  if (!std::isfinite(dist[goal])) return result;
  result.reachable = true;
  result.length_cm = dist[goal];
  for (int k = goal; k != -1; k = parent[k]) result.path.push_back(grid.Centre(k % n, k / n));
  std::reverse(result.path.begin(), result.path.end());
  return result;
}

double RealisedDensityPct(const World& world, const WorldOptions& o) {
  const int n = GridSize(o);
  std::vector<uint8_t> occupied(static_cast<size_t>(n) * n, 0);
  for (const Circle& c : world.obstacles) {
    ForCellsInDisc({c.cx, c.cy}, c.r, n, o.cell_cm, [&](size_t k) { occupied[k] = 1; });
  }
  size_t covered = 0;
  for (uint8_t v : occupied) covered += v;
  return 100.0 * static_cast<double>(covered) / static_cast<double>(occupied.size());
}

void SaveWorld(const World& w, std::ostream& out) {
  out.precision(17);
  out << "laser_world 1\n";
  out << "id " << w.id << "\ndensity_pct " << w.density_pct << "\nrealised_pct " << w.realised_pct << "\nsize "
      << w.width << " " << w.height << "\nstart " << w.start.x << " " << w.start.y << " " << w.start_heading_deg
      << "\ngoal " << w.goal.x << " " << w.goal.y << "\noptimal_path_cm " << w.optimal_path_cm << "\nseed " << w.seed
      << "\nattempts " << w.attempts << "\nobstacles " << w.obstacles.size() << "\n";
  for (const Circle& c : w.obstacles) out << c.cx << " " << c.cy << " " << c.r << "\n";
}

World LoadWorld(std::istream& in, const std::string& source) {
  World w;
  std::string line;
  int line_no = 0;
  auto fail = [&](const std::string& why) {
    throw std::runtime_error(source + ":" + std::to_string(line_no) + ": " + why);
  };
  auto finite = [&](std::initializer_list<double> values) {
    for (double v : values)
      if (!std::isfinite(v)) fail("a value is not a finite number");
  };
  bool header = false;
  size_t expected_obstacles = 0;
  bool in_obstacles = false;
  while (std::getline(in, line)) {
    ++line_no;
    if (line.empty() || line[0] == '#') continue;
    std::istringstream s(line);
    if (in_obstacles) {
      Circle c;
      if (!(s >> c.cx >> c.cy >> c.r)) fail("expected an obstacle 'cx cy r'");
      finite({c.cx, c.cy, c.r});
      if (c.r <= 0.0) fail("an obstacle radius must be > 0");
      w.obstacles.push_back(c);
      continue;
    }
    std::string key;
    s >> key;
    bool ok = true;
    if (!header) {
      int version = 0;
      if (key != "laser_world" || !(s >> version) || version != 1) fail("not a laser world file (laser_world 1)");
      header = true;
      continue;
    }
    if (key == "id") {
      ok = static_cast<bool>(s >> w.id);
    } else if (key == "density_pct") {
      ok = static_cast<bool>(s >> w.density_pct);
    } else if (key == "realised_pct") {
      ok = static_cast<bool>(s >> w.realised_pct);
    } else if (key == "size") {
      ok = static_cast<bool>(s >> w.width >> w.height) && w.width > 0 && w.height > 0;
    } else if (key == "start") {
      ok = static_cast<bool>(s >> w.start.x >> w.start.y >> w.start_heading_deg);
    } else if (key == "goal") {
      ok = static_cast<bool>(s >> w.goal.x >> w.goal.y);
    } else if (key == "optimal_path_cm") {
      ok = static_cast<bool>(s >> w.optimal_path_cm);
    } else if (key == "seed") {
      ok = static_cast<bool>(s >> w.seed);
    } else if (key == "attempts") {
      ok = static_cast<bool>(s >> w.attempts);
    } else if (key == "obstacles") {
      ok = static_cast<bool>(s >> expected_obstacles);
      in_obstacles = true;
    } else {
      fail("unknown key '" + key + "'");
    }
    if (!ok) fail("bad value for '" + key + "'");
    finite({w.density_pct, w.realised_pct, w.width, w.height, w.start.x, w.start.y, w.start_heading_deg, w.goal.x,
            w.goal.y, w.optimal_path_cm});
  }
  if (!header) fail("empty file");
  if (!in_obstacles) fail("missing 'obstacles N'");
  if (w.obstacles.size() != expected_obstacles) {
    fail("expected " + std::to_string(expected_obstacles) + " obstacles, found " + std::to_string(w.obstacles.size()));
  }
  return w;
}

}  // namespace limbic::laser
