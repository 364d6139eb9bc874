// limbic recordings ("bags"): bus traffic written as MCAP through common/mcap. One schema per message
// type (name "limbic.msg.RangeScan", encoding "flatbuffer", data = the binary schema limbic.bfbs that
// defines it, so a recording reads back on its own), one channel per topic (message encoding
// "flatbuffer"); a message's publish time is its header stamp, its log time when it was recorded.
// No transport here: `limbic record` feeds it from a bus node, an in-process run from its LocalBus.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "common/mcap/writer.hpp"

namespace limbic::bag {

// Topic patterns as `limbic record` takes them: shell globs (`r1/*`, `*/scan`, `clock`). No pattern
// means every topic.
class TopicFilter {
 public:
  TopicFilter() = default;
  explicit TopicFilter(std::vector<std::string> patterns);
  bool Matches(const std::string& topic) const;
  bool all() const { return patterns_.empty(); }
  // The literal prefixes a bus subscription needs to receive every matching topic ("" for all).
  std::vector<std::string> SubscriptionPrefixes() const;

 private:
  std::vector<std::string> patterns_;
};

struct BagOptions {
  std::string path;  // FILE.mcap
  mcap::Compression compression = mcap::Compression::kZstd;
  size_t chunk_size = 1u << 20;
  // Start a new file once one reaches this many bytes (0: never). Split files are FILE_000.mcap,
  // FILE_001.mcap, ... beside FILE.mcap; each is a complete recording with its own schemas.
  uint64_t split_bytes = 0;
};

// The file name of split part `index` of `path` ("run.mcap", 2 -> "run_002.mcap").
std::string SplitPath(const std::string& path, int index);

// Writes limbic messages into one MCAP file or a series of split files. Not thread-safe.
class BagWriter {
 public:
  // Creates the (first) file; throws std::system_error if it cannot.
  explicit BagWriter(BagOptions options);
  ~BagWriter();
  // `data` must be a verified limbic message (its identifier names its type). A payload whose
  // identifier is no registered type is refused with std::invalid_argument. Disk errors throw
  // std::system_error (then the writer is failed).
  void Write(const std::string& topic, const uint8_t* data, size_t size, uint64_t log_time_ns);
  // A message of a type limbic does not define (e.g. a channel the Foxglove bridge derives, in a
  // Foxglove schema): its schema is given with it. A topic keeps the schema of its first message.
  struct OtherSchema {
    std::string name;      // e.g. "foxglove.Grid"
    std::string encoding;  // e.g. "flatbuffer", "jsonschema", "protobuf"
    std::vector<uint8_t> data;
  };
  void WriteOther(const std::string& topic, const OtherSchema& schema, const std::string& message_encoding,
                  std::span<const uint8_t> data, uint64_t log_time_ns, uint64_t publish_time_ns);
  // Finishes the current file (summary, footer). Idempotent.
  void Close();

  const std::vector<std::string>& files() const { return files_; }
  uint64_t messages() const { return messages_; }
  uint64_t bytes() const { return bytes_done_ + (writer_ ? writer_->size_estimate() : 0); }

 private:
  void OpenNext();
  void SplitIfFull(size_t next_size);

  BagOptions options_;
  std::unique_ptr<mcap::Writer> writer_;
  std::map<std::string, uint16_t> schema_ids_;   // type name -> schema id in the current file
  std::map<std::string, uint16_t> channel_ids_;  // topic -> channel id in the current file
  std::vector<std::string> files_;
  uint64_t messages_ = 0;
  uint64_t bytes_done_ = 0;  // bytes of the files already finished
};

// A recorder that never slows the bus: Push copies the message into a bounded queue and returns at
// once; a writer thread drains it into `write`. When the queue is full (the disk is slower than the
// traffic) the message is dropped and counted. When `write` throws (disk full), the recorder stops
// taking messages and error() says why.
class AsyncRecorder {
 public:
  struct Item {
    std::string topic;
    std::vector<uint8_t> payload;
    uint64_t log_time_ns = 0;
  };
  using WriteFn = std::function<void(const Item&)>;

  AsyncRecorder(WriteFn write, size_t max_queue_bytes = 64u << 20);
  ~AsyncRecorder();  // drains what is queued, then joins
  AsyncRecorder(const AsyncRecorder&) = delete;
  AsyncRecorder& operator=(const AsyncRecorder&) = delete;

  // False (and counted in dropped()) if the queue is full or the writer has failed.
  bool Push(const std::string& topic, const uint8_t* data, size_t size, uint64_t log_time_ns);
  // Writes everything queued, then stops the thread. Idempotent.
  void Finish();

  uint64_t pushed() const { return pushed_.load(); }
  uint64_t written() const { return written_.load(); }
  uint64_t dropped() const { return dropped_.load(); }
  size_t max_queue_bytes() const { return max_queue_bytes_; }
  // The write error that stopped the recorder, if any.
  std::optional<std::string> error() const;

 private:
  void Run();

  WriteFn write_;
  size_t max_queue_bytes_;
  mutable std::mutex mutex_;
  std::condition_variable wake_;
  std::deque<Item> queue_;
  size_t queued_bytes_ = 0;
  bool finishing_ = false;
  std::optional<std::string> error_;
  std::atomic<bool> failed_{false};
  std::atomic<uint64_t> pushed_{0}, written_{0}, dropped_{0};
  std::thread thread_;
};

}  // namespace limbic::bag
