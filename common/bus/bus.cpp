#include "common/bus/bus.hpp"

#include <arpa/inet.h>
#include <netdb.h>
#include <sys/socket.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <random>
#include <stdexcept>
#include <utility>

#include "common/bus/local_bus.hpp"
#include "messages/validate.hpp"

namespace limbic::bus {
namespace {

std::pair<std::string, std::string> SplitScheme(const std::string& address) {
  const auto pos = address.find("://");
  if (pos == std::string::npos) {
    throw std::invalid_argument("bus address '" + address +
                                "' has no scheme (expected ipc://PATH, tcp://HOST:PORT or inproc://NAME)");
  }
  return {address.substr(0, pos), address.substr(pos + 3)};
}

// A host for binding, as the numeric address to bind: literals are kept, names are resolved.
struct BindHost {
  std::string numeric;  // 127.0.0.1, ::1, *, 10.0.0.1, ...
  bool ipv6 = false;
  bool loopback = false;
};

BindHost ResolveBindHost(const std::string& address, std::string host) {
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') host = host.substr(1, host.size() - 2);
  if (host.empty() || host == "localhost") host = "127.0.0.1";
  if (host == "*" || host == "0.0.0.0") return {"*", false, false};
  if (host == "::") return {"::", true, false};
  in_addr v4{};
  if (inet_pton(AF_INET, host.c_str(), &v4) == 1) return {host, false, (ntohl(v4.s_addr) >> 24) == 127};
  in6_addr v6{};
  if (inet_pton(AF_INET6, host.c_str(), &v6) == 1) return {host, true, IN6_IS_ADDR_LOOPBACK(&v6) != 0};
  // A name: bind the address it stands for, never every interface (ZeroMQ's own resolution of a name
  // in bind() listens on 0.0.0.0).
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  const int rc = getaddrinfo(host.c_str(), nullptr, &hints, &found);
  if (rc != 0 || found == nullptr) {
    throw BusAddressError("bus address '" + address + "': cannot resolve host '" + host +
                          "': " + (rc == EAI_SYSTEM ? std::strerror(errno) : gai_strerror(rc)));
  }
  char text[INET6_ADDRSTRLEN] = {};
  BindHost result;
  if (found->ai_family == AF_INET6) {
    const auto* a = reinterpret_cast<const sockaddr_in6*>(found->ai_addr);
    inet_ntop(AF_INET6, &a->sin6_addr, text, sizeof(text));
    result = {text, true, IN6_IS_ADDR_LOOPBACK(&a->sin6_addr) != 0};
  } else {
    const auto* a = reinterpret_cast<const sockaddr_in*>(found->ai_addr);
    inet_ntop(AF_INET, &a->sin_addr, text, sizeof(text));
    result = {text, false, (ntohl(a->sin_addr.s_addr) >> 24) == 127};
  }
  freeaddrinfo(found);
  return result;
}

BrokerEndpoints Resolve(const std::string& address, bool bind) {
  auto [scheme, rest] = SplitScheme(address);
  if (rest.empty()) throw std::invalid_argument("bus address '" + address + "' is empty after the scheme");
  if (scheme == "ipc" || scheme == "inproc") {
    return {scheme + "://" + rest + ".in", scheme + "://" + rest + ".out"};
  }
  if (scheme == "tcp") {
    const auto colon = rest.rfind(':');
    if (colon == std::string::npos || (rest.find(']') != std::string::npos && colon < rest.find(']'))) {
      throw std::invalid_argument("bus address '" + address + "' needs a port (tcp://HOST:PORT)");
    }
    std::string host = rest.substr(0, colon);
    int port = 0;
    try {
      size_t used = 0;
      port = std::stoi(rest.substr(colon + 1), &used);
      if (used != rest.size() - colon - 1) throw std::invalid_argument("trailing");
    } catch (const std::exception&) {
      throw std::invalid_argument("bus address '" + address + "' has a bad port");
    }
    if (port <= 0 || port >= 65535) throw std::invalid_argument("bus address '" + address + "': port out of range");
    const bool bracketed = host.size() >= 2 && host.front() == '[';
    if (host.find(':') != std::string::npos && !bracketed) {
      throw std::invalid_argument("bus address '" + address +
                                  "': write an IPv6 address in brackets (tcp://[::1]:" + std::to_string(port) + ")");
    }
    BrokerEndpoints endpoints;
    if (bind) {
      const BindHost b = ResolveBindHost(address, host);
      host = b.ipv6 ? "[" + b.numeric + "]" : b.numeric;
      endpoints.ipv6 = b.ipv6;
      endpoints.loopback = b.loopback;
    } else {
      // A client leaves names to ZeroMQ, which with ZMQ_IPV6 prefers an IPv6 answer: `localhost`
      // would then try ::1 against a broker on 127.0.0.1. IPv6 only where the address says so.
      endpoints.ipv6 = bracketed || host == "ip6-localhost" || host == "ip6-loopback";
      endpoints.loopback =
          host == "localhost" || host == "[::1]" || host == "ip6-localhost" || host.rfind("127.", 0) == 0;
    }
    endpoints.frontend = "tcp://" + host + ":" + std::to_string(port);
    endpoints.backend = "tcp://" + host + ":" + std::to_string(port + 1);
    return endpoints;
  }
  throw std::invalid_argument("bus address '" + address + "': unknown scheme '" + scheme +
                              "' (expected ipc, tcp or inproc)");
}

void ApplyCurve(zmq::socket_t& socket, const CurveClientKeys& keys) {
  if (!keys.enabled()) return;
  socket.set(zmq::sockopt::curve_serverkey, keys.server_public);
  socket.set(zmq::sockopt::curve_publickey, keys.client_public);
  socket.set(zmq::sockopt::curve_secretkey, keys.client_secret);
}

}  // namespace

BrokerEndpoints ResolveBusAddress(const std::string& address) { return Resolve(address, false); }
BrokerEndpoints ResolveBindAddress(const std::string& address) { return Resolve(address, true); }

namespace {
uint64_t RandomIncarnation() {
  std::random_device rd;
  const uint64_t value = (static_cast<uint64_t>(rd()) << 32) ^ rd();
  return value == 0 ? 1 : value;
}
}  // namespace

int64_t Node::WallNowNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

Node::Node(zmq::context_t& context, const std::string& bus_address, NodeOptions options)
    : options_(std::move(options)), pub_(context, zmq::socket_type::pub), sub_(context, zmq::socket_type::dealer) {
  const BrokerEndpoints endpoints = ResolveBusAddress(bus_address);
  for (zmq::socket_t* s : {&pub_, &sub_}) {
    s->set(zmq::sockopt::linger, 0);
    s->set(zmq::sockopt::reconnect_ivl, static_cast<int>(options_.reconnect_interval.count()));
    s->set(zmq::sockopt::reconnect_ivl_max, 1000);
    if (endpoints.ipv6) s->set(zmq::sockopt::ipv6, 1);
    ApplyCurve(*s, options_.curve);
  }
  pub_.set(zmq::sockopt::sndhwm, options_.send_hwm);
  sub_.set(zmq::sockopt::rcvhwm, options_.receive_hwm);
  pub_.connect(endpoints.frontend);
  sub_.connect(endpoints.backend);
  incarnation_ = options_.incarnation != 0 ? options_.incarnation : RandomIncarnation();
  next_latched_resend_ = std::chrono::steady_clock::now() + options_.latched_resend;
  next_keepalive_ = std::chrono::steady_clock::now() + options_.keepalive;
  next_high_water_ = std::chrono::steady_clock::now() + options_.high_water_period;
  if (options_.shm) shm_ = std::make_unique<ShmEndpoint>(options_.shm, bus_address, options_.shm_options);
}

Node::Node(LocalBus& bus, NodeOptions options) : options_(std::move(options)), local_(&bus), local_mode_(true) {
  incarnation_ = options_.incarnation != 0 ? options_.incarnation : RandomIncarnation();
  next_latched_resend_ = std::chrono::steady_clock::now() + options_.latched_resend;
  local_->Attach(this);
}

struct Node::SharedHold {
  std::shared_ptr<const void> owner;
  std::atomic<size_t> refs;
};

void Node::Unhold(SharedHold* hold) {
  // acq_rel: the last one out sees every other holder's reads of the bytes finished before it frees.
  if (hold != nullptr && hold->refs.fetch_sub(1, std::memory_order_acq_rel) == 1) delete hold;
}

// ZeroMQ's free function for a shared frame: called once, on ZeroMQ's I/O thread (written or
// discarded) or on the sending thread (a send that failed).
void Node::ReleaseShared(void* /*data*/, void* hint) { Unhold(static_cast<SharedHold*>(hint)); }

Node::~Node() {
  if (local_) local_->Detach(this);
  Unhold(shared_hold_);  // frames still queued keep their owner until ZeroMQ lets them go
}

void Node::Enqueue(const std::string& topic, std::shared_ptr<const std::vector<uint8_t>> payload, bool admitted) {
  inbox_.push_back(Queued{topic, std::move(payload), admitted});
}

size_t Node::AddPublisher(const std::string& topic, bool latched, const char* identifier) {
  publishers_.push_back(PublisherSlot{topic, latched, 0, {}});
  if (shm_ && identifier != nullptr) publishers_.back().shm = shm_->AddPublisher(topic, identifier);
  return publishers_.size() - 1;
}

void Node::AddSubscription(const std::string& topic, bool exact, bool (*verify)(const uint8_t*, size_t),
                           const char* identifier, std::function<void(const RawMessage&)> handler) {
  subscriptions_.push_back(Subscription{topic, exact, verify, identifier, std::move(handler)});
  // On shared memory as well for this host's publishers there; the socket path below for everyone else.
  if (shm_ && exact && identifier != nullptr) shm_->AddSubscriber(topic, identifier);
  if (local_mode_) {
    if (local_) local_->Subscribed(this, topic);
  } else {
    SubscribeWithReports(topic);
  }
}

void Node::SubscribeWithReports(const std::string& topic) {
  SendSubscription(topic);
  // The reports about what it receives, so that it can count tail losses. Each is one more prefix held by
  // the broker for this subscriber (SubscriberLimits::max_prefixes): none where a subscription covers it
  // already ("", "bus/", a report prefix itself).
  if (topic.starts_with(kHighWaterPrefix)) return;
  std::string reports(kHighWaterPrefix);
  reports += topic;
  for (const auto& s : subscriptions_) {
    if (reports.starts_with(s.topic)) return;
  }
  SendSubscription(reports);
}

void Node::SendSubscription(const std::string& prefix) {
  std::string frame(1, '\x01');
  frame += prefix;
  // Queued until connected (the DEALER's pipe exists from connect); never blocks.
  (void)sub_.send(zmq::buffer(frame), zmq::send_flags::dontwait);
}

void Node::SubscribeAny(const std::string& prefix, std::function<void(const RawMessage&)> handler) {
  AddSubscription(prefix, /*exact=*/false, nullptr, nullptr, std::move(handler));
}

flatbuffers::Offset<msg::Header> Node::MakeHeader(flatbuffers::FlatBufferBuilder& fbb, PublisherSlot& slot,
                                                  int64_t stamp_ns, int64_t tick) {
  return msg::CreateHeader(fbb, stamp_ns, tick, ++slot.seq, fbb.CreateString(options_.name), slot.latched,
                           incarnation_);
}

void Node::SendSlot(PublisherSlot& slot, const uint8_t* data, size_t size) {
  if (slot.latched) slot.last.assign(data, data + size);
  if (local_mode_ && local_) {
    // In process the typed publisher's buffer needs no second verification (Forwarding::Admit): a team of 16
    // robots in lockstep spent 8 % of its time checking again what Publisher<T>::Publish had just checked.
    local_->Publish(slot.topic, data, size, /*built_and_checked=*/true);
    CountSent(slot.topic, size);
    return;
  }
  SendRaw(slot.topic, data, size);
}

void Node::ProcessPending() {
  if (local_mode_) return;
  // Reading ZMQ_EVENTS makes a socket process its pending commands (attach, subscriptions).
  (void)pub_.get(zmq::sockopt::events);
  (void)sub_.get(zmq::sockopt::events);
}

void Node::SendRaw(const std::string& topic, const void* data, size_t size) {
  if (local_mode_) {
    if (local_) local_->Publish(topic, static_cast<const uint8_t*>(data), size);  // null: bus gone (teardown)
  } else {
    // PUB never blocks: at the high-water mark ZeroMQ drops, and receivers count the gap.
    pub_.send(zmq::buffer(topic), zmq::send_flags::sndmore | zmq::send_flags::dontwait);
    pub_.send(zmq::const_buffer(data, size), zmq::send_flags::dontwait);
  }
  CountSent(topic, size);
}

void Node::SendShared(const std::string& topic, std::span<const uint8_t> data, std::shared_ptr<const void> owner) {
  if (local_mode_ || owner == nullptr || data.size() < kMinSharedBytes) {
    SendRaw(topic, data.data(), data.size());
    return;
  }
  // Same owner as the last send (the same control block, e.g. the next message of one chunk): one
  // more count on its hold instead of a new allocation per message.
  if (shared_hold_ == nullptr || shared_hold_->owner.owner_before(owner) || owner.owner_before(shared_hold_->owner)) {
    Unhold(shared_hold_);
    shared_hold_ = new SharedHold{std::move(owner), 1};
  }
  shared_hold_->refs.fetch_add(1, std::memory_order_relaxed);  // the frame's; the node holds one already
  // From here the frame owns that count: a failed send closes it (ReleaseShared), a sent one is
  // released by ZeroMQ when done with it.
  zmq::message_t payload(const_cast<uint8_t*>(data.data()), data.size(), &Node::ReleaseShared, shared_hold_);
  try {
    pub_.send(zmq::buffer(topic), zmq::send_flags::sndmore | zmq::send_flags::dontwait);
    pub_.send(payload, zmq::send_flags::dontwait);
  } catch (...) {
    // A socket that can no longer send (its context shut down) will not take the next one either:
    // the node lets go of the owner now rather than at its end.
    Unhold(std::exchange(shared_hold_, nullptr));
    throw;
  }
  CountSent(topic, data.size());
}

void Node::CountSent(const std::string& topic, size_t size) {
  auto& c = sent_[topic];
  ++c.messages;
  c.bytes += size;
  if (send_observer_) send_observer_(topic);
}

bool Node::Wants(const std::string& topic) const {
  for (const auto& s : subscriptions_) {
    if (topic.compare(0, s.topic.size(), s.topic) == 0) return true;
  }
  return false;
}

void Node::ResendLatched() {
  for (auto& slot : publishers_) {
    if (slot.latched && !slot.last.empty()) SendRaw(slot.topic, slot.last.data(), slot.last.size());
  }
}

uint64_t Node::TotalDrops() const {
  uint64_t total = 0;
  for (const auto& [topic, c] : received_) total += c.TotalDrops();
  return total;
}

TopicCounters& Node::Received(const std::string& topic) {
  if (received_.size() >= kMaxTrackedTopics && received_.find(topic) == received_.end()) {
    return received_[kOverflowTopic];
  }
  return received_[topic];
}

void Node::CountDrop(const std::string& topic, uint64_t TopicCounters::*reason, const char* why) {
  const bool overflow = received_.size() >= kMaxTrackedTopics && received_.find(topic) == received_.end();
  ++(Received(topic).*reason);
  if (overflow) return;  // not logged per invented topic
  uint64_t suppressed = 0;
  if (drop_log_[topic].Allow(&suppressed)) {
    LIMBIC_LOG(kWarning) << "dropped a message on '" << topic << "': " << why
                         << (suppressed ? " (" + std::to_string(suppressed) + " more since last report)" : "");
  }
}

int Node::Poll(std::chrono::milliseconds timeout, int max_messages) {
  if (options_.latched_resend.count() > 0 && std::chrono::steady_clock::now() >= next_latched_resend_) {
    ResendLatched();
    next_latched_resend_ = std::chrono::steady_clock::now() + options_.latched_resend;
  }
  if (!local_mode_ && options_.high_water_period.count() > 0 && std::chrono::steady_clock::now() >= next_high_water_) {
    SendHighWaterReports();
    next_high_water_ = std::chrono::steady_clock::now() + options_.high_water_period;
  }
  if (!local_mode_ && !subscriptions_.empty() && options_.keepalive.count() > 0 &&
      std::chrono::steady_clock::now() >= next_keepalive_) {
    (void)sub_.send(zmq::const_buffer(nullptr, 0), zmq::send_flags::dontwait);
    next_keepalive_ = std::chrono::steady_clock::now() + options_.keepalive;
  }
  if (shm_) shm_->CheckRouDi(std::chrono::steady_clock::now());
  // What is already queued is handled without a poll(2): waiting only when there is nothing. Shared memory
  // first: a message published there and mirrored to the socket is then seen first where it arrives first.
  int handled = DrainShm(max_messages);
  handled += Drain(max_messages - handled);
  // On a LocalBus nothing can arrive while this thread waits: there is nothing to wait for.
  if (handled > 0 || timeout.count() <= 0 || local_mode_) return handled;
  const int wake_fd = shm_ ? shm_->wake_fd() : -1;
  zmq::pollitem_t items[] = {{sub_.handle(), 0, ZMQ_POLLIN, 0}, {nullptr, wake_fd, ZMQ_POLLIN, 0}};
  try {
    zmq::poll(items, wake_fd >= 0 ? 2 : 1, timeout);
  } catch (const zmq::error_t& e) {
    if (e.num() != EINTR) throw;  // interrupted by a signal: handle what is there
  }
  handled = DrainShm(max_messages);
  return handled + Drain(max_messages - handled);
}

int Node::DrainShm(int max_messages) {
  if (!shm_) return 0;
  // The chunk is read where it lies: the same checks as a frame from the socket (Dispatch), then released.
  return shm_->Drain(max_messages,
                     [this](const std::string& topic, const uint8_t* data, size_t size, const char* error) {
                       if (error != nullptr) {
                         CountDrop(topic, &TopicCounters::drops_malformed, error);
                         return;
                       }
                       Dispatch(topic, data, size);
                     });
}

int Node::Drain(int max_messages) {
  int handled = 0;
  if (local_mode_) {
    // A handler may publish to this node's own inbox: take each message out before dispatching it.
    while (handled < max_messages && !inbox_.empty()) {
      Queued next = std::move(inbox_.front());
      inbox_.pop_front();
      ++handled;
      Dispatch(next.topic, next.payload->data(), next.payload->size(), next.admitted, &next.payload);
    }
    return handled;
  }
  while (handled < max_messages) {
    zmq::message_t topic_frame;
    if (!sub_.recv(topic_frame, zmq::recv_flags::dontwait)) break;
    if (!topic_frame.more() && topic_frame.size() == 1) {
      // The broker's control messages (broker.hpp): 0 ping, 1 "send your subscriptions again".
      if (*static_cast<const uint8_t*>(topic_frame.data()) == 1) {
        for (const auto& s : subscriptions_) SubscribeWithReports(s.topic);
      }
      continue;
    }
    ++handled;
    std::string topic = topic_frame.to_string();
    if (!topic_frame.more()) {
      CountDrop(topic, &TopicCounters::drops_malformed, "single-frame message (expected [topic][payload])");
      continue;
    }
    zmq::message_t payload;
    if (!sub_.recv(payload, zmq::recv_flags::dontwait)) {
      CountDrop(topic, &TopicCounters::drops_malformed, "missing payload frame");
      continue;
    }
    if (payload.more()) {
      zmq::message_t extra;
      while (payload.more() && sub_.recv(extra, zmq::recv_flags::dontwait) && extra.more()) {
      }
      CountDrop(topic, &TopicCounters::drops_malformed, "more than two frames");
      continue;
    }
    Dispatch(topic, aligned_.Align(static_cast<const uint8_t*>(payload.data()), payload.size()), payload.size());
  }
  return handled;
}

void Node::Dispatch(const std::string& topic, const uint8_t* data, size_t size, bool admitted,
                    const std::shared_ptr<const std::vector<uint8_t>>* shared) {
  if (topic.size() > kHighWaterPrefix.size() && topic.starts_with(kHighWaterPrefix)) {
    HandleReport(topic, data, size, admitted, shared);
    return;
  }
  // Prefix filtering in ZeroMQ can deliver topics nobody asked for exactly ("r1/scan" vs "r1/scanner").
  bool wanted = false;
  for (const auto& s : subscriptions_) {
    if (s.exact ? topic == s.topic : topic.compare(0, s.topic.size(), s.topic) == 0) {
      wanted = true;
      break;
    }
  }
  if (!wanted) return;
  if (size > messages::kMaxPayloadBytes) {
    CountDrop(topic, &TopicCounters::drops_oversize, "payload above the size cap");
    return;
  }
  const messages::MessageType* type = messages::FindByIdentifier(messages::IdentifierOf(data, size));
  if (type == nullptr) {
    CountDrop(topic, &TopicCounters::drops_wrong_type, "unknown buffer identifier");
    return;
  }
  if (!admitted && !type->verify(data, size)) {
    CountDrop(topic, &TopicCounters::drops_malformed, "failed FlatBuffers verification");
    return;
  }
  const msg::Header* header = messages::HeaderOf(data);
  if (header == nullptr || header->source() == nullptr) {
    CountDrop(topic, &TopicCounters::drops_malformed, "message without a header");
    return;
  }
  for (const auto& s : subscriptions_) {
    if (s.exact && topic == s.topic && s.identifier != nullptr && messages::IdentifierOf(data, size) != s.identifier) {
      CountDrop(topic, &TopicCounters::drops_wrong_type,
                (std::string("expected ") + s.identifier + ", got " + type->identifier).c_str());
      return;
    }
  }
  // Well-formed is not the same as sane: a NaN goal verifies (issue 15, finding 1).
  if (!admitted) {
    if (const std::string invalid = messages::ValidateValues(*type, data, size); !invalid.empty()) {
      CountDrop(topic, &TopicCounters::drops_invalid, ("invalid value: " + invalid).c_str());
      return;
    }
  }
  auto& counters = Received(topic);
  const SequenceTracker::Outcome seq =
      sequences_.OnMessage(topic, std::string_view(header->source()->c_str(), header->source()->size()),
                           header->incarnation(), header->seq());
  counters.drops_gap += seq.gap;
  counters.drops_tail += seq.tail;
  counters.drops_tail -= std::min(counters.drops_tail, seq.tail_recovered);
  if (!seq.deliver) {
    ++counters.duplicates;  // a latched re-send or broker replay we already have
    return;
  }
  ++counters.messages;
  counters.bytes += size;
  counters.last_seen_ns = WallNowNs();
  const RawMessage raw{topic, *type, *header, data, size, shared};
  for (const auto& s : subscriptions_) {
    const bool match = s.exact ? topic == s.topic : topic.compare(0, s.topic.size(), s.topic) == 0;
    if (!match) continue;
    try {
      s.handler(raw);
    } catch (const std::exception& e) {
      // Exceptions never cross the bus: a failing handler is logged, the node keeps running.
      LIMBIC_LOG(kError) << "handler for '" << topic << "' threw: " << e.what();
    }
  }
}

}  // namespace limbic::bus
