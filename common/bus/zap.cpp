#include "common/bus/zap.hpp"

#include <cerrno>
#include <chrono>

#include "common/log/log.hpp"

namespace limbic::bus {

namespace {
std::mutex registry_mutex;
std::map<void*, std::weak_ptr<ZapService>>& Registry() {
  static auto* registry = new std::map<void*, std::weak_ptr<ZapService>>();  // never destroyed: no exit order
  return *registry;
}
}  // namespace

std::string Z85Key(const void* key, size_t size) {
  if (size != 32) return "";
  char text[41] = {};
  if (zmq_z85_encode(text, static_cast<const uint8_t*>(key), 32) == nullptr) return "";
  return text;
}

std::string UniqueZapDomain(const std::string& prefix) {
  static std::atomic<uint64_t> next{0};
  return prefix + "/" + std::to_string(next.fetch_add(1));
}

std::shared_ptr<ZapService> ZapService::For(zmq::context_t& context) {
  std::lock_guard<std::mutex> lock(registry_mutex);
  auto& registry = Registry();
  if (auto it = registry.find(context.handle()); it != registry.end()) {
    if (auto existing = it->second.lock()) return existing;
  }
  // Binding inproc://zeromq.zap.01 fails (EADDRINUSE) if something outside limbic handles ZAP on this context:
  // the constructor throws, and the CURVE server that asked cannot be made (rather than admit everyone).
  std::shared_ptr<ZapService> service(new ZapService(context));
  registry[context.handle()] = service;
  return service;
}

ZapService::ZapService(zmq::context_t& context) : socket_(context, zmq::socket_type::router) {
  socket_.set(zmq::sockopt::linger, 0);
  // A handler that has just gone (a broker restarted in the same process) frees the endpoint on ZeroMQ's reaper
  // thread, a moment after its socket closed: retried for up to a second before giving up.
  for (int attempt = 0;; ++attempt) {
    try {
      socket_.bind("inproc://zeromq.zap.01");
      break;
    } catch (const zmq::error_t& e) {
      if (e.num() != EADDRINUSE || attempt >= 100) throw;
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
  }
  thread_ = std::thread([this] { Run(); });
}

ZapService::~ZapService() {
  stop_ = true;
  if (thread_.joinable()) thread_.join();
  std::lock_guard<std::mutex> lock(registry_mutex);
  // Forget this context's entry unless a new service took it already (expired weak pointers only).
  for (auto it = Registry().begin(); it != Registry().end();) {
    it = it->second.expired() ? Registry().erase(it) : std::next(it);
  }
}

void ZapService::Admit(const std::string& domain, const std::vector<std::string>& public_keys, bool log_rejections) {
  std::lock_guard<std::mutex> lock(mutex_);
  Domain& d = domains_[domain];
  d.keys = std::set<std::string>(public_keys.begin(), public_keys.end());
  d.log_rejections = log_rejections;
  d.awaiting = false;
}

void ZapService::AwaitKeys(const std::string& domain, std::chrono::milliseconds limit) {
  std::lock_guard<std::mutex> lock(mutex_);
  Domain& d = domains_[domain];
  d.keys.clear();
  d.awaiting = true;
  d.await_limit = limit;
}

void ZapService::Remove(const std::string& domain) {
  std::lock_guard<std::mutex> lock(mutex_);
  domains_.erase(domain);
}

uint64_t ZapService::rejected(const std::string& domain) const {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = domains_.find(domain);
  return it == domains_.end() ? 0 : it->second.rejected;
}

void ZapService::Run() {
  try {
    while (!stop_) {
      zmq::pollitem_t item{socket_.handle(), 0, ZMQ_POLLIN, 0};
      try {
        // Deferred handshakes are looked at again every 10 ms (their keys arrive from another thread).
        zmq::poll(&item, 1, std::chrono::milliseconds(deferred_.empty() ? 50 : 10));
      } catch (const zmq::error_t& e) {
        if (e.num() != EINTR) throw;
        continue;
      }
      if (item.revents & ZMQ_POLLIN) Receive();
      for (auto it = deferred_.begin(); it != deferred_.end();) it = TryAnswer(*it) ? deferred_.erase(it) : it + 1;
    }
  } catch (const zmq::error_t& e) {
    // ETERM: the context is being terminated; its handshakes no longer need an answer.
    if (e.num() != ETERM) LIMBIC_LOG(kError) << "ZAP handler stopped: " << e.what();
  }
  socket_.close();
}

void ZapService::Receive() {
  while (true) {
    Request request{{}, std::chrono::steady_clock::now()};
    while (true) {
      zmq::message_t frame;
      if (!socket_.recv(frame, zmq::recv_flags::dontwait)) break;
      const bool more = frame.more();
      request.frames.push_back(std::move(frame));
      if (!more) break;
    }
    if (request.frames.empty()) return;
    if (!TryAnswer(request)) deferred_.push_back(std::move(request));
  }
}

bool ZapService::TryAnswer(Request& request) {
  // ZAP 1.0 (RFC 27) through a ROUTER: routing id, empty delimiter, then version, request id, domain, address,
  // identity, mechanism, credentials. A malformed request (nothing in ZeroMQ sends one) is refused.
  auto& frames = request.frames;
  while (frames.size() < 4) frames.emplace_back();
  std::string key;
  bool allowed = false;
  if (frames.size() >= 9 && frames[7].to_string_view() == "CURVE") {
    key = Z85Key(frames[8].data(), frames[8].size());
    const std::string domain = frames[4].to_string();
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = domains_.find(domain);
    if (it != domains_.end() && it->second.awaiting &&
        std::chrono::steady_clock::now() - request.received < it->second.await_limit) {
      return false;
    }
    allowed = it != domains_.end() && !key.empty() && it->second.keys.count(key) != 0;
    if (!allowed && it != domains_.end()) {
      ++it->second.rejected;
      if (it->second.log_rejections) LIMBIC_LOG(kWarning) << "rejected a CURVE client with unknown public key " << key;
    }
  }
  socket_.send(frames[0], zmq::send_flags::sndmore);
  socket_.send(zmq::str_buffer(""), zmq::send_flags::sndmore);
  socket_.send(zmq::str_buffer("1.0"), zmq::send_flags::sndmore);
  socket_.send(frames[3], zmq::send_flags::sndmore);
  socket_.send(zmq::buffer(std::string(allowed ? "200" : "400")), zmq::send_flags::sndmore);
  socket_.send(zmq::buffer(std::string(allowed ? "OK" : "key not admitted")), zmq::send_flags::sndmore);
  // The user id: the client's public key, the "User-Id" of every message from this connection.
  socket_.send(zmq::buffer(allowed ? key : std::string()), zmq::send_flags::sndmore);
  socket_.send(zmq::str_buffer(""), zmq::send_flags::none);
  return true;
}

}  // namespace limbic::bus
