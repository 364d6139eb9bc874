#include "sim/team.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <sstream>
#include <stdexcept>

#include "sim/segment_index.hpp"

namespace limbic::sim {
namespace {

bool InsidePolygon(const std::vector<Vec2>& vertices, const Vec2& p) {
  bool inside = false;
  for (size_t i = 0, j = vertices.size() - 1; i < vertices.size(); j = i++) {
    const Vec2& a = vertices[i];
    const Vec2& b = vertices[j];
    if ((a.y() > p.y()) != (b.y() > p.y()) && p.x() < (b.x() - a.x()) * (p.y() - a.y()) / (b.y() - a.y()) + a.x())
      inside = !inside;
  }
  return inside;
}

// Grid offsets within `reach` of the origin, nearest first, then by angle from +x (atan2 in (−π,
// π]): a fixed order, so the layout does not depend on anything but its inputs.
std::vector<Vec2> CandidateOffsets(double spacing, double reach) {
  std::vector<Vec2> out;
  const int n = static_cast<int>(std::floor(reach / spacing));
  for (int i = -n; i <= n; ++i) {
    for (int j = -n; j <= n; ++j) {
      const Vec2 d(i * spacing, j * spacing);
      if ((i != 0 || j != 0) && d.norm() <= reach + 1e-9) out.push_back(d);
    }
  }
  std::sort(out.begin(), out.end(), [](const Vec2& a, const Vec2& b) {
    const double na = a.squaredNorm(), nb = b.squaredNorm();
    if (std::abs(na - nb) > 1e-9) return na < nb;
    return std::atan2(a.y(), a.x()) < std::atan2(b.y(), b.x());
  });
  return out;
}

// A standing body as a solid object: the regular 16-gon about `centre` that contains the disc of `radius`.
WorldObject Disc(const Vec2& centre, double radius) {
  constexpr int kSides = 16;
  const double outer = radius / std::cos(M_PI / kSides);
  WorldObject o;
  o.kind = ObjectKind::kWall;
  o.property = ObjectProperty::kStatic;
  for (int k = 0; k < kSides; ++k) {
    const double a = 2.0 * M_PI * k / kSides;
    o.vertices.emplace_back(centre.x() + outer * std::cos(a), centre.y() + outer * std::sin(a));
  }
  return o;
}

}  // namespace

std::vector<std::vector<double>> ParsePointList(const std::string& text, size_t min_n, size_t max_n) {
  std::vector<std::vector<double>> out;
  std::stringstream entries(text);
  for (std::string entry; std::getline(entries, entry, ';');) {
    std::vector<double> values;
    std::stringstream parts(entry);
    for (std::string part; std::getline(parts, part, ',');) {
      size_t used = 0;
      double v = 0.0;
      try {
        v = std::stod(part, &used);
      } catch (const std::exception&) {
        used = 0;
      }
      if (used == 0 || part.find_first_not_of(' ', used) != std::string::npos || !std::isfinite(v)) {
        throw std::invalid_argument("'" + part + "' in '" + entry + "' is not a finite number");
      }
      values.push_back(v);
    }
    if (values.size() < min_n || values.size() > max_n) {
      throw std::invalid_argument("'" + entry + "' must be " + (max_n == 2 ? "x,y" : "x,y or x,y,theta"));
    }
    out.push_back(std::move(values));
  }
  return out;
}

std::vector<Placement> TeamPlacements(const Environment& env, const std::vector<double>& radii,
                                      const std::string& starts, const std::string& goals,
                                      const TeamLayoutOptions& options) {
  const auto start_list = ParsePointList(starts, 2, 3);
  const auto goal_list = ParsePointList(goals, 2, 2);
  for (const auto& [name, list] : {std::pair{"starts", &start_list}, std::pair{"goals", &goal_list}}) {
    if (!list->empty() && list->size() != radii.size()) {
      throw std::invalid_argument(std::string(name) + " lists " + std::to_string(list->size()) + " for " +
                                  std::to_string(radii.size()) + " robots");
    }
  }
  std::vector<Placement> out;
  if (start_list.empty() || goal_list.empty()) {
    out = PlaceTeam(env, radii, options);
  } else {
    out.resize(radii.size());
  }
  for (size_t i = 0; i < start_list.size(); ++i) {
    out[i].start = {start_list[i][0], start_list[i][1], start_list[i].size() > 2 ? start_list[i][2] : 0.0};
  }
  for (size_t i = 0; i < goal_list.size(); ++i) out[i].goal = {goal_list[i][0], goal_list[i][1]};
  return out;
}

std::vector<std::string> TeamNames(int count) {
  if (count < 1) throw std::invalid_argument("a team needs at least one robot (got " + std::to_string(count) + ")");
  std::vector<std::string> names;
  for (int i = 1; i <= count; ++i) names.push_back("r" + std::to_string(i));
  return names;
}

std::vector<Placement> PlaceTeam(const Environment& env, const std::vector<double>& radii,
                                 const TeamLayoutOptions& options) {
  for (size_t i = 0; i < radii.size(); ++i) {
    if (!std::isfinite(radii[i]) || radii[i] <= 0.0) {
      throw std::invalid_argument("robot " + std::to_string(i + 1) + ": body radius must be positive and finite");
    }
  }
  std::vector<Placement> out;
  if (radii.empty()) return out;
  // Robot 0 is today's single robot, unchanged.
  out.push_back({{env.start.x(), env.start.y(), 0.0}, env.goal});
  if (radii.size() == 1) return out;

  const SegmentIndex index(env.objects, 1.0);
  // Every start and goal chosen so far, with the radius of the body that stands there.
  std::vector<std::pair<Vec2, double>> taken{{env.start, radii[0]}, {env.goal, radii[0]}};
  // Each robot's start and goal, in the order chosen (robot 0's are the environment's).
  std::vector<Vec2> starts{env.start}, goals{env.goal};
  auto free = [&](const Vec2& c, double r) {
    const double inflated = r + options.clearance;
    if (c.x() < inflated || c.y() < inflated || c.x() > env.width - inflated || c.y() > env.height - inflated)
      return false;
    for (const WorldObject& o : env.objects) {
      if ((PropertyBit(o.property) & kBodyMask) && InsidePolygon(o.vertices, c)) return false;
    }
    bool blocked = false;
    index.ForEachNear(c, inflated, kBodyMask, [&](const IndexedSegment& s) {
      if (!blocked && geometry::PointSegmentDistance(c, s.segment) < inflated) blocked = true;
    });
    if (blocked) return false;
    for (const Vec2& h : env.human_starts) {
      if ((h - c).norm() < inflated + env.human_radius) return false;
    }
    for (const auto& [p, pr] : taken) {
      if ((p - c).norm() < inflated + pr) return false;
    }
    return true;
  };
  const auto offsets = CandidateOffsets(options.spacing, options.search_radius);
  // The world's free-path grid for each body radius asked about, built once (FreePathGrid: the same answers as
  // HasFreePath on the world, with or without bodies standing in it).
  std::map<double, FreePathGrid> grids;
  auto grid = [&](double radius) -> const FreePathGrid& {
    auto it = grids.find(radius);
    if (it == grids.end()) it = grids.emplace(radius, FreePathGrid(env, radius, options.path_resolution)).first;
    return it->second;
  };
  auto fail = [&](size_t i, const char* what) {
    return std::invalid_argument("no room for robot " + std::to_string(i + 1) + " of " + std::to_string(radii.size()) +
                                 ": no free " + what + " within " + std::to_string(options.search_radius) +
                                 " m of the environment's " + what + " (environment " + std::string(1, env.set) +
                                 std::to_string(env.index) + ")");
  };
  for (size_t i = 1; i < radii.size(); ++i) {
    const double r = radii[i];
    const double path_r = i < options.path_radii.size() ? options.path_radii[i] : r;
    // A start connected to the environment's start and a goal connected to the environment's goal
    // are connected to each other when the environment's start and goal are (checked once for this
    // body: the generator guarantees it only for its own robot radius).
    if (!grid(path_r).Connected(env.start, env.goal)) {
      throw std::invalid_argument("robot " + std::to_string(i + 1) + " (radius " + std::to_string(path_r) +
                                  " m) has no free path from the start to the goal of environment " +
                                  std::string(1, env.set) + std::to_string(env.index));
    }
    // A robot that has arrived stands on its goal (and before it leaves, on its start): a place in a doorway
    // or a corridor's narrow end would close the others' way for good (issue 18: with three robots in set B,
    // r2 parked on a goal in the goal room's only door and r1 and r3 wandered outside until the timeout).
    // So every robot placed so far must keep a free path between its start and its goal with a body standing
    // on every other robot's start and goal, the candidate's included.
    auto keeps_ways_open = [&](const Vec2& c, bool is_goal, double margin) {
      std::vector<Vec2> s = starts, g = goals;
      (is_goal ? g : s).push_back(c);
      std::vector<WorldObject> standing;
      for (size_t j = 0; j < g.size(); ++j) {
        standing.clear();
        for (size_t k = 0; k < s.size(); ++k) {
          if (k == j) continue;
          standing.push_back(Disc(s[k], radii[k] + options.clearance + margin));
          if (k < g.size()) standing.push_back(Disc(g[k], radii[k] + options.clearance + margin));
        }
        const double rj = j < options.path_radii.size() ? options.path_radii[j] : radii[j];
        if (!grid(rj).ConnectedWith(standing, s[j], g[j])) return false;
      }
      return true;
    };
    // Nearest candidate that keeps the ways open with pass_margin to spare; else the nearest that keeps them open
    // for the bodies alone; if none within reach does (a goal at the end of a narrow dead end: any body standing
    // in it closes it), the nearest free and connected one, as before.
    auto pick = [&](const Vec2& anchor, const char* what, bool is_goal) {
      // Whether each candidate is free and connected, worked out once and only as far as needed (each answer is a
      // flood fill of the world's grid).
      std::vector<int8_t> usable(offsets.size(), -1);
      auto is_usable = [&](size_t n) {
        if (usable[n] < 0) {
          const Vec2 c = anchor + offsets[n];
          usable[n] = free(c, r) && grid(path_r).Connected(c, anchor);
        }
        return usable[n] == 1;
      };
      for (const double margin : {options.pass_margin, 0.0}) {
        for (size_t n = 0; n < offsets.size(); ++n) {
          if (is_usable(n) && keeps_ways_open(anchor + offsets[n], is_goal, margin)) return Vec2(anchor + offsets[n]);
        }
      }
      for (size_t n = 0; n < offsets.size(); ++n) {
        if (is_usable(n)) return Vec2(anchor + offsets[n]);
      }
      throw fail(i, what);
    };
    const Vec2 start = pick(env.start, "start", false);
    taken.emplace_back(start, r);
    starts.push_back(start);
    const Vec2 goal = pick(env.goal, "goal", true);
    taken.emplace_back(goal, r);
    goals.push_back(goal);
    out.push_back({{start.x(), start.y(), 0.0}, goal});
  }
  return out;
}

std::vector<std::string> SplitList(const std::string& text) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start <= text.size()) {
    const size_t comma = std::min(text.find(',', start), text.size());
    std::string item = text.substr(start, comma - start);
    const auto first = item.find_first_not_of(" \t");
    if (first != std::string::npos) out.push_back(item.substr(first, item.find_last_not_of(" \t") - first + 1));
    start = comma + 1;
  }
  return out;
}

std::vector<std::string> BodiesPerRobot(const std::string& text, size_t robots, const std::string& fallback) {
  std::vector<std::string> names = SplitList(text);
  if (names.empty()) return std::vector<std::string>(robots, fallback);
  if (names.size() == 1) return std::vector<std::string>(robots, names[0]);
  if (names.size() != robots) {
    throw std::invalid_argument("bodies: " + std::to_string(names.size()) + " names for " + std::to_string(robots) +
                                " robots (give one for all, or one per robot)");
  }
  return names;
}

}  // namespace limbic::sim
