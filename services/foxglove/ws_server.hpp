// A WebSocket server for the Foxglove bridge over websocketpp (Debian's libwebsocketpp-dev) and
// standalone Asio, driven by Poll() from the bridge's own thread: no threads, no locks, no blocking
// send. This header shows no websocketpp or Asio type (websocketpp 0.8 builds only as C++17;
// ws_server.cpp is compiled so).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

namespace limbic::foxglove {

using ClientId = uint64_t;

class WsServer {
 public:
  struct Options {
    std::string host = "127.0.0.1";
    uint16_t port = 8765;  // 0: any free port (see port())
    std::string subprotocol = "foxglove.websocket.v1";
  };
  struct Callbacks {
    std::function<void(ClientId, const std::string& remote)> on_open;
    std::function<void(ClientId)> on_close;
    std::function<void(ClientId, const std::string& text)> on_text;
    std::function<void(ClientId, const uint8_t* data, size_t size)> on_binary;
  };

  // Listens at once. Throws std::runtime_error naming the address when it cannot (in use, bad
  // host).
  WsServer(Options options, Callbacks callbacks);
  ~WsServer();
  WsServer(const WsServer&) = delete;
  WsServer& operator=(const WsServer&) = delete;

  uint16_t port() const;
  // Runs every handler that is ready (accepts, reads, completed writes) and returns.
  void Poll();
  // Queues a frame; false when the client is gone. Never blocks.
  bool SendText(ClientId client, const std::string& text);
  bool SendBinary(ClientId client, const uint8_t* data, size_t size);
  // Bytes queued for the client and not yet handed to its socket.
  size_t Buffered(ClientId client) const;
  // Closes the connection (policy violation, with `reason`) and forgets the client: no more
  // callbacks for it.
  void Drop(ClientId client, const std::string& reason);
  size_t client_count() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace limbic::foxglove
