#include <gtest/gtest.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <random>
#include <system_error>
#include <tuple>

#include "common/mcap/compression.hpp"
#include "common/mcap/reader.hpp"
#include "common/mcap/writer.hpp"

namespace limbic::mcap {
namespace {

std::string TempPath(const std::string& name) {
  return (std::filesystem::temp_directory_path() / ("mcap_test_" + std::to_string(::getpid()) + "_" + name)).string();
}

std::vector<uint8_t> ReadAll(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), {}};
}

void WriteAll(const std::string& path, const std::vector<uint8_t>& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
}

uint64_t U64(const std::vector<uint8_t>& b, size_t at) {
  uint64_t v = 0;
  for (int i = 0; i < 8; ++i) v |= static_cast<uint64_t>(b[at + i]) << (8 * i);
  return v;
}

// Message i: channel i % 3, log time 1000 + 10 i, payload of (i % 200) + 1 bytes, each byte i + k.
std::vector<uint8_t> Payload(int i) {
  std::vector<uint8_t> p(static_cast<size_t>(i % 200) + 1);
  for (size_t k = 0; k < p.size(); ++k) p[k] = static_cast<uint8_t>(i + k);
  return p;
}

constexpr int kMessages = 3000;

void WriteSample(const std::string& path, Compression compression, size_t chunk_size = 16 * 1024) {
  Writer w(path, {.compression = compression, .chunk_size = chunk_size});
  const std::vector<uint8_t> schema_data{1, 2, 3, 4, 5};
  const uint16_t s1 = w.AddSchema("test.A", "flatbuffer", schema_data);
  const uint16_t s2 = w.AddSchema("test.B", "flatbuffer", {});
  const uint16_t c0 = w.AddChannel(s1, "r1/a", "flatbuffer", {{"type", "A"}});
  const uint16_t c1 = w.AddChannel(s2, "r1/b", "flatbuffer");
  const uint16_t c2 = w.AddChannel(s1, "clock", "flatbuffer");
  const uint16_t channels[] = {c0, c1, c2};
  for (int i = 0; i < kMessages; ++i) {
    const auto p = Payload(i);
    w.Write({.channel_id = channels[i % 3],
             .sequence = static_cast<uint32_t>(i),
             .log_time = 1000u + 10u * i,
             .publish_time = 500u + 10u * i,
             .data = p});
  }
  w.Close();
}

class RoundTrip : public ::testing::TestWithParam<Compression> {};

TEST_P(RoundTrip, EveryMessageSchemaAndChannelComesBackWithAValidSummary) {
  const std::string path = TempPath(std::string("rt_") + CompressionName(GetParam()) + ".mcap");
  WriteSample(path, GetParam());
  Reader r(path);
  EXPECT_EQ(r.library(), "limbic");
  ASSERT_TRUE(r.summary().has_value()) << r.summary_error()->what();
  const Summary& s = *r.summary();
  ASSERT_EQ(s.schemas.size(), 2u);
  EXPECT_EQ(s.schemas.at(1).name, "test.A");
  EXPECT_EQ(s.schemas.at(1).data, (std::vector<uint8_t>{1, 2, 3, 4, 5}));
  ASSERT_EQ(s.channels.size(), 3u);
  EXPECT_EQ(s.channels.at(0).metadata.at("type"), "A");
  EXPECT_EQ(s.channels.at(2).topic, "clock");
  ASSERT_TRUE(s.statistics);
  EXPECT_EQ(s.statistics->message_count, uint64_t{kMessages});
  EXPECT_EQ(s.statistics->channel_message_counts.at(1), uint64_t{kMessages / 3});
  EXPECT_EQ(s.statistics->message_start_time, 1000u);
  EXPECT_EQ(s.statistics->message_end_time, 1000u + 10u * (kMessages - 1));
  EXPECT_GT(s.statistics->chunk_count, 5u);  // ~300 kB of records in 16 kB chunks
  EXPECT_EQ(s.chunk_indexes.size(), s.statistics->chunk_count);

  int i = 0;
  const ScanResult result = r.ReadMessages([&](const MessageView& m) {
    EXPECT_EQ(m.channel.id, i % 3);
    EXPECT_EQ(m.sequence, static_cast<uint32_t>(i));
    EXPECT_EQ(m.log_time, 1000u + 10u * i);
    EXPECT_EQ(m.publish_time, 500u + 10u * i);
    const auto p = Payload(i);
    EXPECT_TRUE(std::equal(m.data.begin(), m.data.end(), p.begin(), p.end())) << "message " << i;
    ++i;
    return true;
  });
  EXPECT_FALSE(result.error) << result.error->what();
  EXPECT_TRUE(result.complete);
  EXPECT_EQ(i, kMessages);
  EXPECT_EQ(result.chunks, s.statistics->chunk_count);
  std::filesystem::remove(path);
}

TEST_P(RoundTrip, ChunkAndMessageIndexesPointAtTheirRecords) {
  const std::string path = TempPath(std::string("idx_") + CompressionName(GetParam()) + ".mcap");
  WriteSample(path, GetParam());
  const auto bytes = ReadAll(path);
  Reader r(path);
  ASSERT_TRUE(r.summary());
  uint64_t messages = 0;
  for (const ChunkIndex& ci : r.summary()->chunk_indexes) {
    ASSERT_LT(ci.chunk_start_offset, bytes.size());
    EXPECT_EQ(bytes[ci.chunk_start_offset], static_cast<uint8_t>(Opcode::kChunk));
    EXPECT_EQ(U64(bytes, ci.chunk_start_offset + 1) + 9, ci.chunk_length);
    EXPECT_EQ(ci.compression, CompressionName(GetParam()));
    EXPECT_LE(ci.message_start_time, ci.message_end_time);
    // The chunk's records, decompressed, for checking the message index entries.
    const size_t header = 9 + 8 + 8 + 8 + 4 + 4 + ci.compression.size() + 8;
    std::vector<uint8_t> records;
    Decompress(ci.compression,
               std::span<const uint8_t>(bytes.data() + ci.chunk_start_offset + header, ci.compressed_size),
               ci.uncompressed_size, &records);
    uint64_t index_bytes = 0;
    for (const auto& [channel, at] : ci.message_index_offsets) {
      ASSERT_EQ(bytes[at], static_cast<uint8_t>(Opcode::kMessageIndex));
      const uint64_t length = U64(bytes, at + 1);
      index_bytes += 9 + length;
      EXPECT_EQ(bytes[at + 9] | (bytes[at + 10] << 8), channel);
      const uint32_t array_bytes =
          bytes[at + 11] | (bytes[at + 12] << 8) | (bytes[at + 13] << 16) | (bytes[at + 14] << 24);
      for (uint32_t e = 0; e < array_bytes; e += 16) {
        const uint64_t time = U64(bytes, at + 15 + e);
        const uint64_t offset = U64(bytes, at + 15 + e + 8);
        ASSERT_LT(offset, records.size());
        EXPECT_EQ(records[offset], static_cast<uint8_t>(Opcode::kMessage));
        EXPECT_EQ(records[offset + 9] | (records[offset + 10] << 8), channel);
        EXPECT_EQ(U64(records, offset + 9 + 2 + 4), time);
        ++messages;
      }
    }
    EXPECT_EQ(index_bytes, ci.message_index_length);
  }
  EXPECT_EQ(messages, uint64_t{kMessages});
  std::filesystem::remove(path);
}

INSTANTIATE_TEST_SUITE_P(Compressions, RoundTrip,
                         ::testing::Values(Compression::kNone, Compression::kZstd, Compression::kLz4),
                         [](const auto& param_info) {
                           return std::string(
                               param_info.param == Compression::kNone ? "none" : CompressionName(param_info.param));
                         });

TEST(McapReader, TruncatedFileReadsUpToItsLastCompleteChunkAndNamesTheOffset) {
  const std::string path = TempPath("trunc.mcap");
  WriteSample(path, Compression::kZstd);
  Reader whole(path);
  ASSERT_TRUE(whole.summary());
  const auto& chunks = whole.summary()->chunk_indexes;
  ASSERT_GE(chunks.size(), 3u);
  // Cut in the middle of the third chunk: the first two (and their indexes) survive.
  const ChunkIndex cut = chunks[2];
  auto bytes = ReadAll(path);
  bytes.resize(cut.chunk_start_offset + cut.chunk_length / 2);
  WriteAll(path, bytes);
  Reader r(path);
  EXPECT_FALSE(r.summary());
  ASSERT_TRUE(r.summary_error());
  EXPECT_NE(std::string(r.summary_error()->what()).find("closing MCAP magic"), std::string::npos);
  uint64_t n = 0;
  const ScanResult result = r.ReadMessages([&](const MessageView&) { return ++n, true; });
  ASSERT_TRUE(result.error);
  EXPECT_EQ(result.error->offset(), cut.chunk_start_offset);
  EXPECT_NE(std::string(result.error->what()).find("at byte " + std::to_string(cut.chunk_start_offset) + ": truncated"),
            std::string::npos)
      << result.error->what();
  EXPECT_EQ(result.chunks, 2u);
  EXPECT_EQ(n, result.messages);
  EXPECT_GT(n, 0u);
  EXPECT_LT(n, uint64_t{kMessages});
  std::filesystem::remove(path);
}

TEST(McapReader, CorruptChunkIsACrcErrorAtTheChunkAndEarlierChunksStillRead) {
  const std::string path = TempPath("corrupt.mcap");
  WriteSample(path, Compression::kNone);
  const ChunkIndex second = Reader(path).summary()->chunk_indexes.at(1);
  auto bytes = ReadAll(path);
  bytes[second.chunk_start_offset + second.chunk_length - 5] ^= 0x40;  // a payload byte of the last message
  WriteAll(path, bytes);
  Reader r(path);
  EXPECT_TRUE(r.summary());  // the summary itself is intact
  const ScanResult result = r.ReadMessages([](const MessageView&) { return true; });
  ASSERT_TRUE(result.error);
  EXPECT_EQ(result.error->offset(), second.chunk_start_offset);
  EXPECT_NE(std::string(result.error->what()).find("chunk CRC mismatch"), std::string::npos) << result.error->what();
  EXPECT_EQ(result.chunks, 1u);
  std::filesystem::remove(path);
}

// Crc32 is libdeflate's (PCLMUL-folded): it must give zlib's crc32 values, the spec's CRC-32, for
// every length (the folding works on 16/64-byte blocks with head and tail handled apart, so every
// length 0..2100 and every start alignment 0..15 is tried), for long buffers, and when continued
// piece by piece as the writer does across records.
TEST(McapCrc32, EqualsZlibForEveryLengthAlignmentAndContinuation) {
  std::mt19937_64 random(17);
  std::vector<uint8_t> bytes(3 * 1024 * 1024 + 77);
  for (auto& b : bytes) b = static_cast<uint8_t>(random());
  auto zlib = [](uint32_t crc, const uint8_t* p, size_t n) { return static_cast<uint32_t>(crc32_z(crc, p, n)); };
  EXPECT_EQ(Crc32(0, nullptr, 0), 0u);
  // The standard check value of CRC-32/ISO-HDLC.
  EXPECT_EQ(Crc32(0, "123456789", 9), 0xCBF43926u);
  for (size_t length = 0; length <= 2100; ++length) {
    const size_t offset = length % 16;
    ASSERT_EQ(Crc32(0, bytes.data() + offset, length), zlib(0, bytes.data() + offset, length)) << "length " << length;
  }
  for (size_t length : {size_t{65536}, size_t{1 << 20} + 3, bytes.size()}) {
    EXPECT_EQ(Crc32(0, bytes.data(), length), zlib(0, bytes.data(), length)) << "length " << length;
  }
  for (int trial = 0; trial < 200; ++trial) {
    const size_t a = random() % 5000, b = random() % 5000, start = random() % 64;
    const uint32_t whole = zlib(0, bytes.data() + start, a + b);
    EXPECT_EQ(Crc32(Crc32(0, bytes.data() + start, a), bytes.data() + start + a, b), whole) << a << " + " << b;
  }
  // One flipped bit anywhere changes it.
  std::vector<uint8_t> copy(bytes.begin(), bytes.begin() + 4096);
  const uint32_t clean = Crc32(0, copy.data(), copy.size());
  for (size_t i = 0; i < copy.size(); i += 97) {
    copy[i] ^= 0x10;
    EXPECT_NE(Crc32(0, copy.data(), copy.size()), clean) << "byte " << i;
    copy[i] ^= 0x10;
  }
}

// The CRC a chunk records is checked on reading whatever the compression: a chunk whose recorded
// uncompressed CRC is one bit off decompresses fine and is still refused at its offset.
TEST(McapReader, ChunkWithAWrongCrcIsRefusedForEveryCompression) {
  for (Compression c : {Compression::kNone, Compression::kZstd, Compression::kLz4}) {
    const std::string path = TempPath("badcrc.mcap");
    WriteSample(path, c);
    const ChunkIndex second = Reader(path).summary()->chunk_indexes.at(1);
    auto bytes = ReadAll(path);
    bytes[second.chunk_start_offset + 1 + 8 + 8 + 8 + 8] ^= 0x01;  // uncompressed_crc's low byte
    WriteAll(path, bytes);
    Reader r(path);
    uint64_t delivered = 0;
    const ScanResult result = r.ReadMessages([&](const MessageView&) { return ++delivered, true; });
    ASSERT_TRUE(result.error) << CompressionName(c);
    EXPECT_EQ(result.error->offset(), second.chunk_start_offset) << CompressionName(c);
    EXPECT_NE(std::string(result.error->what()).find("chunk CRC mismatch"), std::string::npos) << result.error->what();
    EXPECT_EQ(result.chunks, 1u);
    EXPECT_GT(delivered, 0u);  // the first chunk's messages came through
    std::filesystem::remove(path);
  }
}

TEST(McapReader, CorruptCompressedChunkIsAClearErrorNotACrash) {
  for (Compression c : {Compression::kZstd, Compression::kLz4}) {
    const std::string path = TempPath("corruptz.mcap");
    WriteSample(path, c);
    const ChunkIndex first = Reader(path).summary()->chunk_indexes.at(0);
    auto bytes = ReadAll(path);
    for (uint64_t k = 60; k < first.chunk_length; k += 7) bytes[first.chunk_start_offset + k] ^= 0x5a;
    WriteAll(path, bytes);
    Reader r(path);
    const ScanResult result = r.ReadMessages([](const MessageView&) { return true; });
    ASSERT_TRUE(result.error) << CompressionName(c);
    EXPECT_EQ(result.error->offset(), first.chunk_start_offset);
    EXPECT_EQ(result.messages, 0u);
    std::filesystem::remove(path);
  }
}

// A chunk header claiming gigabytes (a flipped high bit in uncompressed_size) must be refused
// before anything is allocated (seen while writing fuzz_mcap_reader: Decompress resized to the
// claimed size, up to 16 GiB, before looking at the compressed bytes). Read from memory (the
// in-memory constructor the fuzzer uses) and from the file.
TEST(McapReader, ChunkClaimingAHugeUncompressedSizeIsAnErrorNotAnAllocation) {
  for (Compression c : {Compression::kZstd, Compression::kLz4, Compression::kNone}) {
    const std::string path = TempPath("huge.mcap");
    WriteSample(path, c);
    const ChunkIndex first = Reader(path).summary()->chunk_indexes.at(0);
    auto bytes = ReadAll(path);
    bytes[first.chunk_start_offset + 1 + 8 + 8 + 8 + 4] ^= 0x02;  // uncompressed_size += 2^33
    Reader memory(std::span<const uint8_t>(bytes), "memory.mcap");
    const ScanResult result = memory.ReadMessages([](const MessageView&) { return true; });
    ASSERT_TRUE(result.error) << CompressionName(c);
    EXPECT_EQ(result.error->offset(), first.chunk_start_offset) << result.error->what();
    EXPECT_EQ(result.messages, 0u);
    EXPECT_NE(std::string(result.error->what()).find("cannot be decompressed"), std::string::npos)
        << result.error->what();
    WriteAll(path, bytes);
    Reader file(path);
    EXPECT_EQ(file.ReadMessages([](const MessageView&) { return true; }).error->offset(), first.chunk_start_offset);
    std::filesystem::remove(path);
  }
}

// What one pass delivers, in order, and how it ended.
struct Pass {
  std::vector<std::tuple<std::string, uint32_t, uint64_t, uint64_t, uint32_t>> messages;  // topic, seq, times, CRC
  uint64_t counted = 0, chunks = 0;
  bool complete = false;
  std::string error;
  bool operator==(const Pass&) const = default;
};

Pass ReadPass(std::span<const uint8_t> bytes, ReadAhead read_ahead, size_t stop_after = SIZE_MAX) {
  Reader r(bytes, "pass.mcap");
  Pass pass;
  const ScanResult result = r.ReadMessages(
      [&](const MessageView& m) {
        pass.messages.emplace_back(m.channel.topic, m.sequence, m.log_time, m.publish_time,
                                   Crc32(0, m.data.data(), m.data.size()));
        return pass.messages.size() < stop_after;
      },
      read_ahead);
  pass.counted = result.messages;
  pass.chunks = result.chunks;
  pass.complete = result.complete;
  if (result.error) pass.error = result.error->what();
  return pass;
}

void PutRecord(std::vector<uint8_t>* b, Opcode op, const std::vector<uint8_t>& content) {
  b->push_back(static_cast<uint8_t>(op));
  for (int i = 0; i < 8; ++i) b->push_back(static_cast<uint8_t>(content.size() >> (8 * i)));
  b->insert(b->end(), content.begin(), content.end());
}
template <typename T>
void PutInt(std::vector<uint8_t>* b, T v) {
  for (size_t i = 0; i < sizeof(T); ++i) b->push_back(static_cast<uint8_t>(static_cast<uint64_t>(v) >> (8 * i)));
}
void PutString(std::vector<uint8_t>* b, const std::string& s) {
  PutInt<uint32_t>(b, static_cast<uint32_t>(s.size()));
  b->insert(b->end(), s.begin(), s.end());
}

// A file without chunks (other writers make them; the spec allows it): schema, channel and
// `count` messages of 1 KiB straight in the data section, then DataEnd (CRC 0: unchecked). No
// summary.
std::vector<uint8_t> UnchunkedFile(int count) {
  std::vector<uint8_t> b(std::begin(kMagic), std::end(kMagic));
  std::vector<uint8_t> c;
  PutString(&c, "");
  PutString(&c, "hand");
  PutRecord(&b, Opcode::kHeader, c);
  c.clear();
  PutInt<uint16_t>(&c, 1);
  PutString(&c, "test.A");
  PutString(&c, "flatbuffer");
  PutInt<uint32_t>(&c, 0);
  PutRecord(&b, Opcode::kSchema, c);
  c.clear();
  PutInt<uint16_t>(&c, 1);
  PutInt<uint16_t>(&c, 1);
  PutString(&c, "r1/raw");
  PutString(&c, "flatbuffer");
  PutInt<uint32_t>(&c, 0);
  PutRecord(&b, Opcode::kChannel, c);
  for (int i = 0; i < count; ++i) {
    c.clear();
    PutInt<uint16_t>(&c, 1);
    PutInt<uint32_t>(&c, static_cast<uint32_t>(i));
    PutInt<uint64_t>(&c, 100u + i);
    PutInt<uint64_t>(&c, 50u + i);
    for (int k = 0; k < 1024; ++k) c.push_back(static_cast<uint8_t>(i * 7 + k));
    PutRecord(&b, Opcode::kMessage, c);
  }
  PutRecord(&b, Opcode::kDataEnd, {0, 0, 0, 0});
  return b;
}

// Reading ahead on a second thread changes nothing but the speed: the same messages in the same
// order, the same counts, the same end — for clean files of each compression, a chunk with a bad
// CRC, a file cut short, a callback that stops early, and a file without chunks (whole, and cut
// inside its records: what came before the damage still arrives, then the damage).
TEST(McapReader, ReadingAheadOnAThreadGivesTheSamePassAsReadingInline) {
  std::vector<std::pair<std::string, std::vector<uint8_t>>> files;
  for (Compression c : {Compression::kNone, Compression::kZstd, Compression::kLz4}) {
    const std::string path = TempPath("ahead.mcap");
    WriteSample(path, c);
    auto bytes = ReadAll(path);
    const auto chunks = Reader(path).summary()->chunk_indexes;
    ASSERT_GE(chunks.size(), 4u);
    std::filesystem::remove(path);
    files.emplace_back(std::string("clean ") + CompressionName(c), bytes);
    auto bad_crc = bytes;
    bad_crc[chunks[2].chunk_start_offset + 1 + 8 + 8 + 8 + 8] ^= 0x01;
    files.emplace_back(std::string("bad CRC ") + CompressionName(c), bad_crc);
    auto cut = bytes;
    cut.resize(chunks[3].chunk_start_offset + chunks[3].chunk_length / 2);
    files.emplace_back(std::string("cut ") + CompressionName(c), cut);
  }
  const auto unchunked = UnchunkedFile(3000);  // ~3 MB: several pieces of plain records
  files.emplace_back("unchunked", unchunked);
  files.emplace_back("unchunked, cut", std::vector<uint8_t>(unchunked.begin(), unchunked.end() - 1500));
  for (const auto& [name, bytes] : files) {
    for (size_t stop_after : {SIZE_MAX, size_t{1}, size_t{1234}}) {
      const Pass inline_pass = ReadPass(bytes, ReadAhead::kNone, stop_after);
      const Pass ahead = ReadPass(bytes, ReadAhead::kThread, stop_after);
      EXPECT_TRUE(inline_pass == ahead) << name << ", stop after " << stop_after << ": inline "
                                        << inline_pass.messages.size() << " messages, " << inline_pass.error
                                        << "; ahead " << ahead.messages.size() << ", " << ahead.error;
      EXPECT_FALSE(inline_pass.messages.empty()) << name;
      EXPECT_LE(inline_pass.messages.size(), stop_after) << name;
      if (stop_after != SIZE_MAX && (name.rfind("clean", 0) == 0 || name == "unchunked")) {
        EXPECT_EQ(inline_pass.messages.size(), stop_after) << name;
      }
      if (stop_after == SIZE_MAX && name.rfind("clean", 0) == 0) {
        EXPECT_TRUE(ahead.complete) << name;
        EXPECT_EQ(ahead.messages.size(), size_t{kMessages}) << name;
      }
      if (stop_after == SIZE_MAX && name.rfind("clean", 0) != 0 && name != "unchunked") {
        EXPECT_FALSE(ahead.error.empty()) << name;
        EXPECT_FALSE(ahead.complete) << name;
      }
    }
  }
  EXPECT_EQ(ReadPass(unchunked, ReadAhead::kThread).messages.size(), 3000u);
  EXPECT_TRUE(ReadPass(unchunked, ReadAhead::kThread).complete);
}

// A callback that throws ends the pass with its exception, and the thread reading ahead is stopped
// and joined (no hang, no terminate).
TEST(McapReader, ExceptionFromTheCallbackStopsTheReadAheadThread) {
  const std::string path = TempPath("throw.mcap");
  WriteSample(path, Compression::kZstd);
  Reader r(path);
  int n = 0;
  EXPECT_THROW(r.ReadMessages(
                   [&](const MessageView&) -> bool {
                     if (++n == 100) throw std::runtime_error("stop here");
                     return true;
                   },
                   ReadAhead::kThread),
               std::runtime_error);
  EXPECT_EQ(n, 100);
  // The reader is still usable.
  EXPECT_EQ(r.ReadMessages([](const MessageView&) { return true; }, ReadAhead::kThread).messages, uint64_t{kMessages});
  std::filesystem::remove(path);
}

TEST(McapReader, ReadsFromMemoryAsFromTheFile) {
  const std::string path = TempPath("memory.mcap");
  WriteSample(path, Compression::kZstd);
  const auto bytes = ReadAll(path);
  Reader r(std::span<const uint8_t>(bytes), "memory.mcap");
  ASSERT_TRUE(r.summary());
  EXPECT_EQ(r.path(), "memory.mcap");
  uint64_t sum = 0;
  const ScanResult result = r.ReadMessages([&](const MessageView& m) {
    sum += m.data.size();
    return true;
  });
  EXPECT_TRUE(result.complete);
  EXPECT_EQ(result.messages, uint64_t{kMessages});
  uint64_t expected = 0;
  for (int i = 0; i < kMessages; ++i) expected += Payload(i).size();
  EXPECT_EQ(sum, expected);
  const std::vector<uint8_t> garbage{1, 2, 3};
  EXPECT_THROW(Reader(std::span<const uint8_t>(garbage), "garbage"), FormatError);
  std::filesystem::remove(path);
}

// A player sends messages straight from the chunk (bus::Node::SendShared), holding MessageView::owner until ZeroMQ
// is done with them, which may be after the pass and the reader: while held, the bytes stay alive and unchanged (a
// recycled chunk buffer is never written while anyone holds it, an unmapped file never read). Every message of the
// file is kept here, the reader destroyed, and then every message compared (ASan sees a read of a freed buffer, a
// read of an unmapped file faults).
TEST(McapReader, OwnerKeepsEveryMessageAliveAndUnchangedAfterThePassAndTheReader) {
  for (const Compression compression : {Compression::kNone, Compression::kZstd, Compression::kLz4}) {
    for (const ReadAhead read_ahead : {ReadAhead::kNone, ReadAhead::kThread}) {
      SCOPED_TRACE(std::string(CompressionName(compression)) + (read_ahead == ReadAhead::kThread ? " read-ahead" : ""));
      const std::string path = TempPath("owner.mcap");
      WriteSample(path, compression);  // about 25 chunks: more than the reader lets out at once
      std::vector<std::pair<std::span<const uint8_t>, std::shared_ptr<const void>>> kept;
      {
        Reader r(path);
        const ScanResult result = r.ReadMessages(
            [&](const MessageView& m) {
              EXPECT_NE(m.owner, nullptr);
              kept.emplace_back(m.data, m.owner);
              return true;
            },
            read_ahead);
        ASSERT_TRUE(result.complete);
      }
      std::filesystem::remove(path);  // and the file itself is gone
      ASSERT_EQ(kept.size(), size_t{kMessages});
      for (int i = 0; i < kMessages; ++i) {
        const auto expected = Payload(i);
        ASSERT_TRUE(std::equal(kept[i].first.begin(), kept[i].first.end(), expected.begin(), expected.end()))
            << "message " << i;
      }
    }
  }
  // Over the caller's bytes the reader cannot keep anything alive: in-place chunks come without an owner.
  const std::string path = TempPath("owner_memory.mcap");
  WriteSample(path, Compression::kNone);
  const auto bytes = ReadAll(path);
  std::filesystem::remove(path);
  Reader memory(std::span<const uint8_t>(bytes), "memory.mcap");
  int with_owner = 0;
  memory.ReadMessages([&](const MessageView& m) { return with_owner += m.owner != nullptr, true; });
  EXPECT_EQ(with_owner, 0);
}

TEST(McapReader, CorruptSummaryIsDetectedByItsCrc) {
  const std::string path = TempPath("badsummary.mcap");
  WriteSample(path, Compression::kLz4);
  const uint64_t summary_start = Reader(path).summary()->summary_start;
  auto bytes = ReadAll(path);
  bytes[summary_start + 20] ^= 1;  // inside the first schema's name
  WriteAll(path, bytes);
  Reader r(path);
  EXPECT_FALSE(r.summary());
  ASSERT_TRUE(r.summary_error());
  EXPECT_NE(std::string(r.summary_error()->what()).find("summary CRC mismatch"), std::string::npos);
  // The data section is untouched: every message still reads.
  EXPECT_EQ(r.ReadMessages([](const MessageView&) { return true; }).messages, uint64_t{kMessages});
  std::filesystem::remove(path);
}

TEST(McapReader, RefusesFilesThatAreNotMcap) {
  const std::string path = TempPath("not.mcap");
  WriteAll(path, {'h', 'e', 'l', 'l', 'o', ' ', 'w', 'o', 'r', 'l', 'd', '\n'});
  try {
    Reader r(path);
    FAIL() << "accepted a text file";
  } catch (const FormatError& e) {
    EXPECT_EQ(e.offset(), 0u);
    EXPECT_NE(std::string(e.what()).find("not an MCAP file"), std::string::npos);
  }
  WriteAll(path, {});
  EXPECT_THROW(Reader{path}, FormatError);
  std::filesystem::remove(path);
  EXPECT_THROW(Reader{path}, std::system_error);  // missing
}

// A disk that fills up after `limit` bytes, as write(2) reports it.
class FullAfter : public FileSink {
 public:
  FullAfter(const std::string& path, uint64_t limit) : FileSink(path), left_(limit) {}
  void Write(const uint8_t* data, size_t size) override {
    const size_t n = std::min<uint64_t>(size, left_);
    if (n > 0) FileSink::Write(data, n);
    left_ -= n;
    if (n < size) throw std::system_error(ENOSPC, std::generic_category(), "writing test file");
  }

 private:
  uint64_t left_;
};

TEST(McapWriter, FullDiskIsAClearErrorAndTheFileReadsUpToItsLastCompleteChunk) {
  const std::string path = TempPath("full.mcap");
  Writer w(std::make_unique<FullAfter>(path, 40'000), {.compression = Compression::kNone, .chunk_size = 16 * 1024});
  const uint16_t s = w.AddSchema("test.A", "flatbuffer", {});
  const uint16_t c = w.AddChannel(s, "r1/a", "flatbuffer");
  std::vector<uint8_t> payload(1000, 7);
  int written = 0;
  try {
    for (; written < 1000; ++written) w.Write({.channel_id = c, .log_time = uint64_t(written), .data = payload});
    FAIL() << "the disk never filled";
  } catch (const std::system_error& e) {
    EXPECT_EQ(e.code().value(), ENOSPC);
    EXPECT_NE(std::string(e.what()).find("No space left"), std::string::npos) << e.what();
  }
  EXPECT_TRUE(w.failed());
  EXPECT_THROW(w.Write({.channel_id = c, .data = payload}), std::runtime_error);
  EXPECT_NO_THROW(w.Close());  // nothing more is written
  Reader r(path);
  EXPECT_EQ(r.file_size(), 40'000u);
  uint64_t n = 0;
  const ScanResult result = r.ReadMessages([&](const MessageView& m) {
    EXPECT_EQ(m.log_time, n);
    return ++n, true;
  });
  ASSERT_TRUE(result.error);
  EXPECT_EQ(result.chunks, 2u);  // 2 × 16 messages of ~1 kB fit in 40 kB; the third chunk is cut
  EXPECT_EQ(n, 2u * 16u);
  std::filesystem::remove(path);
}

TEST(McapWriter, DevFullReportsNoSpace) {
  if (!std::filesystem::exists("/dev/full")) GTEST_SKIP() << "no /dev/full on this system";
  try {
    Writer w("/dev/full", {.compression = Compression::kNone});  // the header is written at once
    FAIL() << "writing the header to /dev/full did not fail";
  } catch (const std::system_error& e) {
    EXPECT_EQ(e.code().value(), ENOSPC);
    EXPECT_NE(std::string(e.what()).find("/dev/full"), std::string::npos) << e.what();
  }
}

TEST(McapWriter, RejectsUnknownIdsAndBadCompressionNames) {
  const std::string path = TempPath("ids.mcap");
  Writer w(path);
  EXPECT_THROW(w.AddChannel(3, "x", "flatbuffer"), std::invalid_argument);
  std::vector<uint8_t> p{1};
  EXPECT_THROW(w.Write({.channel_id = 0, .data = p}), std::invalid_argument);
  EXPECT_THROW(ParseCompression("gzip"), std::invalid_argument);
  EXPECT_EQ(ParseCompression("none"), Compression::kNone);
  EXPECT_EQ(ParseCompression("lz4"), Compression::kLz4);
  w.Close();
  EXPECT_THROW(w.AddSchema("a", "b", {}), std::logic_error);
  std::filesystem::remove(path);
}

TEST(McapWriter, EmptyRecordingIsValid) {
  const std::string path = TempPath("empty.mcap");
  { Writer w(path); }
  Reader r(path);
  ASSERT_TRUE(r.summary());
  EXPECT_EQ(r.summary()->statistics->message_count, 0u);
  const ScanResult result = r.ReadMessages([](const MessageView&) { return true; });
  EXPECT_TRUE(result.complete);
  EXPECT_FALSE(result.error);
  std::filesystem::remove(path);
}

}  // namespace
}  // namespace limbic::mcap
