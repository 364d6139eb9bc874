#include "tools/bag/bag_writer.hpp"

#include <fnmatch.h>

#include <algorithm>
#include <cstdio>
#include <stdexcept>

#include "messages/messages.hpp"

namespace limbic::bag {

TopicFilter::TopicFilter(std::vector<std::string> patterns) : patterns_(std::move(patterns)) {
  for (const auto& p : patterns_) {
    if (p.empty()) throw std::invalid_argument("empty topic pattern");
  }
}

bool TopicFilter::Matches(const std::string& topic) const {
  if (patterns_.empty()) return true;
  return std::any_of(patterns_.begin(), patterns_.end(),
                     [&](const std::string& p) { return fnmatch(p.c_str(), topic.c_str(), 0) == 0; });
}

std::vector<std::string> TopicFilter::SubscriptionPrefixes() const {
  if (patterns_.empty()) return {""};
  std::vector<std::string> prefixes;
  for (const auto& p : patterns_) {
    const std::string prefix = p.substr(0, p.find_first_of("*?[\\"));
    if (std::find(prefixes.begin(), prefixes.end(), prefix) == prefixes.end()) prefixes.push_back(prefix);
  }
  return prefixes;
}

std::string SplitPath(const std::string& path, int index) {
  char suffix[16];
  std::snprintf(suffix, sizeof(suffix), "_%03d", index);
  const auto slash = path.find_last_of('/');
  const auto dot = path.find_last_of('.');
  if (dot == std::string::npos || (slash != std::string::npos && dot < slash)) return path + suffix;
  return path.substr(0, dot) + suffix + path.substr(dot);
}

BagWriter::BagWriter(BagOptions options) : options_(std::move(options)) {
  if (options_.path.empty()) throw std::invalid_argument("no output file");
  OpenNext();
}

BagWriter::~BagWriter() {
  try {
    Close();
  } catch (...) {
  }
}

void BagWriter::OpenNext() {
  const std::string path =
      options_.split_bytes > 0 ? SplitPath(options_.path, static_cast<int>(files_.size())) : options_.path;
  writer_ = std::make_unique<mcap::Writer>(
      path, mcap::WriterOptions{.compression = options_.compression, .chunk_size = options_.chunk_size});
  files_.push_back(path);
  schema_ids_.clear();
  channel_ids_.clear();
}

void BagWriter::Write(const std::string& topic, const uint8_t* data, size_t size, uint64_t log_time_ns) {
  if (!writer_) throw std::logic_error("bag writer closed");
  const messages::MessageType* type = messages::FindByIdentifier(messages::IdentifierOf(data, size));
  if (type == nullptr) throw std::invalid_argument("message on '" + topic + "' has no registered type");
  SplitIfFull(size);
  auto channel = channel_ids_.find(topic);
  if (channel == channel_ids_.end()) {
    auto schema = schema_ids_.find(type->name);
    if (schema == schema_ids_.end()) {
      schema =
          schema_ids_.emplace(type->name, writer_->AddSchema(type->name, "flatbuffer", messages::BinarySchema())).first;
    }
    channel = channel_ids_.emplace(topic, writer_->AddChannel(schema->second, topic, "flatbuffer")).first;
  }
  // The header gives the publish time (stamp) and sequence; a stamp of 0 (before any clock) or
  // below zero falls back to the log time.
  const msg::Header* header = messages::HeaderOf(data);
  const int64_t stamp = header ? header->stamp_ns() : 0;
  writer_->Write({.channel_id = channel->second,
                  .sequence = header ? static_cast<uint32_t>(header->seq()) : 0u,
                  .log_time = log_time_ns,
                  .publish_time = stamp > 0 ? static_cast<uint64_t>(stamp) : log_time_ns,
                  .data = std::span<const uint8_t>(data, size)});
  ++messages_;
}

void BagWriter::SplitIfFull(size_t next_size) {
  if (options_.split_bytes > 0 && messages_ > 0 && writer_->size_estimate() + next_size > options_.split_bytes) {
    writer_->Close();
    bytes_done_ += writer_->bytes_written();
    OpenNext();
  }
}

void BagWriter::WriteOther(const std::string& topic, const OtherSchema& schema, const std::string& message_encoding,
                           std::span<const uint8_t> data, uint64_t log_time_ns, uint64_t publish_time_ns) {
  if (!writer_) throw std::logic_error("bag writer closed");
  SplitIfFull(data.size());
  auto channel = channel_ids_.find(topic);
  if (channel == channel_ids_.end()) {
    const std::string key = schema.encoding + ":" + schema.name;  // never collides with a limbic type name
    auto id = schema_ids_.find(key);
    if (id == schema_ids_.end()) {
      id = schema_ids_.emplace(key, writer_->AddSchema(schema.name, schema.encoding, schema.data)).first;
    }
    channel = channel_ids_.emplace(topic, writer_->AddChannel(id->second, topic, message_encoding)).first;
  }
  writer_->Write({.channel_id = channel->second,
                  .sequence = 0,
                  .log_time = log_time_ns,
                  .publish_time = publish_time_ns,
                  .data = data});
  ++messages_;
}

void BagWriter::Close() {
  if (!writer_) return;
  auto writer = std::move(writer_);
  writer->Close();
  bytes_done_ += writer->bytes_written();
}

AsyncRecorder::AsyncRecorder(WriteFn write, size_t max_queue_bytes)
    : write_(std::move(write)), max_queue_bytes_(max_queue_bytes), thread_([this] { Run(); }) {}

AsyncRecorder::~AsyncRecorder() { Finish(); }

bool AsyncRecorder::Push(const std::string& topic, const uint8_t* data, size_t size, uint64_t log_time_ns) {
  ++pushed_;
  {
    std::lock_guard lock(mutex_);
    if (failed_.load() || finishing_ || queued_bytes_ + size > max_queue_bytes_) {
      ++dropped_;
      return false;
    }
    queue_.push_back(Item{topic, std::vector<uint8_t>(data, data + size), log_time_ns});
    queued_bytes_ += size;
  }
  wake_.notify_one();
  return true;
}

void AsyncRecorder::Run() {
  std::unique_lock lock(mutex_);
  while (true) {
    wake_.wait(lock, [&] { return finishing_ || !queue_.empty(); });
    if (queue_.empty()) return;  // finishing and drained
    Item item = std::move(queue_.front());
    queue_.pop_front();
    queued_bytes_ -= item.payload.size();
    lock.unlock();
    try {
      if (!failed_.load()) {
        write_(item);
        ++written_;
      } else {
        ++dropped_;
      }
    } catch (const std::exception& e) {
      std::lock_guard error_lock(mutex_);
      if (!error_) error_ = e.what();
      failed_ = true;
      ++dropped_;
    }
    lock.lock();
  }
}

void AsyncRecorder::Finish() {
  {
    std::lock_guard lock(mutex_);
    finishing_ = true;
  }
  wake_.notify_one();
  if (thread_.joinable()) thread_.join();
}

std::optional<std::string> AsyncRecorder::error() const {
  std::lock_guard lock(mutex_);
  return error_;
}

}  // namespace limbic::bag
