#include "services/foxglove/bridge.hpp"

#include <type_traits>

namespace limbic::foxglove {

Bridge::Bridge(BridgeOptions options, ClientTransport& transport, std::function<std::string()> native_schema,
               std::vector<std::string> publish_encodings, AcceptFn accept, PublishFn publish)
    : options_(std::move(options)),
      transport_(transport),
      native_schema_source_(std::move(native_schema)),
      publish_encodings_(std::move(publish_encodings)),
      accept_(std::move(accept)),
      publish_(std::move(publish)),
      table_(options_.max_channels) {
  if (!accept_ || !publish_ || publish_encodings_.empty()) options_.client_publish = false;
}

void Bridge::OnClientOpen(ClientId client) {
  if (clients_.size() >= options_.max_clients) {
    ++stats_.clients_refused;
    transport_.SendText(client, StatusJson(StatusLevel::kError, "too many clients (max_clients " +
                                                                    std::to_string(options_.max_clients) + ")"));
    transport_.Drop(client, "too many clients");
    return;
  }
  clients_.emplace(client, Client{ClientSession{}, SendBudget(options_.budget)});
  ++stats_.clients_accepted;
  std::vector<std::string> capabilities;
  if (options_.client_publish) capabilities.push_back("clientPublish");
  transport_.SendText(client, ServerInfoJson(options_.name, capabilities,
                                             options_.client_publish ? publish_encodings_ : std::vector<std::string>{},
                                             options_.session_id));
  // The spec asks for at least one advertise on connection, even if empty.
  transport_.SendText(client, AdvertiseJson(table_.All()));
}

void Bridge::OnClientClose(ClientId client) { clients_.erase(client); }

void Bridge::Status(ClientId client, StatusLevel level, const std::string& message) {
  if (level != StatusLevel::kInfo) ++stats_.bad_requests;
  transport_.SendText(client, StatusJson(level, message));
}

void Bridge::OnClientText(ClientId client, const std::string& text) {
  auto it = clients_.find(client);
  if (it == clients_.end()) return;
  ClientSession& session = it->second.session;
  std::vector<std::string> errors;
  try {
    const ClientRequest request = ParseClientText(text);
    std::visit(
        [&](const auto& r) {
          using R = std::decay_t<decltype(r)>;
          if constexpr (std::is_same_v<R, SubscribeRequest>) {
            errors = session.Apply(r, table_);
          } else if constexpr (std::is_same_v<R, UnsubscribeRequest>) {
            errors = session.Apply(r);
          } else if constexpr (std::is_same_v<R, ClientAdvertiseRequest>) {
            if (!options_.client_publish) {
              errors.push_back("advertise: this server does not accept client publishing");
            } else {
              errors = session.Apply(r, [&](const ClientChannel& c) {
                for (const auto& e : publish_encodings_) {
                  if (e == c.encoding) return accept_(c);
                }
                return "encoding '" + c.encoding + "' is not supported";
              });
            }
          } else {
            errors = session.Apply(r);
          }
        },
        request);
  } catch (const ProtocolError& e) {
    errors.push_back(e.what());
  }
  for (const auto& e : errors) Status(client, StatusLevel::kError, e);
}

void Bridge::OnClientBinary(ClientId client, const uint8_t* data, size_t size) {
  auto it = clients_.find(client);
  if (it == clients_.end()) return;
  try {
    const ClientMessage m = ParseClientBinary(data, size);
    const ClientChannel* channel = it->second.session.Published(m.channel_id);
    if (!channel)
      throw ProtocolError("message on client channel " + std::to_string(m.channel_id) + ", never advertised");
    const std::string why = publish_(*channel, m.data, m.size);
    if (!why.empty()) throw ProtocolError("'" + channel->topic + "': " + why);
    ++stats_.client_messages_published;
  } catch (const ProtocolError& e) {
    Status(client, StatusLevel::kError, e.what());
  }
}

uint32_t Bridge::Ensure(const std::string& topic, const std::string& encoding, const std::string& schema_name,
                        const std::string& schema_encoding, const std::function<std::string()>& schema) {
  const auto offer = table_.Ensure(topic, encoding, schema_name, schema_encoding, schema);
  if (offer.replaced) {
    for (auto& [id, c] : clients_) c.session.ChannelRemoved(*offer.replaced);
    Broadcast(UnadvertiseJson({*offer.replaced}));
  }
  if (offer.added) Broadcast(AdvertiseJson({*offer.added}));
  return offer.id;
}

void Bridge::Broadcast(const std::string& text) {
  for (auto& [id, c] : clients_) transport_.SendText(id, text);
}

void Bridge::OnNative(const std::string& topic, const std::string& schema_name, const uint8_t* data, size_t size,
                      int64_t stamp_ns, double now_s) {
  const uint32_t id = Ensure(topic, "flatbuffer", schema_name, "flatbuffer", [this] {
    if (!native_schema_) native_schema_ = native_schema_source_();
    return *native_schema_;
  });
  if (id != 0) Forward(id, data, size, stamp_ns, now_s);
}

void Bridge::OnDerived(const DerivedMessage& message, int64_t stamp_ns, double now_s) {
  const uint32_t id = Ensure(message.topic, "json", message.schema_name, "jsonschema",
                             [&] { return JsonSchemaFor(message.schema_name); });
  if (id != 0) {
    Forward(id, reinterpret_cast<const uint8_t*>(message.json.data()), message.json.size(), stamp_ns, now_s);
  }
}

void Bridge::Forward(uint32_t channel_id, const uint8_t* data, size_t size, int64_t stamp_ns, double now_s) {
  std::vector<ClientId> slow;
  for (auto& [id, c] : clients_) {
    const auto subscription = c.session.SubscriptionFor(channel_id);
    if (!subscription) continue;
    const size_t frame_bytes = 13 + size;
    switch (c.budget.Check(transport_.Buffered(id), frame_bytes, now_s)) {
      case SendBudget::Verdict::kSkip:
        ++stats_.messages_skipped;
        continue;
      case SendBudget::Verdict::kDisconnect:
        slow.push_back(id);
        continue;
      case SendBudget::Verdict::kSend:
        break;
    }
    const auto frame = MessageDataFrame(*subscription, static_cast<uint64_t>(stamp_ns < 0 ? 0 : stamp_ns), data, size);
    if (transport_.SendBinary(id, frame.data(), frame.size())) {
      ++stats_.messages_sent;
      stats_.bytes_sent += frame.size();
    }
  }
  for (ClientId id : slow) {
    ++stats_.clients_dropped_slow;
    clients_.erase(id);
    transport_.Drop(id, "client stopped reading (send queue full)");
  }
}

}  // namespace limbic::foxglove
