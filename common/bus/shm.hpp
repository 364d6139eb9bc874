// Zero-copy on one host (issue 23 item 2): large messages through shared memory (iceoryx 2.0, its daemon
// iox-roudi), the socket path for everything else and as the fallback.
//
// Which topics: those whose message type is in ShmOptions::identifiers (by default the large state types:
// maps, scans, laser scans, map snapshots), decided by type because a publisher must choose before it builds
// (the message is built in the loaned chunk) and because publisher and subscriber then agree without asking.
// Topics longer than kMaxShmTopic characters stay on the socket path (iceoryx's names are 100 characters).
//
// Discovery: iceoryx's own, by name: service "limbic-<hash of the bus address>" (nodes of two buses on one host
// never meet), instance = topic, event = the type's identifier. A subscriber subscribes on both paths: shared
// memory for publishers on this host with shared memory, the socket path for everyone else (another host, a
// process without RouDi, `limbic pub`, a replay). A publisher on shared memory also sends over the socket path
// (ShmOptions::mirror_to_socket, the default), so that readers without shared memory — on another host, the Python
// client, a test's own node — get every message too; a reader on this host with shared memory takes the chunk
// first and drops the socket copy as a counted duplicate (by sequence number). mirror_to_socket = false (a
// process's `--shm-only`, LIMBIC_SHM=only, a launch file's `shared_memory: only`) sends into shared memory alone:
// no socket copies, for a host whose every reader of those types uses shared memory — any other reader gets
// nothing of them.
//
// Fallback: no RouDi when the process connects (or a build without iceoryx) -> ShmRuntime::Connect returns null
// with the reason, the node logs it once and uses the socket path for everything. RouDi gone or restarted later
// (iceoryx 2.0 has no reconnect: a new RouDi makes new memory the old clients never see) -> the node notices
// within ShmOptions::roudi_check, says so once, and its publishers go over the socket path from then on; the
// subscribers already listen there. A restarted process uses the new RouDi.
//
// What is counted (ShmCounters, per node; and the node's per-topic TopicCounters as for the socket path): a
// message that finds no chunk (pools exhausted, larger than any pool, over max_message_bytes) goes over the
// socket path (fallbacks); a chunk whose frame or payload fails the checks is released and counted as malformed
// on its topic; a subscriber that does not keep up loses the oldest chunks of its queue (iceoryx's discard-oldest:
// the publisher never blocks), which show as sequence gaps (drops_gap) or, at the end, tail losses.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "common/bus/shm_chunk.hpp"

namespace limbic::bus {

inline constexpr size_t kMaxShmTopic = 100;

// The FlatBuffers identifiers that take shared memory unless told otherwise: grid maps, range scans, laser
// scans, topological map snapshots (the messages of kilobytes and more).
std::vector<std::string> DefaultShmIdentifiers();

// The iceoryx service name of a bus's topics ("limbic-" and a hash of the address).
std::string ShmServiceName(const std::string& bus_address);

// How a process uses shared memory: not at all, with a socket copy of each message (readers without it get them
// too), or alone. Read from LIMBIC_SHM or a launch file: "0"/"false" off, "1"/"true" mirrored, "only".
enum class ShmUse { kOff, kMirrored, kOnly };
// Throws std::invalid_argument naming `what` and the accepted values for anything else.
ShmUse ParseShmUse(std::string_view text, const std::string& what);

struct ShmOptions {
  std::vector<std::string> identifiers = DefaultShmIdentifiers();  // ["*"]: every type
  uint32_t subscriber_queue = 16;              // chunks a subscriber holds before the oldest is discarded
  size_t max_message_bytes = 4u << 20;         // larger: over the socket path (counted as a fallback)
  bool mirror_to_socket = true;                // also over the socket path, for readers without shared memory
  std::chrono::milliseconds roudi_check{500};  // how often Poll checks that RouDi is still the same one
};

struct ShmCounters {
  uint64_t sent = 0;         // messages published into chunks
  uint64_t received = 0;     // chunks taken (before their checks)
  uint64_t fallbacks = 0;    // messages meant for shared memory sent over the socket path (no chunk)
  uint64_t malformed = 0;    // chunks whose frame or payload failed the checks
  uint64_t extra_loans = 0;  // a builder outgrew its first chunk (a copy of what was built so far)
};

// The process's connection to RouDi. iceoryx allows one per process: create it once (in main) and give it to
// every Node of the process that should use shared memory (NodeOptions::shm).
class ShmRuntime {
 public:
  // Connects as `name` (unique on the host; the pid is appended) if RouDi answers; otherwise null and the reason
  // in `*why`. A second call in one process returns the first runtime.
  // `wait`: how long to wait for a RouDi that is still starting (a process started beside it by `limbic launch`).
  static std::shared_ptr<ShmRuntime> Connect(const std::string& name, std::string* why,
                                             std::chrono::milliseconds wait = std::chrono::milliseconds(0));
  // Is RouDi still the one this process connected to (alive, same shared memory)? Cheap: a stat and a connect.
  bool RouDiAlive() const;
  // Does a RouDi answer on this host now? (No runtime needed: what Connect asks first.)
  static bool RouDiRunning();
  ~ShmRuntime();

  struct Impl;
  Impl& impl() { return *impl_; }

 private:
  explicit ShmRuntime(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

// One Node's shared-memory publishers and subscribers (the node owns one when it was given a runtime).
class ShmEndpoint {
 public:
  ShmEndpoint(std::shared_ptr<ShmRuntime> runtime, const std::string& bus_address, ShmOptions options);
  ~ShmEndpoint();
  ShmEndpoint(const ShmEndpoint&) = delete;
  ShmEndpoint& operator=(const ShmEndpoint&) = delete;

  bool active() const { return active_; }
  const ShmOptions& options() const { return options_; }
  const ShmCounters& counters() const { return counters_; }
  // Does `topic` of this type take shared memory?
  bool Takes(const std::string& topic, std::string_view identifier) const;
  // A publisher for `topic`; its index, or -1 if iceoryx refused (logged; the topic stays on the socket path).
  int AddPublisher(const std::string& topic, std::string_view identifier);
  bool AddSubscriber(const std::string& topic, std::string_view identifier);

  // Loans for one message of publisher `index`; InitialSize is what to ask for first.
  ChunkSource& Source(int index);
  size_t InitialSize(int index) const;
  // Publishes the chunk `chunk` (from Source(index)) whose message lies at [chunk + offset, + size).
  void Publish(int index, uint8_t* chunk, size_t offset, size_t size, int loans);
  void CountFallback() { ++counters_.fallbacks; }

  // Takes up to `max` chunks from the subscribers, hands each to `deliver` (topic, bytes in place, or the reason
  // its frame is unreadable), and releases it after. Returns how many were taken.
  using Deliver = std::function<void(const std::string& topic, const uint8_t* data, size_t size, const char* error)>;
  int Drain(int max, const Deliver& deliver);
  // An fd that is readable while chunks may be waiting (for poll(2) beside the sockets); -1 without subscribers.
  int wake_fd() const { return wake_fd_; }
  // Does a subscriber have a chunk queued? (No system call.)
  bool HasData() const;
  // Every roudi_check: if RouDi is gone or another one, turns this endpoint off for good and returns true once.
  bool CheckRouDi(std::chrono::steady_clock::time_point now);

  struct Ports;

 private:
  std::shared_ptr<ShmRuntime> runtime_;
  ShmOptions options_;
  std::string service_;
  bool active_ = true;
  int wake_fd_ = -1;
  ShmCounters counters_;
  std::chrono::steady_clock::time_point next_check_{};
  std::unique_ptr<Ports> ports_;
};

}  // namespace limbic::bus
