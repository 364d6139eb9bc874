// CURVE on the direct path across hosts (tests/system/curve_direct/run.sh): one side of a direct-path exchange.
//   curve-direct-peer pub --bus ADDR --curve-keys FILE [--topic T] [--timeout S]
//     publishes VelocityCommands on T directly (data_path direct) every 10 ms, with a heartbeat of its counts on
//     health/curve-direct-pub (so bus/stats lists T as direct), until killed or the timeout.
//   curve-direct-peer sub --bus ADDR --curve-keys FILE [--topic T] [--count N] [--timeout S]
//     exits 0 once it has N messages on T through a direct link to a tcp endpoint that is not the broker's host, and
//     bus/stats lists T with direction `direct`; 1 on timeout (saying what it lacked), 2 on bad arguments.
//   curve-direct-peer intrude --endpoint E --server-key K --curve-keys FILE [--timeout S]
//     a bare SUB straight at a direct publisher's endpoint E with its public key K and the key pair of FILE (the
//     broker never told it anything): exits 0 if nothing arrived within the timeout, 1 if something did.
#include <chrono>
#include <iostream>
#include <string>
#include <vector>

#include "common/bus/bus.hpp"
#include "common/bus/curve_keys.hpp"

namespace {

using namespace std::chrono_literals;
namespace bus = limbic::bus;
namespace msg = limbic::msg;

int Usage(const std::string& why) {
  std::cerr << "curve-direct-peer: " << why
            << "\nusage: curve-direct-peer pub|sub --bus ADDR --curve-keys FILE [--topic T] [--count N] "
               "[--timeout S]\n       curve-direct-peer intrude --endpoint E --server-key K --curve-keys FILE "
               "[--timeout S]\n";
  return 2;
}

int Publish(zmq::context_t& context, const std::string& address, bus::NodeOptions options, const std::string& topic,
            double timeout_s) {
  options.name = "curve-direct-pub";
  options.data_path = bus::DataPath::kDirect;
  options.direct_events = true;  // a command topic, sent direct all the same: the direct link is what is tested
  bus::Node node(context, address, options);
  auto pub = node.Advertise<msg::VelocityCommand>(topic);
  auto health = node.Advertise<msg::Heartbeat>("health/curve-direct-pub");
  std::cout << "curve-direct-peer: publishing '" << topic << "' directly on " << node.data_endpoint() << std::endl;
  const auto start = std::chrono::steady_clock::now();
  auto next_heartbeat = start;
  while (std::chrono::steady_clock::now() - start < std::chrono::duration<double>(timeout_s)) {
    pub.Publish(bus::Node::WallNowNs(), -1,
                [](auto& fbb, auto header) { return msg::CreateVelocityCommand(fbb, header, 0.5, 0.0); });
    if (std::chrono::steady_clock::now() >= next_heartbeat) {
      const auto& sent = node.sent().at(topic);
      health.Publish(bus::Node::WallNowNs(), -1, [&](flatbuffers::FlatBufferBuilder& fbb, auto header) {
        std::vector<flatbuffers::Offset<msg::TopicStats>> topics{
            msg::CreateTopicStatsDirect(fbb, topic.c_str(), nullptr, "out", sent.messages, sent.bytes)};
        return msg::CreateHeartbeatDirect(fbb, header, "curve-direct-pub", msg::ServiceState::Running, "realtime", 0, 0,
                                          0, 0, 0, nullptr, 0, nullptr, &topics);
      });
      next_heartbeat += 500ms;
    }
    node.Poll(10ms);
  }
  std::cout << "curve-direct-peer: admitted keys " << node.direct_admitted_keys() << ", refused clients "
            << node.direct_rejected_clients() << std::endl;
  return 0;
}

int Subscribe(zmq::context_t& context, const std::string& address, bus::NodeOptions options, const std::string& topic,
              int count, double timeout_s) {
  options.name = "curve-direct-sub";
  bus::Node node(context, address, options);
  int heard = 0;
  std::string direction;
  node.Subscribe<msg::VelocityCommand>(topic, [&](const auto&) { ++heard; });
  node.Subscribe<msg::BusStats>("bus/stats", [&](const bus::Message<msg::BusStats>& m) {
    if (m.msg.topics() == nullptr) return;
    for (const auto* t : *m.msg.topics()) {
      if (t->topic() != nullptr && t->topic()->str() == topic && t->direction() != nullptr) {
        direction = t->direction()->str();
      }
    }
  });
  const auto start = std::chrono::steady_clock::now();
  while (std::chrono::steady_clock::now() - start < std::chrono::duration<double>(timeout_s)) {
    node.Poll(20ms);
    if (heard >= count && direction == "direct" && node.direct_links().endpoints() == 1) {
      std::cout << "curve-direct-peer: " << heard << " messages on '" << topic
                << "' through a direct link, bus/stats says direct; directory entries refused "
                << node.directory_rejected() << std::endl;
      return node.directory_rejected() == 0 && node.TotalDrops() == 0 ? 0 : 1;
    }
  }
  std::cout << "curve-direct-peer: after " << timeout_s << " s: " << heard << " of " << count << " messages, "
            << node.direct_links().endpoints() << " direct link(s), bus/stats direction '" << direction
            << "', directory entries refused " << node.directory_rejected() << std::endl;
  return 1;
}

int Intrude(zmq::context_t& context, const std::string& endpoint, const std::string& server_key,
            const bus::CurveClientKeys& keys, double timeout_s) {
  zmq::socket_t sub(context, zmq::socket_type::sub);
  sub.set(zmq::sockopt::linger, 0);
  sub.set(zmq::sockopt::curve_serverkey, server_key);
  sub.set(zmq::sockopt::curve_publickey, keys.client_public);
  sub.set(zmq::sockopt::curve_secretkey, keys.client_secret);
  sub.set(zmq::sockopt::subscribe, "");
  sub.set(zmq::sockopt::rcvtimeo, static_cast<int>(timeout_s * 1000));
  sub.connect(endpoint);
  zmq::message_t frame;
  if (sub.recv(frame)) {
    std::cout << "curve-direct-peer: received '" << frame.to_string_view().substr(0, 64) << "' from " << endpoint
              << std::endl;
    return 1;
  }
  std::cout << "curve-direct-peer: nothing from " << endpoint << " in " << timeout_s << " s" << std::endl;
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) return Usage("which side: pub or sub");
  const std::string role = argv[1];
  std::string address, keys, topic = "r1/cmd_vel", endpoint, server_key;
  int count = 100;
  double timeout_s = 30;
  for (int i = 2; i < argc; i += 2) {
    const std::string flag = argv[i];
    if (i + 1 >= argc) return Usage(flag + " needs a value");
    const std::string value = argv[i + 1];
    if (flag == "--bus") {
      address = value;
    } else if (flag == "--curve-keys") {
      keys = value;
    } else if (flag == "--endpoint") {
      endpoint = value;
    } else if (flag == "--server-key") {
      server_key = value;
    } else if (flag == "--topic") {
      topic = value;
    } else if (flag == "--count") {
      count = std::stoi(value);
    } else if (flag == "--timeout") {
      timeout_s = std::stod(value);
    } else {
      return Usage("unknown option " + flag);
    }
  }
  if (keys.empty()) return Usage("--curve-keys is required");
  bus::NodeOptions options;
  options.curve = bus::LoadCurveClientKeys(keys);
  zmq::context_t context;
  if (role == "intrude") {
    if (endpoint.empty() || server_key.empty()) return Usage("intrude needs --endpoint and --server-key");
    return Intrude(context, endpoint, server_key, options.curve, timeout_s);
  }
  if (address.empty()) return Usage("--bus is required");
  if (role == "pub") return Publish(context, address, options, topic, timeout_s);
  if (role == "sub") return Subscribe(context, address, options, topic, count, timeout_s);
  return Usage("unknown side '" + role + "' (pub or sub)");
}
