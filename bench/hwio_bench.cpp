// hwio per-cycle costs: median filter, fault injection, command path, and line parsing throughput.
#include <benchmark/benchmark.h>

#include "services/hwio/command_limiter.hpp"
#include "services/hwio/fault_injector.hpp"
#include "services/hwio/line_protocol.hpp"
#include "services/hwio/median_filter.hpp"
#include "services/hwio/watchdog.hpp"

namespace {

using namespace limbic;
using namespace limbic::hwio;

// 50 long-range + 10 short-range beams (§2.5).
RangeScan SixtyBeams() {
  RangeScan scan;
  for (int i = 0; i < 60; ++i) {
    RangeBeam b;
    b.sensor_id = i < 50 ? i / 5 : i - 40;
    b.d_max = i < 50 ? 3.0 : 0.75;
    b.range = 0.5 + 0.01 * i;
    b.valid = b.range < b.d_max;
    scan.beams.push_back(b);
  }
  return scan;
}

void BM_MedianFilter60Beams(benchmark::State& state) {
  MedianFilter filter;
  RangeScan scan = SixtyBeams();
  int k = 0;
  for (auto _ : state) {
    scan.beams[k % 60].range = 0.5 + 0.001 * (k % 100);
    benchmark::DoNotOptimize(filter.Filter(scan));
    ++k;
  }
}
BENCHMARK(BM_MedianFilter60Beams);

void BM_FaultInjectorThreeFaults60Beams(benchmark::State& state) {
  FaultInjector faults;
  Fault noise{.id = "n", .kind = FaultKind::kSensorNoise, .seed = 1, .noise_sigma = 0.05};
  Fault spikes{
      .id = "s", .kind = FaultKind::kSensorSpikes, .seed = 2, .spike_probability = 0.1, .spike_magnitude = -1.0};
  Fault stuck{.id = "k", .kind = FaultKind::kSensorStuck, .target = {.sensor_id = 3}};
  faults.Add(noise);
  faults.Add(spikes);
  faults.Add(stuck);
  const RangeScan clean = SixtyBeams();
  for (auto _ : state) {
    RangeScan scan = clean;
    faults.Apply(1.0, scan);
    benchmark::DoNotOptimize(scan);
  }
}
BENCHMARK(BM_FaultInjectorThreeFaults60Beams);

void BM_CommandPath(benchmark::State& state) {
  CommandLimiter limiter;
  Watchdog watchdog;
  FaultInjector faults;
  double t = 0.0;
  for (auto _ : state) {
    t += 0.1;
    const LimitedCommand limited = limiter.Limit({.v = 1.5, .omega = 1.0});
    watchdog.OnCommand(t);
    WheelCommand out = watchdog.Gate(t, limited.wheels).wheels;
    faults.Apply(t, out);
    benchmark::DoNotOptimize(out);
  }
}
BENCHMARK(BM_CommandPath);

void BM_ParseRangeLines(benchmark::State& state) {
  ProtocolMessage m{.type = LineType::kRanges};
  for (int i = 0; i < 60; ++i) m.ranges_mm.push_back(400 + 37 * i);
  std::string stream;
  for (int i = 0; i < 100; ++i) {
    m.seq = static_cast<uint32_t>(i);
    stream += FormatLine(m);
  }
  LineProtocolParser parser;
  for (auto _ : state) benchmark::DoNotOptimize(parser.Feed(stream));
  state.SetBytesProcessed(state.iterations() * static_cast<int64_t>(stream.size()));
  state.SetItemsProcessed(state.iterations() * 100);
}
BENCHMARK(BM_ParseRangeLines);

}  // namespace

BENCHMARK_MAIN();
