#include "services/laser_sim/laser_scanner.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <stdexcept>

// The cast's SSE2 paths (x86-64), or the portable scalar ones: every other target, and x86-64 when
// LIMBIC_LASER_SCALAR is defined — laser_scanner_scalar_test builds them so, against the same oracles, so the
// fallback is compiled and tested on this machine too. Both give the same bits.
#if defined(__SSE2__) && !defined(LIMBIC_LASER_SCALAR)
#define LIMBIC_LASER_SSE2 1
#include <emmintrin.h>
#else
#define LIMBIC_LASER_SSE2 0
#endif

#include "sim/random.hpp"

namespace limbic::laser {

bool LaserCastUsesSse2() { return LIMBIC_LASER_SSE2 != 0; }

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

// Distances from p (inside the box) to the room's walls along every beam, capped at the laser's range, and
// what each beam met so far (a wall within range, or nothing). Beams of one compass quadrant meet the same
// two walls, so each quadrant is one branch-free loop.
void WallRanges(Vec2 p, double width, double height, ExactScan* out, std::array<int16_t, kBeams>* hit) {
  static const InverseBeams inv;
  const double east = width - p.x, west = p.x, north = height - p.y, south = p.y;
  float* range_out = out->data();
  int16_t* hit_out = hit->data();
  // Beam a: min(250, x, y) as std::min({250, x, y}) took it (the first of the smallest), as a float; a
  // wall is met when that float is below 250 (249.99999999 reads 250: nothing).
  auto quadrant = [&](int first, double x_wall, double y_wall) {
    int a = first;
#if LIMBIC_LASER_SSE2
    // Four (then two) beams at a time: minpd(a, b) is a < b ? a : b lane by lane, the same choice; the hit
    // is kNothing, or kNothing + 1 = kWall where the float is below 250 (the mask is −1 there).
    const __m128d xw = _mm_set1_pd(x_wall), yw = _mm_set1_pd(y_wall), cap = _mm_set1_pd(kMaxRangeCm);
    const __m128 cap_f = _mm_set1_ps(static_cast<float>(kMaxRangeCm));
    const __m128i nothing = _mm_set1_epi32(kNothing);
    auto pair = [&](int b) {  // beams b, b + 1 as floats in the low half
      const __m128d x = _mm_mul_pd(xw, _mm_loadu_pd(&inv.ix[b])), y = _mm_mul_pd(yw, _mm_loadu_pd(&inv.iy[b]));
      return _mm_cvtpd_ps(_mm_min_pd(y, _mm_min_pd(x, cap)));
    };
    for (; a + 4 <= first + 90; a += 4) {
      const __m128 range = _mm_movelh_ps(pair(a), pair(a + 2));
      _mm_storeu_ps(&range_out[a], range);
      const __m128i met = _mm_sub_epi32(nothing, _mm_castps_si128(_mm_cmplt_ps(range, cap_f)));
      _mm_storel_epi64(reinterpret_cast<__m128i*>(&hit_out[a]), _mm_packs_epi32(met, met));
    }
    for (; a + 2 <= first + 90; a += 2) {
      const __m128 range = pair(a);
      _mm_storel_pi(reinterpret_cast<__m64*>(&range_out[a]), range);
      const __m128i met = _mm_sub_epi32(nothing, _mm_castps_si128(_mm_cmplt_ps(range, cap_f)));
      const int32_t two = _mm_cvtsi128_si32(_mm_packs_epi32(met, met));
      std::memcpy(&hit_out[a], &two, sizeof two);
    }
#endif
    for (; a < first + 90; ++a) {
      const double x = x_wall * inv.ix[a], y = y_wall * inv.iy[a];
      const double m = x < kMaxRangeCm ? x : kMaxRangeCm;
      const float range = static_cast<float>(y < m ? y : m);
      range_out[a] = range;
      hit_out[a] = range < kMaxRangeCm ? kWall : kNothing;
    }
  };
  quadrant(0, east, north);    // 0..89°: north-east
  quadrant(90, east, south);   // 90..179°: south-east
  quadrant(180, west, south);  // 180..269°: south-west
  quadrant(270, west, north);  // 270..359°: north-west
}

}  // namespace

// atan(t) in degrees for t in [0, 1], to within 0.09° (π/4·t with a quadratic correction, at most 0.0015 rad
// off; tested densely).
double RoughAtanDeg(double t) { return (0.25 * kPi + (1.0 - t) * (0.2447 + 0.0663 * t)) * t * kRadToDeg; }

// Bearing of d ≠ 0 in degrees, in [0, 360], to within 0.09°.
double RoughBearingDeg(Vec2 d) {
  const double ax = std::fabs(d.x), ay = std::fabs(d.y);
  const bool steep = ax <= ay;  // within 45° of north or south
  const double atan_t = RoughAtanDeg(steep ? ax / ay : ay / ax);
  const double from_axis = steep ? atan_t : 90.0 - atan_t;  // from north/south towards east/west
  if (d.y >= 0.0) return d.x >= 0.0 ? from_axis : 360.0 - from_axis;
  return d.x >= 0.0 ? 180.0 - from_axis : 180.0 + from_axis;
}

// asin(r / D) = atan(r / sqrt(D² − r²)) in degrees (D² − r² = c0 > 0), to within 0.09°.
double RoughHalfAngleDeg(double r, double c0) {
  const double t = r / std::sqrt(c0);
  return t <= 1.0 ? RoughAtanDeg(t) : 90.0 - RoughAtanDeg(1.0 / t);
}

namespace {

// One circle (centre d from p, radius r, p outside it and the circle within range) into the ranges and
// hits: for every beam a inside the visible half-angle asin(r/D) around the centre bearing (Eq. 3-1), the
// nearer intersection l = b − sqrt(b² − (D² − r²)) with b = u(a)·d (Eq. 3-3, exact) where it is nearer than
// what the beam met so far.
//
// The previous cast (testing/reference_cast.hpp) took the beams ceil(centre − half) … floor(centre + half)
// with centre = atan2 and half = asin, and skipped those with b² < D² − r² or b ≤ 0. Those two tests alone
// are the visible cone (b ≥ sqrt(D² − r²) ⇔ angle to the centre ≤ asin(r/D)). Here centre and half come
// from a rough atan (±0.09° each), so the beams more than 0.3° inside the rough cone are inside the true
// one with b² − (D² − r²) ≥ ~4e-5·D² (far beyond any rounding, and beyond the previous window's ~1e-13°):
// they take the arithmetic alone, two at a time. The few within 0.3° of either rough edge are tested as
// before, and the previous atan2/asin window is worked out only for a beam within 1e-9·D² of the cone's
// edge (where rounding could put it on either side); beams further out are outside the cone by ≥ ~3e-5·D².
// A robot centre within a hair of the surface (D² − r² < 1e-4·D², asin(r/D) ill-conditioned) takes the
// previous path whole. The same beams, the same arithmetic: bit for bit (tested).
class CircleCast {
 public:
  CircleCast(const Circle& c, int16_t index, Vec2 d, double dist2, double r2, ExactScan* ranges,
             std::array<int16_t, kBeams>* hit)
      : c_(c),
        index_(index),
        d_(d),
        dist2_(dist2),
        c0_(dist2 - r2),
        edge_(1e-9 * dist2),
        ranges_(ranges->data()),
        hit_(hit->data()) {}

  void Run() {
    if (c0_ < 1e-4 * dist2_) {  // the robot centre within a hair of the surface: the previous window
      Window();
      ForEachBeam(first_, last_, [&](int a) { Visit(a); });
      return;
    }
    constexpr double kMargin = 0.3;  // > the rough centre's and half-angle's errors together
    const double centre = RoughBearingDeg(d_), half = RoughHalfAngleDeg(c_.r, c0_);  // [0, 360], [0, 90)
    // Whole degrees by truncation from above −1024 (no libm call): these bounds are conservative by 0.2° at
    // least, so a rounding of 1e-13° in them changes nothing.
    auto floor_deg = [](double x) { return static_cast<int>(x + 1024.0) - 1024; };
    auto ceil_deg = [](double x) { return 1024 - static_cast<int>(1024.0 - x); };
    const int outer_first = ceil_deg(centre - half - kMargin), outer_last = floor_deg(centre + half + kMargin);
    const int inner_first = ceil_deg(centre - half + kMargin), inner_last = floor_deg(centre + half - kMargin);
    auto visit = [&](int first, int last) {
      if (first <= last) ForEachBeam(first, last, [&](int a) { Visit(a); });
    };
    if (inner_first > inner_last) {
      visit(outer_first, outer_last);
      return;
    }
    visit(outer_first, inner_first - 1);
    visit(inner_last + 1, outer_last);
    ForEachBeamStretch(inner_first, inner_last, [&](int lo, int hi) { Inside(lo, hi); });
  }

 private:
  // Beam a near the cone's edge: nothing outside the cone (b ≤ 0 or disc < 0); inside, the beam is
  // updated if it is the previous window's and the circle is nearer.
  void Visit(int a) {
    const double b = u_[a].x * d_.x + u_[a].y * d_.y;
    const double disc = b * b - c0_;
    if (disc < 0.0 || b <= 0.0) return;
    if (disc <= edge_ && !InWindow(a)) return;
    Update(a, b - std::sqrt(disc));  // Eq. 3-3, exact
  }
  void Update(int a, double l) {
    if (l > 0.0 && l < ranges_[a]) {
      ranges_[a] = static_cast<float>(l);
      hit_[a] = index_;
    }
  }
  // Beams lo … hi well inside the cone (and the previous window): l = b − sqrt(b² − c0) and the update.
  void Inside(int lo, int hi) {
    const Vec2* u = u_;
    int a = lo;
#if LIMBIC_LASER_SSE2
    // Two beams at a time, each lane the scalar arithmetic in the same order; the floats and hits are
    // blended where l > 0 and l < the range so far (the same test on the same doubles).
    const __m128d dx = _mm_set1_pd(d_.x), dy = _mm_set1_pd(d_.y), c0 = _mm_set1_pd(c0_), zero = _mm_setzero_pd();
    const __m128i index = _mm_set1_epi16(index_);
    for (; a + 1 <= hi; a += 2) {
      const __m128d u0 = _mm_loadu_pd(&u[a].x), u1 = _mm_loadu_pd(&u[a + 1].x);
      const __m128d b = _mm_add_pd(_mm_mul_pd(_mm_unpacklo_pd(u0, u1), dx), _mm_mul_pd(_mm_unpackhi_pd(u0, u1), dy));
      const __m128d l = _mm_sub_pd(b, _mm_sqrt_pd(_mm_sub_pd(_mm_mul_pd(b, b), c0)));
      const __m128i so_far = _mm_loadl_epi64(reinterpret_cast<const __m128i*>(&ranges_[a]));  // 2 floats
      const __m128d nearer = _mm_and_pd(_mm_cmpgt_pd(l, zero), _mm_cmplt_pd(l, _mm_cvtps_pd(_mm_castsi128_ps(so_far))));
      if (_mm_movemask_pd(nearer) == 0) continue;
      const __m128i lanes = _mm_shuffle_epi32(_mm_castpd_si128(nearer), _MM_SHUFFLE(3, 3, 2, 0));  // 32-bit masks
      const __m128i ranges =
          _mm_or_si128(_mm_and_si128(lanes, _mm_castps_si128(_mm_cvtpd_ps(l))), _mm_andnot_si128(lanes, so_far));
      _mm_storel_epi64(reinterpret_cast<__m128i*>(&ranges_[a]), ranges);
      int32_t hits;
      std::memcpy(&hits, &hit_[a], sizeof hits);
      const __m128i lanes16 = _mm_packs_epi32(lanes, lanes);  // 16-bit masks
      hits = _mm_cvtsi128_si32(
          _mm_or_si128(_mm_and_si128(lanes16, index), _mm_andnot_si128(lanes16, _mm_cvtsi32_si128(hits))));
      std::memcpy(&hit_[a], &hits, sizeof hits);
    }
#endif
    for (; a <= hi; ++a) {
      const double b = u[a].x * d_.x + u[a].y * d_.y;
      Update(a, b - std::sqrt(b * b - c0_));
    }
  }
  // The previous cast's beams first … last (modulo 360).
  [[gnu::noinline]] void Window() {
    const double dist = std::sqrt(dist2_);
    const double half = std::asin(c_.r / dist) * kRadToDeg;
    const double centre = BearingOf(d_);
    first_ = static_cast<int>(std::ceil(centre - half));
    last_ = static_cast<int>(std::floor(centre + half));
    have_window_ = true;
  }
  [[gnu::noinline]] bool InWindow(int a) {
    if (!have_window_) Window();
    for (int k : {a - kBeams, a, a + kBeams}) {
      if (k >= first_ && k <= last_) return true;
    }
    return false;
  }

  const Vec2* const u_ = BeamUnitVectors().data();
  const Circle& c_;
  const int16_t index_;
  const Vec2 d_;
  const double dist2_, c0_, edge_;
  float* const ranges_;
  int16_t* const hit_;
  int first_ = 0, last_ = -1;
  bool have_window_ = false;
};

static_assert(kWall == kNothing + 1 && kBeams % 4 == 0);

inline uint8_t QuantiseBeam(float l, bool nothing, int e) {
  const int v = static_cast<int>(static_cast<double>(l) + 0.5) + e;
  return static_cast<uint8_t>(nothing ? static_cast<int>(kMaxRangeCm)
                                      : std::clamp(v, 0, static_cast<int>(kMaxRangeCm)));
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
  std::array<int16_t, kBeams> scratch;
  if (!hit) hit = &scratch;
  WallRanges(p, world.width, world.height, ranges, hit);
  for (size_t i = 0; i < world.obstacles.size(); ++i) {
    const Circle& c = world.obstacles[i];
    const Vec2 d{c.cx - p.x, c.cy - p.y};
    const double dist2 = d.x * d.x + d.y * d.y;
    const double r2 = c.r * c.r;
    if (dist2 <= r2) {  // the robot centre is inside this obstacle: every beam reads 0
      ranges->fill(0.0f);
      hit->fill(static_cast<int16_t>(i));
      return;
    }
    const double reach = kMaxRangeCm + c.r;
    if (dist2 >= reach * reach) continue;  // out of range: no square root, no trigonometry
    CircleCast(c, static_cast<int16_t>(i), d, dist2, r2, ranges, hit).Run();
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
  if (options_.cache && p.x > 0.0 && p.y > 0.0 && p.x < world_.width && p.y < world_.height) {
    if (use_error && options_.error_model == LaserErrorModel::kUniform) DrawErrors();
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
  if (!use_error) {
    for (int a = 0; a < kBeams; ++a) (*out)[a] = QuantiseBeam(ranges[a], hit_[a] == kNothing, 0);
  } else if (options_.error_model == LaserErrorModel::kUniform) {
    // The draws of DrawErrors (the same SplitMix64 stream, 4 beams per 64 bits), each used at once.
    const auto span = static_cast<uint32_t>(2 * options_.error_cm + 1);
#if LIMBIC_LASER_SSE2
    // Four beams per draw: the error of lane k is the high half of slice k × span (pmulhuw), minus e_max;
    // the rest is QuantiseBeam's arithmetic lane by lane (the byte clamps in 16 bits: −10 … 260).
    const __m128i span16 = _mm_set1_epi16(static_cast<int16_t>(span));
    const __m128i e_max = _mm_set1_epi16(static_cast<int16_t>(options_.error_cm));
    const __m128i zero = _mm_setzero_si128(), cap = _mm_set1_epi16(static_cast<int16_t>(kMaxRangeCm));
    const __m128i nothing = _mm_set1_epi16(kNothing);
    const __m128d half = _mm_set1_pd(0.5);
    for (int a = 0; a < kBeams; a += 4) {
      rng_state_ += 0x9e3779b97f4a7c15ULL;
      const uint64_t bits = sim::SplitMix64(rng_state_);
      const __m128i e = _mm_sub_epi16(_mm_mulhi_epu16(_mm_set_epi64x(0, static_cast<int64_t>(bits)), span16), e_max);
      const __m128 l = _mm_loadu_ps(&ranges[a]);
      const __m128i q01 = _mm_cvttpd_epi32(_mm_add_pd(_mm_cvtps_pd(l), half));  // trunc(l + 0.5), beams a, a+1
      const __m128i q23 = _mm_cvttpd_epi32(_mm_add_pd(_mm_cvtps_pd(_mm_movehl_ps(l, l)), half));
      const __m128i q = _mm_packs_epi32(_mm_unpacklo_epi64(q01, q23), zero);  // 4 × int16: 0 … 250
      const __m128i v = _mm_min_epi16(_mm_max_epi16(_mm_add_epi16(q, e), zero), cap);
      const __m128i none = _mm_cmpeq_epi16(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(&hit_[a])), nothing);
      const __m128i byte = _mm_or_si128(_mm_and_si128(none, cap), _mm_andnot_si128(none, v));
      const int32_t four = _mm_cvtsi128_si32(_mm_packus_epi16(byte, byte));
      std::memcpy(&(*out)[a], &four, sizeof four);
    }
#else
    for (int a = 0; a < kBeams; a += 4) {
      rng_state_ += 0x9e3779b97f4a7c15ULL;
      uint64_t bits = sim::SplitMix64(rng_state_);
      for (int k = 0; k < 4; ++k, bits >>= 16) {
        const int e = static_cast<int>(((bits & 0xffffu) * span) >> 16) - options_.error_cm;
        (*out)[a + k] = QuantiseBeam(ranges[a + k], hit_[a + k] == kNothing, e);
      }
    }
#endif
  } else {  // thesis_approx: a fixed bias per (obstacle, beam)
    for (int a = 0; a < kBeams; ++a) {
      int e = 0;
      if (hit_[a] != kNothing) {
        const uint64_t key = (static_cast<uint64_t>(static_cast<uint16_t>(hit_[a])) << 16) | static_cast<uint64_t>(a);
        e = static_cast<int>(sim::SplitMix64(key) % static_cast<uint64_t>(2 * options_.error_cm + 1)) -
            options_.error_cm;
      }
      (*out)[a] = QuantiseBeam(ranges[a], hit_[a] == kNothing, e);
    }
  }
}

}  // namespace limbic::laser
