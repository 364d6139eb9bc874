// Semantically hostile messages (issue 15, item 7): well-formed FlatBuffers that pass the Verifier
// but carry NaN, ±inf, huge and negative values, empty and mis-sized vectors, out-of-range ids and
// counts that would size huge allocations. Every one breaks a rule of messages/validate.cpp, so every
// one must be dropped and counted as `invalid`; WrongTypeFor gives a valid message of another type.
// Used by the adversarial system test and the fuzz target.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "messages/messages.hpp"

namespace limbic::testing {

struct HostileHeader {
  int64_t tick = -1;
  uint64_t seq = 1;
  std::string source = "attacker";
  uint64_t incarnation = 0xbad;
};

// Number of hostile variants of `type` (0 for a type without any).
int HostileVariants(const messages::MessageType& type);
// Variant `variant` (taken modulo HostileVariants) of a hostile message of `type`; `noise` perturbs
// the numbers (fuzzing). Returns a finished buffer with the type's identifier.
std::vector<uint8_t> HostileMessage(const messages::MessageType& type, int variant, const HostileHeader& header,
                                    uint64_t noise = 0);
// A valid message of a type other than `type` (for wrong-type injection).
std::vector<uint8_t> WrongTypeFor(const messages::MessageType& type, const HostileHeader& header);

}  // namespace limbic::testing
