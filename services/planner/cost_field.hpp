// The planning cost of spec §4.1–4.2: fused map m_f (eqs. 5.3–5.4 or the companion paper's additive form),
// smoothing filter m_f' (eq. 5.8) and cost factor c = B^{m_f'} (eq. 5.7), evaluated lazily per plan.
#pragma once

#include <cmath>
#include <cstdint>
#include <span>
#include <stdexcept>
#include <vector>

#include "common/types/control_parameters.hpp"
#include "services/mapper/grid_maps.hpp"

namespace limbic::planner {

enum class FusionMode {
  // Thesis (§4.1, §5.4.2): m_f = probabilistic OR of W_p1·p_o, W_p2·danger, W_p3·p_e, W_p4·Emo.
  kProbabilisticOr,
  // Companion paper (§6.4 last block): m_f = clamp(OR(W_p1·p_o, W_p2·danger, W_p3·p_e) + bias, 0, 1) where
  // bias = (W_7·E_F + W_8·(1 − E_S) − W_9·E_H)·(1 − E_A) is supplied precomputed per cell. With the default
  // weights (W_p1 = 1, W_p2 = W_p3 = 0) this is exactly c_e = p_o + bias. The emotion layer and W_p4 are unused.
  kAdditive,
};

// The layers the planning cost is made of. Non-owning views: they must outlive the plan.
struct CostLayers {
  const mapper::GridMaps* maps = nullptr;
  // Every layer value is in [0, 1] (p_o, p_e and danger are by construction; the emotion layer by contract).
  std::span<const double> emotion;        // Emo(x) of §5.4.2 in [0, 1], one per cell; empty = 0 everywhere
  std::span<const double> additive_bias;  // kAdditive bias per cell; empty = 0 everywhere
};

// Thrown by CostField::Begin when a layer holds a non-finite value (some cell's m_f is not finite): the
// planner keeps its last good path rather than plan through NaN costs (issue 15, item 1).
struct NonFiniteCostError : std::invalid_argument {
  using std::invalid_argument::invalid_argument;
};

// The live parameters of the cost (read from ControlParameters each plan).
struct CostSettings {
  FusionMode mode = FusionMode::kProbabilisticOr;
  double w_p1 = 1.0;           // W_p1 occupancy
  double w_p2 = 0.0;           // W_p2 danger
  double w_p3 = 0.0;           // W_p3 exploration
  double w_p4 = 0.0;           // W_p4 emotion layer
  double cost_base = 10000.0;  // B of eq. 5.7
  double r_f = 0.7;            // smoothing radius (m) of eq. 5.8; ≤ 0 turns the filter off (m_f' = m_f)

  static CostSettings From(const ControlParameters& params, FusionMode mode = FusionMode::kProbabilisticOr);
};

// m_f(x) at one cell, computed directly (the reference the lazy field is tested against).
double FusedCost(const CostLayers& layers, const CostSettings& settings, int index);

// One entry of the smoothing kernel: a cell offset and its weight 1 − d²/r_f² (eq. 5.8).
struct KernelOffset {
  int dx = 0;
  int dy = 0;
  double weight = 1.0;
};
// Every offset whose centre distance d satisfies d < r_f (just the centre when r_f ≤ 0).
std::vector<KernelOffset> SmoothingKernel(double r_f, double resolution);

// The planning cost of one plan: m_f for every cell (computed once per plan into a zero-padded array, so
// the filter needs no bounds checks), m_f' and B^{m_f'} on demand for the cells a caller asks about (lazy) or
// row by row for the whole grid (eager, FactorRow).
// Inputs: CostLayers (maps, optional emotion layer / additive bias) and CostSettings.
// Implements: eqs. 5.3–5.4 (fusion, or the additive mode), 5.8 (smoothing filter: evaluated only for the
// cells asked for — A* memoises it per plan in its node array — or for whole rows), 5.7 (B^{m_f'} =
// exp(m_f'·ln B)). Lazy and eager evaluation give identical bits (the max of the same products).
// Cells off the grid are ignored by the filter (the zero padding is equivalent: m_f ≥ 0 never raises the max
// above 0).
class CostField {
 public:
  // Starts a plan over `layers`. Grid-sized buffers are reallocated only when the grid grows. Throws
  // std::invalid_argument for missing maps, a layer whose size differs from the grid's, or B < 1, and
  // NonFiniteCostError when a layer value makes m_f non-finite (found through the sum of m_f, one add
  // per cell in the pass that computes m_f anyway).
  void Begin(const CostLayers& layers, const CostSettings& settings);

  double Fused(int ix, int iy) const { return fused_[Padded(ix, iy)]; }                   // m_f(x)
  double Filtered(int ix, int iy) const;                                                  // m_f'(x), eq. 5.8
  double Factor(int ix, int iy) const { return std::exp(Filtered(ix, iy) * log_base_); }  // eq. 5.7
  double Fused(int index) const;
  double Filtered(int index) const;
  double Factor(int index) const;
  // Eager evaluation of one row: out[ix] = B^{m_f'(ix, iy)} for ix in [0, width), bit-identical to
  // Factor(ix, iy); returns the row's minimum (+inf for an empty row). out must hold width values.
  double FactorRow(int iy, double* out) const;
  // FactorRow with memory across plans (issue 18: a robot replans every t_r while its sensors change a few
  // rows of the map): the row's factors and minimum as FactorRow gives them, recomputed only when some m_f
  // within the kernel's reach of the row changed (bit for bit) since the row was last computed, or the
  // kernel, the grid or B changed. Valid until the next Begin.
  std::span<const double> CachedFactorRow(int iy, double* row_min);
  // min over the grid of max(0, m_f): a lower bound of m_f' (the kernel's centre has weight 1), so
  // B^{MinFused()} ≤ c everywhere. Computed during Begin.
  double MinFused() const { return min_fused_; }

  const geometry::GridSpec& spec() const { return layers_.maps->spec; }
  const std::vector<KernelOffset>& kernel() const { return kernel_; }
  double log_base() const { return log_base_; }

 private:
  int Padded(int ix, int iy) const { return (iy + pad_) * padded_width_ + (ix + pad_); }

  CostLayers layers_;
  CostSettings settings_;
  double log_base_ = 0.0;
  bool bounded_ = true;  // every weight in [0, 1], so m_f ≤ 1 (layers are in [0, 1] by contract)
  std::vector<KernelOffset> kernel_;
  std::vector<int> kernel_shift_;      // kernel offsets as shifts in the padded array
  std::vector<double> kernel_weight_;  // their weights, largest first
  double kernel_r_f_ = -1.0, kernel_resolution_ = -1.0;
  int pad_ = 0;                // kernel reach (cells)
  int padded_width_ = 0;       // width + 2·pad
  std::vector<double> fused_;  // m_f on the padded grid; padding is 0
  double min_fused_ = 0.0;
  // CachedFactorRow's memory: B^{m_f'} row by row (width × height), each row's minimum, and the rows whose
  // inputs changed since they were computed (marked by Begin, which compares every m_f it writes with the
  // value it overwrites; kept across a Begin that throws, so a row is never trusted on a partial update).
  std::vector<double> factors_;
  std::vector<double> factor_row_min_;
  std::vector<uint8_t> factor_row_stale_;
  double factors_log_base_ = -1.0;  // ln B the cached rows were computed with (ln B ≥ 0: −1 is none)
};

}  // namespace limbic::planner
