#include "common/convert/convert.hpp"

#include <gtest/gtest.h>

namespace limbic::convert {
namespace {

template <typename T, typename Build>
std::vector<uint8_t> Finish(Build build) {
  FBB fbb;
  auto header = msg::CreateHeaderDirect(fbb, 1, 2, 3, "test");
  fbb.Finish(build(fbb, header), messages::Traits<T>::kIdentifier);
  std::vector<uint8_t> bytes(fbb.GetBufferPointer(), fbb.GetBufferPointer() + fbb.GetSize());
  EXPECT_TRUE(messages::Verify<T>(bytes.data(), bytes.size()));
  return bytes;
}

TEST(Convert, ControlParametersRoundTripEveryField) {
  ControlParameters p;
  // Give every field a distinct value so a swapped or missing field shows.
  double x = 0.5;
#define LIMBIC_SET(type, name) p.name = static_cast<type>(x += 1.0);
  LIMBIC_CONTROL_PARAMETER_FIELDS(LIMBIC_SET)
#undef LIMBIC_SET
  auto bytes = Finish<msg::ControlParams>([&](FBB& fbb, auto h) { return ToMsg(fbb, h, p); });
  EXPECT_EQ(FromMsg(*flatbuffers::GetRoot<msg::ControlParams>(bytes.data())), p);
}

TEST(Convert, ScanCollisionOdometryRoundTrip) {
  RangeScan scan;
  scan.beams.push_back({3, {0.2, 0.0}, 0.1, 0.4, 3.0, 1.25, true});
  scan.beams.push_back({4, {0.0, 0.2}, 1.6, 0.14, 0.75, 0.75, false});
  auto bytes =
      Finish<msg::RangeScan>([&](FBB& fbb, auto h) { return msg::CreateRangeScan(fbb, h, BeamsToMsg(fbb, scan)); });
  RangeScan back;
  BeamsFromMsg(flatbuffers::GetRoot<msg::RangeScan>(bytes.data())->beams(), &back);
  ASSERT_EQ(back.beams.size(), 2u);
  EXPECT_EQ(back.beams[0].sensor_id, 3);
  EXPECT_DOUBLE_EQ(back.beams[0].range, 1.25);
  EXPECT_FALSE(back.beams[1].valid);
  EXPECT_DOUBLE_EQ(back.beams[1].origin_local.y(), 0.2);

  CollisionEvent e{true, true, {0, 1}, {1.5, -2.0}, 0.4};
  auto cb = Finish<msg::CollisionEvent>([&](FBB& fbb, auto h) { return ToMsg(fbb, h, e, 7); });
  const auto* cm = flatbuffers::GetRoot<msg::CollisionEvent>(cb.data());
  const CollisionEvent eb = FromMsg(*cm);
  EXPECT_EQ(cm->event_count(), 7u);
  EXPECT_TRUE(eb.new_event);
  EXPECT_EQ(eb.sensor_ids, (std::vector<int>{0, 1}));
  EXPECT_DOUBLE_EQ(eb.contact_point.y(), -2.0);
  EXPECT_DOUBLE_EQ(eb.speed_before, 0.4);

  OdometryEstimate o{{1, 2, 0.3}, 0.5, -0.1};
  auto ob = Finish<msg::Odometry>([&](FBB& fbb, auto h) { return ToMsg(fbb, h, o); });
  const OdometryEstimate obk = FromMsg(*flatbuffers::GetRoot<msg::Odometry>(ob.data()));
  EXPECT_EQ(obk.pose, o.pose);
  EXPECT_DOUBLE_EQ(obk.omega, -0.1);
}

TEST(Convert, GridInfoRoundTrip) {
  geometry::GridSpec g{{-0.35, -0.7}, 0.35, 60, 36};
  EXPECT_EQ(FromMsg(ToMsg(g)), g);
}

}  // namespace
}  // namespace limbic::convert
