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
  std::vector<double> sorted;
  sorted.reserve(options_.window);
  for (size_t i = 0; i < n; ++i) {
    const RangeBeam& beam = raw.beams[i];
    double sample = beam.d_max;
    if (beam.valid && std::isfinite(beam.range)) sample = std::min(beam.range, beam.d_max);

    std::vector<double>& ring = state_.history[i];
    ring[state_.next[i]] = sample;
    state_.next[i] = (state_.next[i] + 1) % options_.window;
    state_.count[i] = std::min(state_.count[i] + 1, options_.window);

    sorted.assign(ring.begin(), ring.begin() + state_.count[i]);
    std::sort(sorted.begin(), sorted.end());
    const size_t c = sorted.size();
    const double median = (c % 2 == 1) ? sorted[c / 2] : 0.5 * (sorted[c / 2 - 1] + sorted[c / 2]);

    out.beams[i].range = median;
    out.beams[i].valid = median < beam.d_max;
  }
  return out;
}

}  // namespace limbic::hwio
