// A* planning time (spec §4.2) on random obstacle fields: 100×100, 384×384 (147,456 cells) and 1000×1000.
// 20 % of the cells are occupied (p_o in [0.95, 1]) in round blobs, the rest p_o in [0, 0.3]; start and goal
// at opposite corners. Each benchmark times every plan separately and reports p50_ms, max_ms and the first
// (buffer-allocating) plan as first_ms; cpu_p50_ms / cpu_max_ms are the same in thread CPU time. Target: max_ms ≤ 10 on
// 384×384.
//   build-*/bench/planner_bench --benchmark_counters_tabular=true
#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <ctime>
#include <random>
#include <vector>

#include "services/mapper/grid_maps.hpp"
#include "services/planner/astar.hpp"

namespace limbic::planner {
namespace {

using geometry::Cell;
using geometry::GridSpec;
using mapper::GridMaps;

GridMaps ObstacleField(int width, int height, uint64_t seed, double free_p_o_max) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  GridMaps m = GridMaps::Initial(GridSpec{{0, 0}, 0.35, width, height});
  for (double& p : m.p_o) p = free_p_o_max * u(rng);
  std::vector<uint8_t> occupied(m.CellCount(), 0);
  const int target = m.CellCount() / 5;
  int count = 0;
  std::uniform_int_distribution<int> coord_x(0, width - 1), coord_y(0, height - 1), radius(1, 5);
  while (count < target) {
    const int cx = coord_x(rng), cy = coord_y(rng), r = radius(rng);
    for (int y = std::max(0, cy - r); y <= std::min(height - 1, cy + r) && count < target; ++y) {
      for (int x = std::max(0, cx - r); x <= std::min(width - 1, cx + r) && count < target; ++x) {
        if ((x - cx) * (x - cx) + (y - cy) * (y - cy) > r * r) continue;
        const int i = y * width + x;
        if (!occupied[i]) {
          occupied[i] = 1;
          m.p_o[i] = 0.95 + 0.05 * u(rng);
          ++count;
        }
      }
    }
  }
  for (int i = 0; i < m.CellCount(); ++i) {
    m.p_e[i] = u(rng);
    m.danger[i] = u(rng) < 0.02;
  }
  return m;
}

// range(0) = grid width; range(2) = grid height (0: square); range(3) = AStarOptions variant (see the
// switch below; 0 = defaults); range(1) = 0: occupancy only (defaults W_p1 = 1); 1: all four layers
// (W_p2 = 1, W_p3 = 0.4, W_p4 = 0.5 with an emotion layer); 2: occupancy only on an "explored" field whose
// free cells have p_o in [0, 0.02] (c ≤ 1.2: the Euclidean heuristic is nearly tight, as in a mapped
// environment), the same obstacle blobs.
void BM_AStar(benchmark::State& state) {
  const int width = static_cast<int>(state.range(0));
  const int height = state.range(2) > 0 ? static_cast<int>(state.range(2)) : width;
  const bool all_layers = state.range(1) == 1;
  const GridMaps maps = ObstacleField(width, height, 42, state.range(1) == 2 ? 0.02 : 0.3);
  std::vector<double> emotion(maps.CellCount());
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> u(0.0, 0.5);
  for (double& e : emotion) e = u(rng);
  CostSettings settings;
  CostLayers layers{&maps, {}, {}};
  if (all_layers) {
    settings.w_p2 = 1.0;
    settings.w_p3 = 0.4;
    settings.w_p4 = 0.5;
    layers.emotion = emotion;
  }
  const PlanRequest request{maps.spec.Center({0, 0}), maps.spec.Center({width - 1, height - 1}), 0.0};

  AStarOptions options;  // range(3) = 0: defaults (kAuto, octile × c_min)
  switch (state.range(3)) {
    case 1:  // the spec's form: lazy factors, plain Euclidean heuristic
      options.factor_evaluation = FactorEvaluation::kLazy;
      options.heuristic = Heuristic::kEuclidean;
      break;
    case 2:
      options.factor_evaluation = FactorEvaluation::kEager;
      options.heuristic = Heuristic::kEuclidean;
      break;
    case 3:
      options.factor_evaluation = FactorEvaluation::kLazy;
      options.heuristic = Heuristic::kOctileMinCost;
      break;
    case 4:
      options.factor_evaluation = FactorEvaluation::kEager;
      options.heuristic = Heuristic::kEuclideanMinCost;
      break;
    default:
      break;
  }
  AStarPlanner planner(options);
  using Clock = std::chrono::steady_clock;
  auto t0 = Clock::now();
  PlanResult first = planner.Plan(layers, settings, request);
  const double first_ms = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();

  // Thread CPU time as well as wall time: the machine is shared, and CPU time is not inflated by preemption.
  auto thread_cpu_ms = [] {
    timespec ts{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec * 1e-6;
  };
  std::vector<double> wall, cpu;
  PlanResult r;
  for (auto _ : state) {
    const double c0 = thread_cpu_ms();
    t0 = Clock::now();
    r = planner.Plan(layers, settings, request);
    wall.push_back(std::chrono::duration<double, std::milli>(Clock::now() - t0).count());
    cpu.push_back(thread_cpu_ms() - c0);
    benchmark::DoNotOptimize(r.path_cost);
  }
  std::sort(wall.begin(), wall.end());
  std::sort(cpu.begin(), cpu.end());
  state.counters["p50_ms"] = wall[wall.size() / 2];
  state.counters["max_ms"] = wall.back();
  state.counters["cpu_p50_ms"] = cpu[cpu.size() / 2];
  state.counters["cpu_max_ms"] = cpu.back();
  state.counters["first_ms"] = first_ms;
  state.counters["expanded"] = r.expanded;
  state.counters["pushed"] = r.pushed;
  state.counters["max_open"] = r.max_open;
  state.counters["cells"] = maps.CellCount();
  state.counters["path_nodes"] = static_cast<double>(r.path.nodes.size());
  state.counters["max_cost"] = r.path.max_cost;
  state.counters["path_cost"] = r.path_cost;
  if (r.path_cost != first.path_cost) state.SkipWithError("plans differ between runs");
}

// 60 × 36: the product's 20 × 12 m environment at 0.35 m. Args: {width, field, height, options variant}.
BENCHMARK(BM_AStar)
    ->Args({60, 0, 36, 0})
    ->Args({60, 1, 36, 0})
    ->Args({60, 2, 36, 0})
    ->Args({60, 0, 36, 1})
    ->Iterations(1000)
    ->Unit(benchmark::kMillisecond);
BENCHMARK(BM_AStar)
    ->Args({100, 0, 0, 0})
    ->Args({100, 1, 0, 0})
    ->Args({100, 2, 0, 0})
    ->Args({100, 0, 0, 1})
    ->Iterations(200)
    ->Unit(benchmark::kMillisecond);
BENCHMARK(BM_AStar)
    ->Args({384, 0, 0, 0})
    ->Args({384, 1, 0, 0})
    ->Args({384, 2, 0, 0})
    ->Args({384, 0, 0, 1})
    ->Args({384, 0, 0, 2})
    ->Args({384, 0, 0, 3})
    ->Args({384, 0, 0, 4})
    ->Iterations(60)
    ->Unit(benchmark::kMillisecond);
BENCHMARK(BM_AStar)
    ->Args({1000, 0, 0, 0})
    ->Args({1000, 1, 0, 0})
    ->Args({1000, 2, 0, 0})
    ->Args({1000, 0, 0, 1})
    ->Args({1000, 0, 0, 3})
    ->Iterations(8)
    ->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace limbic::planner

BENCHMARK_MAIN();
