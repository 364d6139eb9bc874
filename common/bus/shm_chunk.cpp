#include "common/bus/shm_chunk.hpp"

#include <algorithm>
#include <cstring>

namespace limbic::bus {

uint8_t* ChunkAllocator::allocate(size_t size) {
  uint8_t* chunk = source_->Loan(size);
  ++loans_;
  return chunk;
}

void ChunkAllocator::deallocate(uint8_t* p, size_t /*size*/) {
  if (p != nullptr) source_->Release(p);
}

ChunkView ReadChunk(const uint8_t* payload, size_t payload_size, const void* user_header, size_t user_header_size) {
  if (payload == nullptr) return {nullptr, 0, "empty chunk"};
  if (user_header == nullptr || user_header_size != sizeof(ShmFrame)) {
    return {nullptr, 0, "chunk without limbic's frame header"};
  }
  ShmFrame frame;
  std::memcpy(&frame, user_header, sizeof frame);
  if (frame.magic != ShmFrame::kMagic) return {nullptr, 0, "chunk frame header of another writer"};
  // offset + size in 64 bits: two 32-bit fields cannot wrap around.
  if (static_cast<uint64_t>(frame.offset) + frame.size > payload_size) {
    return {nullptr, 0, "chunk frame points outside the chunk"};
  }
  if (frame.offset % 8 != 0) return {nullptr, 0, "chunk frame offset not aligned to 8"};
  return {payload + frame.offset, frame.size, nullptr};
}

size_t InitialChunkSize(size_t last_message_size) {
  // 1/8 more than last time plus room for a longer header (source names), rounded to 8 (FlatBuffers' minimum
  // alignment: the builder's buffer end, and so the message, stays 8-aligned in an 8-aligned chunk).
  const size_t guess = std::max<size_t>(1024, last_message_size + last_message_size / 8 + 256);
  return (guess + 7) & ~size_t{7};
}

}  // namespace limbic::bus
