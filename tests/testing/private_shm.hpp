// For tests that start iceoryx's RouDi: iceoryx 2.0 has one RouDi per host, at fixed names under /dev/shm and
// /tmp, so two tests (or a test and a RouDi of the machine) would meet there.
#pragma once

#include <string>

namespace limbic::testing {

// Gives this process (and what it starts later) its own user and mount namespace with fresh tmpfs on /dev/shm
// and /tmp. Call first in main(), before any thread. Returns "" on success, otherwise why not (the kernel or a
// container refuses unprivileged namespaces); then the test must take turns (ctest RESOURCE_LOCK iceoryx_roudi)
// and skip if a RouDi it did not start runs.
std::string UsePrivateShmAndTmp();

// iox-roudi's path on PATH, or "" (not installed: tools/setup-debian.sh iceoryx).
std::string RouDiProgram();

}  // namespace limbic::testing
