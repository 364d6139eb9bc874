#include "services/planner/astar.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <queue>
#include <random>
#include <vector>

namespace limbic::planner {
namespace {

using geometry::Cell;
using geometry::GridSpec;
using geometry::Vec2;
using mapper::GridMaps;

// Reference m_f' written straight from the definitions: m_f = 1 − Π(1 − W_k·m_k) (the closed form of eqs.
// 5.3/5.4), then eq. 5.8 by scanning every cell of the grid.
std::vector<double> ReferenceFiltered(const GridMaps& m, const std::vector<double>& emo, const CostSettings& s) {
  const int n = m.CellCount();
  std::vector<double> fused(n);
  for (int i = 0; i < n; ++i) {
    if (s.mode == FusionMode::kProbabilisticOr) {
      fused[i] = 1.0 - (1.0 - s.w_p1 * m.p_o[i]) * (1.0 - s.w_p2 * m.danger[i]) * (1.0 - s.w_p3 * m.p_e[i]) *
                           (1.0 - s.w_p4 * (emo.empty() ? 0.0 : emo[i]));
    } else {
      const double base = 1.0 - (1.0 - s.w_p1 * m.p_o[i]) * (1.0 - s.w_p2 * m.danger[i]) * (1.0 - s.w_p3 * m.p_e[i]);
      fused[i] = std::clamp(base + (emo.empty() ? 0.0 : emo[i]), 0.0, 1.0);
    }
  }
  std::vector<double> filtered(n, 0.0);
  for (int i = 0; i < n; ++i) {
    const Vec2 ci = m.spec.Center(m.spec.CellOfIndex(i));
    for (int j = 0; j < n; ++j) {
      const double d = (m.spec.Center(m.spec.CellOfIndex(j)) - ci).norm();
      const double w = s.r_f > 0 ? 1.0 - d * d / (s.r_f * s.r_f) : (i == j ? 1.0 : 0.0);
      if ((s.r_f > 0 ? d < s.r_f : i == j)) filtered[i] = std::max(filtered[i], w * fused[j]);
    }
  }
  return filtered;
}

// Plain Dijkstra with node cost d_n·B^{m_f'(x)} (eq. 5.6) on the 8-connected grid.
double ReferenceDijkstra(const GridSpec& spec, const std::vector<double>& filtered, double base, Cell start,
                         Cell goal) {
  const int n = spec.CellCount();
  std::vector<double> dist(n, std::numeric_limits<double>::infinity());
  using Item = std::pair<double, int>;
  std::priority_queue<Item, std::vector<Item>, std::greater<>> queue;
  dist[spec.Index(start)] = 0.0;
  queue.push({0.0, spec.Index(start)});
  while (!queue.empty()) {
    const auto [d, u] = queue.top();
    queue.pop();
    if (d > dist[u]) continue;
    const Cell cu = spec.CellOfIndex(u);
    for (int dy = -1; dy <= 1; ++dy) {
      for (int dx = -1; dx <= 1; ++dx) {
        const Cell cv{cu.ix + dx, cu.iy + dy};
        if ((dx == 0 && dy == 0) || !spec.Contains(cv)) continue;
        const int v = spec.Index(cv);
        const double step = spec.resolution * std::sqrt(double(dx * dx + dy * dy));
        const double nd = d + step * std::pow(base, filtered[v]);
        if (nd < dist[v]) {
          dist[v] = nd;
          queue.push({nd, v});
        }
      }
    }
  }
  return dist[spec.Index(goal)];
}

GridMaps RandomMaps(std::mt19937_64& rng, int width, int height) {
  std::uniform_real_distribution<double> u(0.0, 1.0);
  GridMaps m = GridMaps::Initial(GridSpec{{-1.0, 2.0}, 0.35, width, height});
  for (int i = 0; i < m.CellCount(); ++i) {
    m.p_o[i] = u(rng) < 0.25 ? 0.9 + 0.1 * u(rng) : 0.3 * u(rng);
    m.p_e[i] = u(rng);
    m.danger[i] = u(rng) < 0.05;
  }
  return m;
}

TEST(AStarPlanner, MatchesDijkstraCostOnRandomGrids) {
  std::mt19937_64 rng(20240611);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  std::uniform_int_distribution<int> size(8, 26);
  AStarPlanner planner;  // reused across grids of different sizes: buffers must not leak between plans
  for (int trial = 0; trial < 50; ++trial) {
    const GridMaps m = RandomMaps(rng, size(rng), size(rng));
    CostSettings s;
    s.mode = trial % 5 == 4 ? FusionMode::kAdditive : FusionMode::kProbabilisticOr;
    s.w_p2 = u(rng);
    s.w_p3 = 0.5 * u(rng);
    s.w_p4 = 0.5 * u(rng);
    s.r_f = std::vector<double>{0.0, 0.35, 0.7, 1.0, 0.7}[trial % 5];
    s.cost_base = trial % 3 == 0 ? 10.0 : 10000.0;
    std::vector<double> emo(m.CellCount());
    for (double& e : emo) e = s.mode == FusionMode::kAdditive ? u(rng) - 0.5 : u(rng);
    const CostLayers layers{
        &m, s.mode == FusionMode::kProbabilisticOr ? std::span<const double>(emo) : std::span<const double>(),
        s.mode == FusionMode::kAdditive ? std::span<const double>(emo) : std::span<const double>()};
    const Cell start{static_cast<int>(u(rng) * m.spec.width), static_cast<int>(u(rng) * m.spec.height)};
    const Cell goal{static_cast<int>(u(rng) * m.spec.width), static_cast<int>(u(rng) * m.spec.height)};
    const PlanRequest req{m.spec.Center(start), m.spec.Center(goal), 3.5};
    const PlanResult r = planner.Plan(layers, s, req);

    const std::vector<double> ref = ReferenceFiltered(m, emo, s);
    const double expected = ReferenceDijkstra(m.spec, ref, s.cost_base, start, goal);
    ASSERT_TRUE(r.path.success);
    EXPECT_NEAR(r.path_cost, expected, 1e-9 * expected) << "trial " << trial;
    EXPECT_EQ(r.path.planned_at, 3.5);

    // The returned path is a chain of 8-neighbour cell centres from start to goal, its node costs are the
    // reference m_f', and re-summing eq. 5.6 along it gives the reported cost.
    ASSERT_EQ(r.path.nodes.size(), r.path.node_costs.size());
    ASSERT_FALSE(r.path.nodes.empty());
    EXPECT_EQ(m.spec.CellOf(r.path.nodes.front()), start);
    EXPECT_EQ(m.spec.CellOf(r.path.nodes.back()), goal);
    double resum = 0.0, max_cost = 0.0;
    for (size_t k = 0; k < r.path.nodes.size(); ++k) {
      const Cell c = m.spec.CellOf(r.path.nodes[k]);
      EXPECT_NEAR(r.path.node_costs[k], ref[m.spec.Index(c)], 1e-12);
      max_cost = std::max(max_cost, r.path.node_costs[k]);
      if (k == 0) continue;
      const Cell p = m.spec.CellOf(r.path.nodes[k - 1]);
      const int adx = std::abs(c.ix - p.ix), ady = std::abs(c.iy - p.iy);
      ASSERT_TRUE(std::max(adx, ady) == 1) << "not 8-adjacent";
      resum += (r.path.nodes[k] - r.path.nodes[k - 1]).norm() * std::pow(s.cost_base, r.path.node_costs[k]);
    }
    EXPECT_NEAR(resum, r.path_cost, 1e-9 * std::max(1.0, r.path_cost));
    EXPECT_EQ(r.path.max_cost, max_cost);
  }
}

// Every evaluation mode and heuristic gives the Dijkstra optimum, on grids with low-cost floors (p_o ≥ 0.1
// everywhere, so c_min > 1 and the *MinCost heuristics are strictly above the spec's Euclidean one).
TEST(AStarPlanner, EveryOptionMatchesDijkstraCost) {
  std::mt19937_64 rng(77);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  std::uniform_int_distribution<int> size(6, 22);
  const std::vector<AStarOptions> variants = {
      {FactorEvaluation::kLazy, 1'000'000, Heuristic::kEuclidean},
      {FactorEvaluation::kEager, 1'000'000, Heuristic::kEuclidean},
      {FactorEvaluation::kEager, 1'000'000, Heuristic::kEuclideanMinCost},
      {FactorEvaluation::kLazy, 1'000'000, Heuristic::kOctileMinCost},
      {FactorEvaluation::kAuto, 200, Heuristic::kOctileMinCost},  // eager on small grids, lazy on large
  };
  std::vector<AStarPlanner> planners(variants.begin(), variants.end());
  for (int trial = 0; trial < 30; ++trial) {
    GridMaps m = RandomMaps(rng, size(rng), size(rng));
    for (double& p : m.p_o) p = std::max(p, 0.1 + 0.1 * u(rng));
    CostSettings s;
    s.r_f = trial % 3 == 0 ? 0.0 : 0.7;
    s.cost_base = trial % 2 == 0 ? 10.0 : 10000.0;
    const Cell start{static_cast<int>(u(rng) * m.spec.width), static_cast<int>(u(rng) * m.spec.height)};
    const Cell goal{static_cast<int>(u(rng) * m.spec.width), static_cast<int>(u(rng) * m.spec.height)};
    const double expected = ReferenceDijkstra(m.spec, ReferenceFiltered(m, {}, s), s.cost_base, start, goal);
    for (size_t k = 0; k < planners.size(); ++k) {
      const PlanResult r =
          planners[k].Plan(CostLayers{&m, {}, {}}, s, PlanRequest{m.spec.Center(start), m.spec.Center(goal), 0.0});
      ASSERT_TRUE(r.path.success);
      EXPECT_NEAR(r.path_cost, expected, 1e-9 * std::max(1.0, expected)) << "trial " << trial << " variant " << k;
      EXPECT_EQ(m.spec.CellOf(r.path.nodes.back()), goal);
    }
  }
}

// Issue 18: a planner keeps the eager factor rows whose inputs did not change from one plan to the next. A
// run of replans over a map that changes a few cells at a time (as the mapper's patches do), with the
// settings, grid and emotion layer changing now and then, must give exactly the plans of a planner that
// computes every row afresh (a new planner each time: no memory).
TEST(AStarPlanner, KeptFactorRowsPlanExactlyLikeAFreshPlanner) {
  std::mt19937_64 rng(18);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  const AStarOptions eager{FactorEvaluation::kEager, 1'000'000, Heuristic::kOctileMinCost};
  AStarPlanner kept(eager);
  GridMaps m = RandomMaps(rng, 23, 17);
  std::vector<double> emotion(m.p_o.size(), 0.0);
  CostSettings s;
  s.w_p2 = 0.5;
  s.w_p3 = 0.1;
  s.w_p4 = 0.3;
  for (int plan = 0; plan < 300; ++plan) {
    const int edits = plan % 7 == 0 ? 0 : 1 + static_cast<int>(u(rng) * 6);
    const int cx = static_cast<int>(u(rng) * m.spec.width), cy = static_cast<int>(u(rng) * m.spec.height);
    for (int k = 0; k < edits; ++k) {  // a small patch near (cx, cy)
      const Cell c{std::clamp(cx + static_cast<int>(u(rng) * 5) - 2, 0, m.spec.width - 1),
                   std::clamp(cy + static_cast<int>(u(rng) * 5) - 2, 0, m.spec.height - 1)};
      const int i = m.spec.Index(c);
      m.p_o[i] = u(rng);
      m.p_e[i] = std::min(1.0, m.p_e[i] + 0.1);
      if (u(rng) < 0.05) m.danger[i] = 1 - m.danger[i];
    }
    if (plan % 41 == 40) s.r_f = s.r_f == 0.7 ? 1.0 : 0.7;                      // a new kernel
    if (plan % 29 == 28) s.cost_base = s.cost_base == 100.0 ? 10000.0 : 100.0;  // a new B
    if (plan % 13 == 12) s.w_p1 = s.w_p1 == 1.0 ? 0.8 : 1.0;                    // a new weight: every m_f changes
    if (plan % 17 == 16) emotion[static_cast<size_t>(u(rng) * emotion.size())] = u(rng);
    if (plan == 150) {  // another grid, then back to one of the old size
      m = RandomMaps(rng, 19, 21);
      emotion.assign(m.p_o.size(), 0.0);
    }
    if (plan == 200) {
      m = RandomMaps(rng, 23, 17);
      emotion.assign(m.p_o.size(), 0.0);
    }
    const CostLayers layers{&m, emotion, {}};
    const Cell start{static_cast<int>(u(rng) * m.spec.width), static_cast<int>(u(rng) * m.spec.height)};
    const Cell goal{static_cast<int>(u(rng) * m.spec.width), static_cast<int>(u(rng) * m.spec.height)};
    const PlanRequest req{m.spec.Center(start), m.spec.Center(goal), 0.0};
    const PlanResult a = kept.Plan(layers, s, req);
    const PlanResult b = AStarPlanner(eager).Plan(layers, s, req);
    ASSERT_EQ(a.path_cost, b.path_cost) << "plan " << plan;
    ASSERT_EQ(a.expanded, b.expanded) << "plan " << plan;
    ASSERT_EQ(a.pushed, b.pushed) << "plan " << plan;
    ASSERT_EQ(a.path.node_costs, b.path.node_costs) << "plan " << plan;
    ASSERT_EQ(a.path.nodes.size(), b.path.nodes.size()) << "plan " << plan;
    for (size_t k = 0; k < a.path.nodes.size(); ++k) ASSERT_EQ(a.path.nodes[k], b.path.nodes[k]) << "plan " << plan;
  }
}

TEST(AStarPlanner, TighterHeuristicExpandsNoMoreNodes) {
  // Uniform p_o = 0.5 (c = B^0.5 = 100 everywhere, so c_min = 100): the spec's Euclidean h is 100 times too
  // low and A* degenerates towards Dijkstra; octile × c_min is exact on a free straight run, so only the
  // cells on the path are expanded. 30 × 30 grid, start (2, 5), goal (27, 5): 26 cells on the straight path.
  GridMaps m = GridMaps::Initial(GridSpec{{0, 0}, 0.35, 30, 30});
  std::fill(m.p_o.begin(), m.p_o.end(), 0.5);
  const PlanRequest req{m.spec.Center({2, 5}), m.spec.Center({27, 5}), 0.0};
  AStarPlanner spec_form({FactorEvaluation::kLazy, 1'000'000, Heuristic::kEuclidean});
  AStarPlanner tight({FactorEvaluation::kEager, 1'000'000, Heuristic::kOctileMinCost});
  const PlanResult a = spec_form.Plan(CostLayers{&m, {}, {}}, CostSettings{}, req);
  const PlanResult b = tight.Plan(CostLayers{&m, {}, {}}, CostSettings{}, req);
  EXPECT_NEAR(a.path_cost, 25 * 0.35 * 100.0, 1e-9);  // 25 steps of 0.35 m at c = 100
  EXPECT_NEAR(b.path_cost, a.path_cost, 1e-9);
  EXPECT_GT(a.expanded, 200);
  EXPECT_LE(b.expanded, 26 * 3);  // the straight run plus ties along it
}

// 21 × 15 free grid (p_o = 0) with a wall of p_o = 1 in column 10.
GridMaps WallMaps(bool with_gap) {
  GridMaps m = GridMaps::Initial(GridSpec{{0, 0}, 0.35, 21, 15});
  std::fill(m.p_o.begin(), m.p_o.end(), 0.0);
  for (int iy = 0; iy < 15; ++iy) {
    if (with_gap && iy >= 11 && iy <= 13) continue;  // three-cell doorway near the top
    m.p_o[m.spec.Index({10, iy})] = 1.0;
  }
  return m;
}

TEST(AStarPlanner, GoesThroughDoorwayWhenOneExists) {
  const GridMaps m = WallMaps(true);
  AStarPlanner planner;
  const PlanResult r = planner.Plan(CostLayers{&m, {}, {}}, CostSettings{},
                                    PlanRequest{m.spec.Center({2, 1}), m.spec.Center({18, 1}), 0.0});
  ASSERT_TRUE(r.path.success);
  for (const Vec2& p : r.path.nodes) {
    const Cell c = m.spec.CellOf(p);
    if (c.ix == 10) {
      EXPECT_EQ(c.iy, 12) << "crossed the wall outside the doorway's middle";
    }
  }
  // The doorway's middle cell is two cells from the nearest wall cell: m_f' = 0 there; the path's worst
  // node is next to a doorway post or the wall, never a wall cell.
  EXPECT_LT(r.path.max_cost, 1.0);
}

TEST(AStarPlanner, CrossesWallOnlyWhenNoFreePathExists) {
  const GridMaps m = WallMaps(false);
  AStarPlanner planner;
  const PlanResult r = planner.Plan(CostLayers{&m, {}, {}}, CostSettings{},
                                    PlanRequest{m.spec.Center({2, 1}), m.spec.Center({18, 1}), 0.0});
  ASSERT_TRUE(r.path.success);  // fails gracefully: through the wall
  int wall_nodes = 0;
  for (const Vec2& p : r.path.nodes) wall_nodes += m.spec.CellOf(p).ix == 10;
  EXPECT_EQ(wall_nodes, 1);
  EXPECT_EQ(r.path.max_cost, 1.0);
}

TEST(AStarPlanner, FailsOnlyOffGrid) {
  const GridMaps m = WallMaps(false);
  AStarPlanner planner;
  const PlanResult off_goal =
      planner.Plan(CostLayers{&m, {}, {}}, CostSettings{}, PlanRequest{m.spec.Center({2, 1}), {100.0, 1.0}, 0.0});
  EXPECT_FALSE(off_goal.path.success);
  EXPECT_TRUE(off_goal.path.nodes.empty());
  const PlanResult off_start =
      planner.Plan(CostLayers{&m, {}, {}}, CostSettings{}, PlanRequest{{-0.1, 1.0}, m.spec.Center({2, 1}), 0.0});
  EXPECT_FALSE(off_start.path.success);
  // Start cell = goal cell: a one-node path of cost 0.
  const PlanResult same =
      planner.Plan(CostLayers{&m, {}, {}}, CostSettings{}, PlanRequest{{0.4, 0.4}, {0.6, 0.6}, 0.0});
  ASSERT_TRUE(same.path.success);
  ASSERT_EQ(same.path.nodes.size(), 1u);
  EXPECT_EQ(same.path_cost, 0.0);
}

TEST(AStarPlanner, StraightLineCostByHand) {
  // Uniform p_o = 0.5, no filter: every step costs d_n·B^0.5 = d_n·100. Four cells east: 4·0.35·100 = 140.
  GridMaps m = GridMaps::Initial(GridSpec{{0, 0}, 0.35, 8, 3});
  std::fill(m.p_o.begin(), m.p_o.end(), 0.5);
  CostSettings s;
  s.r_f = 0.7;  // uniform map: the filter keeps 0.5 everywhere
  AStarPlanner planner;
  const PlanResult r =
      planner.Plan(CostLayers{&m, {}, {}}, s, PlanRequest{m.spec.Center({1, 1}), m.spec.Center({5, 1}), 0.0});
  ASSERT_EQ(r.path.nodes.size(), 5u);
  EXPECT_NEAR(r.path_cost, 140.0, 1e-9);
  EXPECT_DOUBLE_EQ(r.path.max_cost, 0.5);
}

}  // namespace
}  // namespace limbic::planner
