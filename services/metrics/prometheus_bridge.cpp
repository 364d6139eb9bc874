#include "services/metrics/prometheus_bridge.hpp"

namespace limbic::metrics {

std::vector<prometheus::MetricFamily> ToPrometheus(const std::vector<MetricFamily>& families) {
  std::vector<prometheus::MetricFamily> out;
  out.reserve(families.size());
  for (const auto& f : families) {
    prometheus::MetricFamily pf;
    pf.name = f.name;
    pf.help = f.help;
    pf.type = f.type == MetricType::kCounter     ? prometheus::MetricType::Counter
              : f.type == MetricType::kHistogram ? prometheus::MetricType::Histogram
                                                 : prometheus::MetricType::Gauge;
    for (const auto& s : f.samples) {
      prometheus::ClientMetric m;
      for (const auto& [k, v] : s.labels) m.label.push_back({k, v});
      switch (f.type) {
        case MetricType::kGauge:
          m.gauge.value = s.value;
          break;
        case MetricType::kCounter:
          m.counter.value = s.value;
          break;
        case MetricType::kHistogram:
          m.histogram.sample_count = s.histogram.count;
          m.histogram.sample_sum = s.histogram.sum;
          for (size_t i = 0; i < s.histogram.upper_bounds.size(); ++i) {
            m.histogram.bucket.push_back({s.histogram.cumulative_counts[i], s.histogram.upper_bounds[i]});
          }
          m.histogram.bucket.push_back({s.histogram.count, std::numeric_limits<double>::infinity()});
          break;
      }
      pf.metric.push_back(std::move(m));
    }
    out.push_back(std::move(pf));
  }
  return out;
}

CollectorCollectable::CollectorCollectable(CollectorOptions options, std::function<double()> now_s)
    : collector_(std::move(options)), now_s_(std::move(now_s)) {}

void CollectorCollectable::Update(const std::function<void(MetricsCollector&)>& update) {
  std::lock_guard lock(mutex_);
  update(collector_);
}

std::vector<MetricFamily> CollectorCollectable::Snapshot() const {
  std::lock_guard lock(mutex_);
  return collector_.Snapshot(now_s_());
}

std::vector<prometheus::MetricFamily> CollectorCollectable::Collect() const { return ToPrometheus(Snapshot()); }

}  // namespace limbic::metrics
