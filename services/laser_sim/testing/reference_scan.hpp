// The laser's error draws and quantisation (LaserScanner::Scan without the cache) as they were before the
// uniform model's draws were fused with the quantisation and done four beams at a time, kept verbatim as
// the oracle of the tests: the scans must be the same bytes, scan after scan of one error stream.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>

#include "services/laser_sim/laser_scanner.hpp"
#include "services/laser_sim/testing/reference_cast.hpp"
#include "sim/random.hpp"

namespace limbic::laser::reference {

class Scanner {
 public:
  Scanner(const World& world, const LaserOptions& options, uint64_t seed)
      : world_(world), options_(options), rng_state_(seed) {}

  void Scan(Vec2 p, RangeScan* out, ExactScan* exact) {
    const bool use_error = options_.error_model != LaserErrorModel::kNone && options_.error_cm > 0;
    if (use_error && options_.error_model == LaserErrorModel::kUniform) DrawErrors();
    ExactScan& ranges = *exact;
    reference::CastExact(world_, p, &ranges, &hit_);
    // A beam that hits nothing reads 250 exactly (§1.5.1); a hit is rounded with its error and clamped.
    // (Rounding half up by truncation: l + e + 0.5 is clamped at 0 first, so it is never negative.)
    auto quantise = [&](int a, int e) {
      const double x = static_cast<double>(ranges[a]) + e + 0.5;
      const int v = hit_[a] == kNothing ? static_cast<int>(kMaxRangeCm) : (x <= 0.0 ? 0 : static_cast<int>(x));
      (*out)[a] = static_cast<uint8_t>(std::min(v, static_cast<int>(kMaxRangeCm)));
    };
    if (!use_error) {
      for (int a = 0; a < kBeams; ++a) quantise(a, 0);
    } else if (options_.error_model == LaserErrorModel::kUniform) {
      for (int a = 0; a < kBeams; ++a) quantise(a, hit_[a] != kNothing ? errors_[a] : 0);
    } else {  // thesis_approx: a fixed bias per (obstacle, beam)
      for (int a = 0; a < kBeams; ++a) {
        int e = 0;
        if (hit_[a] != kNothing) {
          const uint64_t key = (static_cast<uint64_t>(static_cast<uint16_t>(hit_[a])) << 16) | static_cast<uint64_t>(a);
          e = static_cast<int>(sim::SplitMix64(key) % static_cast<uint64_t>(2 * options_.error_cm + 1)) -
              options_.error_cm;
        }
        quantise(a, e);
      }
    }
  }

 private:
  void DrawErrors() {
    // U{−e..e} for every beam from 16-bit slices of a SplitMix64 stream, 4 per 64 bits, mapped onto
    // 0..span−1 by multiply-shift (bias < 2^-13 for e = 2): platform-independent, and one pass of 90
    // draws instead of a std distribution per beam.
    const auto span = static_cast<uint32_t>(2 * options_.error_cm + 1);
    for (int a = 0; a < kBeams; a += 4) {
      rng_state_ += 0x9e3779b97f4a7c15ULL;
      uint64_t bits = sim::SplitMix64(rng_state_);
      for (int k = 0; k < 4; ++k, bits >>= 16) {
        errors_[a + k] = static_cast<int8_t>(static_cast<int>(((bits & 0xffffu) * span) >> 16) - options_.error_cm);
      }
    }
  }

  const World& world_;
  LaserOptions options_;
  uint64_t rng_state_;
  std::array<int8_t, kBeams> errors_{};
  std::array<int16_t, kBeams> hit_{};
};

}  // namespace limbic::laser::reference
