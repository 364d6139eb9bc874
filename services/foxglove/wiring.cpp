#include "services/foxglove/wiring.hpp"

#include <chrono>

#include "common/log/log.hpp"
#include "services/foxglove/convert.hpp"
#include "tools/limbic/json_codec.hpp"

namespace limbic::foxglove {

namespace {
double SteadyNowS() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}
}  // namespace

class Wiring::Transport : public ClientTransport {
 public:
  WsServer* server = nullptr;
  bool SendText(ClientId c, const std::string& text) override { return server && server->SendText(c, text); }
  bool SendBinary(ClientId c, const uint8_t* data, size_t size) override {
    return server && server->SendBinary(c, data, size);
  }
  size_t Buffered(ClientId c) const override { return server ? server->Buffered(c) : 0; }
  void Drop(ClientId c, const std::string& reason) override {
    LIMBIC_LOG(kWarning) << "dropping Foxglove client " << c << ": " << reason;
    if (server) server->Drop(c, reason);
  }
};

// limbic's JSON form of messages (as `limbic pub`), for clients that publish JSON.
struct Wiring::Codec {
  cli::JsonCodec json;
  uint64_t seq = 0;
};

Wiring::Wiring(bus::Node& node, WiringOptions options)
    : node_(node),
      options_(std::move(options)),
      derived_(options_.derived),
      transport_(std::make_unique<Transport>()),
      codec_(std::make_unique<Codec>()) {
  auto accept = [](const ClientChannel& c) -> std::string {
    if (c.topic.empty() || c.topic.rfind("foxglove/", 0) == 0)
      return "topic must be a bus topic, not '" + c.topic + "'";
    if (!messages::FindByName(c.schema_name)) {
      return "schemaName '" + c.schema_name + "' is not a limbic message type (e.g. limbic.msg.NavGoal)";
    }
    return "";
  };
  auto publish = [this](const ClientChannel& c, const uint8_t* data, size_t size) -> std::string {
    const messages::MessageType* type = messages::FindByName(c.schema_name);
    if (!type) return "unknown type";
    if (c.encoding == "flatbuffer") {
      if (!type->verify(data, size)) return "payload does not verify as " + std::string(type->name);
      node_.SendRaw(c.topic, data, size);
      return "";
    }
    try {
      const auto bytes = codec_->json.FromJson(*type, std::string(reinterpret_cast<const char*>(data), size),
                                               ++codec_->seq, node_.name(), node_.incarnation(), false);
      node_.SendRaw(c.topic, bytes.data(), bytes.size());
      return "";
    } catch (const std::exception& e) {
      return std::string("bad JSON for ") + type->name + ": " + e.what();
    }
  };
  bridge_ = std::make_unique<Bridge>(
      options_.bridge, *transport_,
      [] {
        const auto schema = messages::BinarySchema();
        return Base64(schema.data(), schema.size());
      },
      std::vector<std::string>{"json", "flatbuffer"}, accept, publish);

  WsServer::Callbacks callbacks;
  callbacks.on_open = [this](ClientId c, const std::string& remote) {
    LIMBIC_LOG(kInfo) << "Foxglove client " << c << " connected from " << remote;
    bridge_->OnClientOpen(c);
  };
  callbacks.on_close = [this](ClientId c) {
    LIMBIC_LOG(kInfo) << "Foxglove client " << c << " disconnected";
    bridge_->OnClientClose(c);
  };
  callbacks.on_text = [this](ClientId c, const std::string& text) { bridge_->OnClientText(c, text); };
  callbacks.on_binary = [this](ClientId c, const uint8_t* data, size_t size) {
    bridge_->OnClientBinary(c, data, size);
  };
  server_ = std::make_unique<WsServer>(options_.server, std::move(callbacks));
  transport_->server = server_.get();

  node_.SubscribeAny(options_.topics_prefix, [this](const bus::RawMessage& m) {
    const double now_s = SteadyNowS();
    const int64_t stamp_ns = m.header.stamp_ns();
    if (options_.native_channels) bridge_->OnNative(m.topic, m.type.name, m.data, m.size, stamp_ns, now_s);
    if (!options_.derived_channels) return;
    if (auto route = RouteOf(m.topic, m.type.name)) {
      // With nobody connected, only the map is followed (patches apply to it); the rest is derived
      // again from the next message once a client is there, and advertised then.
      const bool keeps_state = route->source == DerivedSource::kMap || route->source == DerivedSource::kMapPatch;
      if (bridge_->client_count() == 0 && !keeps_state) return;
      for (const auto& d : Derive(derived_, *route, m.data, stamp_ns, now_s)) bridge_->OnDerived(d, stamp_ns, now_s);
    }
  });
}

Wiring::~Wiring() {
  transport_->server = nullptr;
  server_.reset();
}

int Wiring::Poll(int max_messages) {
  server_->Poll();
  const int n = node_.Poll(std::chrono::milliseconds(0), max_messages);
  server_->Poll();
  return n;
}

uint16_t Wiring::port() const { return server_->port(); }
const Bridge& Wiring::bridge() const { return *bridge_; }

}  // namespace limbic::foxglove
