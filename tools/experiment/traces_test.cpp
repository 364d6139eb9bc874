// The failed-traversal record: PathDecimator's bounded thinning and failed_<run_id>.csv round
// trips.
#include "tools/experiment/traces.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>

namespace limbic::experiment {
namespace {

namespace fs = std::filesystem;

TrajectorySample At(double t, double x, double y) { return {t, 1, x, y, 0.0}; }

TEST(PathDecimator, AStandingRobotKeepsItsFirstAndLastPose) {
  PathDecimator path(0.1, 1000);
  for (int i = 0; i < 6000; ++i) path.Add(At(0.1 * i, 2.0, 3.0 + 1e-4 * (i % 3)));  // 600 s pinned, jittering
  const auto kept = path.Take();
  ASSERT_EQ(kept.size(), 2u);
  EXPECT_EQ(kept.front().t, 0.0);
  EXPECT_DOUBLE_EQ(kept.back().t, 599.9);  // where and when it was last: the end of the traversal
  EXPECT_EQ(path.Take().size(), 0u) << "Take resets";
}

TEST(PathDecimator, KeepsAPoseEverySpacingAlongAStraightLine) {
  PathDecimator path(0.1, 1000);
  for (int i = 0; i <= 1000; ++i) path.Add(At(0.1 * i, 0.01 * i, 0.0));  // 0 .. 10 m in 1 cm steps
  const auto kept = path.Take();
  // Every 10th pose (floating point may put one a step later): about 101 points, the last at 10 m.
  EXPECT_GE(kept.size(), 90u);
  EXPECT_LE(kept.size(), 102u);
  for (size_t i = 1; i + 1 < kept.size(); ++i) {
    const double gap = kept[i].x - kept[i - 1].x;
    EXPECT_GE(gap, 0.1 - 1e-9);
    EXPECT_LE(gap, 0.11 + 1e-9);
  }
  EXPECT_DOUBLE_EQ(kept.back().x, 10.0);
}

TEST(PathDecimator, StaysBoundedAndEvenOverAVeryLongTraversal) {
  PathDecimator path(0.1, 100);
  const int n = 100000;  // 1 km of wandering in 1 cm steps
  size_t most = 0;
  for (int i = 0; i <= n; ++i) {
    path.Add(At(0.01 * i, 0.01 * i, 0.0));
    most = std::max(most, path.size());
  }
  EXPECT_LE(most, 101u);
  EXPECT_GT(path.spacing(), 0.1 * 64);  // doubled as often as needed: 1000 m / 100 points ≈ 10 m
  const auto kept = path.Take();
  EXPECT_GE(kept.size(), 50u);  // thinned evenly, not truncated
  EXPECT_EQ(kept.front().x, 0.0);
  EXPECT_DOUBLE_EQ(kept.back().x, 1000.0);
  double widest = 0;
  for (size_t i = 1; i < kept.size(); ++i) widest = std::max(widest, kept[i].x - kept[i - 1].x);
  EXPECT_LE(widest, 2.0 * 12.8 + 1e-6);  // no hole wider than two final spacings
  EXPECT_EQ(path.spacing(), 0.1) << "Take restores the initial spacing";
}

TEST(PathDecimator, IgnoresNonFinitePosesAndRefusesBadOptions) {
  PathDecimator path;
  path.Add(At(0, 1, 1));
  path.Add(At(0.1, std::numeric_limits<double>::quiet_NaN(), 1));
  path.Add(At(0.2, 1, std::numeric_limits<double>::infinity()));
  const auto kept = path.Take();
  ASSERT_EQ(kept.size(), 1u);
  EXPECT_EQ(kept[0].x, 1.0);
  EXPECT_THROW(PathDecimator(0.0, 10), std::invalid_argument);
  EXPECT_THROW(PathDecimator(std::nan(""), 10), std::invalid_argument);
  EXPECT_THROW(PathDecimator(0.1, 1), std::invalid_argument);
}

TEST(FailureTrace, RoundTripsAndRejectsBrokenFiles) {
  const fs::path dir = fs::temp_directory_path() / "limbic_experiment_failure_trace";
  fs::create_directories(dir);
  FailureTrace t;
  t.run_id = "constant-F-2-0";
  t.set = 'F';
  t.env = 2;
  t.environment_seed = 99;
  t.seed = (uint64_t{1} << 63) + 5;
  FailedTraversal a;
  a.iteration = 3;
  a.goal_x = 17.25;
  a.goal_y = 1.5;
  a.distance_to_goal = 0.8125;
  a.samples = {{12.0, 3, 1.0, 1.0, 0.1}, {13.5, 3, 2.0, 1.25, -0.3}};
  FailedTraversal b;
  b.iteration = 7;
  b.distance_to_goal = 9.0;  // a path-less traversal stays valid
  t.traversals = {a, b};
  const std::string path = (dir / FailureTraceFileName(t.run_id)).string();
  EXPECT_EQ(fs::path(path).filename(), "failed_constant-F-2-0.csv");
  WriteFailureTrace(path, t);
  const FailureTrace back = ReadFailureTrace(path);
  EXPECT_EQ(back.run_id, t.run_id);
  EXPECT_EQ(back.set, 'F');
  EXPECT_EQ(back.env, 2);
  EXPECT_EQ(back.environment_seed, 99u);
  EXPECT_EQ(back.seed, t.seed);
  ASSERT_EQ(back.traversals.size(), 2u);
  EXPECT_EQ(back.traversals[0].iteration, 3);
  EXPECT_EQ(back.traversals[0].goal_x, 17.25);
  EXPECT_EQ(back.traversals[0].distance_to_goal, 0.8125);
  ASSERT_EQ(back.traversals[0].samples.size(), 2u);
  EXPECT_EQ(back.traversals[0].samples[1].y, 1.25);
  EXPECT_EQ(back.traversals[0].samples[1].iteration, 3);
  EXPECT_EQ(back.traversals[1].iteration, 7);

  // Paths are kept to 1 mm; the distance to the goal keeps full precision.
  t.traversals[0].samples[0].x = 1.23456;
  t.traversals[0].samples[0].y = -0.0001;
  t.traversals[0].distance_to_goal = 0.123456789;
  WriteFailureTrace(path, t);
  const FailureTrace rounded = ReadFailureTrace(path);
  EXPECT_EQ(rounded.traversals[0].samples[0].x, 1.235);
  EXPECT_EQ(rounded.traversals[0].samples[0].y, 0.0);
  EXPECT_EQ(rounded.traversals[0].distance_to_goal, 0.123456789);
  EXPECT_TRUE(back.traversals[1].samples.empty());

  const auto bad = [&](const std::string& text) {
    std::ofstream((dir / "bad.csv").string(), std::ios::trunc) << text;
    return (dir / "bad.csv").string();
  };
  EXPECT_THROW(ReadFailureTrace(bad("# limbic run trace v1\n")), std::runtime_error);
  EXPECT_THROW(ReadFailureTrace(bad("# limbic failed traversals v1\n# run_id,x\n1,2,3,4\n")), std::runtime_error);
  EXPECT_THROW(ReadFailureTrace(bad("# limbic failed traversals v1\n# run_id,x\ntraversal,1,0,0,nan?\n")),
               std::runtime_error);
  EXPECT_THROW(ReadFailureTrace(bad("# limbic failed traversals v1\n# run_id,x\ntraversal,1,0,0,1\n1,2\n")),
               std::runtime_error);
  EXPECT_THROW(ReadFailureTrace(bad("# limbic failed traversals v1\ntraversal,1,0,0,1\n")), std::runtime_error);
  EXPECT_THROW(ReadFailureTrace((dir / "missing.csv").string()), std::runtime_error);
}

}  // namespace
}  // namespace limbic::experiment
