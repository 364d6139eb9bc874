// mcap::Writer: writes an MCAP v1 file — header, schemas, channels, messages in compressed chunks with
// their message indexes, then a summary (schemas, channels, statistics, chunk indexes), summary
// offsets and a footer, with every CRC the spec defines (chunk, data section, summary).
//
//   mcap::Writer writer("run.mcap", {.compression = mcap::Compression::kZstd});
//   const uint16_t schema = writer.AddSchema("limbic.msg.RangeScan", "flatbuffer", bfbs);
//   const uint16_t channel = writer.AddChannel(schema, "r1/scan", "flatbuffer");
//   writer.Write({.channel_id = channel, .sequence = 1, .log_time = t, .publish_time = t, .data = bytes});
//   writer.Close();
//
// Schema and channel records go into the chunk that is open when they are added, so a file cut short
// (a crash, a full disk) reads back up to its last complete chunk without its summary. Not
// thread-safe: one thread writes (the recorder hands messages to a writer thread).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "common/mcap/compression.hpp"
#include "common/mcap/mcap.hpp"

namespace limbic::mcap {

// Where the bytes go. Write either writes everything or throws std::system_error naming what failed.
class Sink {
 public:
  virtual ~Sink() = default;
  virtual void Write(const uint8_t* data, size_t size) = 0;
  virtual void Close() {}
};

// A file opened with open(2) (created or truncated) and written with write(2); no user-space buffer,
// the writer hands it whole chunks. Errors (ENOSPC, EIO) throw std::system_error with the path.
class FileSink : public Sink {
 public:
  explicit FileSink(const std::string& path);
  ~FileSink() override;
  void Write(const uint8_t* data, size_t size) override;
  void Close() override;

 private:
  std::string path_;
  int fd_ = -1;
};

struct WriterOptions {
  Compression compression = Compression::kZstd;
  size_t chunk_size = 1u << 20;  // a chunk is closed once its records reach this many bytes
  std::string profile = "";      // the Header's profile ("" = none; limbic's flatbuffer profile has no name)
  std::string library = "limbic";
};

struct OutgoingMessage {
  uint16_t channel_id = 0;
  uint32_t sequence = 0;
  uint64_t log_time = 0;      // ns: when it was recorded
  uint64_t publish_time = 0;  // ns: when it was published (limbic: the header stamp)
  std::span<const uint8_t> data;
};

class Writer {
 public:
  // Creates (truncates) `path`; throws std::system_error if it cannot.
  explicit Writer(const std::string& path, WriterOptions options = {});
  Writer(std::unique_ptr<Sink> sink, WriterOptions options = {});
  // Closes if still open; errors are swallowed here (call Close() to see them).
  ~Writer();
  Writer(const Writer&) = delete;
  Writer& operator=(const Writer&) = delete;

  // Returns the new schema's id (1, 2, ...).
  uint16_t AddSchema(std::string_view name, std::string_view encoding, std::span<const uint8_t> data);
  // Returns the new channel's id (0, 1, ...). `schema_id` must come from AddSchema (or be 0: no schema).
  uint16_t AddChannel(uint16_t schema_id, std::string_view topic, std::string_view message_encoding,
                      const std::map<std::string, std::string>& metadata = {});
  // Appends a message to the open chunk; writes the chunk when it is full. Throws std::system_error
  // from the sink (then the writer is failed: every later call throws, Close() writes nothing more).
  void Write(const OutgoingMessage& message);
  // Writes the open chunk now (if it holds anything).
  void Flush();
  // Writes the last chunk, DataEnd, the summary, summary offsets, footer and magic. Idempotent.
  void Close();

  // Bytes handed to the sink so far (complete records only) plus the open chunk's uncompressed size.
  uint64_t size_estimate() const { return offset_ + chunk_.size(); }
  uint64_t bytes_written() const { return offset_; }
  const Statistics& statistics() const { return stats_; }
  bool failed() const { return failed_; }

 private:
  // To the sink, counting the offset and the data CRC (`known_crc`: the CRC of these bytes, if known).
  void Emit(const uint8_t* data, size_t size, const uint32_t* known_crc = nullptr);
  void Emit(const std::vector<uint8_t>& bytes) { Emit(bytes.data(), bytes.size()); }
  void CheckUsable() const;

  std::unique_ptr<Sink> sink_;
  WriterOptions options_;
  Compressor compressor_;
  uint64_t offset_ = 0;
  uint32_t data_crc_ = 0;
  bool closed_ = false;
  bool failed_ = false;
  std::vector<Schema> schemas_;
  std::vector<Channel> channels_;
  Statistics stats_;
  std::vector<ChunkIndex> chunk_indexes_;
  // The open chunk: its records, time range and per-channel (log time, offset in chunk) index.
  std::vector<uint8_t> chunk_;
  uint64_t chunk_start_time_ = 0, chunk_end_time_ = 0;
  bool chunk_has_messages_ = false;
  std::map<uint16_t, std::vector<std::pair<uint64_t, uint64_t>>> chunk_index_;
  std::vector<uint8_t> compressed_;
  std::vector<uint8_t> scratch_;
};

}  // namespace limbic::mcap
