// mcap::Reader: reads an MCAP v1 file (limbic's or any other writer's) — the summary for a quick
// look, or every message in file order, checking each CRC on the way.
//
// Damage is reported, never a crash: a truncated or corrupt file yields a FormatError naming the
// byte offset, and what came before it is still delivered (ReadMessages) or summarised (Scan). A
// file cut short by a crash or a full disk reads back up to its last complete chunk.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "common/mcap/mcap.hpp"

namespace limbic::mcap {

struct MessageView {
  const Channel& channel;
  uint32_t sequence;
  uint64_t log_time;
  uint64_t publish_time;
  std::span<const uint8_t> data;  // valid during the callback only, unless `owner` is kept
  // What keeps `data` alive and unchanged after the callback, as long as a copy of it is held: the
  // decompressed chunk or the file's mapping (bus::Node::SendShared sends from it without a copy).
  // Null for a Reader over the caller's bytes, whose lifetime it cannot extend.
  const std::shared_ptr<const void>& owner;
};

// What the summary section says (present only when the footer and the summary CRC are intact).
struct Summary {
  std::map<uint16_t, Schema> schemas;
  std::map<uint16_t, Channel> channels;
  std::optional<Statistics> statistics;
  std::vector<ChunkIndex> chunk_indexes;
  uint64_t summary_start = 0;
};

// The outcome of a pass over the data section.
struct ScanResult {
  uint64_t messages = 0;             // delivered to the callback
  uint64_t chunks = 0;               // complete, CRC-checked chunks read
  std::optional<FormatError> error;  // the first damage found (the pass stopped there)
  bool complete = false;             // reached DataEnd with no damage
};

// How ReadMessages reads: on the calling thread alone, or with a second thread that decompresses and
// CRC-checks the next chunks while the caller handles the current one's messages (at most two chunks
// ahead; `limbic play --rate 0` uses it so the sending thread does little more than send).
enum class ReadAhead { kNone, kThread };

class Reader {
 public:
  // Maps the file; throws std::system_error if it cannot be opened, FormatError if it does not
  // start with the MCAP magic and a Header record.
  explicit Reader(const std::string& path);
  // Reads bytes already in memory (not copied: they must outlive the reader); `name` stands for the
  // path in messages. Throws FormatError as above.
  Reader(std::span<const uint8_t> bytes, std::string name);
  ~Reader();
  Reader(const Reader&) = delete;
  Reader& operator=(const Reader&) = delete;

  const std::string& path() const { return path_; }
  uint64_t file_size() const { return size_; }
  const std::string& profile() const { return profile_; }
  const std::string& library() const { return library_; }

  // Reads the footer and the summary section, checking the summary CRC. nullopt if the file has no
  // usable summary; then summary_error() says why (e.g. "at byte N: file ends without a footer").
  const std::optional<Summary>& summary() const { return summary_; }
  const std::optional<FormatError>& summary_error() const { return summary_error_; }

  // Every message in file order (chunks decompressed, CRCs checked: chunk records and, at DataEnd,
  // the data section). `on_message` returning false stops early. Schemas and channels met on the
  // way are collected into schemas()/channels(). Stops at the first damage and reports it, after
  // every message before it (the same messages, order and result with either ReadAhead).
  ScanResult ReadMessages(const std::function<bool(const MessageView&)>& on_message,
                          ReadAhead read_ahead = ReadAhead::kNone);

  // Schemas and channels seen by ReadMessages (and the summary's, if any).
  const std::map<uint16_t, Schema>& schemas() const { return schemas_; }
  const std::map<uint16_t, Channel>& channels() const { return channels_; }

 private:
  void Init();  // checks the magic and Header, reads the summary; unmaps on failure
  void ReadSummary();
  // Handles one record of the data section or of a chunk; returns false if the callback asked to
  // stop.
  bool HandleRecord(uint8_t op, const uint8_t* content, uint64_t length, uint64_t at,
                    const std::shared_ptr<const void>& owner, const std::function<bool(const MessageView&)>& on_message,
                    ScanResult* result);

  std::string path_;
  const uint8_t* data_ = nullptr;
  uint64_t size_ = 0;
  // Our mmap of the file, unmapped when the last holder lets go (the reader, or messages sent from
  // it); null over the caller's bytes.
  std::shared_ptr<const void> mapping_;
  std::string profile_, library_;
  std::optional<Summary> summary_;
  std::optional<FormatError> summary_error_;
  std::map<uint16_t, Schema> schemas_;
  std::map<uint16_t, Channel> channels_;
};

}  // namespace limbic::mcap
