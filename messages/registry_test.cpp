#include <flatbuffers/reflection.h>
#include <gtest/gtest.h>

#include <cstring>
#include <set>
#include <string>

#include "messages/messages.hpp"

namespace limbic::messages {
namespace {

TEST(Registry, EveryRootTableOfTheSchemaIsRegisteredWithItsIdentifier) {
  auto schema = BinarySchema();
  flatbuffers::Verifier verifier(schema.data(), schema.size());
  ASSERT_TRUE(reflection::VerifySchemaBuffer(verifier));
  const reflection::Schema* s = reflection::GetSchema(schema.data());
  std::set<std::string> schema_roots;
  for (const reflection::Object* object : *s->objects()) {
    if (!object->attributes()) continue;
    const auto* id = object->attributes()->LookupByKey("identifier");
    if (!id) continue;
    const std::string name = object->name()->str();
    schema_roots.insert(name);
    const MessageType* type = FindByName(name);
    ASSERT_NE(type, nullptr) << name << " has an identifier in the schema but is not registered";
    EXPECT_EQ(id->value()->str(), type->identifier) << name;
    // Every root type starts with its header.
    const auto* header = object->fields()->LookupByKey("header");
    ASSERT_NE(header, nullptr) << name;
    EXPECT_EQ(header->id(), 0) << name;
  }
  EXPECT_EQ(schema_roots.size(), AllTypes().size());
  std::set<std::string> identifiers;
  for (const auto& t : AllTypes()) {
    EXPECT_TRUE(schema_roots.count(t.name)) << t.name << " registered but not in the schema";
    EXPECT_TRUE(identifiers.insert(t.identifier).second) << "duplicate identifier " << t.identifier;
  }
}

TEST(Registry, VerifiesGoodAndRejectsBadBuffers) {
  flatbuffers::FlatBufferBuilder fbb;
  auto header = msg::CreateHeaderDirect(fbb, 1000, 7, 1, "test");
  auto odom = msg::CreateOdometry(fbb, header, nullptr, 0.5, 0.1);
  fbb.Finish(odom, Traits<msg::Odometry>::kIdentifier);
  const uint8_t* data = fbb.GetBufferPointer();
  const size_t size = fbb.GetSize();
  EXPECT_TRUE(Verify<msg::Odometry>(data, size));
  EXPECT_FALSE(Verify<msg::Clock>(data, size));  // wrong identifier
  EXPECT_EQ(IdentifierOf(data, size), "ODOM");
  EXPECT_EQ(FindByIdentifier("ODOM")->verify(data, size), true);
  EXPECT_EQ(HeaderOf(data)->tick(), 7);
  EXPECT_EQ(HeaderOf(data)->source()->str(), "test");
  // Truncation is caught.
  EXPECT_FALSE(Verify<msg::Odometry>(data, size / 2));
  EXPECT_FALSE(Verify<msg::Odometry>(data, 4));
}

TEST(AlignedBytes, PassesAlignedBytesThroughAndCopiesMisalignedOnes) {
  alignas(8) uint8_t raw[64];
  for (int i = 0; i < 64; ++i) raw[i] = static_cast<uint8_t>(i * 7);
  AlignedBytes aligned;
  EXPECT_EQ(aligned.Align(raw, 32), raw);
  EXPECT_EQ(aligned.copies(), 0u);
  for (size_t offset = 1; offset < 8; ++offset) {
    const uint8_t* out = aligned.Align(raw + offset, 40);
    EXPECT_NE(out, raw + offset);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(out) % AlignedBytes::kAlignment, 0u) << offset;
    EXPECT_EQ(std::memcmp(out, raw + offset, 40), 0) << offset;
  }
  EXPECT_EQ(aligned.copies(), 7u);
  // Empty input: a valid (aligned) pointer, nothing read.
  EXPECT_EQ(reinterpret_cast<uintptr_t>(aligned.Align(raw + 3, 0)) % AlignedBytes::kAlignment, 0u);
}

}  // namespace
}  // namespace limbic::messages
