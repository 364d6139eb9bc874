// Helpers shared by the libFuzzer targets and the seed generator: a schema-driven walk that reads every
// byte of a verified message, the frame encoding the bus target uses, and a generator of well-formed
// JSON for every message type (the seeds).
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "messages/messages.hpp"

namespace limbic::fuzz {

// Reads every field of a verified buffer of `type` through the embedded binary schema (scalars, strings,
// structs, vectors, nested tables) and folds the values into a checksum, so that AddressSanitizer sees
// every read a consumer could make. Aborts (a fuzzer crash) if the schema has no such type.
uint64_t WalkVerified(const messages::MessageType& type, const uint8_t* data, size_t size);

// Reads the generic header the bus relies on (messages::HeaderOf) and folds it into a checksum.
uint64_t WalkHeader(const uint8_t* verified_data);

// Frame encoding of fuzz_bus_frames inputs:
//   byte 0: bits 0-1 = frame count - 1 (1..4 frames); bit 2 = also send frame 0 as a subscription
//           request ("\x01" + frame 0) to the broker's backend, then withdraw it.
//   then for each frame but the last: a 2-byte little-endian length (clamped to what is left) and the
//   bytes; the last frame takes the rest. An empty input is one empty frame.
struct FrameInput {
  std::vector<std::span<const uint8_t>> frames;
  bool subscribe = false;
};
FrameInput DecodeFrames(const uint8_t* data, size_t size);
std::vector<uint8_t> EncodeFrames(const std::vector<std::vector<uint8_t>>& frames, bool subscribe);

// JSON for `type` with every (non-deprecated) field set: scalars non-zero, enums their last value,
// strings short, vectors two elements, nested tables up to a small depth. Includes a header when
// `with_header` (seq 1, source "seed", the given latched flag).
std::string FullJson(const messages::MessageType& type, bool with_header, bool latched);

}  // namespace limbic::fuzz
