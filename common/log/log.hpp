// Leveled logging to stderr: `LIMBIC_LOG(kInfo) << "text";`. One line per record, prefixed with the
// level, wall-clock time and the process's log tag (its service instance name).
#pragma once

#include <chrono>
#include <sstream>
#include <string>
#include <string_view>

namespace limbic::log {

enum class Level { kDebug = 0, kInfo = 1, kWarning = 2, kError = 3, kOff = 4 };

void SetLevel(Level level);
Level GetLevel();
// Parses "debug|info|warning|error|off"; throws std::invalid_argument otherwise.
Level ParseLevel(std::string_view text);
// Tag printed on every line of this thread (a service's instance name). Thread-local so in-process
// hosting of several services keeps their lines apart.
void SetThreadTag(std::string tag);

class Record {
 public:
  Record(Level level, const char* file, int line);
  ~Record();
  template <typename T>
  Record& operator<<(const T& value) {
    stream_ << value;
    return *this;
  }

 private:
  Level level_;
  std::ostringstream stream_;
};

// Allows one message per `interval` per key and counts what it suppressed (log once per burst).
class RateLimiter {
 public:
  explicit RateLimiter(std::chrono::milliseconds interval = std::chrono::milliseconds(1000)) : interval_(interval) {}
  // True if a message may be logged now; `suppressed` receives how many were held back since.
  bool Allow(uint64_t* suppressed);

 private:
  std::chrono::milliseconds interval_;
  std::chrono::steady_clock::time_point last_{};
  uint64_t suppressed_ = 0;
  bool first_ = true;
};

// A statement-safe conditional: `if (x) LIMBIC_LOG(kInfo) << ...; else ...` binds the `else` to the caller's
// `if` (an if/else macro would steal it, -Wdangling-else), and the message is not built below the level.
struct Voidify {
  void operator&(const Record&) {}
};

}  // namespace limbic::log

#define LIMBIC_LOG(level)                                   \
  (::limbic::log::Level::level < ::limbic::log::GetLevel()) \
      ? (void)0                                             \
      : ::limbic::log::Voidify() & ::limbic::log::Record(::limbic::log::Level::level, __FILE__, __LINE__)
