// Derived Foxglove channels in a recording (`limbic record --derived`): for each recorded bus
// message, the channels the Foxglove bridge derives from it (services/foxglove RecordingDeriver)
// are written beside it, message encoding "json" with schema encoding "jsonschema" (one of MCAP's
// well-known pairs, and what the live bridge advertises), so Foxglove shows a recording as it shows
// a live robot. Built only where the bridge is (nlohmann-json3-dev, libwebsocketpp-dev).
#pragma once

#include <cstdint>
#include <map>
#include <string>

#include "services/foxglove/convert.hpp"
#include "tools/bag/bag_writer.hpp"

namespace limbic::bag {

class DerivedRecorder {
 public:
  explicit DerivedRecorder(BagWriter& writer, foxglove::DerivedOptions options = {})
      : writer_(writer), deriver_(std::move(options)) {}
  // Call after writer.Write(topic, ...) with the same verified message; writes what it derives.
  void OnRecorded(const std::string& topic, const uint8_t* data, size_t size, uint64_t log_time_ns);
  uint64_t derived_messages() const { return written_; }

 private:
  BagWriter& writer_;
  foxglove::RecordingDeriver deriver_;
  std::map<std::string, BagWriter::OtherSchema> schemas_;  // by schema name, built once each
  uint64_t written_ = 0;
};

}  // namespace limbic::bag
