// What the bridge offers and who wants what: the server's channel table (one channel per topic,
// re-advertised when a topic's type changes), each client's subscriptions and advertised channels,
// and the send budget that drops a client which stops reading instead of letting its queue grow.
// Plain data; bridge.cpp and wiring.cpp connect it to the bus and the WebSocket server.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "services/foxglove/protocol.hpp"

namespace limbic::foxglove {

// Server channels by topic. Ids start at 1 and are never reused, so a client's cached schema for an
// id stays right (the spec allows reuse only for an identical channel).
class ChannelTable {
 public:
  explicit ChannelTable(size_t max_channels = 4096) : max_channels_(max_channels) {}

  struct Offer {
    uint32_t id = 0;                   // 0: refused (table full)
    const Channel* added = nullptr;    // newly advertised (send an advertise)
    std::optional<uint32_t> replaced;  // the topic's previous channel (send an unadvertise first)
  };
  // The channel for `topic` carrying `schema_name`; creates it (schema() is called only then) when
  // the topic is new or its type changed.
  Offer Ensure(const std::string& topic, const std::string& encoding, const std::string& schema_name,
               const std::string& schema_encoding, const std::function<std::string()>& schema);

  const Channel* Find(uint32_t id) const;
  std::vector<Channel> All() const;  // in id order
  size_t size() const { return by_id_.size(); }
  uint64_t refused() const { return refused_; }

 private:
  size_t max_channels_;
  uint32_t next_id_ = 1;
  std::map<uint32_t, Channel> by_id_;
  std::map<std::string, uint32_t> by_topic_;
  uint64_t refused_ = 0;
};

// One connected client: its subscriptions (subscription id <-> channel id) and the channels it
// advertised for publishing.
class ClientSession {
 public:
  // Applies a subscribe or unsubscribe against `table`; returns status messages for what was
  // refused (unknown channel, a subscription id in use, a second subscription to one channel), the
  // rest is applied.
  std::vector<std::string> Apply(const SubscribeRequest& r, const ChannelTable& table);
  std::vector<std::string> Apply(const UnsubscribeRequest& r);
  // Client publishing: `accept` says why a channel cannot be published ("" = fine).
  std::vector<std::string> Apply(const ClientAdvertiseRequest& r,
                                 const std::function<std::string(const ClientChannel&)>& accept);
  std::vector<std::string> Apply(const ClientUnadvertiseRequest& r);

  // The subscription id for a server channel, if subscribed.
  std::optional<uint32_t> SubscriptionFor(uint32_t channel_id) const;
  // Forgets subscriptions to a channel that is gone (unadvertised).
  void ChannelRemoved(uint32_t channel_id);
  const ClientChannel* Published(uint32_t client_channel_id) const;
  size_t subscription_count() const { return channel_of_.size(); }

 private:
  std::map<uint32_t, uint32_t> channel_of_;       // subscription id -> channel id
  std::map<uint32_t, uint32_t> subscription_of_;  // channel id -> subscription id
  std::map<uint32_t, ClientChannel> published_;
};

// Bounds what one client may have queued. A message that would take the client's queue past
// `max_buffered_bytes` is skipped (counted); a client that stays over `high_water` of that bound
// for `stall_timeout_s` — it has stopped reading — is to be disconnected. The bus never waits for a
// client.
class SendBudget {
 public:
  struct Options {
    size_t max_buffered_bytes = 8u << 20;
    double high_water = 0.5;       // fraction of max_buffered_bytes that counts as "not draining"
    double stall_timeout_s = 5.0;  // over high water this long: drop the client
  };
  explicit SendBudget(Options options) : options_(options) {}

  enum class Verdict { kSend, kSkip, kDisconnect };
  // `buffered` bytes are queued for the client now; `frame_bytes` would be added; `now_s` any
  // monotonic clock.
  Verdict Check(size_t buffered, size_t frame_bytes, double now_s);
  uint64_t skipped() const { return skipped_; }

 private:
  Options options_;
  std::optional<double> over_since_s_;
  uint64_t skipped_ = 0;
};

}  // namespace limbic::foxglove
