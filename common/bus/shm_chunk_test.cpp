#include "common/bus/shm_chunk.hpp"

#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <string>

#include "messages/messages.hpp"

namespace limbic::bus {
namespace {

// Chunks from the heap, 8-aligned, with every loan and release recorded.
class FakeSource : public ChunkSource {
 public:
  explicit FakeSource(size_t limit = 1u << 30) : limit_(limit) {}
  uint8_t* Loan(size_t size) override {
    if (size > limit_) throw ShmLoanError("fake pool: " + std::to_string(size) + " bytes is too many");
    auto memory = std::make_unique<uint64_t[]>((size + 7) / 8);
    uint8_t* p = reinterpret_cast<uint8_t*>(memory.get());
    loaned_[p] = {std::move(memory), size};
    ++loans;
    return p;
  }
  void Release(uint8_t* chunk) override {
    ASSERT_EQ(loaned_.count(chunk), 1u) << "released a chunk that was not loaned";
    loaned_.erase(chunk);
    ++releases;
  }
  size_t SizeOf(const uint8_t* chunk) const { return loaned_.at(const_cast<uint8_t*>(chunk)).second; }
  size_t outstanding() const { return loaned_.size(); }
  int loans = 0;
  int releases = 0;

 private:
  size_t limit_;
  std::map<uint8_t*, std::pair<std::unique_ptr<uint64_t[]>, size_t>> loaned_;
};

// A Heartbeat of about `padding` bytes more than its header, built as Publisher<T>::Publish does on shared memory.
uint8_t* Build(flatbuffers::FlatBufferBuilder& fbb, size_t padding, size_t* size, size_t* offset) {
  auto header = msg::CreateHeaderDirect(fbb, 1, 2, 3, "talker", false, 7);
  const std::string filler(padding, 'x');
  fbb.Finish(msg::CreateHeartbeatDirect(fbb, header, "r1/mapper", msg::ServiceState::Running, filler.c_str()),
             messages::Traits<msg::Heartbeat>::kIdentifier);
  *size = fbb.GetSize();
  size_t reserved = 0;  // the buffer's size: the message is its last `size` bytes
  uint8_t* chunk = fbb.ReleaseRaw(reserved, *offset);
  EXPECT_EQ(*offset + *size, reserved);
  return chunk;
}

TEST(ChunkAllocator, BuildsTheMessageAtTheEndOfOneChunkWhenTheGuessFits) {
  FakeSource source;
  ChunkAllocator allocator(source);
  size_t size = 0, offset = 0;
  uint8_t* chunk = nullptr;
  {
    flatbuffers::FlatBufferBuilder fbb(InitialChunkSize(2000), &allocator, false);
    chunk = Build(fbb, 1000, &size, &offset);
  }  // the builder is gone and has not given the chunk back: it is the publisher's now
  EXPECT_EQ(source.loans, 1);
  EXPECT_EQ(allocator.loans(), 1);
  EXPECT_EQ(source.releases, 0);
  ASSERT_EQ(source.outstanding(), 1u);
  EXPECT_EQ(offset + size, source.SizeOf(chunk)) << "a builder fills its buffer from the end";
  EXPECT_EQ(offset % 8, 0u);
  EXPECT_TRUE(messages::Verify<msg::Heartbeat>(chunk + offset, size));
  const ShmFrame frame{ShmFrame::kMagic, static_cast<uint32_t>(offset), static_cast<uint32_t>(size), 0};
  const ChunkView view = ReadChunk(chunk, source.SizeOf(chunk), &frame, sizeof frame);
  ASSERT_EQ(view.error, nullptr) << view.error;
  EXPECT_EQ(view.data, chunk + offset) << "read where it lies, not copied";
  EXPECT_EQ(view.size, size);
  source.Release(chunk);
}

TEST(ChunkAllocator, GrowingLoansALargerChunkAndReleasesTheSmallerOne) {
  FakeSource source;
  ChunkAllocator allocator(source);
  size_t size = 0, offset = 0;
  uint8_t* chunk = nullptr;
  {
    flatbuffers::FlatBufferBuilder fbb(1024, &allocator, false);
    chunk = Build(fbb, 64 * 1024, &size, &offset);
  }
  EXPECT_GT(source.loans, 1);
  EXPECT_EQ(source.releases, source.loans - 1) << "every outgrown chunk is given back";
  ASSERT_EQ(source.outstanding(), 1u);
  EXPECT_TRUE(messages::Verify<msg::Heartbeat>(chunk + offset, size)) << "the bytes built so far moved intact";
  const auto* hb = flatbuffers::GetRoot<msg::Heartbeat>(chunk + offset);
  EXPECT_EQ(hb->header()->source()->str(), "talker");
  source.Release(chunk);
}

TEST(ChunkAllocator, AFailedLoanThrowsAndTheBuilderGivesBackWhatItHeld) {
  FakeSource source(/*limit=*/8192);
  ChunkAllocator allocator(source);
  size_t size = 0, offset = 0;
  EXPECT_THROW(
      {
        flatbuffers::FlatBufferBuilder fbb(1024, &allocator, false);
        Build(fbb, 64 * 1024, &size, &offset);
      },
      ShmLoanError);
  EXPECT_GE(source.loans, 1);
  EXPECT_EQ(source.outstanding(), 0u) << "no chunk leaks when a message cannot be built in shared memory";
}

TEST(ChunkAllocator, AMessageThatIsNotSentGivesItsChunkBack) {
  FakeSource source;
  ChunkAllocator allocator(source);
  {
    flatbuffers::FlatBufferBuilder fbb(4096, &allocator, false);
    auto header = msg::CreateHeaderDirect(fbb, 1, 2, 3, "talker", false, 7);
    fbb.Finish(msg::CreateHeartbeatDirect(fbb, header, "x", msg::ServiceState::Running, ""));
    // e.g. Publish refused it (invalid values): no ReleaseRaw
  }
  EXPECT_EQ(source.loans, 1);
  EXPECT_EQ(source.outstanding(), 0u);
}

TEST(ReadChunk, RefusesFramesThatDoNotDescribeTheChunk) {
  alignas(8) uint8_t payload[256] = {};
  const auto read = [&](ShmFrame frame, size_t header_size = sizeof(ShmFrame)) {
    return ReadChunk(payload, sizeof payload, &frame, header_size);
  };
  EXPECT_EQ(read({ShmFrame::kMagic, 64, 192, 0}).error, nullptr);
  EXPECT_EQ(read({ShmFrame::kMagic, 64, 192, 0}).data, payload + 64);
  EXPECT_STREQ(ReadChunk(payload, sizeof payload, nullptr, 0).error, "chunk without limbic's frame header");
  EXPECT_STREQ(read({ShmFrame::kMagic, 0, 8, 0}, 8).error, "chunk without limbic's frame header");
  EXPECT_STREQ(read({0x12345678u, 0, 8, 0}).error, "chunk frame header of another writer");
  EXPECT_STREQ(read({ShmFrame::kMagic, 64, 193, 0}).error, "chunk frame points outside the chunk");
  EXPECT_STREQ(read({ShmFrame::kMagic, 0xfffffff8u, 16, 0}).error, "chunk frame points outside the chunk");
  EXPECT_STREQ(read({ShmFrame::kMagic, 8, 0xfffffff8u, 0}).error, "chunk frame points outside the chunk");
  EXPECT_STREQ(read({ShmFrame::kMagic, 4, 8, 0}).error, "chunk frame offset not aligned to 8");
  EXPECT_STREQ(ReadChunk(nullptr, 0, nullptr, 0).error, "empty chunk");
}

TEST(InitialChunkSize, GuessesALittleMoreThanLastTimeAlignedTo8) {
  EXPECT_EQ(InitialChunkSize(0), 1024u);
  EXPECT_EQ(InitialChunkSize(65536), 65536u + 8192u + 256u);
  EXPECT_EQ(InitialChunkSize(10001) % 8, 0u);
  EXPECT_GE(InitialChunkSize(10001), 10001u);
}

}  // namespace
}  // namespace limbic::bus
