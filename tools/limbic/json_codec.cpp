#include "tools/limbic/json_codec.hpp"

#include <span>
#include <stdexcept>
#include <string_view>
#include <utility>

#include "common/bus/bus.hpp"
#include "services/affect/affect_ids.hpp"

namespace limbic::cli {

JsonCodec::JsonCodec() {
  auto schema = messages::BinarySchema();
  schema_.assign(schema.begin(), schema.end());
}

flatbuffers::Parser& JsonCodec::ParserFor(const messages::MessageType& type) {
  // A fresh parser per call: flatbuffers::Parser keeps state between parses.
  static thread_local std::unique_ptr<flatbuffers::Parser> parser;
  flatbuffers::IDLOptions options;
  options.strict_json = true;
  options.output_default_scalars_in_json = true;
  options.allow_non_utf8 = true;  // the verifier accepts any bytes in a string; show them, escaped
  parser = std::make_unique<flatbuffers::Parser>(options);
  if (!parser->Deserialize(schema_.data(), schema_.size())) {
    throw std::runtime_error("the embedded binary schema does not load: " + parser->error_);
  }
  if (!parser->SetRootType(type.name)) throw std::runtime_error(std::string("schema has no type ") + type.name);
  parser->file_identifier_ = type.identifier;
  return *parser;
}

std::string JsonCodec::ToJson(const messages::MessageType& type, const uint8_t* data, size_t, bool compact) {
  flatbuffers::Parser& parser = ParserFor(type);
  parser.opts.indent_step = compact ? -1 : 2;
  std::string text;
  if (!flatbuffers::GenerateText(parser, data, &text)) throw std::runtime_error("cannot render message as JSON");
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
  return text;
}

std::vector<uint8_t> JsonCodec::FromJson(const messages::MessageType& type, const std::string& json, uint64_t seq,
                                         const std::string& source, uint64_t incarnation, bool latched) {
  std::string text = json;
  const auto brace = text.find('{');
  if (brace == std::string::npos) throw std::invalid_argument("bad JSON: expected an object {...}");
  // Does the object itself have a "header" key? (Not merely the word inside some string value.)
  bool has_header = false;
  {
    int depth = 0;
    bool in_string = false;
    for (size_t i = brace; i < text.size(); ++i) {
      const char c = text[i];
      if (in_string) {
        if (c == '\\')
          ++i;
        else if (c == '"')
          in_string = false;
        continue;
      }
      if (c == '{' || c == '[')
        ++depth;
      else if (c == '}' || c == ']')
        --depth;
      else if (c == '"') {
        if (depth == 1 && text.compare(i, 8, "\"header\"") == 0) has_header = true;
        in_string = true;
      }
    }
  }
  if (!has_header) {
    const std::string header = "\"header\": {\"stamp_ns\": " + std::to_string(bus::Node::WallNowNs()) +
                               ", \"seq\": " + std::to_string(seq) + ", \"source\": \"" + source +
                               "\", \"incarnation\": " + std::to_string(incarnation) +
                               ", \"latched\": " + (latched ? "true" : "false") + "}";
    const auto first_non_space = text.find_first_not_of(" \t\r\n", brace + 1);
    const bool empty_object = first_non_space != std::string::npos && text[first_non_space] == '}';
    text.insert(brace + 1, header + (empty_object ? "" : ", "));
  }
  flatbuffers::Parser& parser = ParserFor(type);
  if (!parser.ParseJson(text.c_str())) {
    std::string error = parser.error_;
    const auto pos = error.find("error: ");
    if (pos != std::string::npos) error = error.substr(pos + 7);
    throw std::invalid_argument("bad JSON for " + std::string(type.name) + ": " + error);
  }
  std::vector<uint8_t> bytes(parser.builder_.GetBufferPointer(),
                             parser.builder_.GetBufferPointer() + parser.builder_.GetSize());
  if (!type.verify(bytes.data(), bytes.size())) throw std::invalid_argument("the JSON does not make a valid message");
  return bytes;
}

namespace {

// AffectState's arrays by field name (messages/affect/affect_state.fbs gives the same orders).
std::span<const std::string_view> AffectArrayNames(std::string_view field) {
  if (field.rfind("stimuli_", 0) == 0) return affect::kStimulusNames;
  if (field.rfind("emotions_", 0) == 0) return affect::kEmotionNames;
  if (field == "moods" || field == "moods_used") return affect::kMoodNames;
  if (field == "drives" || field == "drives_emotional") return affect::kDriveNames;
  return {};
}

}  // namespace

std::string NameArrayElements(const messages::MessageType& type, const std::string& json) {
  if (std::string_view(type.name) != "limbic.msg.AffectState") return json;
  std::string out;
  size_t pos = 0;
  while (pos < json.size()) {
    // Next `"field": [` (GenerateText writes keys quoted in strict JSON, then ": ").
    const size_t open = json.find(": [", pos);
    if (open == std::string::npos) break;
    const size_t key_end = json.rfind('"', open);
    const size_t key_start =
        key_end == std::string::npos || key_end == 0 ? std::string::npos : json.rfind('"', key_end - 1);
    const size_t close = json.find(']', open);
    if (key_start == std::string::npos || close == std::string::npos) break;
    const std::string_view field(json.data() + key_start + 1, key_end - key_start - 1);
    const auto names = AffectArrayNames(field);
    // The numbers as GenerateText wrote them (no nested arrays in these fields).
    std::vector<std::string> values;
    std::string item;
    for (size_t i = open + 3; i < close; ++i) {
      const char c = json[i];
      if (c == ',') {
        values.push_back(item);
        item.clear();
      } else if (c != ' ' && c != '\n' && c != '\r' && c != '\t') {
        item += c;
      }
    }
    if (!item.empty()) values.push_back(item);
    out.append(json, pos, open + 2 - pos);
    if (!names.empty() && values.size() == names.size()) {
      out += "{";
      for (size_t i = 0; i < values.size(); ++i) {
        out += (i ? ", \"" : "\"") + std::string(names[i]) + "\": " + values[i];
      }
      out += "}";
    } else {
      out.append(json, open + 2, close + 1 - (open + 2));
    }
    pos = close + 1;
  }
  out.append(json, std::min(pos, json.size()), std::string::npos);
  return out;
}

}  // namespace limbic::cli
