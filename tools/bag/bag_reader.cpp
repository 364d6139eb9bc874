#include "tools/bag/bag_reader.hpp"

#include <cmath>
#include <filesystem>
#include <stdexcept>

#include "common/mcap/reader.hpp"
#include "messages/messages.hpp"

namespace limbic::bag {

std::vector<std::string> ResolveBagFiles(const std::string& path) {
  if (std::filesystem::is_regular_file(path)) return {path};
  std::vector<std::string> files;
  for (int i = 0;; ++i) {
    const std::string part = SplitPath(path, i);
    if (!std::filesystem::is_regular_file(part)) break;
    files.push_back(part);
  }
  if (files.empty()) throw std::runtime_error("no recording at " + path + " (nor " + SplitPath(path, 0) + ")");
  return files;
}

double TopicSummary::RateHz() const {
  if (messages < 2 || last_ns <= first_ns) return 0.0;
  return static_cast<double>(messages - 1) / ((last_ns - first_ns) * 1e-9);
}

BagSummary Summarize(const std::vector<std::string>& files) {
  BagSummary s;
  s.files = files;
  for (const auto& file : files) {
    mcap::Reader reader(file);
    s.size_bytes += reader.file_size();
    if (reader.summary()) {
      for (const auto& ci : reader.summary()->chunk_indexes)
        s.compressions.insert(ci.compression.empty() ? "none" : ci.compression);
    }
    const mcap::ScanResult result = reader.ReadMessages([&](const mcap::MessageView& m) {
      auto& t = s.topics[m.channel.topic];
      if (t.type.empty()) {
        const auto schema = reader.schemas().find(m.channel.schema_id);
        t.type = schema == reader.schemas().end() ? "?" : schema->second.name;
      }
      if (t.messages == 0 || m.log_time < t.first_ns) t.first_ns = m.log_time;
      if (m.log_time > t.last_ns) t.last_ns = m.log_time;
      ++t.messages;
      t.bytes += m.data.size();
      if (s.messages == 0 || m.log_time < s.start_ns) s.start_ns = m.log_time;
      if (m.log_time > s.end_ns) s.end_ns = m.log_time;
      ++s.messages;
      return true;
    });
    s.chunks += result.chunks;
    if (result.error) s.problems.push_back(file + ": " + result.error->what());
  }
  return s;
}

std::vector<std::string> ForEachMessage(const std::vector<std::string>& files, const ReadOptions& options,
                                        const std::function<bool(const BagMessage&)>& fn) {
  if (options.start_s && options.end_s && *options.start_s > *options.end_s) {
    throw std::invalid_argument("--start is after --end");
  }
  static const std::string kUnknown = "?";
  static const std::shared_ptr<const void> kNoOwner;
  std::vector<std::string> problems;
  std::optional<uint64_t> first;
  const bool timed = options.start_s || options.end_s;
  bool go_on = true;
  messages::AlignedBytes aligned;
  for (const auto& file : files) {
    if (!go_on) break;
    mcap::Reader reader(file);
    // Per channel id of this file, decided at its first message: selected or not, and its type
    // (looked up in the schema map once rather than per message).
    struct ChannelState {
      enum : uint8_t { kUnseen, kSelected, kLeftOut } state = kUnseen;
      const std::string* type = nullptr;
    };
    std::vector<ChannelState> channels;
    const mcap::ScanResult result = reader.ReadMessages(
        [&](const mcap::MessageView& m) {
          if (!first) first = m.log_time;
          if (timed) {
            const double t = (static_cast<double>(m.log_time) - static_cast<double>(*first)) * 1e-9;
            if (options.start_s && t < *options.start_s) return true;
            if (options.end_s && t > *options.end_s) return go_on = false;
          }
          if (m.channel.id >= channels.size()) channels.resize(size_t{m.channel.id} + 1);
          ChannelState& c = channels[m.channel.id];
          if (c.state == ChannelState::kUnseen) {
            const bool selected = options.topics.Matches(m.channel.topic) &&
                                  (!options.channels || options.channels(m.channel.topic, m.channel.message_encoding));
            c.state = selected ? ChannelState::kSelected : ChannelState::kLeftOut;
            const auto schema = reader.schemas().find(m.channel.schema_id);
            if (schema != reader.schemas().end()) c.type = &schema->second.name;
          }
          if (c.state == ChannelState::kLeftOut) return true;
          std::span<const uint8_t> data = m.data;
          if (options.aligned) data = {aligned.Align(m.data.data(), m.data.size()), m.data.size()};
          // A copy made to align it lives only until the next message: no owner to keep.
          const auto& owner = data.data() == m.data.data() ? m.owner : kNoOwner;
          go_on = fn(BagMessage{m.channel.topic, c.type ? *c.type : kUnknown, m.channel.message_encoding, m.sequence,
                                m.log_time, m.publish_time, data, owner});
          return go_on;
        },
        options.read_ahead);
    if (result.error) problems.push_back(file + ": " + result.error->what());
  }
  return problems;
}

PlaybackTimer::PlaybackTimer(double rate) : rate_(rate) {
  if (!std::isfinite(rate) || rate < 0)
    throw std::invalid_argument("--rate must be a number >= 0 (0: as fast as possible)");
}

int64_t PlaybackTimer::DueNs(uint64_t log_time) {
  if (!first_) first_ = log_time;
  if (rate_ == 0 || log_time <= *first_) return 0;
  return static_cast<int64_t>(std::llround(static_cast<double>(log_time - *first_) / rate_));
}

}  // namespace limbic::bag
