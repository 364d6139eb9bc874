// A progress line for long commands (ARCHITECTURE.md "shows progress"): done/total, rate, elapsed and
// ETA; redrawn in place with \r on a terminal, printed as plain periodic lines otherwise (logs, CI).
#pragma once

#include <chrono>
#include <mutex>
#include <ostream>
#include <string>

namespace limbic::experiment {

// Formats a duration as "42s", "3m05s" or "2h07m".
std::string FormatDuration(double seconds);

class ProgressBar {
 public:
  // `tty`: redraw one line in place; otherwise print a line every `plain_interval_s` seconds (and at
  // the end). `label` prefixes the line (e.g. the experiment name).
  ProgressBar(int total, std::ostream& out, bool tty, std::string label = "", double plain_interval_s = 10.0);

  // The line for `done` of total after `elapsed_s` seconds, e.g.
  // "ch10_integrated [########------] 512/1400 36.6% 2.31 runs/s elapsed 3m41s ETA 6m24s".
  std::string Line(int done, double elapsed_s) const;

  // Reports progress at an explicit elapsed time (thread-safe; prints when due).
  void Update(int done, double elapsed_s);
  // Same with the time since construction from a steady clock.
  void Update(int done);
  void Increment();  // done + 1, steady clock
  // Prints the final line (and a newline on a terminal).
  void Finish();

  int done() const { return done_; }

 private:
  void UpdateLocked(int done, double elapsed_s);

  int total_;
  std::ostream& out_;
  bool tty_;
  std::string label_;
  double plain_interval_s_;
  int done_ = 0;
  double last_print_s_ = -1e300;
  double last_elapsed_s_ = 0;
  bool finished_ = false;
  std::chrono::steady_clock::time_point start_;
  std::mutex mutex_;
};

// True when stderr (fd 2) is a terminal.
bool StderrIsTerminal();

}  // namespace limbic::experiment
