// Which messages are state and which are events, for the broker's per-subscriber queue (issue 23 item 3;
// docs/protocol.md, "Losses"). State: a value where only the latest matters (odometry, truth, scans, maps,
// paths, affect state, heartbeats, statistics, high-water reports) — a subscriber that falls behind may lose
// stale ones, counted. Events: everything else, unknown identifiers included — commands, goals, map patches,
// faults, parameters, lockstep, exploration rounds — which get the subscriber's whole queue.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

namespace limbic::bus {

// The 4-character FlatBuffers identifiers of the state types, in one place.
std::span<const std::string_view> StateIdentifiers();
// Is the message with these bytes (its identifier at bytes 4..8) state? False for anything shorter.
bool IsStateMessage(const uint8_t* data, size_t size);
// Is this 4-character identifier (messages::Traits<T>::kIdentifier) a state type's?
bool IsStateIdentifier(std::string_view identifier);

}  // namespace limbic::bus
