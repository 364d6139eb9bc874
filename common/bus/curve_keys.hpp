// The CURVE key files `limbic keys generate` writes, read in one place: a client's (services, tools:
// --curve-keys) and the broker's (limbic-bus --curve-server). Errors name the file and the missing key.
#pragma once

#include <string>

#include "common/bus/broker.hpp"
#include "common/bus/bus.hpp"

namespace limbic::bus {

// YAML with server_public, client_public, client_secret (Z85). Throws config::ConfigError.
CurveClientKeys LoadCurveClientKeys(const std::string& path);
// YAML with server_secret and allowed_clients. Throws config::ConfigError.
CurveServerKeys LoadCurveServerKeys(const std::string& path);

// --curve-keys FILE if given, else $LIMBIC_CURVE_KEYS if set, else no CURVE.
CurveClientKeys CurveKeysFromFlagOrEnvironment(const std::string& flag_value);

}  // namespace limbic::bus
