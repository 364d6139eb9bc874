// The broker behind limbic-bus: XSUB in (publishers connect), XPUB out (subscribers connect).
// It verifies every payload before forwarding (a bad one is dropped, counted per topic and reason,
// logged once per burst), counts messages and bytes per topic, keeps the last value of latched topics
// and hands it to every new subscription, and publishes its counts on `bus/stats` and a heartbeat on
// `health/bus` once per second. It never blocks on a slow subscriber: ZeroMQ drops at the high-water
// mark for that subscriber alone, and the subscriber sees the gap in sequence numbers.
//
// Bounded against a client that means harm (issue 16): silent connections are closed after the
// handshake timeout, the topic table ages idle topics out instead of refusing new ones, the latched
// store is bounded in bytes (ForwardingLimits), a repeated subscription to a prefix replays its latched
// values at most once per replay_holdoff, and each subscriber's queue is bounded through ZMQ_SNDHWM
// sized from bytes (queue_bytes / queue_message_bytes).
#pragma once

#include <zmq.hpp>

#include <atomic>
#include <chrono>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "common/bus/bus.hpp"
#include "common/bus/comm_faults.hpp"
#include "common/bus/forwarding.hpp"

namespace limbic::bus {

struct CurveServerKeys {
  std::string server_secret;                 // Z85
  std::vector<std::string> allowed_clients;  // Z85 public keys admitted
  bool enabled() const { return !server_secret.empty(); }
};

struct BrokerOptions {
  std::string address = "ipc:///tmp/limbic-bus";
  int send_hwm = 10000;  // per subscriber, in messages: the most a queue may hold whatever their size
  int receive_hwm = 10000;
  size_t max_payload = messages::kMaxPayloadBytes;
  std::chrono::milliseconds stats_period{1000};
  CurveServerKeys curve;
  // Bytes one subscriber's queue may hold: ZMQ_SNDHWM = queue_bytes / queue_message_bytes messages
  // (at least 16, at most send_hwm; send_hwm 0 = no limit, as an in-process lockstep run needs).
  // ZeroMQ counts messages, not bytes, so the bound holds for payloads up to queue_message_bytes; a
  // queue of larger ones (the 134 KB affect snapshot) holds that many messages. Set once: changing
  // ZMQ_SNDHWM on live pipes stalled delivery to existing subscribers.
  size_t queue_bytes = 64u << 20;
  size_t queue_message_bytes = 64u << 10;
  // A connection that has not completed its ZMTP (and CURVE) handshake within this is closed: a silent
  // TCP connection holds a descriptor only this long.
  std::chrono::milliseconds handshake_timeout{2000};
  // A subscription to a prefix replayed within this is not replayed again until it has passed (then
  // once, for everyone who subscribed meanwhile).
  std::chrono::milliseconds replay_holdoff{1000};
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
  uint64_t replays_deferred() const { return replays_deferred_; }
  int send_hwm() const { return send_hwm_; }
  uint64_t forwarded() const { return forwarded_; }
  uint64_t rejected_clients() const { return rejected_clients_; }
  // What it bound (tcp: exactly the address asked for, see ResolveBindAddress).
  const BrokerEndpoints& endpoints() const { return endpoints_; }
  // Communication faults from `faults` (FaultCommand Comm*): applied to the forwarded copies.
  const CommFaults& comm_faults() const { return forwarding_.comm_faults(); }

 private:
  int Drain();
  bool HandleFrontend();  // false: nothing to receive
  bool HandleBackend();
  void HandleZap();
  void PublishStats();
  void SendCopies();  // comm_out_: faulted or delayed copies
  void Replay(const std::string& prefix);
  void ReplayDue();           // deferred replays whose holdoff has passed

  void Forward(zmq::message_t& topic_frame, zmq::message_t& payload);

  BrokerOptions options_;
  zmq::socket_t frontend_;
  zmq::socket_t backend_;
  zmq::socket_t zap_;
  Forwarding forwarding_;
  BrokerEndpoints endpoints_;
  std::chrono::steady_clock::time_point next_stats_;
  flatbuffers::FlatBufferBuilder fbb_{4096};
  uint64_t forwarded_ = 0;
  uint64_t rejected_clients_ = 0;
  std::vector<CommOutgoing> comm_out_;
  std::map<std::string, std::chrono::steady_clock::time_point> last_replay_;  // per prefix
  std::set<std::string> deferred_replays_;
  uint64_t replays_ = 0;
  uint64_t replays_deferred_ = 0;
  int send_hwm_ = 0;
  int stats_periods_ = 0;
};

}  // namespace limbic::bus
