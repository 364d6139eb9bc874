// A fixed number of the laser navigator's 10 ms control cycles (controller step and simulator step), the
// loop of laser_bench's *CycleWithSimStep benchmarks, for instruction counts (issue 21's performance goals):
//
//   valgrind --tool=callgrind --toggle-collect='*RunCycles*' build/bench/laser_cycles cbr 25 20000
//
// counts only the cycles (not the world's generation), so instructions per cycle = the total / cycles. Without
// valgrind it prints the process CPU time per cycle. Arguments: controller (cbr, static or nn), density (%),
// cycles; the world is No. 4 of the density's library (index 3), a finished episode restarts with the next seed.
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <memory>
#include <random>
#include <string>

#include "services/laser_nav/controllers.hpp"
#include "services/laser_nav/neural_network.hpp"
#include "services/laser_sim/episode.hpp"

namespace {

using namespace limbic::laser;

struct Totals {
  int64_t restarts = 0;
  int64_t solved = 0;
  double checksum = 0.0;  // keeps the loop's results alive
};

template <typename Controller, typename Options>
[[gnu::noinline]] Totals RunCycles(const World& world, const Options& options, int64_t cycles) {
  EpisodeOptions eo;
  uint64_t seed = 1;
  auto episode = std::make_unique<LaserEpisode>(world, eo, seed);
  auto controller = std::make_unique<Controller>(options);
  Totals t;
  for (int64_t k = 0; k < cycles; ++k) {
    episode->Advance(controller->Step(episode->frame()));
    if (episode->done()) {
      const EpisodeResult r = episode->Result();
      t.solved += r.solved ? 1 : 0;
      t.checksum += r.path_cm;
      episode = std::make_unique<LaserEpisode>(world, eo, ++seed);
      controller = std::make_unique<Controller>(options);
      ++t.restarts;
    }
  }
  t.checksum += episode->truth().x_cm + episode->truth().y_cm;
  return t;
}

NeuralOptions RandomNetwork() {  // as laser_bench's BM_NnCycleWithSimStep: a generation-1 network
  std::mt19937_64 rng(5);
  NeuralOptions o;
  for (Neuron& n : o.network) n = RandomNeuron(rng);
  return o;
}

double CpuSeconds() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 4) {
    std::fprintf(stderr, "usage: laser_cycles cbr|static|nn DENSITY CYCLES\n");
    return 2;
  }
  const std::string controller = argv[1];
  const double density = std::atof(argv[2]);
  const int64_t cycles = std::atoll(argv[3]);
  const World world = GenerateWorld(density, 3);
  const double start = CpuSeconds();
  Totals t;
  if (controller == "cbr") {
    t = RunCycles<CaseBasedController>(world, CbrOptions{}, cycles);
  } else if (controller == "static") {
    t = RunCycles<StaticController>(world, StaticOptions{}, cycles);
  } else if (controller == "nn") {
    t = RunCycles<NeuralController>(world, RandomNetwork(), cycles);
  } else {
    std::fprintf(stderr, "laser_cycles: controller must be cbr, static or nn\n");
    return 2;
  }
  const double cpu = CpuSeconds() - start;
  std::printf("%s %.0f%% world, %lld cycles: %.3f us CPU per cycle, %lld restarts, %lld solved, checksum %.6f\n",
              controller.c_str(), density, static_cast<long long>(cycles),
              cycles > 0 ? 1e6 * cpu / static_cast<double>(cycles) : 0.0, static_cast<long long>(t.restarts),
              static_cast<long long>(t.solved), t.checksum);
  return 0;
}
