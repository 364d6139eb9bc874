// Finds any non-finite floating-point number anywhere in a limbic message, through the binary schema
// (limbic.bfbs): scalar fields, structs (Vec2, Pose2, GridInfo, Beam, ...), vectors of numbers or
// structs, nested tables. Independent of messages/validate.cpp, so tests can check what services
// publish without trusting the rules under test.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "messages/messages.hpp"

namespace limbic::testing {

// "" if every float/double in the verified message is finite, else the path of the first that is not
// (e.g. "ControlParams.w_v1" or "GridMap.p_o[17]").
std::string FindNonFinite(const messages::MessageType& type, const uint8_t* verified_data);

}  // namespace limbic::testing
