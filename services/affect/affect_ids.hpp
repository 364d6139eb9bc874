// Fixed identities of the affect model: the 9 stimuli, 7 emotions, 2 moods and 6 drives (spec §5),
// their names as used in YAML and metrics, and array types indexed by them.
#pragma once

#include <array>
#include <optional>
#include <string_view>

namespace limbic::affect {

enum StimulusId : int {
  kDanger = 0,   // §8.1.1, eqs. 8.4–8.5
  kStuck,        // §8.1.2, eq. 8.6 (inverted)
  kPain,         // §8.1.3, eq. 8.7
  kAchievement,  // §8.1.4, eq. 8.8
  kDensity,      // §8.1.5, eq. 8.9
  kLearning,     // §8.1.6, eq. 8.10
  kMismatch,     // §8.1.7, eqs. 8.11–8.12
  kCost,         // §8.1.8, eq. 8.13
  kError,        // §8.1.9, eq. 8.14
};
inline constexpr int kNumStimuli = 9;
inline constexpr std::array<std::string_view, kNumStimuli> kStimulusNames = {
    "danger", "stuck", "pain", "achievement", "density", "learning", "mismatch", "cost", "error"};

enum EmotionId : int { kAnger = 0, kFear, kHappiness, kSadness, kCuriosity, kSurprise, kConfusion };
inline constexpr int kNumEmotions = 7;
inline constexpr std::array<std::string_view, kNumEmotions> kEmotionNames = {
    "anger", "fear", "happiness", "sadness", "curiosity", "surprise", "confusion"};

enum MoodId : int { kPositiveMood = 0, kNegativeMood };
inline constexpr int kNumMoods = 2;
inline constexpr std::array<std::string_view, kNumMoods> kMoodNames = {"positive", "negative"};

enum DriveId : int { kSafety = 0, kSpeed, kEfficiency, kExploration, kAction, kIntrospection };
inline constexpr int kNumDrives = 6;
inline constexpr std::array<std::string_view, kNumDrives> kDriveNames = {"safety",      "speed",  "efficiency",
                                                                         "exploration", "action", "introspection"};

using StimulusArray = std::array<double, kNumStimuli>;
using EmotionArray = std::array<double, kNumEmotions>;
using MoodArray = std::array<double, kNumMoods>;
using DriveArray = std::array<double, kNumDrives>;

// Index of `name` in `names`, or nullopt.
template <size_t N>
std::optional<int> IndexOfName(const std::array<std::string_view, N>& names, std::string_view name) {
  for (size_t i = 0; i < N; ++i) {
    if (names[i] == name) return static_cast<int>(i);
  }
  return std::nullopt;
}

}  // namespace limbic::affect
