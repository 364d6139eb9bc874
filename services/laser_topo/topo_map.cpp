#include "services/laser_topo/topo_map.hpp"

#include <algorithm>
#include <cmath>
#include <deque>
#include <stdexcept>

namespace limbic::laser {
namespace {

// [−90, 90): the deviation of an undirected bearing from a reference (§3.6 step 4).
double Wrap90(double deg) { return Fold180(deg + 90.0) - 90.0; }

double StdDev(double s, double ss, int64_t n) {
  if (n < 2) return 0.0;
  const double mean = s / static_cast<double>(n);
  return std::sqrt(std::max(0.0, ss / static_cast<double>(n) - mean * mean));
}

}  // namespace

void ValidateTopoMapOptions(const TopoMapOptions& o) {
  for (double v : {o.gate_bearing_deg, o.gate_length_cm, o.gate_sigmas, o.revisit_cm, o.exit_min_length_cm,
                   o.exit_near_node_cm, o.exit_prob_base, o.exit_prob_max, o.exit_unseen_margin_cm, o.exit_decay,
                   o.exit_usable_prob, o.mask2_distance_cm, o.stationary_cm, o.stationary_move_fraction}) {
    if (!(std::isfinite(v) && v >= 0.0)) throw std::invalid_argument("topological map: thresholds must be >= 0");
  }
  if (o.max_links < 1 || o.max_exit_tries < 1 || o.stationary_cycles < 1) {
    throw std::invalid_argument("topological map: max_links, max_exit_tries and stationary_cycles must be >= 1");
  }
}

const NodeLink* TopoNode::LinkTo(int other) const {
  for (const NodeLink& l : links)
    if (l.to == other) return &l;
  return nullptr;
}

bool TopoNode::ExitUsable(int k, double usable_prob) const {
  const NodeExit& e = exits[k];
  return e.filled && e.prob >= usable_prob && e.mask == kExitOpen;
}

bool TopoNode::operator==(const TopoNode& o) const {
  auto same = [](Vec2 a, Vec2 b) { return a.x == b.x && a.y == b.y; };
  return id == o.id && bearing_deg == o.bearing_deg && length_cm == o.length_cm &&
         ref_bearing_deg == o.ref_bearing_deg && s_bearing == o.s_bearing && ss_bearing == o.ss_bearing &&
         s_length == o.s_length && ss_length == o.ss_length && n == o.n && v_bearing == o.v_bearing &&
         v_length == o.v_length && north == o.north && east == o.east && south == o.south && west == o.west &&
         same(rel, o.rel) && same(rel_sum, o.rel_sum) && rel_n == o.rel_n && links == o.links && exits == o.exits &&
         perspective == o.perspective && goal_seen == o.goal_seen && visits == o.visits &&
         calibrated_this_visit == o.calibrated_this_visit;
}

Vec2 TopoNode::ExitPosition(int k) const { return rel + exits[k].range_cm * UnitVector(exits[k].bearing_deg); }

int ExitSector(double bearing_deg) {
  // §3.8 step 2 / MaskExit1: (int)(β + 23) / 45, sector 8 is sector 0.
  return (static_cast<int>(Wrap360(bearing_deg) + 23.0) / 45) % 8;
}

TopoMap::TopoMap(const TopoMapOptions& options) : options_(options) { ValidateTopoMapOptions(options); }

double TopoMap::LinksPerNode() const {
  if (nodes_.empty()) return 0.0;
  size_t links = 0;
  for (const TopoNode& n : nodes_) links += n.links.size();
  return static_cast<double>(links) / static_cast<double>(nodes_.size());
}

void TopoMap::Relocate() {
  current_ = -1;
  have_last_ = false;
  stationary_count_ = 0;
}

bool TopoMap::Matches(const TopoNode& node, double bearing, double length) const {
  // §3.6: a new node when the bearing OR the length leaves its gate (A12).
  return D180(bearing, node.bearing_deg) <= options_.gate_sigmas * node.v_bearing + options_.gate_bearing_deg &&
         std::fabs(length - node.length_cm) <= options_.gate_sigmas * node.v_length + options_.gate_length_cm;
}

int TopoMap::CreateNode(const Feature& f, Vec2 pose) {
  TopoNode node;
  node.id = static_cast<int>(nodes_.size());
  node.bearing_deg = f.bearing_deg;
  node.length_cm = f.length_cm;
  node.ref_bearing_deg = f.bearing_deg;
  node.rel = pose + f.Midpoint();  // rel = p_est + nvr·u(nvb)
  node.north = node.south = pose.y;
  node.east = node.west = pose.x;
  nodes_.push_back(node);
  return node.id;
}

void TopoMap::Link(int a, int b) {
  if (a < 0 || b < 0 || a == b) return;
  TopoNode& A = nodes_[a];
  TopoNode& B = nodes_[b];
  if (A.LinkTo(b) || static_cast<int>(A.links.size()) >= options_.max_links ||
      static_cast<int>(B.links.size()) >= options_.max_links) {
    return;
  }
  // §3.6 step 2: L = (new.rel − p) − (old.rel − p) = new.rel − old.rel.
  const Vec2 l = B.rel - A.rel;
  const double range = Norm(l), bearing = BearingOf(l);
  A.links.push_back({b, range, bearing});
  B.links.push_back({a, range, Wrap360(bearing + 180.0)});
}

int TopoMap::ResolveCircular(int exclude, const Feature& f, Vec2 midpoint, int old) {
  // §3.6 step 3 (A26): the same characterisation (m's gates, strict) within 30 cm; the nearest wins.
  int best = -1;
  double best_d = options_.revisit_cm;
  for (const TopoNode& m : nodes_) {
    if (m.id == exclude || m.id == old) continue;
    if (!(D180(f.bearing_deg, m.bearing_deg) < options_.gate_sigmas * m.v_bearing + options_.gate_bearing_deg))
      continue;
    if (!(std::fabs(f.length_cm - m.length_cm) < options_.gate_sigmas * m.v_length + options_.gate_length_cm)) continue;
    const double d = Norm(midpoint - m.rel);
    if (d < best_d) {
      best_d = d;
      best = m.id;
    }
  }
  return best;
}

void TopoMap::AddSample(TopoNode& node, const Feature& f, Vec2 midpoint, Vec2 pose, bool goal_in_sight) {
  // §3.6 step 4: sums for the running means and standard deviations (A13); the bearing with 180° wrap.
  if (node.n == 0) node.ref_bearing_deg = f.bearing_deg;
  const double dev = Wrap90(f.bearing_deg - node.ref_bearing_deg);
  node.s_bearing += dev;
  node.ss_bearing += dev * dev;
  node.s_length += f.length_cm;
  node.ss_length += f.length_cm * f.length_cm;
  ++node.n;
  const double n = static_cast<double>(node.n);
  node.bearing_deg = Fold180(node.ref_bearing_deg + node.s_bearing / n);
  node.length_cm = node.s_length / n;
  node.v_bearing = StdDev(node.s_bearing, node.ss_bearing, node.n);
  node.v_length = StdDev(node.s_length, node.ss_length, node.n);
  node.north = std::max(node.north, pose.y);
  node.south = std::min(node.south, pose.y);
  node.east = std::max(node.east, pose.x);
  node.west = std::min(node.west, pose.x);
  if (node.visits == 1 && f.perspective) {
    node.rel_sum = node.rel_sum + midpoint;
    ++node.rel_n;
    node.rel = (1.0 / static_cast<double>(node.rel_n)) * node.rel_sum;
  }
  if (f.perspective) node.perspective = true;
  if (goal_in_sight) node.goal_seen = true;
}

MapUpdate TopoMap::Update(const std::vector<Feature>& features, int classified, Vec2 pose, bool goal_in_sight) {
  MapUpdate u;
  u.current = current_;
  if (classified < 0 || classified >= static_cast<int>(features.size())) return u;  // open space: no update
  if (!(std::isfinite(pose.x) && std::isfinite(pose.y))) return u;
  const Feature& f = features[classified];
  const Vec2 midpoint = pose + f.Midpoint();
  const int previous = current_;
  u.updated = true;
  if (current_ < 0 || !Matches(nodes_[current_], f.bearing_deg, f.length_cm)) {
    const int old = current_;
    const int found = ResolveCircular(-1, f, midpoint, old);
    if (found >= 0) {
      current_ = found;
      u.revisit = true;
    } else {
      current_ = CreateNode(f, pose);
      u.created = true;
    }
    Link(old, current_);
  }
  u.current = current_;
  u.changed = current_ != previous;
  TopoNode& node = nodes_[current_];
  if (u.changed) {
    if (u.revisit) {
      ++node.visits;
      node.calibrated_this_visit = false;
    }
    have_last_ = false;
    stationary_count_ = 0;
  }
  AddSample(node, f, midpoint, pose, goal_in_sight);
  // §3.7: a stationary feature with a good perspective calibrates the pose on a revisit.
  if (have_last_) {
    const double moved = Norm(midpoint - last_midpoint_);
    stationary_count_ = moved < options_.stationary_cm + options_.stationary_move_fraction * Norm(pose - last_pose_)
                            ? stationary_count_ + 1
                            : 0;
  }
  have_last_ = true;
  last_midpoint_ = midpoint;
  last_pose_ = pose;
  u.good_perspective = stationary_count_ >= options_.stationary_cycles && f.perspective;
  if (u.good_perspective && options_.self_localise && node.visits > 1 && !node.calibrated_this_visit) {
    u.correction = node.rel - midpoint;
    u.corrected = true;
    node.calibrated_this_visit = true;
  }
  UpdateExits(node, features, classified, pose);
  MaskExits(current_);
  return u;
}

void TopoMap::UpdateExits(TopoNode& node, const std::vector<Feature>& features, int classified, Vec2 pose) {
  // §3.8 steps 1–2: this cycle's candidate per sector.
  std::array<int, 8> pick;
  pick.fill(-1);
  std::array<double, 8> pick_d{};
  for (int i = 0; i < static_cast<int>(features.size()); ++i) {
    const Feature& f = features[i];
    if (i == classified || !f.adjacent || f.length_cm < options_.exit_min_length_cm) continue;
    const Vec2 g = pose + f.Midpoint();
    if (Norm(g - node.rel) <= options_.exit_near_node_cm) continue;
    const int k = ExitSector(BearingOf(g - node.rel));
    // A filled slot keeps the candidate nearest to its stored position; an empty one takes the first
    // (features come nearest obstacles first).
    const double d = node.exits[k].filled ? Norm(g - node.ExitPosition(k)) : 0.0;
    if (pick[k] < 0 || d < pick_d[k]) {
      pick[k] = i;
      pick_d[k] = d;
    }
  }
  for (int k = 0; k < 8; ++k) {
    NodeExit& e = node.exits[k];
    if (pick[k] >= 0) {
      const Feature& f = features[pick[k]];
      const Vec2 v = pose + f.Midpoint() - node.rel;
      const double beta = BearingOf(v);
      const double proj = Dot(pose - node.rel, UnitVector(beta));  // §3.8 step 3
      if (!e.filled) {
        e = NodeExit{};
        e.filled = true;
        e.proj_seen_cm = proj;
      }
      e.feature_bearing_deg = f.bearing_deg;
      e.feature_length_cm = f.length_cm;
      e.bearing_deg = beta;
      e.range_cm = Norm(v);
      e.prob = std::min(options_.exit_prob_max, std::max(e.prob, options_.exit_prob_base + proj));
      e.proj_seen_cm = std::max(e.proj_seen_cm, proj);
    } else if (e.filled) {
      const double proj = Dot(pose - node.rel, UnitVector(e.bearing_deg));
      if (proj > e.proj_seen_cm + options_.exit_unseen_margin_cm) {
        e.prob -= options_.exit_decay;
        if (e.prob <= 0.0) e = NodeExit{};
      }
    }
  }
}

bool TopoMap::RecordExitAttempt(int id, int sector, ExitOutcome outcome) {
  if (id < 0 || id >= static_cast<int>(nodes_.size()) || sector < 0 || sector >= 8) return false;
  NodeExit& e = nodes_[id].exits[sector];
  if (!e.filled) return false;
  switch (outcome) {
    case ExitOutcome::kStarted:
      ++e.tries;
      break;
    case ExitOutcome::kReached:
      if (!options_.reached_is_not_a_try || e.tries == 0) return true;
      --e.tries;
      // The mask the two-tries rule set came from this try; the other procedures run again below.
      if (e.mask == kMaskTries && e.tries < options_.max_exit_tries) e.mask = kExitOpen;
      break;
    case ExitOutcome::kAbandoned:
      return true;  // the try was counted when it started
  }
  MaskExits(id);  // §3.10: masked after two tries (an exit of a node other than the current one too)
  return true;
}

void TopoMap::MaskExits(int id) {
  if (id < 0 || id >= static_cast<int>(nodes_.size())) return;
  TopoNode& node = nodes_[id];
  // MaskExit1: a link leaves through the exit's sector.
  for (const NodeLink& l : node.links) {
    NodeExit& e = node.exits[ExitSector(l.bearing_deg)];
    if (e.mask == kExitOpen) e.mask = kMaskLink;
  }
  // MaskExit2's candidates: nodes reachable through links, except this node and its direct neighbours.
  std::vector<int> reachable;
  {
    std::vector<bool> seen(nodes_.size(), false);
    std::deque<int> queue{id};
    seen[id] = true;
    while (!queue.empty()) {
      const int n = queue.front();
      queue.pop_front();
      for (const NodeLink& l : nodes_[n].links) {
        if (seen[l.to]) continue;
        seen[l.to] = true;
        queue.push_back(l.to);
        if (!node.LinkTo(l.to)) reachable.push_back(l.to);
      }
    }
  }
  for (int k = 0; k < 8; ++k) {
    NodeExit& e = node.exits[k];
    if (!e.filled || e.mask != kExitOpen) continue;
    const Vec2 where = node.ExitPosition(k);
    // MaskExit2: a similar node already sits where the exit leads.
    for (int m : reachable) {
      const TopoNode& o = nodes_[m];
      if (D180(o.bearing_deg, e.feature_bearing_deg) < options_.gate_sigmas * o.v_bearing + options_.gate_bearing_deg &&
          std::fabs(o.length_cm - e.feature_length_cm) < options_.gate_sigmas * o.v_length + options_.gate_length_cm &&
          Norm(o.rel - where) < options_.mask2_distance_cm) {
        e.mask = kMaskKnownNode;
        break;
      }
    }
    if (e.mask != kExitOpen) continue;
    // MaskExit3: the exit runs into the explored area of a linked node (the arc swept by the vectors to
    // its box corners, and beyond the nearest corner). A node whose box holds this node's middle spans
    // no arc and is skipped.
    for (const NodeLink& l : node.links) {
      const TopoNode& o = nodes_[l.to];
      if (node.rel.x >= o.west && node.rel.x <= o.east && node.rel.y >= o.south && node.rel.y <= o.north) continue;
      const std::array<Vec2, 4> corners{Vec2{o.west, o.north}, Vec2{o.east, o.north}, Vec2{o.east, o.south},
                                        Vec2{o.west, o.south}};
      std::array<double, 4> b{};
      double shortest = 1e300;
      for (int c = 0; c < 4; ++c) {
        b[c] = BearingOf(corners[c] - node.rel);
        shortest = std::min(shortest, Norm(corners[c] - node.rel));
      }
      std::sort(b.begin(), b.end());
      // The smallest arc holding the four bearings is the circle minus the largest gap between them.
      int gap_after = 3;
      double largest = b[0] + 360.0 - b[3];
      for (int c = 0; c < 3; ++c) {
        if (b[c + 1] - b[c] > largest) {
          largest = b[c + 1] - b[c];
          gap_after = c;
        }
      }
      const double arc_start = b[(gap_after + 1) % 4];
      const double arc_len = 360.0 - largest;
      const bool inside = Wrap360(e.bearing_deg - arc_start) <= arc_len;
      if (inside && e.range_cm > shortest) {
        e.mask = kMaskAdjacentArea;
        break;
      }
    }
    // Spurious exits (§3.10): masked anyway after two attempts.
    if (e.mask == kExitOpen && e.tries >= options_.max_exit_tries) e.mask = kMaskTries;
  }
}

}  // namespace limbic::laser
