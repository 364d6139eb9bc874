// The case library of the adaptive reactive controller (spec reactive-topological §2.4.2, thesis
// Appendix A, copied exactly) and its goodness-of-match (§2.4.4):
//   Eq. 4-8 (Clutter): m = |Clutter − Case_clutter|, GOM = 1 − m/3 for m < 3, else 0;
//   [A] Density max(0, 1 − |DensityPct − c|/30); Proximity 1 − |m|/2; Wander max(0, 1 − |m|/0.3);
//   Clear-to-goal / Senses-goal / Goal-nearby: case value −1 = don't care (1), else 1 if equal (A8);
//   Nomovement: 1 if equal, weight 2. The best sum wins; ties go to the lower case number.
// Wallcrawling (all index values 0) is not matched by default (A9); it is entered by rule — from
// Hugging when Nomovement or Wander ≥ 0.45.
#pragma once

#include <array>
#include <string>
#include <vector>

#include "services/laser_nav/environment_info.hpp"
#include "services/laser_nav/heading_law.hpp"

namespace limbic::laser {

struct Case {
  std::string name;
  // Index values (Appendix A, first table).
  double clutter = 0, density = 0, proximity = 0, wander = 0;
  int clear_to_goal = 0, senses_goal = 0, goal_nearby = 0, nomovement = 0;
  // Control parameters (second table): GG, OG, NG, NP (in the appendix's unit, see A6), S (cm), TGG, EGG.
  double gg = 0, og = 0, ng = 0, np = 0, s_cm = 0, tgg = 0, egg = 0;
};

using CaseLibrary = std::vector<Case>;

// Appendix A: Clearfield, Ballooning, Squeezing, Hugging, Shooting, Random, Repulsion, Wallcrawling.
CaseLibrary AppendixA();

// How the binaries' −1/0/1 are read (A8).
enum class BinaryEncoding {
  kMinusOneDontCare,  // −1 don't care, 0 false, 1 true (default)
  kZeroDontCare,      // −1 false, 1 true, 0 don't care
};

struct MatchOptions {
  BinaryEncoding binaries = BinaryEncoding::kMinusOneDontCare;
  bool wallcrawl_literal_match = false;  // A9: match Wallcrawling by its table values instead of the rule
  double wallcrawl_wander = 0.45;        // [A] the rule's Wander threshold
  // [A, off by default] Also enter Wallcrawling from Random or Repulsion when, at their (3 s) selection
  // point, the robot still has Nomovement: they did not free it. With the rule from Hugging alone a
  // pinned robot never reaches Wallcrawling (Nomovement, weight 2, selects Random or Repulsion, and
  // Hugging's index has Nomovement 0), and Random and Repulsion keep re-selecting each other.
  bool wallcrawl_when_stuck = false;
  double np_unit_s = 0.01;  // A6: NP 250 = 250 control cycles = 2.5 s (0.1 reads it as 25 s)
  std::array<double, 8> weights{1, 1, 1, 1, 1, 1, 1, 2};  // Clutter … Nomovement
};

// GOM of one case for this environment (the weighted sum above).
double GoodnessOfMatch(const Case& c, const EnvironmentInfo& env, const MatchOptions& options);

// The case to run from here: argmax GOM over the matchable cases, or Wallcrawling by rule when
// `current` is Hugging. `current` may be −1 (start). `gom` (optional) receives every case's GOM
// (−1 for a case that is not matched).
int SelectCase(const CaseLibrary& cases, const EnvironmentInfo& env, int current, const MatchOptions& options,
               std::vector<double>* gom = nullptr);

// The case's seven parameters in seconds and centimetres.
ControlGains GainsOf(const Case& c, const MatchOptions& options);

// Index of the case named `name`, or −1.
int FindCase(const CaseLibrary& cases, const std::string& name);

}  // namespace limbic::laser
