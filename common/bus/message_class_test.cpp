#include "common/bus/message_class.hpp"

#include <gtest/gtest.h>

#include <array>
#include <set>
#include <string>

#include "messages/messages.hpp"

namespace limbic::bus {
namespace {

// A buffer with only its identifier set, as the broker sees one (bytes 4..8).
bool IsState(std::string_view id) {
  std::array<uint8_t, 16> bytes{};
  for (size_t i = 0; i < 4 && i < id.size(); ++i) bytes[4 + i] = static_cast<uint8_t>(id[i]);
  return IsStateMessage(bytes.data(), bytes.size());
}

TEST(MessageClass, EveryStateIdentifierIsARegisteredTypeListedOnce) {
  std::set<std::string_view> seen;
  for (const std::string_view id : StateIdentifiers()) {
    EXPECT_NE(messages::FindByIdentifier(id), nullptr) << id;
    EXPECT_TRUE(seen.insert(id).second) << id << " listed twice";
    EXPECT_TRUE(IsState(id)) << id;
  }
}

TEST(MessageClass, LatestValueTypesAreStateEverythingElseAnEvent) {
  for (const char* id : {"ODOM", "TRUE", "SCAN", "GMAP", "PATH", "AFCT", "HBT1", "BUSS", "HWMR", "LSCN"}) {
    EXPECT_TRUE(IsState(id)) << id;
  }
  // Commands, goals, incremental map patches, faults, parameters and lockstep are never state: each one counts.
  for (const char* id : {"CMDV", "WHEL", "GOAL", "GPAT", "FALT", "PREQ", "PREP", "CLCK", "LSJN", "COLL", "EXBD"}) {
    EXPECT_FALSE(IsState(id)) << id;
  }
  // Every registered type is one or the other, and the counts add up.
  size_t state = 0;
  for (const auto& t : messages::AllTypes()) state += IsState(t.identifier) ? 1 : 0;
  EXPECT_EQ(state, StateIdentifiers().size());
}

TEST(MessageClass, UnknownAndShortBuffersAreEvents) {
  EXPECT_FALSE(IsState("ZZZZ"));
  EXPECT_FALSE(IsState(""));
  const uint8_t tiny[4] = {'O', 'D', 'O', 'M'};
  EXPECT_FALSE(IsStateMessage(tiny, sizeof tiny));
  EXPECT_FALSE(IsStateMessage(nullptr, 0));
}

// The identifier alone (a typed publisher's, which decides a direct node's path for its topic) says the same.
TEST(MessageClass, AnIdentifierAloneIsClassedAsItsMessages) {
  for (const auto& t : messages::AllTypes()) EXPECT_EQ(IsStateIdentifier(t.identifier), IsState(t.identifier));
  EXPECT_TRUE(IsStateIdentifier("ODOM"));
  EXPECT_FALSE(IsStateIdentifier("CMDV"));
  EXPECT_FALSE(IsStateIdentifier("ZZZZ"));
  EXPECT_FALSE(IsStateIdentifier("ODO"));
  EXPECT_FALSE(IsStateIdentifier("ODOMX"));
  EXPECT_FALSE(IsStateIdentifier(""));
}

}  // namespace
}  // namespace limbic::bus
