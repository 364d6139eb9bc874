#pragma once

#include "common/runtime/runtime.hpp"

namespace limbic::mission {

// The mission: sends navigation instructions back and forth, detects arrival and timeout from ground
// truth, publishes a RunMetrics row per traversal (and appends it to `metrics_csv` if set), and in
// lockstep ends the run after the last traversal.
runtime::ServiceDefinition MissionService();

// The CSV columns of `metrics_csv` rows.
const char* MetricsCsvHeader();

}  // namespace limbic::mission
