#include "common/runtime/runtime.hpp"

#include <gtest/gtest.h>

namespace limbic::runtime {
namespace {

// A stored VelocityCommand whose v is the tick it carries, so selection is visible.
void StoreTick(Input<msg::VelocityCommand>& input, int64_t tick, double v) {
  flatbuffers::FlatBufferBuilder fbb;
  fbb.Finish(msg::CreateVelocityCommand(fbb, msg::CreateHeaderDirect(fbb, 0, tick, 1, "t"), v, 0), "CMDV");
  input.Store(tick, fbb.GetBufferPointer(), fbb.GetSize());
}

TEST(Input, SameTickSelectsExactlyThatTick) {
  Input<msg::VelocityCommand> input("x", Timing::kSameTick, false);
  StoreTick(input, 3, 3.0);
  StoreTick(input, 4, 4.0);
  input.Select(Mode::kLockstep, 4);
  ASSERT_TRUE(input.Get());
  EXPECT_EQ(input.Get()->v(), 4.0);
  input.Select(Mode::kLockstep, 5);  // not there yet
  EXPECT_EQ(input.Get(), nullptr);
  EXPECT_FALSE(input.HasTick(5));
}

TEST(Input, FeedbackNeverSeesTheCurrentTickEvenIfItArrivedEarly) {
  Input<msg::VelocityCommand> input("x", Timing::kPreviousTick, false);
  StoreTick(input, 6, 6.0);
  StoreTick(input, 7, 7.0);  // arrived early: must not be used at tick 7
  input.Select(Mode::kLockstep, 7);
  ASSERT_TRUE(input.Get());
  EXPECT_EQ(input.Get()->v(), 6.0);
  input.Select(Mode::kLockstep, 8);
  EXPECT_EQ(input.Get()->v(), 7.0);
}

TEST(Input, FeedbackHoldsTheLastValueAcrossQuietTicksAndUntiedMessages) {
  Input<msg::VelocityCommand> input("x", Timing::kPreviousTick, false);
  StoreTick(input, -1, 99.0);  // e.g. a goal sent by hand, tied to no tick
  input.Select(Mode::kLockstep, 0);
  EXPECT_EQ(input.Get()->v(), 99.0);
  StoreTick(input, 2, 2.0);
  input.Select(Mode::kLockstep, 10);
  EXPECT_EQ(input.Get()->v(), 2.0);
}

TEST(Input, RealtimeUsesTheNewest) {
  Input<msg::VelocityCommand> input("x", Timing::kSameTick, false);
  StoreTick(input, 1, 1.0);
  StoreTick(input, 9, 9.0);
  StoreTick(input, 2, 2.0);
  input.Select(Mode::kRealtime, 0);
  EXPECT_EQ(input.Get()->v(), 2.0);
  EXPECT_LT(input.AgeS(), 1.0);
}

TEST(Names, InstanceAndTopics) {
  EXPECT_EQ(InstanceName("mapper", "r1"), "r1/mapper");
  EXPECT_EQ(InstanceName("bus", ""), "bus");
  EXPECT_EQ(RobotTopic("r2", "scan"), "r2/scan");
  EXPECT_EQ(RobotTopic("r2", "/clock"), "clock");
  EXPECT_EQ(RobotTopic("", "faults"), "faults");
}

TEST(ServiceContext, ParametersReadYamlAndSetLive) {
  config::StrictMap map(YAML::Load("gain: 2.5\n"), "svc.yaml");
  HostOptions options;
  ServiceContext ctx(options, &map);
  double gain = 1.0;
  int changes = 0;
  ctx.Param("gain", &gain, "a gain", [&] { ++changes; });
  EXPECT_EQ(gain, 2.5);
  ASSERT_EQ(ctx.parameters().size(), 1u);
  ctx.parameters()[0].set(YAML::Load("4"));
  EXPECT_EQ(gain, 4.0);
  EXPECT_EQ(changes, 1);
  EXPECT_EQ(ctx.parameters()[0].get(), "4");
  EXPECT_THROW(ctx.parameters()[0].set(YAML::Load("fast")), config::ConfigError);
}

}  // namespace
}  // namespace limbic::runtime
