// The shipped emotion table the crowd's tests read (LIMBIC_SOURCE_ROOT: the tests' compile definition). Once, here:
// several tests share a translation unit in a unity build (the CI's sanitizer trees).
#pragma once

#include <string>

namespace limbic::crowd {

inline const std::string kShippedEmotionTable = std::string(LIMBIC_SOURCE_ROOT) + "/configs/crowd/emotions.yaml";

}  // namespace limbic::crowd
