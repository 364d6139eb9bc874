#include "common/mcap/writer.hpp"

#include <fcntl.h>
#include <unistd.h>
#include <zlib.h>

#include <cerrno>
#include <cstring>
#include <system_error>

namespace limbic::mcap {
namespace {

// Little-endian appenders for record contents (spec "Serialization").
void PutU8(std::vector<uint8_t>& b, uint8_t v) { b.push_back(v); }
template <typename T>
void PutLE(std::vector<uint8_t>& b, T v) {
  for (size_t i = 0; i < sizeof(T); ++i) b.push_back(static_cast<uint8_t>(static_cast<uint64_t>(v) >> (8 * i)));
}
void PutBytes(std::vector<uint8_t>& b, const void* data, size_t size) {
  const auto* p = static_cast<const uint8_t*>(data);
  b.insert(b.end(), p, p + size);
}
void PutString(std::vector<uint8_t>& b, std::string_view s) {
  PutLE<uint32_t>(b, static_cast<uint32_t>(s.size()));
  PutBytes(b, s.data(), s.size());
}
// Starts a record: opcode and a length placeholder; EndRecord fills the length in.
size_t BeginRecord(std::vector<uint8_t>& b, Opcode op) {
  PutU8(b, static_cast<uint8_t>(op));
  const size_t at = b.size();
  PutLE<uint64_t>(b, 0);
  return at;
}
void EndRecord(std::vector<uint8_t>& b, size_t at) {
  const uint64_t length = b.size() - at - 8;
  for (size_t i = 0; i < 8; ++i) b[at + i] = static_cast<uint8_t>(length >> (8 * i));
}
// A Map or Array: u32 byte length, then the entries.
size_t BeginArray(std::vector<uint8_t>& b) {
  const size_t at = b.size();
  PutLE<uint32_t>(b, 0);
  return at;
}
void EndArray(std::vector<uint8_t>& b, size_t at) {
  const uint32_t length = static_cast<uint32_t>(b.size() - at - 4);
  for (size_t i = 0; i < 4; ++i) b[at + i] = static_cast<uint8_t>(length >> (8 * i));
}

void PutSchema(std::vector<uint8_t>& b, const Schema& s) {
  const size_t r = BeginRecord(b, Opcode::kSchema);
  PutLE<uint16_t>(b, s.id);
  PutString(b, s.name);
  PutString(b, s.encoding);
  PutLE<uint32_t>(b, static_cast<uint32_t>(s.data.size()));
  PutBytes(b, s.data.data(), s.data.size());
  EndRecord(b, r);
}

void PutChannel(std::vector<uint8_t>& b, const Channel& c) {
  const size_t r = BeginRecord(b, Opcode::kChannel);
  PutLE<uint16_t>(b, c.id);
  PutLE<uint16_t>(b, c.schema_id);
  PutString(b, c.topic);
  PutString(b, c.message_encoding);
  const size_t m = BeginArray(b);
  for (const auto& [k, v] : c.metadata) {
    PutString(b, k);
    PutString(b, v);
  }
  EndArray(b, m);
  EndRecord(b, r);
}

}  // namespace

FileSink::FileSink(const std::string& path) : path_(path) {
  fd_ = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd_ < 0) throw std::system_error(errno, std::generic_category(), "cannot create " + path);
}

FileSink::~FileSink() {
  if (fd_ >= 0) ::close(fd_);
}

void FileSink::Write(const uint8_t* data, size_t size) {
  while (size > 0) {
    const ssize_t n = ::write(fd_, data, size);
    if (n < 0) {
      if (errno == EINTR) continue;
      throw std::system_error(errno, std::generic_category(), "writing " + path_);
    }
    data += n;
    size -= static_cast<size_t>(n);
  }
}

void FileSink::Close() {
  if (fd_ >= 0 && ::close(fd_) != 0) {
    fd_ = -1;
    throw std::system_error(errno, std::generic_category(), "closing " + path_);
  }
  fd_ = -1;
}

Writer::Writer(const std::string& path, WriterOptions options)
    : Writer(std::make_unique<FileSink>(path), std::move(options)) {}

Writer::Writer(std::unique_ptr<Sink> sink, WriterOptions options)
    : sink_(std::move(sink)), options_(std::move(options)), compressor_(options_.compression) {
  std::vector<uint8_t> b;
  PutBytes(b, kMagic, sizeof(kMagic));
  const size_t r = BeginRecord(b, Opcode::kHeader);
  PutString(b, options_.profile);
  PutString(b, options_.library);
  EndRecord(b, r);
  Emit(b);
  chunk_.reserve(options_.chunk_size + 4096);
}

Writer::~Writer() {
  try {
    Close();
  } catch (...) {
  }
}

void Writer::CheckUsable() const {
  if (failed_) throw std::runtime_error("mcap writer: an earlier write failed");
  if (closed_) throw std::logic_error("mcap writer: already closed");
}

void Writer::Emit(const uint8_t* data, size_t size, const uint32_t* known_crc) {
  try {
    sink_->Write(data, size);
  } catch (...) {
    failed_ = true;
    throw;
  }
  // The data section CRC runs over every byte; a block whose CRC is already known (an uncompressed
  // chunk's records) is folded in with crc32_combine instead of a second pass over it.
  data_crc_ = known_crc ? static_cast<uint32_t>(crc32_combine(data_crc_, *known_crc, static_cast<z_off_t>(size)))
                        : Crc32(data_crc_, data, size);
  offset_ += size;
}

uint16_t Writer::AddSchema(std::string_view name, std::string_view encoding, std::span<const uint8_t> data) {
  CheckUsable();
  if (schemas_.size() >= 0xFFFE) throw std::length_error("mcap writer: too many schemas");
  Schema s{static_cast<uint16_t>(schemas_.size() + 1), std::string(name), std::string(encoding),
           std::vector<uint8_t>(data.begin(), data.end())};
  PutSchema(chunk_, s);
  schemas_.push_back(std::move(s));
  return schemas_.back().id;
}

uint16_t Writer::AddChannel(uint16_t schema_id, std::string_view topic, std::string_view message_encoding,
                            const std::map<std::string, std::string>& metadata) {
  CheckUsable();
  if (schema_id > schemas_.size())
    throw std::invalid_argument("mcap writer: unknown schema id " + std::to_string(schema_id));
  if (channels_.size() >= 0xFFFF) throw std::length_error("mcap writer: too many channels");
  Channel c{static_cast<uint16_t>(channels_.size()), schema_id, std::string(topic), std::string(message_encoding),
            metadata};
  PutChannel(chunk_, c);
  channels_.push_back(std::move(c));
  return channels_.back().id;
}

void Writer::Write(const OutgoingMessage& m) {
  CheckUsable();
  if (m.channel_id >= channels_.size()) {
    throw std::invalid_argument("mcap writer: unknown channel id " + std::to_string(m.channel_id));
  }
  const uint64_t offset_in_chunk = chunk_.size();
  PutU8(chunk_, static_cast<uint8_t>(Opcode::kMessage));
  PutLE<uint64_t>(chunk_, 2 + 4 + 8 + 8 + m.data.size());
  PutLE<uint16_t>(chunk_, m.channel_id);
  PutLE<uint32_t>(chunk_, m.sequence);
  PutLE<uint64_t>(chunk_, m.log_time);
  PutLE<uint64_t>(chunk_, m.publish_time);
  PutBytes(chunk_, m.data.data(), m.data.size());
  chunk_index_[m.channel_id].emplace_back(m.log_time, offset_in_chunk);
  if (!chunk_has_messages_ || m.log_time < chunk_start_time_) chunk_start_time_ = m.log_time;
  if (!chunk_has_messages_ || m.log_time > chunk_end_time_) chunk_end_time_ = m.log_time;
  chunk_has_messages_ = true;
  if (stats_.message_count == 0 || m.log_time < stats_.message_start_time) stats_.message_start_time = m.log_time;
  if (stats_.message_count == 0 || m.log_time > stats_.message_end_time) stats_.message_end_time = m.log_time;
  ++stats_.message_count;
  ++stats_.channel_message_counts[m.channel_id];
  if (chunk_.size() >= options_.chunk_size) Flush();
}

void Writer::Flush() {
  CheckUsable();
  if (chunk_.empty()) return;
  // Chunk record (spec "Chunk"): start/end time, uncompressed size and CRC, compression, records.
  const uint32_t uncompressed_crc = Crc32(0, chunk_.data(), chunk_.size());
  const bool stored = options_.compression == Compression::kNone;  // the records go out as they are
  if (!stored) compressor_.Compress(chunk_, &compressed_);
  const std::vector<uint8_t>& records = stored ? chunk_ : compressed_;
  const std::string compression = CompressionName(options_.compression);
  ChunkIndex index;
  index.message_start_time = chunk_has_messages_ ? chunk_start_time_ : 0;
  index.message_end_time = chunk_has_messages_ ? chunk_end_time_ : 0;
  index.chunk_start_offset = offset_;
  index.compression = compression;
  index.compressed_size = records.size();
  index.uncompressed_size = chunk_.size();
  scratch_.clear();
  const size_t r = BeginRecord(scratch_, Opcode::kChunk);
  PutLE<uint64_t>(scratch_, index.message_start_time);
  PutLE<uint64_t>(scratch_, index.message_end_time);
  PutLE<uint64_t>(scratch_, chunk_.size());
  PutLE<uint32_t>(scratch_, uncompressed_crc);
  PutString(scratch_, compression);
  PutLE<uint64_t>(scratch_, records.size());
  // The length covers the records that follow; they are handed to the sink separately so a large
  // chunk is not copied once more.
  const uint64_t length = scratch_.size() - r - 8 + records.size();
  for (size_t i = 0; i < 8; ++i) scratch_[r + i] = static_cast<uint8_t>(length >> (8 * i));
  Emit(scratch_);
  Emit(records.data(), records.size(), stored ? &uncompressed_crc : nullptr);
  index.chunk_length = offset_ - index.chunk_start_offset;
  // One MessageIndex per channel in the chunk (spec "Message Index"): (log time, offset in chunk).
  scratch_.clear();
  for (const auto& [channel, entries] : chunk_index_) {
    index.message_index_offsets[channel] = offset_ + scratch_.size();
    const size_t mr = BeginRecord(scratch_, Opcode::kMessageIndex);
    PutLE<uint16_t>(scratch_, channel);
    const size_t a = BeginArray(scratch_);
    for (const auto& [time, at] : entries) {
      PutLE<uint64_t>(scratch_, time);
      PutLE<uint64_t>(scratch_, at);
    }
    EndArray(scratch_, a);
    EndRecord(scratch_, mr);
  }
  index.message_index_length = scratch_.size();
  Emit(scratch_);
  chunk_indexes_.push_back(std::move(index));
  ++stats_.chunk_count;
  chunk_.clear();
  chunk_index_.clear();
  chunk_has_messages_ = false;
}

void Writer::Close() {
  if (closed_ || failed_) return;
  Flush();
  closed_ = true;
  std::vector<uint8_t> b;
  {
    const size_t r = BeginRecord(b, Opcode::kDataEnd);
    PutLE<uint32_t>(b, data_crc_);
    EndRecord(b, r);
  }
  Emit(b);
  // Summary section, one group per record type, each group's place noted for the summary offsets.
  const uint64_t summary_start = offset_;
  b.clear();
  struct Group {
    Opcode op;
    uint64_t start, length;
  };
  std::vector<Group> groups;
  auto group = [&](Opcode op, size_t begin) {
    if (b.size() > begin) groups.push_back({op, summary_start + begin, b.size() - begin});
  };
  size_t begin = b.size();
  for (const auto& s : schemas_) PutSchema(b, s);
  group(Opcode::kSchema, begin);
  begin = b.size();
  for (const auto& c : channels_) PutChannel(b, c);
  group(Opcode::kChannel, begin);
  begin = b.size();
  {
    stats_.schema_count = static_cast<uint16_t>(schemas_.size());
    stats_.channel_count = static_cast<uint32_t>(channels_.size());
    const size_t r = BeginRecord(b, Opcode::kStatistics);
    PutLE<uint64_t>(b, stats_.message_count);
    PutLE<uint16_t>(b, stats_.schema_count);
    PutLE<uint32_t>(b, stats_.channel_count);
    PutLE<uint32_t>(b, stats_.attachment_count);
    PutLE<uint32_t>(b, stats_.metadata_count);
    PutLE<uint32_t>(b, stats_.chunk_count);
    PutLE<uint64_t>(b, stats_.message_start_time);
    PutLE<uint64_t>(b, stats_.message_end_time);
    const size_t a = BeginArray(b);
    for (const auto& [channel, count] : stats_.channel_message_counts) {
      PutLE<uint16_t>(b, channel);
      PutLE<uint64_t>(b, count);
    }
    EndArray(b, a);
    EndRecord(b, r);
  }
  group(Opcode::kStatistics, begin);
  begin = b.size();
  for (const auto& ci : chunk_indexes_) {
    const size_t r = BeginRecord(b, Opcode::kChunkIndex);
    PutLE<uint64_t>(b, ci.message_start_time);
    PutLE<uint64_t>(b, ci.message_end_time);
    PutLE<uint64_t>(b, ci.chunk_start_offset);
    PutLE<uint64_t>(b, ci.chunk_length);
    const size_t a = BeginArray(b);
    for (const auto& [channel, at] : ci.message_index_offsets) {
      PutLE<uint16_t>(b, channel);
      PutLE<uint64_t>(b, at);
    }
    EndArray(b, a);
    PutLE<uint64_t>(b, ci.message_index_length);
    PutString(b, ci.compression);
    PutLE<uint64_t>(b, ci.compressed_size);
    PutLE<uint64_t>(b, ci.uncompressed_size);
    EndRecord(b, r);
  }
  group(Opcode::kChunkIndex, begin);
  const uint64_t summary_offset_start = summary_start + b.size();
  for (const auto& g : groups) {
    const size_t r = BeginRecord(b, Opcode::kSummaryOffset);
    PutU8(b, static_cast<uint8_t>(g.op));
    PutLE<uint64_t>(b, g.start);
    PutLE<uint64_t>(b, g.length);
    EndRecord(b, r);
  }
  // Footer: the summary CRC covers the summary, the summary offsets and the footer up to the CRC.
  PutU8(b, static_cast<uint8_t>(Opcode::kFooter));
  PutLE<uint64_t>(b, 8 + 8 + 4);
  PutLE<uint64_t>(b, summary_start);
  PutLE<uint64_t>(b, summary_offset_start);
  PutLE<uint32_t>(b, Crc32(0, b.data(), b.size()));
  PutBytes(b, kMagic, sizeof(kMagic));
  Emit(b);
  try {
    sink_->Close();
  } catch (...) {
    failed_ = true;
    throw;
  }
}

}  // namespace limbic::mcap
