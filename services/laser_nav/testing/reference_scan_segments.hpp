// The scan segmentation as it was before issue 21's performance work (ResolveScanObstacles, FindExitGaps,
// ExitGoalVector), kept verbatim as the oracle of the tests: the faster code must give the same obstacles,
// gaps and vectors, bit for bit, on any scan.
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <vector>

#include "services/laser_nav/scan_segments.hpp"

namespace limbic::laser::reference {

// Beam indices here stay within (−360, 720): a compare is cheaper than a modulo.
inline int Wrap(int a) { return a < 0 ? a + kBeams : (a >= kBeams ? a - kBeams : a); }
inline bool Hit(const RangeScan& s, int a) { return s[Wrap(a)] < kMaxRangeCm; }

// The scan's points (robot-relative), computed once per scan and stored twice over (720 entries), so
// every run of beams, even one across bearing 0, is contiguous. Trivial types: no zero-filling of
// arrays that are written before they are read (it was a third of the exit-gap search).
struct Point {
  double x, y;
};
using ScanPoints = std::array<Point, 2 * kBeams>;

inline void ToPoints(const RangeScan& s, ScanPoints* points) {
  const auto& u = BeamUnitVectors();
  for (int a = 0; a < kBeams; ++a) {
    const Point p{s[a] * u[a].x, s[a] * u[a].y};
    (*points)[a] = p;
    (*points)[a + kBeams] = p;
  }
}

// Shortest distance between the scan points of obstacles a and b; stops early (returning a value below
// `enough`) as soon as a pair closer than `enough` is found. Both runs are cut into blocks of 8 beams
// with bounding boxes, and a pair of blocks whose boxes are already farther apart than the best pair is
// skipped (the brute force over all pairs was most of the controller's cycle when walls made long runs).
// a's blocks are taken from its end facing b, b's from its start, where the nearest pair usually is.
struct Block {
  int first, count;  // into the run's points
  double x0, x1, y0, y1;
};
constexpr int kBlock = 8;
using Blocks = std::array<Block, kBeams / kBlock + 1>;

inline int MakeBlocks(const Point* run, int count, Blocks* blocks) {
  int n = 0;
  for (int j = 0; j < count; j += kBlock) {
    Block b{j, std::min(kBlock, count - j), run[j].x, run[j].x, run[j].y, run[j].y};
    for (int k = j + 1; k < j + b.count; ++k) {
      b.x0 = std::min(b.x0, run[k].x);
      b.x1 = std::max(b.x1, run[k].x);
      b.y0 = std::min(b.y0, run[k].y);
      b.y1 = std::max(b.y1, run[k].y);
    }
    (*blocks)[n++] = b;
  }
  return n;
}

inline double BoxGap2(const Block& a, const Block& b) {
  const double dx = std::max({a.x0 - b.x1, 0.0, b.x0 - a.x1});
  const double dy = std::max({a.y0 - b.y1, 0.0, b.y0 - a.y1});
  return dx * dx + dy * dy;
}

inline double ShortestDistance(const ScanPoints& pts, const ScanObstacle& a, const ScanObstacle& b, double enough,
                               Vec2* pa, Vec2* pb) {
  const Point* ra = &pts[a.first];
  const Point* rb = &pts[b.first];
  Blocks ba, bb;
  const int na = MakeBlocks(ra, a.count, &ba);
  const int nb = MakeBlocks(rb, b.count, &bb);
  double best2 = std::numeric_limits<double>::infinity();
  const double enough2 = enough * enough;
  for (int i = na - 1; i >= 0; --i) {
    for (int j = 0; j < nb; ++j) {
      if (BoxGap2(ba[i], bb[j]) >= best2) continue;
      for (int p = ba[i].first + ba[i].count - 1; p >= ba[i].first; --p) {
        for (int q = bb[j].first; q < bb[j].first + bb[j].count; ++q) {
          const double dx = ra[p].x - rb[q].x, dy = ra[p].y - rb[q].y;
          const double d2 = dx * dx + dy * dy;
          if (d2 < best2) {
            best2 = d2;
            *pa = {ra[p].x, ra[p].y};
            *pb = {rb[q].x, rb[q].y};
            if (d2 < enough2) return std::sqrt(d2);
          }
        }
      }
    }
  }
  return std::sqrt(best2);
}

inline std::vector<ScanObstacle> ResolveScanObstacles(const RangeScan& s, const SegmentOptions& o) {
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

inline std::vector<ExitGap> FindExitGaps(const RangeScan& s, const SegmentOptions& o) {
  std::vector<ExitGap> gaps;
  const std::vector<ScanObstacle> obstacles = reference::ResolveScanObstacles(s, o);
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

inline Vec2 ExitGoalVector(const RangeScan& s, double goal_bearing_deg, const SegmentOptions& o) {
  bool any_hit = false;
  for (int a = 0; a < kBeams && !any_hit; ++a) any_hit = Hit(s, a);
  if (!any_hit) return UnitVector(goal_bearing_deg);
  const std::vector<ExitGap> gaps = reference::FindExitGaps(s, o);
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

}  // namespace limbic::laser::reference
