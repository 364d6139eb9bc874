// Laser navigator values ⇄ FlatBuffers messages (messages/laser.fbs). With wiring.cpp and main.cpp the
// only laser files that see the wire format; the reactive controller's wiring uses them too.
#pragma once

#include <flatbuffers/flatbuffers.h>

#include "messages/messages.hpp"
#include "services/laser_sim/episode.hpp"
#include "services/laser_sim/laser_types.hpp"

namespace limbic::laser {

flatbuffers::Offset<msg::LaserScan> ToMsg(flatbuffers::FlatBufferBuilder& fbb, flatbuffers::Offset<msg::Header> header,
                                          const RangeScan& scan, double heading_deg);
flatbuffers::Offset<msg::LaserOdometry> ToMsg(flatbuffers::FlatBufferBuilder& fbb,
                                              flatbuffers::Offset<msg::Header> header, const Odometry& odom);

// A SensorFrame from its three messages. Returns false (frame untouched) when the scan does not hold
// 360 ranges.
bool FrameFromMsgs(const msg::LaserScan& scan, const msg::LaserOdometry& odom, Vec2 goal, int64_t cycle, double time_s,
                   SensorFrame* frame);
Odometry FromMsg(const msg::LaserOdometry& m);

}  // namespace limbic::laser
