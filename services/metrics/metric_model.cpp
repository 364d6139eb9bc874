#include "services/metrics/metric_model.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <stdexcept>

namespace limbic::metrics {
namespace {

// Shortest round-trip representation, with Prometheus' spellings of the special values.
std::string FormatValue(double v) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v > 0 ? "+Inf" : "-Inf";
  char buffer[32];
  if (v == std::trunc(v) && std::abs(v) < 1e15) {
    std::snprintf(buffer, sizeof(buffer), "%.0f", v);  // integers as integers: counts, ticks
    return buffer;
  }
  std::snprintf(buffer, sizeof(buffer), "%.17g", v);
  // Prefer a short form when it reads back to the same double.
  for (int precision = 1; precision < 17; ++precision) {
    char shorter[32];
    std::snprintf(shorter, sizeof(shorter), "%.*g", precision, v);
    if (std::strtod(shorter, nullptr) == v) return shorter;
  }
  return buffer;
}

std::string EscapeLabelValue(const std::string& value) {
  std::string out;
  for (char c : value) {
    if (c == '\\')
      out += "\\\\";
    else if (c == '"')
      out += "\\\"";
    else if (c == '\n')
      out += "\\n";
    else
      out += c;
  }
  return out;
}

std::string EscapeHelp(const std::string& help) {
  std::string out;
  for (char c : help) {
    if (c == '\\')
      out += "\\\\";
    else if (c == '\n')
      out += "\\n";
    else
      out += c;
  }
  return out;
}

void WriteSeries(std::ostream& out, const std::string& name, const Labels& labels,
                 const std::pair<std::string, std::string>* extra, const std::string& value) {
  out << name;
  if (!labels.empty() || extra != nullptr) {
    out << '{';
    bool first = true;
    for (const auto& [k, v] : labels) {
      out << (first ? "" : ",") << k << "=\"" << EscapeLabelValue(v) << '"';
      first = false;
    }
    if (extra != nullptr) out << (first ? "" : ",") << extra->first << "=\"" << extra->second << '"';
    out << '}';
  }
  out << ' ' << value << '\n';
}

bool ValidName(const std::string& name) {
  if (name.empty() || !(std::islower(static_cast<unsigned char>(name[0])) || name[0] == '_')) return false;
  return std::all_of(name.begin(), name.end(), [](char c) {
    return std::islower(static_cast<unsigned char>(c)) || std::isdigit(static_cast<unsigned char>(c)) || c == '_';
  });
}

bool EndsWith(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

}  // namespace

HistogramValue HistogramFromBucketCounts(const std::vector<double>& upper_bounds,
                                         const std::vector<uint64_t>& bucket_counts, double sum) {
  if (bucket_counts.size() != upper_bounds.size() + 1) {
    throw std::invalid_argument("histogram: " + std::to_string(bucket_counts.size()) + " bucket counts for " +
                                std::to_string(upper_bounds.size()) + " bounds (expected bounds + 1 for +Inf)");
  }
  HistogramValue h;
  h.upper_bounds = upper_bounds;
  uint64_t running = 0;
  for (size_t i = 0; i < upper_bounds.size(); ++i) {
    running += bucket_counts[i];
    h.cumulative_counts.push_back(running);
  }
  h.count = running + bucket_counts.back();
  h.sum = sum;
  return h;
}

std::string RenderText(const std::vector<MetricFamily>& families) {
  std::ostringstream out;
  for (const auto& family : families) {
    out << "# HELP " << family.name << ' ' << EscapeHelp(family.help) << '\n';
    const char* type = family.type == MetricType::kCounter     ? "counter"
                       : family.type == MetricType::kHistogram ? "histogram"
                                                               : "gauge";
    out << "# TYPE " << family.name << ' ' << type << '\n';
    for (const auto& sample : family.samples) {
      if (family.type != MetricType::kHistogram) {
        WriteSeries(out, family.name, sample.labels, nullptr, FormatValue(sample.value));
        continue;
      }
      const HistogramValue& h = sample.histogram;
      for (size_t i = 0; i < h.upper_bounds.size(); ++i) {
        const std::pair<std::string, std::string> le{"le", FormatValue(h.upper_bounds[i])};
        WriteSeries(out, family.name + "_bucket", sample.labels, &le, std::to_string(h.cumulative_counts[i]));
      }
      const std::pair<std::string, std::string> inf{"le", "+Inf"};
      WriteSeries(out, family.name + "_bucket", sample.labels, &inf, std::to_string(h.count));
      WriteSeries(out, family.name + "_sum", sample.labels, nullptr, FormatValue(h.sum));
      WriteSeries(out, family.name + "_count", sample.labels, nullptr, std::to_string(h.count));
    }
  }
  return out.str();
}

const std::vector<std::string>& AllowedLabelNames() {
  static const std::vector<std::string> names = {"robot",    "service",   "topic",  "emotion", "drive",
                                                 "stimulus", "parameter", "kind",   "mood",    "reason",
                                                 "result",   "model",     "effect", "state"};
  return names;
}

std::vector<std::string> CheckNaming(const std::vector<MetricFamily>& families) {
  std::vector<std::string> problems;
  const auto& allowed = AllowedLabelNames();
  for (const auto& f : families) {
    if (!ValidName(f.name)) problems.push_back(f.name + ": not [a-z_][a-z0-9_]*");
    if (f.name.rfind("limbic_", 0) != 0) problems.push_back(f.name + ": missing limbic_ prefix");
    const bool total = EndsWith(f.name, "_total");
    if (f.type == MetricType::kCounter && !total) problems.push_back(f.name + ": counter without _total");
    if (f.type != MetricType::kCounter && total) problems.push_back(f.name + ": _total on a non-counter");
    if (f.help.empty()) problems.push_back(f.name + ": no help text");
    // promtool check metrics (issue 22): these suffixes belong to the series a histogram or summary expands into.
    for (const char* reserved : {"_count", "_sum", "_bucket"}) {
      if (f.type != MetricType::kHistogram && EndsWith(f.name, reserved)) {
        problems.push_back(f.name + ": " + reserved + " is reserved for histograms and summaries");
      }
    }
    for (const auto& s : f.samples) {
      for (const auto& [k, v] : s.labels) {
        if (std::find(allowed.begin(), allowed.end(), k) == allowed.end()) {
          problems.push_back(f.name + ": label '" + k + "' is not in the bounded set");
        }
      }
    }
  }
  return problems;
}

}  // namespace limbic::metrics
