#include "tools/bag/bag_derived.hpp"

namespace limbic::bag {

void DerivedRecorder::OnRecorded(const std::string& topic, const uint8_t* data, size_t size, uint64_t log_time_ns) {
  using Output = foxglove::RecordingDeriver::Output;
  for (const auto& out : deriver_.OnMessage(topic, data, size, log_time_ns)) {
    auto schema = schemas_.find(out.message.schema_name);
    if (schema == schemas_.end()) {
      schema = schemas_
                   .emplace(out.message.schema_name,
                            BagWriter::OtherSchema{.name = out.message.schema_name,
                                                   .encoding = Output::kSchemaEncoding,
                                                   .data = {out.json_schema.begin(), out.json_schema.end()}})
                   .first;
    }
    const std::string& json = out.message.json;
    writer_.WriteOther(out.message.topic, schema->second, Output::kMessageEncoding,
                       std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(json.data()), json.size()),
                       log_time_ns, log_time_ns);
    ++written_;
  }
}

}  // namespace limbic::bag
