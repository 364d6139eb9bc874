#include "common/bus/curve_keys.hpp"

#include <cstdlib>
#include <vector>

#include "common/config/config.hpp"

namespace limbic::bus {

CurveClientKeys LoadCurveClientKeys(const std::string& path) {
  config::StrictMap keys(config::LoadFile(path), path);
  CurveClientKeys result;
  result.server_public = keys.Required<std::string>("server_public");
  result.client_public = keys.Required<std::string>("client_public");
  result.client_secret = keys.Required<std::string>("client_secret");
  keys.Finish();
  return result;
}

CurveServerKeys LoadCurveServerKeys(const std::string& path) {
  config::StrictMap keys(config::LoadFile(path), path);
  CurveServerKeys result;
  result.server_secret = keys.Required<std::string>("server_secret");
  result.allowed_clients = keys.Required<std::vector<std::string>>("allowed_clients");
  keys.Finish();
  return result;
}

CurveClientKeys CurveKeysFromFlagOrEnvironment(const std::string& flag_value) {
  if (!flag_value.empty()) return LoadCurveClientKeys(flag_value);
  if (const char* env = std::getenv("LIMBIC_CURVE_KEYS"); env != nullptr && *env != '\0') {
    return LoadCurveClientKeys(env);
  }
  return {};
}

}  // namespace limbic::bus
