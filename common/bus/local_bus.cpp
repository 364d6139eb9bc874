#include "common/bus/local_bus.hpp"

#include <algorithm>

namespace limbic::bus {

LocalBus::LocalBus(std::chrono::milliseconds stats_period)
    : stats_period_(stats_period), next_stats_(std::chrono::steady_clock::now() + stats_period) {}

LocalBus::~LocalBus() {
  // Nodes normally go first; any still attached must not call back into a dead bus.
  for (Node* node : nodes_) node->local_ = nullptr;
}

void LocalBus::Attach(Node* node) {
  nodes_.push_back(node);
  ++generation_;
}

void LocalBus::Detach(Node* node) {
  nodes_.erase(std::remove(nodes_.begin(), nodes_.end(), node), nodes_.end());
  ++generation_;
}

LocalBus::Channel& LocalBus::ChannelFor(const std::string& topic) {
  auto it = channels_.find(topic);
  if (it == channels_.end()) {
    auto channel = std::make_unique<Channel>();
    channel->topic = topic;
    it = channels_.emplace(topic, std::move(channel)).first;
  }
  return *it->second;
}

void LocalBus::Deliver(Channel& channel, const uint8_t* data, size_t size, bool admitted) {
  ++forwarded_;
  if (channel.generation != generation_) {
    // The first message since the subscriptions last changed: which nodes want it, in attach order.
    channel.receivers.clear();
    for (Node* node : nodes_) {
      if (node->Wants(channel.topic)) channel.receivers.emplace_back(node, node->InletFor(channel.topic));
    }
    channel.generation = generation_;
  }
  if (channel.receivers.empty()) return;
  const std::shared_ptr<const std::vector<uint8_t>> payload = Fill(channel, data, size);
  for (const auto& [node, inlet] : channel.receivers) {
    node->Enqueue(inlet, payload, admitted);
  }
}

std::shared_ptr<const std::vector<uint8_t>> LocalBus::Fill(Channel& channel, const uint8_t* data, size_t size) {
  // Single-threaded (every receiver is on this thread): a use count of 1 is exact, nobody can take a new reference.
  auto& buffers = channel.buffers;
  const size_t n = buffers.size();
  size_t k = channel.next_buffer;
  for (size_t i = 0; i < n; ++i, k = k + 1 == n ? 0 : k + 1) {
    if (buffers[k].use_count() == 1) {
      channel.next_buffer = k + 1 == n ? 0 : k + 1;
      buffers[k]->assign(data, data + size);  // within its capacity once the topic's sizes were seen: no allocation
      return buffers[k];
    }
  }
  auto fresh = std::make_shared<std::vector<uint8_t>>(data, data + size);
  if (n < Channel::kMaxBuffers) {
    buffers.push_back(fresh);
  } else {  // every one held: the one replaced stays with its holders
    buffers[channel.next_buffer] = fresh;
    channel.next_buffer = channel.next_buffer + 1 == n ? 0 : channel.next_buffer + 1;
  }
  return fresh;
}

void LocalBus::DeliverCopies() {
  // Moved out first: a delivery never re-enters Publish, but keep the buffer reusable regardless.
  std::vector<CommOutgoing> copies;
  copies.swap(comm_out_);
  for (const auto& m : copies) Deliver(ChannelFor(m.topic), m.payload.data(), m.payload.size(), /*admitted=*/false);
}

void LocalBus::Publish(Channel& channel, const uint8_t* data, size_t size, bool built_and_checked) {
  switch (forwarding_.Admit(channel.topic, data, size, &comm_out_, built_and_checked, &channel.admit)) {
    case Forwarding::Verdict::kDrop:
      break;
    case Forwarding::Verdict::kForward:
      Deliver(channel, data, size, /*admitted=*/true);
      break;
    case Forwarding::Verdict::kFaulted:
      DeliverCopies();
      break;
  }
}

void LocalBus::Subscribed(Node* node, const std::string& prefix) {
  ++generation_;
  forwarding_.ForEachLatched(prefix, [&](const std::string& topic, const std::vector<uint8_t>& payload) {
    node->Enqueue(node->InletFor(topic), std::make_shared<const std::vector<uint8_t>>(payload), /*admitted=*/false);
  });
}

int LocalBus::RunTimers() {
  const uint64_t before = forwarded_;
  forwarding_.ReleaseDelayed(std::chrono::milliseconds(0), &comm_out_);
  DeliverCopies();
  if (std::chrono::steady_clock::now() >= next_stats_) {
    forwarding_.BuildStats(fbb_);
    Deliver(ChannelFor("bus/stats"), fbb_.GetBufferPointer(), fbb_.GetSize(), /*admitted=*/false);
    forwarding_.BuildHeartbeat(fbb_, forwarded_, 0);
    Deliver(ChannelFor("health/bus"), fbb_.GetBufferPointer(), fbb_.GetSize(), /*admitted=*/false);
    next_stats_ = std::chrono::steady_clock::now() + stats_period_;
  }
  return static_cast<int>(forwarded_ - before);
}

}  // namespace limbic::bus
