// The shipped experiment definitions' directory, as the tests read it (LIMBIC_SOURCE_ROOT: the tests' compile
// definition). Once, here: several tests share a translation unit in a unity build (CI's sanitizer trees).
#pragma once

#include <string>

namespace limbic::experiment {

inline std::string ShippedExperimentsDir() { return std::string(LIMBIC_SOURCE_ROOT) + "/experiments"; }

}  // namespace limbic::experiment
