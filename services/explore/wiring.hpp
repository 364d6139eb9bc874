#pragma once

#include "common/runtime/runtime.hpp"

namespace limbic::explore {

// The exploration task manager (issue 18 item 4; spec multi-robot §1), one for the team: it merges the explorers'
// maps (`<robot>/map`), hears their reports (`<robot>/explore/report`), allocates local environments by auction and
// sends each explorer its task (`<robot>/explore/task`, latched) until every environment is done or the time limit
// passes; then a finished task stops every explorer. With `results_csv` / `trace_csv` it writes the run's measures
// (reading `<robot>/truth` for them only).
runtime::ServiceDefinition TaskManagerService();

}  // namespace limbic::explore
