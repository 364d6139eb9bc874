#include "services/hwio/median_filter.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cstdint>
#include <random>
#include <stdexcept>
#include <vector>

namespace limbic::hwio {
namespace {

RangeScan OneBeam(double range, bool valid, double d_max = 3.0) {
  RangeScan scan;
  RangeBeam beam;
  beam.d_max = d_max;
  beam.range = range;
  beam.valid = valid;
  scan.beams.push_back(beam);
  return scan;
}

// Median of the last 5 samples; an invalid sample counts as d_max = 3 (§2.5).
TEST(MedianFilterTest, MedianOfLastFiveWithInvalidAsMaxRange) {
  MedianFilter filter;
  struct Step {
    double range;
    bool valid;
    double expected;
  };
  // Hand-computed: window contents sorted → middle element (mean of the two middle ones while warming up).
  const Step steps[] = {
      {1.0, true, 1.0},   // [1]
      {2.0, true, 1.5},   // [1 2] → (1+2)/2
      {0.5, true, 1.0},   // [.5 1 2]
      {9.9, false, 1.5},  // [.5 1 2 3] → (1+2)/2
      {1.9, true, 1.9},   // [.5 1 1.9 2 3]
      {0.3, true, 1.9},   // drops 1   → [.3 .5 1.9 2 3]
      {0.4, true, 0.5},   // drops 2   → [.3 .4 .5 1.9 3]
      {0.0, false, 1.9},  // drops .5  → [.3 .4 1.9 3 3]
      {0.0, false, 1.9},  // drops 3   → [.3 .4 1.9 3 3]
      {0.0, false, 3.0},  // drops 1.9 → [.3 .4 3 3 3]
  };
  int k = 0;
  for (const Step& s : steps) {
    const RangeScan out = filter.Filter(OneBeam(s.range, s.valid));
    ASSERT_EQ(out.beams.size(), 1u);
    EXPECT_DOUBLE_EQ(out.beams[0].range, s.expected) << "step " << k;
    EXPECT_EQ(out.beams[0].valid, s.expected < 3.0) << "step " << k;
    ++k;
  }
  EXPECT_EQ(filter.state().scans, 10);
}

TEST(MedianFilterTest, SingleSpikeIsRemovedOnceWindowHoldsEnoughSamples) {
  MedianFilter filter;
  for (int i = 0; i < 3; ++i) filter.Filter(OneBeam(1.0, true));
  const RangeScan out = filter.Filter(OneBeam(0.1, true));  // [1 1 1 .1] → (1+1)/2
  EXPECT_DOUBLE_EQ(out.beams[0].range, 1.0);
}

TEST(MedianFilterTest, BeamsAreIndependentAndLayoutIsKept) {
  MedianFilter filter(MedianFilterOptions{.window = 3});
  RangeScan scan;
  scan.tick = 7;
  scan.stamp = 0.7;
  for (int i = 0; i < 2; ++i) {
    RangeBeam b;
    b.sensor_id = 10 + i;
    b.angle_local = 0.25 * i;
    b.d_max = i == 0 ? 3.0 : 0.75;
    b.valid = true;
    scan.beams.push_back(b);
  }
  const double beam0[] = {2.0, 1.0, 0.5, 0.6};  // window 3: last [1 .5 .6] → .6
  const double beam1[] = {0.2, 0.7, 0.7, 0.1};  // last [.7 .7 .1] → .7
  RangeScan out;
  for (int k = 0; k < 4; ++k) {
    scan.beams[0].range = beam0[k];
    scan.beams[1].range = beam1[k];
    out = filter.Filter(scan);
  }
  EXPECT_DOUBLE_EQ(out.beams[0].range, 0.6);
  EXPECT_DOUBLE_EQ(out.beams[1].range, 0.7);
  EXPECT_TRUE(out.beams[1].valid);  // 0.7 < d_max 0.75
  EXPECT_EQ(out.tick, 7);
  EXPECT_DOUBLE_EQ(out.stamp, 0.7);
  EXPECT_EQ(out.beams[1].sensor_id, 11);
  EXPECT_DOUBLE_EQ(out.beams[1].angle_local, 0.25);
  EXPECT_DOUBLE_EQ(out.beams[1].d_max, 0.75);
}

TEST(MedianFilterTest, ValidReadingAboveMaxRangeIsClampedAndNaNIsInvalid) {
  MedianFilter filter(MedianFilterOptions{.window = 1});
  RangeScan out = filter.Filter(OneBeam(4.2, true));
  EXPECT_DOUBLE_EQ(out.beams[0].range, 3.0);
  EXPECT_FALSE(out.beams[0].valid);
  out = filter.Filter(OneBeam(std::nan(""), true));
  EXPECT_DOUBLE_EQ(out.beams[0].range, 3.0);
  EXPECT_FALSE(out.beams[0].valid);
}

TEST(MedianFilterTest, ChangedBeamCountRestartsHistory) {
  MedianFilter filter;
  filter.Filter(OneBeam(0.5, true));
  filter.Filter(OneBeam(0.5, true));
  RangeScan two = OneBeam(2.0, true);
  two.beams.push_back(two.beams[0]);
  const RangeScan out = filter.Filter(two);
  EXPECT_DOUBLE_EQ(out.beams[0].range, 2.0);  // the old 0.5 samples are gone
  EXPECT_EQ(filter.state().layout_resets, 1);
}

// SortSamples replaced a std::sort per beam (issue 18): it must order every sample set as std::sort does, bit
// for bit — ties, −0 beside +0, and more than 16 samples (where it is std::sort) included.
TEST(MedianFilterTest, SortSamplesOrdersExactlyAsStdSort) {
  std::mt19937_64 rng(18);
  std::uniform_int_distribution<int> pick(0, 5);
  const double values[] = {0.0, -0.0, 0.25, 0.25, 1.5, 3.0};
  std::uniform_real_distribution<double> any(0.0, 3.0);
  for (int trial = 0; trial < 5000; ++trial) {
    const size_t count = 1 + static_cast<size_t>(trial % 20);
    std::vector<double> samples(count);
    for (double& v : samples) v = trial % 2 == 0 ? values[pick(rng)] : any(rng);
    std::vector<double> expected = samples;
    std::sort(expected.begin(), expected.end());
    std::vector<double> got(count, 99.0);
    SortSamples(samples.data(), count, got.data());
    for (size_t k = 0; k < count; ++k) {
      ASSERT_EQ(std::bit_cast<uint64_t>(got[k]), std::bit_cast<uint64_t>(expected[k])) << trial << " " << k;
    }
  }
}

TEST(MedianFilterTest, RejectsWindowBelowOne) {
  EXPECT_THROW(MedianFilter(MedianFilterOptions{.window = 0}), std::invalid_argument);
}

}  // namespace
}  // namespace limbic::hwio
