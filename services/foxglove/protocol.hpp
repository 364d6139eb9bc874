// The Foxglove WebSocket protocol (subprotocol foxglove.websocket.v1) as plain data: the JSON text
// messages a server sends, the client requests it accepts, and the binary frames both ways. No
// socket here: ws_server.cpp moves the bytes, bridge.cpp decides what to send.
//
// Protocol reference: github.com/foxglove/ws-protocol, docs/spec.md (JSON messages: serverInfo,
// status, advertise, unadvertise; client: subscribe, unsubscribe, advertise, unadvertise; binary:
// 0x01 message data = opcode, uint32 subscription id, uint64 receive time ns, payload,
// little-endian; client 0x01 = opcode, uint32 client channel id, payload).
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <variant>
#include <vector>

namespace limbic::foxglove {

inline constexpr const char* kSubprotocol = "foxglove.websocket.v1";

// A request the bridge cannot act on; the message names what was wrong (sent back as a status).
class ProtocolError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// One server channel as advertised.
struct Channel {
  uint32_t id = 0;
  std::string topic;
  std::string encoding;         // "flatbuffer" (native bus messages) or "json" (derived Foxglove schemas)
  std::string schema_name;      // "limbic.msg.Odometry", "foxglove.Grid"
  std::string schema;           // base64 of the .bfbs, or a JSON schema
  std::string schema_encoding;  // "flatbuffer" or "jsonschema"
};

enum class StatusLevel { kInfo = 0, kWarning = 1, kError = 2 };

std::string ServerInfoJson(const std::string& name, const std::vector<std::string>& capabilities,
                           const std::vector<std::string>& supported_encodings, const std::string& session_id);
std::string AdvertiseJson(const std::vector<Channel>& channels);
std::string UnadvertiseJson(const std::vector<uint32_t>& channel_ids);
std::string StatusJson(StatusLevel level, const std::string& message);

// Binary Message Data frame (opcode 0x01).
std::vector<uint8_t> MessageDataFrame(uint32_t subscription_id, uint64_t receive_time_ns, const uint8_t* payload,
                                      size_t size);

// Client text requests.
struct Subscription {
  uint32_t id = 0;
  uint32_t channel_id = 0;
};
struct SubscribeRequest {
  std::vector<Subscription> subscriptions;
};
struct UnsubscribeRequest {
  std::vector<uint32_t> subscription_ids;
};
struct ClientChannel {
  uint32_t id = 0;
  std::string topic;
  std::string encoding;
  std::string schema_name;
};
struct ClientAdvertiseRequest {
  std::vector<ClientChannel> channels;
};
struct ClientUnadvertiseRequest {
  std::vector<uint32_t> channel_ids;
};
using ClientRequest =
    std::variant<SubscribeRequest, UnsubscribeRequest, ClientAdvertiseRequest, ClientUnadvertiseRequest>;

// Parses one client text message. Throws ProtocolError for bad JSON, a missing or mistyped field,
// an id outside uint32 or an op the bridge does not implement (named in the message).
ClientRequest ParseClientText(const std::string& text);

// Client Message Data (opcode 0x01): the client channel id and the payload (a view into `frame`).
struct ClientMessage {
  uint32_t channel_id = 0;
  const uint8_t* data = nullptr;
  size_t size = 0;
};
// Throws ProtocolError for an empty or short frame or an unknown opcode.
ClientMessage ParseClientBinary(const uint8_t* frame, size_t size);

// RFC 4648 base64 with padding (schemas, Grid data).
std::string Base64(const uint8_t* data, size_t size);

}  // namespace limbic::foxglove
