// libFuzzer target: arbitrary text into JsonCodec::FromJson (`limbic pub`). Byte 0 picks the message type
// (index into messages::AllTypes(), modulo their count), the rest is the JSON. A parse error is an
// expected outcome; a crash, a returned buffer that does not verify, or a returned buffer whose JSON
// rendering cannot be parsed back (echo | pub must round-trip) is a bug.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <string>

#include "messages/messages.hpp"
#include "tests/fuzz/fuzz_support.hpp"
#include "tools/limbic/json_codec.hpp"

namespace {
volatile uint64_t g_sink = 0;
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static limbic::cli::JsonCodec* codec = new limbic::cli::JsonCodec();
  if (size < 1) return 0;
  const auto types = limbic::messages::AllTypes();
  const auto& type = types[data[0] % types.size()];
  const std::string json(reinterpret_cast<const char*>(data) + 1, size - 1);
  std::vector<uint8_t> bytes;
  try {
    bytes = codec->FromJson(type, json, /*seq=*/1, "fuzz", /*incarnation=*/1, /*latched=*/false);
  } catch (const std::invalid_argument&) {
    return 0;  // bad JSON: reported to the user, not a crash
  }
  if (!type.verify(bytes.data(), bytes.size())) {
    std::fprintf(stderr, "fuzz_json_codec: FromJson returned a buffer that does not verify (%s)\n", type.name);
    std::abort();
  }
  g_sink = g_sink + limbic::fuzz::WalkVerified(type, bytes.data(), bytes.size());
  const std::string text = codec->ToJson(type, bytes.data(), bytes.size(), /*compact=*/true);
  try {
    const auto again = codec->FromJson(type, text, 1, "fuzz", 1, false);
    g_sink = g_sink + again.size();
  } catch (const std::invalid_argument& e) {
    std::fprintf(stderr, "fuzz_json_codec: ToJson output does not parse back (%s): %s\nJSON: %s\n", type.name, e.what(),
                 text.c_str());
    std::abort();
  }
  return 0;
}
