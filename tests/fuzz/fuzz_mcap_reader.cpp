// libFuzzer target: arbitrary bytes as an MCAP file through mcap::Reader (issue 17 item 3) — the
// summary (footer, summary CRC, schemas, channels, statistics, chunk indexes) and a full pass over
// the data section (chunks decompressed with zstd or lz4, CRCs checked, every message byte read).
// Damage is an expected outcome: a FormatError whose message names a byte offset inside the file. A
// crash, a sanitizer report, an allocation the input cannot justify (-rss_limit_mb), any other
// exception, or an error pointing past the end of the file is a bug.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <span>
#include <string>

#include "common/mcap/reader.hpp"

namespace {

volatile uint64_t g_sink = 0;

void CheckError(const limbic::mcap::FormatError& e, size_t size, const char* where) {
  const std::string what = e.what();
  if (e.offset() > size || what.rfind("at byte " + std::to_string(e.offset()) + ": ", 0) != 0) {
    std::fprintf(stderr, "fuzz_mcap_reader: %s error does not name an offset in the %zu-byte file: %s\n", where, size,
                 what.c_str());
    std::abort();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace limbic::mcap;
  try {
    Reader reader(std::span<const uint8_t>(data, size), "fuzz.mcap");
    if (reader.summary_error()) CheckError(*reader.summary_error(), size, "summary");
    if (const auto& summary = reader.summary()) {
      uint64_t sum = summary->chunk_indexes.size();
      for (const auto& [id, schema] : summary->schemas) sum += id + schema.data.size() + schema.name.size();
      for (const auto& [id, channel] : summary->channels) sum += id + channel.topic.size() + channel.metadata.size();
      g_sink = g_sink + sum;
    }
    const ScanResult result = reader.ReadMessages([&](const MessageView& m) {
      uint64_t sum = m.log_time ^ m.publish_time ^ m.channel.topic.size();
      for (const uint8_t b : m.data) sum += b;  // every byte a consumer could read
      g_sink = g_sink + sum;
      return true;
    });
    if (result.error) CheckError(*result.error, size, "data");
    if (result.complete == result.error.has_value()) {
      std::fprintf(stderr, "fuzz_mcap_reader: a pass is either complete or stopped by an error\n");
      std::abort();
    }
  } catch (const FormatError& e) {
    CheckError(e, size, "open");  // no magic or no Header: refused at once
  }
  return 0;
}
