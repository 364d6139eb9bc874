#include "common/runtime/liveness.hpp"

#include <errno.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <atomic>
#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <utility>

namespace limbic::runtime {
namespace {

// A sockaddr_un for "/path" or "@abstract"; the length to pass with it.
socklen_t MakeAddress(const std::string& address, sockaddr_un* out) {
  std::memset(out, 0, sizeof(*out));
  out->sun_family = AF_UNIX;
  if (address.size() < 2 || (address[0] != '/' && address[0] != '@'))
    throw std::runtime_error("liveness: NOTIFY_SOCKET '" + address + "' is neither a path nor an @abstract name");
  if (address.size() >= sizeof(out->sun_path))
    throw std::runtime_error("liveness: NOTIFY_SOCKET '" + address + "' is too long for a Unix socket address");
  std::memcpy(out->sun_path, address.data(), address.size());
  if (address[0] == '@') out->sun_path[0] = '\0';  // abstract namespace: no file, gone with its socket
  return static_cast<socklen_t>(offsetof(sockaddr_un, sun_path) + address.size() + (address[0] == '/' ? 1 : 0));
}

}  // namespace

bool HasWatchdogPing(const std::string& datagram) {
  size_t start = 0;
  while (start <= datagram.size()) {
    size_t end = datagram.find('\n', start);
    if (end == std::string::npos) end = datagram.size();
    if (datagram.compare(start, end - start, "WATCHDOG=1") == 0) return true;
    start = end + 1;
  }
  return false;
}

std::unique_ptr<LivenessNotifier> LivenessNotifier::FromEnvironment() {
  const char* address = std::getenv("NOTIFY_SOCKET");
  if (address == nullptr || *address == '\0') return nullptr;
  return std::make_unique<LivenessNotifier>(address);
}

LivenessNotifier::LivenessNotifier(const std::string& address) : address_(address) {
  sockaddr_un addr{};
  MakeAddress(address, &addr);  // refuses a malformed address now rather than at every send
  fd_ = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  if (fd_ < 0) throw std::runtime_error(std::string("liveness: socket: ") + std::strerror(errno));
}

LivenessNotifier::~LivenessNotifier() {
  if (fd_ >= 0) close(fd_);
}

bool LivenessNotifier::Notify() {
  static constexpr char kPing[] = "WATCHDOG=1";
  // Addressed on every send (not connected): a listener that was not there yet, or was restarted, is found by
  // the next send; the sends before fail and are counted.
  sockaddr_un addr{};
  const socklen_t len = MakeAddress(address_, &addr);
  const ssize_t n = sendto(fd_, kPing, sizeof(kPing) - 1, MSG_NOSIGNAL, reinterpret_cast<const sockaddr*>(&addr), len);
  if (n == static_cast<ssize_t>(sizeof(kPing) - 1)) {
    ++sent_;
    return true;
  }
  ++failed_;
  return false;
}

LivenessListener::LivenessListener() {
  static std::atomic<int> next{0};
  address_ = "@limbic-liveness-" + std::to_string(getpid()) + "-" + std::to_string(next++);
  sockaddr_un addr{};
  const socklen_t len = MakeAddress(address_, &addr);
  fd_ = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  if (fd_ < 0) throw std::runtime_error(std::string("liveness: socket: ") + std::strerror(errno));
  const int on = 1;
  if (setsockopt(fd_, SOL_SOCKET, SO_PASSCRED, &on, sizeof(on)) != 0 ||
      bind(fd_, reinterpret_cast<const sockaddr*>(&addr), len) != 0) {
    const std::string why = std::strerror(errno);
    close(fd_);
    fd_ = -1;
    throw std::runtime_error("liveness: cannot bind " + address_ + ": " + why);
  }
}

LivenessListener::~LivenessListener() {
  if (fd_ >= 0) close(fd_);
}

int LivenessListener::Drain(const std::function<void(pid_t pid)>& alive) {
  int read = 0;
  while (true) {
    char data[256];
    alignas(cmsghdr) char control[CMSG_SPACE(sizeof(ucred))];
    iovec iov{data, sizeof(data)};
    msghdr m{};
    m.msg_iov = &iov;
    m.msg_iovlen = 1;
    m.msg_control = control;
    m.msg_controllen = sizeof(control);
    const ssize_t n = recvmsg(fd_, &m, MSG_DONTWAIT | MSG_CMSG_CLOEXEC);
    if (n < 0) break;  // EAGAIN: nothing more (any other error: try again next time)
    ++read;
    pid_t pid = 0;
    for (cmsghdr* c = CMSG_FIRSTHDR(&m); c != nullptr; c = CMSG_NXTHDR(&m, c)) {
      if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_CREDENTIALS) {
        ucred cred{};
        std::memcpy(&cred, CMSG_DATA(c), sizeof(cred));
        pid = cred.pid;
      }
    }
    // A truncated datagram (over 256 bytes) is not one a notifier of ours sent; its first lines still count.
    if (pid > 0 && HasWatchdogPing(std::string(data, static_cast<size_t>(n)))) {
      alive(pid);
    } else {
      ++ignored_;
    }
  }
  return read;
}

}  // namespace limbic::runtime
