#include "services/laser_sim/laser_scanner.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "sim/random.hpp"

namespace limbic::laser {
namespace {

// Distance along u from p (inside the box) to the box's boundary.
double WallRange(Vec2 p, Vec2 u, double width, double height) {
  double t = kMaxRangeCm;
  if (u.x > 1e-12) t = std::min(t, (width - p.x) / u.x);
  if (u.x < -1e-12) t = std::min(t, -p.x / u.x);
  if (u.y > 1e-12) t = std::min(t, (height - p.y) / u.y);
  if (u.y < -1e-12) t = std::min(t, -p.y / u.y);
  return t;
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
  for (int a = 0; a < kBeams; ++a) {
    const double w = outside ? 0.0 : WallRange(p, u[a], world.width, world.height);
    (*ranges)[a] = static_cast<float>(w);
    if (hit) (*hit)[a] = outside || w < kMaxRangeCm ? kWall : kNothing;
  }
  if (outside) return;
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
    const double dist = std::sqrt(dist2);
    if (dist - c.r >= kMaxRangeCm) continue;
    // Eq. 3-1: the beams inside the visible half-angle asin(r/D) around the centre bearing.
    const double half = std::asin(c.r / dist) * kRadToDeg;
    const double centre = BearingOf(d);
    const int first = static_cast<int>(std::ceil(centre - half));
    const int last = static_cast<int>(std::floor(centre + half));
    for (int k = first; k <= last; ++k) {
      const int a = ((k % kBeams) + kBeams) % kBeams;
      const double b = u[a].x * d.x + u[a].y * d.y;
      const double disc = b * b - (dist2 - r2);
      if (disc < 0.0 || b <= 0.0) continue;
      const double l = b - std::sqrt(disc);  // Eq. 3-3, exact
      if (l > 0.0 && l < (*ranges)[a]) {
        (*ranges)[a] = static_cast<float>(l);
        if (hit) (*hit)[a] = static_cast<int16_t>(i);
      }
    }
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
    cache_n_ = static_cast<int>(std::ceil(std::max(world.width, world.height) / cache_cell_));
    cache_.assign(static_cast<size_t>(cache_n_) * cache_n_ * kBeams, 0);
    cache_filled_.assign(static_cast<size_t>(cache_n_) * cache_n_, 0);
  }
}

int LaserScanner::NextError() {
  // U{−e..e} from 16-bit slices of a SplitMix64 stream: 4 draws per 64 bits (bias < 2^-12 for e = 2),
  // platform-independent and far cheaper than a std distribution per beam.
  if (error_bits_left_ == 0) {
    rng_state_ += 0x9e3779b97f4a7c15ULL;
    error_bits_ = sim::SplitMix64(rng_state_);
    error_bits_left_ = 4;
  }
  const auto slice = static_cast<uint32_t>(error_bits_ & 0xffffu);
  error_bits_ >>= 16;
  --error_bits_left_;
  const int span = 2 * options_.error_cm + 1;
  return static_cast<int>(slice % static_cast<uint32_t>(span)) - options_.error_cm;
}

void LaserScanner::Scan(Vec2 p, RangeScan* out, ExactScan* exact) {
  const bool use_error = options_.error_model != LaserErrorModel::kNone && options_.error_cm > 0;
  if (options_.cache && p.x > 0.0 && p.y > 0.0 && p.x < world_.width && p.y < world_.height) {
    const int i = std::min(cache_n_ - 1, static_cast<int>(p.x / cache_cell_));
    const int j = std::min(cache_n_ - 1, static_cast<int>(p.y / cache_cell_));
    const size_t cell = static_cast<size_t>(j) * cache_n_ + i;
    uint8_t* bytes = &cache_[cell * kBeams];
    if (!cache_filled_[cell]) {
      ++cache_misses_;
      CastExact(world_, {cache_cell_ * (i + 0.5), cache_cell_ * (j + 0.5)}, &exact_, nullptr);
      for (int a = 0; a < kBeams; ++a) bytes[a] = static_cast<uint8_t>(std::lround(exact_[a]));
      cache_filled_[cell] = 1;
    } else {
      ++cache_hits_;
    }
    for (int a = 0; a < kBeams; ++a) {
      int v = bytes[a];
      if (use_error && v < kMaxRangeCm) v = std::clamp(v + NextError(), 0, static_cast<int>(kMaxRangeCm));
      (*out)[a] = static_cast<uint8_t>(v);
      if (exact) (*exact)[a] = static_cast<float>(bytes[a]);
    }
    return;
  }
  CastExact(world_, p, &exact_, &hit_);
  for (int a = 0; a < kBeams; ++a) {
    const double l = exact_[a];
    int e = 0;
    if (use_error && hit_[a] != kNothing) {
      if (options_.error_model == LaserErrorModel::kUniform) {
        e = NextError();
      } else {  // thesis_approx: a fixed bias per (obstacle, beam)
        const uint64_t key = (static_cast<uint64_t>(static_cast<uint16_t>(hit_[a])) << 16) | static_cast<uint64_t>(a);
        e = static_cast<int>(sim::SplitMix64(key) % static_cast<uint64_t>(2 * options_.error_cm + 1)) -
            options_.error_cm;
      }
    }
    // A beam that hits nothing reads 250 exactly (§1.5.1); a hit is rounded with its error and clamped.
    const long v = hit_[a] == kNothing ? static_cast<long>(kMaxRangeCm) : std::lround(l + e);
    (*out)[a] = static_cast<uint8_t>(std::clamp(v, 0L, static_cast<long>(kMaxRangeCm)));
  }
  if (exact) *exact = exact_;
}

}  // namespace limbic::laser
