// Every parameter of the planner, controllers and mapper that the affect engine may modulate, plus the
// constants beside them. Defaults: Table 7.2 with the recommended readings of spec §8 (items 2, 16–18):
// W_v4 = 0.5, W_v5 = 0.9. One struct, so a ControlParams message carries the complete, consistent set.
#pragma once

#include <numbers>
#include <stdexcept>
#include <string>

namespace limbic::config {
class StrictMap;
}

namespace limbic {

struct ControlParameters {
  // --- Velocity controller (§4.5) ---
  double w_v1 = 0.99;    // W_v1 sensor-based avoidance (safety drive 0.9 → 0.99)
  double w_v2 = 0.0;     // W_v2 map-based avoidance (introspection 0 → 0.9)
  double w_v3 = 0.75;    // W_v3 goal seeking towards θ_T
  double w_v4 = 0.5;     // W_v4 speedup (safety 0.6 → 0.4); Table 7.2 prints 0.9 (see §8 item 2)
  double w_v5 = 0.9;     // W_v5 distance-to-goal; Table 7.2 prints 0.5
  int n_v = 9;           // velocity samples in the window (odd)
  int n_omega = 9;       // angular-velocity samples (odd)
  double v_limit = 1.0;  // v_L (m/s) (speed drive 0.4 → 1.0)
  double omega_limit = 0.2 * std::numbers::pi;  // ω_L (rad/s)
  double a_max = 0.5;                           // m/s²
  double a_min = -0.5;                          // m/s²
  double alpha_max = std::numbers::pi;          // rad/s²
  double alpha_min = -std::numbers::pi;         // rad/s²
  double t_1 = 0.1;                             // curvature segment start (s)
  double t_2 = 1.0;                             // curvature segment end (s) (safety 0.9 → 1.1)
  double t_3 = 1.0;                             // heading prediction time (s)
  double d_v_max = 1.0;                         // d_v(max) (m)
  double kappa = 0.05;                          // κ of eq. 5.22
  double beta = 0.4;                            // turning factor β of eq. 5.28

  // --- Directional controller (§4.4) ---
  double w_theta1 = 0.99;       // sensor-based avoidance
  double w_theta2 = 0.0;        // map-based avoidance (introspection 0 → 0.99)
  double w_theta3 = 0.75;       // path following (action 0.75 → 0.25, X = 10)
  double w_theta4 = 0.0;        // goal seeking (0 in the hybrid configuration)
  double w_theta5 = 0.0;        // angular inertia (action 0 → 0.5, X = −1.5)
  double w_theta6 = 0.0;        // wander (action 0 → 0.75, X = −1.5)
  int n_theta = 50;             // candidate headings (efficiency 30 → 10)
  double d_o_max = 3.0;         // d_o(max) (m)
  double r_o = 0.35;            // obstacle circle radius (m) (safety 0.25 → 0.35); r_v = r_o (§8 item 28)
  double smoothing = 0.1;       // s of eqs. 5.13–5.14
  double d_lookahead = 0.7;     // d_L (m) (action 1.05 → 2.45, X = 10)
  double d_g_max = 1.5;         // goal-proximity radius d_g(max) (m)
  double wander_period = 15.0;  // s
  double wander_alpha = 0.75;   // α of eq. 5.17
  double map_threshold = 0.5;   // p_T for map-based avoidance (§8 item 18)
  double map_radius = 3.0;      // r for map-based avoidance (m)
  double weight_cap = 0.99;

  // --- Planner (§4.1–4.2) ---
  double w_p1 = 1.0;           // occupancy
  double w_p2 = 0.0;           // danger (introspection 0 → 1)
  double w_p3 = 0.0;           // exploration (exploration 0 → 0.4)
  double w_p4 = 0.0;           // emotion layer (0 unless the affect engine runs; §8 item 20)
  double cost_base = 10000.0;  // B
  double r_f = 0.7;            // smoothing filter radius (m)
  double t_r = 5.0;            // replan period (s) (efficiency 0.1 → 2.0); 0 = every cycle

  // --- Mapper (§4.1) and perception ---
  double eps_1 = 0.01;  // ε_1 occupancy decrease rate
  double eps_2 = 0.01;  // ε_2 occupancy increase rate (exploration 0.01 → 0.02)
  double eps_3 = 0.01;  // ε_3 exploration growth
  int n_o = 5;          // obstacle buffer length in cycles (efficiency 7 → 1)

  bool operator==(const ControlParameters&) const = default;
};

// X(type, name) for every field above, in declaration order: one list for the loader, the message
// conversion and the parameter tables of the affect engine.
// clang-format off
#define LIMBIC_CONTROL_PARAMETER_FIELDS(X)                                                             \
  X(double, w_v1) X(double, w_v2) X(double, w_v3) X(double, w_v4) X(double, w_v5) X(int, n_v)          \
  X(int, n_omega) X(double, v_limit) X(double, omega_limit) X(double, a_max) X(double, a_min)          \
  X(double, alpha_max) X(double, alpha_min) X(double, t_1) X(double, t_2) X(double, t_3)               \
  X(double, d_v_max) X(double, kappa) X(double, beta) X(double, w_theta1) X(double, w_theta2)          \
  X(double, w_theta3) X(double, w_theta4) X(double, w_theta5) X(double, w_theta6) X(int, n_theta)      \
  X(double, d_o_max) X(double, r_o) X(double, smoothing) X(double, d_lookahead) X(double, d_g_max)     \
  X(double, wander_period) X(double, wander_alpha) X(double, map_threshold) X(double, map_radius)      \
  X(double, weight_cap) X(double, w_p1) X(double, w_p2) X(double, w_p3) X(double, w_p4)                \
  X(double, cost_base) X(double, r_f) X(double, t_r) X(double, eps_1) X(double, eps_2)                 \
  X(double, eps_3) X(int, n_o)
// clang-format on

// Upper bounds on every field that sizes an allocation or a per-tick loop. A ControlParams message is
// a single valid FlatBuffer whatever its numbers, so these bounds are what stands between one message
// and an out-of-memory death (n_theta = 2e9 allocated until the controller died, issue 16 finding 1).
// The spec's own values sit far inside them: n_θ 10–50, 9×9 windows, r 3 m, r_f 0.7 m, n_o 1–7.
struct ControlParameterLimits {
  static constexpr int kMaxNTheta = 720;         // candidate headings: half a degree apart
  static constexpr int kMaxWindow = 101;         // n_v, n_ω: a 101×101 window = 10,201 arcs per tick
  static constexpr double kMaxMapRadius = 20.0;  // m: (2r/resolution)² cells scanned per tick
  static constexpr double kMaxReach = 50.0;      // m: d_o(max), d_v(max), d_L, d_g(max)
  static constexpr double kMaxRF = 5.0;          // m: planner smoothing kernel of (2 r_f/res + 1)² cells
  static constexpr int kMaxNO = 100;             // cycles of obstacle points kept by the mapper
  static constexpr double kMaxPeriod = 3600.0;   // s: t_r, wander period, prediction times
};

// A parameter out of its range; `field` names it (message: "ControlParameters.<field> must be ... (got ...)").
class ParameterRangeError : public std::invalid_argument {
 public:
  ParameterRangeError(std::string field, const std::string& message)
      : std::invalid_argument(message), field_(std::move(field)) {}
  const std::string& field() const { return field_; }

 private:
  std::string field_;
};

// Throws ParameterRangeError naming the first field out of range: every real field must be finite,
// windows positive odd numbers, counts and radii inside ControlParameterLimits, pairs ordered
// (t_1 ≤ t_2, a_min ≤ a_max, α_min ≤ α_max). The one check every receiver of parameters applies
// (controller each tick, message validation at the boundary, the strict loader).
void ValidateParameters(const ControlParameters& params);

// Reads any subset of the fields above from a mapping whose keys are the field names
// (w_v1, n_theta, ...); unknown keys are errors through StrictMap::Finish(); values out of range
// (ValidateParameters, and n_theta ≥ 3 for a configuration) are errors naming the key.
void LoadControlParameters(config::StrictMap& map, ControlParameters* params);

// Table 7.2 printed literally (W_v4 = 0.9, W_v5 = 0.5): the alternative reading of §8 item 2.
ControlParameters Table72Literal();

}  // namespace limbic
