#include "services/laser_nav/scan_segments.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdlib>
#include <limits>

namespace limbic::laser {
namespace {

// The obstacles of one scan in a fixed array (a scan has at most 360 runs): the controller resolves them
// every cycle, and a vector per cycle was a fifth of the exit-gap search.
// A trivial type, so the array is not zero-filled every cycle.
struct Run {
  int first, count, closest, range;
};
struct Obstacles {
  std::array<Run, kBeams> item;
  int n;
};

constexpr int kNoReturn = 250;  // kMaxRangeCm as the scan's bytes read it

// §3.2 steps 1–3. `cut[a]`: beams a − 1 → a do not belong to the same obstacle (either misses, or their
// ranges differ by more than the jump), all computed in one pass; a beam without a cut continues the run
// of its predecessor, which therefore has a return.
void Resolve(const RangeScan& s, const SegmentOptions& o, Obstacles* out) {
  // |r_a − r_b| ≤ jump for whole centimetres is |r_a − r_b| ≤ ⌊jump⌋ (NaN or negative: never).
  const int jump = o.jump_cm >= 0.0 ? static_cast<int>(std::floor(std::min(o.jump_cm, 1000.0))) : -1;
  std::array<uint8_t, kBeams> cut;
  int prev = s[kBeams - 1];
  for (int a = 0; a < kBeams; ++a) {
    const int v = s[a];
    cut[a] = !((prev < kNoReturn) & (v < kNoReturn) & (std::abs(prev - v) <= jump));
    prev = v;
  }
  // Step 1: start where a discontinuity begins a run.
  int start = 0;
  while (start < kBeams && !cut[start]) ++start;
  int n = 0;
  if (start == kBeams) {  // one closed surface all round: a single run from beam 0
    Run run{0, kBeams, 0, s[0]};
    for (int a = 1; a < kBeams; ++a) {
      if (s[a] < run.range) {
        run.range = s[a];
        run.closest = a;
      }
    }
    out->item[n++] = run;
    out->n = n;
    return;
  }
  // Steps 2–3: walk 360 beams from there (two contiguous stretches); maximal runs of continuous hit beams.
  bool open = false;
  Run run{};
  auto walk = [&](int from, int to) {
    for (int a = from; a < to; ++a) {
      const int v = s[a];
      if (cut[a]) {
        if (open) out->item[n++] = run;
        open = v < kNoReturn;
        run = {a, 1, a, v};
      } else {
        ++run.count;
        if (v < run.range) {
          run.range = v;
          run.closest = a;
        }
      }
    }
  };
  walk(start, kBeams);
  walk(0, start);
  if (open) out->item[n++] = run;
  out->n = n;
}

// The scan's points (robot-relative), stored twice over (720 entries) so every run of beams, even one
// across bearing 0, is contiguous; computed for the obstacles' beams only. Trivial types: no zero-filling
// of arrays that are written before they are read.
struct Point {
  double x, y;
};
using ScanPoints = std::array<Point, 2 * kBeams>;

// Shortest distance between the scan points of obstacles a and b; stops early (returning a value below
// `enough`) as soon as a pair closer than `enough` is found. Both runs are cut into blocks of 8 beams
// with bounding boxes; a pair of blocks whose boxes are already farther apart than the best pair is
// skipped, and so is a point farther from the other block's box than the best pair (the brute force
// over all pairs was most of the controller's cycle when walls made long runs). a's blocks are taken
// from its end facing b, b's from its start, where the nearest pair usually is. Skipping only ever drops
// pairs that could not be strictly closer than the best so far (the box gaps are computed from the same
// coordinates, and rounding is monotonic), so the pair found (and, with `enough`, the first pair found
// below it) is the brute force's in the same order.
struct Block {
  int first, count;  // into the run's points
  double x0, x1, y0, y1;
};
constexpr int kBlock = 8;
// Every obstacle's points and blocks, made once per scan and only for obstacles whose gaps are searched
// (each obstacle is in two pairs): at most one partial block per obstacle beyond 360 / 8 full ones.
struct Blocks {
  ScanPoints points;
  std::array<Block, kBeams / kBlock + kBeams> item;
  std::array<int, kBeams + 1> begin;  // obstacle i's blocks are item[begin[i] .. begin[i + 1])
  std::array<uint8_t, kBeams> made;
};

void PrepareBlocks(const Obstacles& obstacles, Blocks* blocks) {
  int n = 0;
  for (int i = 0; i < obstacles.n; ++i) {
    blocks->begin[i] = n;
    n += (obstacles.item[i].count + kBlock - 1) / kBlock;
  }
  blocks->begin[obstacles.n] = n;
  std::fill_n(blocks->made.begin(), obstacles.n, uint8_t{0});
}

void MakeBlocks(const RangeScan& s, const Obstacles& obstacles, int i, Blocks* blocks) {
  if (blocks->made[i]) return;
  blocks->made[i] = 1;
  const auto& u = BeamUnitVectors();
  const Run& run = obstacles.item[i];
  Point* p = &blocks->points[run.first];
  for (int k = 0; k < run.count; ++k) {
    const int at = run.first + k;
    const int a = at >= kBeams ? at - kBeams : at;
    p[k] = {s[a] * u[a].x, s[a] * u[a].y};
  }
  Block* out = &blocks->item[blocks->begin[i]];
  for (int j = 0; j < run.count; j += kBlock) {
    Block b{j, std::min(kBlock, run.count - j), p[j].x, p[j].x, p[j].y, p[j].y};
    for (int k = j + 1; k < j + b.count; ++k) {
      b.x0 = std::min(b.x0, p[k].x);
      b.x1 = std::max(b.x1, p[k].x);
      b.y0 = std::min(b.y0, p[k].y);
      b.y1 = std::max(b.y1, p[k].y);
    }
    *out++ = b;
  }
}

double BoxGap2(const Block& a, const Block& b) {
  const double dx = std::max({a.x0 - b.x1, 0.0, b.x0 - a.x1});
  const double dy = std::max({a.y0 - b.y1, 0.0, b.y0 - a.y1});
  return dx * dx + dy * dy;
}

// Squared gap between point p and a block's box: a lower bound of p's distance to any of its points.
double PointGap2(const Point& p, const Block& b) {
  const double dx = std::max({b.x0 - p.x, 0.0, p.x - b.x1});
  const double dy = std::max({b.y0 - p.y, 0.0, p.y - b.y1});
  return dx * dx + dy * dy;
}

double ShortestDistance(const Blocks& blocks, const Obstacles& obstacles, int ia, int ib, double enough, Vec2* pa,
                        Vec2* pb) {
  const Point* ra = &blocks.points[obstacles.item[ia].first];
  const Point* rb = &blocks.points[obstacles.item[ib].first];
  const Block* ba = &blocks.item[blocks.begin[ia]];
  const Block* bb = &blocks.item[blocks.begin[ib]];
  const int na = blocks.begin[ia + 1] - blocks.begin[ia];
  const int nb = blocks.begin[ib + 1] - blocks.begin[ib];
  double best2 = std::numeric_limits<double>::infinity();
  const double enough2 = enough * enough;
  for (int i = na - 1; i >= 0; --i) {
    for (int j = 0; j < nb; ++j) {
      if (BoxGap2(ba[i], bb[j]) >= best2) continue;
      for (int p = ba[i].first + ba[i].count - 1; p >= ba[i].first; --p) {
        if (PointGap2(ra[p], bb[j]) >= best2) continue;
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

// The gap between obstacle i and its clockwise neighbour, if it is an exit (≥ min_exit_width_cm).
bool PairGap(const RangeScan& s, const SegmentOptions& o, const Obstacles& obstacles, int i, Blocks* blocks,
             ExitGap* gap) {
  const int j = (i + 1) % obstacles.n;
  MakeBlocks(s, obstacles, i, blocks);
  MakeBlocks(s, obstacles, j, blocks);
  Vec2 pa, pb;
  const double width = ShortestDistance(*blocks, obstacles, i, j, o.min_exit_width_cm, &pa, &pb);
  if (width < o.min_exit_width_cm) return false;
  const Vec2 mid = 0.5 * (pa + pb);
  *gap = {mid, BearingOf(mid), width, false};
  return true;
}

// Gaps between angularly adjacent obstacles (clockwise neighbours, the last with the first). Two
// obstacles are each other's neighbour on both sides, with one shortest segment: one pair.
int Pairs(const Obstacles& obstacles) { return obstacles.n < 2 ? 0 : (obstacles.n == 2 ? 1 : obstacles.n); }

// Runs of ≥ min_open_run beams with no return, starting after the first hit → miss change.
template <typename F>
void ForEachOpenRun(const RangeScan& s, const SegmentOptions& o, F&& gap) {
  auto hit = [&](int a) { return s[a] < kNoReturn; };
  int start = -1;
  for (int a = 0; a < kBeams; ++a) {
    if (hit(a) && !hit(a + 1 >= kBeams ? 0 : a + 1)) {
      start = a + 1 >= kBeams ? a + 1 - kBeams : a + 1;
      break;
    }
  }
  if (start < 0) return;
  int run = 0;
  for (int k = 0; k <= kBeams; ++k) {
    const int a = start + k;
    if (k < kBeams && !hit(a >= kBeams ? a - kBeams : a)) {
      ++run;
      continue;
    }
    if (run >= o.min_open_run) {
      const double centre = Wrap360(a - 1 - 0.5 * (run - 1));
      gap(ExitGap{o.open_target_cm * UnitVector(centre), centre, 0.0, true});
    }
    run = 0;
  }
}

// A lower bound of |angdiff(bearing of pair i's gap, goal)|: the gap's target is the midpoint of one
// scan point of each obstacle, so it lies in the cone between them, inside the clockwise arc from the
// first obstacle's first beam to the second's last — when that arc is under 179° (else 0: no bound).
double GapBearingBound(const Obstacles& obstacles, int i, double goal_bearing_deg) {
  const Run& a = obstacles.item[i];
  const Run& b = obstacles.item[(i + 1) % obstacles.n];
  const int extent = ((b.first + b.count - 1 - a.first) % kBeams + kBeams) % kBeams;
  if (extent >= 179) return 0.0;
  if (Wrap360(goal_bearing_deg - a.first) <= extent) return 0.0;
  return std::min(AngDiff(goal_bearing_deg, a.first), AngDiff(goal_bearing_deg, a.first + extent));
}

}  // namespace

std::vector<ScanObstacle> ResolveScanObstacles(const RangeScan& s, const SegmentOptions& o) {
  Obstacles obstacles;
  Resolve(s, o, &obstacles);
  std::vector<ScanObstacle> out(static_cast<size_t>(obstacles.n));
  for (int i = 0; i < obstacles.n; ++i) {
    const Run& r = obstacles.item[i];
    out[i] = {r.first, r.count, r.closest, static_cast<double>(r.range)};
  }
  return out;
}

std::vector<ExitGap> FindExitGaps(const RangeScan& s, const SegmentOptions& o) {
  std::vector<ExitGap> gaps;
  Obstacles obstacles;
  Resolve(s, o, &obstacles);
  Blocks blocks;
  PrepareBlocks(obstacles, &blocks);
  ExitGap gap;
  for (int i = 0; i < Pairs(obstacles); ++i) {
    if (PairGap(s, o, obstacles, i, &blocks, &gap)) gaps.push_back(gap);
  }
  ForEachOpenRun(s, o, [&](const ExitGap& g) { gaps.push_back(g); });
  return gaps;
}

Vec2 ExitGoalVector(const RangeScan& s, double goal_bearing_deg, const SegmentOptions& o) {
  bool any_hit = false;
  for (int a = 0; a < kBeams && !any_hit; ++a) any_hit = s[a] < kMaxRangeCm;
  if (!any_hit) return UnitVector(goal_bearing_deg);
  // The gap of FindExitGaps(s) whose bearing is closest to the goal's (ties: the first in that order),
  // by branch and bound: the open runs are cheap and come first; then the pairs in order of a lower
  // bound of their bearing's difference, stopping once no pair left could beat the best so far. A pair
  // skipped so differs from the goal by more than the chosen gap, so the choice is the full search's.
  // (The margin covers the rounding of a midpoint's bearing, ~1e-13°.)
  constexpr double kMargin = 1e-6;
  double open_diff = std::numeric_limits<double>::infinity(), open_bearing = 0.0;
  ForEachOpenRun(s, o, [&](const ExitGap& g) {
    const double d = AngDiff(g.bearing_deg, goal_bearing_deg);
    if (d < open_diff) {
      open_diff = d;
      open_bearing = g.bearing_deg;
    }
  });
  Obstacles obstacles;
  Resolve(s, o, &obstacles);
  const int pairs = Pairs(obstacles);
  std::array<double, kBeams> bound, diff, bearing;
  std::array<int, kBeams> order;
  for (int i = 0; i < pairs; ++i) {
    bound[i] = GapBearingBound(obstacles, i, goal_bearing_deg);
    diff[i] = std::numeric_limits<double>::infinity();  // not an exit, or not searched
    int k = i;                                          // insertion sort by bound, stable
    while (k > 0 && bound[order[k - 1]] > bound[i]) {
      order[k] = order[k - 1];
      --k;
    }
    order[k] = i;
  }
  Blocks blocks;
  PrepareBlocks(obstacles, &blocks);
  double best = open_diff;
  ExitGap gap;
  for (int k = 0; k < pairs; ++k) {
    const int i = order[k];
    if (bound[i] > best + kMargin) break;
    if (!PairGap(s, o, obstacles, i, &blocks, &gap)) continue;
    diff[i] = AngDiff(gap.bearing_deg, goal_bearing_deg);
    bearing[i] = gap.bearing_deg;
    best = std::min(best, diff[i]);
  }
  // FindExitGaps' order: the pairs, then the open runs; strict < keeps the first of equals.
  bool found = false;
  double best_diff = std::numeric_limits<double>::infinity(), best_bearing = 0.0;
  for (int i = 0; i < pairs; ++i) {
    if (diff[i] < best_diff) {
      best_diff = diff[i];
      best_bearing = bearing[i];
      found = true;
    }
  }
  if (open_diff < best_diff) {
    best_diff = open_diff;
    best_bearing = open_bearing;
    found = true;
  }
  return found ? UnitVector(best_bearing) : Vec2{};
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
