// The only place limbic meets prometheus-cpp: metric-model families -> prometheus::MetricFamily, and a
// Collectable that snapshots a MetricsCollector on every scrape (so liveness is judged at scrape time).
#pragma once

#include <prometheus/collectable.h>
#include <prometheus/metric_family.h>

#include <functional>
#include <memory>
#include <mutex>
#include <vector>

#include "services/metrics/collector.hpp"

namespace limbic::metrics {

std::vector<prometheus::MetricFamily> ToPrometheus(const std::vector<MetricFamily>& families);

// A MetricsCollector shared by the bus thread (updates) and the HTTP thread (scrapes).
class CollectorCollectable : public prometheus::Collectable {
 public:
  // `now_s` returns the time on the clock the updates use (main.cpp: steady clock seconds).
  CollectorCollectable(CollectorOptions options, std::function<double()> now_s);

  // Runs `update` on the collector under the lock.
  void Update(const std::function<void(MetricsCollector&)>& update);
  std::vector<prometheus::MetricFamily> Collect() const override;
  std::vector<MetricFamily> Snapshot() const;

 private:
  mutable std::mutex mutex_;
  MetricsCollector collector_;
  std::function<double()> now_s_;
};

}  // namespace limbic::metrics
