// Cost of the mapper's state check and rollback (issue 15, item 1) on grids of 60×37 (a set-B
// world), 384×384 and 1000×1000 cells.
//   BM_MapperUpdate      one cycle (8 beams of up to 3 m, the robot moving along the grid's middle
//   row):
//                        eqs. 5.1–5.2, the undo log, the check of the changed cells and of the
//                        whole grid through its sums, the patch.
//   BM_MapStatsTwoPasses the two passes of eqs. 8.9 and 8.10 as computed before the check existed
//   ... BM_MapSumsOnePass    ... and the one pass that now gives the same bits plus Σ p_o (the
//   checksum). BM_MapperRefusedCycle a cycle refused because a cell was poisoned: undo, then the
//   repair pass. build/bench/mapper_bench
#include <benchmark/benchmark.h>

#include <cmath>

#include "services/mapper/occupancy_mapper.hpp"
#include "services/mapper/testing/occupancy_mapper_peer.hpp"

namespace limbic::mapper {
namespace {

geometry::GridSpec Spec(const benchmark::State& state) {
  return {{0, 0}, kCellSize, static_cast<int>(state.range(0)), static_cast<int>(state.range(1))};
}

MapperInputs Cycle(const geometry::GridSpec& spec, int64_t tick) {
  MapperInputs in;
  in.tick = tick;
  const double width = spec.width * spec.resolution, height = spec.height * spec.resolution;
  in.pose = {1.0 + std::fmod(0.05 * static_cast<double>(tick), width - 2.0), height / 2, 0.01 * tick};
  for (int k = 0; k < 8; ++k) {
    RangeBeam b;
    b.angle_local = k * geometry::kPi / 4;
    b.d_max = 3.0;
    b.range = 1.0 + 0.25 * k;
    b.valid = k % 3 != 0;
    in.scan.beams.push_back(b);
  }
  in.params.n_o = 7;
  return in;
}

void BM_MapperUpdate(benchmark::State& state) {
  const auto spec = Spec(state);
  OccupancyMapper mapper(spec);
  int64_t tick = 0;
  for (auto _ : state) benchmark::DoNotOptimize(mapper.Update(Cycle(spec, ++tick)));
  if (!mapper.fault().empty()) state.SkipWithError(mapper.fault().c_str());
}

GridMaps Explored(const geometry::GridSpec& spec) {
  GridMaps m = GridMaps::Initial(spec);
  for (int i = 0; i < m.CellCount(); ++i) {
    m.p_o[i] = (i % 97) / 97.0;
    m.p_e[i] = (i % 13) / 13.0;
  }
  return m;
}

void BM_MapStatsTwoPasses(benchmark::State& state) {
  const GridMaps m = Explored(Spec(state));
  for (auto _ : state) {
    benchmark::DoNotOptimize(MeanExploration(m));
    benchmark::DoNotOptimize(MapDensity(m));
  }
}

void BM_MapSumsOnePass(benchmark::State& state) {
  const GridMaps m = Explored(Spec(state));
  for (auto _ : state) {
    const MapSums sums = MapSums::Of(m);
    benchmark::DoNotOptimize(sums.Finite());
    benchmark::DoNotOptimize(sums.MeanExploration());
    benchmark::DoNotOptimize(sums.Density());
  }
}

void BM_MapperRefusedCycle(benchmark::State& state) {
  const auto spec = Spec(state);
  OccupancyMapper mapper(spec);
  int64_t tick = 0;
  for (auto _ : state) {
    state.PauseTiming();
    OccupancyMapperTestPeer::SetOccupancy(mapper, 0, std::nan(""));
    state.ResumeTiming();
    benchmark::DoNotOptimize(mapper.Update(Cycle(spec, ++tick)));
  }
  if (mapper.fault().empty()) state.SkipWithError("the poisoned cycle was not refused");
}

#define GRIDS Args({60, 37})->Args({384, 384})->Args({1000, 1000})
BENCHMARK(BM_MapperUpdate)->GRIDS;
BENCHMARK(BM_MapStatsTwoPasses)->GRIDS;
BENCHMARK(BM_MapSumsOnePass)->GRIDS;
BENCHMARK(BM_MapperRefusedCycle)->GRIDS;

}  // namespace
}  // namespace limbic::mapper

BENCHMARK_MAIN();
