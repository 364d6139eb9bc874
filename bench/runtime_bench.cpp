// Lockstep throughput of the in-process runtime: ticks per second of the toy three-service pipeline
// (source -> scale -> sink with feedback) and of one robot's whole stack (set B environment 0,
// constant parameters: the navigation system test's run).
//
//   build-perf/bench/runtime_bench [--metrics_out=FILE] [benchmark flags]
//
// --metrics_out copies the stack run's metrics CSV to FILE (to compare runs byte for byte).
#include <benchmark/benchmark.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include "common/runtime/in_process.hpp"
#include "tests/toy/toy_services.hpp"
#ifdef LIMBIC_BENCH_STACK
#include "tools/stack/stack.hpp"
#endif

namespace limbic {
namespace {

std::string g_metrics_out;

std::string TempPath(const std::string& name) {
  return (std::filesystem::temp_directory_path() / ("limbic-runtime-bench-" + std::to_string(getpid()) + "-" + name))
      .string();
}

void BM_ToyPipelineInProcess(benchmark::State& state) {
  const int64_t ticks = state.range(0);
  int run = 0;
  for (auto _ : state) {
    auto make = [](const char* role) {
      runtime::HostedService s{*toy::FindToyService(role), {}};
      s.options.robot = "";
      return s;
    };
    auto source = make("source");
    source.options.coordinate = true;
    source.options.participants = {"source", "scale", "sink"};
    source.options.max_ticks = ticks;
    std::atomic<bool> stop{false};
    runtime::InProcessOptions options;
    options.single_thread = state.range(1) != 0;
    const int status = runtime::RunInProcess("inproc://toy-bench-" + std::to_string(run++),
                                             {source, make("scale"), make("sink")}, stop, options);
    if (status != 0) state.SkipWithError("run failed");
  }
  state.counters["ticks_per_s"] =
      benchmark::Counter(static_cast<double>(ticks) * state.iterations(), benchmark::Counter::kIsRate);
}
// Args: ticks, single thread (1) or a thread per service (0).
BENCHMARK(BM_ToyPipelineInProcess)
    ->Args({2000, 1})
    ->Args({2000, 0})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime()
    ->MinTime(1.0);

#ifdef LIMBIC_BENCH_STACK
// Arg 1: single thread (the default of RunInProcess); 0: a thread per service and one for the
// broker.
void BM_StackSetB0InProcess(benchmark::State& state) {
  int64_t ticks = 0;
  double startup_s = 0.0;
  const std::string csv = TempPath("metrics.csv");
  runtime::InProcessOptions options;
  options.single_thread = state.range(0) != 0;
  int run = 0;
  for (auto _ : state) {
    std::filesystem::remove(csv);
    stack::StackSpec spec;
    spec.set = 'B';
    spec.index = 0;
    spec.iterations = 1;
    spec.affect_config = "constant";
    spec.metrics_csv = csv;
    spec.max_ticks = 6100;
    std::atomic<bool> stop{false};
    runtime::InProcessStats stats;
    if (runtime::RunInProcess("inproc://stack-bench-" + std::to_string(run++), stack::BuildStack(spec), stop, options,
                              &stats) != 0) {
      state.SkipWithError("run failed");
    }
    ticks += stats.ticks;
    startup_s += stats.startup_s;
  }
  if (!g_metrics_out.empty())
    std::filesystem::copy_file(csv, g_metrics_out, std::filesystem::copy_options::overwrite_existing);
  std::filesystem::remove(csv);
  state.counters["ticks_per_s"] = benchmark::Counter(static_cast<double>(ticks), benchmark::Counter::kIsRate);
  state.counters["ticks_per_run"] = static_cast<double>(ticks) / static_cast<double>(state.iterations());
  state.counters["startup_ms"] = 1e3 * startup_s / static_cast<double>(state.iterations());
}
BENCHMARK(BM_StackSetB0InProcess)->Arg(1)->Arg(0)->Unit(benchmark::kMillisecond)->UseRealTime()->MinTime(2.0);
#endif

}  // namespace
}  // namespace limbic

int main(int argc, char** argv) {
  std::vector<char*> args;
  for (int i = 0; i < argc; ++i) {
    const std::string a = argv[i];
    if (a.rfind("--metrics_out=", 0) == 0) {
      limbic::g_metrics_out = a.substr(14);
    } else {
      args.push_back(argv[i]);
    }
  }
  int n = static_cast<int>(args.size());
  benchmark::Initialize(&n, args.data());
  if (benchmark::ReportUnrecognizedArguments(n, args.data())) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
