// iceoryx for transport_peers: an untyped publisher and subscriber per end, through the RouDi daemon the harness
// starts for the measurement. Lossless setting: the publisher waits for a full subscriber queue
// (WAIT_FOR_CONSUMER with BLOCK_PRODUCER). The queue holds 64 chunks. The sender writes the whole message into the
// loaned chunk, as a program producing it would; nothing is copied on the receiving side.
#include <algorithm>
#include <cstring>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "bench/peers/link.hpp"
#include "iceoryx_posh/mepoo/chunk_header.hpp"
#include "iceoryx_posh/popo/untyped_publisher.hpp"
#include "iceoryx_posh/popo/untyped_subscriber.hpp"
#include "iceoryx_posh/popo/wait_set.hpp"
#include "iceoryx_posh/runtime/posh_runtime.hpp"

namespace limbic::peers {
namespace {

using Clock = std::chrono::steady_clock;

class IceoryxLink : public Link {
 public:
  IceoryxLink(Side side, const Rendezvous& r) {
    const std::string name = r.tag + (side == Side::kA ? "a" : "b");
    iox::runtime::PoshRuntime::initRuntime(iox::RuntimeName_t(iox::cxx::TruncateToCapacity, name.c_str()));
    const iox::capro::IdString_t instance(iox::cxx::TruncateToCapacity, r.tag.c_str());
    const iox::capro::IdString_t out(iox::cxx::TruncateToCapacity, side == Side::kA ? "ping" : "pong");
    const iox::capro::IdString_t in(iox::cxx::TruncateToCapacity, side == Side::kA ? "pong" : "ping");
    iox::popo::PublisherOptions publisher_options;
    publisher_options.subscriberTooSlowPolicy = iox::popo::ConsumerTooSlowPolicy::WAIT_FOR_CONSUMER;
    iox::popo::SubscriberOptions subscriber_options;
    subscriber_options.queueFullPolicy = iox::popo::QueueFullPolicy::BLOCK_PRODUCER;
    // Fewer than RouDi's default pool of 200 chunks of 128 KiB: a full queue of 64 KiB messages blocks the
    // publisher before the pool runs dry (the default 256 ran it dry and the loan failed).
    subscriber_options.queueCapacity = 64;
    publisher_.emplace(iox::capro::ServiceDescription{"limbic-peers", instance, out}, publisher_options);
    subscriber_.emplace(iox::capro::ServiceDescription{"limbic-peers", instance, in}, subscriber_options);
    waitset_.emplace();
    waitset_->attachState(*subscriber_, iox::popo::SubscriberState::HAS_DATA).or_else([](auto) {
      throw std::runtime_error("iceoryx: cannot attach the subscriber to a wait set");
    });
  }
  ~IceoryxLink() override {
    waitset_.reset();  // before the subscriber it watches
    subscriber_.reset();
    publisher_.reset();
  }

  size_t Send(uint64_t seq, size_t bytes) override {
    bytes = std::max<size_t>(bytes, sizeof seq);
    if (payload_.size() < bytes) payload_.resize(bytes);
    std::memcpy(payload_.data(), &seq, sizeof seq);
    auto loaned = publisher_->loan(static_cast<uint32_t>(bytes));
    if (loaned.has_error()) throw std::runtime_error("iceoryx: no chunk to loan (RouDi's memory pools)");
    std::memcpy(loaned.value(), payload_.data(), bytes);
    publisher_->publish(loaned.value());
    return bytes;
  }

  std::optional<Received> Receive(std::chrono::milliseconds timeout) override {
    const auto deadline = Clock::now() + timeout;
    for (;;) {
      std::optional<Received> r;
      subscriber_->take().and_then([&](const void* payload) {
        r = Received{};
        std::memcpy(&r->seq, payload, sizeof r->seq);
        r->bytes = iox::mepoo::ChunkHeader::fromUserPayload(payload)->userPayloadSize();
        subscriber_->release(payload);
      });
      if (r) return r;
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
      if (left.count() <= 0) return std::nullopt;
      waitset_->timedWait(iox::units::Duration::fromMilliseconds(static_cast<unsigned long long>(left.count())));
    }
  }

 private:
  std::optional<iox::popo::UntypedPublisher> publisher_;
  std::optional<iox::popo::UntypedSubscriber> subscriber_;
  std::optional<iox::popo::WaitSet<>> waitset_;
  std::vector<uint8_t> payload_;
};

}  // namespace

std::unique_ptr<Link> OpenIceoryxLink(Side side, const Rendezvous& r) { return std::make_unique<IceoryxLink>(side, r); }

}  // namespace limbic::peers
