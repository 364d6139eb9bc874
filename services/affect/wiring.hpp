#pragma once

#include "common/runtime/runtime.hpp"

namespace limbic::affect {

// The affect engine as a service: stimuli -> emotions (global and mapped) -> moods -> drives ->
// control parameters, plus the emotion cost layer for the planner (§5). Publishes every tick.
runtime::ServiceDefinition AffectService();

}  // namespace limbic::affect
