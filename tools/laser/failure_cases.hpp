// E3's failure case studies (spec reactive-topological §4 E3, §2.4 "Known limitations"): an unsolved episode's
// trajectory read against the potential minima of the world's static field (E2c, vector_field.hpp). The thesis
// names two failures of the case-based controller: a large "bottleneck" the robot circulates inside (escaping
// and re-entering), and an oscillation between two geographically different local minima.
//
// Classification (decided where the spec is silent; every threshold an option):
//   solved        the episode reached the goal;
//   two_minima    the robot dwelt (≥ min_dwell_s within visit_radius_cm of a place's centre) at one place, then
//                 another, then the first again (A, B, A): it oscillates between two minima;
//   pinned        otherwise, if it spent the last half of the episode within pinned_radius_cm of where it ended:
//                 held in one place (§2.2.1's prototype finding: the resultant into an obstacle, the
//                 stopping-distance law);
//   circulating   otherwise, if it travelled at least circulating_factor × the optimal path without arriving:
//                 it keeps moving without getting through (the bottleneck);
//   other         the rest (e.g. slow progress cut by the time limit).
//
// Inputs: the episode's result with its trajectory (one point every sample_s), the places. Outputs: the kind and
// the sequence of places visited.
#pragma once

#include <string>
#include <vector>

#include "services/laser_nav/vector_field.hpp"
#include "services/laser_sim/episode.hpp"

namespace limbic::laser {

enum class FailureKind { kSolved, kTwoMinima, kPinned, kCirculating, kOther };
const char* FailureKindName(FailureKind kind);  // solved | two_minima | pinned | circulating | other
inline constexpr FailureKind kFailureKinds[] = {FailureKind::kSolved, FailureKind::kTwoMinima, FailureKind::kPinned,
                                                FailureKind::kCirculating, FailureKind::kOther};

struct FailureOptions {
  double sample_s = 0.1;            // time between trajectory points (the runner keeps every 10th 10 ms pose)
  double visit_radius_cm = 40.0;    // near a place: within this of its centroid
  double min_dwell_s = 2.0;         // a visit lasts at least this long
  double pinned_radius_cm = 30.0;   // the last half of the episode within this of the final position
  double circulating_factor = 2.0;  // path ≥ this × the optimal path
};

// Throws std::invalid_argument naming the option (non-positive or non-finite values, a factor below 1).
void ValidateFailureOptions(const FailureOptions& options);

struct FailureAnalysis {
  FailureKind kind = FailureKind::kOther;
  std::vector<int> visits;  // indices into the places, in the order dwelt at (a return counts again)
};

FailureAnalysis ClassifyFailure(const EpisodeResult& result, const std::vector<MinimumRegion>& places,
                                const FailureOptions& options = {});

}  // namespace limbic::laser
