#include "services/foxglove/protocol.hpp"

#include <limits>
#include <nlohmann/json.hpp>

namespace limbic::foxglove {

using nlohmann::json;

std::string ServerInfoJson(const std::string& name, const std::vector<std::string>& capabilities,
                           const std::vector<std::string>& supported_encodings, const std::string& session_id) {
  json j = {{"op", "serverInfo"},
            {"name", name},
            {"capabilities", capabilities},
            {"sessionId", session_id},
            {"metadata", json::object()}};
  // Only meaningful (and only sent) when clients may publish.
  if (!supported_encodings.empty()) j["supportedEncodings"] = supported_encodings;
  return j.dump();
}

std::string AdvertiseJson(const std::vector<Channel>& channels) {
  json list = json::array();
  for (const auto& c : channels) {
    list.push_back({{"id", c.id},
                    {"topic", c.topic},
                    {"encoding", c.encoding},
                    {"schemaName", c.schema_name},
                    {"schema", c.schema},
                    {"schemaEncoding", c.schema_encoding}});
  }
  return json{{"op", "advertise"}, {"channels", list}}.dump();
}

std::string UnadvertiseJson(const std::vector<uint32_t>& channel_ids) {
  return json{{"op", "unadvertise"}, {"channelIds", channel_ids}}.dump();
}

std::string StatusJson(StatusLevel level, const std::string& message) {
  // Replace invalid UTF-8 (a topic name from a client) rather than throw.
  return json{{"op", "status"}, {"level", static_cast<int>(level)}, {"message", message}}.dump(
      -1, ' ', false, json::error_handler_t::replace);
}

namespace {

void PutLe(std::vector<uint8_t>& out, uint64_t value, int bytes) {
  for (int i = 0; i < bytes; ++i) out.push_back(static_cast<uint8_t>(value >> (8 * i)));
}

uint64_t GetLe(const uint8_t* p, int bytes) {
  uint64_t v = 0;
  for (int i = 0; i < bytes; ++i) v |= static_cast<uint64_t>(p[i]) << (8 * i);
  return v;
}

const json& Field(const json& j, const char* name, const char* op) {
  auto it = j.find(name);
  if (it == j.end()) throw ProtocolError(std::string("'") + op + "' without '" + name + "'");
  return *it;
}

uint32_t Id(const json& j, const char* what) {
  if (!j.is_number_integer() && !j.is_number_unsigned()) {
    throw ProtocolError(std::string(what) + " must be an integer, not " + j.dump());
  }
  if (j.is_number_unsigned() ? j.get<uint64_t>() > std::numeric_limits<uint32_t>::max()
                             : (j.get<int64_t>() < 0 || j.get<int64_t>() > std::numeric_limits<uint32_t>::max())) {
    throw ProtocolError(std::string(what) + " " + j.dump() + " is outside 0..4294967295");
  }
  return static_cast<uint32_t>(j.get<uint64_t>());
}

std::string Text(const json& j, const char* name, const char* op) {
  const json& v = Field(j, name, op);
  if (!v.is_string()) throw ProtocolError(std::string("'") + op + "': '" + name + "' must be a string");
  return v.get<std::string>();
}

const json& Array(const json& j, const char* name, const char* op) {
  const json& v = Field(j, name, op);
  if (!v.is_array()) throw ProtocolError(std::string("'") + op + "': '" + name + "' must be an array");
  return v;
}

}  // namespace

std::vector<uint8_t> MessageDataFrame(uint32_t subscription_id, uint64_t receive_time_ns, const uint8_t* payload,
                                      size_t size) {
  std::vector<uint8_t> frame;
  frame.reserve(13 + size);
  frame.push_back(0x01);
  PutLe(frame, subscription_id, 4);
  PutLe(frame, receive_time_ns, 8);
  frame.insert(frame.end(), payload, payload + size);
  return frame;
}

ClientRequest ParseClientText(const std::string& text) {
  const json j = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) throw ProtocolError("not JSON: " + text.substr(0, 80));
  if (!j.is_object()) throw ProtocolError("a request must be a JSON object");
  const std::string op = Text(j, "op", "request");
  if (op == "subscribe") {
    SubscribeRequest r;
    for (const auto& s : Array(j, "subscriptions", "subscribe")) {
      if (!s.is_object()) throw ProtocolError("'subscribe': each subscription must be an object");
      r.subscriptions.push_back(
          {Id(Field(s, "id", "subscribe"), "subscription id"), Id(Field(s, "channelId", "subscribe"), "channelId")});
    }
    return r;
  }
  if (op == "unsubscribe") {
    UnsubscribeRequest r;
    for (const auto& id : Array(j, "subscriptionIds", "unsubscribe"))
      r.subscription_ids.push_back(Id(id, "subscription id"));
    return r;
  }
  if (op == "advertise") {
    ClientAdvertiseRequest r;
    for (const auto& c : Array(j, "channels", "advertise")) {
      if (!c.is_object()) throw ProtocolError("'advertise': each channel must be an object");
      r.channels.push_back({Id(Field(c, "id", "advertise"), "channel id"), Text(c, "topic", "advertise"),
                            Text(c, "encoding", "advertise"),
                            c.contains("schemaName") ? Text(c, "schemaName", "advertise") : std::string()});
    }
    return r;
  }
  if (op == "unadvertise") {
    ClientUnadvertiseRequest r;
    for (const auto& id : Array(j, "channelIds", "unadvertise")) r.channel_ids.push_back(Id(id, "channel id"));
    return r;
  }
  throw ProtocolError("op '" + op + "' is not supported by limbic-foxglove");
}

ClientMessage ParseClientBinary(const uint8_t* frame, size_t size) {
  if (size == 0) throw ProtocolError("empty binary message");
  if (frame[0] != 0x01) throw ProtocolError("binary opcode " + std::to_string(frame[0]) + " is not supported");
  if (size < 5) throw ProtocolError("client message data of " + std::to_string(size) + " bytes has no channel id");
  return {static_cast<uint32_t>(GetLe(frame + 1, 4)), frame + 5, size - 5};
}

std::string Base64(const uint8_t* data, size_t size) {
  static constexpr char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  out.reserve((size + 2) / 3 * 4);
  size_t i = 0;
  for (; i + 2 < size; i += 3) {
    const uint32_t v = (uint32_t(data[i]) << 16) | (uint32_t(data[i + 1]) << 8) | data[i + 2];
    out += kAlphabet[v >> 18];
    out += kAlphabet[(v >> 12) & 63];
    out += kAlphabet[(v >> 6) & 63];
    out += kAlphabet[v & 63];
  }
  if (i < size) {
    const uint32_t v = (uint32_t(data[i]) << 16) | (i + 1 < size ? uint32_t(data[i + 1]) << 8 : 0);
    out += kAlphabet[v >> 18];
    out += kAlphabet[(v >> 12) & 63];
    out += i + 1 < size ? kAlphabet[(v >> 6) & 63] : '=';
    out += '=';
  }
  return out;
}

}  // namespace limbic::foxglove
