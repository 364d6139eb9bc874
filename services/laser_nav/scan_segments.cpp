#include "services/laser_nav/scan_segments.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdlib>
#include <limits>

namespace limbic::laser {
namespace {

// Beam indices here stay within (−360, 720): a compare is cheaper than a modulo.
inline int Wrap(int a) { return a < 0 ? a + kBeams : (a >= kBeams ? a - kBeams : a); }
inline bool Hit(const RangeScan& s, int a) { return s[Wrap(a)] < kMaxRangeCm; }

// The scan's points (robot-relative), computed once per scan.
using ScanPoints = std::array<Vec2, kBeams>;

void ToPoints(const RangeScan& s, ScanPoints* points) {
  const auto& u = BeamUnitVectors();
  for (int a = 0; a < kBeams; ++a) (*points)[a] = static_cast<double>(s[a]) * u[a];
}

// Shortest distance between the scan points of obstacles a and b; stops early (returning a value below
// `enough`) as soon as a pair closer than `enough` is found. Walks a's beams from the end facing b, and
// skips every block of 8 of b's beams whose bounding box is already farther than the best pair (the
// brute force over all pairs was most of the controller's cycle when walls were long runs).
double ShortestDistance(const ScanPoints& pts, const ScanObstacle& a, const ScanObstacle& b, double enough, Vec2* pa,
                        Vec2* pb) {
  constexpr int kBlock = 8;
  struct Box {
    int first, count;
    double x0, x1, y0, y1;
  };
  std::array<Box, kBeams / kBlock + 1> boxes;
  int n_boxes = 0;
  for (int j = 0; j < b.count; j += kBlock) {
    Box box{j, std::min(kBlock, b.count - j), 1e300, -1e300, 1e300, -1e300};
    for (int k = 0; k < box.count; ++k) {
      const Vec2 q = pts[Wrap(b.first + j + k)];
      box.x0 = std::min(box.x0, q.x);
      box.x1 = std::max(box.x1, q.x);
      box.y0 = std::min(box.y0, q.y);
      box.y1 = std::max(box.y1, q.y);
    }
    boxes[n_boxes++] = box;
  }
  std::array<Vec2, kBeams> bq;
  for (int k = 0; k < b.count; ++k) bq[k] = pts[Wrap(b.first + k)];
  double best2 = std::numeric_limits<double>::infinity();
  const double enough2 = enough * enough;
  for (int i = a.count - 1; i >= 0; --i) {
    const Vec2 p = pts[Wrap(a.first + i)];
    for (int m = 0; m < n_boxes; ++m) {
      const Box& box = boxes[m];
      const double dx = std::max({box.x0 - p.x, 0.0, p.x - box.x1});
      const double dy = std::max({box.y0 - p.y, 0.0, p.y - box.y1});
      if (dx * dx + dy * dy >= best2) continue;
      for (int k = 0; k < box.count; ++k) {
        const Vec2 q = bq[box.first + k];
        const double d2 = (p.x - q.x) * (p.x - q.x) + (p.y - q.y) * (p.y - q.y);
        if (d2 < best2) {
          best2 = d2;
          *pa = p;
          *pb = q;
          if (d2 < enough2) return std::sqrt(d2);
        }
      }
    }
  }
  return std::sqrt(best2);
}

}  // namespace

std::vector<ScanObstacle> ResolveScanObstacles(const RangeScan& s, const SegmentOptions& o) {
  std::vector<ScanObstacle> out;
  auto continuous = [&](int a, int b) {  // beams a → b belong to the same obstacle
    return Hit(s, a) && Hit(s, b) && std::abs(static_cast<int>(s[Wrap(a)]) - static_cast<int>(s[Wrap(b)])) <= o.jump_cm;
  };
  // Step 1: start where a discontinuity (a jump or a hit/no-hit change) begins a run.
  int start = 0;
  for (int a = 0; a < kBeams; ++a) {
    if (!continuous(a - 1, a)) {
      start = a;
      break;
    }
  }
  // Step 2–3: walk 360 beams from there; maximal runs of continuous hit beams.
  ScanObstacle current;
  bool open = false;
  for (int k = 0; k < kBeams; ++k) {
    const int a = Wrap(start + k);
    if (!Hit(s, a)) {
      if (open) out.push_back(current);
      open = false;
      continue;
    }
    if (open && continuous(a - 1, a)) {
      ++current.count;
    } else {
      if (open) out.push_back(current);
      current = {a, 1, a, static_cast<double>(s[a])};
      open = true;
    }
    if (s[a] < current.range_cm) {
      current.range_cm = s[a];
      current.closest = a;
    }
  }
  if (open) out.push_back(current);
  return out;
}

std::vector<ExitGap> FindExitGaps(const RangeScan& s, const SegmentOptions& o) {
  std::vector<ExitGap> gaps;
  const std::vector<ScanObstacle> obstacles = ResolveScanObstacles(s, o);
  ScanPoints pts;
  if (obstacles.size() >= 2) ToPoints(s, &pts);
  // Gaps between angularly adjacent obstacles (clockwise neighbours, the last with the first).
  // Two obstacles are each other's neighbour on both sides, with one shortest segment: one pair.
  const size_t n = obstacles.size();
  const size_t pairs = n < 2 ? 0 : (n == 2 ? 1 : n);
  for (size_t i = 0; i < pairs; ++i) {
    const ScanObstacle& a = obstacles[i];
    const ScanObstacle& b = obstacles[(i + 1) % n];
    Vec2 pa, pb;
    const double width = ShortestDistance(pts, a, b, o.min_exit_width_cm, &pa, &pb);
    if (width < o.min_exit_width_cm) continue;
    const Vec2 mid = 0.5 * (pa + pb);
    gaps.push_back({mid, BearingOf(mid), width, false});
  }
  // Runs of ≥ min_open_run beams with no return.
  int start = -1;
  for (int a = 0; a < kBeams; ++a) {
    if (Hit(s, a) && !Hit(s, a + 1)) {
      start = Wrap(a + 1);
      break;
    }
  }
  if (start >= 0) {
    int run = 0;
    for (int k = 0; k <= kBeams; ++k) {
      const int a = start + k;
      if (k < kBeams && !Hit(s, a)) {
        ++run;
        continue;
      }
      if (run >= o.min_open_run) {
        const double centre = Wrap360(a - 1 - 0.5 * (run - 1));
        gaps.push_back({o.open_target_cm * UnitVector(centre), centre, 0.0, true});
      }
      run = 0;
    }
  }
  return gaps;
}

Vec2 ExitGoalVector(const RangeScan& s, double goal_bearing_deg, const SegmentOptions& o) {
  bool any_hit = false;
  for (int a = 0; a < kBeams && !any_hit; ++a) any_hit = Hit(s, a);
  if (!any_hit) return UnitVector(goal_bearing_deg);
  const std::vector<ExitGap> gaps = FindExitGaps(s, o);
  const ExitGap* best = nullptr;
  double best_diff = std::numeric_limits<double>::infinity();
  for (const ExitGap& g : gaps) {
    const double d = AngDiff(g.bearing_deg, goal_bearing_deg);
    if (d < best_diff) {
      best_diff = d;
      best = &g;
    }
  }
  return best ? UnitVector(best->bearing_deg) : Vec2{};
}

Vec2 TemporaryGoal::Compute(const RangeScan& s, double goal_bearing_deg) {
  int nearest = -1;
  for (int a = 0; a < kBeams; ++a) {
    if (s[a] < kMaxRangeCm && (nearest < 0 || s[a] < s[nearest])) nearest = a;
  }
  if (nearest < 0) return {};
  if (side_ == 0) {
    side_ = AngDiff(nearest + 90.0, goal_bearing_deg) <= AngDiff(nearest - 90.0, goal_bearing_deg) ? 1 : -1;
  }
  return UnitVector(nearest + 90.0 * side_);
}

}  // namespace limbic::laser
