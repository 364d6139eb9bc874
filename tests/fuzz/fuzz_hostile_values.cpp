// libFuzzer target (issue 15, item 7): semantically hostile messages — well-formed FlatBuffers carrying
// NaN, ±inf, huge and negative values, empty and mis-sized vectors, out-of-range ids — built by
// tests/testing/hostile_messages and then mutated in place (the fuzzer's bytes overwrite bytes of the
// built buffer; only buffers that still verify go on). Each is run through the value rules
// (messages/validate.cpp) and, when they accept it, through the services' conversion code.
// Crashes: a hostile message as built that the rules accept; an accepted message holding a non-finite
// number (checked through the schema, independently of the rules); any sanitizer report in the rules or
// the conversions.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "common/convert/convert.hpp"
#include "messages/validate.hpp"
#include "services/affect/convert.hpp"
#include "services/mapper/convert.hpp"
#include "tests/testing/finite_scan.hpp"
#include "tests/testing/hostile_messages.hpp"

namespace {

using limbic::messages::MessageType;
volatile double g_sink = 0;

[[noreturn]] void Fail(const char* what, const MessageType& type, const std::string& detail) {
  std::fprintf(stderr, "fuzz_hostile_values: %s (%s): %s\n", what, type.name, detail.c_str());
  std::abort();
}

// What the services do with an accepted message of each type they consume.
void Convert(const MessageType& type, const uint8_t* data) {
  namespace msg = limbic::msg;
  namespace convert = limbic::convert;
  const std::string_view id = type.identifier;
  if (id == "CPAR") {
    const auto p = convert::FromMsg(*flatbuffers::GetRoot<msg::ControlParams>(data));
    limbic::ValidateParameters(p);  // the rules promised this passes: throws (a crash here) if not
    g_sink = g_sink + p.n_theta;
  } else if (id == "PATH") {
    g_sink = g_sink + convert::FromMsg(*flatbuffers::GetRoot<msg::Path>(data)).nodes.size();
  } else if (id == "MSTA") {
    g_sink = g_sink + convert::FromMsg(*flatbuffers::GetRoot<msg::MapStats>(data)).density;
  } else if (id == "GOAL") {
    g_sink = g_sink + convert::FromMsg(*flatbuffers::GetRoot<msg::NavGoal>(data)).goal.x();
  } else if (id == "COLL") {
    g_sink = g_sink + convert::FromMsg(*flatbuffers::GetRoot<msg::CollisionEvent>(data)).sensor_ids.size();
  } else if (id == "ODOM") {
    g_sink = g_sink + convert::FromMsg(*flatbuffers::GetRoot<msg::Odometry>(data)).pose.x;
  } else if (id == "WRLD") {
    g_sink = g_sink + convert::FromMsg(*flatbuffers::GetRoot<msg::WorldGeometry>(data)).polygons.size();
  } else if (id == "SCAN" || id == "RAWR") {
    limbic::RangeScan scan;
    convert::BeamsFromMsg(id == "SCAN" ? flatbuffers::GetRoot<msg::RangeScan>(data)->beams()
                                       : flatbuffers::GetRoot<msg::RawRanges>(data)->beams(),
                          &scan);
    g_sink = g_sink + scan.beams.size();
  } else if (id == "GPAT") {
    g_sink = g_sink + limbic::mapper::PatchFromMsg(*flatbuffers::GetRoot<msg::GridPatch>(data)).cells.size();
  } else if (id == "GMAP") {
    const auto snapshot = limbic::mapper::SnapshotFromMsg(*flatbuffers::GetRoot<msg::GridMap>(data));
    snapshot.maps.Validate();
    g_sink = g_sink + snapshot.maps.p_o.size();
  } else if (id == "AFSN") {
    const auto* m = flatbuffers::GetRoot<msg::AffectSnapshot>(data);
    limbic::geometry::GridSpec grid;
    if (m->info()) grid = convert::FromMsg(*m->info());
    std::string why;
    g_sink = g_sink + (limbic::affect::SnapshotFromMsg(*m, "affective", grid, &why) ? 1 : 0);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 3) return 0;
  static const std::vector<const MessageType*> types = [] {
    std::vector<const MessageType*> out;
    for (const MessageType& t : limbic::messages::AllTypes()) {
      if (limbic::testing::HostileVariants(t) > 0) out.push_back(&t);
    }
    return out;
  }();
  const MessageType& type = *types[data[0] % types.size()];
  uint64_t noise = 0;
  std::memcpy(&noise, data + 1, std::min<size_t>(8, size - 1));
  std::vector<uint8_t> bytes = limbic::testing::HostileMessage(type, data[1], {5, 1, "fuzz", 7}, noise);
  // As built, every hostile message must be refused.
  if (limbic::messages::VerifyAndValidate(type, bytes.data(), bytes.size()).empty()) {
    Fail("the rules accepted a hostile message as built", type, "variant " + std::to_string(data[1]));
  }
  // Mutations: (offset, byte) pairs from the rest of the input, into the body (after the identifier).
  for (size_t i = 9; i + 1 < size && bytes.size() > 8; i += 2)
    bytes[8 + data[i] * 7919u % (bytes.size() - 8)] = data[i + 1];
  const std::vector<uint8_t> copy(bytes);  // exact-size heap copy: ASan sees any read past the end
  if (!type.verify(copy.data(), copy.size())) return 0;
  if (!limbic::messages::ValidateValues(type, copy.data(), copy.size()).empty()) return 0;
  // Accepted: nothing non-finite may be in it, and the services' conversions must take it.
  if (const std::string bad = limbic::testing::FindNonFinite(type, copy.data()); !bad.empty()) {
    Fail("the rules accepted a non-finite number", type, bad);
  }
  try {
    Convert(type, copy.data());
  } catch (const std::exception& e) {
    // Conversions may refuse with an exception the host turns into a step error; only parameters are
    // promised to pass.
    if (std::string_view(type.identifier) == "CPAR")
      Fail("accepted parameters fail ValidateParameters", type, e.what());
  }
  return 0;
}
