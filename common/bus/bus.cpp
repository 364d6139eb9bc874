#include "common/bus/bus.hpp"

#include <arpa/inet.h>
#include <netdb.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <random>
#include <stdexcept>
#include <utility>

#include "common/bus/local_bus.hpp"
#include "common/bus/message_class.hpp"
#include "messages/validate.hpp"

namespace limbic::bus {
namespace {

// Is `id` (a payload's FlatBuffers identifier, messages::IdentifierOf: 4 bytes or empty) the registered identifier
// `known`? Inline, without the strlen and memcmp calls of string_view == const char*: Dispatch asks twice a message
// (~45,000 instructions a 16-robot lockstep tick; issue 18). `known` is a registered type's identifier
// (MessageType::identifier, Traits<T>::kIdentifier): four characters and a NUL, as flatc requires of a schema's
// file_identifier and registry_test checks against the schemas.
inline bool SameIdentifier(std::string_view id, const char* known) {
  return id.size() == 4 && std::memcmp(id.data(), known, 4) == 0 && known[4] == '\0';
}

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

std::optional<DataPath> DataPathFromEnvironment() {
  const char* value = std::getenv("LIMBIC_BUS_PATH");
  if (value == nullptr || *value == '\0') return std::nullopt;
  return ParseDataPath(value, "LIMBIC_BUS_PATH");
}

DataPath DefaultDataPath() { return DataPathFromEnvironment().value_or(DataPath::kDirect); }

DataPath ParseDataPath(std::string_view text, std::string_view what) {
  if (text == "broker") return DataPath::kBroker;
  if (text == "direct") return DataPath::kDirect;
  throw std::invalid_argument(std::string(what) + "='" + std::string(text) + "': expected broker or direct");
}

void UseDataPathForProcess(std::string_view text, std::string_view what) {
  const DataPath path = ParseDataPath(text, what);
  ::setenv("LIMBIC_BUS_PATH", DataPathName(path), 1);
}

const char* DataPathName(DataPath path) { return path == DataPath::kDirect ? "direct" : "broker"; }

namespace {

// The address of this host's interface on the way to `host`:`port` (tcp): a UDP socket connected there sends
// nothing, but the kernel picks the route and so the source address, which is the address a peer on the broker's
// side can reach this node at (in this network namespace). Empty if there is no route.
std::string LocalAddressToward(const std::string& host, int port, bool* ipv6) {
  std::string name = host;
  if (name.size() >= 2 && name.front() == '[') name = name.substr(1, name.size() - 2);
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_DGRAM;
  addrinfo* found = nullptr;
  if (getaddrinfo(name.c_str(), std::to_string(port).c_str(), &hints, &found) != 0 || found == nullptr) return "";
  std::string result;
  const int fd = socket(found->ai_family, SOCK_DGRAM, 0);
  if (fd >= 0 && connect(fd, found->ai_addr, found->ai_addrlen) == 0) {
    sockaddr_storage local{};
    socklen_t length = sizeof(local);
    char text[INET6_ADDRSTRLEN] = {};
    if (getsockname(fd, reinterpret_cast<sockaddr*>(&local), &length) == 0) {
      if (local.ss_family == AF_INET6) {
        inet_ntop(AF_INET6, &reinterpret_cast<sockaddr_in6*>(&local)->sin6_addr, text, sizeof(text));
        result = std::string("[") + text + "]";
        *ipv6 = true;
      } else {
        inet_ntop(AF_INET, &reinterpret_cast<sockaddr_in*>(&local)->sin_addr, text, sizeof(text));
        result = text;
      }
    }
  }
  if (fd >= 0) close(fd);
  freeaddrinfo(found);
  return result;
}

std::atomic<unsigned> next_data_socket{0};

}  // namespace
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

int64_t Node::CoarseWallNowNs() {
  timespec t{};
  clock_gettime(CLOCK_REALTIME_COARSE, &t);
  return static_cast<int64_t>(t.tv_sec) * 1'000'000'000 + t.tv_nsec;
}

Node::Node(zmq::context_t& context, const std::string& bus_address, NodeOptions options)
    : options_(std::move(options)),
      pub_(context, zmq::socket_type::pub),
      sub_(context, zmq::socket_type::dealer),
      context_(&context),
      bus_address_(bus_address),
      data_sub_(context, zmq::socket_type::sub) {
  const BrokerEndpoints endpoints = ResolveBusAddress(bus_address);
  path_ = options_.data_path ? *options_.data_path : DefaultDataPath();
  direct_any_ = path_ == DataPath::kDirect || !options_.other_path_topics.empty();
  data_sub_.set(zmq::sockopt::linger, 0);
  data_sub_.set(zmq::sockopt::rcvhwm, options_.receive_hwm);
  data_sub_.set(zmq::sockopt::reconnect_ivl, static_cast<int>(options_.reconnect_interval.count()));
  data_sub_.set(zmq::sockopt::reconnect_ivl_max, 1000);
  data_sub_.set(zmq::sockopt::ipv6, 1);  // announced endpoints may be either family
  if (options_.curve.enabled()) {
    // A CURVE client of each direct publisher: the server key is set per endpoint, from the broker's entry.
    data_sub_.set(zmq::sockopt::curve_publickey, options_.curve.client_public);
    data_sub_.set(zmq::sockopt::curve_secretkey, options_.curve.client_secret);
  }
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
  if (shm_) {
    // A summary, so that a run's log says whether shared memory carried what it was meant to.
    const ShmCounters& c = shm_->counters();
    LIMBIC_LOG(kInfo) << "shared memory: " << c.sent << " messages sent, " << c.received << " received, " << c.fallbacks
                      << " sent over the socket path for want of a chunk, " << c.malformed << " malformed"
                      << (shm_->active() ? "" : " (RouDi lost: off since)");
  }
  if (local_) local_->Detach(this);
  if (zap_) zap_->Remove(zap_domain_);
  if (data_endpoint_.starts_with("ipc://")) {
    // ZeroMQ removes the socket file when its I/O thread gets round to it; removed now, so that the shared
    // `<bus path>.d` can go with the last node that used it (rmdir fails while others are in it, as it should).
    data_pub_.close();
    const std::string path = data_endpoint_.substr(6);
    (void)unlink(path.c_str());
    (void)rmdir(path.substr(0, path.rfind('/')).c_str());
  }
  Unhold(shared_hold_);  // frames still queued keep their owner until ZeroMQ lets them go
}

Node::Inlet* Node::TrackedInletFor(std::string_view topic) {
  if (inlets_.size() >= kMaxTrackedTopics && inlets_.find(topic) == inlets_.end()) return nullptr;
  return InletFor(topic);
}

void Node::Enqueue(Inlet* inlet, std::shared_ptr<const std::vector<uint8_t>> payload, bool admitted) {
  inbox_.push_back(Queued{inlet, std::move(payload), admitted});
}

Node::Inlet* Node::InletFor(std::string_view topic) {
  auto it = inlets_.find(topic);
  if (it == inlets_.end()) {
    it = inlets_.emplace(std::string(topic), Inlet{}).first;
    it->second.topic = it->first;
  }
  return &it->second;
}

size_t Node::AddPublisher(const std::string& topic, bool latched, const char* identifier) {
  // A latched topic takes the broker path: the broker's latch cache keeps its value for late joiners after the
  // publisher has gone — above all for the publisher itself restarted, which resumes from its own snapshot (the
  // affect engine, the mission, the exploration manager). A direct publisher's socket goes with its process.
  if (latched && direct_any_ && !routes_.count(topic) && routes_.size() < kMaxTrackedTopics) {
    routes_.emplace(topic, false);
  }
  // Announced now rather than on the first message, so that subscribers are connected by the time it is sent.
  const bool direct = !local_mode_ && direct_any_ &&
                      &SocketFor(topic, identifier != nullptr ? identifier : std::string_view()) == &data_pub_;
  if (direct && identifier != nullptr && !announced_types_.count(topic)) {
    // The broker does not see a direct topic's messages: it is told the type, for bus/stats.
    announced_types_[topic] = identifier;
    const std::string frame = EncodeTopicType(TopicType{topic, identifier});
    (void)sub_.send(zmq::buffer(frame), zmq::send_flags::dontwait);
  }
  publishers_.push_back(PublisherSlot{topic, latched, 0, {}, direct});
  latched_slots_ += latched ? 1 : 0;
  if (shm_ && identifier != nullptr) publishers_.back().shm = shm_->AddPublisher(topic, identifier);
  return publishers_.size() - 1;
}

bool Node::RouteDirect(const std::string& topic) const {
  if (topic.starts_with(kHighWaterPrefix)) return false;  // a raw report: nothing to announce it under
  bool direct = path_ == DataPath::kDirect;
  if (direct) {
    for (const std::string_view control : kControlTopics) {
      if (topic.starts_with(control)) direct = false;
    }
  }
  for (const auto& prefix : options_.other_path_topics) {
    if (topic.starts_with(prefix)) return path_ != DataPath::kDirect;
  }
  return direct;
}

zmq::socket_t& Node::SocketFor(const std::string& topic, std::string_view identifier) {
  if (!direct_any_) return pub_;
  auto it = routes_.find(topic);
  if (it == routes_.end()) {
    // Bounded like every per-topic table: invented topic names beyond it take the broker path.
    if (routes_.size() >= kMaxTrackedTopics) return pub_;
    // An event sent directly in the moment after the topic is announced would reach only the subscribers already
    // connected; through the broker it reaches every subscription the broker holds (docs/protocol.md §13, "First
    // messages"). A state topic's late first value is like a later start, so state goes direct.
    const bool direct = RouteDirect(topic) && (options_.direct_events || IsStateIdentifier(identifier));
    it = routes_.emplace(topic, direct).first;
    if (direct) Announce(topic);
  }
  return it->second ? data_pub_ : pub_;
}

void Node::BindDataSocket() {
  if (data_pub_) return;
  data_pub_ = zmq::socket_t(*context_, zmq::socket_type::xpub);
  data_pub_.set(zmq::sockopt::linger, 0);
  // Fixed here, for good. It used to be lowered to a byte budget over the largest message sent, on the connections
  // there were: libzmq 4.3's reader acknowledges what it took from a connection's pipe every half of the mark the pipe
  // was made with (pipe.cpp, compute_lwm), so a mark lowered to or below what it had taken unacknowledged stops that
  // connection for good — full to the writer, nothing left for the reader to take and acknowledge — and every later
  // message to that subscriber, reports included, was dropped without a trace (direct_test,
  // SubscribersKeepReceivingAfterALargeMessageWasSent). A connection made after the change starts from the mark the
  // socket was bound with, so the same held for it.
  data_pub_.set(zmq::sockopt::sndhwm, DirectSendHwm(options_));
  // Every subscription, repeated ones too, so that each new subscriber gets the latched value (DrainDataSubscriptions).
  data_pub_.set(zmq::sockopt::xpub_verbose, 1);
  if (options_.curve.enabled()) {
    // A CURVE server with this node's own key pair (subscribers learn its public key from the broker, which
    // authenticated it), admitting exactly the client keys the broker admits (kAdmittedKeys, on this node's first
    // announcement); a handshake before they arrive waits for them (ZapService::AwaitKeys).
    zap_ = ZapService::For(*context_);
    zap_domain_ = UniqueZapDomain("limbic-direct");
    zap_->AwaitKeys(zap_domain_);  // until the broker's list of admitted keys arrives
    data_pub_.set(zmq::sockopt::curve_server, 1);
    data_pub_.set(zmq::sockopt::curve_secretkey, options_.curve.client_secret);
    data_pub_.set(zmq::sockopt::zap_domain, zap_domain_);
  }
  const auto [scheme, rest] = SplitScheme(bus_address_);
  const std::string suffix = std::to_string(getpid()) + "-" + std::to_string(next_data_socket.fetch_add(1));
  if (scheme == "ipc") {
    // Beside the bus's own sockets; ZeroMQ removes the file when the socket closes.
    const std::string dir = rest + ".d";
    if (mkdir(dir.c_str(), 0777) != 0 && errno != EEXIST) {
      throw std::runtime_error("node '" + options_.name + "': cannot create " + dir +
                               " for its direct data socket: " + std::strerror(errno));
    }
    data_pub_.bind("ipc://" + dir + "/" + suffix);
  } else if (scheme == "inproc") {
    data_pub_.bind("inproc://" + rest + ".d/" + suffix);
  } else {
    const auto colon = rest.rfind(':');
    bool ipv6 = false;
    const std::string local = LocalAddressToward(rest.substr(0, colon), std::stoi(rest.substr(colon + 1)), &ipv6);
    if (local.empty()) {
      throw std::runtime_error("node '" + options_.name + "': no route toward the broker at " + bus_address_ +
                               " to bind its direct data socket on");
    }
    if (ipv6) data_pub_.set(zmq::sockopt::ipv6, 1);
    data_pub_.bind("tcp://" + local + ":*");
  }
  data_endpoint_ = data_pub_.get(zmq::sockopt::last_endpoint);
  LIMBIC_LOG(kInfo) << "node '" << options_.name << "' publishes directly on " << data_endpoint_;
}

void Node::Announce(const std::string& topic) {
  BindDataSocket();
  announced_.push_back(topic);
  SendAnnouncement(topic);
}

void Node::SendAnnouncement(const std::string& topic) {
  // Subscribers told of it now connect and subscribe: their welcomes are due (NodeOptions::direct_subscription_watch).
  watch_subscriptions_until_ = std::chrono::steady_clock::now() + options_.direct_subscription_watch;
  const std::string frame = EncodeDirectoryEntry(kAnnounce, DirectoryEntry{topic, data_endpoint_});
  (void)sub_.send(zmq::buffer(frame), zmq::send_flags::dontwait);
  if (auto type = announced_types_.find(topic); type != announced_types_.end()) {
    (void)sub_.send(zmq::buffer(EncodeTopicType(TopicType{topic, type->second})), zmq::send_flags::dontwait);
  }
}

int DirectSendHwm(const NodeOptions& options) {
  int by_bytes = 0;
  if (options.direct_queue_bytes != 0 && options.direct_max_message_bytes != 0) {
    const size_t marks = options.direct_queue_bytes / options.direct_max_message_bytes;
    by_bytes = static_cast<int>(std::clamp<size_t>(marks, 2, std::numeric_limits<int>::max()));
  }
  if (options.send_hwm == 0) return by_bytes;
  return by_bytes == 0 ? options.send_hwm : std::min(options.send_hwm, by_bytes);
}

bool Node::MovedForSize(const std::string& topic, size_t size) {
  if (options_.direct_max_message_bytes == 0 || size <= options_.direct_max_message_bytes) return false;
  if (UseBroker(topic, "a message of " + std::to_string(size) + " bytes, over the direct limit of " +
                           std::to_string(options_.direct_max_message_bytes) +
                           " (NodeOptions::direct_max_message_bytes): the broker bounds its subscribers' queues in "
                           "bytes")) {
    ++direct_oversize_moves_;
  }
  return true;
}

zmq::socket_t& Node::SocketForMessage(const std::string& topic, const uint8_t* data, size_t size) {
  zmq::socket_t& out = SocketFor(topic, messages::IdentifierOf(data, size));
  return &out == &data_pub_ && MovedForSize(topic, size) ? pub_ : out;
}

bool Node::UseBroker(const std::string& topic, std::string_view why) {
  auto it = std::find(announced_.begin(), announced_.end(), topic);
  if (it == announced_.end()) return false;  // not one of ours (or moved already)
  announced_.erase(it);
  announced_types_.erase(topic);
  routes_[topic] = false;
  for (auto& slot : publishers_) {
    if (slot.topic == topic) slot.direct = false;
  }
  const std::string frame = EncodeDirectoryEntry(kWithdraw, DirectoryEntry{topic, data_endpoint_});
  (void)sub_.send(zmq::buffer(frame), zmq::send_flags::dontwait);
  LIMBIC_LOG(kInfo) << "node '" << options_.name << "': '" << topic << "' moves to the broker path (" << why << ")";
  return true;
}

bool Node::PublishesDirect(const std::string& topic) const {
  auto it = routes_.find(topic);
  return it != routes_.end() && it->second;
}

void Node::RejectDirectory(const std::string& why) {
  ++directory_rejected_;  // counted every time, said once a burst (a broker of another version could send many)
  uint64_t suppressed = 0;
  if (drop_log_["<directory>"].Allow(&suppressed)) {
    LIMBIC_LOG(kWarning) << "node '" << options_.name << "': ignored a directory message from the broker: " << why
                         << (suppressed ? " (" + std::to_string(suppressed) + " more since last report)" : "");
  }
}

void Node::HandleAdmittedKeys(const uint8_t* data, size_t size) {
  if (!zap_) {
    // Not a CURVE publisher (no CURVE, or nothing published directly yet): nothing to admit with. A later first
    // announcement is answered with the list again.
    if (!options_.curve.enabled()) RejectDirectory("admitted keys sent to a node without CURVE");
    return;
  }
  std::string why;
  const auto keys = ParseAdmittedKeys(std::string_view(reinterpret_cast<const char*>(data) + 1, size - 1), &why);
  if (!keys) {
    RejectDirectory(why);
    return;
  }
  zap_->Admit(zap_domain_, *keys);
  admitted_keys_ = keys->size();
}

void Node::HandleDirectory(const uint8_t* data, size_t size) {
  std::string why;
  const auto entry = ParseDirectoryEntry(std::string_view(reinterpret_cast<const char*>(data) + 1, size - 1), &why);
  if (!entry) {
    RejectDirectory(why);
    return;
  }
  // CURVE: connect only where the broker vouches for the publisher's key (inproc, inside one process, has no
  // handshake and needs none); without CURVE there is nothing to check a key with.
  const bool keyed = options_.curve.enabled() && !entry->endpoint.starts_with("inproc://");
  if (data[0] == kAnnounce && keyed && entry->key.empty()) {
    RejectDirectory("an entry without the publisher's key on a CURVE bus (" + entry->endpoint + ")");
    return;
  }
  if (data[0] == kAnnounce && !options_.curve.enabled() && !entry->key.empty()) {
    RejectDirectory("an entry with a CURVE key, and this node has no CURVE keys (" + entry->endpoint + ")");
    return;
  }
  if (data[0] == kWithdraw) {
    const DirectLinks::Change change = links_.Remove(*entry);
    if (change.unsubscribe) {
      data_sub_.set(zmq::sockopt::unsubscribe, entry->topic);
      data_sub_.set(zmq::sockopt::unsubscribe, std::string(kHighWaterPrefix) + entry->topic);
      welcomed_.erase(entry->topic);
      tick_marks_.erase(entry->topic);  // its publishers' later ticks come through the broker, in order with `clock`
    }
    // change.disconnect: the endpoint lingers until the data socket has been drained (DirectLinks, DrainData).
    return;
  }
  // Only what this node subscribed to (the broker sends no more; a topic under a prefix subscription counts).
  bool wanted = false;
  for (const auto& s : subscriptions_) {
    if (s.exact ? entry->topic == s.topic : entry->topic.starts_with(s.topic)) wanted = true;
  }
  if (!wanted) return;  // (its own data socket included: a node hears itself on the broker path too)
  const DirectLinks::Change change = links_.Add(*entry);
  // change.reconnect (a publisher with a new key at an endpoint still connected with the old one): let go of and
  // connected again where the data socket has been drained (DirectLinks, DrainData), as a withdrawn one is let go of.
  if (change.connect && !ConnectData(entry->endpoint, entry->key)) {
    links_.Remove(*entry);
    return;
  }
  if (change.subscribe) {
    // The reports first: the publisher welcomes the subscription to the topic itself with a report (SendWelcome),
    // which must find this one applied already. ZeroMQ's SUB sends each subscription down every connection in the
    // order they are made (a connection made later gets them all at once, in lexical order) and the XPUB applies them
    // in the order they arrive.
    data_sub_.set(zmq::sockopt::subscribe, std::string(kHighWaterPrefix) + entry->topic);
    data_sub_.set(zmq::sockopt::subscribe, entry->topic);
  }
}

bool Node::DirectLinksReady(std::string* waiting) const {
  bool ready = true;
  links_.ForEachTopic([&](const std::string& topic, size_t endpoints) {
    auto it = welcomed_.find(topic);
    if (it != welcomed_.end() && it->second.size() >= endpoints) return;
    ready = false;
    if (waiting) *waiting += (waiting->empty() ? "" : " ") + topic;
  });
  return ready;
}

void Node::DrainDataSubscriptions() {
  zmq::message_t m;
  bool subscribed = false;
  while (data_pub_.recv(m, zmq::recv_flags::dontwait)) {
    const auto* bytes = static_cast<const uint8_t*>(m.data());
    if (m.size() < 1 || bytes[0] != 1) continue;  // an unsubscription
    subscribed = true;
    const std::string_view topic(reinterpret_cast<const char*>(bytes) + 1, m.size() - 1);
    // The XPUB has applied this subscription (it hands it up after): tell the subscriber so (DirectLinksReady).
    // A topic that sorts before its reports ("a1/odom" < "bus/hwm/a1/odom") is welcomed once more a moment later: a
    // subscriber's SUB sends a connection made after its subscriptions (a second publisher of a topic it has, a
    // reconnection) all of them at once in lexical order, so this subscription can be applied here before the one
    // to its reports has arrived, and that welcome is dropped by the subscriber's own filter; the next one finds
    // both applied (the subscriber sent them together).
    if (SendWelcome(topic) && topic < kHighWaterPrefix) {
      rewelcome_.insert_or_assign(std::string(topic), std::chrono::steady_clock::now() + kRewelcomeDelay);
    }
    // A new subscriber's first value of a latched topic (the broker's replay, on this path). Everyone else
    // subscribed gets it again: a duplicate, skipped by sequence number.
    for (const auto& slot : publishers_) {
      if (slot.direct && slot.latched && !slot.last.empty() && slot.topic == topic) {
        data_pub_.send(zmq::buffer(slot.topic), zmq::send_flags::sndmore | zmq::send_flags::dontwait);
        data_pub_.send(zmq::const_buffer(slot.last.data(), slot.last.size()), zmq::send_flags::dontwait);
      }
    }
  }
  const auto now = std::chrono::steady_clock::now();
  // More subscribers may follow (a team starting up): Poll waits on data_pub_ a while longer.
  if (subscribed) watch_subscriptions_until_ = now + options_.direct_subscription_watch;
  for (auto it = rewelcome_.begin(); it != rewelcome_.end();) {
    if (it->second > now) {
      ++it;
      continue;
    }
    SendWelcome(it->first);
    it = rewelcome_.erase(it);
  }
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
    if (slot.channel == nullptr) slot.channel = &local_->ChannelFor(slot.topic);
    local_->Publish(*static_cast<LocalBus::Channel*>(slot.channel), data, size, /*built_and_checked=*/true);
    CountSent(slot, size);
    return;
  }
  if (slot.direct && !MovedForSize(slot.topic, size)) {
    data_pub_.send(zmq::buffer(slot.topic), zmq::send_flags::sndmore | zmq::send_flags::dontwait);
    data_pub_.send(zmq::const_buffer(data, size), zmq::send_flags::dontwait);
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
  (void)data_sub_.get(zmq::sockopt::events);
  if (data_pub_) (void)data_pub_.get(zmq::sockopt::events);
}

void Node::SendRaw(const std::string& topic, const void* data, size_t size) {
  if (local_mode_) {
    // null: bus gone (teardown)
    if (local_) local_->Publish(local_->ChannelFor(topic), static_cast<const uint8_t*>(data), size);
  } else {
    // PUB never blocks: at the high-water mark ZeroMQ drops, and receivers count the gap.
    zmq::socket_t& out = SocketForMessage(topic, static_cast<const uint8_t*>(data), size);
    out.send(zmq::buffer(topic), zmq::send_flags::sndmore | zmq::send_flags::dontwait);
    out.send(zmq::const_buffer(data, size), zmq::send_flags::dontwait);
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
    zmq::socket_t& out = SocketForMessage(topic, data.data(), data.size());
    out.send(zmq::buffer(topic), zmq::send_flags::sndmore | zmq::send_flags::dontwait);
    out.send(payload, zmq::send_flags::dontwait);
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
  if (send_observer_) send_observer_(topic, nullptr);
}

void Node::CountSent(PublisherSlot& slot, size_t size) {
  if (slot.sent == nullptr) slot.sent = &sent_[slot.topic];
  ++slot.sent->messages;
  slot.sent->bytes += size;
  if (send_observer_) send_observer_(slot.topic, &slot.observer_cache);
}

void Node::SetSendObserver(SendObserver observer) {
  send_observer_ = std::move(observer);
  for (auto& slot : publishers_) slot.observer_cache = nullptr;  // the old observer's
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
  // Only a node with a latched publisher reads the clock for it (issue 18: most of a lockstep team's nodes have none,
  // and poll many times a tick).
  if (latched_slots_ > 0 && options_.latched_resend.count() > 0 &&
      std::chrono::steady_clock::now() >= next_latched_resend_) {
    ResendLatched();
    next_latched_resend_ = std::chrono::steady_clock::now() + options_.latched_resend;
  }
  if (!local_mode_ && options_.high_water_period.count() > 0 && std::chrono::steady_clock::now() >= next_high_water_) {
    SendHighWaterReports();
    next_high_water_ = std::chrono::steady_clock::now() + options_.high_water_period;
  }
  if (!local_mode_ && (!subscriptions_.empty() || !announced_.empty()) && options_.keepalive.count() > 0 &&
      std::chrono::steady_clock::now() >= next_keepalive_) {
    (void)sub_.send(zmq::const_buffer(nullptr, 0), zmq::send_flags::dontwait);
    next_keepalive_ = std::chrono::steady_clock::now() + options_.keepalive;
  }
  if (shm_) shm_->CheckRouDi(std::chrono::steady_clock::now());
  // Without a wait (and on a LocalBus, where nothing can arrive while this thread waits) what is queued is taken at
  // once. With one, zmq_poll below asks every socket first and returns at once if one has something; taking from each
  // before it would ask each empty socket twice — a failed receive is a poll(2) of its mailbox and a getpid in
  // ZeroMQ, and those checks were what a direct hop cost beyond the raw pair's (strace, 2026-11-29).
  if (timeout.count() <= 0 || local_mode_) return DrainBoth(max_messages);
  // A welcome to send again (DrainDataSubscriptions) is not left waiting for the next message.
  if (!rewelcome_.empty()) timeout = std::min(timeout, kRewelcomeDelay);
  // Only the sockets that can have something (zmq_poll asks each one's mailbox, a system call): the SUB once it has
  // direct links, the XPUB while a new subscriber's welcome (and latched value) can be due — a while after an
  // announcement or the last subscription (NodeOptions::direct_subscription_watch; later ones are read when the node
  // wakes for anything else) — and shared memory's wake-up.
  zmq::pollitem_t items[4];
  int count = 0;
  items[count++] = {sub_.handle(), 0, ZMQ_POLLIN, 0};
  if (links_.endpoints() > 0 || links_.lingering() > 0) items[count++] = {data_sub_.handle(), 0, ZMQ_POLLIN, 0};
  const bool watch = data_pub_ && std::chrono::steady_clock::now() < watch_subscriptions_until_;
  const int subscriptions_item = watch ? count : -1;
  if (watch) items[count++] = {data_pub_.handle(), 0, ZMQ_POLLIN, 0};
  const int wake_fd = shm_ ? shm_->wake_fd() : -1;
  if (wake_fd >= 0) items[count++] = {nullptr, wake_fd, ZMQ_POLLIN, 0};
  try {
    zmq::poll(items, count, timeout);
  } catch (const zmq::error_t& e) {
    if (e.num() != EINTR) throw;  // interrupted by a signal: handle what is there
  }
  // A new subscriber: its welcome (and a latched value) now.
  if (subscriptions_item >= 0 && (items[subscriptions_item].revents & ZMQ_POLLIN)) next_data_subscriptions_ = {};
  return DrainBoth(max_messages);
}

int Node::DrainBoth(int max_messages) {
  // Shared memory first: a message published there and mirrored to the socket is then seen first where it arrives
  // first. And again after the sockets gave something: a chunk published before a message just read from a socket
  // (its publisher's tick report, the lockstep ack and so the clock it preceded) is in its queue by now, and must be
  // handled before Poll returns — a lockstep step runs once Poll returns, and must not see the report without the data.
  // (A budget of its own: the chunks ahead of what the sockets gave are few — the subscribers' queues — and all due.)
  int handled = DrainShm(max_messages);
  const int from_sockets = Drain(max_messages - handled);
  handled += from_sockets;
  if (from_sockets > 0) handled += DrainShm(max_messages);
  return handled;
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
      Dispatch(next.inlet->topic, next.payload->data(), next.payload->size(), next.admitted, &next.payload, next.inlet);
    }
    return handled;
  }
  // A failed non-blocking receive costs ZeroMQ a poll(2) of the socket's mailbox (~1 µs, as much as a whole
  // message): a socket that cannot have anything is not asked. Without direct links data_sub_ has nothing; with
  // them, the DEALER and the SUB take turns at going first, the second reading only what budget is left. New
  // subscribers at data_pub_ are read every 10 ms (or when Poll's wait saw them): their latched value can wait that.
  if (links_.endpoints() == 0 && links_.lingering() == 0) {
    handled += DrainData(sub_, /*control=*/true, max_messages);
  } else {
    control_first_ = !control_first_;
    zmq::socket_t& first = control_first_ ? sub_ : data_sub_;
    zmq::socket_t& second = control_first_ ? data_sub_ : sub_;
    handled += DrainData(first, &first == &sub_, max_messages);
    if (handled < max_messages) handled += DrainData(second, &second == &sub_, max_messages - handled);
  }
  if (data_pub_) {
    const auto now = std::chrono::steady_clock::now();
    if (now >= next_data_subscriptions_) {
      DrainDataSubscriptions();
      next_data_subscriptions_ = now + std::chrono::milliseconds(10);
    }
  }
  return handled;
}

void Node::DisconnectData(const std::string& endpoint) {
  try {
    data_sub_.disconnect(endpoint);
  } catch (const zmq::error_t&) {  // never connected (it had failed): nothing to let go of
  }
}

bool Node::ConnectData(const std::string& endpoint, const std::string& key) {
  try {
    // The publisher's key for this connection (ZeroMQ takes the socket's options at connect, reconnects too); none
    // for inproc, inside one process, which has no handshake (HandleDirectory).
    if (options_.curve.enabled() && !endpoint.starts_with("inproc://")) {
      data_sub_.set(zmq::sockopt::curve_serverkey, key);
    }
    // Asynchronous: an endpoint that has gone is retried in the background, never waited for.
    data_sub_.connect(endpoint);
    return true;
  } catch (const zmq::error_t& e) {
    ++directory_rejected_;
    LIMBIC_LOG(kWarning) << "node '" << options_.name << "': cannot connect to " << endpoint << ": " << e.what();
    return false;
  }
}

int Node::DrainData(zmq::socket_t& socket, bool control, int max_messages) {
  int handled = 0;
  while (handled < max_messages) {
    zmq::message_t topic_frame;
    if (!socket.recv(topic_frame, zmq::recv_flags::dontwait)) {
      // Drained: nothing half-read, no pipe counted active — where a withdrawn endpoint can be let go of (DirectLinks).
      if (&socket == &data_sub_ && links_.lingering() > 0) {
        for (const auto& endpoint : links_.TakeLingering()) DisconnectData(endpoint);
        // A publisher with a new key where the old connection was: connected again now, with that key (CURVE).
        for (const auto& [endpoint, key] : links_.TakeReconnects()) {
          (void)ConnectData(endpoint, key);  // counted if it fails
        }
      }
      break;
    }
    if (control && !topic_frame.more() && topic_frame.size() >= 1) {
      // The broker's control messages (broker.hpp): 0 ping, 1 "send your subscriptions again", 2/3 a directory
      // entry (docs/protocol.md §13).
      const auto* code = static_cast<const uint8_t*>(topic_frame.data());
      if (topic_frame.size() == 1 && *code == 1) {
        for (const auto& s : subscriptions_) SubscribeWithReports(s.topic);
        for (const auto& topic : announced_) SendAnnouncement(topic);
        continue;
      }
      if (topic_frame.size() > 1 && (*code == kAnnounce || *code == kWithdraw)) {
        HandleDirectory(code, topic_frame.size());
        continue;
      }
      if (topic_frame.size() > 1 && *code == kAdmittedKeys) {
        HandleAdmittedKeys(code, topic_frame.size());
        continue;
      }
      if (topic_frame.size() > 1 && *code == kUseBroker) {
        UseBroker(std::string(reinterpret_cast<const char*>(code) + 1, topic_frame.size() - 1),
                  "a communication fault is active on it");
        continue;
      }
      if (topic_frame.size() == 1) continue;
    }
    ++handled;
    // The topic's inlet (its counters, sequence state, type and matching subscriptions), as on a LocalBus: one search
    // per message instead of several, and no copy of the topic. Beyond kMaxTrackedTopics topics (invented names under
    // a prefix subscription) none: the searches, as before.
    const std::string_view topic_view(static_cast<const char*>(topic_frame.data()), topic_frame.size());
    Inlet* inlet = TrackedInletFor(topic_view);
    std::string untracked;
    const std::string& topic = inlet != nullptr ? inlet->topic : (untracked = std::string(topic_view));
    if (!topic_frame.more()) {
      CountDrop(topic, &TopicCounters::drops_malformed, "single-frame message (expected [topic][payload])");
      continue;
    }
    zmq::message_t payload;
    if (!socket.recv(payload, zmq::recv_flags::dontwait)) {
      CountDrop(topic, &TopicCounters::drops_malformed, "missing payload frame");
      continue;
    }
    if (payload.more()) {
      zmq::message_t extra;
      while (payload.more() && socket.recv(extra, zmq::recv_flags::dontwait) && extra.more()) {
      }
      CountDrop(topic, &TopicCounters::drops_malformed, "more than two frames");
      continue;
    }
    Dispatch(topic, aligned_.Align(static_cast<const uint8_t*>(payload.data()), payload.size()), payload.size(),
             /*admitted=*/false, /*shared=*/nullptr, inlet);
  }
  return handled;
}

void Node::Dispatch(const std::string& topic, const uint8_t* data, size_t size, bool admitted,
                    const std::shared_ptr<const std::vector<uint8_t>>* shared, Inlet* inlet) {
  if (topic.size() > kHighWaterPrefix.size() && topic.starts_with(kHighWaterPrefix)) {
    HandleReport(topic, data, size, admitted, shared);
    return;
  }
  // The subscriptions `topic` matches, in order: the inlet's list of them (made again once a subscription was added;
  // none is ever removed), or found by comparing the topic with each (issue 18: three times a message before).
  auto matches = [&](const Subscription& s) {
    return s.exact ? topic == s.topic : topic.compare(0, s.topic.size(), s.topic) == 0;
  };
  if (inlet != nullptr && inlet->subscriptions_seen != subscriptions_.size()) {
    inlet->matching.clear();
    for (size_t i = 0; i < subscriptions_.size(); ++i) {
      if (matches(subscriptions_[i])) inlet->matching.push_back(i);
    }
    inlet->subscriptions_seen = subscriptions_.size();
  }
  // Calls fn(s) for each matching subscription until one returns false; false if one did. By index: a handler may
  // subscribe (subscriptions_ grows), a later one of this message is then still called.
  auto each_match = [&](auto&& fn) {
    if (inlet != nullptr) {
      for (const size_t i : inlet->matching) {
        if (!fn(subscriptions_[i])) return false;
      }
      return true;
    }
    for (size_t i = 0; i < subscriptions_.size(); ++i) {
      if (matches(subscriptions_[i]) && !fn(subscriptions_[i])) return false;
    }
    return true;
  };
  // Prefix filtering in ZeroMQ can deliver topics nobody asked for exactly ("r1/scan" vs "r1/scanner").
  const bool wanted = !each_match([](const Subscription&) { return false; });
  if (!wanted) return;
  if (size > messages::kMaxPayloadBytes) {
    CountDrop(topic, &TopicCounters::drops_oversize, "payload above the size cap");
    return;
  }
  // A topic's messages are of one type: the last one's, without the registry's search, when the identifier is its.
  const std::string_view identifier = messages::IdentifierOf(data, size);
  const messages::MessageType* type =
      inlet != nullptr && inlet->type != nullptr && SameIdentifier(identifier, inlet->type->identifier)
          ? inlet->type
          : messages::FindByIdentifier(identifier);
  if (type == nullptr) {
    CountDrop(topic, &TopicCounters::drops_wrong_type, "unknown buffer identifier");
    return;
  }
  if (inlet != nullptr) inlet->type = type;
  if (!admitted && !type->verify(data, size)) {
    CountDrop(topic, &TopicCounters::drops_malformed, "failed FlatBuffers verification");
    return;
  }
  const msg::Header* header = messages::HeaderOf(data);
  if (header == nullptr || header->source() == nullptr) {
    CountDrop(topic, &TopicCounters::drops_malformed, "message without a header");
    return;
  }
  const bool expected_type = each_match([&](const Subscription& s) {
    if (s.exact && s.identifier != nullptr && !SameIdentifier(identifier, s.identifier)) {
      CountDrop(topic, &TopicCounters::drops_wrong_type,
                (std::string("expected ") + s.identifier + ", got " + type->identifier).c_str());
      return false;
    }
    return true;
  });
  if (!expected_type) return;
  // Well-formed is not the same as sane: a NaN goal verifies (issue 15, finding 1).
  if (!admitted) {
    if (const std::string invalid = messages::ValidateValues(*type, data, size); !invalid.empty()) {
      CountDrop(topic, &TopicCounters::drops_invalid, ("invalid value: " + invalid).c_str());
      return;
    }
  }
  TopicCounters& counters = inlet == nullptr             ? Received(topic)
                            : inlet->counters != nullptr ? *inlet->counters
                                                         : *(inlet->counters = &Received(topic));
  const std::string_view source(header->source()->c_str(), header->source()->size());
  const SequenceTracker::Outcome seq =
      inlet != nullptr ? sequences_.OnMessage(inlet->sequence, topic, source, header->incarnation(), header->seq())
                       : sequences_.OnMessage(topic, source, header->incarnation(), header->seq());
  counters.drops_gap += seq.gap;
  counters.drops_tail += seq.tail;
  counters.drops_tail -= std::min(counters.drops_tail, seq.tail_recovered);
  if (!seq.deliver) {
    ++counters.duplicates;  // a latched re-send or broker replay we already have
    return;
  }
  ++counters.messages;
  counters.bytes += size;
  counters.last_seen_ns = CoarseWallNowNs();
  const RawMessage raw{topic, *type, *header, data, size, shared};
  each_match([&](const Subscription& s) {
    try {
      s.handler(raw);
    } catch (const std::exception& e) {
      // Exceptions never cross the bus: a failing handler is logged, the node keeps running.
      LIMBIC_LOG(kError) << "handler for '" << topic << "' threw: " << e.what();
    }
    return true;
  });
}

}  // namespace limbic::bus
