#include "tools/experiment/progress.hpp"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace limbic::experiment {

std::string FormatDuration(double seconds) {
  if (!std::isfinite(seconds) || seconds < 0) return "?";
  const long s = std::lround(seconds);
  char b[32];
  if (s < 60) {
    std::snprintf(b, sizeof b, "%lds", s);
  } else if (s < 3600) {
    std::snprintf(b, sizeof b, "%ldm%02lds", s / 60, s % 60);
  } else {
    std::snprintf(b, sizeof b, "%ldh%02ldm", s / 3600, (s % 3600) / 60);
  }
  return b;
}

ProgressBar::ProgressBar(int total, std::ostream& out, bool tty, std::string label, double plain_interval_s)
    : total_(std::max(0, total)),
      out_(out),
      tty_(tty),
      label_(std::move(label)),
      plain_interval_s_(plain_interval_s),
      start_(std::chrono::steady_clock::now()) {}

std::string ProgressBar::Line(int done, double elapsed_s) const {
  constexpr int kWidth = 24;
  const double fraction = total_ > 0 ? std::clamp(static_cast<double>(done) / total_, 0.0, 1.0) : 1.0;
  const int filled = static_cast<int>(fraction * kWidth);
  std::string bar(static_cast<size_t>(filled), '#');
  bar += std::string(static_cast<size_t>(kWidth - filled), '-');
  const double rate = elapsed_s > 0 ? done / elapsed_s : 0.0;
  char b[200];
  std::snprintf(b, sizeof b, "[%s] %d/%d %.1f%% %.2f runs/s elapsed %s ETA %s", bar.c_str(), done, total_,
                100.0 * fraction, rate, FormatDuration(elapsed_s).c_str(),
                done >= total_ ? "0s"
                : rate > 0     ? FormatDuration((total_ - done) / rate).c_str()
                               : "?");
  return label_.empty() ? std::string(b) : label_ + " " + b;
}

void ProgressBar::Update(int done, double elapsed_s) {
  std::lock_guard<std::mutex> lock(mutex_);
  UpdateLocked(done, elapsed_s);
}

void ProgressBar::UpdateLocked(int done, double elapsed_s) {
  done_ = done;
  last_elapsed_s_ = elapsed_s;
  if (tty_) {
    out_ << '\r' << Line(done, elapsed_s) << "\x1b[K" << std::flush;
  } else if (elapsed_s - last_print_s_ >= plain_interval_s_ || done >= total_) {
    out_ << Line(done, elapsed_s) << '\n' << std::flush;
    last_print_s_ = elapsed_s;
  }
}

void ProgressBar::Update(int done) {
  Update(done, std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count());
}

void ProgressBar::Increment() {
  std::lock_guard<std::mutex> lock(mutex_);
  UpdateLocked(done_ + 1, std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count());
}

void ProgressBar::Finish() {
  std::lock_guard<std::mutex> lock(mutex_);
  if (finished_) return;
  finished_ = true;
  const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  if (tty_) {
    out_ << '\r' << Line(done_, elapsed) << "\x1b[K\n" << std::flush;
  } else if (last_print_s_ < last_elapsed_s_ || done_ < total_) {
    out_ << Line(done_, elapsed) << '\n' << std::flush;
  }
}

bool StderrIsTerminal() { return isatty(2) != 0; }

}  // namespace limbic::experiment
