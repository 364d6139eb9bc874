// The Foxglove bridge's decisions, without a socket or a bus: which channels exist (native bus
// topics with their FlatBuffers schema, derived Foxglove-schema channels), what each client asked
// for, what is sent to whom, which client is too slow, and what a client may publish. wiring.cpp
// feeds it bus messages and WebSocket events; a ClientTransport (the WebSocket server, or a fake in
// tests) carries the bytes.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "services/foxglove/channels.hpp"
#include "services/foxglove/derived.hpp"
#include "services/foxglove/protocol.hpp"

namespace limbic::foxglove {

using ClientId = uint64_t;

class ClientTransport {
 public:
  virtual ~ClientTransport() = default;
  virtual bool SendText(ClientId client, const std::string& text) = 0;
  virtual bool SendBinary(ClientId client, const uint8_t* data, size_t size) = 0;
  virtual size_t Buffered(ClientId client) const = 0;
  virtual void Drop(ClientId client, const std::string& reason) = 0;
};

struct BridgeOptions {
  std::string name = "limbic-foxglove";
  std::string session_id;
  SendBudget::Options budget;
  size_t max_channels = 4096;
  size_t max_clients = 16;
  bool client_publish = true;
};

struct BridgeStats {
  uint64_t clients_accepted = 0;
  uint64_t clients_refused = 0;       // over max_clients
  uint64_t clients_dropped_slow = 0;  // stopped reading
  uint64_t messages_sent = 0;
  uint64_t bytes_sent = 0;
  uint64_t messages_skipped = 0;  // a client's queue was full
  uint64_t bad_requests = 0;      // answered with an error status
  uint64_t client_messages_published = 0;
};

class Bridge {
 public:
  // Client publishing: `accept` says why a client channel cannot be published ("" = accepted);
  // `publish` publishes one message and says why it could not ("" = published).
  using AcceptFn = std::function<std::string(const ClientChannel&)>;
  using PublishFn = std::function<std::string(const ClientChannel&, const uint8_t*, size_t)>;

  // `native_schema`: the advertised schema of every native channel (base64 of limbic.bfbs), asked
  // for once.
  Bridge(BridgeOptions options, ClientTransport& transport, std::function<std::string()> native_schema,
         std::vector<std::string> publish_encodings = {}, AcceptFn accept = {}, PublishFn publish = {});

  void OnClientOpen(ClientId client);
  void OnClientClose(ClientId client);
  void OnClientText(ClientId client, const std::string& text);
  void OnClientBinary(ClientId client, const uint8_t* data, size_t size);

  // A verified bus message of type `schema_name` ("limbic.msg.Odometry"), stamped `stamp_ns`.
  void OnNative(const std::string& topic, const std::string& schema_name, const uint8_t* data, size_t size,
                int64_t stamp_ns, double now_s);
  void OnDerived(const DerivedMessage& message, int64_t stamp_ns, double now_s);

  const BridgeStats& stats() const { return stats_; }
  size_t client_count() const { return clients_.size(); }
  const ChannelTable& channels() const { return table_; }

 private:
  struct Client {
    ClientSession session;
    SendBudget budget;
  };
  uint32_t Ensure(const std::string& topic, const std::string& encoding, const std::string& schema_name,
                  const std::string& schema_encoding, const std::function<std::string()>& schema);
  void Broadcast(const std::string& text);
  void Forward(uint32_t channel_id, const uint8_t* data, size_t size, int64_t stamp_ns, double now_s);
  void Status(ClientId client, StatusLevel level, const std::string& message);

  BridgeOptions options_;
  ClientTransport& transport_;
  std::function<std::string()> native_schema_source_;
  std::optional<std::string> native_schema_;
  std::vector<std::string> publish_encodings_;
  AcceptFn accept_;
  PublishFn publish_;
  ChannelTable table_;
  std::map<ClientId, Client> clients_;
  BridgeStats stats_;
};

}  // namespace limbic::foxglove
