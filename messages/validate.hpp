// Valid values of every message type, declared once beside the schemas (issue 15). The FlatBuffers
// Verifier proves a payload is well-formed; it says nothing about its numbers: a NavGoal whose goal
// is NaN verifies, and one such goal poisoned the affect engine, the parameters and the controller for
// good. These rules are what a receiver may rely on after the bus has handed it a message:
//  - every real number finite (no NaN, no ±inf), and within a physically sane magnitude;
//  - ranges from the spec: probabilities (p_o, p_e, fault probabilities) in [0, 1], ranges in [0, d_max];
//  - vectors that must agree do (map layers = width × height, per-heading terms = headings), and every
//    count that sizes an allocation in a receiver has an upper bound (grid cells, beams, headings);
//  - ids in range (bumper switches 0..7, cell indices inside the grid, wheels −1..1);
//  - ControlParams: limbic::ValidateParameters, the check the controller itself applies.
// A bus::Node drops a message that fails before any service code sees it (reason `invalid`), the
// broker does the same, and `limbic pub` refuses one, naming the field.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "messages/messages.hpp"

namespace limbic::messages {

// Bounds on counts that size allocations in receivers (a single message must not be able to make a
// service allocate gigabytes). Generous against what limbic produces: maps of at most a few hundred
// cells a side, 8–60 beams, n_θ ≤ 720.
inline constexpr int64_t kMaxGridSide = 8192;
inline constexpr int64_t kMaxGridCells = int64_t{4} << 20;  // 2048 × 2048
inline constexpr size_t kMaxBeams = 4096;
inline constexpr size_t kMaxPoints = 1u << 20;  // obstacle points, path nodes, polygon vertices
inline constexpr size_t kMaxHeadings = 4096;
inline constexpr double kMaxCoordinate = 1e6;  // m: any position or distance in a message
inline constexpr double kMaxSpeed = 100.0;     // m/s, rad/s: any velocity in a message

// Checks the values of a payload that already passed `type.verify` (a verified buffer of that type).
// Returns "" when valid, else "<Type>.<field>: <rule> (got <value>)", e.g.
// "NavGoal.goal.x: must be finite (got nan)".
std::string ValidateValues(const MessageType& type, const uint8_t* verified_data, size_t size);

// Verifies (identifier, Verifier) and then checks the values; "" when both pass.
std::string VerifyAndValidate(const MessageType& type, const uint8_t* data, size_t size);

template <typename T>
std::string ValidateValues(const uint8_t* verified_data, size_t size) {
  return ValidateValues(*FindByIdentifier(Traits<T>::kIdentifier), verified_data, size);
}

}  // namespace limbic::messages
