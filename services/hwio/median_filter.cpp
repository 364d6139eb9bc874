#include "services/hwio/median_filter.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <stdexcept>

namespace limbic::hwio {

MedianFilter::MedianFilter(MedianFilterOptions options) : options_(options) {
  if (options_.window < 1) {
    throw std::invalid_argument("MedianFilter: window must be at least 1, got " + std::to_string(options_.window));
  }
}

void MedianFilter::Reset() {
  state_.history.clear();
  state_.next.clear();
  state_.count.clear();
}

void SortSamples(const double* samples, size_t count, double* sorted) {
  if (count > 16) {  // std::sort's own insertion sort covers up to 16 elements
    std::copy(samples, samples + count, sorted);
    std::sort(sorted, sorted + count);
    return;
  }
  // Issue 18: 60 beams a scan, each with a std::sort call for 5 samples. This is the insertion sort
  // std::sort (libstdc++) runs for so few: an element moves left past the elements greater than it, so equal
  // values (−0 and +0) keep their order and the result is the same, bit for bit (median_filter_test).
  for (size_t k = 0; k < count; ++k) {
    const double v = samples[k];
    size_t j = k;
    for (; j > 0 && v < sorted[j - 1]; --j) sorted[j] = sorted[j - 1];
    sorted[j] = v;
  }
}

RangeScan MedianFilter::Filter(const RangeScan& raw) {
  const size_t n = raw.beams.size();
  if (state_.history.size() != n) {
    if (!state_.history.empty()) ++state_.layout_resets;
    state_.history.assign(n, std::vector<double>(options_.window, 0.0));
    state_.next.assign(n, 0);
    state_.count.assign(n, 0);
  }
  ++state_.scans;

  RangeScan out = raw;
  std::vector<double>& sorted = sorted_;
  sorted.resize(static_cast<size_t>(options_.window));
  for (size_t i = 0; i < n; ++i) {
    const RangeBeam& beam = raw.beams[i];
    double sample = beam.d_max;
    if (beam.valid && std::isfinite(beam.range)) sample = std::min(beam.range, beam.d_max);

    std::vector<double>& ring = state_.history[i];
    ring[state_.next[i]] = sample;
    state_.next[i] = (state_.next[i] + 1) % options_.window;
    state_.count[i] = std::min(state_.count[i] + 1, options_.window);

    const size_t c = static_cast<size_t>(state_.count[i]);
    SortSamples(ring.data(), c, sorted.data());
    const double median = (c % 2 == 1) ? sorted[c / 2] : 0.5 * (sorted[c / 2 - 1] + sorted[c / 2]);

    out.beams[i].range = median;
    out.beams[i].valid = median < beam.d_max;
  }
  return out;
}

}  // namespace limbic::hwio
