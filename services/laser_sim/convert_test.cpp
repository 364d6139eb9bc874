#include "services/laser_sim/convert.hpp"

#include <gtest/gtest.h>

#include "messages/validate.hpp"

namespace limbic::laser {
namespace {

template <typename T, typename Build>
flatbuffers::DetachedBuffer Finish(Build&& build) {
  flatbuffers::FlatBufferBuilder fbb;
  const auto header = msg::CreateHeader(fbb, 5, 7, 1, fbb.CreateString("r1/laser_sim"));
  fbb.Finish(build(fbb, header), messages::Traits<T>::kIdentifier);
  return fbb.Release();
}

TEST(LaserConvert, ScanAndOdometryRoundTripIntoAFrame) {
  RangeScan scan;
  for (int a = 0; a < kBeams; ++a) scan[a] = static_cast<uint8_t>(a % 251);
  Odometry o;
  o.x_cm = 123.5;
  o.y_cm = 40.25;
  o.heading_deg = 359.5;
  o.turn_rate_dps = -12;
  o.v_cms = 55;
  o.a_cms2 = 170;
  o.encoder_left = 123456789;
  o.encoder_right = -5;
  o.v_left_cms = 60;
  o.v_right_cms = 50;
  const auto scan_buf = Finish<msg::LaserScan>([&](auto& fbb, auto h) { return ToMsg(fbb, h, scan, 359.5); });
  const auto odom_buf = Finish<msg::LaserOdometry>([&](auto& fbb, auto h) { return ToMsg(fbb, h, o); });
  const auto& scan_msg = *flatbuffers::GetRoot<msg::LaserScan>(scan_buf.data());
  const auto& odom_msg = *flatbuffers::GetRoot<msg::LaserOdometry>(odom_buf.data());
  const auto* scan_type = messages::FindByName("LaserScan");
  ASSERT_NE(scan_type, nullptr);
  EXPECT_EQ(messages::VerifyAndValidate(*scan_type, scan_buf.data(), scan_buf.size()), "");
  EXPECT_EQ(messages::VerifyAndValidate(*messages::FindByName("LaserOdometry"), odom_buf.data(), odom_buf.size()), "");
  SensorFrame f;
  ASSERT_TRUE(FrameFromMsgs(scan_msg, odom_msg, {330, 620}, 12, 0.12, &f));
  EXPECT_EQ(f.ranges, scan);
  EXPECT_EQ(f.odom.x_cm, 123.5);
  EXPECT_EQ(f.odom.heading_deg, 359.5);
  EXPECT_EQ(f.odom.encoder_left, 123456789);
  EXPECT_EQ(f.odom.v_right_cms, 50);
  EXPECT_EQ(f.goal.y, 620);
  EXPECT_EQ(f.cycle, 12);
}

TEST(LaserConvert, HostileValuesAreRefused) {
  // A scan of 359 ranges and an odometry with a NaN position do not pass validation.
  const auto short_scan = Finish<msg::LaserScan>([](auto& fbb, auto h) {
    std::vector<uint8_t> r(359, 100);
    return msg::CreateLaserScan(fbb, h, fbb.CreateVector(r), 250, 0.0f);
  });
  EXPECT_NE(messages::VerifyAndValidate(*messages::FindByName("LaserScan"), short_scan.data(), short_scan.size()), "");
  SensorFrame f;
  Odometry o;
  const auto odom_buf = Finish<msg::LaserOdometry>([&](auto& fbb, auto h) { return ToMsg(fbb, h, o); });
  EXPECT_FALSE(FrameFromMsgs(*flatbuffers::GetRoot<msg::LaserScan>(short_scan.data()),
                             *flatbuffers::GetRoot<msg::LaserOdometry>(odom_buf.data()), {}, 0, 0, &f));
  o.x_cm = std::nan("");
  const auto bad = Finish<msg::LaserOdometry>([&](auto& fbb, auto h) { return ToMsg(fbb, h, o); });
  EXPECT_NE(messages::VerifyAndValidate(*messages::FindByName("LaserOdometry"), bad.data(), bad.size()), "");
  const auto cmd = Finish<msg::HeadingCommand>(
      [](auto& fbb, auto h) { return msg::CreateHeadingCommand(fbb, h, std::nan(""), -1.0, -1); });
  EXPECT_NE(messages::VerifyAndValidate(*messages::FindByName("HeadingCommand"), cmd.data(), cmd.size()), "");
  const auto keep = Finish<msg::HeadingCommand>(
      [](auto& fbb, auto h) { return msg::CreateHeadingCommand(fbb, h, std::nan(""), 0.0, 3); });
  EXPECT_EQ(messages::VerifyAndValidate(*messages::FindByName("HeadingCommand"), keep.data(), keep.size()), "");
}

}  // namespace
}  // namespace limbic::laser
