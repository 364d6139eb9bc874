// SIGINT and SIGTERM, a process's request to stop cleanly, received on a thread of their own.
#pragma once

#include <pthread.h>
#include <signal.h>

#include <asio.hpp>
#include <functional>
#include <thread>

namespace limbic::runtime {

// Construct it before any other thread starts (ZeroMQ's included): it blocks SIGINT and SIGTERM in the calling thread,
// so every thread started afterwards has them blocked too, and only its own thread receives them. A signal otherwise
// lands on whichever thread does not block it, and a ZeroMQ call it interrupts there fails with EINTR — even a
// non-blocking send, which reads its socket's mailbox — so a Ctrl-C at the wrong moment ended a service with
// "Interrupted system call" and status 1 instead of a clean stop. `on_signal(signal)` runs on the signal thread.
// A child process inherits the mask: one started from such a process must unblock them (none is today).
class StopSignals {
 public:
  explicit StopSignals(std::function<void(int)> on_signal) : signals_(io_, SIGINT, SIGTERM) {
    sigemptyset(&stop_set_);
    sigaddset(&stop_set_, SIGINT);
    sigaddset(&stop_set_, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &stop_set_, nullptr);
    signals_.async_wait([on_signal = std::move(on_signal)](const std::error_code& error, int signal) {
      if (!error) on_signal(signal);
    });
    // A signal sent before this thread unblocks them stays pending and is delivered here.
    thread_ = std::thread([this] {
      pthread_sigmask(SIG_UNBLOCK, &stop_set_, nullptr);
      io_.run();
    });
  }
  // The calling thread keeps them blocked: a second signal while the process winds down stays pending, not fatal.
  ~StopSignals() {
    io_.stop();
    thread_.join();
  }
  StopSignals(const StopSignals&) = delete;
  StopSignals& operator=(const StopSignals&) = delete;

 private:
  asio::io_context io_;
  asio::signal_set signals_;
  sigset_t stop_set_{};
  std::thread thread_;
};

}  // namespace limbic::runtime
