#include "tools/experiment/expand.hpp"

#include <gtest/gtest.h>

#include <map>
#include <set>

#include "tools/experiment/shipped_experiments.hpp"

namespace limbic::experiment {
namespace {

TEST(Expand, Chapter10Counts) {
  const auto d = FindExperiment("ch10_integrated", ShippedExperimentsDir());
  const auto runs = Expand(d);
  ASSERT_EQ(runs.size(), 7u * 2u * 100u);
  std::map<std::pair<std::string, char>, int> per;
  std::set<std::string> ids;
  for (const auto& r : runs) {
    ++per[{r.config, r.set}];
    ids.insert(r.run_id);
    EXPECT_EQ(r.iterations, 9);
  }
  EXPECT_EQ(ids.size(), runs.size());
  EXPECT_EQ(per.size(), 14u);
  for (const auto& [key, n] : per) EXPECT_EQ(n, 100);
  EXPECT_EQ(runs[0].run_id, "constant-A-0-0");
  EXPECT_EQ(runs[0].affect, "constant");
  // Issue 14's decision: the affective robot takes the map-point inset; the constant one runs the stack as it is.
  for (const auto& r : runs) {
    const auto inset = r.options.find("map_point_inset");
    if (r.config == "affective") {
      ASSERT_NE(inset, r.options.end()) << r.run_id;
      EXPECT_EQ(inset->second, "0.175") << r.run_id;
    } else {
      EXPECT_TRUE(r.options.empty()) << r.run_id;
    }
  }
}

TEST(Expand, SeedsEqualAcrossConfigurationsAndSweepValues) {
  const auto d = FindExperiment("ch9_surprise_action_safety", ShippedExperimentsDir());
  const auto runs = Expand(d);
  std::map<std::tuple<char, int, int>, std::set<uint64_t>> seeds;
  std::set<uint64_t> distinct;
  for (const auto& r : runs) {
    seeds[{r.set, r.env, r.repeat}].insert(r.seed);
    distinct.insert(r.seed);
    EXPECT_EQ(r.seed, RunSeed(d.seed, r.set, r.env, r.repeat));
  }
  for (const auto& [key, s] : seeds) EXPECT_EQ(s.size(), 1u);
  EXPECT_EQ(distinct.size(), 20u);  // one per environment, different across environments
  EXPECT_NE(RunSeed(1, 'B', 0, 0), RunSeed(1, 'B', 0, 1));
  EXPECT_NE(RunSeed(1, 'B', 0, 0), RunSeed(1, 'C', 0, 0));
  EXPECT_NE(RunSeed(1, 'B', 0, 0), RunSeed(2, 'B', 0, 0));
}

TEST(Expand, SweepAssignmentsAndRunIds) {
  const auto d = FindExperiment("ch9_surprise_action_safety", ShippedExperimentsDir());
  const auto runs = Expand(d);
  ASSERT_EQ(runs.size(), 2u * 11u * 20u);
  const RunSpec& r = runs[11 * 20 + 5 * 20 + 7];  // wrong_map, value 0.5, env 7
  EXPECT_EQ(r.run_id, "wrong_map-0.5-B-7-0");
  EXPECT_EQ(r.sweep, "k_action_safety=0.5");
  EXPECT_DOUBLE_EQ(r.sweep_value, 0.5);
  EXPECT_TRUE(r.OptionEnabled("wrong_map_all_free"));
  EXPECT_DOUBLE_EQ(r.sweep_assignments.at("affect.drives.action.weight"), 0.5);
  EXPECT_EQ(r.affect_overrides, (std::vector<std::string>{"drives.action.weight=0.5", "drives.safety.weight=0.5"}));
}

TEST(Expand, AffectOverridesCarryParameters) {
  RunSpec r;
  r.affect = "affective";
  r.affect_overrides = {"moods.positive.weight=2"};
  r.parameters = {{"w_p4", 0.25}};
  EXPECT_EQ(r.AffectOverrides(), (std::vector<std::string>{"moods.positive.weight=2", "base_parameters.w_p4=0.25"}));
}

TEST(Expand, TraceRunsPerGroup) {
  const auto d = FindExperiment("ch10_personality", ShippedExperimentsDir());
  int traced = 0;
  for (const auto& r : Expand(d)) traced += r.record_trace;
  EXPECT_EQ(traced, 3 * 2);  // 3 configurations × trace_runs 2
}

TEST(Expand, RecordingsFollowTheRecordOption) {
  auto d = FindExperiment("ch10_personality", ShippedExperimentsDir());
  auto count = [&] {
    int n = 0;
    for (const auto& r : Expand(d)) {
      n += r.record_bag;
      if (r.record_bag && d.record == "traced") {
        EXPECT_TRUE(r.record_trace) << r.run_id;
      }
    }
    return n;
  };
  EXPECT_EQ(count(), 0);  // record: none by default
  d.record = "traced";
  EXPECT_EQ(count(), 3 * 2);
  d.record = "all";
  EXPECT_EQ(count(), d.RunCount());
}

TEST(Shard, PartitionsTheRuns) {
  const auto runs = Expand(FindExperiment("ch6_velocity_w_v4", ShippedExperimentsDir()));
  ASSERT_EQ(runs.size(), 220u);
  std::multiset<std::string> all;
  size_t total = 0;
  for (int k = 1; k <= 7; ++k) {
    const auto shard = Shard(runs, k, 7);
    EXPECT_GE(shard.size(), 31u);
    EXPECT_LE(shard.size(), 32u);
    for (const auto& r : shard) {
      EXPECT_EQ(r.index % 7, k - 1);
      all.insert(r.run_id);
    }
    total += shard.size();
  }
  EXPECT_EQ(total, runs.size());
  EXPECT_EQ(std::set<std::string>(all.begin(), all.end()).size(), runs.size());
  EXPECT_EQ(Shard(runs, 1, 1).size(), runs.size());
  EXPECT_THROW(Shard(runs, 0, 3), std::invalid_argument);
  EXPECT_THROW(Shard(runs, 4, 3), std::invalid_argument);
}

TEST(Shard, ParsesKOverN) {
  int k = 0, n = 0;
  ParseShard("3/8", &k, &n);
  EXPECT_EQ(k, 3);
  EXPECT_EQ(n, 8);
  EXPECT_THROW(ParseShard("9/8", &k, &n), std::invalid_argument);
  EXPECT_THROW(ParseShard("3", &k, &n), std::invalid_argument);
  EXPECT_THROW(ParseShard("a/b", &k, &n), std::invalid_argument);
  EXPECT_THROW(ParseShard("1/2x", &k, &n), std::invalid_argument);
}

}  // namespace
}  // namespace limbic::experiment
