#include "services/laser_topo/planner.hpp"

#include <cmath>
#include <functional>
#include <limits>
#include <queue>

namespace limbic::laser {

MapPath SolveMap(const TopoMap& map, int start, Vec2 goal, bool goal_in_sight_now, const PlannerOptions& o) {
  MapPath best;
  const auto& nodes = map.nodes();
  if (start < 0 || start >= static_cast<int>(nodes.size())) return best;
  // Link_Weight: Σ (1 + linkrange) along the cheapest chain of links from the start (0 at the start).
  const double inf = std::numeric_limits<double>::infinity();
  std::vector<double> lw(nodes.size(), inf);
  std::vector<int> previous(nodes.size(), -1);
  using Item = std::pair<double, int>;
  std::priority_queue<Item, std::vector<Item>, std::greater<Item>> queue;
  lw[start] = 0.0;
  queue.push({0.0, start});
  std::vector<int> order;
  while (!queue.empty()) {
    const auto [w, n] = queue.top();
    queue.pop();
    if (w > lw[n]) continue;
    order.push_back(n);
    for (const NodeLink& l : nodes[n].links) {
      const double next = w + o.link_cost + l.range_cm;
      if (next < lw[l.to]) {
        lw[l.to] = next;
        previous[l.to] = n;
        queue.push({next, l.to});
      }
    }
  }
  double best_w = inf;
  for (int n : order) {
    const TopoNode& node = nodes[n];
    const Vec2 to_goal = goal - node.rel;
    const double gis = (n == start && goal_in_sight_now) || node.goal_seen ? o.goal_in_sight : 0.0;
    for (int k = 0; k < 8; ++k) {
      if (!node.ExitUsable(k, o.usable_prob)) continue;
      // Eq. 6-1: Weight = Link_Weight + goal_range + 100·int(|goal_bearing − exit_bearing| / 22.5) + goal_in_sight.
      const double w =
          lw[n] + Norm(to_goal) +
          o.sector_penalty * std::floor(AngDiff(BearingOf(to_goal), node.exits[k].bearing_deg) / o.sector_deg) + gis;
      if (w < best_w) {
        best_w = w;
        best.exit_node = n;
        best.exit_sector = k;
      }
    }
  }
  if (best.exit_node < 0) return best;
  std::vector<int> chain;
  for (int n = best.exit_node; n >= 0; n = previous[n]) chain.insert(chain.begin(), n);
  if (static_cast<int>(chain.size()) + 2 > o.max_waypoints) return MapPath{};
  for (int n : chain) best.waypoints.push_back({n, nodes[n].rel});
  const TopoNode& exit_node = nodes[best.exit_node];
  const Vec2 gap = exit_node.ExitPosition(best.exit_sector);
  best.waypoints.push_back({-1, gap});
  best.waypoints.push_back({-1, gap + o.pass_through_cm * UnitVector(exit_node.exits[best.exit_sector].bearing_deg)});
  best.weight = best_w;
  best.valid = true;
  return best;
}

void MapFollower::Start(const MapPath& path, double time_s) {
  path_ = path;
  active_ = path.valid && !path.waypoints.empty();
  target_ = 0;
  started_s_ = time_s;
}

bool MapFollower::Clear(const RangeScan& scan, Vec2 pose, Vec2 point) const {
  const Vec2 d = point - pose;
  const double range = Norm(d);
  if (range >= kMaxRangeCm) return false;  // not within sensor range
  const int centre = static_cast<int>(std::lround(BearingOf(d))) % kBeams;
  // Thesis: rangedata[bearing] > range; robust (§3.11 [A]): every beam within ±atan(15 / range).
  const int half = options_.robust_clearance && range > 0.0
                       ? static_cast<int>(std::ceil(std::atan(options_.half_width_cm / range) * kRadToDeg))
                       : 0;
  for (int a = centre - half; a <= centre + half; ++a) {
    if (!(scan[(a % kBeams + kBeams) % kBeams] > range)) return false;
  }
  return true;
}

MapFollower::Status MapFollower::Step(const RangeScan& scan, Vec2 pose, double time_s, const MapUpdate& update) {
  if (!active_) return Status::kIdle;
  if (update.created) {
    active_ = false;
    return Status::kNewNode;  // new territory: normal case selection resumes
  }
  if (time_s - started_s_ >= options_.max_time_s) {
    active_ = false;
    return Status::kTimeout;
  }
  const int last = static_cast<int>(path_.waypoints.size()) - 1;
  if (update.changed && update.current >= 0) {
    bool on_path = false;
    for (const Waypoint& w : path_.waypoints) on_path = on_path || w.node == update.current;
    if (!on_path) {
      active_ = false;
      return Status::kOffPath;
    }
  }
  auto reached = [&](int i) {
    const Waypoint& w = path_.waypoints[i];
    return Norm(w.position - pose) < options_.reach_cm || (w.node >= 0 && w.node == update.current);
  };
  // A later way-point's node being current also passes the earlier ones.
  for (int i = last; i > target_; --i) {
    if (path_.waypoints[i].node >= 0 && path_.waypoints[i].node == update.current) {
      target_ = i;
      break;
    }
  }
  while (target_ <= last && reached(target_)) ++target_;
  if (target_ > last) {
    active_ = false;
    return Status::kReached;
  }
  // Trajectory optimisation (§3.11): straight to the furthest way-point with a clear line.
  while (target_ < last && Clear(scan, pose, path_.waypoints[target_ + 1].position)) {
    ++target_;  // the thesis masks the earlier way-point and steers to this one
    ++skipped_;
  }
  return Status::kFollowing;
}

}  // namespace limbic::laser
