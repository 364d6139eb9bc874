// libFuzzer target: arbitrary multipart frames into the bus's receiving side, through real ZeroMQ
// sockets over inproc:// (no bus code is copied or exposed for the test):
//   raw PUB --> Broker frontend (HandleFrontend: frames, size cap, identifier, verify, latched cache)
//               Broker backend --> Node `via_broker` (SubscribeAny("")): what the broker forwards
//   raw ROUTER --> Node `direct` (its DEALER connected straight to the raw socket): Poll/Dispatch on
//               unfiltered frames (control frames included), with the header's gap/duplicate bookkeeping
//   raw DEALER --> Broker backend: frame 0 as a subscription request (HandleBackend, latched replay)
// The input is split into 1-4 frames (fuzz_support.hpp: DecodeFrames). Every handler re-verifies what
// it is given and reads it in full; a handler seeing an unverified payload aborts.
// State persists across inputs (that is the point: the latched cache, per-source sequence state and
// per-topic counters see a stream); it is rebuilt every LIMBIC_FUZZ_BUS_RESET inputs (default 100000,
// 0 = never) so that per-topic maps filled by random topics do not dominate a long run.
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <zmq.hpp>

#include "common/bus/broker.hpp"
#include "common/bus/bus.hpp"
#include "common/log/log.hpp"
#include "messages/messages.hpp"
#include "tests/fuzz/fuzz_support.hpp"

namespace {

using namespace std::chrono_literals;
namespace bus = limbic::bus;
namespace msg = limbic::msg;

volatile uint64_t g_sink = 0;

void CheckAndWalk(const bus::RawMessage& raw, const char* who) {
  if (!raw.type.verify(raw.data, raw.size)) {
    std::fprintf(stderr, "fuzz_bus_frames: %s handler got a payload that does not verify\n", who);
    std::abort();
  }
  g_sink = g_sink + limbic::fuzz::WalkVerified(raw.type, raw.data, raw.size);
  g_sink = g_sink + raw.header.seq() + raw.topic.size();
}

std::vector<uint8_t> ProbeMessage(uint64_t seq) {
  flatbuffers::FlatBufferBuilder fbb;
  auto header = msg::CreateHeaderDirect(fbb, 0, -1, seq, "fuzz-probe", false, 42);
  msg::ClockBuilder clock(fbb);
  clock.add_header(header);
  fbb.Finish(clock.Finish(), limbic::messages::Traits<msg::Clock>::kIdentifier);
  return {fbb.GetBufferPointer(), fbb.GetBufferPointer() + fbb.GetSize()};
}

void SendFrames(zmq::socket_t& socket, const std::vector<std::span<const uint8_t>>& frames) {
  for (size_t i = 0; i < frames.size(); ++i) {
    const auto flags =
        i + 1 < frames.size() ? zmq::send_flags::sndmore | zmq::send_flags::dontwait : zmq::send_flags::dontwait;
    (void)socket.send(zmq::const_buffer(frames[i].data(), frames[i].size()), flags);
  }
}

// Everything lives for the whole process (never destroyed: no shutdown ordering at exit).
struct Rig {
  zmq::context_t context{1};
  std::unique_ptr<bus::Broker> broker;
  std::unique_ptr<bus::Node> via_broker;
  std::unique_ptr<bus::Node> direct;
  std::unique_ptr<zmq::socket_t> raw_front;    // PUB -> broker frontend
  std::unique_ptr<zmq::socket_t> raw_direct;   // ROUTER bound where `direct` subscribes
  std::string direct_id;                       // `direct`'s routing id at raw_direct
  std::unique_ptr<zmq::socket_t> raw_backend;  // DEALER -> broker backend (subscription requests)
  uint64_t inputs = 0;
  uint64_t generation = 0;
  uint64_t reset_every = 100000;
  uint64_t probe_seq = 0;

  void Build() {
    // Tear down in dependency order, then rebuild on fresh inproc names.
    raw_backend.reset();
    raw_direct.reset();
    direct_id.clear();
    raw_front.reset();
    direct.reset();
    via_broker.reset();
    broker.reset();
    ++generation;
    const std::string base = "inproc://fuzz-bus-" + std::to_string(generation);
    const std::string direct_base = "inproc://fuzz-direct-" + std::to_string(generation);
    bus::BrokerOptions broker_options;
    broker_options.address = base;
    broker = std::make_unique<bus::Broker>(context, broker_options);
    bus::NodeOptions node_options;
    node_options.name = "fuzz-sub";
    node_options.latched_resend = 0ms;
    via_broker = std::make_unique<bus::Node>(context, base, node_options);
    via_broker->SubscribeAny("", [](const bus::RawMessage& raw) { CheckAndWalk(raw, "via-broker"); });
    raw_direct = std::make_unique<zmq::socket_t>(context, zmq::socket_type::router);
    raw_direct->set(zmq::sockopt::linger, 0);
    raw_direct->bind(bus::ResolveBusAddress(direct_base).backend);
    direct = std::make_unique<bus::Node>(context, direct_base, node_options);
    direct->SubscribeAny("", [](const bus::RawMessage& raw) { CheckAndWalk(raw, "direct"); });
    raw_front = std::make_unique<zmq::socket_t>(context, zmq::socket_type::pub);
    raw_front->set(zmq::sockopt::linger, 0);
    raw_front->connect(bus::ResolveBusAddress(base).frontend);
    raw_backend = std::make_unique<zmq::socket_t>(context, zmq::socket_type::dealer);
    raw_backend->set(zmq::sockopt::linger, 0);
    raw_backend->connect(bus::ResolveBusAddress(base).backend);
    WaitUntilConnected();
  }

  // Subscriptions travel asynchronously: probe until a valid message crosses both paths.
  void WaitUntilConnected() {
    const auto deadline = std::chrono::steady_clock::now() + 5s;
    while (std::chrono::steady_clock::now() < deadline) {
      const auto probe = ProbeMessage(++probe_seq);
      const std::string topic = "fuzz/probe";
      const std::vector<std::span<const uint8_t>> frames{{reinterpret_cast<const uint8_t*>(topic.data()), topic.size()},
                                                         {probe.data(), probe.size()}};
      SendFrames(*raw_front, frames);
      SendDirect(frames);
      broker->RunOnce(1ms);
      via_broker->Poll(1ms);
      direct->Poll(1ms);
      const auto a = via_broker->received().find(topic);
      const auto b = direct->received().find(topic);
      if (a != via_broker->received().end() && a->second.messages > 0 && b != direct->received().end() &&
          b->second.messages > 0) {
        return;
      }
    }
    std::fprintf(stderr, "fuzz_bus_frames: the inproc bus did not connect within 5 s\n");
    std::abort();
  }

  // To `direct` through the raw ROUTER: its routing id first (learnt from its subscription).
  void SendDirect(const std::vector<std::span<const uint8_t>>& frames) {
    zmq::message_t m;
    while (raw_direct->recv(m, zmq::recv_flags::dontwait)) {
      if (m.more()) direct_id = m.to_string();  // [id][subscription or keepalive]
      while (m.more() && raw_direct->recv(m, zmq::recv_flags::dontwait)) {
      }
    }
    if (direct_id.empty()) return;
    (void)raw_direct->send(zmq::buffer(direct_id), zmq::send_flags::sndmore | zmq::send_flags::dontwait);
    SendFrames(*raw_direct, frames);
  }

  void Drain(zmq::socket_t& socket) {
    zmq::message_t m;
    for (int i = 0; i < 10000 && socket.recv(m, zmq::recv_flags::dontwait); ++i) {
    }
  }

  void Report() const {
    std::fprintf(stderr,
                 "fuzz_bus_frames: %llu inputs, generation %llu: broker tracks %zu topics (%zu latched), "
                 "node via broker %zu, direct node %zu\n",
                 static_cast<unsigned long long>(inputs), static_cast<unsigned long long>(generation),
                 broker->counts().size(), broker->latched_topics(), via_broker->received().size(),
                 direct->received().size());
  }

  void RunOne(const uint8_t* data, size_t size) {
    if (inputs > 0 && inputs % 50000 == 0) Report();
    if (reset_every > 0 && inputs > 0 && inputs % reset_every == 0) Build();
    ++inputs;
    const limbic::fuzz::FrameInput input = limbic::fuzz::DecodeFrames(data, size);
    SendFrames(*raw_front, input.frames);
    SendDirect(input.frames);
    std::vector<uint8_t> subscription;
    if (input.subscribe) {
      subscription.push_back(1);
      subscription.insert(subscription.end(), input.frames[0].begin(), input.frames[0].end());
      (void)raw_backend->send(zmq::buffer(subscription), zmq::send_flags::dontwait);
    }
    broker->RunOnce(0ms);
    via_broker->Poll(0ms);
    direct->Poll(0ms);
    if (input.subscribe) {
      subscription[0] = 0;  // withdraw it: the broker's subscriber table stays small
      (void)raw_backend->send(zmq::buffer(subscription), zmq::send_flags::dontwait);
      broker->RunOnce(0ms);
      Drain(*raw_backend);
    }
  }
};

Rig& GetRig() {
  static Rig* rig = [] {
    limbic::log::SetLevel(limbic::log::Level::kOff);  // drops are expected here; logging would dominate
    auto* r = new Rig();
    if (const char* every = std::getenv("LIMBIC_FUZZ_BUS_RESET")) r->reset_every = std::strtoull(every, nullptr, 10);
    r->Build();
    return r;
  }();
  return *rig;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  GetRig().RunOne(data, size);
  return 0;
}
