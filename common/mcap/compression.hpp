// Chunk compression for MCAP: zstd (a zstd frame) and lz4 (an LZ4 *frame*, as the spec requires),
// through Debian's libzstd and liblz4.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "common/mcap/mcap.hpp"

namespace limbic::mcap {

// Reusable compressor (keeps the zstd context between chunks). Not thread-safe.
class Compressor {
 public:
  explicit Compressor(Compression compression, int zstd_level = 1);
  ~Compressor();
  Compressor(const Compressor&) = delete;
  Compressor& operator=(const Compressor&) = delete;
  // Compresses `in` into `out` (replacing its contents). kNone copies.
  void Compress(std::span<const uint8_t> in, std::vector<uint8_t>* out);
  Compression compression() const { return compression_; }

 private:
  Compression compression_;
  int zstd_level_;
  void* zstd_ = nullptr;  // ZSTD_CCtx*
};

// Reusable decompressor: keeps the zstd and lz4 contexts between chunks (a fresh ZSTD_DCtx is ~100 KB
// allocated and initialised per 1 MiB chunk otherwise). Not thread-safe; one per reading thread.
class Decompressor {
 public:
  Decompressor() = default;
  ~Decompressor();
  Decompressor(const Decompressor&) = delete;
  Decompressor& operator=(const Decompressor&) = delete;
  // Decompresses a chunk whose records are `uncompressed_size` bytes into `out` (its capacity is
  // reused). `compression` is the record's string ("", "zstd", "lz4"). Throws std::runtime_error on
  // an unknown compression, corrupt data or a size that does not match; the decompressor stays
  // usable after that.
  void Decompress(const std::string& compression, std::span<const uint8_t> in, uint64_t uncompressed_size,
                  std::vector<uint8_t>* out);

 private:
  void* zstd_ = nullptr;  // ZSTD_DCtx*, made on first use
  void* lz4_ = nullptr;   // LZ4F_dctx*, made on first use
};

// One-off Decompressor::Decompress (a fresh context each call).
void Decompress(const std::string& compression, std::span<const uint8_t> in, uint64_t uncompressed_size,
                std::vector<uint8_t>* out);

}  // namespace limbic::mcap
