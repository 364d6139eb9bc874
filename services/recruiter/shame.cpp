#include "services/recruiter/shame.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace limbic::recruit {

double FitnessModel::operator()(double eta_s) const {
  // NaN ETA (no estimate) contributes nothing rather than poisoning s_i.
  if (std::isnan(eta_s)) return 0.0;
  const double tau = std::max(eta_s, kMinEta);
  double d = 0.0;
  switch (kind) {
    case Kind::kZero:
      d = 0.0;
      break;
    case Kind::kLinear:
      d = a / tau;
      break;  // "linear" 0.5/D (§3.5)
    case Kind::kInverseSquare:
      d = a / (tau * tau);
      break;                // "non-linear" 2.5/D² (§3.5)
    case Kind::kHeuristic:  // §3.6: t·m_ideal/m_i − c + k(Δ), c = t/l
      d = heuristic_threshold * heuristic_m_ideal / tau - heuristic_threshold / heuristic_l + heuristic_k_delta;
      break;
  }
  return std::clamp(d, 0.0, 1.0);  // §10 item 9: d ≤ 1; §3.6: d ≥ 0
}

FitnessModel FitnessModel::Linear(double a) { return {.kind = Kind::kLinear, .a = a}; }
FitnessModel FitnessModel::InverseSquare(double a) { return {.kind = Kind::kInverseSquare, .a = a}; }
FitnessModel FitnessModel::Zero() { return {.kind = Kind::kZero, .a = 0.0}; }

FitnessModel::Kind ParseFitnessKind(const std::string& text) {
  if (text == "linear") return FitnessModel::Kind::kLinear;
  if (text == "inverse_square" || text == "nonlinear") return FitnessModel::Kind::kInverseSquare;
  if (text == "heuristic") return FitnessModel::Kind::kHeuristic;
  if (text == "zero") return FitnessModel::Kind::kZero;
  throw std::invalid_argument("unknown fitness '" + text + "' (linear, inverse_square, heuristic, zero)");
}

const char* FitnessKindName(FitnessModel::Kind kind) {
  switch (kind) {
    case FitnessModel::Kind::kZero:
      return "zero";
    case FitnessModel::Kind::kLinear:
      return "linear";
    case FitnessModel::Kind::kInverseSquare:
      return "inverse_square";
    case FitnessModel::Kind::kHeuristic:
      return "heuristic";
  }
  return "?";
}

const char* DecisionName(Decision d) {
  switch (d) {
    case Decision::kIneligible:
      return "ineligible";
    case Decision::kAccept:
      return "accept";
    case Decision::kIgnore:
      return "ignore";
  }
  return "?";
}

ShameEngine::ShameEngine(const ShameParams& params) : params_(params) {
  const auto bad = [](double v) { return !std::isfinite(v); };
  if (bad(params.threshold) || params.threshold >= 1.0)
    throw std::invalid_argument("shame threshold must be a number below 1 (s ≤ 1 and the test is s > t)");
  if (bad(params.c) || params.c <= 0.0) throw std::invalid_argument("shame constant c must be positive");
  if (bad(params.decay_per_s) || params.decay_per_s < 0.0)
    throw std::invalid_argument("shame decay per second must be a non-negative number");
  if (bad(params.fitness.a) || params.fitness.a < 0.0)
    throw std::invalid_argument("fitness coefficient must be a non-negative number");
}

ShameDecision ShameEngine::OnHelp(double now_s, bool eligible, bool available, double eta_s,
                                  std::optional<double> threshold_override) {
  ShameDecision out;
  out.shame_before_decay = out.shame_after_decay = out.shame_after = state_.shame;
  if (!eligible) return out;  // rule A [I]: no participation, no accrual, no decay bookkeeping
  if (state_.last_help_s) {
    // Decay since the previous HELP, subtracted at once (§3.4 step 1); clamp at 0 [D].
    const double elapsed = std::max(0.0, now_s - *state_.last_help_s);
    state_.shame = std::max(0.0, state_.shame - params_.decay_per_s * elapsed);
  }
  state_.last_help_s = now_s;
  out.shame_after_decay = state_.shame;
  const double threshold = threshold_override.value_or(params_.threshold);
  if (state_.shame > threshold) {  // strict '>' [D]
    if (available) {
      state_.shame = 0.0;  // reset on deciding to respond [D], chosen or not [I §10 item 11]
      out.decision = Decision::kAccept;
    } else {
      out.decision = Decision::kIgnore;  // busy: cannot answer; no accrual since s > t [I]
    }
    out.shame_after = state_.shame;
    return out;
  }
  if (available || params_.accrue_while_busy) {
    state_.shame = std::min(1.0, state_.shame + params_.c + params_.fitness(eta_s));  // §3.4 step 3
  }
  out.decision = Decision::kIgnore;
  out.shame_after = state_.shame;
  return out;
}

double ShameEngine::ShameAt(double now_s) const {
  if (!state_.last_help_s) return state_.shame;
  return std::max(0.0, state_.shame - params_.decay_per_s * std::max(0.0, now_s - *state_.last_help_s));
}

}  // namespace limbic::recruit
