// Bus messages -> the derived channels' inputs. The only file of the bridge's library that sees
// FlatBuffers.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "services/foxglove/derived.hpp"

namespace limbic::foxglove {

// Converts a verified message that `route` says feeds a derived channel and returns what to
// publish. `data` must already be verified as the route's type (the bus does that).
std::vector<DerivedMessage> Derive(DerivedChannels& derived, const Route& route, const uint8_t* data, int64_t stamp_ns,
                                   double now_s);

// For recorders (`limbic record --derived`): one recorded bus message in, the derived Foxglove
// messages it yields out, each with what an MCAP channel needs to carry it. The encodings are the
// pair Foxglove and the MCAP spec's well-known encodings name for JSON: message encoding "json",
// schema encoding "jsonschema" with the same JSON Schema the live bridge advertises. Throttling
// (grids at most once a period) runs on the message's log time, not a clock: the same recording
// gets the same derived messages however fast it is written.
class RecordingDeriver {
 public:
  struct Output {
    DerivedMessage message;
    const std::string& json_schema;  // JsonSchemaFor(message.schema_name)
    static constexpr const char* kSchemaEncoding = "jsonschema";
    static constexpr const char* kMessageEncoding = "json";
  };

  explicit RecordingDeriver(DerivedOptions options = {}) : derived_(std::move(options)) {}
  // `data` must be a verified limbic message (what the bus delivers). Messages that feed no derived
  // channel yield nothing.
  std::vector<Output> OnMessage(const std::string& topic, const uint8_t* data, size_t size, uint64_t log_time_ns);
  const DerivedChannels& derived() const { return derived_; }

 private:
  DerivedChannels derived_;
};

}  // namespace limbic::foxglove
