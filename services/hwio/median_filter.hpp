// Per-beam median filter over the last few raw range samples (§1.2, §2.5: "median of the 5 most recent samples").
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "common/types/sensing.hpp"

namespace limbic::hwio {

struct MedianFilterOptions {
  // Samples per beam in the median (§2.5: 5, mean response ≈ 250 ms at T = 100 ms). Must be ≥ 1.
  int window = 5;
};

// Everything the filter remembers; plain data so a run can be replayed and compared.
struct MedianFilterState {
  std::vector<std::vector<double>> history{};  // per beam: ring buffer of the last `window` samples (m)
  std::vector<int> next{};                     // per beam: ring write position
  std::vector<int> count{};                    // per beam: samples held so far (≤ window)
  int64_t scans = 0;                           // scans filtered since construction
  int64_t layout_resets = 0;                   // times the beam count changed and the history was dropped
};

// Median-filters the raw IR ranges of every beam (§2.5).
//
// Inputs:  a raw RangeScan (ranges after the sensor model or a driver, faults already applied).
// Outputs: a RangeScan with the same beam layout whose `range` is the median of the beam's last `window`
//          samples and whose `valid` is (median < d_max).
// Rules:   an invalid or non-finite sample counts as d_max (no obstacle in range); a valid sample above
//          d_max is clamped to d_max. Until a beam has `window` samples the median of those it has is
//          used (mean of the two middle values for an even count). If the number of beams changes, the
//          history is dropped and filtering starts again (counted in layout_resets).
// sorted[0, count) = samples[0, count) in ascending order, exactly as std::sort orders them (equal values too).
void SortSamples(const double* samples, size_t count, double* sorted);

class MedianFilter {
 public:
  // Throws std::invalid_argument if options.window < 1.
  explicit MedianFilter(MedianFilterOptions options = {});

  RangeScan Filter(const RangeScan& raw);
  void Reset();

  const MedianFilterOptions& options() const { return options_; }
  const MedianFilterState& state() const { return state_; }

 private:
  MedianFilterOptions options_;
  MedianFilterState state_;
  std::vector<double> sorted_;  // one beam's samples, sorted (scratch)
};

}  // namespace limbic::hwio
