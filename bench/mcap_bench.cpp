// MCAP writer throughput for 1 KiB messages — uncompressed, zstd and lz4 — against writing the same
// bytes to the same disk with plain write(2) in the same run (issue 17: within 2× uncompressed).
//
//   build/bench/mcap_bench [--benchmark_repetitions=5]
//
// Each iteration writes kMessages messages through mcap::Writer into a file (chunks of 1 MiB, every
// CRC), then the same payload bytes with write(2) in 1 MiB blocks into another file, and fsyncs
// neither (both measure the path to the page cache, which is what a recorder competes with). The
// counters: writer MB/s of payload, plain MB/s, and ratio = writer time / plain time.
#include <benchmark/benchmark.h>
#include <fcntl.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <filesystem>
#include <random>
#include <vector>

#include "common/mcap/writer.hpp"

namespace {

constexpr int kMessages = 20000;
constexpr size_t kSize = 1024;

// Payloads like limbic's: structured numbers with noise (compressible, but not trivially).
std::vector<std::vector<uint8_t>> Payloads() {
  std::mt19937 rng(1);
  std::normal_distribution<double> noise(0.0, 0.05);
  std::vector<std::vector<uint8_t>> out(256, std::vector<uint8_t>(kSize));
  for (size_t k = 0; k < out.size(); ++k) {
    for (size_t i = 0; i + sizeof(double) <= kSize; i += sizeof(double)) {
      const double v = 1.5 + 0.01 * static_cast<double>(i % 64) + noise(rng);
      std::memcpy(out[k].data() + i, &v, sizeof(v));
    }
  }
  return out;
}

void BM_McapWriter(benchmark::State& state) {
  const auto compression = static_cast<limbic::mcap::Compression>(state.range(0));
  const auto payloads = Payloads();
  const auto dir = std::filesystem::temp_directory_path();
  const std::string mcap_path = (dir / ("mcap_bench_" + std::to_string(::getpid()) + ".mcap")).string();
  const std::string plain_path = (dir / ("mcap_bench_" + std::to_string(::getpid()) + ".bin")).string();
  double writer_s = 0, plain_s = 0;
  uint64_t file_bytes = 0;
  for (auto _ : state) {
    auto t0 = std::chrono::steady_clock::now();
    {
      limbic::mcap::Writer w(mcap_path, {.compression = compression});
      const uint16_t schema = w.AddSchema("bench.Payload", "flatbuffer", {});
      const uint16_t channel = w.AddChannel(schema, "bench", "flatbuffer");
      for (int i = 0; i < kMessages; ++i) {
        w.Write({.channel_id = channel,
                 .sequence = static_cast<uint32_t>(i),
                 .log_time = uint64_t(i) * 1000,
                 .publish_time = uint64_t(i) * 1000,
                 .data = payloads[static_cast<size_t>(i) % payloads.size()]});
      }
      w.Close();
      file_bytes = w.bytes_written();
    }
    auto t1 = std::chrono::steady_clock::now();
    {
      const int fd = ::open(plain_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
      std::vector<uint8_t> block;
      block.reserve(1u << 20);
      for (int i = 0; i < kMessages; ++i) {
        const auto& p = payloads[static_cast<size_t>(i) % payloads.size()];
        block.insert(block.end(), p.begin(), p.end());
        if (block.size() >= (1u << 20) || i + 1 == kMessages) {
          if (::write(fd, block.data(), block.size()) != static_cast<ssize_t>(block.size()))
            state.SkipWithError("write");
          block.clear();
        }
      }
      ::close(fd);
    }
    auto t2 = std::chrono::steady_clock::now();
    const double w = std::chrono::duration<double>(t1 - t0).count();
    writer_s += w;
    plain_s += std::chrono::duration<double>(t2 - t1).count();
    state.SetIterationTime(w);
  }
  const double bytes = static_cast<double>(kMessages) * kSize * static_cast<double>(state.iterations());
  state.counters["writer_MB/s"] = bytes / writer_s / 1e6;
  state.counters["plain_MB/s"] = bytes / plain_s / 1e6;
  state.counters["ratio"] = writer_s / plain_s;
  state.counters["file_ratio"] = static_cast<double>(file_bytes) / (static_cast<double>(kMessages) * kSize);
  std::filesystem::remove(mcap_path);
  std::filesystem::remove(plain_path);
}

BENCHMARK(BM_McapWriter)
    ->ArgName("compression(0=none,1=zstd,2=lz4)")
    ->Arg(static_cast<int>(limbic::mcap::Compression::kNone))
    ->Arg(static_cast<int>(limbic::mcap::Compression::kZstd))
    ->Arg(static_cast<int>(limbic::mcap::Compression::kLz4))
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
