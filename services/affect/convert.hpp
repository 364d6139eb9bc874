// The affect engine's state to and from its latched snapshot message (AffectSnapshot): how a
// restarted affect service carries on with the moods, emotion maps and damped stimuli it had.
#pragma once

#include <optional>
#include <string>

#include "messages/messages.hpp"
#include "services/affect/affect_engine.hpp"

namespace limbic::affect {

flatbuffers::Offset<msg::AffectSnapshot> SnapshotToMsg(flatbuffers::FlatBufferBuilder& fbb,
                                                       flatbuffers::Offset<msg::Header> header,
                                                       const std::string& model, const geometry::GridSpec& grid,
                                                       const AffectState& state);

// The state in `snapshot` if it fits an engine of configuration `model` on `grid`: same model, same
// grid, every array of the right length, every value finite. Otherwise nullopt and the reason.
std::optional<AffectState> SnapshotFromMsg(const msg::AffectSnapshot& snapshot, const std::string& model,
                                           const geometry::GridSpec& grid, std::string* why);

}  // namespace limbic::affect
