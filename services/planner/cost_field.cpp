#include "services/planner/cost_field.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

#include "services/planner/fusion.hpp"

namespace limbic::planner {

CostSettings CostSettings::From(const ControlParameters& p, FusionMode mode) {
  CostSettings s;
  s.mode = mode;
  s.w_p1 = p.w_p1;
  s.w_p2 = p.w_p2;
  s.w_p3 = p.w_p3;
  s.w_p4 = p.w_p4;
  s.cost_base = p.cost_base;
  s.r_f = p.r_f;
  return s;
}

double FusedCost(const CostLayers& layers, const CostSettings& s, int i) {
  const mapper::GridMaps& m = *layers.maps;
  double f = ProbabilisticOrStep(0.0, s.w_p1, m.p_o[i]);
  f = ProbabilisticOrStep(f, s.w_p2, m.danger[i] ? 1.0 : 0.0);
  f = ProbabilisticOrStep(f, s.w_p3, m.p_e[i]);
  if (s.mode == FusionMode::kProbabilisticOr) {
    if (!layers.emotion.empty()) f = ProbabilisticOrStep(f, s.w_p4, layers.emotion[i]);
    return f;
  }
  const double bias = layers.additive_bias.empty() ? 0.0 : layers.additive_bias[i];
  return std::clamp(f + bias, 0.0, 1.0);
}

std::vector<KernelOffset> SmoothingKernel(double r_f, double resolution) {
  std::vector<KernelOffset> kernel{{0, 0, 1.0}};
  if (!(r_f > 0.0)) return kernel;
  const double ratio = resolution / r_f;  // d²/r_f² = (dx² + dy²)·ratio²
  const int reach = static_cast<int>(std::ceil(r_f / resolution));
  for (int dy = -reach; dy <= reach; ++dy) {
    for (int dx = -reach; dx <= reach; ++dx) {
      if (dx == 0 && dy == 0) continue;
      const double w = 1.0 - (dx * dx + dy * dy) * ratio * ratio;
      if (w > 0.0) kernel.push_back({dx, dy, w});  // d < r_f
    }
  }
  // Largest weights first: the max of eq. 5.8 can stop early once weight·1 cannot beat it.
  std::stable_sort(kernel.begin(), kernel.end(),
                   [](const KernelOffset& a, const KernelOffset& b) { return a.weight > b.weight; });
  return kernel;
}

void CostField::Begin(const CostLayers& layers, const CostSettings& settings) {
  if (layers.maps == nullptr) throw std::invalid_argument("CostField: no maps");
  layers.maps->Validate();
  const size_t n = static_cast<size_t>(layers.maps->CellCount());
  if (!layers.emotion.empty() && layers.emotion.size() != n) {
    throw std::invalid_argument("CostField: emotion layer has " + std::to_string(layers.emotion.size()) +
                                " cells, the grid " + std::to_string(n));
  }
  if (!layers.additive_bias.empty() && layers.additive_bias.size() != n) {
    throw std::invalid_argument("CostField: additive bias layer has " + std::to_string(layers.additive_bias.size()) +
                                " cells, the grid " + std::to_string(n));
  }
  if (!(settings.cost_base >= 1.0)) throw std::invalid_argument("CostField: cost base B must be >= 1");
  layers_ = layers;
  settings_ = settings;
  log_base_ = std::log(settings.cost_base);
  auto unit = [](double w) { return w >= 0.0 && w <= 1.0; };
  bounded_ = settings.mode == FusionMode::kAdditive ||
             (unit(settings.w_p1) && unit(settings.w_p2) && unit(settings.w_p3) && unit(settings.w_p4));

  const geometry::GridSpec& spec = layers.maps->spec;
  const bool resized = spec.width + 2 * pad_ != padded_width_ ||
                       fused_.size() != static_cast<size_t>(padded_width_) * (spec.height + 2 * pad_);
  if (settings.r_f != kernel_r_f_ || spec.resolution != kernel_resolution_ || resized) {
    kernel_ = SmoothingKernel(settings.r_f, spec.resolution);
    kernel_r_f_ = settings.r_f;
    kernel_resolution_ = spec.resolution;
    pad_ = 0;
    for (const KernelOffset& k : kernel_) pad_ = std::max({pad_, std::abs(k.dx), std::abs(k.dy)});
    padded_width_ = spec.width + 2 * pad_;
    kernel_shift_.clear();
    kernel_weight_.clear();
    for (const KernelOffset& k : kernel_) {
      kernel_shift_.push_back(k.dy * padded_width_ + k.dx);
      kernel_weight_.push_back(k.weight);
    }
    // Zero everything once (the padding must be 0); the interior is overwritten below on every plan.
    fused_.assign(static_cast<size_t>(padded_width_) * (spec.height + 2 * pad_), 0.0);
    factors_.assign(static_cast<size_t>(spec.CellCount()), 0.0);
    factor_row_min_.assign(static_cast<size_t>(spec.height), 0.0);
    factor_row_stale_.assign(static_cast<size_t>(spec.height), 1);
  }
  if (std::bit_cast<uint64_t>(log_base_) != std::bit_cast<uint64_t>(factors_log_base_)) {
    std::fill(factor_row_stale_.begin(), factor_row_stale_.end(), 1);
    factors_log_base_ = log_base_;
  }

  // m_f for every cell (eqs. 5.3–5.4, or the additive mode), row by row into the padded array.
  const mapper::GridMaps& m = *layers.maps;
  const bool with_emotion = settings.mode == FusionMode::kProbabilisticOr && !layers.emotion.empty();
  const bool with_bias = settings.mode == FusionMode::kAdditive && !layers.additive_bias.empty();
  const double w1 = settings.w_p1, w2 = settings.w_p2, w3 = settings.w_p3, w4 = settings.w_p4;
  double min_fused = std::numeric_limits<double>::infinity();
  double sum_fused = 0.0;  // a checksum: NaN or inf in any cell makes it non-finite (std::min would hide a NaN)
  for (int iy = 0; iy < spec.height; ++iy) {
    const int row = iy * spec.width;
    double* out = fused_.data() + Padded(0, iy);
    uint64_t changed = 0;  // non-zero: some m_f of the row differs in any bit from the value it replaces
    for (int ix = 0; ix < spec.width; ++ix) {
      const int i = row + ix;
      // Same operation order as FusedCost, so both give identical bits.
      double f = ProbabilisticOrStep(0.0, w1, m.p_o[i]);
      f = ProbabilisticOrStep(f, w2, m.danger[i] ? 1.0 : 0.0);
      f = ProbabilisticOrStep(f, w3, m.p_e[i]);
      if (with_emotion) f = ProbabilisticOrStep(f, w4, layers.emotion[i]);
      if (settings.mode == FusionMode::kAdditive) {
        f = std::clamp(f + (with_bias ? layers.additive_bias[i] : 0.0), 0.0, 1.0);
      }
      changed |= std::bit_cast<uint64_t>(out[ix]) ^ std::bit_cast<uint64_t>(f);
      out[ix] = f;
      min_fused = std::min(min_fused, f);
      sum_fused += f;
    }
    if (changed != 0) {  // the factor rows whose kernel reaches this row
      const int first = std::max(0, iy - pad_), last = std::min(spec.height - 1, iy + pad_);
      std::fill(factor_row_stale_.begin() + first, factor_row_stale_.begin() + last + 1, 1);
    }
  }
  if (!std::isfinite(sum_fused)) {
    throw NonFiniteCostError("CostField: a layer holds a non-finite value (fused cost m_f not finite)");
  }
  min_fused_ = std::max(0.0, min_fused);
}

double CostField::FactorRow(int iy, double* out) const {
  // Eq. 5.8 with the kernel loop outside and the row inside (no early exit: the max over all offsets equals
  // the lazy max, which only skips products that cannot raise it), then eq. 5.7.
  const int width = spec().width;
  const double* centre = fused_.data() + Padded(0, iy);
  for (int ix = 0; ix < width; ++ix) out[ix] = 0.0;
  const size_t k_count = kernel_shift_.size();
  for (size_t k = 0; k < k_count; ++k) {
    const double w = kernel_weight_[k];
    const double* src = centre + kernel_shift_[k];
    for (int ix = 0; ix < width; ++ix) out[ix] = std::max(out[ix], w * src[ix]);
  }
  double row_min = std::numeric_limits<double>::infinity();
  for (int ix = 0; ix < width; ++ix) {
    out[ix] = std::exp(out[ix] * log_base_);
    row_min = std::min(row_min, out[ix]);
  }
  return row_min;
}

std::span<const double> CostField::CachedFactorRow(int iy, double* row_min) {
  const size_t width = static_cast<size_t>(spec().width);
  double* row = factors_.data() + static_cast<size_t>(iy) * width;
  if (factor_row_stale_[iy]) {
    factor_row_min_[iy] = FactorRow(iy, row);
    factor_row_stale_[iy] = 0;
  }
  *row_min = factor_row_min_[iy];
  return {row, width};
}

double CostField::Filtered(int ix, int iy) const {
  const double* centre = fused_.data() + Padded(ix, iy);
  const size_t k_count = kernel_shift_.size();
  double best = 0.0;
  for (size_t k = 0; k < k_count; ++k) {
    const double w = kernel_weight_[k];
    if (bounded_ && w <= best) break;  // m_f ≤ 1: no later (lighter) offset can raise the max
    best = std::max(best, w * centre[kernel_shift_[k]]);
  }
  return best;
}

double CostField::Fused(int index) const {
  const geometry::Cell c = spec().CellOfIndex(index);
  return Fused(c.ix, c.iy);
}

double CostField::Filtered(int index) const {
  const geometry::Cell c = spec().CellOfIndex(index);
  return Filtered(c.ix, c.iy);
}

double CostField::Factor(int index) const {
  const geometry::Cell c = spec().CellOfIndex(index);
  return Factor(c.ix, c.iy);
}

}  // namespace limbic::planner
