// Lockstep recruitment simulations (spec affective-recruitment §7, issue 20 item 6): the whole §7
// protocol (842 simulations: the 833 of the dissertation plus 9 paired broadcast runs) on all cores,
// and single simulations of the smallest and largest teams.
#include <benchmark/benchmark.h>

#include <atomic>
#include <thread>

#include "tools/recruit/experiment.hpp"

namespace {

using namespace limbic::recruit;

void BM_FullProtocol(benchmark::State& state) {
  std::vector<RecruitExperiment> experiments;
  for (const auto& f : ListRecruitExperimentFiles()) experiments.push_back(LoadRecruitExperiment(f));
  struct Job {
    const RecruitExperiment* e;
    RecruitRun run;
  };
  std::vector<Job> jobs;
  for (const auto& e : experiments)
    for (auto& r : Expand(e)) jobs.push_back({&e, r});
  const int threads = static_cast<int>(state.range(0));
  for (auto _ : state) {
    std::atomic<size_t> next{0};
    std::atomic<uint64_t> messages{0};
    std::vector<std::thread> workers;
    for (int t = 0; t < threads; ++t) {
      workers.emplace_back([&] {
        for (size_t i = next++; i < jobs.size(); i = next++) messages += RunOne(*jobs[i].e, jobs[i].run).messages;
      });
    }
    for (auto& w : workers) w.join();
    benchmark::DoNotOptimize(messages.load());
  }
  state.counters["simulations"] = static_cast<double>(jobs.size());
  state.counters["threads"] = threads;
}
BENCHMARK(BM_FullProtocol)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->UseRealTime()->Iterations(1);

void BM_OneSimulation(benchmark::State& state) {
  ScenarioOptions o;
  o.idle_ugvs = static_cast<int>(state.range(0));
  o.recruiter.strategy = Strategy::kGreedy;
  for (auto _ : state) benchmark::DoNotOptimize(RunMineScenario(o).messages);
}
BENCHMARK(BM_OneSimulation)->Arg(1)->Arg(10)->Arg(50)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
