// The simulated 360° laser range-finder (spec reactive-topological §1.5): one beam per compass degree
// from the robot centre, ranges in whole centimetres up to 250 (250 = no return), ±2 cm error.
//
// Geometry (§1.5.2, thesis Eq. 3-1…3-3): an obstacle of radius r whose centre is D from the robot shows
// the visible half-angle φ_max = asin(r/D) (Eq. 3-1's bearing offset at the tangent points), and a beam
// at offset φ meets its surface at l(φ) = D cos φ − sqrt(r² − D² sin² φ) — Eq. 3-3's
// l = sqrt((d + r − x)² + y²) with y = sqrt(r² − x²) (Eq. 3-2) solved exactly instead of the thesis'
// approximate inversion. So only the beams inside ±φ_max of each obstacle within range are tested, as
// the thesis did by extracting each obstacle's "visible curvature" (Fig. 3-3); the walls are the
// inside of the room's box.
//
// Inputs: World, robot centre (cm), LaserOptions (error model, cache), a seed for the error draws.
// Outputs: RangeScan (uint8 cm, index = bearing), and the exact float ranges (ground truth).
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "services/laser_sim/laser_types.hpp"
#include "services/laser_sim/laser_world.hpp"

namespace limbic::laser {

// §1.5.3: "uniform" e ~ U{−e_max..e_max} per beam per scan (default); "none" e = 0; "thesis_approx" a
// fixed bias in [−e_max, e_max] per (obstacle, beam) that mimics the thesis' approximate inversion.
enum class LaserErrorModel { kNone, kUniform, kThesisApprox };
LaserErrorModel ParseLaserErrorModel(const std::string& name);  // throws std::invalid_argument
const char* LaserErrorModelName(LaserErrorModel model);

class SharedScanCache;

struct LaserOptions {
  LaserErrorModel error_model = LaserErrorModel::kUniform;
  int error_cm = 2;    // ±2 cm: "only accurate to seven bits" [T]
  bool cache = false;  // §1.5.4: lazily filled 3 cm grid of noise-free scans (uniform and none only)
  // With `cache`: a cache shared by every scanner of the same world (not owned; must outlive them), so
  // many episodes in one world (an evolution generation) fill it once. The bytes are those of the
  // scanner's own cache, so the scans are the same.
  SharedScanCache* shared_cache = nullptr;
};

using ExactScan = std::array<float, kBeams>;

// What a beam hit: an obstacle index >= 0, a wall (kWall; any surface of a world's surroundings), or
// nothing within range (kNothing).
inline constexpr int16_t kWall = -1;
inline constexpr int16_t kNothing = -2;

// Exact ranges from p (cm, world frame) for the 360 beams, capped at 250; `hit` (optional) says what
// each beam hit. A robot centre inside an obstacle or outside the room reads 0 everywhere.
void CastExact(const World& world, Vec2 p, ExactScan* ranges, std::array<int16_t, kBeams>* hit = nullptr);

// Whether this build's cast and scan run their SSE2 paths (x86-64) or the portable scalar ones (other targets, or
// LIMBIC_LASER_SCALAR defined): the same bits either way.
bool LaserCastUsesSse2();

// The cast's rough angles (degrees), declared for their tests: atan(t) for t in [0, 1], the bearing of d ≠ 0
// in [0, 360], and asin(r / D) from r and c0 = D² − r² > 0 — each within 0.09° of the exact value.
double RoughAtanDeg(double t);
double RoughBearingDeg(Vec2 d);
double RoughHalfAngleDeg(double r, double c0);

// The §1.5.4 cache of one world for many scanners on many threads: 360 noise-free bytes per 3 cm cell
// (at the cell centre), each cell cast by the first thread that needs it. A thread that finds a cell
// being filled by another casts into its own buffer instead of waiting; the bytes depend only on the
// world and the cell, so every thread sees the same.
class SharedScanCache {
 public:
  explicit SharedScanCache(const World& world, double cell_cm = 3.0);
  const World& world() const { return world_; }
  // The bytes of p's cell (p inside the room), in `scratch` or in the cache.
  const uint8_t* Lookup(Vec2 p, std::array<uint8_t, kBeams>* scratch);
  int64_t filled_cells() const { return filled_.load(std::memory_order_relaxed); }

 private:
  const World& world_;
  double cell_;
  int n_ = 0;
  std::unique_ptr<uint8_t[]> bytes_;               // n × n × 360, written once per cell
  std::unique_ptr<std::atomic<uint8_t>[]> state_;  // 0 empty, 1 being filled, 2 ready
  std::atomic<int64_t> filled_{0};
};

class LaserScanner {
 public:
  // Throws std::invalid_argument for error_cm outside 0..10 or a cache with thesis_approx errors.
  LaserScanner(const World& world, const LaserOptions& options, uint64_t seed);

  // One scan from p: quantised bytes (§1.5.3: clamp(round(l + e), 0, 250); no return reads 250) and,
  // if `exact` is given, the exact ranges (with the cache: the ranges at the cell centre).
  void Scan(Vec2 p, RangeScan* out, ExactScan* exact = nullptr);

  const LaserOptions& options() const { return options_; }
  int64_t cache_hits() const { return cache_hits_; }
  int64_t cache_misses() const { return cache_misses_; }

 private:
  void DrawErrors();  // errors_ for every beam of this scan (uniform model)

  const World& world_;
  LaserOptions options_;
  uint64_t rng_state_;
  std::array<int8_t, kBeams> errors_{};
  std::array<int16_t, kBeams> hit_{};
  ExactScan exact_{};
  // Cache: cells × 360 noise-free bytes, with a filled flag per cell (§1.5.4, 220 × 220 × 360 B).
  int cache_n_ = 0;
  double cache_cell_ = 3.0;
  std::vector<uint8_t> cache_;
  std::vector<uint8_t> cache_filled_;
  std::array<uint8_t, kBeams> scratch_{};  // a shared cache's cell being filled by another thread
  int64_t cache_hits_ = 0, cache_misses_ = 0;
};

}  // namespace limbic::laser
