// Simulator values <-> messages: the world geometry (for the mapper, mission and pictures).
#pragma once

#include "common/convert/convert.hpp"
#include "sim/environment.hpp"
#include "sim/team.hpp"

namespace limbic::simulator {

flatbuffers::Offset<msg::WorldGeometry> WorldToMsg(flatbuffers::FlatBufferBuilder& fbb,
                                                   flatbuffers::Offset<msg::Header> header, const sim::Environment& env,
                                                   const std::vector<std::string>& robot_names = {},
                                                   const std::vector<sim::Placement>& placements = {});
}  // namespace limbic::simulator
