// A fixed number of messages published and received through the broker, for instruction counts (issue 23 item
// 3: what counting losses costs per message):
//
//   valgrind --tool=callgrind --toggle-collect='*PublishBatch*' build/bench/bus_cycles 20000
//   valgrind --tool=callgrind --toggle-collect='*Node::Poll*' build/bench/bus_cycles 20000
//
// The first counts only Publisher<Odometry>::Publish (header, build, validation, send to the PUB socket), the second
// only the subscriber's Poll (receive from its socket, checks, sequence tracking, handler), so instructions per
// message = the total / messages. The broker runs on a thread of its own (inproc://, its own context, not
// counted). Messages go in batches of 500, each received before the next is sent, so nothing is dropped.
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <thread>

#include "common/bus/broker.hpp"
#include "common/bus/bus.hpp"

namespace {

using namespace std::chrono_literals;

[[gnu::noinline]] void PublishBatch(limbic::bus::Publisher<limbic::msg::Odometry>& pub, int n, int first) {
  for (int i = 0; i < n; ++i) {
    pub.Publish(0, first + i, [&](flatbuffers::FlatBufferBuilder& fbb, auto header) {
      const limbic::msg::Pose2 pose(1.0, 2.0, 0.5);
      return limbic::msg::CreateOdometry(fbb, header, &pose, 0.1 * i, 0.0);
    });
  }
}

}  // namespace

int main(int argc, char** argv) {
  const int total = argc > 1 ? std::atoi(argv[1]) : 20000;
  constexpr int kBatch = 500;
  const std::string address = "inproc://bus-cycles";
  zmq::context_t broker_context;
  limbic::bus::BrokerOptions options;
  options.address = address;
  limbic::bus::Broker broker(broker_context, options);
  std::atomic<bool> stop{false};
  std::thread broker_thread([&] { broker.Run(stop); });
  {
    // inproc:// connects within one context: the nodes share the broker's.
    limbic::bus::Node publisher(broker_context, address, {.name = "publisher"});
    limbic::bus::Node subscriber(broker_context, address, {.name = "subscriber"});
    auto pub = publisher.Advertise<limbic::msg::Odometry>("r1/odom");
    long received = 0;
    subscriber.Subscribe<limbic::msg::Odometry>("r1/odom", [&](const auto&) { ++received; });
    // Until the subscription has reached the broker (warm-up messages are not in the count).
    while (received == 0) {
      PublishBatch(pub, 1, 0);
      subscriber.Poll(10ms);
    }
    while (subscriber.Poll(50ms) > 0) {
    }
    received = 0;
    for (int sent = 0; sent < total; sent += kBatch) {
      PublishBatch(pub, kBatch, sent);
      while (received < sent + kBatch) {
        if (subscriber.Poll(5000ms, 100000) == 0) {
          std::fprintf(stderr, "bus_cycles: nothing arrived for 5 s (%ld of %d)\n", received, sent + kBatch);
          return 1;
        }
      }
    }
    const auto& c = subscriber.received().at("r1/odom");
    std::printf("%d messages published, %ld received, %llu lost\n", total, received,
                static_cast<unsigned long long>(c.TotalDrops()));
  }
  stop = true;
  broker_thread.join();
  return 0;
}
