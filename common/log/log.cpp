#include "common/log/log.hpp"

#include <atomic>
#include <cstdio>
#include <ctime>
#include <mutex>
#include <stdexcept>

namespace limbic::log {
namespace {
std::atomic<int> g_level{static_cast<int>(Level::kInfo)};
thread_local std::string t_tag;
std::mutex g_write_mutex;
}  // namespace

void SetLevel(Level level) { g_level = static_cast<int>(level); }
Level GetLevel() { return static_cast<Level>(g_level.load()); }
void SetThreadTag(std::string tag) { t_tag = std::move(tag); }

Level ParseLevel(std::string_view text) {
  if (text == "debug") return Level::kDebug;
  if (text == "info") return Level::kInfo;
  if (text == "warning" || text == "warn") return Level::kWarning;
  if (text == "error") return Level::kError;
  if (text == "off") return Level::kOff;
  throw std::invalid_argument("unknown log level '" + std::string(text) +
                              "' (expected debug, info, warning, error or off)");
}

Record::Record(Level level, const char*, int) : level_(level) {}

Record::~Record() {
  static const char kLetters[] = {'D', 'I', 'W', 'E'};
  const auto now = std::chrono::system_clock::now();
  const std::time_t secs = std::chrono::system_clock::to_time_t(now);
  const int millis =
      static_cast<int>(std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch()).count() % 1000);
  std::tm tm{};
  gmtime_r(&secs, &tm);
  char stamp[32];
  std::snprintf(stamp, sizeof(stamp), "%02d:%02d:%02d.%03d", tm.tm_hour, tm.tm_min, tm.tm_sec, millis);
  const std::string text = stream_.str();
  std::lock_guard lock(g_write_mutex);
  std::fprintf(stderr, "%c %s %s] %s\n", kLetters[static_cast<int>(level_)], stamp,
               t_tag.empty() ? "limbic" : t_tag.c_str(), text.c_str());
}

bool RateLimiter::Allow(uint64_t* suppressed) {
  const auto now = std::chrono::steady_clock::now();
  if (first_ || now - last_ >= interval_) {
    first_ = false;
    last_ = now;
    if (suppressed) *suppressed = suppressed_;
    suppressed_ = 0;
    return true;
  }
  ++suppressed_;
  return false;
}

}  // namespace limbic::log
