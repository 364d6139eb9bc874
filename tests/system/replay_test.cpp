// Deterministic replay (issue 17, item 4): record every message of a lockstep run, replay the recorded
// inputs of one service into a fresh instance of it, and its outputs equal the recorded ones bit for
// bit — one test per service (mapper, planner, controller, affect). A replay with a changed option
// must differ, or the comparison proves nothing.
#include <gtest/gtest.h>

#include "tests/testing/process.hpp"
#include "tools/bag/bag_reader.hpp"
#include "tools/stack/bag_recorder.hpp"
#include "tools/stack/stack.hpp"

namespace limbic {
namespace {

stack::StackSpec RunSpec() {
  stack::StackSpec spec;
  spec.set = 'D';  // offices with people walking about: every service has work to do
  spec.index = 0;
  spec.iterations = 1;
  spec.seed = 3;
  spec.max_ticks = 400;  // 40 s simulated
  return spec;
}

class Replay : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new testing::TempDir();
    path_ = *dir_ / "run.mcap";
    stack::StackSpec spec = RunSpec();
    spec.bag = std::make_shared<bag::BagWriter>(bag::BagOptions{.path = path_, .compression = mcap::Compression::kLz4});
    ASSERT_EQ(stack::RunInProcess(spec), 0);
    spec.bag->Close();
  }
  static void TearDownTestSuite() { delete dir_; }

  static runtime::HostedService ServiceOfTheRun(const std::string& name, const std::vector<std::string>& extra = {}) {
    for (auto& s : stack::BuildStack(RunSpec())) {
      if (s.definition.name == name) {
        for (const auto& o : extra) s.options.overrides.push_back(o);
        return s;
      }
    }
    throw std::runtime_error("no service " + name);
  }

  static void ExpectIdentical(const std::string& name) {
    const stack::ReplayReport r = stack::ReplayService({path_}, ServiceOfTheRun(name));
    EXPECT_TRUE(r.Identical()) << r.instance << ": " << r.first_difference << " (" << r.matching << " of " << r.expected
                               << " match, " << r.produced << " produced)";
    EXPECT_GE(r.ticks, 390);
    EXPECT_GT(r.inputs, 0u);
    EXPECT_GE(r.expected, 100u) << r.instance;
    std::string topics;
    for (const auto& t : r.output_topics) topics += " " + t;
    std::cout << r.instance << ": " << r.ticks << " ticks, " << r.inputs << " inputs, " << r.expected
              << " outputs compared on" << topics << "\n";
  }

  static testing::TempDir* dir_;
  static std::string path_;
};
testing::TempDir* Replay::dir_ = nullptr;
std::string Replay::path_;

TEST_F(Replay, RecordingHoldsTheWholeRun) {
  const bag::BagSummary s = bag::Summarize({path_});
  EXPECT_TRUE(s.problems.empty());
  for (const char* topic : {"clock", "r1/scan", "r1/map/patch", "r1/path", "r1/cmd_vel", "r1/affect", "lockstep/ack"}) {
    EXPECT_TRUE(s.topics.count(topic)) << topic;
  }
  EXPECT_NEAR(s.DurationS(), 40.0, 0.2);  // log times are simulated time
}

TEST_F(Replay, MapperOutputsEqualTheRecordedOnesBitForBit) { ExpectIdentical("mapper"); }
TEST_F(Replay, PlannerOutputsEqualTheRecordedOnesBitForBit) { ExpectIdentical("planner"); }
TEST_F(Replay, ControllerOutputsEqualTheRecordedOnesBitForBit) { ExpectIdentical("controller"); }
TEST_F(Replay, AffectOutputsEqualTheRecordedOnesBitForBit) { ExpectIdentical("affect"); }

TEST_F(Replay, AChangedServiceIsCaught) {
  // The affect engine with another configuration answers the same inputs differently.
  const stack::ReplayReport r = stack::ReplayService({path_}, ServiceOfTheRun("affect", {"config=constant"}));
  EXPECT_FALSE(r.Identical());
  EXPECT_FALSE(r.first_difference.empty());
}

TEST_F(Replay, AServiceTheRecordingDoesNotHoldIsAnError) {
  auto s = ServiceOfTheRun("controller");
  s.options.robot = "r7";
  EXPECT_THROW(stack::ReplayService({path_}, s), std::runtime_error);
}

}  // namespace
}  // namespace limbic
