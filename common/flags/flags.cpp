#include "common/flags/flags.hpp"

#include <charconv>
#include <cmath>
#include <system_error>

namespace limbic::flags {

double ParseFiniteNumber(const std::string& flag, const std::string& text) {
  double value = 0.0;
  const char* end = text.data() + text.size();
  // from_chars: no locale, no leading whitespace, no leading '+'; the whole text must be used.
  const auto [ptr, ec] = std::from_chars(text.data(), end, value);
  if (text.empty() || ec != std::errc() || ptr != end || !std::isfinite(value)) {
    throw FlagValueError(flag + " needs a finite number, got '" + text + "'");
  }
  return value;
}

namespace {

// `lowest` and `highest` are the type's own limits: a bound equal to one is not worth saying.
int64_t ParseBounded(const std::string& flag, const std::string& text, int64_t min, int64_t max, int64_t lowest,
                     int64_t highest) {
  int64_t value = 0;
  const char* end = text.data() + text.size();
  const auto [ptr, ec] = std::from_chars(text.data(), end, value);
  const bool whole = !text.empty() && ec == std::errc() && ptr == end;
  if (!whole || value < min || value > max) {
    std::string range;
    if (min != lowest && max != highest) {
      range = " in [" + std::to_string(min) + ", " + std::to_string(max) + "]";
    } else if (min != lowest) {
      range = " >= " + std::to_string(min);
    } else if (max != highest) {
      range = " <= " + std::to_string(max);
    }
    throw FlagValueError(flag + " needs an integer" + range + ", got '" + text + "'");
  }
  return value;
}

}  // namespace

int64_t ParseInteger(const std::string& flag, const std::string& text, int64_t min, int64_t max) {
  return ParseBounded(flag, text, min, max, std::numeric_limits<int64_t>::min(), std::numeric_limits<int64_t>::max());
}

int ParseInt(const std::string& flag, const std::string& text, int min, int max) {
  return static_cast<int>(
      ParseBounded(flag, text, min, max, std::numeric_limits<int>::min(), std::numeric_limits<int>::max()));
}

std::string NextValue(const std::vector<std::string>& args, size_t* i) {
  if (*i + 1 >= args.size()) throw UsageError((*i < args.size() ? args[*i] : std::string("flag")) + " needs a value");
  return args[++*i];
}

int RunTool(std::string_view program, const std::function<int()>& body, std::ostream& err) {
  try {
    return body();
  } catch (const UsageError& e) {
    err << program << ": error: " << e.what() << " (see " << program << " --help)\n";
    return 2;
  } catch (const FlagValueError& e) {
    err << program << ": error: " << e.what() << " (see " << program << " --help)\n";
    return 2;
  } catch (const std::exception& e) {
    err << program << ": error: " << e.what() << "\n";
    return 1;
  } catch (...) {
    err << program << ": error: unknown exception\n";
    return 1;
  }
}

}  // namespace limbic::flags
