// Small seeded helpers shared by the simulator's random components (each component owns its
// generator).
#pragma once

#include <cstdint>
#include <random>

namespace limbic::sim {

// SplitMix64 finaliser: mixes a 64-bit value into a well-spread one (used to derive sub-seeds).
inline uint64_t SplitMix64(uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

// A sub-seed for component `salt` derived from `seed` (stable across runs and platforms).
inline uint64_t DeriveSeed(uint64_t seed, uint64_t salt) { return SplitMix64(seed ^ SplitMix64(salt)); }

// Uniform double on [0, 1) from 53 random bits (platform-independent, unlike std distributions).
inline double Uniform01(std::mt19937_64& rng) { return static_cast<double>(rng() >> 11) * 0x1.0p-53; }

inline double UniformReal(std::mt19937_64& rng, double lo, double hi) { return lo + (hi - lo) * Uniform01(rng); }

// Uniform integer on [lo, hi] (inclusive). The modulo bias is below 2^-50 for the small ranges used
// here.
inline int UniformInt(std::mt19937_64& rng, int lo, int hi) {
  if (hi <= lo) return lo;
  return lo + static_cast<int>(rng() % static_cast<uint64_t>(hi - lo + 1));
}

}  // namespace limbic::sim
