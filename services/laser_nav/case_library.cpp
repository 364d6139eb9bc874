#include "services/laser_nav/case_library.hpp"

#include <algorithm>
#include <cmath>

namespace limbic::laser {

CaseLibrary AppendixA() {
  // name, Clutter, Density, Proximity, Wander, Clear-to-goal, Senses-goal, Goal-nearby, Nomovement,
  // GG, OG, NG, NP, S, TGG, EGG — Appendix A [T], both tables row by row.
  return {
      {"Clearfield", 0, 0, -1, 0, -1, -1, -1, 0, 6, 3, 0, 250, 250, 0, 0},
      {"Ballooning", 2, 35, 0, 0.05, 1, -1, 0, 0, 6, 7, 0, 250, 250, 0, 2},
      {"Squeezing", 4, 60, 1, 0.15, -1, -1, -1, 0, 7, 3, 0, 250, 250, 0, 6},
      {"Hugging", 6, 54, 1, 0.45, -1, -1, -1, 0, 7, 4, 1, 250, 250, 2, 0},
      {"Shooting", 5, 45, 0, 0.1, -1, 1, -1, 0, 6, 5, 0, 250, 250, 0, 0},
      {"Random", 5, 75, 1, 0.65, -1, -1, -1, 1, 5, 6, 5, 250, 250, 0, 4},
      {"Repulsion", 3, 80, 1, 0.9, -1, -1, -1, 1, -3, 5, 2, 250, 150, 0, 6},
      {"Wallcrawling", 0, 0, 0, 0, 0, 0, 0, 0, 2, 3, 0, 250, 45, 9, 0},
  };
}

namespace {

// A binary index value against the environment's flag (A8).
double BinaryMatch(int case_value, bool env_value, BinaryEncoding encoding) {
  const int dont_care = encoding == BinaryEncoding::kMinusOneDontCare ? -1 : 0;
  if (case_value == dont_care) return 1.0;
  return (case_value == 1) == env_value ? 1.0 : 0.0;  // 1 is "true" in both readings
}

}  // namespace

double GoodnessOfMatch(const Case& c, const EnvironmentInfo& env, const MatchOptions& o) {
  const auto& w = o.weights;
  double gom = 0.0;
  gom += w[0] * std::max(0.0, 1.0 - std::fabs(env.clutter - c.clutter) / 3.0);  // Eq. 4-8
  gom += w[1] * std::max(0.0, 1.0 - std::fabs(env.density_pct - c.density) / 30.0);
  gom += w[2] * std::max(0.0, 1.0 - std::fabs(env.proximity - c.proximity) / 2.0);
  gom += w[3] * std::max(0.0, 1.0 - std::fabs(env.wander - c.wander) / 0.3);
  gom += w[4] * BinaryMatch(c.clear_to_goal, env.clear_to_goal, o.binaries);
  gom += w[5] * BinaryMatch(c.senses_goal, env.senses_goal, o.binaries);
  gom += w[6] * BinaryMatch(c.goal_nearby, env.goal_nearby, o.binaries);
  gom += w[7] * ((c.nomovement == 1) == env.nomovement ? 1.0 : 0.0);
  return gom;
}

int FindCase(const CaseLibrary& cases, const std::string& name) {
  for (size_t i = 0; i < cases.size(); ++i)
    if (cases[i].name == name) return static_cast<int>(i);
  return -1;
}

int SelectCase(const CaseLibrary& cases, const EnvironmentInfo& env, int current, const MatchOptions& o,
               std::vector<double>* gom) {
  const int wallcrawling = FindCase(cases, "Wallcrawling");
  const int hugging = FindCase(cases, "Hugging");
  if (gom) gom->assign(cases.size(), -1.0);
  // A9: Wallcrawling by rule — Hugging is not getting round the obstacle.
  if (!o.wallcrawl_literal_match && wallcrawling >= 0 && current == hugging && current >= 0 &&
      (env.nomovement || env.wander >= o.wallcrawl_wander)) {
    return wallcrawling;
  }
  if (o.wallcrawl_when_stuck && wallcrawling >= 0 && env.nomovement && current >= 0 &&
      (current == FindCase(cases, "Random") || current == FindCase(cases, "Repulsion"))) {
    return wallcrawling;
  }
  int best = -1;
  double best_gom = -1.0;
  for (size_t i = 0; i < cases.size(); ++i) {
    if (static_cast<int>(i) == wallcrawling && !o.wallcrawl_literal_match) continue;
    const double g = GoodnessOfMatch(cases[i], env, o);
    if (gom) (*gom)[i] = g;
    if (g > best_gom) {  // strict: ties keep the lower case number
      best_gom = g;
      best = static_cast<int>(i);
    }
  }
  return best;
}

ControlGains GainsOf(const Case& c, const MatchOptions& o) {
  return {c.gg, c.og, c.ng, c.np * o.np_unit_s, c.s_cm, c.tgg, c.egg};
}

}  // namespace limbic::laser
