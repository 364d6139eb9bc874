// Message <-> JSON through the binary schema (limbic.bfbs), for `limbic echo` and `limbic pub`.
#pragma once

#include <flatbuffers/idl.h>

#include <memory>
#include <string>
#include <vector>

#include "messages/messages.hpp"

namespace limbic::cli {

class JsonCodec {
 public:
  JsonCodec();
  // A verified message as JSON (one line if `compact`).
  std::string ToJson(const messages::MessageType& type, const uint8_t* data, size_t size, bool compact);
  // Parses JSON for `type` into a finished, verified buffer. Fills in the header (stamp now, `seq`,
  // `source`, `incarnation`) when the JSON has none. Throws std::invalid_argument with the parser's
  // message on bad JSON.
  std::vector<uint8_t> FromJson(const messages::MessageType& type, const std::string& json, uint64_t seq,
                                const std::string& source, uint64_t incarnation, bool latched);

 private:
  flatbuffers::Parser& ParserFor(const messages::MessageType& type);
  std::vector<uint8_t> schema_;
};

// `json` (ToJson of a message of `type`) with each array whose elements the model names — AffectState's
// stimuli, emotions, moods and drives, in the fixed orders of services/affect/affect_ids.hpp, the names
// the metrics label them with — written as an object {"anger": 0.1, ...} (issue 22 item 5). Arrays of
// another length, and other types, are left as they are.
std::string NameArrayElements(const messages::MessageType& type, const std::string& json);

}  // namespace limbic::cli
