// Hosting several services as threads of one process over inproc:// with a broker thread: the fast
// path for experiments that need thousands of runs. Same service code, same results as separate
// processes (the determinism tests compare them).
#pragma once

#include <atomic>
#include <vector>

#include "common/bus/broker.hpp"
#include "common/runtime/runtime.hpp"

namespace limbic::runtime {

struct HostedService {
  ServiceDefinition definition;
  HostOptions options;  // bus and mode are overwritten by RunInProcess
};

// Starts a broker on `address` (inproc://NAME) and one thread per service, in lockstep, and returns
// when every host has returned (the coordinator ended the run) or `stop` was set. Returns the worst
// exit status of the hosts. Construction errors (bad config) are rethrown.
int RunInProcess(const std::string& address, std::vector<HostedService> services, const std::atomic<bool>& stop,
                 Mode mode = Mode::kLockstep);

}  // namespace limbic::runtime
