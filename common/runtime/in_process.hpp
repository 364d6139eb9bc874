// Hosting several services in one process over inproc:// with a broker: the fast path for
// experiments that need thousands of runs. Same service code, same results as separate processes
// (the determinism tests compare them).
#pragma once

#include <atomic>
#include <chrono>
#include <string>
#include <vector>

#include "common/bus/broker.hpp"
#include "common/bus/local_bus.hpp"
#include "common/runtime/runtime.hpp"

namespace limbic::runtime {

struct HostedService {
  ServiceDefinition definition;
  HostOptions options;  // bus and mode are overwritten by RunInProcess
};

// How the hosts of one thread talk (lockstep, single_thread only; otherwise always ZeroMQ).
enum class InProcessTransport {
  kDirect,  // bus::LocalBus: the broker's checks and counts without sockets (about twice as fast)
  kZeroMq,  // inproc:// sockets and a bus::Broker, exactly as separate processes talk
};

struct InProcessOptions {
  Mode mode = Mode::kLockstep;
  InProcessTransport transport = InProcessTransport::kDirect;
  // Lockstep: the broker and every host take turns on the calling thread (no thread switches, no
  // wake-ups between threads: a run uses one core, which is what parallel runs want). The messages
  // go through the broker's checks either way (see `transport`). false: a thread per host and
  // one for the broker, as separate processes would run (realtime mode always does this).
  bool single_thread = true;
  // The coordinator's re-probe period while participants join (the first probe can precede the
  // subscriptions taking effect); short in one process, where a probe costs next to nothing.
  std::chrono::milliseconds probe_period{1};
  // kDirect: how often the LocalBus publishes bus/stats and health/bus (wall clock, as the broker's timer).
  std::chrono::milliseconds bus_stats_period{1000};
};

// What one in-process run took (lockstep).
struct InProcessStats {
  int64_t ticks = 0;       // ticks the coordinator started
  double startup_s = 0.0;  // from the call until the first tick started (construction, joins)
  double total_s = 0.0;    // the whole call
  // Single-thread lockstep only (0 otherwise): from the first tick until every host had returned, before the hosts'
  // teardown — the run's wall seconds, and the calling thread's CPU seconds over the same span (a benchmark's
  // per-tick cost without start-up, whatever share of the core a busy machine leaves the run).
  double run_s = 0.0;
  double run_cpu_s = 0.0;
  // Why hosts failed (Host::last_error of each host with a failure status), e.g. "step r1/controller
  // failed at tick 12: ...". In lockstep a step that throws ends the run (issue 15).
  std::vector<std::string> errors;
};

// Starts a broker on `address` (inproc://NAME) and the services, in lockstep by default, and
// returns when every host has returned (the coordinator ended the run) or `stop` was set. Returns
// the worst exit status of the hosts. Construction errors (bad config) are rethrown.
int RunInProcess(const std::string& address, std::vector<HostedService> services, const std::atomic<bool>& stop,
                 const InProcessOptions& options, InProcessStats* stats = nullptr);
int RunInProcess(const std::string& address, std::vector<HostedService> services, const std::atomic<bool>& stop,
                 Mode mode = Mode::kLockstep);

}  // namespace limbic::runtime
