#pragma once

#include "common/runtime/runtime.hpp"

namespace limbic::recruit {

// One robot's recruiter as a service (spec affective-recruitment §9.2 robot_node): receives its copies
// on `rc/rx/<id>`, transmits on `rc/tx/<id>` (to the radio), publishes RecruitState on `rc/state/<id>`
// at 1 Hz and on every state change. Realtime (messages are handled at the next tick).
runtime::ServiceDefinition RecruiterService();

// The radio between robots (§9.2 medium): takes every transmission from `rc/tx/<id>`, counts it,
// applies loss, latency and range, and delivers copies on `rc/rx/<receiver id>`; RadioStats on
// `rc/radio` at 1 Hz. Global (one per team).
runtime::ServiceDefinition RadioService();

}  // namespace limbic::recruit
