#include "services/laser_sim/laser_scanner.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "sim/random.hpp"

namespace limbic::laser {
namespace {

// |1/u(a)| per beam (huge where a component vanishes), so the walls cost multiplications only.
struct InverseBeams {
  std::array<double, kBeams> ix{}, iy{};
  InverseBeams() {
    const auto& u = BeamUnitVectors();
    for (int a = 0; a < kBeams; ++a) {
      ix[a] = 1.0 / std::max(std::fabs(u[a].x), 1e-300);
      iy[a] = 1.0 / std::max(std::fabs(u[a].y), 1e-300);
    }
  }
};

// Distances from p (inside the box) to the room's walls along every beam, capped at the laser's range.
// Beams of one compass quadrant meet the same two walls, so each quadrant is one branch-free loop.
void WallRanges(Vec2 p, double width, double height, ExactScan* out) {
  static const InverseBeams inv;
  const double east = width - p.x, west = p.x, north = height - p.y, south = p.y;
  auto quadrant = [&](int first, double x_wall, double y_wall) {
    for (int a = first; a < first + 90; ++a) {
      (*out)[a] = static_cast<float>(std::min({kMaxRangeCm, x_wall * inv.ix[a], y_wall * inv.iy[a]}));
    }
  };
  quadrant(0, east, north);    // 0..89°: north-east
  quadrant(90, east, south);   // 90..179°: south-east
  quadrant(180, west, south);  // 180..269°: south-west
  quadrant(270, west, north);  // 270..359°: north-west
}

}  // namespace

LaserErrorModel ParseLaserErrorModel(const std::string& name) {
  if (name == "none") return LaserErrorModel::kNone;
  if (name == "uniform") return LaserErrorModel::kUniform;
  if (name == "thesis_approx") return LaserErrorModel::kThesisApprox;
  throw std::invalid_argument("laser error model must be none|uniform|thesis_approx, got '" + name + "'");
}

const char* LaserErrorModelName(LaserErrorModel model) {
  switch (model) {
    case LaserErrorModel::kNone:
      return "none";
    case LaserErrorModel::kUniform:
      return "uniform";
    case LaserErrorModel::kThesisApprox:
      return "thesis_approx";
  }
  return "?";
}

void CastExact(const World& world, Vec2 p, ExactScan* ranges, std::array<int16_t, kBeams>* hit) {
  const auto& u = BeamUnitVectors();
  const bool outside = !(p.x > 0.0 && p.y > 0.0 && p.x < world.width && p.y < world.height);  // NaN: outside
  if (outside) {
    ranges->fill(0.0f);
    if (hit) hit->fill(kWall);
    return;
  }
  if (world.surroundings) {
    std::array<bool, kBeams> met{};
    world.surroundings->Cast(p, ranges, &met);
    if (hit) {
      for (int a = 0; a < kBeams; ++a) (*hit)[a] = met[a] ? kWall : kNothing;
    }
    return;
  }
  WallRanges(p, world.width, world.height, ranges);
  if (hit) {
    for (int a = 0; a < kBeams; ++a) (*hit)[a] = (*ranges)[a] < kMaxRangeCm ? kWall : kNothing;
  }
  for (size_t i = 0; i < world.obstacles.size(); ++i) {
    const Circle& c = world.obstacles[i];
    const Vec2 d{c.cx - p.x, c.cy - p.y};
    const double dist2 = d.x * d.x + d.y * d.y;
    const double r2 = c.r * c.r;
    if (dist2 <= r2) {  // the robot centre is inside this obstacle: every beam reads 0
      ranges->fill(0.0f);
      if (hit) hit->fill(static_cast<int16_t>(i));
      return;
    }
    const double reach = kMaxRangeCm + c.r;
    if (dist2 >= reach * reach) continue;  // out of range: no square root, no trigonometry
    const double dist = std::sqrt(dist2);
    // Eq. 3-1: the beams inside the visible half-angle asin(r/D) around the centre bearing.
    const double half = std::asin(c.r / dist) * kRadToDeg;
    const double centre = BearingOf(d);
    const int first = static_cast<int>(std::ceil(centre - half));
    const int last = static_cast<int>(std::floor(centre + half));
    // Beams first … last (first ≥ −90, last < 450).
    ForEachBeam(first, last, [&](int a) {
      const double b = u[a].x * d.x + u[a].y * d.y;
      const double disc = b * b - (dist2 - r2);
      if (disc < 0.0 || b <= 0.0) return;
      const double l = b - std::sqrt(disc);  // Eq. 3-3, exact
      if (l > 0.0 && l < (*ranges)[a]) {
        (*ranges)[a] = static_cast<float>(l);
        if (hit) (*hit)[a] = static_cast<int16_t>(i);
      }
    });
  }
}

LaserScanner::LaserScanner(const World& world, const LaserOptions& options, uint64_t seed)
    : world_(world), options_(options), rng_state_(seed) {
  if (options.error_cm < 0 || options.error_cm > 10) {
    throw std::invalid_argument("laser: error_cm must be 0..10 (the thesis: ±2 cm)");
  }
  if (options.cache) {
    if (options.error_model == LaserErrorModel::kThesisApprox) {
      throw std::invalid_argument("laser: the scan cache holds noise-free scans; use error model none or uniform");
    }
    if (options.shared_cache) {
      if (&options.shared_cache->world() != &world)
        throw std::invalid_argument("laser: a shared cache of another world");
      return;  // no cache of its own
    }
    cache_n_ = static_cast<int>(std::ceil(std::max(world.width, world.height) / cache_cell_));
    cache_.assign(static_cast<size_t>(cache_n_) * cache_n_ * kBeams, 0);
    cache_filled_.assign(static_cast<size_t>(cache_n_) * cache_n_, 0);
  }
}

SharedScanCache::SharedScanCache(const World& world, double cell_cm) : world_(world), cell_(cell_cm) {
  if (!(cell_cm > 0.0)) throw std::invalid_argument("laser: the cache cell must be > 0 cm");
  n_ = static_cast<int>(std::ceil(std::max(world.width, world.height) / cell_));
  const size_t cells = static_cast<size_t>(n_) * static_cast<size_t>(n_);
  bytes_.reset(new uint8_t[cells * kBeams]);  // not zero-filled: a cell is read only once ready
  state_.reset(new std::atomic<uint8_t>[cells]);
  for (size_t c = 0; c < cells; ++c) state_[c].store(0, std::memory_order_relaxed);
}

const uint8_t* SharedScanCache::Lookup(Vec2 p, std::array<uint8_t, kBeams>* scratch) {
  const int i = std::min(n_ - 1, static_cast<int>(p.x / cell_));
  const int j = std::min(n_ - 1, static_cast<int>(p.y / cell_));
  const size_t cell = static_cast<size_t>(j) * n_ + i;
  uint8_t* bytes = &bytes_[cell * kBeams];
  if (state_[cell].load(std::memory_order_acquire) == 2) return bytes;
  ExactScan exact;
  CastExact(world_, {cell_ * (i + 0.5), cell_ * (j + 0.5)}, &exact, nullptr);
  uint8_t expected = 0;
  if (state_[cell].compare_exchange_strong(expected, 1, std::memory_order_acquire)) {
    for (int a = 0; a < kBeams; ++a) bytes[a] = static_cast<uint8_t>(std::lround(exact[a]));
    state_[cell].store(2, std::memory_order_release);
    filled_.fetch_add(1, std::memory_order_relaxed);
    return bytes;
  }
  for (int a = 0; a < kBeams; ++a) (*scratch)[a] = static_cast<uint8_t>(std::lround(exact[a]));
  return scratch->data();
}

void LaserScanner::DrawErrors() {
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

void LaserScanner::Scan(Vec2 p, RangeScan* out, ExactScan* exact) {
  const bool use_error = options_.error_model != LaserErrorModel::kNone && options_.error_cm > 0;
  if (use_error && options_.error_model == LaserErrorModel::kUniform) DrawErrors();
  if (options_.cache && p.x > 0.0 && p.y > 0.0 && p.x < world_.width && p.y < world_.height) {
    const uint8_t* bytes = nullptr;
    if (options_.shared_cache) {
      bytes = options_.shared_cache->Lookup(p, &scratch_);
    } else {
      const int i = std::min(cache_n_ - 1, static_cast<int>(p.x / cache_cell_));
      const int j = std::min(cache_n_ - 1, static_cast<int>(p.y / cache_cell_));
      const size_t cell = static_cast<size_t>(j) * cache_n_ + i;
      uint8_t* own = &cache_[cell * kBeams];
      if (!cache_filled_[cell]) {
        ++cache_misses_;
        CastExact(world_, {cache_cell_ * (i + 0.5), cache_cell_ * (j + 0.5)}, &exact_, nullptr);
        for (int a = 0; a < kBeams; ++a) own[a] = static_cast<uint8_t>(std::lround(exact_[a]));
        cache_filled_[cell] = 1;
      } else {
        ++cache_hits_;
      }
      bytes = own;
    }
    for (int a = 0; a < kBeams; ++a) {
      int v = bytes[a];
      if (use_error && v < kMaxRangeCm) v = std::clamp(v + errors_[a], 0, static_cast<int>(kMaxRangeCm));
      (*out)[a] = static_cast<uint8_t>(v);
      if (exact) (*exact)[a] = static_cast<float>(bytes[a]);
    }
    return;
  }
  // Straight into the caller's buffer when it wants the exact ranges (no copy of 360 floats per scan).
  ExactScan& ranges = exact ? *exact : exact_;
  CastExact(world_, p, &ranges, &hit_);
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

}  // namespace limbic::laser
