// CURVE on the direct data path (issue 23, "CURVE across hosts"; docs/protocol.md §13 "CURVE"). Trust flows from the
// broker: a direct publisher's data socket is a CURVE server with the node's own key pair and admits the client keys
// the broker admits (told on its authenticated connection); a subscriber connects only with the publisher key the
// broker authenticated on that publisher's connection. Broker and nodes share one context here, so one ZAP handler
// serves the broker's sockets and the nodes' data sockets (zap.hpp).
#include <gtest/gtest.h>

#include <atomic>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "common/bus/broker.hpp"
#include "common/bus/bus.hpp"
#include "tests/testing/process.hpp"

namespace limbic::bus {
namespace {

using namespace std::chrono_literals;

struct KeyPair {
  std::string public_key;
  std::string secret_key;
};

KeyPair NewKeyPair() {
  char public_key[41] = {}, secret_key[41] = {};
  EXPECT_EQ(zmq_curve_keypair(public_key, secret_key), 0);
  return {public_key, secret_key};
}

// A handshake in a domain still awaiting its keys waits for them instead of being refused: refused, the client would
// be lost for good (ZeroMQ does not reconnect after a refused handshake), and a subscriber told of a direct publisher
// by the broker can connect before the publisher has read the broker's list (seen in CI: the subscriber never heard
// it). One that waits past the limit is refused and counted.
TEST(ZapService, AHandshakeBeforeTheKeysWaitsForThemAndOnePastTheLimitIsRefused) {
  zmq::context_t context;
  auto zap = ZapService::For(context);
  const KeyPair server = NewKeyPair(), client = NewKeyPair();
  for (const bool keys_come : {true, false}) {
    SCOPED_TRACE(keys_come ? "the keys arrive after the handshake began" : "the keys never arrive");
    const std::string domain = UniqueZapDomain("test");
    zap->AwaitKeys(domain, keys_come ? std::chrono::milliseconds(10000) : std::chrono::milliseconds(200));
    zmq::socket_t pub(context, zmq::socket_type::pub);
    pub.set(zmq::sockopt::linger, 0);
    pub.set(zmq::sockopt::curve_server, 1);
    pub.set(zmq::sockopt::curve_secretkey, server.secret_key);
    pub.set(zmq::sockopt::zap_domain, domain);
    pub.bind("tcp://127.0.0.1:*");
    zmq::socket_t sub(context, zmq::socket_type::sub);
    sub.set(zmq::sockopt::linger, 0);
    sub.set(zmq::sockopt::curve_serverkey, server.public_key);
    sub.set(zmq::sockopt::curve_publickey, client.public_key);
    sub.set(zmq::sockopt::curve_secretkey, client.secret_key);
    sub.set(zmq::sockopt::subscribe, "");
    sub.connect(pub.get(zmq::sockopt::last_endpoint));
    std::this_thread::sleep_for(400ms);  // the handshake is under way (past the short limit)
    if (keys_come) zap->Admit(domain, {client.public_key});
    int received = 0;
    const auto end = std::chrono::steady_clock::now() + (keys_come ? 8s : 1s);
    while (std::chrono::steady_clock::now() < end && received == 0) {
      pub.send(zmq::str_buffer("x"), zmq::send_flags::dontwait);
      zmq::message_t m;
      sub.set(zmq::sockopt::rcvtimeo, 20);
      if (sub.recv(m)) ++received;
    }
    if (keys_come) {
      EXPECT_EQ(received, 1) << "the waiting handshake was admitted once the keys came";
      EXPECT_EQ(zap->rejected(domain), 0u);
    } else {
      EXPECT_EQ(received, 0);
      EXPECT_GE(zap->rejected(domain), 1u) << "refused after the limit, and counted";
    }
    zap->Remove(domain);
  }
}

void PublishOdom(Publisher<msg::Odometry>& pub, double v) {
  pub.Publish(0, 0, [&](flatbuffers::FlatBufferBuilder& fbb, auto header) {
    msg::Pose2 pose(1, 2, 0.5);
    return msg::CreateOdometry(fbb, header, &pose, v, 0.0);
  });
}

template <typename Done>
bool PollUntil(std::initializer_list<Node*> nodes, Done done, std::chrono::milliseconds limit = 8000ms) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  while (std::chrono::steady_clock::now() < deadline) {
    for (Node* n : nodes) n->Poll(5ms);
    if (done()) return true;
  }
  return false;
}

class CurveDirect : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    address_ =
        GetParam() == "tcp" ? "tcp://127.0.0.1:" + std::to_string(testing::FreeTcpPortPair()) : "ipc://" + dir_ / "bus";
    StartBroker();
  }
  void TearDown() override { StopBroker(); }
  void StartBroker() {
    BrokerOptions options;
    options.address = address_;
    options.stats_period = 200ms;
    options.curve.server_secret = server_.secret_key;
    options.curve.allowed_clients = {robot_.public_key, workstation_.public_key, laptop_.public_key};
    broker_ = std::make_unique<Broker>(context_, options);
    stop_ = false;
    thread_ = std::thread([this] { broker_->Run(stop_); });
  }
  void StopBroker() {
    stop_ = true;
    if (thread_.joinable()) thread_.join();
  }
  CurveClientKeys Keys(const KeyPair& pair) const { return {server_.public_key, pair.public_key, pair.secret_key}; }
  NodeOptions Options(const std::string& name, const KeyPair& pair, DataPath path) const {
    NodeOptions o;
    o.name = name;
    o.curve = Keys(pair);
    o.data_path = path;
    o.keepalive = 100ms;
    return o;
  }

  testing::TempDir dir_;
  std::string address_;
  KeyPair server_ = NewKeyPair();
  KeyPair robot_ = NewKeyPair();
  KeyPair workstation_ = NewKeyPair();
  KeyPair laptop_ = NewKeyPair();
  KeyPair intruder_ = NewKeyPair();
  zmq::context_t context_;
  std::unique_ptr<Broker> broker_;
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

INSTANTIATE_TEST_SUITE_P(Transports, CurveDirect, ::testing::Values("ipc", "tcp"));

// Two admitted nodes: the data goes publisher -> subscriber over CURVE, the broker carries none of it and lists the
// topic as `direct` in bus/stats.
TEST_P(CurveDirect, DataFlowsDirectlyBetweenAdmittedNodes) {
  Node pub_node(context_, address_, Options("r1/talker", robot_, DataPath::kDirect));
  Node sub_node(context_, address_, Options("listener", workstation_, DataPath::kBroker));
  auto odom = pub_node.Advertise<msg::Odometry>("r1/odom");
  auto health = pub_node.Advertise<msg::Heartbeat>("health/r1/talker");
  ASSERT_EQ(pub_node.data_path(), DataPath::kDirect);
  std::vector<double> got;
  sub_node.Subscribe<msg::Odometry>("r1/odom", [&](const Message<msg::Odometry>& m) { got.push_back(m.msg.v()); });
  std::string direction;
  sub_node.Subscribe<msg::BusStats>("bus/stats", [&](const Message<msg::BusStats>& m) {
    for (const auto* t : *m.msg.topics()) {
      if (t->topic()->str() == "r1/odom") direction = t->direction()->str();
    }
  });
  ASSERT_TRUE(PollUntil({&pub_node, &sub_node},
                        [&] {
                          PublishOdom(odom, 1.0);
                          const auto& sent = pub_node.sent().at("r1/odom");
                          health.Publish(0, 0, [&](flatbuffers::FlatBufferBuilder& fbb, auto header) {
                            std::vector<flatbuffers::Offset<msg::TopicStats>> topics{
                                msg::CreateTopicStatsDirect(fbb, "r1/odom", nullptr, "out", sent.messages, sent.bytes)};
                            return msg::CreateHeartbeatDirect(fbb, header, "r1/talker", msg::ServiceState::Running,
                                                              "realtime", 0, 0, 0, 0, 0, nullptr, 0, nullptr, &topics);
                          });
                          return got.size() >= 20 && direction == "direct";
                        }))
      << got.size() << " received, direction '" << direction << "'";
  EXPECT_EQ(sub_node.direct_links().endpoints(), 1u);
  EXPECT_EQ(pub_node.direct_admitted_keys(), 3u);  // the broker's list, told on the publisher's connection
  EXPECT_EQ(sub_node.directory_rejected(), 0u);
  EXPECT_EQ(sub_node.TotalDrops(), 0u);
  StopBroker();
  EXPECT_EQ(broker_->counts().count("r1/odom"), 0u);  // none of it crossed the broker
}

// A client whose key the broker does not admit gets nothing from a direct publisher either, though it knows the
// publisher's endpoint and public key (neither is secret); an admitted key at the same socket does.
TEST_P(CurveDirect, AnUnadmittedKeyGetsNothingDirectly) {
  Node pub_node(context_, address_, Options("talker", robot_, DataPath::kDirect));
  Node sub_node(context_, address_, Options("listener", workstation_, DataPath::kBroker));
  auto odom = pub_node.Advertise<msg::Odometry>("r1/odom");
  int heard = 0;
  sub_node.Subscribe<msg::Odometry>("r1/odom", [&](const auto&) { ++heard; });
  ASSERT_TRUE(PollUntil({&pub_node, &sub_node}, [&] {
    PublishOdom(odom, 1.0);
    return heard > 0;
  }));
  const auto raw_client = [&](const KeyPair& pair) {
    auto s = std::make_unique<zmq::socket_t>(context_, zmq::socket_type::sub);
    s->set(zmq::sockopt::linger, 0);
    s->set(zmq::sockopt::curve_serverkey, robot_.public_key);  // the publisher's public key: not a secret
    s->set(zmq::sockopt::curve_publickey, pair.public_key);
    s->set(zmq::sockopt::curve_secretkey, pair.secret_key);
    s->set(zmq::sockopt::subscribe, "");
    s->connect(pub_node.data_endpoint());
    return s;
  };
  auto intruder = raw_client(intruder_);
  auto laptop = raw_client(laptop_);  // admitted by the broker, so by the publisher
  int intruder_frames = 0, laptop_frames = 0;
  const auto drain = [](zmq::socket_t& s, int* count) {
    zmq::message_t m;
    while (s.recv(m, zmq::recv_flags::dontwait)) ++*count;
  };
  ASSERT_TRUE(PollUntil({&pub_node, &sub_node},
                        [&] {
                          PublishOdom(odom, 2.0);
                          drain(*intruder, &intruder_frames);
                          drain(*laptop, &laptop_frames);
                          return laptop_frames >= 20 && pub_node.direct_rejected_clients() > 0;
                        }))
      << laptop_frames << " frames to the admitted client, " << pub_node.direct_rejected_clients() << " refused";
  for (int i = 0; i < 20; ++i) {  // and some more, to give the intruder every chance
    PublishOdom(odom, 3.0);
    pub_node.Poll(5ms);
    drain(*intruder, &intruder_frames);
  }
  EXPECT_EQ(intruder_frames, 0);
}

// A directory entry naming a key that is not the publisher's does not connect (the CURVE handshake fails): a broker
// that lied, or a stale entry, cannot make a subscriber accept a publisher it did not vouch for. The same endpoint
// with the right key then delivers. The lying broker is a bare ROUTER (a CURVE server with the bus's key); the
// publisher is on a real broker of its own.
TEST_P(CurveDirect, AnEntryNamingAWrongKeyDoesNotConnect) {
  Node pub_node(context_, address_, Options("talker", robot_, DataPath::kDirect));
  auto odom = pub_node.Advertise<msg::Odometry>("r1/odom");
  ASSERT_TRUE(PollUntil({&pub_node}, [&] { return pub_node.direct_admitted_keys() == 3u; }));

  const std::string fake_address =
      GetParam() == "tcp" ? "tcp://127.0.0.1:" + std::to_string(testing::FreeTcpPortPair()) : "ipc://" + dir_ / "fake";
  const BrokerEndpoints fake = ResolveBusAddress(fake_address);
  auto zap = ZapService::For(context_);
  zap->Admit("fake", {workstation_.public_key});
  zmq::socket_t frontend(context_, zmq::socket_type::xsub), backend(context_, zmq::socket_type::router);
  for (zmq::socket_t* s : {&frontend, &backend}) {
    s->set(zmq::sockopt::linger, 0);
    s->set(zmq::sockopt::curve_server, 1);
    s->set(zmq::sockopt::curve_secretkey, server_.secret_key);
    s->set(zmq::sockopt::zap_domain, "fake");
  }
  frontend.bind(fake.frontend);
  backend.bind(fake.backend);
  Node sub_node(context_, fake_address, Options("listener", workstation_, DataPath::kBroker));
  int heard = 0;
  sub_node.Subscribe<msg::Odometry>("r1/odom", [&](const auto&) { ++heard; });
  zmq::message_t id, body;
  backend.set(zmq::sockopt::rcvtimeo, 5000);
  ASSERT_TRUE(backend.recv(id));  // the subscription: learn the node's routing id
  ASSERT_TRUE(backend.recv(body));
  const auto tell = [&](uint8_t code, const std::string& key) {
    backend.send(zmq::buffer(id.to_string()), zmq::send_flags::sndmore);
    backend.send(zmq::buffer(EncodeDirectoryEntry(code, DirectoryEntry{"r1/odom", pub_node.data_endpoint(), key})),
                 zmq::send_flags::none);
  };
  tell(kAnnounce, intruder_.public_key);  // a key, but not the publisher's
  ASSERT_TRUE(PollUntil({&pub_node, &sub_node}, [&] { return sub_node.direct_links().endpoints() == 1; }));
  for (int i = 0; i < 100; ++i) {  // 1.5 s: many reconnect attempts
    PublishOdom(odom, 1.0);
    pub_node.Poll(5ms);
    sub_node.Poll(10ms);
  }
  EXPECT_EQ(heard, 0);
  tell(kWithdraw, intruder_.public_key);
  tell(kAnnounce, robot_.public_key);
  EXPECT_TRUE(PollUntil({&pub_node, &sub_node}, [&] {
    PublishOdom(odom, 2.0);
    return heard > 0;
  }));
  // And an entry without a key on a CURVE bus is refused outright, counted.
  tell(kAnnounce, "");
  EXPECT_TRUE(PollUntil({&sub_node}, [&] { return sub_node.directory_rejected() == 1; }));
  zap->Remove("fake");
}

// A publisher never names its own key: an announcement carrying one is refused and counted by the broker.
TEST_P(CurveDirect, AnAnnouncementNamingAKeyIsRefused) {
  zmq::socket_t dealer(context_, zmq::socket_type::dealer);
  dealer.set(zmq::sockopt::linger, 0);
  dealer.set(zmq::sockopt::curve_serverkey, server_.public_key);
  dealer.set(zmq::sockopt::curve_publickey, laptop_.public_key);
  dealer.set(zmq::sockopt::curve_secretkey, laptop_.secret_key);
  dealer.connect(ResolveBusAddress(address_).backend);
  dealer.send(
      zmq::buffer(EncodeDirectoryEntry(kAnnounce, DirectoryEntry{"r1/odom", "tcp://10.0.0.1:5555", robot_.public_key})),
      zmq::send_flags::none);
  const auto deadline = std::chrono::steady_clock::now() + 5s;
  while (broker_->control_malformed() == 0 && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(10ms);
  }
  StopBroker();
  EXPECT_EQ(broker_->control_malformed(), 1u);
  EXPECT_EQ(broker_->directory().entries(), 0u);
}

// A restarted broker: the data keeps flowing (it never crossed the broker), the publisher is told the admitted keys
// again when it re-announces, and a subscriber that joins afterwards gets an entry with the publisher's key.
TEST_P(CurveDirect, ARestartedBrokerKeepsTheDataAndVouchesAgain) {
  Node pub_node(context_, address_, Options("talker", robot_, DataPath::kDirect));
  Node sub_node(context_, address_, Options("listener", workstation_, DataPath::kBroker));
  auto odom = pub_node.Advertise<msg::Odometry>("r1/odom");
  int heard = 0;
  sub_node.Subscribe<msg::Odometry>("r1/odom", [&](const auto&) { ++heard; });
  ASSERT_TRUE(PollUntil({&pub_node, &sub_node}, [&] {
    PublishOdom(odom, 1.0);
    return heard > 0;
  }));
  StopBroker();
  broker_.reset();
  const int before = heard;
  for (int i = 0; i < 50; ++i) {
    PublishOdom(odom, 1.0);
    pub_node.Poll(2ms);
    sub_node.Poll(2ms);
  }
  ASSERT_TRUE(PollUntil({&pub_node, &sub_node}, [&] { return heard >= before + 50; }));
  StartBroker();
  Node late(context_, address_, Options("late", laptop_, DataPath::kBroker));
  int late_heard = 0;
  late.Subscribe<msg::Odometry>("r1/odom", [&](const auto&) { ++late_heard; });
  EXPECT_TRUE(PollUntil({&pub_node, &sub_node, &late}, [&] {
    PublishOdom(odom, 2.0);
    return late_heard > 0;
  }));
  EXPECT_EQ(late.directory_rejected(), 0u);
  EXPECT_EQ(sub_node.TotalDrops(), 0u);
  EXPECT_EQ(late.TotalDrops(), 0u);
}

// A publisher restarted at the same endpoint with a new key, while the subscriber's connection to the old one still
// lingers (docs/protocol.md §13, "CURVE"): the connection is made again with the new key — at the same safe point as a
// disconnect, after what the old publisher delivered has been read — and the subscriber then receives from the new
// one: every message of the old one that reached it, each once, then the new one's, each once, no frame mixed (no
// drop of any kind). Both orders the broker can tell it in: the old entry withdrawn first (a publisher that withdraws
// before it goes), or the new one announced first (the broker finds the old connection gone at its next ping). Bare
// XPUB sockets stand in for the two publishers, one after the other at one endpoint, each announced by a DEALER with
// that publisher's key (the key the broker vouches for is the one its connection authenticated).
// Without the deferred reconnection the old publisher's queued messages were thrown away with its connection (the
// first order); without keys per entry the old key's withdrawal took the endpoint from the new publisher (the second).
TEST_P(CurveDirect, APublisherRestartedAtALingeringEndpointWithANewKeyIsHeardOnceAndWhole) {
  for (const bool withdraw_first : {true, false}) {
    SCOPED_TRACE(withdraw_first ? "the old entry withdrawn first" : "the new entry announced first");
    const std::string domain = UniqueZapDomain("standin");
    auto zap = ZapService::For(context_);
    zap->Admit(domain, {workstation_.public_key});
    const std::string endpoint = GetParam() == "tcp" ? "tcp://127.0.0.1:" + std::to_string(testing::FreeTcpPortPair())
                                                     : "ipc://" + dir_ / ("standin-" + std::to_string(withdraw_first));
    const std::string topic = withdraw_first ? "r1/odom" : "r2/odom";
    auto publisher = [&](const KeyPair& pair) {
      auto xpub = std::make_unique<zmq::socket_t>(context_, zmq::socket_type::xpub);
      xpub->set(zmq::sockopt::linger, 0);
      xpub->set(zmq::sockopt::curve_server, 1);
      xpub->set(zmq::sockopt::curve_secretkey, pair.secret_key);
      xpub->set(zmq::sockopt::zap_domain, domain);
      // The old socket's listener closes on ZeroMQ's I/O thread, a moment after close(): the port is free soon after.
      for (int attempt = 0;; ++attempt) {
        try {
          xpub->bind(endpoint);
          break;
        } catch (const zmq::error_t& e) {
          if (e.num() != EADDRINUSE || attempt == 200) throw;
          std::this_thread::sleep_for(10ms);
        }
      }
      auto dealer = std::make_unique<zmq::socket_t>(context_, zmq::socket_type::dealer);
      dealer->set(zmq::sockopt::linger, 0);
      dealer->set(zmq::sockopt::curve_serverkey, server_.public_key);
      dealer->set(zmq::sockopt::curve_publickey, pair.public_key);
      dealer->set(zmq::sockopt::curve_secretkey, pair.secret_key);
      dealer->connect(ResolveBusAddress(address_).backend);
      dealer->send(zmq::buffer(EncodeDirectoryEntry(kAnnounce, DirectoryEntry{topic, endpoint})),
                   zmq::send_flags::none);
      return std::make_pair(std::move(xpub), std::move(dealer));
    };
    auto send = [&](zmq::socket_t& xpub, const char* source, uint64_t incarnation, uint64_t seq) {
      flatbuffers::FlatBufferBuilder fbb;
      msg::Pose2 pose(1, 2, 0.5);
      fbb.Finish(
          msg::CreateOdometry(fbb, msg::CreateHeader(fbb, 0, 0, seq, fbb.CreateString(source), false, incarnation),
                              &pose, static_cast<double>(seq % 50), 0),
          messages::Traits<msg::Odometry>::kIdentifier);
      xpub.send(zmq::buffer(topic), zmq::send_flags::sndmore);
      xpub.send(zmq::const_buffer(fbb.GetBufferPointer(), fbb.GetSize()), zmq::send_flags::none);
    };
    Node sub_node(context_, address_, Options("listener", workstation_, DataPath::kBroker));
    std::map<std::string, std::map<uint64_t, int>> heard;  // source -> seq -> times
    sub_node.Subscribe<msg::Odometry>(
        topic, [&](const Message<msg::Odometry>& m) { ++heard[m.header.source()->str()][m.header.seq()]; });
    auto [old_xpub, old_dealer] = publisher(robot_);
    uint64_t old_seq = 0;
    ASSERT_TRUE(PollUntil({&sub_node}, [&] {
      send(*old_xpub, "old", 1, ++old_seq);
      return !heard["old"].empty();
    }));
    PollUntil(
        {&sub_node}, [] { return false; }, 50ms);  // the warm-up's last ones
    // A burst the subscriber has not read when the old publisher goes: it waits in the subscriber's socket.
    constexpr int kBurst = 50;
    for (int i = 0; i < kBurst; ++i) send(*old_xpub, "old", 1, ++old_seq);
    std::this_thread::sleep_for(100ms);
    if (withdraw_first) {
      old_dealer->send(zmq::buffer(EncodeDirectoryEntry(kWithdraw, DirectoryEntry{topic, endpoint})),
                       zmq::send_flags::none);
      std::this_thread::sleep_for(50ms);  // at the broker before the new announcement
    }
    old_xpub.reset();
    old_dealer.reset();
    auto [new_xpub, new_dealer] = publisher(laptop_);
    std::this_thread::sleep_for(100ms);  // the broker's entries wait at the subscriber, behind the burst
    uint64_t new_seq = 0;
    ASSERT_TRUE(PollUntil({&sub_node}, [&] {
      send(*new_xpub, "new", 2, ++new_seq);
      return !heard["new"].empty();
    })) << "the subscriber never heard the new publisher";
    // The broker finds the old connection gone (the second order) and the link settles on one endpoint.
    ASSERT_TRUE(PollUntil({&sub_node}, [&] {
      return sub_node.direct_links().endpoints() == 1 && sub_node.direct_links().lingering() == 0;
    }));
    const uint64_t first_new = heard["new"].begin()->first;
    for (int i = 0; i < 20; ++i) send(*new_xpub, "new", 2, ++new_seq);
    ASSERT_TRUE(PollUntil({&sub_node}, [&] { return heard["new"].size() == new_seq - first_new + 1; }));
    PollUntil(
        {&sub_node}, [] { return false; }, 100ms);  // anything delivered twice would be here by now
    // Every message of the old publisher's burst, once.
    for (uint64_t seq = old_seq - kBurst + 1; seq <= old_seq; ++seq) {
      EXPECT_EQ(heard["old"][seq], 1) << "old publisher, seq " << seq;
    }
    for (const auto& [seq, times] : heard["new"]) EXPECT_EQ(times, 1) << "new publisher, seq " << seq;
    const TopicCounters& counts = sub_node.received().at(topic);
    EXPECT_EQ(counts.duplicates, 0u);
    EXPECT_EQ(counts.drops_malformed + counts.drops_wrong_type + counts.drops_invalid, 0u) << "no frame mixed";
    EXPECT_EQ(sub_node.directory_rejected(), 0u);
    zap->Remove(domain);
  }
}

}  // namespace
}  // namespace limbic::bus
