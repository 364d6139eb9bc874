// The transport-independent half of shm.hpp; the iceoryx half is shm_iceoryx.cpp (or shm_none.cpp when the
// build found no iceoryx).
#include "common/bus/shm.hpp"

#include <algorithm>
#include <stdexcept>

#include "common/hash/fnv1a.hpp"

namespace limbic::bus {

std::vector<std::string> DefaultShmIdentifiers() {
  // GridMap, RangeScan, LaserScan, TopoMapSnapshot: kilobytes to megabytes each (messages/*.fbs).
  return {"GMAP", "SCAN", "LSCN", "LMAP"};
}

std::string ShmServiceName(const std::string& bus_address) {
  const uint64_t h = hash::Fnv1a(bus_address);  // short, and the same in every process
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string text = "limbic-";
  for (int i = 15; i >= 0; --i) text += kDigits[(h >> (4 * i)) & 0xf];
  return text;
}

ShmUse ParseShmUse(std::string_view text, const std::string& what) {
  if (text == "0" || text == "false" || text.empty()) return ShmUse::kOff;
  if (text == "1" || text == "true") return ShmUse::kMirrored;
  if (text == "only") return ShmUse::kOnly;
  throw std::invalid_argument(what + ": '" + std::string(text) +
                              "' is not a shared-memory setting (0 or false: off; 1 or true: on, with a socket copy "
                              "for readers without it; only: shared memory alone)");
}

bool ShmEndpoint::Takes(const std::string& topic, std::string_view identifier) const {
  if (!active_ || topic.empty() || topic.size() > kMaxShmTopic || identifier.size() != 4) return false;
  return std::any_of(options_.identifiers.begin(), options_.identifiers.end(),
                     [&](const std::string& id) { return id == "*" || id == identifier; });
}

}  // namespace limbic::bus
