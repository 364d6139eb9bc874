#include "common/mcap/reader.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <exception>
#include <memory>
#include <mutex>
#include <system_error>
#include <thread>

#include "common/mcap/compression.hpp"

namespace limbic::mcap {
namespace {

// Bounds-checked little-endian reads over one record's content; a read past the end throws a
// FormatError at the record's offset.
class Cursor {
 public:
  Cursor(const uint8_t* data, uint64_t size, uint64_t file_offset, const char* what)
      : data_(data), size_(size), base_(file_offset), what_(what) {}
  template <typename T>
  T LE() {
    Need(sizeof(T));
    uint64_t v = 0;
    for (size_t i = 0; i < sizeof(T); ++i) v |= static_cast<uint64_t>(data_[pos_ + i]) << (8 * i);
    pos_ += sizeof(T);
    return static_cast<T>(v);
  }
  std::string String() {
    const uint32_t n = LE<uint32_t>();
    Need(n);
    std::string s(reinterpret_cast<const char*>(data_ + pos_), n);
    pos_ += n;
    return s;
  }
  std::span<const uint8_t> Bytes(uint64_t n) {
    Need(n);
    std::span<const uint8_t> s(data_ + pos_, n);
    pos_ += n;
    return s;
  }
  std::span<const uint8_t> Rest() { return Bytes(size_ - pos_); }
  std::map<std::string, std::string> StringMap() {
    const uint32_t n = LE<uint32_t>();
    Need(n);
    Cursor inner(data_ + pos_, n, base_ + pos_, what_);
    pos_ += n;
    std::map<std::string, std::string> out;
    while (!inner.AtEnd()) {
      std::string k = inner.String();
      out[k] = inner.String();
    }
    return out;
  }
  template <typename K, typename V>
  std::map<K, V> Map() {
    const uint32_t n = LE<uint32_t>();
    Need(n);
    Cursor inner(data_ + pos_, n, base_ + pos_, what_);
    pos_ += n;
    std::map<K, V> out;
    while (!inner.AtEnd()) {
      const K k = inner.LE<K>();
      out[k] = inner.LE<V>();
    }
    return out;
  }
  bool AtEnd() const { return pos_ >= size_; }

 private:
  void Need(uint64_t n) const {
    if (n > size_ - pos_) {
      throw FormatError(base_ + pos_, std::string(what_) + " record is too short (needs " + std::to_string(n) +
                                          " more bytes, has " + std::to_string(size_ - pos_) + ")");
    }
  }
  const uint8_t* data_;
  uint64_t size_;
  uint64_t pos_ = 0;
  uint64_t base_;
  const char* what_;
};

uint64_t LoadU64(const uint8_t* p) {
  uint64_t v = 0;
  for (int i = 0; i < 8; ++i) v |= static_cast<uint64_t>(p[i]) << (8 * i);
  return v;
}

Schema ParseSchema(Cursor c) {
  Schema s;
  s.id = c.LE<uint16_t>();
  s.name = c.String();
  s.encoding = c.String();
  const uint32_t n = c.LE<uint32_t>();
  const auto bytes = c.Bytes(n);
  s.data.assign(bytes.begin(), bytes.end());
  return s;
}

Channel ParseChannel(Cursor c) {
  Channel ch;
  ch.id = c.LE<uint16_t>();
  ch.schema_id = c.LE<uint16_t>();
  ch.topic = c.String();
  ch.message_encoding = c.String();
  ch.metadata = c.StringMap();
  return ch;
}

std::string Hex(uint32_t v) {
  char buf[16];
  std::snprintf(buf, sizeof(buf), "%08x", v);
  return buf;
}

// One step of a pass over the data section, in file order: a run of top-level records, one chunk
// (decompressed and CRC-checked), the end, or the first damage.
struct Unit {
  enum class Kind { kRecords, kChunk, kEnd, kError };
  Kind kind = Kind::kRecords;
  uint64_t at = 0;                               // file offset of the first record, or of the Chunk record
  uint64_t end = 0;                              // kRecords: file offset just after the last record
  std::span<const uint8_t> records;              // kChunk: its records (in `buffer`, or in the file when uncompressed)
  std::shared_ptr<std::vector<uint8_t>> buffer;  // a decompressed chunk, from the BufferPool
  std::shared_ptr<const void> owner;             // what keeps the records alive: `buffer` or the mapping
  std::optional<FormatError> error;              // kError
};

// Decompressed chunk buffers, recycled. A buffer goes back to the pool when its last holder lets go
// (the unit that read it, or a frame a player handed to ZeroMQ straight from it, on ZeroMQ's I/O
// thread), so a pass allocates a few and then reuses their capacity. The mutex also orders the last
// holder's reads of a buffer before the next writer's decompression into it.
//
// At most kMaxOut buffers are out at once: a player at --rate 0 outruns its broker, and without a
// bound it would decompress the whole recording into ZeroMQ's queue (fresh memory, page faults and
// all, about as much work as the copies it saved). Past the bound Take waits for one to come back,
// which paces the reading to the broker, but never longer than kMaxWait at a time: a stalled
// consumer slows a pass down, it cannot hang it (a stop asked for is seen at the next message).
class BufferPool : public std::enable_shared_from_this<BufferPool> {
 public:
  std::shared_ptr<std::vector<uint8_t>> Take() {
    std::unique_ptr<std::vector<uint8_t>> buffer;
    {
      std::unique_lock lock(mutex_);
      if (out_ >= kMaxOut) returned_.wait_for(lock, kMaxWait, [&] { return out_ < kMaxOut; });
      ++out_;
      if (!free_.empty()) {
        buffer = std::move(free_.back());
        free_.pop_back();
      }
    }
    if (!buffer) buffer = std::make_unique<std::vector<uint8_t>>();
    return {buffer.release(), [pool = shared_from_this()](std::vector<uint8_t>* b) { pool->Give(b); }};
  }

 private:
  // Enough for the read-ahead's three units, the one a sending node holds on to and a dozen in
  // ZeroMQ's queue (16 MiB with limbic's 1 MiB chunks).
  static constexpr size_t kMaxOut = 16;
  static constexpr std::chrono::milliseconds kMaxWait{20};
  void Give(std::vector<uint8_t>* buffer) {
    std::unique_ptr<std::vector<uint8_t>> owned(buffer);
    {
      std::lock_guard lock(mutex_);
      --out_;
      if (free_.size() < kMaxOut) free_.push_back(std::move(owned));
    }
    returned_.notify_one();
  }
  std::mutex mutex_;
  std::condition_variable returned_;
  size_t out_ = 0;
  std::vector<std::unique_ptr<std::vector<uint8_t>>> free_;
};

// Walks the data section (record framing, chunk decompression, chunk and data-section CRCs): all
// the work of a pass that needs no schema, channel or callback, so it can run ahead on a thread of
// its own. Every bound is checked here; the units it yields can be walked without checks on length.
class DataWalker {
 public:
  // `mapping` keeps `data` alive (null: the caller's bytes).
  DataWalker(const uint8_t* data, uint64_t size, std::shared_ptr<const void> mapping)
      : data_(data), size_(size), mapping_(std::move(mapping)) {}

  // Fills `u` with the next unit. After kEnd or kError there is nothing more.
  void Next(Unit* u) {
    u->records = {};
    u->buffer.reset();  // back to the pool unless a player still sends from it
    u->owner = mapping_;
    u->error.reset();
    if (pending_error_) {
      u->kind = Unit::Kind::kError;
      u->error = std::move(pending_error_);
      return;
    }
    const uint64_t first = at_;
    try {
      while (true) {
        if (at_ == size_)
          throw FormatError(at_, "file ends inside the data section (no DataEnd: recording cut short?)");
        if (size_ - at_ < 9)
          throw FormatError(at_, "truncated record header (file ends " + std::to_string(size_ - at_) + " bytes later)");
        const uint8_t op = data_[at_];
        const uint64_t length = LoadU64(data_ + at_ + 1);
        if (length > size_ - at_ - 9) {
          throw FormatError(at_, "truncated record (opcode 0x" + Hex(op).substr(6) + ", " + std::to_string(length) +
                                     " bytes, file ends " + std::to_string(size_ - at_ - 9) + " bytes later)");
        }
        const bool end = op == static_cast<uint8_t>(Opcode::kDataEnd) || op == static_cast<uint8_t>(Opcode::kFooter);
        if ((end || op == static_cast<uint8_t>(Opcode::kChunk)) && at_ > first) {
          // The plain records before it go first.
          u->kind = Unit::Kind::kRecords;
          u->at = first;
          u->end = at_;
          return;
        }
        const uint8_t* content = data_ + at_ + 9;
        if (op == static_cast<uint8_t>(Opcode::kDataEnd)) {
          // The data section CRC covers the magic and every record before DataEnd.
          Cursor c(content, length, at_ + 9, "DataEnd");
          const uint32_t expected = c.LE<uint32_t>();
          const uint32_t data_crc = Crc32(0, data_, at_);
          if (expected != 0 && expected != data_crc) {
            throw FormatError(at_, "data section CRC mismatch (DataEnd says " + Hex(expected) + ", bytes give " +
                                       Hex(data_crc) + ")");
          }
          u->kind = Unit::Kind::kEnd;
          return;
        }
        if (op == static_cast<uint8_t>(Opcode::kFooter)) {
          // A file without DataEnd (allowed before the summary is optional).
          u->kind = Unit::Kind::kEnd;
          return;
        }
        if (op == static_cast<uint8_t>(Opcode::kChunk)) {
          ReadChunk(content, length, u);
          at_ += 9 + length;
          return;
        }
        at_ += 9 + length;
        if (at_ - first >= kMaxRecordsUnit) {
          u->kind = Unit::Kind::kRecords;
          u->at = first;
          u->end = at_;
          return;
        }
      }
    } catch (const FormatError& e) {
      if (at_ > first) {  // deliver what came before the damage, then the damage
        pending_error_ = e;
        u->kind = Unit::Kind::kRecords;
        u->at = first;
        u->end = at_;
        return;
      }
      u->kind = Unit::Kind::kError;
      u->error = e;
    }
  }

 private:
  // A run of unchunked records is handed over in pieces of about this many bytes.
  static constexpr uint64_t kMaxRecordsUnit = 1 << 20;

  void ReadChunk(const uint8_t* content, uint64_t length, Unit* u) {
    Cursor c(content, length, at_ + 9, "Chunk");
    c.LE<uint64_t>();  // start time
    c.LE<uint64_t>();  // end time
    const uint64_t uncompressed_size = c.LE<uint64_t>();
    const uint32_t uncompressed_crc = c.LE<uint32_t>();
    const std::string compression = c.String();
    const uint64_t records_size = c.LE<uint64_t>();
    const auto records = c.Bytes(records_size);
    if (compression.empty() && records.size() == uncompressed_size) {
      u->records = records;  // read in place: no copy
    } else {
      u->buffer = pool_->Take();
      try {
        decompressor_.Decompress(compression, records, uncompressed_size, u->buffer.get());
      } catch (const std::runtime_error& e) {
        throw FormatError(at_, std::string("chunk cannot be decompressed: ") + e.what());
      }
      u->records = *u->buffer;
      u->owner = u->buffer;
    }
    if (uncompressed_crc != 0) {
      const uint32_t crc = Crc32(0, u->records.data(), u->records.size());
      if (crc != uncompressed_crc) {
        throw FormatError(
            at_, "chunk CRC mismatch (record says " + Hex(uncompressed_crc) + ", contents give " + Hex(crc) + ")");
      }
    }
    // Every record inside must fit (a bound checked here, ahead of the reading thread). Inner
    // offsets are reported as the chunk's file offset: the records have no file position. A chunk
    // is a unit of integrity, as with a CRC mismatch: one whose framing is broken delivers nothing.
    const uint8_t* p = u->records.data();
    const uint64_t n = u->records.size();
    for (uint64_t inner = 0; inner < n;) {
      if (n - inner < 9) throw FormatError(at_, "chunk ends inside a record header");
      const uint64_t inner_length = LoadU64(p + inner + 1);
      if (inner_length > n - inner - 9) throw FormatError(at_, "record inside the chunk runs past its end");
      inner += 9 + inner_length;
    }
    u->kind = Unit::Kind::kChunk;
    u->at = at_;
  }

  const uint8_t* data_;
  uint64_t size_;
  uint64_t at_ = sizeof(kMagic);
  std::shared_ptr<const void> mapping_;
  std::shared_ptr<BufferPool> pool_ = std::make_shared<BufferPool>();
  Decompressor decompressor_;
  std::optional<FormatError> pending_error_;
};

// Units handed from the walking thread to the reading one: a fixed pool of three, so at most two
// chunks are decompressed ahead of the one being read and no buffer is allocated after the first few.
class UnitQueue {
 public:
  UnitQueue() {
    for (int i = 0; i < 3; ++i) free_.push_back(std::make_unique<Unit>());
  }
  // Walker side. nullptr once stopped.
  std::unique_ptr<Unit> TakeFree() {
    std::unique_lock lock(mutex_);
    free_cv_.wait(lock, [&] { return stop_ || !free_.empty(); });
    if (stop_) return nullptr;
    auto u = std::move(free_.back());
    free_.pop_back();
    return u;
  }
  void PushReady(std::unique_ptr<Unit> u) {
    {
      std::lock_guard lock(mutex_);
      ready_.push_back(std::move(u));
    }
    ready_cv_.notify_one();
  }
  // Reader side.
  std::unique_ptr<Unit> TakeReady() {
    std::unique_lock lock(mutex_);
    ready_cv_.wait(lock, [&] { return !ready_.empty(); });
    auto u = std::move(ready_.front());
    ready_.pop_front();
    return u;
  }
  void GiveBack(std::unique_ptr<Unit> u) {
    {
      std::lock_guard lock(mutex_);
      free_.push_back(std::move(u));
    }
    free_cv_.notify_one();
  }
  void Stop() {
    {
      std::lock_guard lock(mutex_);
      stop_ = true;
    }
    free_cv_.notify_all();
  }

 private:
  std::mutex mutex_;
  std::condition_variable free_cv_, ready_cv_;
  std::vector<std::unique_ptr<Unit>> free_;
  std::deque<std::unique_ptr<Unit>> ready_;
  bool stop_ = false;
};

}  // namespace

Reader::Reader(const std::string& path) : path_(path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw std::system_error(errno, std::generic_category(), "cannot open " + path);
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    const int e = errno;
    ::close(fd);
    throw std::system_error(e, std::generic_category(), "cannot stat " + path);
  }
  size_ = static_cast<uint64_t>(st.st_size);
  if (size_ > 0) {
    void* p = ::mmap(nullptr, size_, PROT_READ, MAP_PRIVATE, fd, 0);
    if (p == MAP_FAILED) {
      const int e = errno;
      ::close(fd);
      throw std::system_error(e, std::generic_category(), "cannot map " + path);
    }
    data_ = static_cast<const uint8_t*>(p);
    const uint64_t size = size_;
    mapping_ = std::shared_ptr<const void>(p, [size](const void* m) { ::munmap(const_cast<void*>(m), size); });
  }
  ::close(fd);
  Init();
}

Reader::Reader(std::span<const uint8_t> bytes, std::string name)
    : path_(std::move(name)), data_(bytes.data()), size_(bytes.size()) {
  Init();
}

void Reader::Init() {
  try {
    if (size_ < sizeof(kMagic) || std::memcmp(data_, kMagic, sizeof(kMagic)) != 0) {
      throw FormatError(0, path_ + " is not an MCAP file (no MCAP magic at its start)");
    }
    const uint64_t at = sizeof(kMagic);
    if (size_ < at + 9 || data_[at] != static_cast<uint8_t>(Opcode::kHeader) ||
        LoadU64(data_ + at + 1) > size_ - at - 9) {
      throw FormatError(at, path_ + ": no complete Header record after the magic");
    }
    Cursor header(data_ + at + 9, LoadU64(data_ + at + 1), at + 9, "Header");
    profile_ = header.String();
    library_ = header.String();
  } catch (...) {
    mapping_.reset();
    throw;
  }
  ReadSummary();
}

Reader::~Reader() = default;  // the mapping goes with its last holder

void Reader::ReadSummary() {
  // Footer: opcode, length 20, summary_start, summary_offset_start, summary_crc; then the magic.
  constexpr uint64_t kFooterRecord = 1 + 8 + 8 + 8 + 4;
  try {
    if (size_ < 8 + kFooterRecord + 8 || std::memcmp(data_ + size_ - 8, kMagic, 8) != 0) {
      throw FormatError(size_, "file ends without the closing MCAP magic (recording cut short?)");
    }
    const uint64_t footer_at = size_ - 8 - kFooterRecord;
    if (data_[footer_at] != static_cast<uint8_t>(Opcode::kFooter) || LoadU64(data_ + footer_at + 1) != 20) {
      throw FormatError(footer_at, "no Footer record before the closing magic");
    }
    Cursor footer(data_ + footer_at + 9, 20, footer_at + 9, "Footer");
    const uint64_t summary_start = footer.LE<uint64_t>();
    footer.LE<uint64_t>();  // summary_offset_start: the groups are read in order instead
    const uint32_t summary_crc = footer.LE<uint32_t>();
    if (summary_start == 0) throw FormatError(footer_at, "the file has no summary section");
    if (summary_start > footer_at) throw FormatError(footer_at, "footer points past itself for the summary");
    if (summary_crc != 0) {
      const uint32_t crc = Crc32(0, data_ + summary_start, footer_at + 1 + 8 + 8 + 8 - summary_start);
      if (crc != summary_crc) {
        throw FormatError(summary_start,
                          "summary CRC mismatch (footer says " + Hex(summary_crc) + ", bytes give " + Hex(crc) + ")");
      }
    }
    Summary s;
    s.summary_start = summary_start;
    uint64_t at = summary_start;
    while (at < footer_at) {
      if (footer_at - at < 9) throw FormatError(at, "summary record header cut short");
      const uint8_t op = data_[at];
      const uint64_t length = LoadU64(data_ + at + 1);
      if (length > footer_at - at - 9) throw FormatError(at, "summary record runs past the footer");
      Cursor c(data_ + at + 9, length, at + 9, "summary");
      switch (static_cast<Opcode>(op)) {
        case Opcode::kSchema: {
          Schema schema = ParseSchema(c);
          s.schemas[schema.id] = std::move(schema);
          break;
        }
        case Opcode::kChannel: {
          Channel channel = ParseChannel(c);
          s.channels[channel.id] = std::move(channel);
          break;
        }
        case Opcode::kStatistics: {
          Statistics st;
          st.message_count = c.LE<uint64_t>();
          st.schema_count = c.LE<uint16_t>();
          st.channel_count = c.LE<uint32_t>();
          st.attachment_count = c.LE<uint32_t>();
          st.metadata_count = c.LE<uint32_t>();
          st.chunk_count = c.LE<uint32_t>();
          st.message_start_time = c.LE<uint64_t>();
          st.message_end_time = c.LE<uint64_t>();
          st.channel_message_counts = c.Map<uint16_t, uint64_t>();
          s.statistics = st;
          break;
        }
        case Opcode::kChunkIndex: {
          ChunkIndex ci;
          ci.message_start_time = c.LE<uint64_t>();
          ci.message_end_time = c.LE<uint64_t>();
          ci.chunk_start_offset = c.LE<uint64_t>();
          ci.chunk_length = c.LE<uint64_t>();
          ci.message_index_offsets = c.Map<uint16_t, uint64_t>();
          ci.message_index_length = c.LE<uint64_t>();
          ci.compression = c.String();
          ci.compressed_size = c.LE<uint64_t>();
          ci.uncompressed_size = c.LE<uint64_t>();
          s.chunk_indexes.push_back(std::move(ci));
          break;
        }
        default:
          break;  // summary offsets, attachment and metadata indexes, future records
      }
      at += 9 + length;
    }
    for (const auto& [id, schema] : s.schemas) schemas_[id] = schema;
    for (const auto& [id, channel] : s.channels) channels_[id] = channel;
    summary_ = std::move(s);
  } catch (const FormatError& e) {
    summary_error_ = e;
  }
}

bool Reader::HandleRecord(uint8_t op, const uint8_t* content, uint64_t length, uint64_t at,
                          const std::shared_ptr<const void>& owner,
                          const std::function<bool(const MessageView&)>& on_message, ScanResult* result) {
  switch (static_cast<Opcode>(op)) {
    case Opcode::kSchema: {
      Schema s = ParseSchema(Cursor(content, length, at, "Schema"));
      schemas_[s.id] = std::move(s);
      return true;
    }
    case Opcode::kChannel: {
      Channel ch = ParseChannel(Cursor(content, length, at, "Channel"));
      channels_[ch.id] = std::move(ch);
      return true;
    }
    case Opcode::kMessage: {
      Cursor c(content, length, at, "Message");
      const uint16_t channel_id = c.LE<uint16_t>();
      const uint32_t sequence = c.LE<uint32_t>();
      const uint64_t log_time = c.LE<uint64_t>();
      const uint64_t publish_time = c.LE<uint64_t>();
      const auto it = channels_.find(channel_id);
      if (it == channels_.end()) {
        throw FormatError(at, "message on channel " + std::to_string(channel_id) + " before its Channel record");
      }
      ++result->messages;
      return on_message(MessageView{it->second, sequence, log_time, publish_time, c.Rest(), owner});
    }
    default:
      return true;  // indexes, attachments, metadata, records of later versions
  }
}

ScanResult Reader::ReadMessages(const std::function<bool(const MessageView&)>& on_message, ReadAhead read_ahead) {
  ScanResult result;
  // Handles one unit on this thread (schemas, channels, the callback); false: the pass is over.
  auto consume = [&](const Unit& u) {
    switch (u.kind) {
      case Unit::Kind::kRecords:
        // Framing checked by the walker.
        for (uint64_t at = u.at; at < u.end;) {
          const uint64_t length = LoadU64(data_ + at + 1);
          if (!HandleRecord(data_[at], data_ + at + 9, length, at, u.owner, on_message, &result)) return false;
          at += 9 + length;
        }
        return true;
      case Unit::Kind::kChunk: {
        const uint8_t* p = u.records.data();
        bool go_on = true;
        for (uint64_t inner = 0; go_on && inner < u.records.size();) {
          const uint64_t inner_length = LoadU64(p + inner + 1);
          go_on = HandleRecord(p[inner], p + inner + 9, inner_length, u.at, u.owner, on_message, &result);
          inner += 9 + inner_length;
        }
        ++result.chunks;
        return go_on;
      }
      case Unit::Kind::kEnd:
        result.complete = true;
        return false;
      case Unit::Kind::kError:
        result.error = *u.error;
        return false;
    }
    return false;
  };
  try {
    if (read_ahead == ReadAhead::kNone) {
      DataWalker walker(data_, size_, mapping_);
      Unit u;
      do walker.Next(&u);
      while (consume(u));
      return result;
    }
    // The walker runs on its own thread, at most two units ahead. Whatever ends the pass here (the
    // end, damage, the callback asking to stop, an exception) stops and joins it.
    UnitQueue queue;
    std::exception_ptr walker_failure;
    DataWalker walker(data_, size_, mapping_);
    std::thread walking([&] {
      while (auto u = queue.TakeFree()) {
        try {
          walker.Next(u.get());
        } catch (...) {  // not a FormatError (those are units): e.g. std::bad_alloc
          walker_failure = std::current_exception();
          u->kind = Unit::Kind::kEnd;
        }
        const bool last = u->kind == Unit::Kind::kEnd || u->kind == Unit::Kind::kError;
        queue.PushReady(std::move(u));
        if (last) return;
      }
    });
    struct Join {
      UnitQueue& queue;
      std::thread& thread;
      ~Join() {
        queue.Stop();
        thread.join();
      }
    } join{queue, walking};
    while (true) {
      auto u = queue.TakeReady();
      if (walker_failure) std::rethrow_exception(walker_failure);  // set before the unit was pushed
      const bool go_on = consume(*u);
      queue.GiveBack(std::move(u));
      if (!go_on) break;
    }
  } catch (const FormatError& e) {
    result.error = e;
  }
  return result;
}

}  // namespace limbic::mcap
