// Issue 19 performance goal: 32 robots running b_nav with 72 directions in lockstep in one process, ≥ 100× real
// time on one core. One iteration = one 100 ms tick of the whole crowd (visibility, b_nav, μ, emotions, motion,
// contacts). The counter `realtime_factor` = simulated seconds per wall second.
// Run: taskset -c 1 build/bench/crowd_bench
#include <benchmark/benchmark.h>

#include <string>

#include "services/crowd/crowd_world.hpp"

namespace {

using namespace limbic::crowd;

void CrowdTick(benchmark::State& state, const std::string& scenario) {
  BNavParams base;
  base.directions = 72;
  const EmotionTable table = LoadEmotionTable(std::string(LIMBIC_BENCH_SOURCE_ROOT) + "/configs/crowd/emotions.yaml");
  CrowdOptions options;
  options.record_every = 0;
  options.time_limit = 1e9;
  const int n = static_cast<int>(state.range(0));
  // Back and forth between start and target (50 times), so nobody finishes during the measurement.
  Scenario s = MakeScenario(scenario, n, 1, base);
  for (AgentSpec& a : s.agents) {
    const Vec2 goal = a.targets.back();
    for (int k = 0; k < 50; ++k) {
      a.targets.push_back(a.start.Position());
      a.targets.push_back(goal);
    }
  }
  CrowdWorld world(std::move(s), table, options);
  // Into the thick of it: the robots meet in the middle after a few seconds.
  for (int i = 0; i < 100; ++i) world.Step();
  int64_t ticks = 0;
  for (auto _ : state) {
    world.Step();
    ++ticks;
  }
  if (world.Finished()) state.SkipWithError("the crowd finished during the measurement");
  state.counters["realtime_factor"] =
      benchmark::Counter(static_cast<double>(ticks) * options.dt, benchmark::Counter::kIsRate);
}

void BM_CrowdTickAntipodal(benchmark::State& state) { CrowdTick(state, "antipodal"); }
void BM_CrowdTickDoorway(benchmark::State& state) { CrowdTick(state, "doorway"); }

BENCHMARK(BM_CrowdTickAntipodal)->Arg(8)->Arg(32)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_CrowdTickDoorway)->Arg(32)->Unit(benchmark::kMicrosecond);

}  // namespace

BENCHMARK_MAIN();
