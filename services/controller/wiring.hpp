#pragma once

#include "common/runtime/runtime.hpp"

namespace limbic::controller {

// The reactive controller: directional layer (θ_T) then velocity layer ((v_T, ω_T)), with the
// parameters the affect engine publishes applied live every tick (§4.3-4.5).
runtime::ServiceDefinition ControllerService();

}  // namespace limbic::controller
