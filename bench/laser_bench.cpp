// The laser navigator's 10 ms control cycle (issue 21, goal ≤ 10 µs on one core): the case-based
// controller (and the evolved network) on a 360-beam scan plus the simulator step (motion law,
// collisions, the next scan) — and its parts. Worlds of 25 % density; a finished episode restarts (paused, outside the
// timing).
#include <benchmark/benchmark.h>

#include <memory>

#include "services/laser_nav/controllers.hpp"
#include "services/laser_nav/neural_network.hpp"
#include "services/laser_sim/episode.hpp"

namespace {

using namespace limbic::laser;

template <typename Controller, typename Options>
void ControlCycle(benchmark::State& state, const Options& options, bool cache) {
  const World world = GenerateWorld(static_cast<double>(state.range(0)), 3);
  EpisodeOptions eo;
  eo.laser.cache = cache;
  uint64_t seed = 1;
  auto episode = std::make_unique<LaserEpisode>(world, eo, seed);
  auto controller = std::make_unique<Controller>(options);
  int64_t restarts = 0;
  for (auto _ : state) {
    episode->Advance(controller->Step(episode->frame()));
    if (episode->done()) {
      state.PauseTiming();
      episode = std::make_unique<LaserEpisode>(world, eo, ++seed);
      controller = std::make_unique<Controller>(options);
      ++restarts;
      state.ResumeTiming();
    }
  }
  state.counters["obstacles"] = static_cast<double>(world.obstacles.size());
  state.counters["restarts"] = static_cast<double>(restarts);
}

void BM_CbrCycleWithSimStep(benchmark::State& state) { ControlCycle<CaseBasedController>(state, CbrOptions{}, false); }
BENCHMARK(BM_CbrCycleWithSimStep)->Arg(15)->Arg(25)->Arg(35)->Unit(benchmark::kMicrosecond);

void BM_CbrCycleWithSimStepCached(benchmark::State& state) {
  ControlCycle<CaseBasedController>(state, CbrOptions{}, true);
}
BENCHMARK(BM_CbrCycleWithSimStepCached)->Arg(25)->Unit(benchmark::kMicrosecond);

void BM_StaticCycleWithSimStep(benchmark::State& state) {
  ControlCycle<StaticController>(state, StaticOptions{}, false);
}
BENCHMARK(BM_StaticCycleWithSimStep)->Arg(25)->Unit(benchmark::kMicrosecond);

// The evolved network's cycle (§2.5) with a random initial-population network, as in generation 1 of
// E4 (the cost of one evolution generation is 10 000 such episodes of up to 6000 cycles).
NeuralOptions RandomNetwork() {
  std::mt19937_64 rng(5);
  NeuralOptions o;
  for (Neuron& n : o.network) n = RandomNeuron(rng);
  return o;
}
void BM_NnCycleWithSimStep(benchmark::State& state) { ControlCycle<NeuralController>(state, RandomNetwork(), false); }
BENCHMARK(BM_NnCycleWithSimStep)->Arg(15)->Arg(30)->Unit(benchmark::kMicrosecond);

// Parts: the laser alone, and the case-based controller alone on a fixed scan.
void BM_LaserScan(benchmark::State& state) {
  const World world = GenerateWorld(static_cast<double>(state.range(0)), 3);
  LaserScanner laser(world, {}, 1);
  RangeScan scan;
  double x = world.start.x;
  for (auto _ : state) {
    laser.Scan({x, world.start.y + 200}, &scan);
    benchmark::DoNotOptimize(scan.data());
    x = x > 500 ? 100 : x + 0.7;
  }
}
BENCHMARK(BM_LaserScan)->Arg(15)->Arg(35)->Unit(benchmark::kMicrosecond);

void BM_CbrStepOnly(benchmark::State& state) {
  const World world = GenerateWorld(25, 3);
  LaserEpisode episode(world, {}, 1);
  for (int k = 0; k < 300; ++k) episode.Advance(90.0);  // somewhere among obstacles
  SensorFrame frame = episode.frame();
  CaseBasedController controller{CbrOptions{}};
  for (auto _ : state) {
    benchmark::DoNotOptimize(controller.Step(frame));
    ++frame.cycle;
  }
}
BENCHMARK(BM_CbrStepOnly)->Unit(benchmark::kMicrosecond);

}  // namespace

BENCHMARK_MAIN();
