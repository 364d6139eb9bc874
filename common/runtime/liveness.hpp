// Local liveness: a supervised process tells its supervisor on the same host that its loop still turns, without
// the bus. `limbic launch` judged hangs by heartbeats heard through the broker, so on a robot whose only link to
// the broker is slow or lossy it restarted healthy services whose heartbeats were merely late (issue 18: over a
// link losing 30 % of packets, 0–2 restarts a run). A datagram on the host cannot be late that way.
//
// The protocol is systemd's service notification (sd_notify(3)): the supervisor sets NOTIFY_SOCKET to a Unix
// datagram socket (a path, or "@name" in the abstract namespace) and the process sends "WATCHDOG=1" to it. The
// receiver learns the sender's pid from the kernel (SCM_CREDENTIALS), so a process cannot speak for another.
// Under systemd with WatchdogSec= the same datagrams feed systemd's own watchdog.
#pragma once

#include <sys/types.h>

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

namespace limbic::runtime {

// The sending side. Never blocks and never throws once constructed: a full or vanished socket costs a counted
// failure, not the caller's loop.
class LivenessNotifier {
 public:
  // From NOTIFY_SOCKET; null when it is unset or empty. Throws std::runtime_error for an address that is not a
  // Unix socket address (too long, neither "/..." nor "@...").
  static std::unique_ptr<LivenessNotifier> FromEnvironment();
  explicit LivenessNotifier(const std::string& address);
  ~LivenessNotifier();
  LivenessNotifier(const LivenessNotifier&) = delete;
  LivenessNotifier& operator=(const LivenessNotifier&) = delete;

  // Sends "WATCHDOG=1". False when the datagram could not be sent (no listener, queue full). Safe from several
  // threads at once (services hosted as threads of one process share the process's notifier).
  bool Notify();
  uint64_t sent() const { return sent_; }
  uint64_t failed() const { return failed_; }
  const std::string& address() const { return address_; }

 private:
  int fd_ = -1;
  std::string address_;
  std::atomic<uint64_t> sent_{0}, failed_{0};
};

// The supervisor's side: a bound datagram socket with SO_PASSCRED.
class LivenessListener {
 public:
  // Binds "@limbic-liveness-<pid>-<n>" in the abstract namespace (nothing to clean up; private to the network
  // namespace, like the supervisor's children). Throws std::runtime_error when the socket cannot be made.
  LivenessListener();
  ~LivenessListener();
  LivenessListener(const LivenessListener&) = delete;
  LivenessListener& operator=(const LivenessListener&) = delete;

  // The value for the children's NOTIFY_SOCKET.
  const std::string& address() const { return address_; }
  // Reads every datagram waiting; calls `alive(pid)` for each "WATCHDOG=1" (a datagram may carry several
  // newline-separated assignments, as sd_notify allows). Others (READY=1, STATUS=...) are ignored; a datagram
  // without credentials or with no WATCHDOG=1 counts in ignored(). Returns the datagrams read.
  int Drain(const std::function<void(pid_t pid)>& alive);
  uint64_t ignored() const { return ignored_; }

 private:
  int fd_ = -1;
  std::string address_;
  uint64_t ignored_ = 0;
};

// True when one sd_notify datagram holds the assignment "WATCHDOG=1" (one of its newline-separated lines).
bool HasWatchdogPing(const std::string& datagram);

}  // namespace limbic::runtime
