// Issue 18 items 2–3: robots described by their description files cross set B on the whole stack (simulator,
// hwio, mapper, planner, affect, controller, mission in one process, lockstep). Kept quick for CI: a few
// environments per body; the full check over all 20 environments is the experiment `bodies_set_b`.
#include <gtest/gtest.h>

#include <atomic>
#include <fstream>
#include <map>
#include <sstream>

#include "common/config/config.hpp"
#include "tests/testing/process.hpp"
#include "tools/stack/stack.hpp"

namespace limbic {
namespace {

// The metrics rows of a mission's file as header name → value maps.
std::vector<std::map<std::string, std::string>> Rows(const std::string& path) {
  std::ifstream in(path);
  std::vector<std::string> header;
  std::vector<std::map<std::string, std::string>> rows;
  for (std::string line; std::getline(in, line);) {
    std::vector<std::string> cells;
    std::stringstream ss(line);
    for (std::string cell; std::getline(ss, cell, ',');) cells.push_back(cell);
    if (header.empty()) {
      header = cells;
      continue;
    }
    std::map<std::string, std::string> row;
    for (size_t i = 0; i < cells.size() && i < header.size(); ++i) row[header[i]] = cells[i];
    rows.push_back(row);
  }
  return rows;
}

stack::StackSpec Spec(int index, const testing::TempDir& dir, const std::string& name) {
  stack::StackSpec spec;
  spec.set = 'B';
  spec.index = index;
  spec.affect_config = "constant";
  spec.iterations = 1;
  spec.seed = 18;
  spec.options = {"mission.timeout_s=200"};
  spec.max_ticks = 2200;
  spec.metrics_csv = dir / (name + ".csv");
  return spec;
}

TEST(Bodies, EachBodyTypeCrossesSetBEnvironments) {
  testing::TempDir dir;
  for (const char* body : {"marvin", "itchy", "tank"}) {
    for (int index : {1, 3, 16}) {  // the environments where Itchy once stood stuck facing a wall
      const std::string name = std::string(body) + "-B" + std::to_string(index);
      stack::StackSpec spec = Spec(index, dir, name);
      spec.bodies = {body};
      std::string error;
      std::atomic<bool> stop{false};
      ASSERT_EQ(stack::RunInProcess(spec, stop, &error), 0) << name << ": " << error;
      const auto rows = Rows(spec.metrics_csv);
      ASSERT_EQ(rows.size(), 1u) << name;
      EXPECT_EQ(rows[0].at("success"), "1") << name << " did not reach its goal in 200 s";
      std::cout << name << ": " << rows[0].at("completion_time_s") << " s, " << rows[0].at("collisions")
                << " collisions\n";
    }
  }
}

TEST(Bodies, ATeamOfThreeBodyTypesSharesOneWorld) {
  // MARVIN, Itchy and Tank in one world: the run ends with every robot's traversal ended (arrived or timed out:
  // robots meeting in a corridor is the team's problem, not the bodies'), and the bodies were apart at the start.
  testing::TempDir dir;
  stack::StackSpec spec = Spec(0, dir, "team");
  spec.robots = 3;
  spec.bodies = {"marvin", "itchy", "tank"};
  std::string error;
  std::atomic<bool> stop{false};
  ASSERT_EQ(stack::RunInProcess(spec, stop, &error), 0) << error;
  int arrived = 0;
  for (const char* r : {"r1", "r2", "r3"}) {
    const auto rows = Rows(stack::MetricsCsvFor(spec, r));
    ASSERT_EQ(rows.size(), 1u) << r;
    arrived += rows[0].at("success") == "1" ? 1 : 0;
    std::cout << r << " " << spec.bodies[r[1] - '1'] << ": success " << rows[0].at("success") << ", "
              << rows[0].at("completion_time_s") << " s, " << rows[0].at("collisions") << " collisions\n";
  }
  EXPECT_GE(arrived, 2);
}

TEST(Bodies, AnUnknownBodyFailsTheRunWithItsName) {
  testing::TempDir dir;
  stack::StackSpec spec = Spec(0, dir, "bad");
  spec.bodies = {"hal9000"};
  try {
    stack::RunInProcess(spec);
    FAIL() << "expected a ConfigError";
  } catch (const config::ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("hal9000"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("known: itchy, marvin, scratchy, tank"), std::string::npos) << e.what();
  }
  // Two bodies for one robot: refused before anything starts.
  spec.bodies = {"marvin", "itchy"};
  EXPECT_THROW(stack::BuildStack(spec), config::ConfigError);
}

}  // namespace
}  // namespace limbic
