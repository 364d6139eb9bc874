#include "services/laser_topo/perception.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "services/laser_nav/scan_segments.hpp"

namespace limbic::laser {
namespace {

TopoObstacle MakeObstacle(const RangeScan& s, int first, int count) {
  const auto& u = BeamUnitVectors();
  TopoObstacle o;
  o.bearing_min = first;
  o.bearing_max = (first + count - 1) % kBeams;
  o.points.reserve(count);
  for (int k = 0; k < count; ++k) {
    const int a = (first + k) % kBeams;
    o.points.push_back(static_cast<double>(s[a]) * u[a]);
    if (s[a] < o.range_cm) {  // §3.2 step 3: the closest point
      o.range_cm = s[a];
      o.bearing = a;
    }
  }
  if (count > 0 && o.range_cm >= kMaxRangeCm) o.bearing = first;
  return o;
}

struct Block {
  size_t first, count;
  double x0, x1, y0, y1;
};

std::vector<Block> MakeBlocks(const std::vector<Vec2>& pts) {
  constexpr size_t kBlock = 8;
  std::vector<Block> blocks;
  for (size_t j = 0; j < pts.size(); j += kBlock) {
    Block b{j, std::min(kBlock, pts.size() - j), pts[j].x, pts[j].x, pts[j].y, pts[j].y};
    for (size_t k = j + 1; k < j + b.count; ++k) {
      b.x0 = std::min(b.x0, pts[k].x);
      b.x1 = std::max(b.x1, pts[k].x);
      b.y0 = std::min(b.y0, pts[k].y);
      b.y1 = std::max(b.y1, pts[k].y);
    }
    blocks.push_back(b);
  }
  return blocks;
}

double BoxGap2(const Block& a, const Block& b) {
  const double dx = std::max({a.x0 - b.x1, 0.0, b.x0 - a.x1});
  const double dy = std::max({a.y0 - b.y1, 0.0, b.y0 - a.y1});
  return dx * dx + dy * dy;
}

}  // namespace

double Fold180(double deg) {
  double w = std::fmod(deg, 180.0);
  if (w < 0.0) w += 180.0;
  return w >= 180.0 ? 0.0 : w;
}

double D180(double x, double y) {
  const double d = Fold180(x - y);
  return std::min(d, 180.0 - d);
}

void ValidateTopoPerceptionOptions(const TopoPerceptionOptions& o) {
  if (!(o.jump_cm > 0.0 && o.split_turn_deg > 0.0 && o.min_exit_width_cm > 0.0)) {
    throw std::invalid_argument("topological perception: thresholds must be > 0");
  }
  if (o.split_span < 1 || o.max_obstacles < 2 || o.max_features < 1) {
    throw std::invalid_argument("topological perception: split_span >= 1, max_obstacles >= 2, max_features >= 1");
  }
}

std::vector<TopoObstacle> ResolveObstacles(const RangeScan& s, const TopoPerceptionOptions& o) {
  SegmentOptions seg;
  seg.jump_cm = o.jump_cm;
  std::vector<TopoObstacle> out;
  const auto& u = BeamUnitVectors();
  for (const ScanObstacle& run : ResolveScanObstacles(s, seg)) {  // §3.2 steps 1–3
    // Step 4: split where the surface turns by more than 60° between P_{a−3} → P_a and P_a → P_{a+3};
    // within a cluster of adjacent candidates only the sharpest turn splits.
    std::vector<int> cuts;  // offsets into the run: a part ends at the offset
    const int span = o.split_span;
    double best_turn = 0.0;
    int best_at = -1;
    auto point = [&](int k) {
      const int a = (run.first + k) % kBeams;
      return static_cast<double>(s[a]) * u[a];
    };
    for (int k = span; k + span < run.count; ++k) {
      const Vec2 p = point(k);
      const double turn = AngDiff(BearingOf(p - point(k - span)), BearingOf(point(k + span) - p));
      if (turn > o.split_turn_deg) {
        if (turn > best_turn) {
          best_turn = turn;
          best_at = k;
        }
      } else if (best_at >= 0) {
        cuts.push_back(best_at);
        best_at = -1;
        best_turn = 0.0;
      }
    }
    if (best_at >= 0) cuts.push_back(best_at);
    int begin = 0;
    for (int cut : cuts) {
      out.push_back(MakeObstacle(s, (run.first + begin) % kBeams, cut - begin + 1));
      begin = cut + 1;
    }
    out.push_back(MakeObstacle(s, (run.first + begin) % kBeams, run.count - begin));
  }
  // Step 5: at most 15 (the nearest), sorted by bearing_min.
  if (static_cast<int>(out.size()) > o.max_obstacles) {
    std::stable_sort(out.begin(), out.end(),
                     [](const TopoObstacle& x, const TopoObstacle& y) { return x.range_cm < y.range_cm; });
    out.resize(o.max_obstacles);
  }
  std::stable_sort(out.begin(), out.end(),
                   [](const TopoObstacle& x, const TopoObstacle& y) { return x.bearing_min < y.bearing_min; });
  return out;
}

std::vector<Feature> FindFeatures(const std::vector<TopoObstacle>& obs, const TopoPerceptionOptions& o) {
  const int n = static_cast<int>(obs.size());
  struct Pair {
    int a, b;
    double sum;
  };
  std::vector<Pair> pairs;
  for (int a = 0; a + 1 < n; ++a) {
    for (int b = a + 1; b < n; ++b) pairs.push_back({a, b, obs[a].range_cm + obs[b].range_cm});
  }
  std::stable_sort(pairs.begin(), pairs.end(), [](const Pair& x, const Pair& y) { return x.sum < y.sum; });
  std::vector<std::vector<Block>> blocks(n);
  for (int i = 0; i < n; ++i) blocks[i] = MakeBlocks(obs[i].points);
  std::vector<Feature> features;
  for (const Pair& pr : pairs) {
    if (static_cast<int>(features.size()) >= o.max_features) break;
    const TopoObstacle& A = obs[pr.a];
    const TopoObstacle& B = obs[pr.b];
    // find_minimum_width_between: the shortest pair of scan points (§3.3), brute force within blocks of
    // 8 points, a pair of blocks skipped when their bounding boxes are already farther apart than the
    // best pair (the bounding pruning §3.3 allows; the result is the brute force's).
    double best2 = std::numeric_limits<double>::infinity();
    size_t ia = 0, ib = 0;
    for (const Block& ba : blocks[pr.a]) {
      for (const Block& bb : blocks[pr.b]) {
        if (BoxGap2(ba, bb) >= best2) continue;
        for (size_t i = ba.first; i < ba.first + ba.count; ++i) {
          for (size_t j = bb.first; j < bb.first + bb.count; ++j) {
            const Vec2 d = B.points[j] - A.points[i];
            const double d2 = Dot(d, d);
            if (d2 < best2) {
              best2 = d2;
              ia = i;
              ib = j;
            }
          }
        }
      }
    }
    if (A.points.empty() || B.points.empty()) continue;
    const double width = std::sqrt(best2);
    if (width < o.min_exit_width_cm) continue;
    Feature f;
    f.a = pr.a;
    f.b = pr.b;
    f.pa = A.points[ia];
    f.pb = B.points[ib];
    f.length_cm = width;
    f.bearing_deg = Fold180(BearingOf(f.pb - f.pa));
    const Vec2 m = f.Midpoint();
    f.nvb_deg = BearingOf(m);
    f.nvr_cm = Norm(m);
    f.perspective = ia > 0 && ia + 1 < A.points.size() && ib > 0 && ib + 1 < B.points.size();
    f.adjacent = pr.b == pr.a + 1 || (pr.a == 0 && pr.b == n - 1);
    f.range_sum_cm = pr.sum;
    features.push_back(f);
  }
  return features;
}

int ClassifyArea(const std::vector<Feature>& features) {
  int best = -1;
  for (int i = 0; i < static_cast<int>(features.size()); ++i) {
    const Feature& f = features[i];
    if (best < 0 || f.range_sum_cm < features[best].range_sum_cm ||
        (f.range_sum_cm == features[best].range_sum_cm && f.length_cm < features[best].length_cm)) {
      best = i;
    }
  }
  return best;
}

}  // namespace limbic::laser
