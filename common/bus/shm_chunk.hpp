// The parts of the shared-memory transport (shm.hpp) that need no daemon: building a FlatBuffer straight into
// loaned chunks, and reading a received chunk's framing. Plain code with unit tests (shm_chunk_test.cpp).
//
// A FlatBufferBuilder builds back to front, so a finished message sits at the end of the memory it was given,
// with unused space before it. The publisher writes where it starts and how long it is into a small header
// beside the payload (iceoryx's user header, ShmFrame), and the receiver checks that header against the chunk
// before the message's bytes are verified where they lie.
#pragma once

#include <flatbuffers/flatbuffers.h>

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>

namespace limbic::bus {

// Thrown by a ChunkSource that cannot lend memory of the size asked (the pools are exhausted or have no chunk
// that large). The node catches it and sends that message over the socket path instead (counted).
class ShmLoanError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Where chunks come from (iceoryx's publisher; a fake in tests).
class ChunkSource {
 public:
  virtual ~ChunkSource() = default;
  // Memory for at least `size` bytes, aligned to 8; throws ShmLoanError.
  virtual uint8_t* Loan(size_t size) = 0;
  // Gives back a chunk that will not be published (a builder that grew out of it, or a message not sent).
  virtual void Release(uint8_t* chunk) = 0;
};

// A flatbuffers::Allocator over loaned chunks: the builder's buffer is a chunk, and growing it loans a larger
// one (flatbuffers copies the bytes built so far across) and releases the smaller. A builder destroyed with its
// buffer releases the chunk; FlatBufferBuilder::ReleaseRaw hands it over for publishing instead.
class ChunkAllocator final : public flatbuffers::Allocator {
 public:
  explicit ChunkAllocator(ChunkSource& source) : source_(&source) {}
  uint8_t* allocate(size_t size) override;
  void deallocate(uint8_t* p, size_t size) override;
  int loans() const { return loans_; }  // per message: 1 when the first guess of the size was large enough

 private:
  ChunkSource* source_;
  int loans_ = 0;
};

// The user header of every limbic chunk: where in the chunk's payload the message lies.
struct ShmFrame {
  static constexpr uint32_t kMagic = 0x4853424cu;  // "LBSH" little-endian: a chunk written by limbic
  uint32_t magic = kMagic;
  uint32_t offset = 0;  // from the start of the payload to the message's first byte
  uint32_t size = 0;    // the message's bytes
  uint32_t reserved = 0;
};

// A received chunk's message, or why it cannot be read (`error` non-null; counted as malformed).
struct ChunkView {
  const uint8_t* data = nullptr;
  size_t size = 0;
  const char* error = nullptr;
};
// Checks the user header (present, limbic's, inside the payload) and points at the message in place.
ChunkView ReadChunk(const uint8_t* payload, size_t payload_size, const void* user_header, size_t user_header_size);

// The size to ask for first, from the last message's size on this topic: a little more, so the next one fits
// the first chunk in the usual case (each extra loan costs a copy of what was built).
size_t InitialChunkSize(size_t last_message_size);

}  // namespace limbic::bus
