#include "messages/messages.hpp"

#include <array>
#include <cstring>

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
  for (const auto& t : kTypes) {
    if (identifier == t.identifier) return &t;
  }
  return nullptr;
}

const MessageType* FindByName(std::string_view name) {
  for (const auto& t : kTypes) {
    std::string_view full = t.name;
    if (name == full || name == full.substr(std::strlen("limbic.msg."))) return &t;
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

std::span<const uint8_t> BinarySchema() { return {kBinarySchema, kBinarySchemaSize}; }

}  // namespace limbic::messages
