// LCM for transport_peers: raw bytes with lcm_publish (no generated types), UDP multicast with ttl=0 so that
// nothing leaves the machine; the harness runs it only when the multicast route goes through lo (LcmRouteCheck).
// LCM has no acknowledgements: a blast reports what it lost.
#include <lcm/lcm.h>

#include <algorithm>
#include <cstring>
#include <deque>
#include <stdexcept>
#include <string>
#include <vector>

#include "bench/peers/link.hpp"

namespace limbic::peers {
namespace {

using Clock = std::chrono::steady_clock;

class LcmLink : public Link {
 public:
  LcmLink(Side side, const Rendezvous& r)
      : out_(r.tag + (side == Side::kA ? "_ping" : "_pong")), lcm_(lcm_create(LcmUrl(r).c_str())) {
    if (lcm_ == nullptr) throw std::runtime_error("LCM: lcm_create(" + LcmUrl(r) + ") failed");
    const std::string in = r.tag + (side == Side::kA ? "_pong" : "_ping");
    lcm_subscribe(lcm_, in.c_str(), &LcmLink::OnMessage, this);
  }
  ~LcmLink() override { lcm_destroy(lcm_); }

  size_t Send(uint64_t seq, size_t bytes) override {
    buffer_.resize(std::max<size_t>(bytes, sizeof seq));
    std::memcpy(buffer_.data(), &seq, sizeof seq);
    if (lcm_publish(lcm_, out_.c_str(), buffer_.data(), static_cast<unsigned>(buffer_.size())) != 0) {
      throw std::runtime_error("LCM: lcm_publish failed");
    }
    return buffer_.size();
  }

  std::optional<Received> Receive(std::chrono::milliseconds timeout) override {
    const auto deadline = Clock::now() + timeout;
    while (inbox_.empty()) {
      const auto left = std::chrono::ceil<std::chrono::milliseconds>(deadline - Clock::now()).count();
      if (left <= 0) return std::nullopt;
      if (lcm_handle_timeout(lcm_, static_cast<int>(left)) < 0) throw std::runtime_error("LCM: lcm_handle failed");
    }
    const Received r = inbox_.front();
    inbox_.pop_front();
    return r;
  }

 private:
  static void OnMessage(const lcm_recv_buf_t* buffer, const char*, void* self) {
    Received r;
    r.bytes = buffer->data_size;
    if (buffer->data_size >= sizeof r.seq) std::memcpy(&r.seq, buffer->data, sizeof r.seq);
    static_cast<LcmLink*>(self)->inbox_.push_back(r);
  }

  std::string out_;
  lcm_t* lcm_;
  std::vector<uint8_t> buffer_;
  std::deque<Received> inbox_;
};

}  // namespace

std::string LcmUrl(const Rendezvous& r) { return "udpm://239.255.76.67:" + std::to_string(7667 + r.domain) + "?ttl=0"; }

std::unique_ptr<Link> OpenLcmLink(Side side, const Rendezvous& r) { return std::make_unique<LcmLink>(side, r); }

}  // namespace limbic::peers
