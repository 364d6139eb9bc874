// The broker behind limbic-bus: XSUB in (publishers connect), ROUTER out (subscribers connect with a
// DEALER; bus::Node does).
// It verifies every payload before forwarding (a bad one is dropped, counted per topic and reason,
// logged once per burst), counts messages and bytes per topic, keeps the last value of latched topics
// and hands it to every new subscription, and publishes its counts on `bus/stats` and a heartbeat on
// `health/bus` once per second. It never blocks on a slow subscriber: it drops for that subscriber
// alone (counted), and the subscriber sees the gap in sequence numbers.
//
// Subscriber side of the wire (issue 16: the broker must tell subscribers apart). A subscriber's
// DEALER sends one-frame control messages: "\x01PREFIX" subscribe, "\x00PREFIX" unsubscribe (the
// bytes a SUB socket would send) and "" keepalive. The broker sends [TOPIC][PAYLOAD] for data and
// one-frame control messages: "\x00" ping (ignored; a departed subscriber shows as unreachable) and
// "\x01" resubscribe (a keepalive from a connection it does not know: a restarted broker, or a
// reconnect, which gets a new routing id). Publishers are unchanged (PUB -> XSUB).
//
// Direct data path (issue 23 item 1; docs/protocol.md §13): a node that publishes directly announces
// "\x02ENDPOINT\0TOPIC" (withdraws "\x03ENDPOINT\0TOPIC") on its DEALER; the broker keeps them in its Directory per
// connection and sends the same one-frame entries to every subscriber whose subscriptions match (on a new
// announcement, and on a new subscription: the entries under it), "\x03..." when the last offer of one goes (its
// publisher unreachable or withdrawn). Malformed control frames and unknown codes are counted and ignored.
//
// Bounded against a client that means harm (issue 16): silent connections are closed after the
// handshake timeout, the topic table ages idle topics out instead of refusing new ones, the latched
// store is bounded in bytes (ForwardingLimits), each subscription gets the latched values under it
// once, sent to that subscriber alone, and each subscriber's queue is bounded in bytes
// (SubscriberTable: what the broker holds for it is counted until ZeroMQ has written or discarded it,
// so the memory is returned when it leaves).
#pragma once

#include <atomic>
#include <chrono>
#include <map>
#include <memory>
#include <string>
#include <vector>
#include <zmq.hpp>

#include "common/bus/bus.hpp"
#include "common/bus/comm_faults.hpp"
#include "common/bus/direct_reports.hpp"
#include "common/bus/directory.hpp"
#include "common/bus/forwarding.hpp"
#include "common/bus/subscribers.hpp"
#include "common/bus/zap.hpp"

namespace limbic::bus {

struct CurveServerKeys {
  std::string server_secret;                 // Z85
  std::vector<std::string> allowed_clients;  // Z85 public keys admitted
  bool enabled() const { return !server_secret.empty(); }
};

struct BrokerOptions {
  std::string address = "ipc:///tmp/limbic-bus";
  int send_hwm = 10000;  // 0: subscriber queues without a byte limit (in-process lockstep: never drop)
  int receive_hwm = 10000;
  size_t max_payload = messages::kMaxPayloadBytes;
  std::chrono::milliseconds stats_period{1000};
  CurveServerKeys curve;
  // Bytes the broker may hold for one subscriber (payloads, topics and kMessageOverhead each, until
  // written to its socket); beyond it new messages for that subscriber are dropped and counted.
  size_t queue_bytes = 64u << 20;
  // Of queue_bytes, at most this much state (message_class.hpp; docs/protocol.md "Losses"): a subscriber that
  // falls behind loses stale state first, counted; events keep the whole queue. 0 = no separate bound.
  size_t state_queue_bytes = 8u << 20;
  size_t max_subscribers = 4096;
  size_t max_subscriptions = 1024;  // per subscriber
  // A subscriber cycling its subscription to a prefix gets at most one replay of it per holdoff
  // (SubscriberLimits::replay_holdoff); different subscribers never wait for each other.
  std::chrono::milliseconds replay_holdoff{1000};
  // A connection that has not completed its ZMTP (and CURVE) handshake within this is closed: a silent
  // TCP connection holds a descriptor only this long.
  std::chrono::milliseconds handshake_timeout{2000};
  ForwardingLimits limits;
};

class Broker {
 public:
  Broker(zmq::context_t& context, BrokerOptions options);
  ~Broker();

  // Forwards until `stop` becomes true (checked at least every 100 ms).
  void Run(const std::atomic<bool>& stop);
  // One cycle: handles what has arrived, waiting up to `timeout` only if nothing had. Returns the
  // number of frames handled (messages in, subscriptions). Used by Run, tests and hosts that run the
  // broker on a thread they share (runtime::RunInProcess).
  int RunOnce(std::chrono::milliseconds timeout);

  const std::map<std::string, TopicCounters>& counts() const { return forwarding_.counts(); }
  size_t latched_topics() const { return forwarding_.latched_topics(); }
  size_t latched_bytes() const { return forwarding_.latched_bytes(); }
  const ForwardingLimitCounters& limit_counters() const { return forwarding_.limit_counters(); }
  uint64_t replays() const { return replays_; }
  const SubscriberTable& subscribers() const { return subscribers_; }
  uint64_t forwarded() const { return forwarded_; }
  uint64_t rejected_clients() const { return zap_ ? zap_->rejected(zap_domain_) : 0; }
  // What it bound (tcp: exactly the address asked for, see ResolveBindAddress).
  const BrokerEndpoints& endpoints() const { return endpoints_; }
  // Communication faults from `faults` (FaultCommand Comm*): applied to the forwarded copies.
  const CommFaults& comm_faults() const { return forwarding_.comm_faults(); }
  // Direct path: who offers which topic where; control frames from subscribers it could not use.
  const Directory& directory() const { return directory_; }
  uint64_t control_malformed() const { return control_malformed_.load(); }
  uint64_t rerouted() const { return rerouted_.load(); }

 private:
  int Drain();
  bool HandleFrontend();  // false: nothing to receive
  bool HandleBackend();
  void PublishStats();
  void SendCopies();  // comm_out_: faulted or delayed copies
  // The latched values under `prefix`, to `s` alone.
  void Replay(SubscriberTable::Subscriber& s, const std::string& prefix);
  // To everyone subscribed to `topic`.
  void Forward(const std::string& topic, std::shared_ptr<zmq::message_t> payload);
  // To one subscriber, within its byte budget. False: dropped (over budget) or it has gone.
  bool SendTo(SubscriberTable::Subscriber& s, const std::string& topic, const std::shared_ptr<zmq::message_t>& payload,
              bool state);
  // Sends what Admit has already counted for `s`.
  bool Push(SubscriberTable::Subscriber& s, const std::string& topic, const std::shared_ptr<zmq::message_t>& payload,
            size_t bytes, bool state);
  // A one-frame control message; false if `id` is unreachable.
  bool SendControl(const std::string& id, uint8_t code);
  bool SendFrame(const std::string& id, std::string_view frame);
  // "\x02..." / "\x03..." from `who`.
  // `key`: the public key `who` authenticated with (CURVE; the connection's ZAP user id), else empty.
  void HandleDirectory(const std::string& who, const uint8_t* data, size_t size, const std::string& key);
  // "\x06TOPIC\0IDENTIFIER" from `who`: the type of a topic it offers (bus/stats names it).
  void HandleTopicType(const std::string& who, const uint8_t* data, size_t size);
  // The entries under `prefix`, to `id` alone (a new subscription).
  void SendEntriesUnder(const std::string& id, const std::string& prefix);
  // To every subscriber of the entry's topic.
  void TellSubscribers(uint8_t code, const DirectoryEntry& entry);
  // `id` has gone: its subscriber entry and its offers (withdrawn from subscribers where nobody else offers them).
  void RemoveConnection(const std::string& id);
  void RemoveUnreachable();  // RemoveConnection for each in unreachable_, and those found gone meanwhile
  // A FaultCommand on `faults`: a communication fault on a direct topic moves its publishers to the broker path.
  void RerouteFaulted(const uint8_t* data, size_t size);
  // A heartbeat the broker forwarded: its "out" (publishers') and "in" (receivers') counts of direct topics, for
  // bus/stats (DirectReports).
  void NoteHeartbeat(const uint8_t* data, size_t size);
  std::vector<Forwarding::ReportedTopic> DirectTopicStats();
  void LogControl(const std::string& what);  // a malformed control frame, ignored (counted by the caller)
  void PingSubscribers();

  BrokerOptions options_;
  zmq::socket_t frontend_;
  zmq::socket_t backend_;
  std::shared_ptr<ZapService> zap_;  // CURVE: this context's ZAP handler, admitting options_.curve.allowed_clients
  std::string zap_domain_;           // in zap_: "limbic/<n>", this broker's own (a restart may overlap its successor)
  Forwarding forwarding_;
  BrokerEndpoints endpoints_;
  std::chrono::steady_clock::time_point next_stats_;
  flatbuffers::FlatBufferBuilder fbb_{4096};
  uint64_t forwarded_ = 0;
  std::vector<CommOutgoing> comm_out_;
  messages::AlignedBytes aligned_;  // a received frame where ZeroMQ left it misaligned
  SubscriberTable subscribers_;
  std::vector<std::string> unreachable_;  // found gone while sending: removed after the loop
  uint64_t replays_ = 0;
  int stats_periods_ = 0;
  Directory directory_;
  DirectReports direct_reports_;
  std::map<std::string, const messages::MessageType*> direct_types_;  // topic -> as its publishers declared
  // Atomic: rare, and read by tests (and tools hosting a broker) from another thread while the broker runs.
  std::atomic<uint64_t> control_malformed_{0};
  std::atomic<uint64_t> rerouted_{0};  // comm faults that moved direct topics to the broker path
  log::RateLimiter control_log_;
};

}  // namespace limbic::bus
