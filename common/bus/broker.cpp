#include "common/bus/broker.hpp"

#include <malloc.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cerrno>
#include <random>

namespace limbic::bus {

Broker::Broker(zmq::context_t& context, BrokerOptions options)
    : options_(std::move(options)),
      frontend_(context, zmq::socket_type::xsub),
      backend_(context, zmq::socket_type::xpub),
      zap_(context, zmq::socket_type::rep),
      forwarding_(options_.max_payload, options_.limits),
      endpoints_(ResolveBindAddress(options_.address)) {
  if (options_.curve.enabled()) {
    // ZAP handler: ZeroMQ asks it to admit each CURVE client by public key.
    zap_.set(zmq::sockopt::linger, 0);
    zap_.bind("inproc://zeromq.zap.01");
    for (zmq::socket_t* s : {&frontend_, &backend_}) {
      s->set(zmq::sockopt::curve_server, 1);
      s->set(zmq::sockopt::curve_secretkey, options_.curve.server_secret);
      s->set(zmq::sockopt::zap_domain, "limbic");
    }
  }
  if (endpoints_.ipv6) {
    frontend_.set(zmq::sockopt::ipv6, 1);
    backend_.set(zmq::sockopt::ipv6, 1);
  }
  if (endpoints_.frontend.rfind("tcp://", 0) == 0 && !endpoints_.loopback && !options_.curve.enabled()) {
    LIMBIC_LOG(kWarning) << "serving " << options_.address << " on a non-loopback address without CURVE: anyone who "
                         << "can reach " << endpoints_.frontend << " may publish and subscribe (give --curve-server)";
  }
  frontend_.set(zmq::sockopt::linger, 0);
  backend_.set(zmq::sockopt::linger, 0);
  frontend_.set(zmq::sockopt::rcvhwm, options_.receive_hwm);
  for (zmq::socket_t* s : {&frontend_, &backend_}) {
    s->set(zmq::sockopt::handshake_ivl, static_cast<int>(options_.handshake_timeout.count()));
  }
  // A subscriber that never reads holds at most this many messages in the broker (issue 16: 10,000
  // affect snapshots were 1.35 GB): sized from bytes, see BrokerOptions::queue_bytes.
  // send_hwm 0 means no limit (an in-process lockstep broker must never drop) and stays so.
  send_hwm_ = options_.send_hwm <= 0
                  ? 0
                  : static_cast<int>(std::clamp<size_t>(
                        options_.queue_bytes / std::max<size_t>(options_.queue_message_bytes, 1), 16,
                        static_cast<size_t>(std::max(options_.send_hwm, 16))));
  backend_.set(zmq::sockopt::sndhwm, send_hwm_);
  // Every subscribe message reaches us (not only the first per topic): each new subscriber gets the
  // latched values it asks for.
  backend_.set(zmq::sockopt::xpub_verbose, 1);
  frontend_.bind(endpoints_.frontend);
  backend_.bind(endpoints_.backend);
  // The broker sees everything: it verifies and counts all traffic, whoever subscribes downstream.
  const uint8_t subscribe_all = 1;
  frontend_.send(zmq::const_buffer(&subscribe_all, 1), zmq::send_flags::none);
  next_stats_ = std::chrono::steady_clock::now() + options_.stats_period;
}

Broker::~Broker() = default;

void Broker::Run(const std::atomic<bool>& stop) {
  while (!stop.load()) RunOnce(std::chrono::milliseconds(100));
}

int Broker::RunOnce(std::chrono::milliseconds timeout) {
  const auto until_stats =
      std::chrono::duration_cast<std::chrono::milliseconds>(next_stats_ - std::chrono::steady_clock::now());
  timeout = std::clamp(until_stats, std::chrono::milliseconds(0), timeout);
  timeout = forwarding_.ReleaseDelayed(timeout, &comm_out_);
  SendCopies();
  // What is already queued is handled without a poll(2): waiting only when there is nothing.
  int handled = Drain();
  if (handled == 0 && timeout.count() > 0) {
    zmq::pollitem_t items[] = {{frontend_.handle(), 0, ZMQ_POLLIN, 0},
                               {backend_.handle(), 0, ZMQ_POLLIN, 0},
                               {zap_.handle(), 0, ZMQ_POLLIN, 0}};
    try {
      zmq::poll(items, options_.curve.enabled() ? 3 : 2, timeout);
    } catch (const zmq::error_t& e) {
      if (e.num() != EINTR) throw;  // a signal: the caller checks its stop flag
      return 0;
    }
    handled = Drain();
  }
  ReplayDue();
  if (std::chrono::steady_clock::now() >= next_stats_) {
    PublishStats();
    next_stats_ = std::chrono::steady_clock::now() + options_.stats_period;
  }
  return handled;
}

int Broker::Drain() {
  int handled = 0;
  // Bounded batches keep subscriptions and statistics responsive under a flood.
  for (int i = 0; i < 10000 && HandleFrontend(); ++i) ++handled;
  for (int i = 0; i < 1000 && HandleBackend(); ++i) ++handled;
  if (options_.curve.enabled() && (zap_.get(zmq::sockopt::events) & ZMQ_POLLIN)) HandleZap();
  return handled;
}

bool Broker::HandleFrontend() {
  zmq::message_t topic_frame;
  if (!frontend_.recv(topic_frame, zmq::recv_flags::dontwait)) return false;
  // Topics are short names; anything absurd is framing garbage.
  std::string topic = topic_frame.size() <= 256 ? topic_frame.to_string() : std::string("<oversized-topic>");
  if (!topic_frame.more()) {
    forwarding_.Drop(topic, &TopicCounters::drops_malformed, "single-frame message");
    return true;
  }
  zmq::message_t payload;
  if (!frontend_.recv(payload, zmq::recv_flags::dontwait)) return true;
  if (payload.more()) {
    zmq::message_t extra;
    while (frontend_.recv(extra, zmq::recv_flags::dontwait) && extra.more()) {
    }
    forwarding_.Drop(topic, &TopicCounters::drops_malformed, "more than two frames");
    return true;
  }
  switch (forwarding_.Admit(topic, static_cast<const uint8_t*>(payload.data()), payload.size(), &comm_out_)) {
    case Forwarding::Verdict::kDrop:
      break;
    case Forwarding::Verdict::kForward:
      Forward(topic_frame, payload);
      break;
    case Forwarding::Verdict::kFaulted:
      SendCopies();
      break;
  }
  return true;
}

void Broker::SendCopies() {
  for (const auto& m : comm_out_) {
    backend_.send(zmq::buffer(m.topic), zmq::send_flags::sndmore | zmq::send_flags::dontwait);
    backend_.send(zmq::const_buffer(m.payload.data(), m.payload.size()), zmq::send_flags::dontwait);
    ++forwarded_;
  }
  comm_out_.clear();
}

void Broker::Forward(zmq::message_t& topic_frame, zmq::message_t& payload) {
  // The received frames are handed on as they are (no copy of the payload).
  backend_.send(topic_frame, zmq::send_flags::sndmore | zmq::send_flags::dontwait);
  backend_.send(payload, zmq::send_flags::dontwait);
  ++forwarded_;
}

bool Broker::HandleBackend() {
  zmq::message_t sub;
  if (!backend_.recv(sub, zmq::recv_flags::dontwait)) return false;
  const auto* bytes = static_cast<const uint8_t*>(sub.data());
  if (sub.size() < 1 || bytes[0] != 1) return true;  // unsubscribe or noise
  const std::string prefix(reinterpret_cast<const char*>(bytes) + 1, sub.size() - 1);
  // Late joiner: hand over the last value of every latched topic it asked for. Existing subscribers
  // of the same topic get it too and drop it as a duplicate (same source, incarnation and seq). XPUB
  // cannot tell who subscribed, so a client repeating its subscription would make the broker send the
  // whole store again each time (issue 16): within replay_holdoff of the last replay of this prefix
  // the replay is deferred, and all the subscriptions meanwhile get one replay when it ends.
  const auto now = std::chrono::steady_clock::now();
  auto last = last_replay_.find(prefix);
  if (last != last_replay_.end() && now - last->second < options_.replay_holdoff) {
    if (deferred_replays_.size() < kMaxTrackedTopics && deferred_replays_.insert(prefix).second) ++replays_deferred_;
    return true;
  }
  if (last_replay_.size() >= kMaxTrackedTopics) last_replay_.clear();  // a flood of prefixes: bounded
  last_replay_[prefix] = now;
  Replay(prefix);
  return true;
}

void Broker::Replay(const std::string& prefix) {
  ++replays_;
  forwarding_.ForEachLatched(prefix, [&](const std::string& topic, const std::vector<uint8_t>& payload) {
    backend_.send(zmq::buffer(topic), zmq::send_flags::sndmore | zmq::send_flags::dontwait);
    backend_.send(zmq::const_buffer(payload.data(), payload.size()), zmq::send_flags::dontwait);
  });
}

void Broker::ReplayDue() {
  if (deferred_replays_.empty()) return;
  const auto now = std::chrono::steady_clock::now();
  for (auto it = deferred_replays_.begin(); it != deferred_replays_.end();) {
    auto& last = last_replay_[*it];
    if (now - last < options_.replay_holdoff) {
      ++it;
      continue;
    }
    last = now;
    Replay(*it);
    it = deferred_replays_.erase(it);
  }
}

void Broker::HandleZap() {
  // ZAP 1.0 (RFC 27): version, request id, domain, address, identity, mechanism, credentials...
  std::vector<zmq::message_t> frames;
  while (true) {
    zmq::message_t frame;
    if (!zap_.recv(frame, zmq::recv_flags::dontwait)) break;
    const bool more = frame.more();
    frames.push_back(std::move(frame));
    if (!more) break;
  }
  if (frames.size() < 6) return;
  bool allowed = false;
  if (frames[5].to_string() == "CURVE" && frames.size() >= 7 && frames[6].size() == 32) {
    char z85[41] = {};
    zmq_z85_encode(z85, static_cast<const uint8_t*>(frames[6].data()), 32);
    allowed = std::find(options_.curve.allowed_clients.begin(), options_.curve.allowed_clients.end(),
                        std::string(z85)) != options_.curve.allowed_clients.end();
    if (!allowed) {
      ++rejected_clients_;
      LIMBIC_LOG(kWarning) << "rejected a CURVE client with unknown public key " << z85;
    }
  }
  zap_.send(zmq::str_buffer("1.0"), zmq::send_flags::sndmore);
  zap_.send(frames[1], zmq::send_flags::sndmore);
  zap_.send(zmq::buffer(std::string(allowed ? "200" : "400")), zmq::send_flags::sndmore);
  zap_.send(zmq::buffer(std::string(allowed ? "OK" : "key not admitted")), zmq::send_flags::sndmore);
  zap_.send(zmq::str_buffer(""), zmq::send_flags::sndmore);
  zap_.send(zmq::str_buffer(""), zmq::send_flags::none);
}

void Broker::PublishStats() {
  ++stats_periods_;
  forwarding_.AgeTopics(Node::WallNowNs());
  for (auto it = last_replay_.begin(); it != last_replay_.end();) {
    const bool stale = std::chrono::steady_clock::now() - it->second > options_.replay_holdoff &&
                       !deferred_replays_.count(it->first);
    it = stale ? last_replay_.erase(it) : std::next(it);
  }
  // Queues of subscribers that left, evicted latched values and aged topics are freed to the
  // allocator; give what it keeps back to the system now and then, so memory is returned.
  if (stats_periods_ % 5 == 0) malloc_trim(0);
  forwarding_.BuildStats(fbb_);
  backend_.send(zmq::str_buffer("bus/stats"), zmq::send_flags::sndmore | zmq::send_flags::dontwait);
  backend_.send(zmq::const_buffer(fbb_.GetBufferPointer(), fbb_.GetSize()), zmq::send_flags::dontwait);
  forwarding_.BuildHeartbeat(fbb_, forwarded_, rejected_clients_);
  backend_.send(zmq::str_buffer("health/bus"), zmq::send_flags::sndmore | zmq::send_flags::dontwait);
  backend_.send(zmq::const_buffer(fbb_.GetBufferPointer(), fbb_.GetSize()), zmq::send_flags::dontwait);
}

}  // namespace limbic::bus
