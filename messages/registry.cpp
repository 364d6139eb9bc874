#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>

#include "messages/messages.hpp"

namespace limbic::messages {

extern const uint8_t kBinarySchema[];
extern const size_t kBinarySchemaSize;

namespace {
#define LIMBIC_TYPE_ENTRY(Type, Id) MessageType{Id, "limbic.msg." #Type, &Verify<msg::Type>},
constexpr std::array kTypes{LIMBIC_MESSAGE_TYPES(LIMBIC_TYPE_ENTRY)};
#undef LIMBIC_TYPE_ENTRY
}  // namespace

std::span<const MessageType> AllTypes() { return kTypes; }

const MessageType* FindByIdentifier(std::string_view identifier) {
  // Called for every message a bus checks. FlatBuffers identifiers are 4 bytes: each is one integer key in an
  // open-addressed table (built once), so every type costs the same to find — a linear scan made each type
  // pay for every one listed before it (~65 instructions per message once, for a type inserted mid-list).
  static constexpr size_t kSlots = 256;  // a power of two, over 4x the types: probes are short
  static_assert(kTypes.size() * 4 <= kSlots);
  struct Slot {
    uint32_t key = 0;
    const MessageType* type = nullptr;
  };
  static const std::array<Slot, kSlots> kTable = [] {
    std::array<Slot, kSlots> table{};
    for (const auto& t : kTypes) {
      uint32_t key = 0;
      if (std::strlen(t.identifier) != 4) continue;
      std::memcpy(&key, t.identifier, 4);
      size_t i = (key * 2654435761u) >> 24;  // Fibonacci hashing: the top 8 bits of the product
      while (table[i].type != nullptr) i = (i + 1) % kSlots;
      table[i] = Slot{key, &t};
    }
    return table;
  }();
  if (identifier.size() != 4) return nullptr;
  uint32_t want = 0;
  std::memcpy(&want, identifier.data(), 4);
  for (size_t i = (want * 2654435761u) >> 24;; i = (i + 1) % kSlots) {
    const Slot& slot = kTable[i];
    if (slot.type == nullptr) return nullptr;
    if (slot.key == want) return slot.type;
  }
}

const MessageType* FindByName(std::string_view name) {
  for (const auto& t : kTypes) {
    std::string_view full = t.name;
    if (name == full || name == full.substr(std::strlen("limbic.msg."))) return &t;
  }
  return nullptr;
}

const MessageType* ConventionalType(std::string_view topic) {
  static constexpr std::pair<std::string_view, std::string_view> kGlobal[] = {
      {"clock", "CLCK"},     {"faults", "FALT"},        {"world", "WRLD"},        {"humans", "HUMN"},
      {"bus/stats", "BUSS"}, {"lockstep/join", "LSJN"}, {"lockstep/ack", "LSAK"}, {"lockstep/stop", "CLCK"}};
  // <robot>/<name>, as the services name their topics (runtime::RobotTopic).
  static constexpr std::pair<std::string_view, std::string_view> kRobot[] = {{"ranges_raw", "RAWR"},
                                                                             {"scan", "SCAN"},
                                                                             {"bumpers_raw", "BUMP"},
                                                                             {"collision", "COLL"},
                                                                             {"odom", "ODOM"},
                                                                             {"odom_raw", "ODOM"},
                                                                             {"wheels", "WHEL"},
                                                                             {"cmd_vel", "CMDV"},
                                                                             {"map", "GMAP"},
                                                                             {"map/patch", "GPAT"},
                                                                             {"map/stats", "MSTA"},
                                                                             {"obstacles", "OBST"},
                                                                             {"goal", "GOAL"},
                                                                             {"path", "PATH"},
                                                                             {"control/direction", "DIRS"},
                                                                             {"control/velocity", "VELS"},
                                                                             {"params", "CPAR"},
                                                                             {"affect", "AFCT"},
                                                                             {"emotion_layer", "EMOL"},
                                                                             {"affect/snapshot", "AFSN"},
                                                                             {"metrics", "RUNM"},
                                                                             {"mission", "MSTS"},
                                                                             {"truth", "TRUE"},
                                                                             {"explore/task", "EXTK"},
                                                                             {"explore/report", "EXRP"},
                                                                             {"explore/call", "EXCL"},
                                                                             {"explore/bid", "EXBD"}};
  for (const auto& [name, id] : kGlobal) {
    if (topic == name) return FindByIdentifier(id);
  }
  if (topic.starts_with("health/")) return FindByIdentifier("HBT1");
  if (topic.starts_with("param/")) return FindByIdentifier(topic.ends_with("/reply") ? "PREP" : "PREQ");
  const size_t slash = topic.find('/');
  if (slash == std::string_view::npos || slash == 0) return nullptr;
  const std::string_view first = topic.substr(0, slash);
  if (first == "bus" || first == "lockstep") return nullptr;
  const std::string_view rest = topic.substr(slash + 1);
  for (const auto& [name, id] : kRobot) {
    if (rest == name) return FindByIdentifier(id);
  }
  return nullptr;
}

std::string_view IdentifierOf(const uint8_t* data, size_t size) {
  if (size < 8) return {};
  return {reinterpret_cast<const char*>(data) + 4, 4};
}

const msg::Header* HeaderOf(const uint8_t* verified_data) {
  const auto* table = flatbuffers::GetRoot<flatbuffers::Table>(verified_data);
  // Field id 0 lives at vtable offset 4 in every table.
  return table->GetPointer<const msg::Header*>(4);
}

const uint8_t* AlignedBytes::Align(const uint8_t* data, size_t size) {
  if (reinterpret_cast<uintptr_t>(data) % kAlignment == 0) return data;
  storage_.resize(std::max<size_t>(1, (size + sizeof(uint64_t) - 1) / sizeof(uint64_t)));
  if (size > 0) std::memcpy(storage_.data(), data, size);
  ++copies_;
  return reinterpret_cast<const uint8_t*>(storage_.data());
}

std::span<const uint8_t> BinarySchema() { return {kBinarySchema, kBinarySchemaSize}; }

}  // namespace limbic::messages
