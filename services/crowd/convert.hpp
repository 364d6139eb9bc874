// Crowd values ⇄ FlatBuffers messages (messages/crowd.fbs). With wiring.cpp and the mains the only crowd files
// that see the wire format.
#pragma once

#include <flatbuffers/flatbuffers.h>

#include <string>
#include <vector>

#include "common/convert/convert.hpp"
#include "messages/messages.hpp"
#include "services/crowd/crowd_robot.hpp"
#include "services/crowd/crowd_world.hpp"

namespace limbic::crowd {

flatbuffers::Offset<msg::CrowdState> ToMsg(flatbuffers::FlatBufferBuilder& fbb, flatbuffers::Offset<msg::Header> header,
                                           const CrowdStateValues& v);

// One sensed neighbour as the sense helper computes it (world frame), and its message in the observer's frame.
struct SensedNeighbour {
  geometry::Pose2 pose;  // true pose
  Vec2 velocity{0, 0};   // true velocity (world frame)
  double radius = 0.0;
  std::string emotion;  // "" none or not shown
  int id = -1;          // track id (the sense helper: the robot's index in its list)
};
flatbuffers::Offset<msg::CrowdNeighbours> ToMsg(flatbuffers::FlatBufferBuilder& fbb,
                                                flatbuffers::Offset<msg::Header> header,
                                                const geometry::Pose2& observer,
                                                const std::vector<SensedNeighbour>& seen);

// The neighbours of a CrowdNeighbours message placed in the frame of `observer` (the robot's own pose estimate),
// with their emotions as indices of `table` (-1: none or a name the table does not know) and their track ids.
SensedNeighbours FromMsg(const msg::CrowdNeighbours& m, const geometry::Pose2& observer, const EmotionTable& table);

// The walls b_nav avoids: every edge of every detectable polygon of the world (limited-visibility objects and the
// floor are not seen).
std::vector<geometry::Segment> WallsOf(const convert::WorldInfo& world);

}  // namespace limbic::crowd
