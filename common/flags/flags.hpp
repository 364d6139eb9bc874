#pragma once

#include <cstdint>
#include <functional>
#include <iostream>
#include <limits>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

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

// A command line the program does not take: an unknown command or flag, a flag without its value, a missing
// argument. Reported like FlagValueError, as a usage error (exit 2).
class UsageError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

// The value after flag args[*i], advancing *i to it; UsageError "<flag> needs a value" at the end of `args`.
std::string NextValue(const std::vector<std::string>& args, size_t* i);

// A command-line tool's main around `body`: its return value is the exit status; a UsageError or FlagValueError
// prints "<program>: error: <what> (see <program> --help)" and gives 2; any other exception prints
// "<program>: error: <what>" and gives 1. Never lets an exception out.
int RunTool(std::string_view program, const std::function<int()>& body, std::ostream& err = std::cerr);

}  // namespace limbic::flags
