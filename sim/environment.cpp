#include "sim/environment.hpp"

#include <algorithm>
#include <cmath>
#include <deque>
#include <map>
#include <random>
#include <set>
#include <stdexcept>
#include <string>
#include <utility>

#include "sim/random.hpp"

namespace limbic::sim {
namespace {

constexpr int kOutside = -2;

bool BodySolid(ObjectProperty p) {
  return p == ObjectProperty::kStatic || p == ObjectProperty::kMoveable || p == ObjectProperty::kLimitedVisibility;
}

bool PointInPolygon(const Vec2& p, const std::vector<Vec2>& poly) {
  bool inside = false;
  for (size_t i = 0, j = poly.size() - 1; i < poly.size(); j = i++) {
    const Vec2& a = poly[i];
    const Vec2& b = poly[j];
    if ((a.y() > p.y()) != (b.y() > p.y()) && p.x() < (b.x() - a.x()) * (p.y() - a.y()) / (b.y() - a.y()) + a.x()) {
      inside = !inside;
    }
  }
  return inside;
}

// A block edge: between (bx, by) and (bx+1, by) if vertical, else (bx, by+1).
struct EdgeKey {
  int bx, by;
  bool vertical;
  auto operator<=>(const EdgeKey&) const = default;
};

// Places rooms, doors, walls, obstacles and humans for one sub-seed (the pseudo-code of §3.2).
class Generator {
 public:
  Generator(const SetRules& rules, const GeneratorOptions& options, uint64_t sub_seed)
      : rules_(rules), opt_(options), rng_(sub_seed) {
    nx_ = opt_.blocks_x;
    ny_ = opt_.blocks_y;
    bs_ = opt_.block_size;
    block_room_.assign(nx_ * ny_, -1);
  }

  Environment Run() {
    Environment env;
    env.rules = rules_;
    env.blocks_x = nx_;
    env.blocks_y = ny_;
    env.block_size = bs_;
    env.width = nx_ * bs_;
    env.height = ny_ * bs_;
    env.human_radius = opt_.human_radius;
    if (rules_.walls) {
      PlaceRoom(UniformInt(rng_, 0, nx_ - 1), UniformInt(rng_, 0, ny_ - 1));
      FillRemaining();
      PlaceExtraDoors();
    } else {
      rooms_.push_back({0, RoomType::kOpen, 0, 0, nx_, ny_});
      std::fill(block_room_.begin(), block_room_.end(), 0);
    }
    env.rooms = rooms_;
    env.block_room = block_room_;
    env.doors = doors_;
    env.start = BlockCenter(0, 0);
    env.goal = BlockCenter(nx_ - 1, ny_ - 1);
    GenerateWalls(&env);
    PlaceObstacles(&env);
    if (rules_.humans) PlaceHumans(&env);
    return env;
  }

 private:
  Vec2 BlockCenter(int bx, int by) const { return {(bx + 0.5) * bs_, (by + 0.5) * bs_}; }
  bool InGrid(int bx, int by) const { return bx >= 0 && by >= 0 && bx < nx_ && by < ny_; }
  int RoomOf(int bx, int by) const { return InGrid(bx, by) ? block_room_[by * nx_ + bx] : kOutside; }

  bool Fits(int bx, int by, int w, int h) const {
    if (bx < 0 || by < 0 || bx + w > nx_ || by + h > ny_) return false;
    for (int y = by; y < by + h; ++y)
      for (int x = bx; x < bx + w; ++x)
        if (block_room_[y * nx_ + x] != -1) return false;
    return true;
  }

  // Place room: a room containing the free block (qx, qy), then its doors and their rooms
  // (recursion).
  void PlaceRoom(int qx, int qy) {
    int w, h;
    if (Uniform01(rng_) < opt_.corridor_probability) {
      const int length = UniformInt(rng_, 2, opt_.corridor_max_length);
      const bool horizontal = Uniform01(rng_) < 0.5;
      w = horizontal ? length : 1;
      h = horizontal ? 1 : length;
    } else {
      w = UniformInt(rng_, 2, opt_.office_max_size);
      h = UniformInt(rng_, 2, opt_.office_max_size);
    }
    // If the room does not fit, try successively smaller rooms until one fits (1×1 always does).
    std::vector<std::pair<int, int>> placements;
    while (true) {
      placements.clear();
      for (int by = qy - h + 1; by <= qy; ++by)
        for (int bx = qx - w + 1; bx <= qx; ++bx)
          if (Fits(bx, by, w, h)) placements.emplace_back(bx, by);
      if (!placements.empty()) break;
      if (w >= h) {
        --w;
      } else {
        --h;
      }
    }
    const auto [bx, by] = placements[UniformInt(rng_, 0, static_cast<int>(placements.size()) - 1)];
    Room room;
    room.id = static_cast<int>(rooms_.size());
    room.type = std::min(w, h) == 1 ? RoomType::kCorridor : RoomType::kOffice;
    room.bx = bx;
    room.by = by;
    room.w = w;
    room.h = h;
    rooms_.push_back(room);
    for (int y = by; y < by + h; ++y)
      for (int x = bx; x < bx + w; ++x) block_room_[y * nx_ + x] = room.id;

    // Maximum number of doors ∝ perimeter; each attempt picks a wall position.
    const int max_doors = std::max(1, static_cast<int>(std::lround(2.0 * (w + h) * opt_.doors_per_perimeter_block)));
    const std::vector<std::pair<EdgeKey, std::pair<int, int>>> wall_edges = PerimeterEdges(room);
    for (int i = 0; i < max_doors && !wall_edges.empty(); ++i) {
      const auto& [edge, outside] = wall_edges[UniformInt(rng_, 0, static_cast<int>(wall_edges.size()) - 1)];
      if (RoomOf(outside.first, outside.second) != -1) continue;  // reject: the adjacent block is taken
      AddDoor(edge, false);
      PlaceRoom(outside.first, outside.second);  // a free block always fits a (possibly 1×1) room
    }
  }

  // Edges on the room's boundary that lead to a block inside the grid, with that outside block.
  std::vector<std::pair<EdgeKey, std::pair<int, int>>> PerimeterEdges(const Room& r) const {
    std::vector<std::pair<EdgeKey, std::pair<int, int>>> edges;
    for (int x = r.bx; x < r.bx + r.w; ++x) {
      if (InGrid(x, r.by - 1)) edges.push_back({{x, r.by - 1, false}, {x, r.by - 1}});
      if (InGrid(x, r.by + r.h)) edges.push_back({{x, r.by + r.h - 1, false}, {x, r.by + r.h}});
    }
    for (int y = r.by; y < r.by + r.h; ++y) {
      if (InGrid(r.bx - 1, y)) edges.push_back({{r.bx - 1, y, true}, {r.bx - 1, y}});
      if (InGrid(r.bx + r.w, y)) edges.push_back({{r.bx + r.w - 1, y, true}, {r.bx + r.w, y}});
    }
    return edges;
  }

  void AddDoor(const EdgeKey& e, bool extra) {
    Door d;
    d.bx = e.bx;
    d.by = e.by;
    d.vertical_edge = e.vertical;
    d.width = rules_.random_sizes ? UniformReal(rng_, rules_.door_width_min, rules_.door_width_max) : rules_.door_width;
    d.center = e.vertical ? Vec2((e.bx + 1) * bs_, (e.by + 0.5) * bs_) : Vec2((e.bx + 0.5) * bs_, (e.by + 1) * bs_);
    d.extra = extra;
    door_edges_.insert(e);
    doors_.push_back(d);
  }

  // Blocks the recursion left empty get rooms through a door from a neighbouring room, so the whole
  // area is covered and the corner blocks (start and goal) are inside rooms.
  void FillRemaining() {
    while (true) {
      std::vector<std::pair<EdgeKey, std::pair<int, int>>> candidates;
      for (int by = 0; by < ny_; ++by) {
        for (int bx = 0; bx < nx_; ++bx) {
          if (RoomOf(bx, by) != -1) continue;
          if (RoomOf(bx - 1, by) >= 0) candidates.push_back({{bx - 1, by, true}, {bx, by}});
          if (RoomOf(bx + 1, by) >= 0) candidates.push_back({{bx, by, true}, {bx, by}});
          if (RoomOf(bx, by - 1) >= 0) candidates.push_back({{bx, by - 1, false}, {bx, by}});
          if (RoomOf(bx, by + 1) >= 0) candidates.push_back({{bx, by, false}, {bx, by}});
        }
      }
      if (candidates.empty()) return;
      const auto& [edge, block] = candidates[UniformInt(rng_, 0, static_cast<int>(candidates.size()) - 1)];
      AddDoor(edge, false);
      PlaceRoom(block.first, block.second);
    }
  }

  // Place extra doors: n times pick a wall between two rooms not yet directly connected (creates
  // loops).
  void PlaceExtraDoors() {
    std::set<std::pair<int, int>> connected;
    for (const Door& d : doors_) {
      const int a = RoomOf(d.bx, d.by);
      const int b = d.vertical_edge ? RoomOf(d.bx + 1, d.by) : RoomOf(d.bx, d.by + 1);
      connected.insert({std::min(a, b), std::max(a, b)});
    }
    const int n = UniformInt(rng_, opt_.extra_doors_min, opt_.extra_doors_max);
    for (int i = 0; i < n; ++i) {
      std::vector<EdgeKey> available;
      for (int by = 0; by < ny_; ++by) {
        for (int bx = 0; bx < nx_; ++bx) {
          for (bool vertical : {true, false}) {
            const int a = RoomOf(bx, by);
            const int b = vertical ? RoomOf(bx + 1, by) : RoomOf(bx, by + 1);
            if (b < 0 || a == b) continue;
            if (connected.count({std::min(a, b), std::max(a, b)})) continue;
            available.push_back({bx, by, vertical});
          }
        }
      }
      if (available.empty()) return;
      const EdgeKey e = available[UniformInt(rng_, 0, static_cast<int>(available.size()) - 1)];
      AddDoor(e, true);
      const int a = RoomOf(e.bx, e.by);
      const int b = e.vertical ? RoomOf(e.bx + 1, e.by) : RoomOf(e.bx, e.by + 1);
      connected.insert({std::min(a, b), std::max(a, b)});
    }
  }

  double WallThickness() {
    return rules_.random_sizes ? UniformReal(rng_, rules_.wall_thickness_min, rules_.wall_thickness_max)
                               : rules_.wall_thickness;
  }
  double MaxWallThickness() const { return rules_.random_sizes ? rules_.wall_thickness_max : rules_.wall_thickness; }

  // Generate wall vertices: one thickness per wall (a run of edges between the same two rooms),
  // split at door openings, each piece a rectangle centred on the block edge line.
  void GenerateWalls(Environment* env) {
    for (Door& d : doors_) {
      d.room_a = RoomOf(d.bx, d.by);
      d.room_b = d.vertical_edge ? RoomOf(d.bx + 1, d.by) : RoomOf(d.bx, d.by + 1);
    }
    env->doors = doors_;
    for (bool vertical : {true, false}) {
      const int lines = vertical ? nx_ + 1 : ny_ + 1;
      const int cells = vertical ? ny_ : nx_;
      for (int line = 0; line < lines; ++line) {
        int run_start = -1;
        std::pair<int, int> run_rooms{0, 0};
        for (int k = 0; k <= cells; ++k) {
          std::pair<int, int> rooms{-1, -1};
          bool wall = false;
          if (k < cells) {
            rooms = vertical ? std::make_pair(RoomOf(line - 1, k), RoomOf(line, k))
                             : std::make_pair(RoomOf(k, line - 1), RoomOf(k, line));
            const bool boundary = rooms.first == kOutside || rooms.second == kOutside;
            wall = rooms.first != rooms.second && (rules_.walls || (boundary && opt_.set_a_boundary_walls));
          }
          if (run_start >= 0 && (!wall || rooms != run_rooms)) {
            EmitWall(env, vertical, line, run_start, k);
            run_start = -1;
          }
          if (wall && run_start < 0) {
            run_start = k;
            run_rooms = rooms;
          }
        }
      }
    }
  }

  void EmitWall(Environment* env, bool vertical, int line, int k0, int k1) {
    const double t = WallThickness();
    const double c = line * bs_;
    std::vector<std::pair<double, double>> gaps;
    for (const Door& d : doors_) {
      if (d.vertical_edge != vertical) continue;
      const int d_line = vertical ? d.bx + 1 : d.by + 1;
      const int d_k = vertical ? d.by : d.bx;
      if (d_line != line || d_k < k0 || d_k >= k1) continue;
      const double mid = (d_k + 0.5) * bs_;
      gaps.emplace_back(mid - 0.5 * d.width, mid + 0.5 * d.width);
    }
    std::sort(gaps.begin(), gaps.end());
    double s = k0 * bs_ - 0.5 * t;
    const double end = k1 * bs_ + 0.5 * t;
    auto emit = [&](double a, double b) {
      if (b - a < 1e-6) return;
      WorldObject o;
      o.id = static_cast<int>(env->objects.size());
      o.kind = ObjectKind::kWall;
      o.property = ObjectProperty::kStatic;
      o.vertices = vertical ? BoxVertices(c - 0.5 * t, a, c + 0.5 * t, b) : BoxVertices(a, c - 0.5 * t, b, c + 0.5 * t);
      env->objects.push_back(std::move(o));
    };
    for (const auto& [g0, g1] : gaps) {
      emit(s, g0);
      s = g1;
    }
    emit(s, end);
  }

  // Place obstacles: never in blocks adjacent to doors or to other objects (§3.2).
  void PlaceObstacles(Environment* env) {
    std::vector<char> available(nx_ * ny_, 1);
    for (const Door& d : doors_) {
      available[d.by * nx_ + d.bx] = 0;
      const int ox = d.vertical_edge ? d.bx + 1 : d.bx;
      const int oy = d.vertical_edge ? d.by : d.by + 1;
      available[oy * nx_ + ox] = 0;
    }
    if (opt_.keep_start_goal_blocks_clear) {
      available[0] = 0;
      available[nx_ * ny_ - 1] = 0;
    }
    const double margin = 0.5 * MaxWallThickness();
    while (true) {
      std::vector<int> list;
      for (int i = 0; i < nx_ * ny_; ++i)
        if (available[i]) list.push_back(i);
      if (list.empty()) break;
      const int block = list[UniformInt(rng_, 0, static_cast<int>(list.size()) - 1)];
      const int bx = block % nx_, by = block / nx_;
      const bool undetectable = rules_.undetectable_obstacles && Uniform01(rng_) < opt_.undetectable_fraction;
      const int room = RoomOf(bx, by);
      // Usable area of the block: keep clear of walls on sides that border another room or the
      // outside.
      auto wall_on = [&](int dx, int dy) {
        const int other = RoomOf(bx + dx, by + dy);
        if (other == room) return false;
        return rules_.walls || (other == kOutside && opt_.set_a_boundary_walls);
      };
      double x0 = bx * bs_ + (wall_on(-1, 0) ? margin : 0.0);
      double x1 = (bx + 1) * bs_ - (wall_on(1, 0) ? margin : 0.0);
      double y0 = by * bs_ + (wall_on(0, -1) ? margin : 0.0);
      double y1 = (by + 1) * bs_ - (wall_on(0, 1) ? margin : 0.0);
      double max_side = opt_.room_obstacle_max;
      if (rooms_[room].type == RoomType::kCorridor) {
        // Inside a single block quadrant, at most half a block long.
        const int q = UniformInt(rng_, 0, 3);
        const double hx = (bx + 0.5) * bs_, hy = (by + 0.5) * bs_;
        if (q & 1)
          x0 = hx;
        else
          x1 = hx;
        if (q & 2)
          y0 = hy;
        else
          y1 = hy;
        max_side = opt_.corridor_obstacle_max;
      }
      const double w = UniformReal(rng_, opt_.obstacle_min_size, std::min(max_side, x1 - x0));
      const double h = UniformReal(rng_, opt_.obstacle_min_size, std::min(max_side, y1 - y0));
      const double ox = UniformReal(rng_, x0, x1 - w);
      const double oy = UniformReal(rng_, y0, y1 - h);
      WorldObject o;
      o.id = static_cast<int>(env->objects.size());
      o.kind = ObjectKind::kObstacle;
      o.property = undetectable ? ObjectProperty::kLimitedVisibility : ObjectProperty::kStatic;
      o.vertices = BoxVertices(ox, oy, ox + w, oy + h);
      env->objects.push_back(std::move(o));
      for (int dy = -1; dy <= 1; ++dy) {
        for (int dx = -1; dx <= 1; ++dx) {
          if (!opt_.obstacle_exclusion_8_neighbours && dx != 0 && dy != 0) continue;
          if (InGrid(bx + dx, by + dy)) available[(by + dy) * nx_ + bx + dx] = 0;
        }
      }
    }
  }

  // Humans start at random free points away from the start and goal and from each other.
  void PlaceHumans(Environment* env) {
    const double r = opt_.human_radius;
    for (int i = 0; i < opt_.human_count; ++i) {
      for (int tries = 0; tries < 2000; ++tries) {
        const Vec2 p(UniformReal(rng_, r, env->width - r), UniformReal(rng_, r, env->height - r));
        if ((p - env->start).norm() < 2.0 || (p - env->goal).norm() < 2.0) continue;
        bool ok = true;
        for (const Vec2& other : env->human_starts) ok = ok && (p - other).norm() > 2.0 * r + 0.3;
        for (const WorldObject& o : env->objects) {
          if (!ok) break;
          if (!BodySolid(o.property)) continue;
          if (PointInPolygon(p, o.vertices)) ok = false;
          for (size_t k = 0; ok && k < o.vertices.size(); ++k) {
            const geometry::Segment s{o.vertices[k], o.vertices[(k + 1) % o.vertices.size()]};
            if (geometry::PointSegmentDistance(p, s) < r + 0.1) ok = false;
          }
        }
        if (ok) {
          env->human_starts.push_back(p);
          break;
        }
      }
    }
  }

  SetRules rules_;
  GeneratorOptions opt_;
  std::mt19937_64 rng_;
  int nx_ = 0, ny_ = 0;
  double bs_ = 2.0;
  std::vector<int> block_room_;
  std::vector<Room> rooms_;
  std::vector<Door> doors_;
  std::set<EdgeKey> door_edges_;
};

// Occupancy for the free-path check: a cell is blocked when a robot centred there would touch an
// object.
struct ClearanceGrid {
  geometry::GridSpec spec;
  std::vector<char> blocked;
};

// Blocks the cells of `g` where a robot of `radius` centred there would touch `o` (nothing for an object that is not
// body-solid).
void BlockObject(ClearanceGrid& g, const WorldObject& o, double radius) {
  if (!BodySolid(o.property)) return;
  double lo_x = 1e9, lo_y = 1e9, hi_x = -1e9, hi_y = -1e9;
  for (const Vec2& v : o.vertices) {
    lo_x = std::min(lo_x, v.x());
    lo_y = std::min(lo_y, v.y());
    hi_x = std::max(hi_x, v.x());
    hi_y = std::max(hi_y, v.y());
  }
  const geometry::Cell c0 = g.spec.CellOf({lo_x - radius, lo_y - radius});
  const geometry::Cell c1 = g.spec.CellOf({hi_x + radius, hi_y + radius});
  for (int iy = std::max(0, c0.iy); iy <= std::min(g.spec.height - 1, c1.iy); ++iy) {
    for (int ix = std::max(0, c0.ix); ix <= std::min(g.spec.width - 1, c1.ix); ++ix) {
      const int idx = g.spec.Index({ix, iy});
      if (g.blocked[idx]) continue;
      const Vec2 p = g.spec.Center({ix, iy});
      bool hit = PointInPolygon(p, o.vertices);
      for (size_t k = 0; !hit && k < o.vertices.size(); ++k) {
        const geometry::Segment s{o.vertices[k], o.vertices[(k + 1) % o.vertices.size()]};
        hit = geometry::PointSegmentDistance(p, s) <= radius;
      }
      if (hit) g.blocked[idx] = 1;
    }
  }
}

ClearanceGrid BuildClearanceGrid(const Environment& env, double radius, double resolution) {
  if (!(std::isfinite(resolution) && resolution > 0.0) || !(std::isfinite(radius) && radius >= 0.0)) {
    throw std::invalid_argument(
        "free-path check: the grid's resolution must be positive and the body's radius "
        "non-negative, both finite (got " +
        std::to_string(resolution) + " m and " + std::to_string(radius) + " m)");
  }
  ClearanceGrid g;
  g.spec.origin = Vec2::Zero();
  g.spec.resolution = resolution;
  g.spec.width = static_cast<int>(std::ceil(env.width / resolution));
  g.spec.height = static_cast<int>(std::ceil(env.height / resolution));
  g.blocked.assign(g.spec.CellCount(), 0);
  for (const WorldObject& o : env.objects) BlockObject(g, o, radius);
  return g;
}

// The free cell nearest to p (p's own cell when free); nullopt-like {-1,-1} when none.
geometry::Cell NearestFreeCell(const ClearanceGrid& g, const Vec2& p) {
  geometry::Cell best{-1, -1};
  const geometry::Cell pc = g.spec.CellOf(p);
  if (g.spec.Contains(pc) && !g.blocked[g.spec.Index(pc)]) return pc;
  double best_d = 1e18;
  for (int i = 0; i < g.spec.CellCount(); ++i) {
    if (g.blocked[i]) continue;
    const double d = (g.spec.Center(g.spec.CellOfIndex(i)) - p).squaredNorm();
    if (d < best_d) {
      best_d = d;
      best = g.spec.CellOfIndex(i);
    }
  }
  return best;
}

// Whether a and b are joined by free cells (4-neighbours): a flood fill from a.
bool Connected(const geometry::GridSpec& spec, const std::vector<char>& blocked, const geometry::Cell& a,
               const geometry::Cell& b) {
  if (!spec.Contains(a) || !spec.Contains(b)) return false;
  if (blocked[spec.Index(a)] || blocked[spec.Index(b)]) return false;
  std::vector<char> seen(spec.CellCount(), 0);
  std::deque<int> queue{spec.Index(a)};
  seen[queue.front()] = 1;
  const int target = spec.Index(b);
  while (!queue.empty()) {
    const int i = queue.front();
    queue.pop_front();
    if (i == target) return true;
    const geometry::Cell c = spec.CellOfIndex(i);
    const geometry::Cell next[4] = {{c.ix + 1, c.iy}, {c.ix - 1, c.iy}, {c.ix, c.iy + 1}, {c.ix, c.iy - 1}};
    for (const geometry::Cell& n : next) {
      if (!spec.Contains(n)) continue;
      const int j = spec.Index(n);
      if (seen[j] || blocked[j]) continue;
      seen[j] = 1;
      queue.push_back(j);
    }
  }
  return false;
}

void HashBytes(uint64_t* h, const void* data, size_t n) {
  const auto* p = static_cast<const unsigned char*>(data);
  for (size_t i = 0; i < n; ++i) {
    *h ^= p[i];
    *h *= 0x100000001b3ULL;
  }
}
void HashInt(uint64_t* h, int64_t v) { HashBytes(h, &v, sizeof v); }
void HashPoint(uint64_t* h, const Vec2& p) {
  HashInt(h, std::llround(p.x() * 1e4));
  HashInt(h, std::llround(p.y() * 1e4));
}

}  // namespace

const char* ObjectPropertyName(ObjectProperty property) {
  switch (property) {
    case ObjectProperty::kStatic:
      return "static";
    case ObjectProperty::kMoveable:
      return "moveable";
    case ObjectProperty::kDynamic:
      return "dynamic";
    case ObjectProperty::kLimitedVisibility:
      return "limited_visibility";
    case ObjectProperty::kFloor:
      return "floor";
  }
  return "?";
}

bool IsValidSetLetter(char letter) { return letter >= 'A' && letter <= 'G'; }

SetRules RulesForSet(char letter) {
  if (!IsValidSetLetter(letter)) {
    throw std::invalid_argument(std::string("unknown environment set '") + letter + "' (expected one of A-G)");
  }
  SetRules r;
  r.letter = letter;
  r.walls = letter != 'A';
  r.random_sizes = letter == 'C' || letter == 'E' || letter == 'G';
  r.humans = letter == 'D' || letter == 'E';
  r.undetectable_obstacles = letter == 'F' || letter == 'G';
  switch (letter) {
    case 'A':
      r.description = "open area, no walls, sparse static obstacles (minimal challenge)";
      break;
    case 'B':
      r.description = "offices and corridors, constant 0.1 m walls and 1.2 m doors (medium challenge)";
      break;
    case 'C':
      r.description = "like B with random walls U[0.1,0.3] m and doors U[0.8,1.4] m";
      break;
    case 'D':
      r.description = "like B plus simulated humans";
      break;
    case 'E':
      r.description = "like C plus simulated humans";
      break;
    case 'F':
      r.description = "like B plus obstacles invisible to the IR sensors";
      break;
    case 'G':
      r.description = "like C plus obstacles invisible to the IR sensors";
      break;
  }
  return r;
}

std::vector<Vec2> BoxVertices(double x0, double y0, double x1, double y1) {
  return {{x0, y0}, {x1, y0}, {x1, y1}, {x0, y1}};
}

bool HasFreePath(const Environment& env, const Vec2& from, const Vec2& to, double radius, double resolution) {
  return FreePathGrid(env, radius, resolution).Connected(from, to);
}

FreePathGrid::FreePathGrid(const Environment& env, double radius, double resolution) : radius_(radius) {
  ClearanceGrid g = BuildClearanceGrid(env, radius, resolution);
  spec_ = g.spec;
  blocked_ = std::move(g.blocked);
}

bool FreePathGrid::Connected(const Vec2& from, const Vec2& to) const {
  return sim::Connected(spec_, blocked_, spec_.CellOf(from), spec_.CellOf(to));
}

bool FreePathGrid::ConnectedWith(const std::vector<WorldObject>& extra, const Vec2& from, const Vec2& to) const {
  ClearanceGrid g{spec_, blocked_};
  for (const WorldObject& o : extra) BlockObject(g, o, radius_);
  return sim::Connected(g.spec, g.blocked, g.spec.CellOf(from), g.spec.CellOf(to));
}

Environment GenerateEnvironment(char set, int index, uint64_t seed, const GeneratorOptions& options) {
  const SetRules rules = RulesForSet(set);
  if (index < 0 || index >= kEnvironmentsPerSet) {
    throw std::invalid_argument("environment index " + std::to_string(index) + " is outside 0.." +
                                std::to_string(kEnvironmentsPerSet - 1));
  }
  if (options.blocks_x < 2 || options.blocks_y < 2) throw std::invalid_argument("need at least 2x2 blocks");
  for (int attempt = 0; attempt < options.max_attempts; ++attempt) {
    uint64_t sub = DeriveSeed(seed, static_cast<uint64_t>(set));
    sub = DeriveSeed(sub, static_cast<uint64_t>(index));
    sub = DeriveSeed(sub, static_cast<uint64_t>(attempt));
    Generator generator(rules, options, sub);
    Environment env = generator.Run();
    env.set = set;
    env.index = index;
    env.seed = seed;
    env.attempt = attempt;
    // Start and goal: centres of opposite corner blocks, or the nearest points with clearance.
    const ClearanceGrid g = BuildClearanceGrid(env, options.robot_radius, options.path_check_resolution);
    const geometry::Cell s = NearestFreeCell(g, env.start);
    const geometry::Cell t = NearestFreeCell(g, env.goal);
    if (s.ix < 0 || t.ix < 0) continue;
    if (s != g.spec.CellOf(env.start)) env.start = g.spec.Center(s);
    if (t != g.spec.CellOf(env.goal)) env.goal = g.spec.Center(t);
    if (Connected(g.spec, g.blocked, s, t)) return env;
  }
  throw std::runtime_error("no environment with a free start-goal path after " + std::to_string(options.max_attempts) +
                           " attempts");
}

uint64_t GeometryHash(const Environment& env) {
  uint64_t h = 0xcbf29ce484222325ULL;
  HashInt(&h, env.set);
  HashInt(&h, env.blocks_x);
  HashInt(&h, env.blocks_y);
  HashInt(&h, std::llround(env.block_size * 1e4));
  HashInt(&h, static_cast<int64_t>(env.objects.size()));
  for (const WorldObject& o : env.objects) {
    HashInt(&h, static_cast<int>(o.kind));
    HashInt(&h, static_cast<int>(o.property));
    HashInt(&h, static_cast<int64_t>(o.vertices.size()));
    for (const Vec2& v : o.vertices) HashPoint(&h, v);
  }
  HashPoint(&h, env.start);
  HashPoint(&h, env.goal);
  HashInt(&h, static_cast<int64_t>(env.human_starts.size()));
  for (const Vec2& p : env.human_starts) HashPoint(&h, p);
  HashInt(&h, std::llround(env.human_radius * 1e4));
  return h;
}

}  // namespace limbic::sim
