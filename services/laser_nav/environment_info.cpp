#include "services/laser_nav/environment_info.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace limbic::laser {
namespace {

// The smallest range of beams centre − half … centre + half (centre in 0..359).
int MinRange(const RangeScan& r, int centre, int half) {
  if (half >= kBeams / 2) return *std::min_element(r.begin(), r.end());
  int closest = 255;
  ForEachBeam(centre - half, centre + half, [&](int a) { closest = std::min<int>(closest, r[a]); });
  return closest;
}

}  // namespace

ScanCountResult ScanCountsScalar(const RangeScan& r, int jump, int below) {
  ScanCountResult c;
  int prev = r[kBeams - 1];
  for (int a = 0; a < kBeams; ++a) {
    const int v = r[a];
    c.clutter += v - prev > jump;
    c.density += v < below;
    prev = v;
  }
  return c;
}

ScanCountResult ScanCounts(const RangeScan& r, int jump, int below) {
#if defined(__SSE2__)
  // Beams 1..352 sixteen at a time (each beam and its predecessor, widened to 16 bits: differences span
  // −255..255), the first and the last seven one by one. Thresholds clamped to what 16 bits hold without changing
  // any comparison: a jump below −255 is always exceeded and one of 255 or more never; every byte is below 256.
  const __m128i jump16 = _mm_set1_epi16(static_cast<int16_t>(std::clamp(jump, -256, 255)));
  const __m128i below16 = _mm_set1_epi16(static_cast<int16_t>(std::clamp(below, -1, 256)));
  const __m128i zero = _mm_setzero_si128();
  __m128i clutter = zero, density = zero;  // per lane: minus the count (a true comparison is −1)
  int a = 1;
  for (; a + 16 <= kBeams; a += 16) {
    const __m128i cur = _mm_loadu_si128(reinterpret_cast<const __m128i*>(r.data() + a));
    const __m128i prev = _mm_loadu_si128(reinterpret_cast<const __m128i*>(r.data() + a - 1));
    const __m128i cur_lo = _mm_unpacklo_epi8(cur, zero), cur_hi = _mm_unpackhi_epi8(cur, zero);
    const __m128i diff_lo = _mm_sub_epi16(cur_lo, _mm_unpacklo_epi8(prev, zero));
    const __m128i diff_hi = _mm_sub_epi16(cur_hi, _mm_unpackhi_epi8(prev, zero));
    clutter = _mm_add_epi16(clutter, _mm_cmpgt_epi16(diff_lo, jump16));
    clutter = _mm_add_epi16(clutter, _mm_cmpgt_epi16(diff_hi, jump16));
    density = _mm_add_epi16(density, _mm_cmplt_epi16(cur_lo, below16));
    density = _mm_add_epi16(density, _mm_cmplt_epi16(cur_hi, below16));
  }
  alignas(16) int16_t lanes_c[8], lanes_d[8];
  _mm_store_si128(reinterpret_cast<__m128i*>(lanes_c), clutter);
  _mm_store_si128(reinterpret_cast<__m128i*>(lanes_d), density);
  ScanCountResult c;
  for (int i = 0; i < 8; ++i) {
    c.clutter -= lanes_c[i];
    c.density -= lanes_d[i];
  }
  auto one = [&](int beam, int prev) {
    c.clutter += r[beam] - prev > jump;
    c.density += r[beam] < below;
  };
  one(0, r[kBeams - 1]);
  for (; a < kBeams; ++a) one(a, r[a - 1]);
  return c;
#else
  return ScanCountsScalar(r, jump, below);
#endif
}

EnvironmentTracker::EnvironmentTracker(const EnvironmentOptions& options) : options_(options) {
  if (options_.wander_window_s > 0.0) {
    const auto cycles = std::max<long long>(1, std::llround(options_.wander_window_s / kControlPeriodS));
    window_.resize(static_cast<size_t>(cycles) + 1);
  }
}

void EnvironmentTracker::ResetWander() { reset_pending_ = true; }

const EnvironmentInfo& EnvironmentTracker::Update(const SensorFrame& f) {
  const RangeScan& r = f.ranges;
  const double s = options_.sensing_cm;
  const double d = options_.d_cm;
  EnvironmentInfo& e = info_;
  // Eq. 4-4 and 4-5 (r_0 ≡ r_360: beam 0's predecessor is beam 359).
  // In whole centimetres: Δ > d is Δ > ⌊d⌋ and v < S is v < ⌈S⌉ (clamped to the bytes' range; NaN: never).
  const int jump = std::isnan(d) ? 1000 : static_cast<int>(std::floor(std::clamp(d, -1000.0, 1000.0)));
  const int below = s >= 0.0 ? static_cast<int>(std::ceil(std::min(s, 1000.0))) : 0;
  const ScanCountResult counts = ScanCounts(r, jump, below);
  e.clutter = counts.clutter;
  e.density = counts.density;
  e.density_pct = 100.0 * counts.density / kBeams;
  // Eq. 4-6: f over the 71 beams within ±35° of the heading.
  const int h = static_cast<int>(std::lround(Wrap360(f.odom.heading_deg))) % kBeams;
  e.ofd_cm = MinRange(r, h, options_.proximity_half_fov_deg);
  e.proximity = e.ofd_cm >= s ? -1 : (e.ofd_cm >= d ? 0 : 1);
  // Eq. 4-7: Wander since the case started, from the odometric position.
  const Vec2 p{f.odom.x_cm, f.odom.y_cm};
  if ((reset_pending_ && window_.empty()) || !have_position_) {
    case_start_ = p;
    path_cm_ = 0.0;
    reset_pending_ = false;
  } else {
    path_cm_ += Norm(p - last_position_);
  }
  last_position_ = p;
  have_position_ = true;
  Vec2 reference = case_start_;
  double path = path_cm_;
  if (!window_.empty()) {
    // A19: l and p over the last window (the oldest kept sample is the position one window ago). The
    // case reset does not apply: path_cm_ only grows here.
    window_[window_next_] = {p, path_cm_};
    window_next_ = (window_next_ + 1) % window_.size();
    window_count_ = std::min(window_count_ + 1, window_.size());
    const Sample& oldest = window_[(window_next_ + window_.size() - window_count_) % window_.size()];
    reference = oldest.p;
    path = path_cm_ - oldest.path_cm;
  }
  e.wander = path > 1e-9 ? std::clamp(1.0 - Norm(p - reference) / path, 0.0, 1.0) : 0.0;
  // The goal: bearing and range from the odometric position; the beams within ±3° of its bearing.
  const Vec2 to_goal = f.goal - p;
  e.goal_range_cm = Norm(to_goal);
  e.goal_bearing_deg = BearingOf(to_goal);
  const int g = static_cast<int>(std::lround(e.goal_bearing_deg)) % kBeams;
  const int corridor_min = MinRange(r, g, options_.goal_corridor_deg);
  const bool facing = AngDiff(f.odom.heading_deg, e.goal_bearing_deg) <= options_.facing_tolerance_deg;
  e.clear_to_goal = facing && corridor_min >= std::min(e.goal_range_cm, s);
  e.senses_goal = e.goal_range_cm <= s && corridor_min >= e.goal_range_cm;
  e.goal_nearby = e.goal_range_cm <= s && !e.senses_goal;
  // Nomovement: |v| below the threshold continuously for the period.
  if (std::fabs(f.odom.v_cms) < options_.still_speed_cms) {
    if (!still_) still_since_s_ = f.time_s;
    still_ = true;
  } else {
    still_ = false;
  }
  e.nomovement = still_ && f.time_s - still_since_s_ >= options_.still_time_s - 1e-9;
  return e;
}

}  // namespace limbic::laser
