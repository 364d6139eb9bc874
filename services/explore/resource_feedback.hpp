// Resource-utilisation feedback (multi-robot spec §1): the task manager tunes each executor's planning, sensing and
// actuation rates as the task progresses — e.g. it lowers a robot's planning rate when its CPU share is saturated.
//
// Model (the spec gives none; README.md): each activity's CPU share is proportional to its rate (cost per call =
// measured share / rate at which it was measured). When the executor's total share exceeds `high`·budget the rates
// are lowered to bring it to the target (`target`·budget): planning first, then sensing, then actuation (safety
// last), each no lower than its minimum. When the total is below `low`·budget the rates climb back towards their
// nominal values in the reverse order (actuation first), again no further than the target share.
//
// Inputs: the measured shares and the rates they were measured at. Outputs: the new rates.
#pragma once

#include <array>
#include <string>

namespace limbic::explore {

enum Activity { kPlanning = 0, kSensing = 1, kActuation = 2 };
inline constexpr int kActivities = 3;

struct RateBounds {
  double nominal_hz = 10.0;
  double min_hz = 1.0;
};

struct FeedbackOptions {
  double budget = 1.0;   // CPU share the executor may use (1 = one core)
  double high = 0.9;     // lower rates above high·budget
  double low = 0.6;      // raise rates below low·budget
  double target = 0.75;  // aim for target·budget (low ≤ target ≤ high)
  std::array<RateBounds, kActivities> bounds{};
};
// Throws std::invalid_argument naming the field (budget ≤ 0, thresholds out of order, min > nominal, …).
void Validate(const FeedbackOptions& options);

struct ExecutorLoad {
  std::array<double, kActivities> share{};    // measured CPU share of each activity (CPU s per s)
  std::array<double, kActivities> rate_hz{};  // the rates they were measured at
};

struct RetuneResult {
  std::array<double, kActivities> rate_hz{};
  double predicted_share = 0.0;  // the total share at the new rates (proportional model)
  bool changed = false;
};

// Throws std::invalid_argument for a negative or non-finite share or a non-positive rate.
RetuneResult Retune(const ExecutorLoad& load, const FeedbackOptions& options);

}  // namespace limbic::explore
