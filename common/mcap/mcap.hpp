// MCAP v1 (https://mcap.dev/spec): the record types limbic writes and reads, the error type, and the
// chunk compressions. A small library of its own (no ZeroMQ, no limbic message types) so any tool —
// the recorder, the player, the Foxglove bridge — can write or read a recording.
//
// File layout written by mcap::Writer (spec "File Structure"):
//   <Magic><Header><Data section: (Chunk MessageIndex*)* DataEnd>
//   <Summary: Schema* Channel* Statistics ChunkIndex*><Summary Offsets><Footer><Magic>
// Every record is <opcode u8><content length u64><content>; integers are little-endian; a String is
// <u32 length><bytes>; a Map or Array is <u32 byte length><entries>.
#pragma once

#include <cstdint>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

namespace limbic::mcap {

inline constexpr uint8_t kMagic[8] = {0x89, 'M', 'C', 'A', 'P', '0', '\r', '\n'};

enum class Opcode : uint8_t {
  kHeader = 0x01,
  kFooter = 0x02,
  kSchema = 0x03,
  kChannel = 0x04,
  kMessage = 0x05,
  kChunk = 0x06,
  kMessageIndex = 0x07,
  kChunkIndex = 0x08,
  kAttachment = 0x09,
  kAttachmentIndex = 0x0A,
  kStatistics = 0x0B,
  kMetadata = 0x0C,
  kMetadataIndex = 0x0D,
  kSummaryOffset = 0x0E,
  kDataEnd = 0x0F,
};

// Chunk compression; the names are the spec's `compression` strings ("" = none).
enum class Compression { kNone, kZstd, kLz4 };
const char* CompressionName(Compression c);  // "", "zstd", "lz4"
// Parses "none" | "zstd" | "lz4" (a command-line value); throws std::invalid_argument otherwise.
Compression ParseCompression(const std::string& text);

struct Schema {
  uint16_t id = 0;  // 0 is reserved ("no schema")
  std::string name;
  std::string encoding;  // limbic: "flatbuffer"
  std::vector<uint8_t> data;
};

struct Channel {
  uint16_t id = 0;
  uint16_t schema_id = 0;
  std::string topic;
  std::string message_encoding;  // limbic: "flatbuffer"
  std::map<std::string, std::string> metadata;
};

struct Statistics {
  uint64_t message_count = 0;
  uint16_t schema_count = 0;
  uint32_t channel_count = 0;
  uint32_t attachment_count = 0;
  uint32_t metadata_count = 0;
  uint32_t chunk_count = 0;
  uint64_t message_start_time = 0;
  uint64_t message_end_time = 0;
  std::map<uint16_t, uint64_t> channel_message_counts;
};

struct ChunkIndex {
  uint64_t message_start_time = 0;
  uint64_t message_end_time = 0;
  uint64_t chunk_start_offset = 0;                     // file offset of the Chunk record's opcode
  uint64_t chunk_length = 0;                           // whole Chunk record, opcode included
  std::map<uint16_t, uint64_t> message_index_offsets;  // channel -> file offset of its MessageIndex
  uint64_t message_index_length = 0;
  std::string compression;
  uint64_t compressed_size = 0;
  uint64_t uncompressed_size = 0;
};

// A malformed, truncated or corrupt file. `offset` is the byte offset in the file where the damage
// was found; what() names it ("at byte N: ...") so a person can look.
class FormatError : public std::runtime_error {
 public:
  FormatError(uint64_t offset, const std::string& what);
  uint64_t offset() const { return offset_; }

 private:
  uint64_t offset_;
};

// CRC-32 (IEEE 802.3, the spec's CRC) of `size` bytes, continuing from `crc` (0 to start).
uint32_t Crc32(uint32_t crc, const void* data, size_t size);

}  // namespace limbic::mcap
