// libFuzzer target: every registered message type's verifier on arbitrary bytes. Whatever a verifier
// accepts must be safe to read in full: the schema-driven walk, messages::HeaderOf and the JSON renderer
// (`limbic echo`) all run on it (the renderer may refuse, with an exception, but not crash). A verifier accepting a
// buffer whose identifier is not its own, or the registry disagreeing with the verifiers, is a crash too.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <vector>

#include "messages/messages.hpp"
#include "tests/fuzz/fuzz_support.hpp"
#include "tools/limbic/json_codec.hpp"

namespace {

volatile uint64_t g_sink = 0;

void Fail(const char* what, const limbic::messages::MessageType& type) {
  std::fprintf(stderr, "fuzz_message_verify: %s (%s)\n", what, type.name);
  std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using limbic::messages::MessageType;
  static limbic::cli::JsonCodec* codec = new limbic::cli::JsonCodec();
  // An exact-size heap copy: ASan then reports any read past the end of the payload.
  std::vector<uint8_t> copy(data, data + size);
  const uint8_t* bytes = copy.data();
  const MessageType* by_identifier = limbic::messages::FindByIdentifier(limbic::messages::IdentifierOf(bytes, size));
  int accepted = 0;
  for (const MessageType& type : limbic::messages::AllTypes()) {
    if (!type.verify(bytes, size)) continue;
    ++accepted;
    if (by_identifier != &type) Fail("a verifier accepted a buffer with another identifier", type);
    g_sink = g_sink + limbic::fuzz::WalkVerified(type, bytes, size);
    g_sink = g_sink + limbic::fuzz::WalkHeader(bytes);
    try {
      const std::string json = codec->ToJson(type, bytes, size, /*compact=*/true);
      g_sink = g_sink + json.size();
    } catch (const std::runtime_error&) {
      // Expected today: ToJson refuses strings that are not UTF-8 (the verifier accepts any bytes), and
      // `limbic echo` survives it because Node::Dispatch catches handler exceptions. See the report.
    }
  }
  if (accepted > 1) std::abort();  // identifiers are unique, so at most one verifier can accept
  return 0;
}
