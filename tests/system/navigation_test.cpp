// The whole stack in lockstep: does the robot get there, and is the run reproducible?
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "tests/testing/process.hpp"
#include "tools/stack/stack.hpp"

namespace limbic {
namespace {

std::vector<std::vector<std::string>> ReadCsv(const std::string& path) {
  std::ifstream in(path);
  std::vector<std::vector<std::string>> rows;
  for (std::string line; std::getline(in, line);) {
    std::vector<std::string> row;
    std::stringstream ss(line);
    for (std::string cell; std::getline(ss, cell, ',');) row.push_back(cell);
    rows.push_back(row);
  }
  return rows;
}

TEST(Navigation, ReachesTheGoalInASetBEnvironmentWithConstantParameters) {
  testing::TempDir dir;
  stack::StackSpec spec;
  spec.set = 'B';
  spec.index = 0;
  spec.iterations = 1;
  spec.affect_config = "constant";
  spec.metrics_csv = dir / "metrics.csv";
  spec.max_ticks = 6100;  // the 600 s timeout plus margin
  ASSERT_EQ(stack::RunInProcess(spec), 0);
  const auto rows = ReadCsv(spec.metrics_csv);
  ASSERT_EQ(rows.size(), 2u) << "expected a header and one traversal";
  EXPECT_EQ(rows[1][7], "1") << "the traversal did not succeed: completion time " << rows[1][6];
  std::cout << "set B #0: completion " << rows[1][6] << " s, collisions " << rows[1][8] << ", mean speed " << rows[1][10]
            << " m/s\n";
}

}  // namespace
}  // namespace limbic
