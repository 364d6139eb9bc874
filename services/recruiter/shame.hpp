// SHAME, the one emotion of affective recruitment (spec affective-recruitment §3): a scalar s_i in
// [0,1] per robot that grows each time the robot ignores a HELP and makes it answer once it passes the
// threshold. Transport-free; time comes in as a value.
//
// Inputs (OnHelp): the time the HELP arrived, whether the robot can provide the percept, whether it is
//   available (not on a task), its ETA τ_i to the HELP location, the HELP's optional threshold override.
// Outputs: Decision (Ineligible / Accept / Ignore) and the SHAME values before decay, after decay and
//   after the decision, for telemetry and tests.
// Implements §3.4 (normative update rule): s ← max(0, s − k(T)); s > t ⇒ ACCEPT and s ← 0;
//   otherwise s ← min(1, s + c + d(τ_i)). k(T) = decay_per_s·T (§3.5); d = FitnessModel (§9.5).
#pragma once

#include <optional>
#include <string>

namespace limbic::recruit {

// d(τ): fitness term added to SHAME when a HELP is ignored (spec §3.5, §3.6, §9.5). Always in [0, 1].
struct FitnessModel {
  enum class Kind { kZero, kLinear, kInverseSquare, kHeuristic };
  Kind kind = Kind::kLinear;
  double a = 0.5;  // Linear: a/τ (0.5, "1/D"); InverseSquare: a/τ² (2.5, "1/D²")
  // Heuristic (§3.6, reconstructed [I]): max(0, t·m_ideal/τ − t/l + k(Δ)).
  double heuristic_threshold = 0.75;  // t
  double heuristic_m_ideal = 10.0;    // m_ideal, in ETA seconds
  double heuristic_l = 4.0;           // l, acceptable requests without a response
  double heuristic_k_delta = 0.025;   // k(Δ)
  // τ below this is treated as this (the spec leaves τ → 0 open; §10 item 9 says guard it).
  static constexpr double kMinEta = 1e-6;

  double operator()(double eta_s) const;
  static FitnessModel Linear(double a = 0.5);
  static FitnessModel InverseSquare(double a = 2.5);
  static FitnessModel Zero();
};

// Parses "linear", "inverse_square" (alias "nonlinear"), "heuristic", "zero"; throws
// std::invalid_argument naming the accepted words otherwise.
FitnessModel::Kind ParseFitnessKind(const std::string& text);
const char* FitnessKindName(FitnessModel::Kind kind);

struct ShameParams {
  double threshold = 0.75;        // t [D]
  double c = 0.2;                 // per-ignore constant [D]
  double decay_per_s = 0.005;     // k(T) = 0.005·T [D]
  FitnessModel fitness;           // d(τ) [D: 0.5/D "linear"]
  bool accrue_while_busy = true;  // §3.4 rule B [I], §10 item 7
};

enum class Decision { kIneligible, kAccept, kIgnore };
const char* DecisionName(Decision d);

struct ShameDecision {
  Decision decision = Decision::kIneligible;
  double shame_before_decay = 0.0;
  double shame_after_decay = 0.0;
  double shame_after = 0.0;
};

// The per-robot state (§3.3): one scalar and the time of the last HELP received from any requester.
struct ShameState {
  double shame = 0.0;
  std::optional<double> last_help_s;
};

class ShameEngine {
 public:
  // Throws std::invalid_argument for parameters outside their meaning (NaN, t ≥ 1 so nobody could
  // ever answer, c ≤ 0, negative decay).
  explicit ShameEngine(const ShameParams& params = {});

  // §3.4 on receipt of HELP at `now_s`. `eta_s` is τ_i (only used when the HELP is ignored).
  ShameDecision OnHelp(double now_s, bool eligible, bool available, double eta_s,
                       std::optional<double> threshold_override = std::nullopt);
  // The value an operator sees at `now_s`: decay applied for display only; the state is not changed.
  double ShameAt(double now_s) const;
  void Reset() { state_ = {}; }

  const ShameState& state() const { return state_; }
  const ShameParams& params() const { return params_; }
  // True when an available robot hearing a HELP every `retry_s` seconds must eventually answer:
  // c > k(Δ) (§3.4, "guaranteed eventual response").
  bool GuaranteesResponse(double retry_s) const { return params_.c > params_.decay_per_s * retry_s; }

 private:
  ShameParams params_;
  ShameState state_;
};

}  // namespace limbic::recruit
