// hwio values <-> messages: faults from the `faults` topic.
#pragma once

#include <optional>
#include <string>

#include "messages/messages.hpp"
#include "services/hwio/fault_injector.hpp"

namespace limbic::hwio {

// A FaultCommand for hwio (sensor, bumper and actuator kinds). Returns nullopt for kinds hwio does not
// handle (communication and process faults belong to the broker and the launcher). `now` resolves a
// start in the past to "immediately".
std::optional<Fault> FaultFromMsg(const msg::FaultCommand& m, double now);

}  // namespace limbic::hwio
