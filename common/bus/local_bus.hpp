// The bus without ZeroMQ, for nodes that share one thread (runtime::RunInProcess in lockstep): a
// published message goes through the same Forwarding as in the broker (verified, counted, latched,
// communication faults applied) and is put straight into the inbox of every node subscribed to it, one
// shared copy for all of them. A message the Forwarding admitted unchanged is not verified again by each
// receiving node (the same bytes, checked once, on one thread); copies a communication fault made (corrupted,
// duplicated, delayed) and the bus's own statistics are, as over ZeroMQ. What it saves is the transport: no
// sockets, no poll(2), no eventfd wake-ups — most of a lockstep run's time over inproc://.
//
// Single-threaded by design: every attached node and the LocalBus itself are used from one thread.
#pragma once

#include <chrono>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "common/bus/forwarding.hpp"

namespace limbic::bus {

class LocalBus {
 public:
  explicit LocalBus(std::chrono::milliseconds stats_period = std::chrono::milliseconds(1000));
  ~LocalBus();
  LocalBus(const LocalBus&) = delete;
  LocalBus& operator=(const LocalBus&) = delete;

  // Releases delayed copies that are due and publishes bus/stats and health/bus when due (the
  // broker's timers). Returns the number of messages it delivered.
  int RunTimers();

  const std::map<std::string, TopicCounters>& counts() const { return forwarding_.counts(); }
  uint64_t forwarded() const { return forwarded_; }
  size_t nodes() const { return nodes_.size(); }

 private:
  friend class Node;
  void Attach(Node* node);
  void Detach(Node* node);
  // One topic's way through this bus, made on its first message and kept for the bus's life (a node's publisher
  // keeps a pointer to it): the Forwarding's hint, and the nodes subscribed to it in attach order with each one's
  // inlet (Node::Inlet: what it keeps per topic), worked out again after any node attached, detached or
  // subscribed. Without it every message asked every node (Node::Wants): with a team of 16 robots (113 nodes)
  // that prefix matching was a quarter of a lockstep run's time (bench/team_bench.cpp); then three hash lookups
  // of the topic a message (issue 18).
  struct Channel {
    std::string topic;
    Forwarding::Hint admit;
    uint64_t generation = 0;  // receivers is current while it equals LocalBus::generation_
    std::vector<std::pair<Node*, Node::Inlet*>> receivers;
    // The buffers this topic's deliveries were copied into, kept for reuse: one that no receiver holds any more
    // (its use count back to 1, this reference) takes the next message without an allocation. A new buffer, two
    // allocations (its control block and its bytes) and two frees, was most of a delivery's cost (issue 18: 836
    // allocations a 16-robot tick). A buffer a receiver still holds (an input keeps its entries until a later tick
    // selects past them; a node's inbox holds what it has not drained) is never written. The pool grows to the most
    // held at once (113 lockstep acks a tick wait in the coordinator's inbox; a robot's topics, two or three), up to
    // kMaxBuffers; the search starts after the last one taken, where a queue's oldest buffer comes free first.
    static constexpr size_t kMaxBuffers = 256;
    std::vector<std::shared_ptr<std::vector<uint8_t>>> buffers;
    size_t next_buffer = 0;
  };
  // A buffer of `channel` that nobody else holds, filled with the message.
  std::shared_ptr<const std::vector<uint8_t>> Fill(Channel& channel, const uint8_t* data, size_t size);
  // `topic`'s channel (made if new).
  Channel& ChannelFor(const std::string& topic);
  // From a node: one message as a publisher sends it; `built_and_checked` as in Forwarding::Admit (a typed
  // publisher's fresh, value-checked buffer).
  void Publish(Channel& channel, const uint8_t* data, size_t size, bool built_and_checked = false);
  // From a node: a new subscription; the latched values it asks for go to that node.
  void Subscribed(Node* node, const std::string& prefix);
  // `admitted`: the bytes passed forwarding_.Admit unchanged (see Node::Dispatch).
  void Deliver(Channel& channel, const uint8_t* data, size_t size, bool admitted);
  void DeliverCopies();

  Forwarding forwarding_;
  std::vector<Node*> nodes_;
  std::unordered_map<std::string, std::unique_ptr<Channel>> channels_;
  uint64_t generation_ = 1;  // one more whenever a node attaches, detaches or subscribes
  std::vector<CommOutgoing> comm_out_;
  flatbuffers::FlatBufferBuilder fbb_{4096};
  std::chrono::milliseconds stats_period_;
  std::chrono::steady_clock::time_point next_stats_;
  uint64_t forwarded_ = 0;
};

}  // namespace limbic::bus
