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
  // From a node: one message as a publisher sends it; `built_and_checked` as in Forwarding::Admit (a typed
  // publisher's fresh, value-checked buffer).
  void Publish(const std::string& topic, const uint8_t* data, size_t size, bool built_and_checked = false);
  // From a node: a new subscription; the latched values it asks for go to that node.
  void Subscribed(Node* node, const std::string& prefix);
  // `admitted`: the bytes passed forwarding_.Admit unchanged (see Node::Dispatch).
  void Deliver(const std::string& topic, const uint8_t* data, size_t size, bool admitted);
  void DeliverCopies();

  Forwarding forwarding_;
  std::vector<Node*> nodes_;
  // Topic -> the nodes subscribed to it, in attach order; cleared whenever a node attaches, detaches or
  // subscribes. Without it every message asked every node (Node::Wants): with a team of 16 robots (113
  // nodes) that prefix matching was a quarter of a lockstep run's time (bench/team_bench.cpp).
  std::unordered_map<std::string, std::vector<Node*>> routes_;
  std::vector<CommOutgoing> comm_out_;
  flatbuffers::FlatBufferBuilder fbb_{4096};
  std::chrono::milliseconds stats_period_;
  std::chrono::steady_clock::time_point next_stats_;
  uint64_t forwarded_ = 0;
};

}  // namespace limbic::bus
