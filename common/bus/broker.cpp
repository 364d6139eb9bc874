#include "common/bus/broker.hpp"

#include <malloc.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <random>

#include "common/bus/message_class.hpp"

namespace limbic::bus {

namespace {

// What one queued message holds: the payload (shared by every subscriber it goes to) and the bytes
// counted against the subscriber, given back when ZeroMQ frees the message (socket written, or the
// subscriber gone). Called on ZeroMQ's I/O thread or ours.
struct Held {
  std::shared_ptr<zmq::message_t> payload;
  std::shared_ptr<SubscriberTable::Account> account;
  size_t bytes;
  bool state;  // counted against the subscriber's state budget too
};

void ReleaseHeld(void* /*data*/, void* hint) {
  auto* held = static_cast<Held*>(hint);
  SubscriberTable::Release(*held->account, held->bytes, held->state);
  delete held;
}

std::shared_ptr<zmq::message_t> SharedCopy(const void* data, size_t size) {
  return std::make_shared<zmq::message_t>(data, size);
}

}  // namespace

Broker::Broker(zmq::context_t& context, BrokerOptions options)
    : options_(std::move(options)),
      frontend_(context, zmq::socket_type::xsub),
      backend_(context, zmq::socket_type::router),
      forwarding_(options_.max_payload, options_.limits),
      endpoints_(ResolveBindAddress(options_.address)),
      subscribers_(SubscriberLimits{options_.send_hwm <= 0 ? 0 : options_.queue_bytes, options_.state_queue_bytes,
                                    options_.max_subscribers, options_.max_subscriptions, options_.replay_holdoff}),
      direct_reports_(options_.limits) {
  if (options_.curve.enabled()) {
    // ZAP: ZeroMQ asks this context's handler to admit each CURVE client by public key (one handler per context,
    // shared with the direct data sockets of nodes in this process: zap.hpp).
    zap_ = ZapService::For(context);
    zap_domain_ = UniqueZapDomain("limbic");
    zap_->Admit(zap_domain_, options_.curve.allowed_clients, /*log_rejections=*/true);
    for (zmq::socket_t* s : {&frontend_, &backend_}) {
      s->set(zmq::sockopt::curve_server, 1);
      s->set(zmq::sockopt::curve_secretkey, options_.curve.server_secret);
      s->set(zmq::sockopt::zap_domain, zap_domain_);
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
  backend_.set(zmq::sockopt::rcvhwm, 1000);  // subscriptions and keepalives
  for (zmq::socket_t* s : {&frontend_, &backend_}) {
    s->set(zmq::sockopt::handshake_ivl, static_cast<int>(options_.handshake_timeout.count()));
  }
  // Each subscriber's queue is bounded in bytes by SubscriberTable (issue 16: a high-water mark in
  // messages held 10,000 affect snapshots, 1.35 GB), so ZeroMQ's own limit in messages is off.
  backend_.set(zmq::sockopt::sndhwm, 0);
  // Sending to a subscriber that has gone fails (EHOSTUNREACH) instead of vanishing: its entry goes.
  backend_.set(zmq::sockopt::router_mandatory, 1);
  frontend_.bind(endpoints_.frontend);
  backend_.bind(endpoints_.backend);
  // The broker sees everything: it verifies and counts all traffic, whoever subscribes downstream.
  const uint8_t subscribe_all = 1;
  frontend_.send(zmq::const_buffer(&subscribe_all, 1), zmq::send_flags::none);
  next_stats_ = std::chrono::steady_clock::now() + options_.stats_period;
}

Broker::~Broker() {
  if (zap_) zap_->Remove(zap_domain_);
}

void Broker::Run(const std::atomic<bool>& stop) {
  while (!stop.load()) RunOnce(std::chrono::milliseconds(100));
}

int Broker::RunOnce(std::chrono::milliseconds timeout) {
  // Rounded up, as the delayed releases are: a remainder truncated to 0 ms made the poll return at once and the broker
  // spin through the last millisecond before its statistics.
  const auto until_stats = std::chrono::ceil<std::chrono::milliseconds>(next_stats_ - std::chrono::steady_clock::now());
  timeout = std::clamp(until_stats, std::chrono::milliseconds(0), timeout);
  timeout = forwarding_.ReleaseDelayed(timeout, &comm_out_);
  SendCopies();
  // What is already queued is handled without a poll(2): waiting only when there is nothing.
  int handled = Drain();
  if (handled == 0 && timeout.count() > 0) {
    zmq::pollitem_t items[] = {{frontend_.handle(), 0, ZMQ_POLLIN, 0}, {backend_.handle(), 0, ZMQ_POLLIN, 0}};
    try {
      zmq::poll(items, 2, timeout);
    } catch (const zmq::error_t& e) {
      if (e.num() != EINTR) throw;  // a signal: the caller checks its stop flag
      return 0;
    }
    handled = Drain();
  }
  subscribers_.ForEachDueReplay(std::chrono::steady_clock::now(),
                                [&](SubscriberTable::Subscriber& s, const std::string& prefix) { Replay(s, prefix); });
  if (std::chrono::steady_clock::now() >= next_stats_) {
    PublishStats();
    next_stats_ = std::chrono::steady_clock::now() + options_.stats_period;
  }
  return handled;
}

int Broker::Drain() {
  int handled = 0;
  // Subscriptions first, so a message that arrives with its subscriber's first subscription reaches
  // it. Bounded batches keep subscriptions and statistics responsive under a flood.
  for (int i = 0; i < 1000 && HandleBackend(); ++i) ++handled;
  for (int i = 0; i < 10000 && HandleFrontend(); ++i) ++handled;
  RemoveUnreachable();
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
  auto payload = std::make_shared<zmq::message_t>();
  if (!frontend_.recv(*payload, zmq::recv_flags::dontwait)) return true;
  if (payload->more()) {
    zmq::message_t extra;
    while (frontend_.recv(extra, zmq::recv_flags::dontwait) && extra.more()) {
    }
    forwarding_.Drop(topic, &TopicCounters::drops_malformed, "more than two frames");
    return true;
  }
  // Checked in an aligned copy where ZeroMQ's frame is not aligned; the frame itself is what goes on.
  const uint8_t* checked = aligned_.Align(static_cast<const uint8_t*>(payload->data()), payload->size());
  if (topic == "faults" && directory_.entries() != 0) RerouteFaulted(checked, payload->size());
  switch (forwarding_.Admit(topic, checked, payload->size(), &comm_out_)) {
    case Forwarding::Verdict::kDrop:
      break;
    case Forwarding::Verdict::kForward:
      if (directory_.entries() != 0 && topic.starts_with("health/")) NoteHeartbeat(checked, payload->size());
      Forward(topic, std::move(payload));
      break;
    case Forwarding::Verdict::kFaulted:
      SendCopies();
      break;
  }
  return true;
}

void Broker::SendCopies() {
  for (const auto& m : comm_out_) Forward(m.topic, SharedCopy(m.payload.data(), m.payload.size()));
  comm_out_.clear();
}

void Broker::Forward(const std::string& topic, std::shared_ptr<zmq::message_t> payload) {
  ++forwarded_;
  const bool state = IsStateMessage(static_cast<const uint8_t*>(payload->data()), payload->size());
  for (SubscriberTable::Subscriber* s : subscribers_.Matching(topic)) SendTo(*s, topic, payload, state);
}

bool Broker::SendTo(SubscriberTable::Subscriber& s, const std::string& topic,
                    const std::shared_ptr<zmq::message_t>& payload, bool state) {
  const size_t bytes = payload->size() + topic.size() + kMessageOverhead;
  if (!subscribers_.Admit(s, bytes, state)) return false;  // over its budget: dropped for it alone, counted
  return Push(s, topic, payload, bytes, state);
}

bool Broker::Push(SubscriberTable::Subscriber& s, const std::string& topic,
                  const std::shared_ptr<zmq::message_t>& payload, size_t bytes, bool state) {
  // The payload is not copied: each subscriber's frame points into the one received (or latched)
  // buffer, kept alive until ZeroMQ frees the last frame, which gives the bytes back (ReleaseHeld).
  auto* held = new Held{payload, s.account, bytes, state};
  zmq::message_t body(payload->data(), payload->size(), &ReleaseHeld, held);
  try {
    // ROUTER with ZMQ_ROUTER_MANDATORY and no high-water mark: a frame is refused only if the
    // subscriber has gone (EHOSTUNREACH), and then on the first frame.
    if (!backend_.send(zmq::buffer(s.id), zmq::send_flags::sndmore | zmq::send_flags::dontwait)) return false;
    backend_.send(zmq::buffer(topic), zmq::send_flags::sndmore | zmq::send_flags::dontwait);
    backend_.send(body, zmq::send_flags::dontwait);
  } catch (const zmq::error_t& e) {
    if (e.num() != EHOSTUNREACH) throw;
    unreachable_.push_back(s.id);
    return false;
  }
  return true;
}

bool Broker::SendControl(const std::string& id, uint8_t code) {
  return SendFrame(id, std::string_view(reinterpret_cast<const char*>(&code), 1));
}

bool Broker::SendFrame(const std::string& id, std::string_view frame) {
  try {
    if (!backend_.send(zmq::buffer(id), zmq::send_flags::sndmore | zmq::send_flags::dontwait)) return false;
    backend_.send(zmq::const_buffer(frame.data(), frame.size()), zmq::send_flags::dontwait);
  } catch (const zmq::error_t& e) {
    if (e.num() != EHOSTUNREACH) throw;
    return false;
  }
  return true;
}

bool Broker::HandleBackend() {
  zmq::message_t id;
  if (!backend_.recv(id, zmq::recv_flags::dontwait)) return false;
  if (!id.more()) return true;  // ROUTER always prefixes the routing id; nothing else can arrive alone
  zmq::message_t body;
  if (!backend_.recv(body, zmq::recv_flags::dontwait)) return true;
  bool extra_frames = false;
  while (body.more()) {  // control messages are one frame: the rest is noise
    extra_frames = true;
    if (!backend_.recv(body, zmq::recv_flags::dontwait)) break;
  }
  if (extra_frames) return true;
  const std::string who = id.to_string();
  const auto* bytes = static_cast<const uint8_t*>(body.data());
  if (body.size() == 0) {
    // Keepalive. From a connection we do not know (this broker restarted, or the subscriber
    // reconnected under a new routing id): ask it to send its subscriptions again.
    if (subscribers_.Find(who) == nullptr && !directory_.Knows(who)) SendControl(who, 1);
    return true;
  }
  if (bytes[0] == kAnnounce || bytes[0] == kWithdraw) {
    std::string key;
    if (options_.curve.enabled()) {
      // The key this connection's CURVE handshake proved (ZapService gives it as the user id); inproc has no
      // handshake, and so no key.
      const char* user_id = zmq_msg_gets(body.handle(), "User-Id");
      if (user_id != nullptr) key = user_id;
    }
    HandleDirectory(who, bytes, body.size(), key);
    return true;
  }
  if (bytes[0] == kTopicType) {
    HandleTopicType(who, bytes, body.size());
    return true;
  }
  const std::string prefix(reinterpret_cast<const char*>(bytes) + 1, body.size() - 1);
  if (bytes[0] == 0) {
    subscribers_.Unsubscribe(who, prefix);
    return true;
  }
  if (bytes[0] != 1) {
    ++control_malformed_;
    LogControl("a control frame with unknown code " + std::to_string(bytes[0]));
    return true;
  }
  // A new subscription gets the last value of every latched topic under it, sent to this subscriber
  // alone: exactly once per subscription, however many subscribe at the same moment (XPUB could not
  // tell them apart, issue 16). A repeated one gets nothing; one that unsubscribes and subscribes
  // again is a new subscription, and its replays go through its own byte budget like everything else.
  if (subscribers_.Subscribe(who, prefix) == SubscriberTable::Subscribed::kNew) {
    SendEntriesUnder(who, prefix);  // before the replay: the direct publishers' latched values come from them
    SubscriberTable::Subscriber* s = subscribers_.Find(who);
    if (s != nullptr && subscribers_.ReplayNow(*s, prefix, std::chrono::steady_clock::now())) Replay(*s, prefix);
  }
  return true;
}

void Broker::HandleDirectory(const std::string& who, const uint8_t* data, size_t size, const std::string& key) {
  std::string why;
  auto entry = ParseDirectoryEntry(std::string_view(reinterpret_cast<const char*>(data) + 1, size - 1), &why);
  if (entry && !entry->key.empty()) {
    // Trust comes from the broker: a key is the one this connection authenticated with, never one it names.
    entry.reset();
    why = "a publisher named a key (the broker gives the key it authenticated)";
  }
  if (!entry) {
    ++control_malformed_;
    LogControl("a directory announcement: " + why);
    return;
  }
  entry->key = key;
  if (data[0] == kWithdraw) {
    if (directory_.Withdraw(who, *entry) && !directory_.Offered(*entry)) TellSubscribers(kWithdraw, *entry);
    return;
  }
  if (options_.curve.enabled() && !directory_.Knows(who)) {
    // A direct publisher's data socket is a CURVE server that admits whom the broker admits: the list, on this
    // authenticated connection, on its first announcement (a restarted broker is told again when it re-announces).
    if (!SendFrame(who, EncodeAdmittedKeys(options_.curve.allowed_clients))) unreachable_.push_back(who);
  }
  if (directory_.Announce(who, *entry) == Directory::Announced::kNew) TellSubscribers(kAnnounce, *entry);
}

void Broker::HandleTopicType(const std::string& who, const uint8_t* data, size_t size) {
  std::string why;
  const auto declared = ParseTopicType(std::string_view(reinterpret_cast<const char*>(data) + 1, size - 1), &why);
  const messages::MessageType* type = declared ? messages::FindByIdentifier(declared->identifier) : nullptr;
  if (declared && type == nullptr) why = "topic type: unknown identifier '" + declared->identifier + "'";
  if (type != nullptr && !directory_.Offers(who, declared->topic)) {
    type = nullptr;  // only a topic this connection offers: the table stays bounded by the directory's limits
    why = "topic type: '" + declared->topic + "' is not offered by this connection";
  }
  if (type != nullptr) {
    const messages::MessageType* conventional = messages::ConventionalType(declared->topic);
    if (conventional != nullptr && conventional != type) {
      why = "topic type: '" + declared->topic + "' carries " + conventional->name + ", not " + type->name;
      type = nullptr;
    }
  }
  if (type == nullptr) {
    ++control_malformed_;
    LogControl("a topic type: " + why);
    return;
  }
  direct_types_[declared->topic] = type;
  // The topic's one type (§6) from its first declaration, as a first valid message would fix it: what else reaches
  // the broker on that topic (a raw send, a broker-path publisher) must match, or is dropped as wrong_type.
  if (!forwarding_.HasType(declared->topic)) forwarding_.DeclareType(declared->topic, type->name);
}

void Broker::RerouteFaulted(const uint8_t* data, size_t size) {
  if (messages::IdentifierOf(data, size) != std::string_view(messages::Traits<msg::FaultCommand>::kIdentifier) ||
      !messages::Verify<msg::FaultCommand>(data, size)) {
    return;  // Admit counts it
  }
  const auto rule = CommFaultFromMsg(*flatbuffers::GetRoot<msg::FaultCommand>(data));
  if (!rule || !directory_.OffersTopic(rule->topic)) return;
  // Faults act where the broker forwards: the topic's direct publishers move to the broker path (and withdraw their
  // offers, so subscribers let go of them). Messages they sent directly before this arrives are not faulted.
  std::string frame(1, static_cast<char>(kUseBroker));
  frame += rule->topic;
  std::vector<std::string> publishers;
  directory_.ForEachOfferOf(rule->topic, [&](const std::string& id, const std::string&) { publishers.push_back(id); });
  for (const auto& id : publishers) {
    if (!SendFrame(id, frame)) unreachable_.push_back(id);
  }
  ++rerouted_;
}

void Broker::NoteHeartbeat(const uint8_t* data, size_t size) {
  if (messages::IdentifierOf(data, size) != std::string_view(messages::Traits<msg::Heartbeat>::kIdentifier)) return;
  const auto* hb = flatbuffers::GetRoot<msg::Heartbeat>(data);  // verified by Admit
  if (hb->topics() == nullptr || hb->service() == nullptr) return;
  const int64_t now = Node::WallNowNs();
  const int64_t stamp = hb->header() != nullptr ? hb->header()->stamp_ns() : now;
  const uint64_t incarnation = hb->header() != nullptr ? hb->header()->incarnation() : 0;
  const std::string service = hb->service()->str();
  for (const auto* t : *hb->topics()) {
    if (t->topic() == nullptr || t->direction() == nullptr) continue;
    const std::string_view direction = t->direction()->string_view();
    if (direction != "out" && direction != "in") continue;
    const std::string topic = t->topic()->str();
    if (!directory_.OffersTopic(topic)) continue;  // on the broker path: counted as it passes
    if (direction == "out") {
      direct_reports_.NoteSent(topic, service, incarnation, t->messages(), t->bytes(), stamp, now);
      continue;
    }
    // What the receiver dropped itself: on the direct path nothing checked the message before it arrived.
    TopicCounters received;
    received.drops_malformed = t->drops_malformed();
    received.drops_wrong_type = t->drops_wrong_type();
    received.drops_oversize = t->drops_oversize();
    received.drops_invalid = t->drops_invalid();
    received.drops_gap = t->drops_gap();
    received.drops_tail = t->drops_tail();
    received.duplicates = t->duplicates();
    direct_reports_.NoteReceived(topic, service, incarnation, received, now);
  }
}

std::vector<Forwarding::ReportedTopic> Broker::DirectTopicStats() {
  // Summed per topic over the services that reported it (DirectReports: kept while the directory offers the topic,
  // then for ForwardingLimits::topic_ttl_s); its publishers are those that reported within publisher_idle_s, as for a
  // topic the broker carries.
  std::vector<Forwarding::ReportedTopic> out = direct_reports_.Collect(
      Node::WallNowNs(), [this](const std::string& topic) { return directory_.OffersTopic(topic); });
  for (auto& r : out) {
    if (auto type = direct_types_.find(r.topic); type != direct_types_.end()) r.type = type->second->name;
  }
  // Offered topics no heartbeat has counted yet (a node outside the runtime, or a service's first second): listed
  // from the directory with their declared type, so `limbic topics` shows them at once.
  std::string last;
  directory_.ForEachUnder("", [&](const DirectoryEntry& entry) {
    if (entry.topic == last || direct_reports_.Reported(entry.topic)) return;
    last = entry.topic;
    Forwarding::ReportedTopic r{entry.topic};
    if (auto type = direct_types_.find(entry.topic); type != direct_types_.end()) r.type = type->second->name;
    out.push_back(std::move(r));
  });
  for (auto it = direct_types_.begin(); it != direct_types_.end();) {
    it = directory_.OffersTopic(it->first) || direct_reports_.Reported(it->first) ? std::next(it)
                                                                                  : direct_types_.erase(it);
  }
  return out;
}

void Broker::LogControl(const std::string& what) {
  uint64_t suppressed = 0;
  if (control_log_.Allow(&suppressed)) {
    LIMBIC_LOG(kWarning) << "ignored " << what
                         << (suppressed ? " (" + std::to_string(suppressed) + " more since last report)" : "");
  }
}

void Broker::TellSubscribers(uint8_t code, const DirectoryEntry& entry) {
  const std::string frame = EncodeDirectoryEntry(code, entry);
  for (SubscriberTable::Subscriber* s : subscribers_.Matching(entry.topic)) {
    if (!SendFrame(s->id, frame)) unreachable_.push_back(s->id);
  }
}

void Broker::SendEntriesUnder(const std::string& id, const std::string& prefix) {
  directory_.ForEachUnder(prefix, [&](const DirectoryEntry& entry) {
    if (!SendFrame(id, EncodeDirectoryEntry(kAnnounce, entry))) unreachable_.push_back(id);
  });
}

void Broker::RemoveUnreachable() {
  // Removing may find more gone (a withdrawal to a subscriber that left): until none is left.
  while (!unreachable_.empty()) {
    const std::vector<std::string> gone = std::move(unreachable_);
    unreachable_.clear();
    for (const auto& id : gone) RemoveConnection(id);
  }
}

void Broker::RemoveConnection(const std::string& id) {
  subscribers_.Remove(id);
  for (const DirectoryEntry& entry : directory_.RemovePublisher(id)) {
    if (!directory_.Offered(entry)) TellSubscribers(kWithdraw, entry);
  }
}

void Broker::Replay(SubscriberTable::Subscriber& s, const std::string& prefix) {
  bool any = false;
  forwarding_.ForEachLatched(prefix, [&](const std::string& topic, const std::vector<uint8_t>& payload) {
    any = true;
    // Copied only if its budget admits it (a subscriber that does not read gets nothing more).
    const size_t bytes = payload.size() + topic.size() + kMessageOverhead;
    const bool state = IsStateMessage(payload.data(), payload.size());
    if (subscribers_.Admit(s, bytes, state)) Push(s, topic, SharedCopy(payload.data(), payload.size()), bytes, state);
  });
  if (any) {
    ++replays_;
    ++s.replays;
  }
}

void Broker::PingSubscribers() {
  // A subscriber that left is found when a send to it fails; one subscribed to quiet topics is sent
  // a one-byte ping now and then so that it is found too. One with messages in flight is skipped:
  // its entry stays until they are gone (ZeroMQ discards them when it leaves).
  subscribers_.ForEach([&](SubscriberTable::Subscriber& s) {
    if (s.account->bytes.load(std::memory_order_relaxed) == 0 && !SendControl(s.id, 0)) unreachable_.push_back(s.id);
  });
  // Publishers on the direct path that subscribe to nothing are pinged too: their offers go when they do.
  directory_.ForEachPublisher([&](const std::string& id) {
    if (subscribers_.Find(id) == nullptr && !SendControl(id, 0)) unreachable_.push_back(id);
  });
  RemoveUnreachable();
}

void Broker::PublishStats() {
  ++stats_periods_;
  forwarding_.AgeTopics(Node::WallNowNs());
  PingSubscribers();
  subscribers_.AgeReplays(std::chrono::steady_clock::now());
  // Queues of subscribers that left, evicted latched values and aged topics are freed to the
  // allocator; give what it keeps back to the system now and then, so memory is returned.
  if (stats_periods_ % 5 == 0) malloc_trim(0);
  // Per topic, the subscriber connections it goes to (`limbic topic info`): the table's cached match.
  forwarding_.BuildStats(
      fbb_, static_cast<int>(subscribers_.size()),
      [this](const std::string& topic) { return static_cast<int>(subscribers_.Matching(topic).size()); },
      DirectTopicStats());
  Forward("bus/stats", SharedCopy(fbb_.GetBufferPointer(), fbb_.GetSize()));
  --forwarded_;  // the broker's own messages are not counted as forwarded
  const std::vector<std::pair<std::string, double>> subscriber_counters{
      {"subscribers", static_cast<double>(subscribers_.size())},
      {"subscriber_bytes", static_cast<double>(subscribers_.HeldBytes())},
      {"subscriber_drops", static_cast<double>(subscribers_.dropped())},
      {"subscriber_state_drops", static_cast<double>(subscribers_.dropped_state())},
      {"subscribers_refused", static_cast<double>(subscribers_.refused())},
      {"subscribers_departed", static_cast<double>(subscribers_.departed())},
      {"replays", static_cast<double>(replays_)},
      {"replays_deferred", static_cast<double>(subscribers_.replays_deferred())},
      {"direct_publishers", static_cast<double>(directory_.publishers())},
      {"direct_entries", static_cast<double>(directory_.entries())},
      {"direct_refused", static_cast<double>(directory_.refused())},
      {"control_malformed", static_cast<double>(control_malformed_.load())},
      {"direct_rerouted", static_cast<double>(rerouted_.load())}};
  forwarding_.BuildHeartbeat(fbb_, forwarded_, rejected_clients(), subscriber_counters);
  Forward("health/bus", SharedCopy(fbb_.GetBufferPointer(), fbb_.GetSize()));
  --forwarded_;
}

}  // namespace limbic::bus
