// An emulated motor/sensor board on a pseudo-terminal, for SerialBackend tests (header-only, tests only).
#pragma once

#include <fcntl.h>
#include <poll.h>
#include <pty.h>
#include <termios.h>
#include <unistd.h>

#include <stdexcept>
#include <string>
#include <vector>

#include "services/hwio/line_protocol.hpp"

namespace limbic::hwio::testing {

// Owns both ends of a pty. The backend opens device(); the test talks through the master end.
class FakeBoard {
 public:
  FakeBoard() {
    termios raw{};
    cfmakeraw(&raw);
    char name[256] = {};
    if (openpty(&master_, &slave_, name, &raw, nullptr) != 0) throw std::runtime_error("openpty failed");
    device_ = name;
  }
  ~FakeBoard() {
    if (master_ >= 0) ::close(master_);
    if (slave_ >= 0) ::close(slave_);  // held open so the master never sees a hang-up mid-test
  }
  FakeBoard(const FakeBoard&) = delete;
  FakeBoard& operator=(const FakeBoard&) = delete;

  const std::string& device() const { return device_; }

  // Writes raw bytes, in chunks of `chunk` bytes (to exercise reassembly).
  void Send(const std::string& bytes, size_t chunk = 0) {
    if (chunk == 0) chunk = bytes.size();
    for (size_t i = 0; i < bytes.size(); i += chunk) {
      const std::string part = bytes.substr(i, chunk);
      size_t done = 0;
      while (done < part.size()) {
        const ssize_t n = ::write(master_, part.data() + done, part.size() - done);
        if (n <= 0) throw std::runtime_error("write to pty master failed");
        done += static_cast<size_t>(n);
      }
    }
  }
  void Send(const ProtocolMessage& m) { Send(FormatLine(m)); }

  // Reads host lines until `count` messages were decoded or timeout_ms passed without new bytes.
  std::vector<ProtocolMessage> ReadHost(size_t count, int timeout_ms) {
    std::vector<ProtocolMessage> out;
    while (out.size() < count) {
      pollfd pfd{master_, POLLIN, 0};
      if (::poll(&pfd, 1, timeout_ms) <= 0) break;
      char buf[512];
      const ssize_t n = ::read(master_, buf, sizeof buf);
      if (n <= 0) break;
      for (auto& m : parser_.Feed(std::string_view(buf, static_cast<size_t>(n)))) out.push_back(m);
    }
    return out;
  }
  const LineParserCounters& host_counters() const { return parser_.counters(); }

 private:
  int master_ = -1;
  int slave_ = -1;
  std::string device_;
  LineProtocolParser parser_;
};

}  // namespace limbic::hwio::testing
