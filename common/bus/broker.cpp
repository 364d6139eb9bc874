#include "common/bus/broker.hpp"

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
      zap_(context, zmq::socket_type::rep) {
  const BrokerEndpoints endpoints = ResolveBindAddress(options_.address);
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
  frontend_.set(zmq::sockopt::linger, 0);
  backend_.set(zmq::sockopt::linger, 0);
  frontend_.set(zmq::sockopt::rcvhwm, options_.receive_hwm);
  backend_.set(zmq::sockopt::sndhwm, options_.send_hwm);
  // Every subscribe message reaches us (not only the first per topic): each new subscriber gets the
  // latched values it asks for.
  backend_.set(zmq::sockopt::xpub_verbose, 1);
  frontend_.bind(endpoints.frontend);
  backend_.bind(endpoints.backend);
  // The broker sees everything: it verifies and counts all traffic, whoever subscribes downstream.
  const uint8_t subscribe_all = 1;
  frontend_.send(zmq::const_buffer(&subscribe_all, 1), zmq::send_flags::none);
  std::random_device rd;
  incarnation_ = (static_cast<uint64_t>(rd()) << 32) ^ rd();
  started_ = std::chrono::steady_clock::now();
  next_stats_ = started_ + options_.stats_period;
}

Broker::~Broker() = default;

void Broker::Run(const std::atomic<bool>& stop) {
  while (!stop.load()) RunOnce(std::chrono::milliseconds(100));
}

int Broker::RunOnce(std::chrono::milliseconds timeout) {
  const auto until_stats =
      std::chrono::duration_cast<std::chrono::milliseconds>(next_stats_ - std::chrono::steady_clock::now());
  timeout = std::clamp(until_stats, std::chrono::milliseconds(0), timeout);
  timeout = ReleaseDelayed(timeout);
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

void Broker::Drop(const std::string& topic, uint64_t TopicCounters::*reason, const char* why) {
  ++(counts_[topic].*reason);
  uint64_t suppressed = 0;
  if (drop_log_[topic].Allow(&suppressed)) {
    LIMBIC_LOG(kWarning) << "dropped a message on '" << topic << "': " << why
                         << (suppressed ? " (" + std::to_string(suppressed) + " more since last report)" : "");
  }
}

bool Broker::HandleFrontend() {
  zmq::message_t topic_frame;
  if (!frontend_.recv(topic_frame, zmq::recv_flags::dontwait)) return false;
  // Topics are short names; anything absurd is framing garbage.
  std::string topic = topic_frame.size() <= 256 ? topic_frame.to_string() : std::string("<oversized-topic>");
  if (!topic_frame.more()) {
    Drop(topic, &TopicCounters::drops_malformed, "single-frame message");
    return true;
  }
  zmq::message_t payload;
  if (!frontend_.recv(payload, zmq::recv_flags::dontwait)) return true;
  if (payload.more()) {
    zmq::message_t extra;
    while (frontend_.recv(extra, zmq::recv_flags::dontwait) && extra.more()) {
    }
    Drop(topic, &TopicCounters::drops_malformed, "more than two frames");
    return true;
  }
  const auto* data = static_cast<const uint8_t*>(payload.data());
  const size_t size = payload.size();
  if (size > options_.max_payload) {
    Drop(topic, &TopicCounters::drops_oversize, "payload above the size cap");
    return true;
  }
  const messages::MessageType* type = messages::FindByIdentifier(messages::IdentifierOf(data, size));
  if (type == nullptr) {
    Drop(topic, &TopicCounters::drops_wrong_type, "unknown buffer identifier");
    return true;
  }
  if (!type->verify(data, size)) {
    Drop(topic, &TopicCounters::drops_malformed, "failed FlatBuffers verification");
    return true;
  }
  const msg::Header* header = messages::HeaderOf(data);
  if (header == nullptr || header->source() == nullptr) {
    Drop(topic, &TopicCounters::drops_malformed, "message without a header");
    return true;
  }
  auto& c = counts_[topic];
  ++c.messages;
  c.bytes += size;
  c.last_seen_ns = Node::WallNowNs();
  if (header->latched()) latched_[topic].assign(data, data + size);
  types_[topic] = type->name;
  if (topic == "faults") HandleFaultCommand(data, size);
  if (comm_faults_.Affects(topic)) {
    ForwardFaulty(topic, data, size);
    return true;
  }
  Forward(topic_frame, payload);
  return true;
}

double Broker::FaultClockS() const {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - started_).count();
}

void Broker::HandleFaultCommand(const uint8_t* data, size_t size) {
  if (messages::IdentifierOf(data, size) != std::string_view(messages::Traits<msg::FaultCommand>::kIdentifier)) return;
  const auto* command = flatbuffers::GetRoot<msg::FaultCommand>(data);
  const std::string id = command->id() ? command->id()->str() : "";
  if (command->clear()) {
    if (id.empty()) comm_faults_.ClearAll();
    else comm_faults_.Clear(id);
    return;
  }
  auto rule = CommFaultFromMsg(*command);
  if (!rule) return;  // not a communication fault: hwio's or a service's
  std::string reason = rule->topic == "faults" ? "the faults topic itself cannot be faulted" : "";
  if (reason.empty() && comm_faults_.Add(*rule, FaultClockS(), &reason)) {
    LIMBIC_LOG(kInfo) << "communication fault '" << id << "' on '" << rule->topic << "' active";
  } else {
    LIMBIC_LOG(kWarning) << "rejected communication fault '" << id << "': " << reason;
  }
}

void Broker::ForwardFaulty(const std::string& topic, const uint8_t* data, size_t size) {
  comm_out_.clear();
  comm_faults_.Process(FaultClockS(), topic, data, size, &comm_out_);
  for (const auto& m : comm_out_) {
    backend_.send(zmq::buffer(m.topic), zmq::send_flags::sndmore | zmq::send_flags::dontwait);
    backend_.send(zmq::const_buffer(m.payload.data(), m.payload.size()), zmq::send_flags::dontwait);
    ++forwarded_;
  }
}

std::chrono::milliseconds Broker::ReleaseDelayed(std::chrono::milliseconds timeout) {
  if (comm_faults_.rule_count() == 0 && comm_faults_.delayed_count() == 0) return timeout;
  const double now = FaultClockS();
  comm_faults_.Expire(now);
  comm_out_.clear();
  comm_faults_.Release(now, &comm_out_);
  for (const auto& m : comm_out_) {
    backend_.send(zmq::buffer(m.topic), zmq::send_flags::sndmore | zmq::send_flags::dontwait);
    backend_.send(zmq::const_buffer(m.payload.data(), m.payload.size()), zmq::send_flags::dontwait);
    ++forwarded_;
  }
  if (const auto next = comm_faults_.NextRelease()) {
    const auto wait = std::chrono::milliseconds(static_cast<int64_t>(std::ceil((*next - now) * 1000.0)));
    timeout = std::clamp(wait, std::chrono::milliseconds(0), timeout);
  }
  return timeout;
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
  // of the same topic get it too and drop it as a duplicate (same source, incarnation and seq).
  for (auto it = latched_.lower_bound(prefix); it != latched_.end(); ++it) {
    if (it->first.compare(0, prefix.size(), prefix) != 0) break;
    backend_.send(zmq::buffer(it->first), zmq::send_flags::sndmore | zmq::send_flags::dontwait);
    backend_.send(zmq::const_buffer(it->second.data(), it->second.size()), zmq::send_flags::dontwait);
  }
  return true;
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
  const int64_t now_ns = Node::WallNowNs();
  auto TypeOf = [&](const std::string& topic) -> const char* {
    auto it = types_.find(topic);
    return it == types_.end() ? "" : it->second;
  };
  auto topic_stats = [&](flatbuffers::FlatBufferBuilder& fbb) {
    std::vector<flatbuffers::Offset<msg::TopicStats>> topics;
    for (const auto& [topic, c] : counts_) {
      topics.push_back(msg::CreateTopicStatsDirect(fbb, topic.c_str(), TypeOf(topic), "broker", c.messages, c.bytes,
                                                   c.drops_malformed, c.drops_wrong_type, c.drops_oversize,
                                                   c.drops_gap, c.duplicates, c.last_seen_ns));
    }
    return fbb.CreateVector(topics);
  };
  {
    fbb_.Clear();
    auto header = msg::CreateHeaderDirect(fbb_, now_ns, -1, ++stats_seq_, "bus", false, incarnation_);
    auto topics = topic_stats(fbb_);
    fbb_.Finish(msg::CreateBusStats(fbb_, header, topics, 0, static_cast<int>(latched_.size())),
                messages::Traits<msg::BusStats>::kIdentifier);
    backend_.send(zmq::str_buffer("bus/stats"), zmq::send_flags::sndmore | zmq::send_flags::dontwait);
    backend_.send(zmq::const_buffer(fbb_.GetBufferPointer(), fbb_.GetSize()), zmq::send_flags::dontwait);
  }
  {
    fbb_.Clear();
    auto header = msg::CreateHeaderDirect(fbb_, now_ns, -1, ++heartbeat_seq_, "bus", false, incarnation_);
    const double uptime = std::chrono::duration<double>(std::chrono::steady_clock::now() - started_).count();
    std::vector<flatbuffers::Offset<msg::Counter>> counters{
        msg::CreateCounterDirect(fbb_, "forwarded", static_cast<double>(forwarded_)),
        msg::CreateCounterDirect(fbb_, "latched_topics", static_cast<double>(latched_.size())),
        msg::CreateCounterDirect(fbb_, "rejected_clients", static_cast<double>(rejected_clients_))};
    auto hb = msg::CreateHeartbeatDirect(fbb_, header, "bus", msg::ServiceState::Running, "realtime", -1, uptime,
                                         0, 0, 0, nullptr, 0, &counters, nullptr, static_cast<int>(getpid()));
    fbb_.Finish(hb, messages::Traits<msg::Heartbeat>::kIdentifier);
    backend_.send(zmq::str_buffer("health/bus"), zmq::send_flags::sndmore | zmq::send_flags::dontwait);
    backend_.send(zmq::const_buffer(fbb_.GetBufferPointer(), fbb_.GetSize()), zmq::send_flags::dontwait);
  }
}

}  // namespace limbic::bus
