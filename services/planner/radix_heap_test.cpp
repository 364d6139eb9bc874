#include "services/planner/radix_heap.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <vector>

namespace limbic::planner {
namespace {

TEST(MonotoneRadixHeap, PopsInKeyOrderWithMonotonePushes) {
  // Dijkstra-like use: every pushed key is at least the last popped key.
  std::mt19937_64 rng(3);
  std::uniform_real_distribution<double> step(0.0, 5.0);
  MonotoneRadixHeap heap;
  std::vector<double> popped;
  double last = 0.0;
  heap.Push(0.0, 0);
  int next_value = 1;
  while (!heap.empty()) {
    const MonotoneRadixHeap::Entry e = heap.Pop();
    EXPECT_GE(e.key, last);
    last = e.key;
    popped.push_back(e.key);
    const int children = popped.size() < 2500 ? 2 : 0;
    for (int c = 0; c < children; ++c) heap.Push(e.key + step(rng), next_value++);
  }
  EXPECT_TRUE(std::is_sorted(popped.begin(), popped.end()));
  EXPECT_EQ(popped.size(), static_cast<size_t>(next_value));  // every pushed entry came out once
}

TEST(MonotoneRadixHeap, KeepsValuesAndRaisesKeysBelowTheLastPop) {
  MonotoneRadixHeap heap;
  heap.Push(2.5, 7);
  heap.Push(1.25, 9);
  heap.Push(1.25, 4);
  EXPECT_EQ(heap.size(), 3u);
  const auto a = heap.Pop();
  const auto b = heap.Pop();
  EXPECT_EQ(a.key, 1.25);
  EXPECT_EQ(b.key, 1.25);
  EXPECT_EQ(a.value + b.value, 13);
  heap.Push(1.0, 5);  // below the last pop (rounding in A*): served at 1.25
  const auto c = heap.Pop();
  EXPECT_EQ(c.value, 5);
  EXPECT_EQ(c.key, 1.25);
  EXPECT_EQ(heap.Pop().value, 7);
  EXPECT_TRUE(heap.empty());
  heap.Clear();
  heap.Push(0.5, 1);  // after Clear, small keys are fine again
  EXPECT_EQ(heap.Pop().key, 0.5);
}

}  // namespace
}  // namespace limbic::planner
