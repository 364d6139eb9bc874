// One ZAP handler per ZeroMQ context, shared by every CURVE server limbic makes in it (docs/protocol.md §10, §13).
//
// ZeroMQ asks a CURVE server's context, at the fixed endpoint inproc://zeromq.zap.01, whether to admit each client's
// public key (ZAP, RFC 27). Only one socket per context can bind that endpoint, yet a process may hold a broker (its
// two sockets) and nodes whose direct data sockets are CURVE servers, all in one context. So the handler is one
// object per context, found through For(), answering on its own thread (a handshake must not wait for whichever
// owner next polls) from a table of domains: each server sets ZMQ_ZAP_DOMAIN to its own domain and registers the
// public keys it admits there. A request for a domain nobody registered is refused.
//
// An admitted client's reply carries its public key (Z85) as the ZAP user id, so every message from that
// connection has it as the "User-Id" property: the broker reads the key a direct publisher authenticated with from
// its announcements (never a key the publisher claims).
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>
#include <zmq.hpp>

namespace limbic::bus {

class ZapService {
 public:
  // The handler of `context`, started on first use; it stops when the last holder lets go (before the context is
  // terminated: Broker and Node hold it, and are destroyed before their context).
  static std::shared_ptr<ZapService> For(zmq::context_t& context);
  ~ZapService();
  ZapService(const ZapService&) = delete;
  ZapService& operator=(const ZapService&) = delete;

  // Admits exactly `public_keys` (Z85, 40 characters) in `domain` from now on (replacing what it admitted).
  // `log_rejections`: say each refused key (the broker does; a node's data socket counts only).
  void Admit(const std::string& domain, const std::vector<std::string>& public_keys, bool log_rejections = false);
  // A domain whose keys are still to come (a direct data socket before the broker's list arrives): a handshake in it
  // waits for Admit, up to `limit`, then is refused. Refusing it at once would lose that subscriber for good — ZeroMQ
  // does not reconnect after a refused handshake — and a subscriber told of the publisher by the broker can well
  // connect before the publisher has read the list the broker sent it.
  void AwaitKeys(const std::string& domain, std::chrono::milliseconds limit = std::chrono::seconds(10));
  void Remove(const std::string& domain);
  // Clients refused in `domain` so far.
  uint64_t rejected(const std::string& domain) const;

 private:
  explicit ZapService(zmq::context_t& context);
  void Run();
  // A request: [routing id][empty][version][request id][domain][address][identity][mechanism][credentials...].
  struct Request {
    std::vector<zmq::message_t> frames;
    std::chrono::steady_clock::time_point received;
  };
  void Receive();
  // Answers `request` unless its domain still awaits its keys (then false: keep it).
  bool TryAnswer(Request& request);

  struct Domain {
    std::set<std::string> keys;
    bool log_rejections = false;
    uint64_t rejected = 0;
    bool awaiting = false;  // AwaitKeys until the first Admit
    std::chrono::milliseconds await_limit{0};
  };
  mutable std::mutex mutex_;
  std::map<std::string, Domain> domains_;
  zmq::socket_t socket_;           // ROUTER, bound here, used by the thread only (answers may wait: AwaitKeys)
  std::vector<Request> deferred_;  // the thread's only
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

// Z85 text of a 32-byte key, or empty if `key` is not 32 bytes.
std::string Z85Key(const void* key, size_t size);
// A ZAP domain no other server of this process has: `prefix` + "/" + a process-wide counter.
std::string UniqueZapDomain(const std::string& prefix);

}  // namespace limbic::bus
