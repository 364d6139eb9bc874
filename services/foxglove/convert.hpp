// Bus messages -> the derived channels' inputs. The only file of the bridge's library that sees
// FlatBuffers.
#pragma once

#include <cstdint>
#include <string>

#include "services/foxglove/derived.hpp"

namespace limbic::foxglove {

// Converts a verified message that `route` says feeds a derived channel and returns what to
// publish. `data` must already be verified as the route's type (the bus does that).
std::vector<DerivedMessage> Derive(DerivedChannels& derived, const Route& route,
                                   const uint8_t* data, int64_t stamp_ns, double now_s);

}  // namespace limbic::foxglove
