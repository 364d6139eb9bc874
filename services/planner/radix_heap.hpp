// A monotone priority queue for non-negative double keys (the open list of A* with a consistent heuristic).
#pragma once

#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace limbic::planner {

// Radix heap (Ahuja, Mehlhorn, Orlin & Tarjan 1990) over the IEEE-754 bits of non-negative doubles, whose
// unsigned-integer order equals their numeric order. Pushes are O(1) appends; a pop redistributes one
// bucket. It needs monotone keys (never below the last popped key), which A* with a consistent heuristic
// guarantees up to rounding: a key that rounding puts below the last popped one is raised to it (a shift of
// a few ulps, far below any cost difference that matters). Buffers keep their capacity across Clear().
class MonotoneRadixHeap {
 public:
  struct Entry {
    double key;
    int32_t value;
    uint32_t aux = 0;  // a second payload word (A* keeps the cell's row here), stored in the item's padding
  };

  // Memory hint for callers whose value indexes an array they read at pop time (A*: the popped cell and its
  // neighbours). When a pop redistributes a bucket of at most kPrefetchMax entries (they are the next pops,
  // bar later pushes below them), the bytes at base + value·stride + o for each o in offsets are prefetched.
  // Only speed depends on it. base = nullptr (the default) turns it off.
  static constexpr size_t kPrefetchMax = 32;
  void SetPrefetch(const void* base, size_t stride, std::array<ptrdiff_t, 6> offsets) {
    prefetch_base_ = static_cast<const char*>(base);
    prefetch_stride_ = stride;
    prefetch_offsets_ = offsets;
  }

  bool empty() const { return size_ == 0; }
  size_t size() const { return size_; }

  void Clear() {
    for (auto& b : buckets_) b.clear();
    occupied_ = 0;
    last_ = 0;
    size_ = 0;
  }

  void Push(double key, int32_t value, uint32_t aux = 0) {
    uint64_t bits = key > 0.0 ? std::bit_cast<uint64_t>(key) : 0;
    if (bits < last_) bits = last_;
    Insert({bits, value, aux});
    ++size_;
  }

  // Precondition: !empty().
  Entry Pop() {
    std::vector<Item>& zero = buckets_[0];
    if (zero.empty()) {
      // Lowest non-empty bucket from the occupancy mask (bucket 0 is empty, so its bit is clear).
      const size_t i = static_cast<size_t>(std::countr_zero(occupied_));
      std::vector<Item>& from = buckets_[i];
      uint64_t min = from.front().bits;
      for (const Item& e : from) min = e.bits < min ? e.bits : min;
      last_ = min;
      occupied_ &= ~(uint64_t{1} << i);
      for (const Item& e : from) Insert(e);  // each lands in a bucket below i
      if (prefetch_base_ != nullptr && from.size() <= kPrefetchMax) {
        for (const Item& e : from) {
          const char* p = prefetch_base_ + static_cast<ptrdiff_t>(e.value) * static_cast<ptrdiff_t>(prefetch_stride_);
          for (ptrdiff_t o : prefetch_offsets_) __builtin_prefetch(p + o);
        }
      }
      from.clear();
    }
    const Item e = zero.back();
    zero.pop_back();
    if (zero.empty()) occupied_ &= ~uint64_t{1};
    --size_;
    return {std::bit_cast<double>(e.bits), e.value, e.aux};
  }

 private:
  struct Item {
    uint64_t bits;
    int32_t value;
    uint32_t aux;
  };
  // Bucket = position of the highest bit where the key differs from the last popped key (0: equal). Keys of
  // non-negative doubles have bit 63 clear, so the bucket is at most 63 and fits the 64-bit occupancy mask.
  [[gnu::always_inline]] void Insert(const Item& e) {
    const size_t b = static_cast<size_t>(std::bit_width(e.bits ^ last_));
    buckets_[b].push_back(e);
    occupied_ |= uint64_t{1} << b;
  }

  std::array<std::vector<Item>, 64> buckets_;
  uint64_t occupied_ = 0;  // bit b set: bucket b is non-empty
  const char* prefetch_base_ = nullptr;
  size_t prefetch_stride_ = 0;
  std::array<ptrdiff_t, 6> prefetch_offsets_{};
  uint64_t last_ = 0;  // the last popped key
  size_t size_ = 0;
};

}  // namespace limbic::planner
