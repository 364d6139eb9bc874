// A small, transport-free metric model: what limbic exports, as plain structs, plus a renderer for the
// Prometheus text exposition format (used by tests and `--dump`; the exporter hands the same structs to
// prometheus-cpp). Nothing here knows ZeroMQ, FlatBuffers or prometheus-cpp.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace limbic::metrics {

enum class MetricType { kGauge, kCounter, kHistogram };

using Labels = std::vector<std::pair<std::string, std::string>>;  // name -> value, in export order

// A histogram sample: cumulative counts per upper bound (the +Inf bucket is `count`).
struct HistogramValue {
  std::vector<double> upper_bounds;         // strictly increasing, finite
  std::vector<uint64_t> cumulative_counts;  // same size as upper_bounds
  uint64_t count = 0;
  double sum = 0.0;
};

// One time series of a family.
struct Sample {
  Labels labels;
  double value = 0.0;        // gauge or counter
  HistogramValue histogram;  // histogram families only
};

// One metric family: a name, its help line, its type and the series it has right now.
struct MetricFamily {
  std::string name;
  std::string help;
  MetricType type = MetricType::kGauge;
  std::vector<Sample> samples;
};

// Builds a histogram sample from per-bucket (non-cumulative) counts, the last one being +Inf, as
// heartbeats carry them. Throws std::invalid_argument when the sizes do not match.
HistogramValue HistogramFromBucketCounts(const std::vector<double>& upper_bounds,
                                         const std::vector<uint64_t>& bucket_counts, double sum);

// Prometheus text exposition format (version 0.0.4), families in the given order.
std::string RenderText(const std::vector<MetricFamily>& families);

// Checks limbic's naming rules: limbic_ prefix, [a-z0-9_] names, counters end in _total, nothing else
// does, label names from the bounded set. Returns human-readable problems (empty: all good).
std::vector<std::string> CheckNaming(const std::vector<MetricFamily>& families);

// The label names limbic allows (bounded sets: robots, services, topics, fixed model names).
const std::vector<std::string>& AllowedLabelNames();

}  // namespace limbic::metrics
