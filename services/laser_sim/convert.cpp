#include "services/laser_sim/convert.hpp"

namespace limbic::laser {

flatbuffers::Offset<msg::LaserScan> ToMsg(flatbuffers::FlatBufferBuilder& fbb, flatbuffers::Offset<msg::Header> header,
                                          const RangeScan& scan, double heading_deg) {
  const auto ranges = fbb.CreateVector(scan.data(), scan.size());
  return msg::CreateLaserScan(fbb, header, ranges, static_cast<uint16_t>(kMaxRangeCm),
                              static_cast<float>(Wrap360(heading_deg)));
}

flatbuffers::Offset<msg::LaserOdometry> ToMsg(flatbuffers::FlatBufferBuilder& fbb,
                                              flatbuffers::Offset<msg::Header> header, const Odometry& o) {
  return msg::CreateLaserOdometry(fbb, header, o.x_cm, o.y_cm, o.heading_deg, o.turn_rate_dps, o.v_cms, o.a_cms2,
                                  o.encoder_left, o.encoder_right, o.v_left_cms, o.v_right_cms);
}

Odometry FromMsg(const msg::LaserOdometry& m) {
  Odometry o;
  o.x_cm = m.x_cm();
  o.y_cm = m.y_cm();
  o.heading_deg = m.heading_deg();
  o.turn_rate_dps = m.turn_rate_dps();
  o.v_cms = m.v_cms();
  o.a_cms2 = m.a_cms2();
  o.encoder_left = m.encoder_left();
  o.encoder_right = m.encoder_right();
  o.v_left_cms = m.v_left_cms();
  o.v_right_cms = m.v_right_cms();
  return o;
}

bool FrameFromMsgs(const msg::LaserScan& scan, const msg::LaserOdometry& odom, Vec2 goal, int64_t cycle, double time_s,
                   SensorFrame* frame) {
  if (scan.ranges_cm() == nullptr || scan.ranges_cm()->size() != kBeams) return false;
  for (int a = 0; a < kBeams; ++a) frame->ranges[a] = scan.ranges_cm()->Get(a);
  frame->odom = FromMsg(odom);
  frame->goal = goal;
  frame->cycle = cycle;
  frame->time_s = time_s;
  return true;
}

}  // namespace limbic::laser
