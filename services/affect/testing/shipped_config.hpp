// The affect engine's shipped configuration directory, as the tests read it (LIMBIC_AFFECT_SOURCE_DIR: the tests'
// compile definition). Once, here: several tests share a translation unit in a unity build (CI's sanitizer trees).
#pragma once

#include <string>

namespace limbic::affect {

inline const std::string kShippedConfigDir = LIMBIC_AFFECT_SOURCE_DIR "/config";

}  // namespace limbic::affect
