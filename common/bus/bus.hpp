// limbic's bus: FlatBuffers messages over ZeroMQ through a broker (limbic-bus, XSUB in, ROUTER out).
//
// A Node is one service instance's connection: one PUB socket to the broker's frontend and one DEALER
// socket to its backend (subscriptions travel as messages the broker keeps per subscriber; see
// broker.hpp for that side of the wire), owned by a single thread. Nothing received is trusted: every payload is
// checked (frame count, size cap, identifier, flatbuffers::Verifier, then its values against the
// type's rules in messages/validate.hpp) before a handler sees it; a bad one is dropped, counted per
// topic and reason, and logged once per burst with the field named. Sequence numbers in the
// header reveal lost messages (counted as gaps) and latched replays (counted as duplicates); each
// publisher's periodic HighWaterReport on `bus/hwm/<topic>` reveals those lost after the last one that
// arrived (counted as tail losses; SequenceTracker, docs/protocol.md "Losses").
#pragma once

#include <chrono>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>
#include <zmq.hpp>

#include "common/bus/directory.hpp"
#include "common/bus/sequence_tracker.hpp"
#include "common/bus/shm.hpp"
#include "common/bus/zap.hpp"
#include "common/log/log.hpp"
#include "messages/messages.hpp"
#include "messages/validate.hpp"

namespace limbic::bus {

// Where publishers and subscribers connect for one bus address.
//   ipc:///run/limbic/bus -> ipc:///run/limbic/bus.in  and ipc:///run/limbic/bus.out
//   tcp://host:7400       -> tcp://host:7400           and tcp://host:7401
//   inproc://name         -> inproc://name.in          and inproc://name.out
struct BrokerEndpoints {
  std::string frontend;   // XSUB: publishers connect here
  std::string backend;    // ROUTER: subscribers (DEALER) connect here
  bool ipv6 = false;      // tcp over IPv6: the sockets need ZMQ_IPV6
  bool loopback = false;  // tcp bound to (or connecting to) a loopback address only
};
// Throws std::invalid_argument with a readable message for an address it cannot use.
BrokerEndpoints ResolveBusAddress(const std::string& address);
// For binding, exactly the address asked for (issue 16: names and IPv6 used to bind every interface):
//   tcp://127.0.0.1:P, tcp://localhost:P, tcp://:P -> 127.0.0.1 only
//   tcp://[::1]:P, tcp://ip6-localhost:P          -> ::1 only (ZMQ_IPV6)
//   tcp://NAME:P                                  -> the first address getaddrinfo gives for NAME
//   tcp://*:P, tcp://0.0.0.0:P, tcp://[::]:P        -> every interface, because that was asked
// Throws BusAddressError (a std::invalid_argument) for a name that does not resolve.
BrokerEndpoints ResolveBindAddress(const std::string& address);

class BusAddressError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

// ZeroMQ CURVE keys (Z85 text, 40 characters each) for tcp across machines.
struct CurveClientKeys {
  std::string server_public;
  std::string client_public;
  std::string client_secret;
  bool enabled() const { return !server_public.empty(); }
};

// Per-topic traffic and drop counts, by reason.
struct TopicCounters {
  uint64_t messages = 0;
  uint64_t bytes = 0;
  uint64_t drops_malformed = 0;
  uint64_t drops_wrong_type = 0;
  uint64_t drops_oversize = 0;
  uint64_t drops_gap = 0;
  uint64_t drops_invalid = 0;  // verified, but a value breaks its type's rules (messages/validate.hpp)
  uint64_t drops_tail = 0;     // sent after the last one that arrived (HighWaterReport, confirmed), never arrived
  uint64_t duplicates = 0;
  int64_t last_seen_ns = 0;
  uint64_t TotalDrops() const {
    return drops_malformed + drops_wrong_type + drops_oversize + drops_gap + drops_invalid + drops_tail;
  }
};

// Per-topic tables (counts, drop logs, sequence tracking) hold at most this many topics, so a flood
// of invented topic names cannot exhaust memory. Traffic on topics beyond it is still handled by the
// broker (dropped and counted as malformed, under kOverflowTopic); a node counts it under
// kOverflowTopic and, past kMaxTrackedSources senders, restarts its gap/duplicate tracking.
inline constexpr size_t kMaxTrackedTopics = 4096;
inline constexpr size_t kMaxTrackedSources = 16384;
inline constexpr const char* kOverflowTopic = "<other topics>";
// HighWaterReports about topic T travel on kHighWaterPrefix + T.
inline constexpr std::string_view kHighWaterPrefix = "bus/hwm/";

// How a node's publications travel (issue 23 item 1; docs/protocol.md §13). kBroker: PUB -> broker -> each
// subscriber's DEALER. kDirect: the node binds a data socket of its own and announces its topics to the broker,
// which tells the subscribers where to connect; the data never crosses the broker. Receiving is the same for both:
// every ZeroMQ node follows the broker's directory, so a subscriber gets a topic whichever path its publisher uses.
enum class DataPath { kBroker, kDirect };
// $LIMBIC_BUS_PATH ("broker" or "direct"); nullopt when unset or empty. Throws std::invalid_argument for anything
// else, naming the variable (a misspelt path must not silently mean the other one).
std::optional<DataPath> DataPathFromEnvironment();
// The path a node takes when its options name none: $LIMBIC_BUS_PATH, else kDirect (issue 23's measurements).
DataPath DefaultDataPath();
const char* DataPathName(DataPath path);
// "broker" or "direct"; throws std::invalid_argument naming `what` (a flag or variable) and the value otherwise.
DataPath ParseDataPath(std::string_view text, std::string_view what);
// The command-line form of $LIMBIC_BUS_PATH (`--bus-path direct|broker`, every service and the `limbic` tool): sets
// it for this process, so every Node it makes, and every process it starts, uses that path. Throws as
// ParseDataPath for a misspelt value.
void UseDataPathForProcess(std::string_view text, std::string_view what = "--bus-path");

struct NodeOptions {
  std::string name = "node";  // instance name, written into every header's `source`
  // Messages queued per peer before ZeroMQ drops (never blocks); 0 = no bound in messages.
  int send_hwm = 10000;
  // The direct path's bound on what a subscriber that stops reading holds at this publisher, in bytes (docs/protocol.md
  // §13, "A slow subscriber"). ZeroMQ bounds a queue in messages only, and libzmq 4.3 cannot change a connection's
  // mark safely once made, so the bound is kept by two fixed rules: no message larger than direct_max_message_bytes
  // leaves the data socket (a larger one moves its topic to the broker path for good, where the broker bounds each
  // subscriber's queue in bytes; logged, and counted in direct_oversize_moves()), and the data socket's mark is
  // direct_queue_bytes / direct_max_message_bytes messages (DirectSendHwm: 1,024 by default), or send_hwm if lower.
  // The defaults are the broker's own per-subscriber budget (BrokerOptions::queue_bytes). 0 for either: no bound
  // in bytes (the mark is send_hwm, and a message of any size goes direct).
  size_t direct_queue_bytes = 64u << 20;
  size_t direct_max_message_bytes = 64u << 10;
  // How long after its last announcement, or the last subscription to arrive at it, the direct data socket stays in
  // Poll's wait set, so that a new subscriber's welcome (kWelcomeTick, which a lockstep join waits for) leaves at
  // once. After that, subscriptions are read whenever the node wakes for anything else (at most every 10 ms): each
  // ZeroMQ socket in the wait set costs zmq_poll two more system calls per wait, ~1 µs of the receiving thread per
  // message (bench/bus_bench.cpp, BM_DirectPollWithXpub).
  std::chrono::milliseconds direct_subscription_watch{5000};
  int receive_hwm = 10000;
  std::chrono::milliseconds latched_resend{1000};  // re-send latched values (rejoin after broker restart)
  std::chrono::milliseconds reconnect_interval{100};
  // An empty message to the broker this often (from Poll): a broker that does not know this connection
  // (it restarted, or a reconnect gave a new routing id) answers by asking for the subscriptions again.
  // 0 = never (a node that lives shorter than a broker).
  std::chrono::milliseconds keepalive{1000};
  // A HighWaterReport this often (from Poll) per topic this node has published with a typed Publisher:
  // subscribers count what was lost after the last message that reached them. 0 = never. Not on a LocalBus.
  std::chrono::milliseconds high_water_period{1000};
  CurveClientKeys curve;
  // Written into every header; 0 = random per start (tells a restarted source from a replay). A
  // deterministic replay sets the recorded one so the service's outputs match the recording bit for bit.
  uint64_t incarnation = 0;
  // Unset: $LIMBIC_BUS_PATH (DataPathFromEnvironment), else kDirect (issue 23's table; a direct node's event topics
  // still take the broker path, see direct_events). With CURVE keys the direct data socket is a CURVE server with this
  // node's own key pair, admitting the client keys the broker admits (docs/protocol.md §13, "CURVE").
  std::optional<DataPath> data_path;
  // Topic prefixes that take the other path than data_path. On a direct node, kControlTopics stay on the broker
  // unless listed here too: heartbeats, bus/, parameters, `faults` and `clock` are few, and the broker is where
  // `limbic topics`, the latched cache and the communication faults see them.
  std::vector<std::string> other_path_topics;
  // Event topics (message_class.hpp: not state) take the broker path from a direct node unless this is set: a direct
  // publisher's first messages reach only the subscribers already connected to it (docs/protocol.md §13, "First
  // messages"), a later first value for state but a lost command or goal for an event. Set it where every subscriber
  // is known to be linked before anything is sent (a lockstep participant joins only then) or loss is acceptable.
  bool direct_events = false;
  // Large messages through shared memory on this host (shm.hpp): the process's RouDi connection, or null for the
  // socket path only. Not on a LocalBus.
  std::shared_ptr<ShmRuntime> shm;
  ShmOptions shm_options;
};
// The direct data socket's high-water mark for `options` (NodeOptions::direct_queue_bytes): send_hwm and
// direct_queue_bytes / direct_max_message_bytes (at least 2, so that two messages can leave back to back), the
// smaller of those that are set; 0 = no bound.
int DirectSendHwm(const NodeOptions& options);
// Topics a direct node still publishes through the broker (see NodeOptions::other_path_topics): the broker reads
// `faults` (communication faults) and `clock` (the run clock those faults follow in lockstep) itself, and gathers
// heartbeats and bus/ for the tools. `clock` through the broker also orders a lockstep probe behind the directory
// entries the broker sent before it (docs/protocol.md §13, "Lockstep"), which Host's join relies on. `lockstep/`
// (joins, acknowledgements, stop requests) goes the way `clock` comes back: a participant's acknowledgement of tick k
// then leaves on the PUB behind what it sent through the broker that tick (latched topics, topics a fault moved), so
// those reach every consumer ahead of the clock of k+1 (one pipe from the broker); its direct topics are ordered by
// tick reports instead (Node::SendTickDone). A stop request and the acknowledgement after it keep their order too.
inline constexpr std::string_view kControlTopics[] = {"health/", "bus/", "param/", "faults", "clock", "lockstep/"};
// header.tick of a HighWaterReport a direct publisher sends in answer to a subscription to its topic arriving at its
// data socket (a "welcome"; periodic reports carry tick 0). See Node::DirectLinksReady.
inline constexpr int64_t kWelcomeTick = -1;

// A received, verified message. Valid only during the handler call.
template <typename T>
struct Message {
  const std::string& topic;
  const T& msg;
  const msg::Header& header;
  const uint8_t* data;
  size_t size;
  // On a LocalBus: the shared buffer that holds `data` (a receiver may keep it instead of copying); null
  // over ZeroMQ, where the frame is gone after the handler.
  const std::shared_ptr<const std::vector<uint8_t>>* shared = nullptr;
};

// A received payload of any registered type (tools: echo, hz, topics). Already verified.
struct RawMessage {
  const std::string& topic;
  const messages::MessageType& type;
  const msg::Header& header;
  const uint8_t* data;
  size_t size;
  const std::shared_ptr<const std::vector<uint8_t>>* shared = nullptr;  // as Message::shared
};

class Node;
class LocalBus;

// Thrown by Publisher::Publish for a message that breaks its type's rules (messages/validate.hpp): a
// node never sends what every receiver would drop. Inside a service step this makes the step fail, so
// the service reports itself degraded (realtime) or the lockstep run ends with the error (issue 15).
class InvalidMessage : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Typed publisher handle. Cheap to copy; valid while its Node lives.
template <typename T>
class Publisher {
 public:
  Publisher() = default;
  // Builds and sends one message: `build(fbb, header)` returns flatbuffers::Offset<T>. On a shared-memory topic
  // (shm.hpp) `fbb` builds in the loaned chunk, and `build` runs a second time, into the node's own builder for
  // the socket path, if no chunk could be had: it must only build.
  template <typename Build>
  void Publish(int64_t stamp_ns, int64_t tick, Build&& build);
  const std::string& topic() const;
  bool valid() const { return node_ != nullptr; }

 private:
  friend class Node;
  Publisher(Node* node, size_t slot) : node_(node), slot_(slot) {}
  Node* node_ = nullptr;
  size_t slot_ = 0;
};

class Node {
 public:
  Node(zmq::context_t& context, const std::string& bus_address, NodeOptions options);
  // A node on an in-memory bus shared by nodes of one thread (local_bus.hpp); `bus` outlives it.
  Node(LocalBus& bus, NodeOptions options);
  ~Node();
  Node(const Node&) = delete;
  Node& operator=(const Node&) = delete;

  template <typename T>
  Publisher<T> Advertise(const std::string& topic, bool latched = false) {
    return Publisher<T>(this, AddPublisher(topic, latched, messages::Traits<T>::kIdentifier));
  }

  // Handler for messages on exactly `topic` that verify as T.
  template <typename T>
  void Subscribe(const std::string& topic, std::function<void(const Message<T>&)> handler) {
    AddSubscription(topic, /*exact=*/true, &messages::Verify<T>, messages::Traits<T>::kIdentifier,
                    [handler = std::move(handler)](const RawMessage& raw) {
                      const T* msg = flatbuffers::GetRoot<T>(raw.data);
                      handler(Message<T>{raw.topic, *msg, raw.header, raw.data, raw.size, raw.shared});
                    });
  }
  // Handler for every verified message whose topic starts with `prefix` ("" = all).
  void SubscribeAny(const std::string& prefix, std::function<void(const RawMessage&)> handler);

  // Waits up to `timeout` for traffic, then dispatches what has arrived: at most `max_messages`, and then the
  // shared-memory chunks queued ahead of the socket messages it took (DrainBoth).
  // Also re-sends latched values when due. Returns the number of messages handled (incl. dropped).
  int Poll(std::chrono::milliseconds timeout, int max_messages = 1000);

  // Lets ZeroMQ apply what is pending on this node's sockets (a new connection, the broker's
  // subscription) without handling any message. A broker on the same thread (runtime::RunInProcess)
  // calls its RunOnce and then this, so that the first messages published pass the PUB filter.
  void ProcessPending();

  // Would this node's subscriber socket receive `topic` (the broker's prefix match on its subscriptions)?
  bool Wants(const std::string& topic) const;
  // Called with the topic of everything this node sends (runtime::RunInProcess uses it to know which
  // nodes on its thread may have something to read). Empty: none. `cache`: for a typed publisher's message, a place
  // kept per publisher where the observer may leave what it found for the topic, null until it does (cleared
  // whenever the observer is replaced); null for other sends.
  using SendObserver = std::function<void(const std::string& topic, void** cache)>;
  void SetSendObserver(SendObserver observer);

  // Sends raw bytes (tools and tests: `limbic pub`, fuzzing the broker). No checks.
  void SendRaw(const std::string& topic, const void* data, size_t size);
  // As SendRaw, without copying the payload: ZeroMQ reads `data` where it lies, and `owner` (whatever
  // keeps those bytes alive, e.g. a decompressed chunk of a recording) is held until ZeroMQ has
  // written or discarded the message, which may be after this call and after this node is gone. The
  // bytes must not change while held. One reference is taken per run of sends with the same owner,
  // not per message; the node keeps its reference on the last owner until a send with another one,
  // a failed send or its end. A null owner, a LocalBus or a payload under kMinSharedBytes is copied
  // as by SendRaw (below it a copy costs less than the reference count crossing to ZeroMQ's I/O
  // thread). Throws zmq::error_t as SendRaw does (e.g. ETERM once the context is shut down), having
  // released `owner`.
  void SendShared(const std::string& topic, std::span<const uint8_t> data, std::shared_ptr<const void> owner);
  static constexpr size_t kMinSharedBytes = 256;

  const std::string& name() const { return options_.name; }
  const std::map<std::string, TopicCounters>& received() const { return received_; }
  const std::map<std::string, TopicCounters>& sent() const { return sent_; }
  // Sends a HighWaterReport now for every topic published with a typed Publisher (Poll does it every
  // NodeOptions::high_water_period). Nothing on a LocalBus.
  void SendHighWaterReports();
  uint64_t TotalDrops() const;
  zmq::socket_t& subscriber_socket() { return sub_; }
  uint64_t incarnation() const { return incarnation_; }
  // The shared-memory side of this node (counters, whether it is still on), or null without one.
  const ShmEndpoint* shm() const { return shm_.get(); }

  // Wall-clock time in ns since the epoch (header stamps in realtime mode).
  static int64_t WallNowNs();
  // The same to within the kernel's tick (a few ms, never ahead of WallNowNs), read without asking the clock source:
  // for the "last seen" stamps taken per message, which are read in seconds (a precise read per message was 1.5 % of
  // a 16-robot lockstep tick on a VM).
  static int64_t CoarseWallNowNs();

 private:
  template <typename T>
  friend class Publisher;
  friend class LocalBus;

  struct PublisherSlot {
    std::string topic;
    bool latched = false;
    uint64_t seq = 0;
    std::vector<uint8_t> last;  // latched: last payload, for re-sending
    bool direct = false;        // goes out on data_pub_
    int shm = -1;               // its ShmEndpoint publisher, or -1: the socket path
    // On a LocalBus, found on the first send and kept (issue 18: looked up by the topic's name per message before):
    void* channel = nullptr;         // its LocalBus::Channel
    TopicCounters* sent = nullptr;   // its entry in sent_ (whose entries are never erased)
    void* observer_cache = nullptr;  // the send observer's (SetSendObserver)
  };
  // What this node keeps per topic delivered to it, made when a LocalBus channel first routes the topic here or its
  // first message arrives over ZeroMQ, and kept for the node's life (inlets_): the name a queued message refers to
  // (instead of a copy per receiver), and where Dispatch found the topic's counters, sequence state and type the last
  // time (each a search per message before; issue 18, and issue 23's receive side).
  struct Inlet {
    std::string topic;
    TopicCounters* counters = nullptr;  // received_'s entry once a message was delivered (entries are never erased)
    SequenceTracker::Hint sequence;
    const messages::MessageType* type = nullptr;  // the last message's type
    std::vector<size_t> matching;                 // the subscriptions (indices) the topic matches, in order
    size_t subscriptions_seen = 0;                // subscriptions_.size() when `matching` was made
  };
  Inlet* InletFor(std::string_view topic);
  // The ZeroMQ receive path's: null once kMaxTrackedTopics topics have one (a peer inventing names under a prefix
  // subscription must not grow the table without bound).
  Inlet* TrackedInletFor(std::string_view topic);
  struct Subscription {
    std::string topic;
    bool exact = true;
    bool (*verify)(const uint8_t*, size_t) = nullptr;  // null: any registered type
    const char* identifier = nullptr;
    std::function<void(const RawMessage&)> handler;
  };

  size_t AddPublisher(const std::string& topic, bool latched, const char* identifier = nullptr);
  // Publisher<T>::Publish on a shared-memory topic: builds in a loaned chunk and publishes it. False (counted)
  // if no chunk could be had: the caller builds and sends the message over the socket path instead.
  template <typename T, typename Build>
  bool PublishShm(PublisherSlot& slot, int64_t stamp_ns, int64_t tick, Build& build);
  int DrainShm(int max_messages);
  // Shared memory, the sockets, and shared memory again if the sockets gave something (in bus.cpp, why).
  int DrainBoth(int max_messages);
  void AddSubscription(const std::string& topic, bool exact, bool (*verify)(const uint8_t*, size_t),
                       const char* identifier, std::function<void(const RawMessage&)> handler);
  flatbuffers::Offset<msg::Header> MakeHeader(flatbuffers::FlatBufferBuilder& fbb, PublisherSlot& slot,
                                              int64_t stamp_ns, int64_t tick);
  void SendSlot(PublisherSlot& slot, const uint8_t* data, size_t size);
  int Drain(int max_messages);
  // `admitted`: the bytes are the ones a LocalBus's Forwarding verified and validated on publication, unchanged
  // (no communication fault touched them), so the checks are not repeated for every receiving node.
  // `inlet`: the topic's (a LocalBus delivery), or null.
  void Dispatch(const std::string& topic, const uint8_t* data, size_t size, bool admitted = false,
                const std::shared_ptr<const std::vector<uint8_t>>* shared = nullptr, Inlet* inlet = nullptr);
  // From a LocalBus: one payload shared by every node it is delivered to (read-only).
  void Enqueue(Inlet* inlet, std::shared_ptr<const std::vector<uint8_t>> payload, bool admitted);
  void CountDrop(const std::string& topic, uint64_t TopicCounters::*reason, const char* why);
  TopicCounters& Received(const std::string& topic);  // received_[topic], capped
  void ResendLatched();
  void SendSubscription(const std::string& prefix);  // to the broker: "\x01PREFIX"
  // Direct path (issue 23 item 1). The socket `topic` goes out on: pub_, or data_pub_ (announced on first use).
  // `identifier`: the type of the topic's messages (empty: unknown). An event topic (message_class.hpp: not state)
  // takes the broker path from a direct node unless NodeOptions::direct_events. Only the topic's first use decides.
  zmq::socket_t& SocketFor(const std::string& topic, std::string_view identifier);
  bool RouteDirect(const std::string& topic) const;
  void Announce(const std::string& topic);
  void SendAnnouncement(const std::string& topic);  // the entry, and the topic's type if known
  // `topic` (announced by this node) goes through the broker from now on: the broker's kUseBroker (a communication
  // fault on it), or a message over NodeOptions::direct_max_message_bytes. `why` ends the log line.
  // False if it was not (not announced by this node, or moved already).
  bool UseBroker(const std::string& topic, std::string_view why);
  // Is a message of `size` bytes too large for the data socket (NodeOptions::direct_max_message_bytes)? If so, its
  // topic moves to the broker path (counted, said once per topic) and the caller sends it there.
  bool MovedForSize(const std::string& topic, size_t size);
  // SocketFor a message about to be sent: pub_ instead of data_pub_ if it is too large for the data socket.
  zmq::socket_t& SocketForMessage(const std::string& topic, const uint8_t* data, size_t size);
  void BindDataSocket();  // data_pub_, on first direct publication
  // A one-frame directory message from the broker (kAnnounce: connect, kWithdraw: let go).
  void HandleDirectory(const uint8_t* data, size_t size);
  // The broker's kAdmittedKeys (CURVE): whom data_pub_ admits from now on.
  void HandleAdmittedKeys(const uint8_t* data, size_t size);
  void RejectDirectory(const std::string& why);  // counted, said once a burst
  // Data frames from `socket` ([topic][payload]); `control`: one-frame messages are the broker's control codes.
  int DrainData(zmq::socket_t& socket, bool control, int max_messages);
  void DisconnectData(const std::string& endpoint);
  // Connects data_sub_ to a direct publisher (`key`: its CURVE server key, set on a CURVE node for any endpoint but
  // inproc; empty without CURVE); false, counted, if it cannot.
  bool ConnectData(const std::string& endpoint, const std::string& key);
  // Subscriptions arriving at data_pub_: a new subscriber gets the latched value of that topic.
  void DrainDataSubscriptions();
  // `topic`'s subscription, and the one to its HighWaterReports unless a subscription covers them already.
  void SubscribeWithReports(const std::string& topic);
  // A message on kHighWaterPrefix + T: counts T's tail losses; handed to subscriptions that name the prefix.
  void HandleReport(const std::string& topic, const uint8_t* data, size_t size, bool admitted,
                    const std::shared_ptr<const std::vector<uint8_t>>* shared);
  void CountSent(const std::string& topic, size_t size);
  void CountSent(PublisherSlot& slot, size_t size);  // as above, through the slot's entry

  // SendShared's hold on one owner: a count of the messages ZeroMQ still has from it, plus one while
  // it is the node's current owner; whoever takes it to zero deletes it (and so releases the owner).
  struct SharedHold;
  static void ReleaseShared(void* data, void* hint);
  static void Unhold(SharedHold* hold);

  struct Queued {
    Inlet* inlet;  // names the topic
    std::shared_ptr<const std::vector<uint8_t>> payload;
    bool admitted = false;
  };

  NodeOptions options_;
  zmq::socket_t pub_;  // both empty on a LocalBus
  zmq::socket_t sub_;
  LocalBus* local_ = nullptr;  // null once the LocalBus is gone
  bool local_mode_ = false;
  std::deque<Queued> inbox_;                          // LocalBus: delivered, not yet handled
  std::map<std::string, Inlet, std::less<>> inlets_;  // per topic delivered (InletFor, TrackedInletFor)
  messages::AlignedBytes aligned_;                    // a received frame where ZeroMQ left it misaligned
  std::deque<PublisherSlot> publishers_;
  size_t latched_slots_ = 0;  // how many of them are latched (ResendLatched has nothing to do without one)
  // A deque: a handler may subscribe while Dispatch calls it through a reference to its own entry (none is ever
  // removed, and a deque's push_back moves no element).
  std::deque<Subscription> subscriptions_;
  std::map<std::string, TopicCounters> received_;
  std::map<std::string, TopicCounters> sent_;
  SequenceTracker sequences_{kMaxTrackedSources};
  std::map<std::string, uint64_t> high_water_seq_;  // per topic: the last report's header.seq
  std::map<std::string, log::RateLimiter> drop_log_;
  flatbuffers::FlatBufferBuilder fbb_{1024};
  uint64_t incarnation_ = 0;
  std::chrono::steady_clock::time_point next_latched_resend_;
  std::chrono::steady_clock::time_point next_keepalive_;
  std::chrono::steady_clock::time_point next_high_water_;
  SendObserver send_observer_;
  SharedHold* shared_hold_ = nullptr;  // the last owner given to SendShared
  // Direct path.
  zmq::context_t* context_ = nullptr;
  std::string bus_address_;
  DataPath path_ = DataPath::kBroker;
  bool direct_any_ = false;  // some topic may go direct: SocketFor looks it up
  zmq::socket_t data_pub_;   // XPUB, bound on first direct publication
  zmq::socket_t data_sub_;   // SUB, connected to the endpoints the broker names
  std::string data_endpoint_;
  std::unordered_map<std::string, bool> routes_;        // topic -> direct, as decided on first use
  std::vector<std::string> announced_;                  // re-sent when the broker asks (it restarted)
  std::map<std::string, std::string> announced_types_;  // topic -> identifier of its typed publisher (kTopicType)
  DirectLinks links_;
  uint64_t directory_rejected_ = 0;
  uint64_t direct_oversize_moves_ = 0;  // topics moved to the broker path by a message over the direct limit
  std::shared_ptr<ZapService> zap_;     // CURVE: this context's ZAP handler, which admits data_pub_'s clients
  std::string zap_domain_;              // data_pub_'s domain there
  size_t admitted_keys_ = 0;            // how many the broker last said it admits
  bool control_first_ = false;          // Drain: which socket goes first
  std::chrono::steady_clock::time_point next_data_subscriptions_;    // Drain: when to read data_pub_ again
  std::chrono::steady_clock::time_point watch_subscriptions_until_;  // Poll waits on data_pub_ until then

 public:
  // Direct path state, for tests and tools.
  DataPath data_path() const { return path_; }
  const std::string& data_endpoint() const { return data_endpoint_; }
  const DirectLinks& direct_links() const { return links_; }
  // The direct data socket's high-water mark in messages per subscriber, as the socket has it (0 before it exists).
  int direct_send_hwm() const { return data_pub_ ? data_pub_.get(zmq::sockopt::sndhwm) : 0; }
  uint64_t directory_rejected() const { return directory_rejected_; }
  // Topics this node keeps receiving state for (its inlets; at most kMaxTrackedTopics on ZeroMQ).
  size_t tracked_topics() const { return inlets_.size(); }
  // Topics this node moved to the broker path because a message was larger than direct_max_message_bytes.
  uint64_t direct_oversize_moves() const { return direct_oversize_moves_; }
  // CURVE: the client keys this node's data socket admits (as the broker last told it), and those it refused.
  size_t direct_admitted_keys() const { return admitted_keys_; }
  uint64_t direct_rejected_clients() const { return zap_ ? zap_->rejected(zap_domain_) : 0; }
  bool PublishesDirect(const std::string& topic) const;
  // Are all this node's direct links able to deliver? For every topic the broker has told it to take from direct
  // publishers, as many publishers (source and incarnation) have welcomed it as there are endpoints: a publisher's
  // data socket answers each subscription to one of its topics with a HighWaterReport stamped kWelcomeTick, sent
  // once its XPUB has applied that subscription, and this node subscribes the reports (bus/hwm/T) before T, so the
  // welcome arrives whenever the subscription was applied, and its arrival proves it was: whatever the publisher
  // sends on T from then on reaches this node (docs/protocol.md §13, "Lockstep"). False with the topics still
  // waiting in `waiting` (if given). Always true on a LocalBus and without direct links.
  bool DirectLinksReady(std::string* waiting = nullptr) const;

  // Lockstep on the direct path (docs/protocol.md §13, "Lockstep: a tick's last word"). A consumer's step of tick k+1
  // may use its producers' outputs of tick k (Timing::kPreviousTick), but the clock of k+1 reaches it through the
  // broker and those outputs straight from each producer's socket: two pipes with no order between them. So a
  // lockstep participant's node says so in its welcomes (MarkLockstepTicks) and, once it has finished a tick, sends a
  // tick report on every direct topic it publishes (SendTickDone), behind that tick's data in the same pipe; a
  // consumer steps k+1 once every such publisher of each earlier-tick input has reported k (TickDone).
  void MarkLockstepTicks() { marks_ticks_ = true; }
  // A HighWaterReport with tick_done = `tick` on each direct topic this node publishes. Nothing on a LocalBus.
  void SendTickDone(int64_t tick);
  // Has every publisher of `topic` that marks lockstep ticks reported `tick` done? True when none does (the broker
  // path, a LocalBus, publishers outside the run). Otherwise false, naming the publishers still owing it in
  // `waiting` (if given).
  bool TickDone(const std::string& topic, int64_t tick, std::string* waiting = nullptr) const;

 private:
  // A welcome (kWelcomeTick report) for each publisher slot of `topic` on data_pub_; false if it has none.
  bool SendWelcome(std::string_view topic);
  // Topics to welcome again, and when (DrainDataSubscriptions): one sorting before its reports can lose its welcome.
  std::map<std::string, std::chrono::steady_clock::time_point, std::less<>> rewelcome_;
  static constexpr std::chrono::milliseconds kRewelcomeDelay{10};
  // Topic -> the publishers (source, incarnation) whose welcome has arrived, for the topics in links_. Each set is
  // capped (kMaxWelcomes): a publisher restarting without end must not grow it.
  std::map<std::string, std::set<std::string>, std::less<>> welcomed_;
  static constexpr size_t kMaxWelcomes = 64;
  // Lockstep tick reports (TickDone): topic -> publisher (source) -> its incarnation and the last tick it reported
  // done (-1: none yet). Made by a welcome that says the publisher marks ticks; a new incarnation of the same source
  // replaces the old (a dead incarnation would be waited for for ever). Erased with welcomed_'s entry. Capped as it.
  struct TickMark {
    uint64_t incarnation = 0;
    int64_t tick = -1;
  };
  std::map<std::string, std::map<std::string, TickMark, std::less<>>, std::less<>> tick_marks_;
  bool marks_ticks_ = false;
  std::unique_ptr<ShmEndpoint> shm_;
};

template <typename T>
template <typename Build>
void Publisher<T>::Publish(int64_t stamp_ns, int64_t tick, Build&& build) {
  Node& node = *node_;
  auto& slot = node.publishers_[slot_];
  if (slot.shm >= 0 && node.shm_->active() && node.template PublishShm<T>(slot, stamp_ns, tick, build)) return;
  auto& fbb = node.fbb_;
  fbb.Clear();
  auto header = node.MakeHeader(fbb, slot, stamp_ns, tick);
  flatbuffers::Offset<T> root = build(fbb, header);
  fbb.Finish(root, messages::Traits<T>::kIdentifier);
  if (std::string invalid = messages::ValidateValues<T>(fbb.GetBufferPointer(), fbb.GetSize()); !invalid.empty()) {
    --slot.seq;  // nothing was sent: receivers must not see a gap
    throw InvalidMessage("refusing to publish an invalid message on '" + slot.topic + "': " + invalid);
  }
  node.SendSlot(slot, fbb.GetBufferPointer(), fbb.GetSize());
}

template <typename T, typename Build>
bool Node::PublishShm(PublisherSlot& slot, int64_t stamp_ns, int64_t tick, Build& build) {
  ChunkAllocator allocator(shm_->Source(slot.shm));
  size_t size = 0;
  size_t offset = 0;
  uint8_t* chunk = nullptr;
  try {
    // The builder's buffer is the chunk: the message is written once, where the subscribers will read it.
    flatbuffers::FlatBufferBuilder fbb(shm_->InitialSize(slot.shm), &allocator, /*own_allocator=*/false);
    auto header = MakeHeader(fbb, slot, stamp_ns, tick);
    flatbuffers::Offset<T> root = build(fbb, header);
    fbb.Finish(root, messages::Traits<T>::kIdentifier);
    if (std::string invalid = messages::ValidateValues<T>(fbb.GetBufferPointer(), fbb.GetSize()); !invalid.empty()) {
      --slot.seq;  // nothing was sent (the builder gives its chunk back)
      throw InvalidMessage("refusing to publish an invalid message on '" + slot.topic + "': " + invalid);
    }
    size = fbb.GetSize();
    size_t reserved = 0;  // ReleaseRaw gives the buffer's size; the message is its last `size` bytes
    chunk = fbb.ReleaseRaw(reserved, offset);  // the builder lets go of the chunk without giving it back
  } catch (const ShmLoanError& e) {
    --slot.seq;  // built again on the socket path with the same number
    shm_->CountFallback();
    uint64_t suppressed = 0;
    if (drop_log_["shm:" + slot.topic].Allow(&suppressed)) {
      LIMBIC_LOG(kWarning) << "shared memory: '" << slot.topic << "' sent over the socket path: " << e.what()
                           << (suppressed ? " (" + std::to_string(suppressed) + " more since last report)" : "");
    }
    return false;
  }
  const uint8_t* data = chunk + offset;
  if (slot.latched) slot.last.assign(data, data + size);  // re-sent over the socket path for late joiners
  if (shm_->options().mirror_to_socket) {
    SendRaw(slot.topic, data, size);  // counts it as sent
  } else {
    CountSent(slot.topic, size);
  }
  shm_->Publish(slot.shm, chunk, offset, size, allocator.loans());
  return true;
}

template <typename T>
const std::string& Publisher<T>::topic() const {
  return node_->publishers_[slot_].topic;
}

}  // namespace limbic::bus
