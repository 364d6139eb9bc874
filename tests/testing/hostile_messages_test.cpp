// The adversarial test and the fuzz target rely on two promises checked here: every hostile message as
// built is refused by the value rules (so "every rejection counted" can be asserted exactly), and the
// schema scan finds a non-finite number wherever it is.
#include "tests/testing/hostile_messages.hpp"

#include <gtest/gtest.h>

#include "messages/validate.hpp"
#include "tests/testing/finite_scan.hpp"

namespace limbic::testing {
namespace {

TEST(HostileMessages, EveryVariantOfEveryTypeIsRefusedByTheRules) {
  int types = 0, checked = 0;
  for (const messages::MessageType& type : messages::AllTypes()) {
    const int variants = HostileVariants(type);
    if (variants == 0) continue;
    ++types;
    for (int v = 0; v < variants; ++v) {
      for (uint64_t noise = 0; noise < 4; ++noise) {
        const auto bytes = HostileMessage(type, v, {3, 1, "attacker", 9}, noise);
        ASSERT_TRUE(type.verify(bytes.data(), bytes.size())) << type.name << " variant " << v << " is not well-formed";
        EXPECT_FALSE(messages::ValidateValues(type, bytes.data(), bytes.size()).empty())
            << type.name << " variant " << v << " noise " << noise << " was accepted";
        ++checked;
      }
    }
    const auto wrong = WrongTypeFor(type, {3, 1, "attacker", 9});
    const auto* other = messages::FindByIdentifier(messages::IdentifierOf(wrong.data(), wrong.size()));
    ASSERT_NE(other, nullptr);
    EXPECT_NE(other, &type);
    EXPECT_EQ(messages::VerifyAndValidate(*other, wrong.data(), wrong.size()), "") << "wrong-type messages are valid";
  }
  EXPECT_GE(types, 25);  // every type a service subscribes
  EXPECT_GT(checked, 300);
}

TEST(FiniteScan, FindsNonFiniteNumbersInFieldsStructsAndVectors) {
  const auto& goal_type = *messages::FindByName("NavGoal");
  const auto nan_goal = HostileMessage(goal_type, 0, {}, 0);  // goal.x NaN
  EXPECT_EQ(FindNonFinite(goal_type, nan_goal.data()), "NavGoal.goal.x");
  const auto& map_type = *messages::FindByName("GridMap");
  const auto nan_cell = HostileMessage(map_type, 0, {}, 0);  // p_o[5] NaN
  EXPECT_EQ(FindNonFinite(map_type, nan_cell.data()), "GridMap.p_o[5]");
  const auto& scan_type = *messages::FindByName("RangeScan");
  const auto nan_beam = HostileMessage(scan_type, 0, {}, 0);  // beams[3].range NaN
  EXPECT_EQ(FindNonFinite(scan_type, nan_beam.data()), "RangeScan.beams[3].range");
  const auto wrong = WrongTypeFor(goal_type, {});  // a valid Odometry
  EXPECT_EQ(FindNonFinite(*messages::FindByName("Odometry"), wrong.data()), "");
}

}  // namespace
}  // namespace limbic::testing
