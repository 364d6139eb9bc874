// Bidding values ⇄ FlatBuffers messages (ExploreCall, ExploreBid). With wiring.cpp, the mission's wiring and the
// mains the only explore files that see the wire format.
#pragma once

#include <flatbuffers/flatbuffers.h>

#include <optional>

#include "messages/messages.hpp"
#include "services/explore/bidding.hpp"
#include "services/explore/task_manager.hpp"

namespace limbic::explore {

flatbuffers::Offset<msg::ExploreCall> ToMsg(flatbuffers::FlatBufferBuilder& fbb,
                                            flatbuffers::Offset<msg::Header> header, const BidCall& call);
// Throws std::invalid_argument for a call without its grid (the message rules refuse one before it gets here).
BidCall FromMsg(const msg::ExploreCall& m);

// +∞ ("cannot get there") travels as -1.
flatbuffers::Offset<msg::ExploreBid> ToMsg(flatbuffers::FlatBufferBuilder& fbb, flatbuffers::Offset<msg::Header> header,
                                           const Bid& bid);
Bid FromMsg(const msg::ExploreBid& m);

// A predecessor's latched task, for a restarted manager's takeover (TaskManager::TakeOver); nullopt for a finished one.
std::optional<PredecessorTask> PredecessorFromMsg(const msg::ExploreTask& m);

}  // namespace limbic::explore
