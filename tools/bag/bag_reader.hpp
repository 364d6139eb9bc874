// Reading limbic recordings: the files of a recording (one, or a split series), a summary for
// `limbic bag info`, messages in order with topic and time filters for `play` and `echo`, and the
// timing of a playback.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <vector>

#include "common/mcap/reader.hpp"
#include "tools/bag/bag_writer.hpp"

namespace limbic::bag {

// FILE.mcap if it exists, else its split parts FILE_000.mcap, FILE_001.mcap, ... in order. Throws
// std::runtime_error "no recording at FILE (nor FILE_000.mcap)" if there is neither.
std::vector<std::string> ResolveBagFiles(const std::string& path);

struct TopicSummary {
  std::string type;  // schema name, e.g. "limbic.msg.RangeScan"
  uint64_t messages = 0;
  uint64_t bytes = 0;
  uint64_t first_ns = 0, last_ns = 0;  // log times
  double RateHz() const;               // (messages - 1) / (last - first); 0 with fewer than 2
};

struct BagSummary {
  std::vector<std::string> files;
  uint64_t size_bytes = 0;
  uint64_t messages = 0;
  uint64_t chunks = 0;
  uint64_t start_ns = 0, end_ns = 0;  // log times of the first and last message
  std::map<std::string, TopicSummary> topics;
  std::set<std::string> compressions;
  // One line per damaged file: "FILE: at byte N: what" — what follows the damage is not counted.
  std::vector<std::string> problems;
  double DurationS() const { return messages ? (end_ns - start_ns) * 1e-9 : 0.0; }
};

// Reads every file through (checking CRCs) and counts what it can read.
BagSummary Summarize(const std::vector<std::string>& files);

struct BagMessage {
  const std::string& topic;
  const std::string& type;      // schema name
  const std::string& encoding;  // the channel's message encoding: "flatbuffer" for bus messages
  uint32_t sequence;
  uint64_t log_time;
  uint64_t publish_time;
  std::span<const uint8_t> data;
  // Keeps `data` alive and unchanged past the call while a copy is held (mcap::MessageView::owner);
  // null where it was copied to align it, or over bytes the reader cannot keep.
  const std::shared_ptr<const void>& owner;
};

struct ReadOptions {
  TopicFilter topics;
  // Seconds after the recording's first message (its log time); unset: from the start / to the end.
  std::optional<double> start_s, end_s;
  // A record's bytes sit at any offset of their chunk; FlatBuffers needs them aligned to be read
  // (messages::AlignedBytes). Only a caller that forwards them unread (the player) turns this off.
  bool aligned = true;
  // Asked once per channel (topic, message encoding) of each file, after `topics`: false leaves the
  // channel out (the player's plumbing topics), at no cost per message. Unset: every channel.
  std::function<bool(const std::string& topic, const std::string& encoding)> channels;
  // kThread: decompress and check the next chunks on a second thread (mcap::ReadAhead).
  mcap::ReadAhead read_ahead = mcap::ReadAhead::kNone;
};

// Calls `fn` for each selected message of `files` in order; `fn` returning false stops. Returns the
// damage found ("FILE: at byte N: what"), empty for clean files. Throws std::invalid_argument for
// a start after the end.
std::vector<std::string> ForEachMessage(const std::vector<std::string>& files, const ReadOptions& options,
                                        const std::function<bool(const BagMessage&)>& fn);

// When a played message is due: recorded gaps divided by the rate (rate 0: as fast as possible).
class PlaybackTimer {
 public:
  // Throws std::invalid_argument for a negative or non-finite rate.
  explicit PlaybackTimer(double rate);
  // Nanoseconds after the start of the playback at which a message recorded at `log_time` is due;
  // the first message seen is due at 0. Each loop starts a new pass (Restart).
  int64_t DueNs(uint64_t log_time);
  void Restart() { first_.reset(); }
  double rate() const { return rate_; }

 private:
  double rate_;
  std::optional<uint64_t> first_;
};

}  // namespace limbic::bag
