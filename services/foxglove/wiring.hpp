// Binds the bridge to a bus node and a WebSocket server: every verified bus message goes out on its
// native channel and, where it feeds one, on derived Foxglove channels; client requests come in
// from the server; client messages are published on the bus. Poll() does both sides' pending work
// without blocking.
#pragma once

#include <memory>
#include <string>

#include "common/bus/bus.hpp"
#include "services/foxglove/bridge.hpp"
#include "services/foxglove/derived.hpp"
#include "services/foxglove/ws_server.hpp"

namespace limbic::foxglove {

struct WiringOptions {
  WsServer::Options server;
  BridgeOptions bridge;
  DerivedOptions derived;
  std::string topics_prefix;  // only bus topics starting with this ("" = every topic)
  bool derived_channels = true;
  bool native_channels = true;
};

class Wiring {
 public:
  // Throws std::runtime_error when the server cannot listen.
  Wiring(bus::Node& node, WiringOptions options);
  ~Wiring();
  // Handles what arrived on the bus (up to `max_messages`) and on the sockets; returns bus messages
  // handled.
  int Poll(int max_messages = 1000);
  uint16_t port() const;
  const Bridge& bridge() const;
  const DerivedChannels& derived() const { return derived_; }

 private:
  class Transport;
  bus::Node& node_;
  WiringOptions options_;
  DerivedChannels derived_;
  std::unique_ptr<Transport> transport_;
  std::unique_ptr<Bridge> bridge_;
  std::unique_ptr<WsServer> server_;
  struct Codec;
  std::unique_ptr<Codec> codec_;
};

}  // namespace limbic::foxglove
