// One contender of transport_peers is one small adapter: a Link is one end of a pair of topics ("ping" A → B,
// "pong" B → A) over that contender's transport, and everything measured is written once, over Links, in
// exchange.cpp. A new contender (limbic direct, limbic shared memory: issue 23 items 5 and 6) is a class with
// a constructor taking a Rendezvous and the two methods below, plus one entry in transport_peers.cpp's table.
#pragma once

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>

namespace limbic::peers {

// Sequence numbers at or above kControl are the harness's control messages; below are data.
inline constexpr uint64_t kControl = 1'000'000'000'000'000'000ull;  // fits limbic's header.tick (≤ 9e18)
inline constexpr uint64_t kWarmup = kControl + 1;                   // A → B until B answers: the pair is connected
inline constexpr uint64_t kReady = kControl + 2;                    // B → A: a sink saw a warm-up
inline constexpr uint64_t kDone = kControl + 3;                     // B → A: a sink has finished counting one size
inline constexpr uint64_t kStop = kControl + 4;                     // A → B: no more sizes
inline constexpr uint64_t kEnd = kControl + 5;  // A → B: the blast of this size is over (after its data)
// A data message's sequence number is size_index · kSizeStride + i, so a late message of one size is never
// counted as one of the next.
inline constexpr uint64_t kSizeStride = 1'000'000'000'000ull;

enum class Side { kA, kB };  // A publishes "ping" and subscribes "pong"; B the reverse

// Where the two ends (and a broker, proxy or daemon between them) meet, fresh for every measurement so that no
// two measurements share a socket, port or domain. Each contender derives its own addresses from it.
struct Rendezvous {
  std::string ipc_base;  // a path prefix under /tmp: "/tmp/limbic-peers-1234-7"
  int tcp_port = 0;      // p and p + 1 are free on 127.0.0.1
  int domain = 0;        // DDS domain id, also a UDP port offset (LCM)
  std::string tag;       // unique text for names (iceoryx instance, LCM channel)
};

struct Received {
  uint64_t seq = 0;
  size_t bytes = 0;  // the message's size as the contender counts it (payload handed to the transport)
};

class Link {
 public:
  virtual ~Link() = default;
  // Sends one message of about `bytes` bytes carrying `seq`; returns the bytes really sent (limbic's messages
  // cannot be smaller than a Heartbeat with its header). Blocks where the transport applies back-pressure.
  virtual size_t Send(uint64_t seq, size_t bytes) = 0;
  // The next message on this end's incoming topic, or nullopt once `timeout` has passed without one.
  virtual std::optional<Received> Receive(std::chrono::milliseconds timeout) = 0;
};

// The adapters (links_*.cpp). Each throws std::runtime_error with a readable message if it cannot open.
std::unique_ptr<Link> OpenZmqLink(Side side, const Rendezvous& r, bool tcp);
std::unique_ptr<Link> OpenProxyLink(Side side, const Rendezvous& r);
// `direct`: the nodes publish on the direct data path (the broker as directory only). `curve`: the broker and the
// nodes with CURVE keys (the broker admits both ends; on the direct path each node's data socket is a CURVE server
// too, docs/protocol.md §13 "CURVE"); with ServeLimbicBroker's `curve`.
std::unique_ptr<Link> OpenLimbicLink(Side side, const Rendezvous& r, bool tcp, bool direct = false, bool curve = false);
// limbic's nodes with their Heartbeats on shared memory (common/bus/shm.hpp), through the RouDi the harness starts.
std::unique_ptr<Link> OpenLimbicShmLink(Side side, const Rendezvous& r);
// Middle processes: run until SIGTERM (the flag), after calling `ready` once they accept connections.
void ServeProxy(const Rendezvous& r, void (*ready)());
void ServeLimbicBroker(const Rendezvous& r, bool tcp, void (*ready)(), const std::atomic<bool>& stop,
                       bool curve = false);
#ifdef LIMBIC_PEERS_CYCLONE
std::unique_ptr<Link> OpenCycloneLink(Side side, const Rendezvous& r);
#endif
#ifdef LIMBIC_PEERS_FASTDDS
std::unique_ptr<Link> OpenFastDdsLink(Side side, const Rendezvous& r);
#endif
#ifdef LIMBIC_PEERS_LCM
std::unique_ptr<Link> OpenLcmLink(Side side, const Rendezvous& r);
std::string LcmUrl(const Rendezvous& r);
#endif
#ifdef LIMBIC_PEERS_ICEORYX
std::unique_ptr<Link> OpenIceoryxLink(Side side, const Rendezvous& r);
#endif

}  // namespace limbic::peers
