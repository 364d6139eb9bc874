// Affect engine step time on a 20 × 12 m map (58 × 35 cells of 0.35 m), affective configuration.
#include <benchmark/benchmark.h>

#include <numbers>
#include <vector>

#include "services/affect/affect_engine.hpp"

namespace {

using namespace limbic::affect;

void BM_AffectStep(benchmark::State& state) {
  const limbic::geometry::GridSpec grid{limbic::geometry::Vec2(0, 0), 0.35, 58, 35};
  AffectEngine engine(LoadAffectConfig("affective"), grid);
  std::vector<double> headings, distances, p_e(grid.CellCount(), 0.5);
  for (int h = 0; h < 20; ++h) {
    headings.push_back(-std::numbers::pi + 2 * std::numbers::pi * h / 20);
    distances.push_back(0.5 + 0.1 * h);
  }
  std::vector<limbic::geometry::Vec2> ir(50, limbic::geometry::Vec2(4, 4));
  AffectInputs in;
  in.headings = headings;
  in.obstacle_distances = distances;
  in.ir_points = ir;
  in.p_e = p_e;
  in.path_max_cost = 0.55;
  in.goal = GoalProgress{0.0, 15.0, 15.0};
  for (int c = 0; c < 100; ++c) in.map_stats.updated_cells.push_back({c * 7, c % 3 == 0 ? 1.0 : 0.0, 0.2});
  double t = 0;
  for (auto _ : state) {
    in.time = t;
    in.pose = {5.0 + 0.01 * std::fmod(t, 50.0), 4.0, 0.3};
    in.speed = 0.4;
    benchmark::DoNotOptimize(engine.Step(in));
    t += 0.1;
  }
}
BENCHMARK(BM_AffectStep);

}  // namespace

BENCHMARK_MAIN();
