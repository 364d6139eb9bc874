// One simulator step in a set-E environment: all 60 beams ray-cast, motors, arc, collisions,
// odometry, humans.
#include <benchmark/benchmark.h>

#include <vector>

#include "sim/environment.hpp"
#include "sim/world.hpp"

namespace {

void BM_SimStepSetE(benchmark::State& state) {
  limbic::sim::GeneratorOptions gen;
  gen.human_count = static_cast<int>(state.range(0));
  const limbic::sim::Environment env = limbic::sim::GenerateEnvironment('E', 3, 1, gen);
  limbic::sim::World world(env, {});
  world.AddRobot({env.start.x(), env.start.y(), 0.0});
  // A slow arc keeps the robot moving (and bumping) through the environment.
  std::vector<limbic::sim::RobotInput> inputs(1);
  inputs[0].wheels = {0.6, 0.45};
  limbic::sim::StepOutput out;
  for (auto _ : state) {
    world.Step(0.1, inputs, &out);
    benchmark::DoNotOptimize(out.robots[0].raw_scan.beams.data());
  }
  state.SetItemsProcessed(state.iterations());
  state.counters["beams"] = static_cast<double>(out.robots[0].raw_scan.beams.size());
  state.counters["humans"] = static_cast<double>(out.humans.size());
  state.counters["segments"] = static_cast<double>(world.segments().segments().size());
}
BENCHMARK(BM_SimStepSetE)->Arg(5)->Unit(benchmark::kMicrosecond);

void BM_GenerateEnvironmentSetE(benchmark::State& state) {
  int index = 0;
  for (auto _ : state) {
    benchmark::DoNotOptimize(limbic::sim::GenerateEnvironment('E', index, 1));
    index = (index + 1) % limbic::sim::kEnvironmentsPerSet;
  }
}
BENCHMARK(BM_GenerateEnvironmentSetE)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
