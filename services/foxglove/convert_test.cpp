#include "services/foxglove/convert.hpp"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "messages/messages.hpp"

namespace limbic::foxglove {
namespace {

using nlohmann::json;

template <typename T>
std::vector<uint8_t> Finish(flatbuffers::FlatBufferBuilder& fbb, flatbuffers::Offset<T> root) {
  fbb.Finish(root, messages::Traits<T>::kIdentifier);
  std::vector<uint8_t> bytes(fbb.GetBufferPointer(), fbb.GetBufferPointer() + fbb.GetSize());
  EXPECT_TRUE(messages::Verify<T>(bytes.data(), bytes.size()));
  return bytes;
}

TEST(FoxgloveConvert, GridMapMessageBecomesTheOccupancyGrid) {
  flatbuffers::FlatBufferBuilder fbb;
  const msg::GridInfo info(0.5, -0.5, 0.25, 2, 1);
  const auto bytes = Finish(fbb, msg::CreateGridMap(fbb, msg::CreateHeader(fbb, 3'000'000'000), &info,
                                                    fbb.CreateVector(std::vector<double>{0.25, 1.0}),
                                                    fbb.CreateVector(std::vector<double>{0.5, 0.5})));
  DerivedChannels d({});
  const auto route = RouteOf("r1/map", messages::Traits<msg::GridMap>::kName);
  ASSERT_TRUE(route.has_value());
  const auto out = Derive(d, *route, bytes.data(), 3'000'000'000, 0.0);
  ASSERT_EQ(out.size(), 1u);
  const json g = json::parse(out[0].json);
  EXPECT_EQ(out[0].topic, "foxglove/r1/map");
  EXPECT_EQ(g["timestamp"]["sec"], 3);
  EXPECT_DOUBLE_EQ(g["pose"]["position"]["x"], 0.5);
  EXPECT_DOUBLE_EQ(g["pose"]["position"]["y"], -0.5);
  EXPECT_DOUBLE_EQ(g["cell_size"]["x"], 0.25);
  EXPECT_EQ(g["column_count"], 2);
  EXPECT_EQ(g["row_stride"], 16);
}

TEST(FoxgloveConvert, OdometryAndHumansMessages) {
  DerivedChannels d({});
  flatbuffers::FlatBufferBuilder fbb;
  const msg::Pose2 pose(4.0, -2.0, 0.0);
  const auto odom = Finish(fbb, msg::CreateOdometry(fbb, msg::CreateHeader(fbb, 1), &pose, 0.3, 0.0));
  const auto tf = Derive(d, *RouteOf("r7/odom", "limbic.msg.Odometry"), odom.data(), 1, 0.0);
  ASSERT_GE(tf.size(), 1u);
  const json t = json::parse(tf[0].json);
  EXPECT_EQ(t["child_frame_id"], "r7/base_link");
  EXPECT_DOUBLE_EQ(t["translation"]["x"], 4.0);
  EXPECT_DOUBLE_EQ(t["translation"]["y"], -2.0);

  flatbuffers::FlatBufferBuilder fbb2;
  const std::vector<msg::HumanState> people{msg::HumanState(3, 1.0, 2.0, 0.3, 0, 0)};
  const auto humans =
      Finish(fbb2, msg::CreateHumans(fbb2, msg::CreateHeader(fbb2, 1), fbb2.CreateVectorOfStructs(people)));
  const auto h = Derive(d, *RouteOf("humans", "limbic.msg.Humans"), humans.data(), 1, 0.0);
  ASSERT_EQ(h.size(), 1u);
  const json u = json::parse(h[0].json);
  ASSERT_EQ(u["entities"].size(), 1u);
  EXPECT_EQ(u["entities"][0]["id"], "human/3");
  EXPECT_DOUBLE_EQ(u["entities"][0]["cylinders"][0]["size"]["x"], 0.6);
}

TEST(FoxgloveConvert, MessagesWithoutTheirGridInfoDeriveNothing) {
  flatbuffers::FlatBufferBuilder fbb;
  const auto bytes = Finish(fbb, msg::CreateGridMap(fbb, msg::CreateHeader(fbb, 1)));
  DerivedChannels d({});
  EXPECT_TRUE(Derive(d, *RouteOf("r1/map", "limbic.msg.GridMap"), bytes.data(), 1, 0.0).empty());
}

}  // namespace
}  // namespace limbic::foxglove
