#include "common/bus/message_class.hpp"

#include <algorithm>
#include <array>
#include <cstring>

namespace limbic::bus {

namespace {

constexpr std::string_view kState[] = {
    "HBT1", "BUSS", "HWMR",                          // heartbeats, bus statistics, high-water reports
    "WRLD", "HUMN", "TRUE",                          // world geometry, humans, ground truth
    "RAWR", "SCAN", "ODOM",                          // ranges, scans, odometry
    "GMAP", "MSTA", "OBST", "PATH",                  // maps and their statistics, obstacles, paths
    "DIRS", "VELS",                                  // the controller's internal state
    "AFCT", "EMOL", "AFSN",                          // affect state, emotion layer, affect snapshot
    "RUNM", "MSTS", "RCST", "RCRS",                  // run metrics, mission status, recruitment state and radio
    "LSCN", "LODO", "LTRU",                          // laser scans, odometry, truth
    "LOBS", "LFEA", "LCND", "LMAP", "CRST", "CRNB",  // laser map layer, crowd state and neighbours
};

constexpr uint32_t Key(std::string_view id) {
  return static_cast<uint32_t>(static_cast<uint8_t>(id[0])) | static_cast<uint32_t>(static_cast<uint8_t>(id[1])) << 8 |
         static_cast<uint32_t>(static_cast<uint8_t>(id[2])) << 16 |
         static_cast<uint32_t>(static_cast<uint8_t>(id[3])) << 24;
}

// Sorted keys: a binary search per forwarded message (5 comparisons for 31 types).
constexpr auto kKeys = [] {
  std::array<uint32_t, std::size(kState)> keys{};
  for (size_t i = 0; i < keys.size(); ++i) keys[i] = Key(kState[i]);
  std::sort(keys.begin(), keys.end());
  return keys;
}();

}  // namespace

std::span<const std::string_view> StateIdentifiers() { return kState; }

bool IsStateIdentifier(std::string_view identifier) {
  return identifier.size() == 4 && std::binary_search(kKeys.begin(), kKeys.end(), Key(identifier));
}

bool IsStateMessage(const uint8_t* data, size_t size) {
  if (size < 8) return false;
  uint32_t key = 0;
  std::memcpy(&key, data + 4, 4);  // little-endian, as Key() builds it (limbic runs on little-endian hosts)
  return std::binary_search(kKeys.begin(), kKeys.end(), key);
}

}  // namespace limbic::bus
