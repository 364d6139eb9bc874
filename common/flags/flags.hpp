#pragma once

#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>

namespace limbic::flags {

// A command-line flag's value that is not what the flag takes. Tools report it as a usage error (exit 2).
class FlagValueError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

// The whole of `text` as a finite number ("0.5", "-3", "1e-3"). NaN, infinities, an empty string, leading
// spaces or trailing characters are errors naming the flag: a NaN that passes here passes every range check
// written as `x < lo || x > hi` after it.
double ParseFiniteNumber(const std::string& flag, const std::string& text);

// The whole of `text` as an integer in [min, max] (decimal; no fraction, no exponent: "1e3" is refused
// rather than converted through a double).
int64_t ParseInteger(const std::string& flag, const std::string& text,
                     int64_t min = std::numeric_limits<int64_t>::min(),
                     int64_t max = std::numeric_limits<int64_t>::max());

// The same for an int (the bounds default to int's range).
int ParseInt(const std::string& flag, const std::string& text, int min = std::numeric_limits<int>::min(),
             int max = std::numeric_limits<int>::max());

}  // namespace limbic::flags
