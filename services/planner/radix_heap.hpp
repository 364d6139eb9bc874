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
  };

  bool empty() const { return size_ == 0; }
  size_t size() const { return size_; }

  void Clear() {
    for (auto& b : buckets_) b.clear();
    last_ = 0;
    size_ = 0;
  }

  void Push(double key, int32_t value) {
    uint64_t bits = key > 0.0 ? std::bit_cast<uint64_t>(key) : 0;
    if (bits < last_) bits = last_;
    buckets_[Bucket(bits)].push_back({bits, value});
    ++size_;
  }

  // Precondition: !empty().
  Entry Pop() {
    if (buckets_[0].empty()) {
      size_t i = 1;
      while (buckets_[i].empty()) ++i;
      uint64_t min = buckets_[i].front().bits;
      for (const Item& e : buckets_[i]) min = e.bits < min ? e.bits : min;
      last_ = min;
      for (const Item& e : buckets_[i]) buckets_[Bucket(e.bits)].push_back(e);
      buckets_[i].clear();
    }
    const Item e = buckets_[0].back();
    buckets_[0].pop_back();
    --size_;
    return {std::bit_cast<double>(e.bits), e.value};
  }

 private:
  struct Item {
    uint64_t bits;
    int32_t value;
  };
  size_t Bucket(uint64_t bits) const { return static_cast<size_t>(std::bit_width(bits ^ last_)); }

  std::array<std::vector<Item>, 65> buckets_;
  uint64_t last_ = 0;
  size_t size_ = 0;
};

}  // namespace limbic::planner
