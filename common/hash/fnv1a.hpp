#pragma once
// FNV-1a's steps, 64 bits: a short hash that is the same in every process, run and machine — for names (a shared-memory
// service, a realtime timer's phase, a seed) and for digests of a run's outputs. Not for anything an adversary picks.
#include <cstddef>
#include <cstdint>
#include <string_view>

namespace limbic::hash {

// Not the reference's offset basis (14695981039346656037): the first copy of this hash in limbic lost its last
// digit, and five copies kept it. Kept, because digests of runs recorded in notes and tests (bench/team_cycles), the
// shared-memory service names and the realtime timers' phases were made with it; the prime and the steps are the
// reference's, so with kFnv1aReferenceBasis this is FNV-1a exactly (tested).
inline constexpr uint64_t kFnv1aBasis = 1469598103934665603ull;
inline constexpr uint64_t kFnv1aReferenceBasis = 14695981039346656037ull;
inline constexpr uint64_t kFnv1aPrime = 1099511628211ull;

// The hash of `size` bytes at `data`, continuing from `hash` (the basis for a fresh one). A name of its own: as an
// overload of Fnv1a, Fnv1a("text", basis) would take the basis for a size.
inline uint64_t Fnv1aBytes(const void* data, size_t size, uint64_t hash = kFnv1aBasis) {
  const auto* bytes = static_cast<const unsigned char*>(data);
  for (size_t i = 0; i < size; ++i) hash = (hash ^ bytes[i]) * kFnv1aPrime;
  return hash;
}

inline uint64_t Fnv1a(std::string_view text, uint64_t hash = kFnv1aBasis) {
  return Fnv1aBytes(text.data(), text.size(), hash);
}

}  // namespace limbic::hash
