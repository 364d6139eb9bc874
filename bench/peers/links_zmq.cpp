// The ZeroMQ contenders: a raw PUB/SUB pair (ipc, tcp), the same through a bare zmq::proxy (XSUB/XPUB, ipc),
// and limbic's bus through its broker (bus::Node at each end, bus::Broker in the middle process), or with the broker
// as directory only (the direct data path), each also with CURVE.
#include <algorithm>
#include <chrono>
#include <cstring>
#include <deque>
#include <map>
#include <stdexcept>
#include <vector>
#include <zmq.hpp>

#include "bench/peers/link.hpp"
#include "common/bus/broker.hpp"
#include "common/bus/bus.hpp"

namespace limbic::peers {
namespace {

using namespace std::chrono_literals;

const char* OutTopic(Side side) { return side == Side::kA ? "ping" : "pong"; }
const char* InTopic(Side side) { return side == Side::kA ? "pong" : "ping"; }

// [topic][payload] frames, the payload's first 8 bytes the sequence number (as bus_bench's raw pair).
class ZmqLink : public Link {
 public:
  // `bind_out`: PUB binds `out` (a pair); otherwise it connects (through a proxy).
  ZmqLink(Side side, const std::string& out, bool bind_out, const std::string& in)
      : out_topic_(OutTopic(side)),
        pub_(pub_context_, zmq::socket_type::pub),
        sub_(sub_context_, zmq::socket_type::sub) {
    pub_.set(zmq::sockopt::linger, 0);
    sub_.set(zmq::sockopt::linger, 0);
    pub_.set(zmq::sockopt::sndhwm, 0);  // never drop: the blast measures throughput without loss
    sub_.set(zmq::sockopt::rcvhwm, 0);
    if (bind_out) {
      pub_.bind(out);
    } else {
      pub_.connect(out);
    }
    sub_.connect(in);
    sub_.set(zmq::sockopt::subscribe, InTopic(side));
  }
  size_t Send(uint64_t seq, size_t bytes) override {
    payload_.resize(std::max<size_t>(bytes, sizeof seq));
    std::memcpy(payload_.data(), &seq, sizeof seq);
    pub_.send(zmq::buffer(out_topic_), zmq::send_flags::sndmore);
    pub_.send(zmq::buffer(payload_), zmq::send_flags::none);
    return payload_.size();
  }
  std::optional<Received> Receive(std::chrono::milliseconds timeout) override {
    if (!sub_.recv(topic_, zmq::recv_flags::dontwait)) {  // poll only when nothing is waiting (a blast's sink)
      zmq::pollitem_t items[] = {{sub_.handle(), 0, ZMQ_POLLIN, 0}};
      if (zmq::poll(items, 1, timeout) == 0 || !sub_.recv(topic_)) return std::nullopt;
    }
    if (!sub_.recv(body_)) return std::nullopt;
    Received r;
    r.bytes = body_.size();
    if (body_.size() >= sizeof r.seq) std::memcpy(&r.seq, body_.data(), sizeof r.seq);
    return r;
  }

 private:
  std::string out_topic_;
  // A context each, as two processes would have: this process's sends and receives use separate I/O threads.
  zmq::context_t pub_context_{1};
  zmq::context_t sub_context_{1};
  zmq::socket_t pub_;
  zmq::socket_t sub_;
  std::vector<uint8_t> payload_;
  zmq::message_t topic_, body_;
};

std::string PairAddress(const Rendezvous& r, bool tcp, Side publisher) {
  if (tcp) return "tcp://127.0.0.1:" + std::to_string(r.tcp_port + (publisher == Side::kA ? 0 : 1));
  return "ipc://" + r.ipc_base + (publisher == Side::kA ? "-ping" : "-pong");
}

std::string BusAddress(const Rendezvous& r, bool tcp) {
  return tcp ? "tcp://127.0.0.1:" + std::to_string(r.tcp_port) : "ipc://" + r.ipc_base + "-bus";
}

// The CURVE contenders' key pairs: fixed, derived from `who` (0 the broker, 1 end A, 2 end B), so that every process
// of a measurement knows them without passing secrets around. A benchmark's keys, never a deployment's (those come
// from `limbic keys generate`).
struct KeyPair {
  std::string public_key;
  std::string secret_key;
};

KeyPair BenchKeys(uint8_t who) {
  uint8_t secret[32];
  for (int i = 0; i < 32; ++i) secret[i] = static_cast<uint8_t>(who * 67 + i * 13 + 5);
  char z85_secret[41] = {};
  char z85_public[41] = {};
  if (zmq_z85_encode(z85_secret, secret, sizeof secret) == nullptr || zmq_curve_public(z85_public, z85_secret) != 0) {
    throw std::runtime_error("CURVE is not available in this libzmq");
  }
  return {z85_public, z85_secret};
}

int64_t NowNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

// A Heartbeat whose `mode` string pads it to the size asked for (as bus_bench). The padding is made once per size,
// so that a message costs one pass over its bytes, as the raw contenders' memcpy of a prepared payload does (a fresh
// string per message was an allocation and a second pass over the bytes).
flatbuffers::Offset<msg::Heartbeat> BuildHeartbeat(flatbuffers::FlatBufferBuilder& fbb,
                                                   flatbuffers::Offset<msg::Header> header, const std::string& filler) {
  return msg::CreateHeartbeat(fbb, header, fbb.CreateString("peers"), msg::ServiceState::Running,
                              fbb.CreateString(filler));
}

class LimbicLink : public Link {
 public:
  // `shm`: the process's RouDi connection, so the node sends and receives its Heartbeats through shared memory.
  LimbicLink(Side side, const std::string& address, bus::DataPath path, std::shared_ptr<bus::ShmRuntime> shm = nullptr,
             bus::CurveClientKeys curve = {})
      : node_(context_, address, Options(side, path, std::move(shm), std::move(curve))) {
    publisher_ = node_.Advertise<msg::Heartbeat>(std::string("peers/") + OutTopic(side));
    node_.Subscribe<msg::Heartbeat>(std::string("peers/") + InTopic(side),
                                    [this](const bus::Message<msg::Heartbeat>& m) {
                                      inbox_.push_back({static_cast<uint64_t>(m.header.tick()), m.size});
                                    });
  }
  size_t Send(uint64_t seq, size_t bytes) override {
    const Shape& shape = ShapeFor(bytes);
    publisher_.Publish(NowNs(), static_cast<int64_t>(seq),
                       [&](auto& fbb, auto header) { return BuildHeartbeat(fbb, header, shape.filler); });
    return shape.size;
  }
  std::optional<Received> Receive(std::chrono::milliseconds timeout) override {
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    while (inbox_.empty()) {
      const auto left = std::chrono::ceil<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
      if (left <= 0ms) return std::nullopt;
      // As a service takes what has arrived: up to a batch per Poll (the handler queues each in inbox_); one at a
      // time would make every message pay Poll's checks of the sockets it finds empty.
      node_.Poll(left, 256);
    }
    const Received r = inbox_.front();
    inbox_.pop_front();
    return r;
  }

 private:
  struct Shape {
    std::string filler;  // the padding
    size_t size = 0;
  };
  static bus::NodeOptions Options(Side side, bus::DataPath path, std::shared_ptr<bus::ShmRuntime> shm,
                                  bus::CurveClientKeys curve) {
    bus::NodeOptions options;
    options.curve = std::move(curve);
    options.data_path = path;
    options.shm = std::move(shm);
    options.shm_options.identifiers = {messages::Traits<msg::Heartbeat>::kIdentifier};  // the harness's type
    options.shm_options.mirror_to_socket = false;  // both ends on shared memory: no socket copy (--shm-only)
    options.name = side == Side::kA ? "peers-a" : "peers-b";
    options.send_hwm = options.receive_hwm = 0;                         // as the raw pair: never drop
    options.direct_queue_bytes = options.direct_max_message_bytes = 0;  // and no byte bound on the direct path
    options.latched_resend = 0ms;
    return options;
  }
  // The message size for `padding` bytes of padding, as the node builds it.
  static size_t MessageSize(size_t padding) {
    flatbuffers::FlatBufferBuilder fbb;
    auto header = msg::CreateHeaderDirect(fbb, NowNs(), 1, 1, "peers-a", false, 1);
    fbb.Finish(BuildHeartbeat(fbb, header, std::string(padding, 'x')), messages::Traits<msg::Heartbeat>::kIdentifier);
    return fbb.GetSize();
  }
  // The padding that makes the message about `target` bytes (never less than the smallest message).
  const Shape& ShapeFor(size_t target) {
    auto it = shapes_.find(target);
    if (it != shapes_.end()) return it->second;
    size_t padding = 0;
    const size_t base = MessageSize(0);
    if (target > base) padding = target - base;
    while (padding > 0 && MessageSize(padding) > target) --padding;
    return shapes_[target] = Shape{std::string(padding, 'x'), MessageSize(padding)};
  }

  zmq::context_t context_{1};
  bus::Node node_;
  bus::Publisher<msg::Heartbeat> publisher_;
  std::deque<Received> inbox_;
  std::map<size_t, Shape> shapes_;
};

}  // namespace

std::unique_ptr<Link> OpenZmqLink(Side side, const Rendezvous& r, bool tcp) {
  const Side other = side == Side::kA ? Side::kB : Side::kA;
  return std::make_unique<ZmqLink>(side, PairAddress(r, tcp, side), /*bind_out=*/true, PairAddress(r, tcp, other));
}

std::unique_ptr<Link> OpenProxyLink(Side side, const Rendezvous& r) {
  return std::make_unique<ZmqLink>(side, "ipc://" + r.ipc_base + "-in", /*bind_out=*/false,
                                   "ipc://" + r.ipc_base + "-out");
}

std::unique_ptr<Link> OpenLimbicLink(Side side, const Rendezvous& r, bool tcp, bool direct, bool curve) {
  bus::CurveClientKeys keys;
  if (curve) {
    const KeyPair own = BenchKeys(side == Side::kA ? 1 : 2);
    keys = {BenchKeys(0).public_key, own.public_key, own.secret_key};
  }
  return std::make_unique<LimbicLink>(
      side, BusAddress(r, tcp), direct ? bus::DataPath::kDirect : bus::DataPath::kBroker, nullptr, std::move(keys));
}

std::unique_ptr<Link> OpenLimbicShmLink(Side side, const Rendezvous& r) {
  std::string why;
  auto runtime = bus::ShmRuntime::Connect(r.tag + (side == Side::kA ? "a" : "b"), &why);
  if (!runtime) throw std::runtime_error("limbic shared memory: " + why);
  // No broker: the data path is shared memory only (a broker would carry nothing of this exchange).
  return std::make_unique<LimbicLink>(side, BusAddress(r, false), bus::DataPath::kBroker, std::move(runtime));
}

void ServeProxy(const Rendezvous& r, void (*ready)()) {
  zmq::context_t context(1);
  zmq::socket_t in(context, zmq::socket_type::xsub), out(context, zmq::socket_type::xpub);
  for (zmq::socket_t* s : {&in, &out}) {
    s->set(zmq::sockopt::linger, 0);
    s->set(zmq::sockopt::sndhwm, 0);
    s->set(zmq::sockopt::rcvhwm, 0);
  }
  in.bind("ipc://" + r.ipc_base + "-in");
  out.bind("ipc://" + r.ipc_base + "-out");
  ready();
  zmq::proxy(in, out);  // until the harness ends this process
}

void ServeLimbicBroker(const Rendezvous& r, bool tcp, void (*ready)(), const std::atomic<bool>& stop, bool curve) {
  bus::BrokerOptions options;
  options.address = BusAddress(r, tcp);
  if (curve) options.curve = {BenchKeys(0).secret_key, {BenchKeys(1).public_key, BenchKeys(2).public_key}};
  options.send_hwm = options.receive_hwm = 0;  // as bus_bench: the blast sends faster than anyone reads
  // The blast of 64 KiB messages holds up to --blast-bytes for the subscriber; the default 64 MiB per
  // subscriber would drop (counted) what a slow reader has not taken yet.
  options.queue_bytes = size_t{1} << 30;
  zmq::context_t context(1);
  bus::Broker broker(context, options);
  ready();
  broker.Run(stop);
}

}  // namespace limbic::peers
