// Compiled as C++17 (websocketpp 0.8.2 does not build as C++20).
#include "services/foxglove/ws_server.hpp"

#include <map>
#include <stdexcept>
#include <websocketpp/config/asio_no_tls.hpp>
#include <websocketpp/server.hpp>

namespace limbic::foxglove {

namespace {
using Endpoint = websocketpp::server<websocketpp::config::asio>;
}

struct WsServer::Impl {
  Options options;
  Callbacks callbacks;
  Endpoint endpoint;
  std::map<ClientId, websocketpp::connection_hdl> clients;
  std::map<websocketpp::connection_hdl, ClientId, std::owner_less<websocketpp::connection_hdl>> ids;
  ClientId next_id = 1;
  uint16_t port = 0;

  Endpoint::connection_ptr Connection(ClientId client) const {
    auto it = clients.find(client);
    if (it == clients.end()) return nullptr;
    websocketpp::lib::error_code ec;
    auto con = const_cast<Endpoint&>(endpoint).get_con_from_hdl(it->second, ec);
    return ec ? nullptr : con;
  }
  void Forget(websocketpp::connection_hdl hdl) {
    auto it = ids.find(hdl);
    if (it == ids.end()) return;
    const ClientId id = it->second;
    clients.erase(id);
    ids.erase(it);
    if (callbacks.on_close) callbacks.on_close(id);
  }
};

WsServer::WsServer(Options options, Callbacks callbacks) : impl_(std::make_unique<Impl>()) {
  Impl& s = *impl_;
  s.options = std::move(options);
  s.callbacks = std::move(callbacks);
  s.endpoint.clear_access_channels(websocketpp::log::alevel::all);
  s.endpoint.clear_error_channels(websocketpp::log::elevel::all);
  s.endpoint.init_asio();
  s.endpoint.set_reuse_addr(true);
  // A dropped client's close handshake must not wait behind its full queue for long.
  s.endpoint.set_close_handshake_timeout(1000);
  // Client requests and published messages are small; websocketpp's default (32 MB) would let one
  // client make the bridge buffer that much.
  s.endpoint.set_max_message_size(4u << 20);
  // Foxglove requires the subprotocol; a client that does not offer it is refused during the
  // handshake.
  s.endpoint.set_validate_handler([this](websocketpp::connection_hdl hdl) {
    auto con = impl_->endpoint.get_con_from_hdl(hdl);
    for (const auto& p : con->get_requested_subprotocols()) {
      if (p == impl_->options.subprotocol) {
        con->select_subprotocol(p);
        return true;
      }
    }
    con->set_status(websocketpp::http::status_code::bad_request);
    con->set_body("limbic-foxglove speaks the WebSocket subprotocol " + impl_->options.subprotocol + "\n");
    return false;
  });
  s.endpoint.set_open_handler([this](websocketpp::connection_hdl hdl) {
    const ClientId id = impl_->next_id++;
    impl_->clients[id] = hdl;
    impl_->ids[hdl] = id;
    std::string remote;
    if (auto con = impl_->endpoint.get_con_from_hdl(hdl)) remote = con->get_remote_endpoint();
    if (impl_->callbacks.on_open) impl_->callbacks.on_open(id, remote);
  });
  s.endpoint.set_close_handler([this](websocketpp::connection_hdl hdl) { impl_->Forget(hdl); });
  s.endpoint.set_fail_handler([this](websocketpp::connection_hdl hdl) { impl_->Forget(hdl); });
  s.endpoint.set_message_handler([this](websocketpp::connection_hdl hdl, Endpoint::message_ptr msg) {
    auto it = impl_->ids.find(hdl);
    if (it == impl_->ids.end()) return;
    const std::string& payload = msg->get_payload();
    if (msg->get_opcode() == websocketpp::frame::opcode::text) {
      if (impl_->callbacks.on_text) impl_->callbacks.on_text(it->second, payload);
    } else if (impl_->callbacks.on_binary) {
      impl_->callbacks.on_binary(it->second, reinterpret_cast<const uint8_t*>(payload.data()), payload.size());
    }
  });
  websocketpp::lib::error_code ec;
  const auto address = asio::ip::make_address(s.options.host, ec);
  if (ec) throw std::runtime_error("cannot listen on '" + s.options.host + "': not an IP address");
  s.endpoint.listen(asio::ip::tcp::endpoint(address, s.options.port), ec);
  if (ec) {
    throw std::runtime_error("cannot listen on " + s.options.host + ":" + std::to_string(s.options.port) + ": " +
                             ec.message());
  }
  asio::error_code aec;
  const auto local = s.endpoint.get_local_endpoint(aec);
  s.port = aec ? s.options.port : local.port();
  s.endpoint.start_accept(ec);
  if (ec) throw std::runtime_error("cannot accept connections: " + ec.message());
}

WsServer::~WsServer() {
  Impl& s = *impl_;
  websocketpp::lib::error_code ec;
  s.endpoint.stop_listening(ec);
  for (auto& [id, hdl] : s.clients) s.endpoint.close(hdl, websocketpp::close::status::going_away, "server stops", ec);
  s.callbacks = {};
  // Let the closes go out; then stop whatever is left.
  for (int i = 0; i < 20 && !s.endpoint.stopped(); ++i) s.endpoint.poll();
  s.endpoint.stop();
}

uint16_t WsServer::port() const { return impl_->port; }

void WsServer::Poll() {
  impl_->endpoint.poll();
  if (impl_->endpoint.stopped()) impl_->endpoint.reset();  // poll() stops the context when it runs dry
}

bool WsServer::SendText(ClientId client, const std::string& text) {
  auto con = impl_->Connection(client);
  if (!con) return false;
  return !con->send(text, websocketpp::frame::opcode::text);
}

bool WsServer::SendBinary(ClientId client, const uint8_t* data, size_t size) {
  auto con = impl_->Connection(client);
  if (!con) return false;
  return !con->send(data, size, websocketpp::frame::opcode::binary);
}

size_t WsServer::Buffered(ClientId client) const {
  auto con = impl_->Connection(client);
  return con ? con->get_buffered_amount() : 0;
}

void WsServer::Drop(ClientId client, const std::string& reason) {
  auto it = impl_->clients.find(client);
  if (it == impl_->clients.end()) return;
  const auto hdl = it->second;
  impl_->ids.erase(hdl);
  impl_->clients.erase(it);
  websocketpp::lib::error_code ec;
  impl_->endpoint.close(hdl, websocketpp::close::status::policy_violation, reason, ec);
  // Its queue is full and it does not read: a close frame would wait behind it, so cut the socket
  // too.
  if (auto con = impl_->endpoint.get_con_from_hdl(hdl, ec)) {
    asio::error_code aec;
    con->get_raw_socket().shutdown(asio::ip::tcp::socket::shutdown_both, aec);
  }
}

size_t WsServer::client_count() const { return impl_->clients.size(); }

}  // namespace limbic::foxglove
