// The six-message recruitment protocol of spec affective-recruitment §2 as plain values: what every
// robot sends and receives, whatever carries it (the lockstep radio of radio.hpp, or the bus through
// convert.cpp). Transport-free.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace limbic::recruit {

using RobotId = uint32_t;
// "recipient ID number (if any)" [D §2.1]: none is 0xFFFFFFFF, as in the wire schema (§9.4).
inline constexpr RobotId kNoRecipient = 0xFFFFFFFFu;

// Spec Table 8 (dissertation): HELP, ACCEPT, RESPONDER, ARRIVAL, AGREE, ACKACK.
enum class MsgType : uint8_t { kHelp = 0, kAccept = 1, kResponder = 2, kArrival = 3, kAgree = 4, kAckAck = 5 };
inline constexpr int kMsgTypeCount = 6;
const char* MsgTypeName(MsgType type);  // "HELP", "ACCEPT", ...

// A point in the common coordinate system (LOCAL_XY, grid units).
struct Position {
  double x = 0.0;
  double y = 0.0;
};
double Distance(Position a, Position b);

// One protocol message: the header every message carries [D] plus the type-specific parameters (only
// those of `type` are meaningful).
struct Message {
  MsgType type = MsgType::kHelp;
  RobotId sender = 0;
  RobotId recipient = kNoRecipient;
  uint64_t request_id = 0;  // [I] (requester id << 32) | episode counter
  uint64_t msg_id = 0;      // [I] unique per transmission: (sender << 32) | sequence
  double stamp_s = 0.0;     // sender clock (s)
  // HELP
  std::string percept;
  Position location;
  std::optional<double> threshold_override;  // [D, optional, untested] emergency threshold; < 0 => greedy
  uint16_t help_index = 0;                   // [I] 1-based index of this HELP within the episode
  // ACCEPT
  double eta_s = 0.0;
  // RESPONDER
  RobotId responder_id = 0;
  // ARRIVAL
  double lease_s = 0.0;
};

// Why a received message is unusable (counted and ignored, never a crash), or nullopt when it is
// well formed: NaN or infinite numbers, a negative ETA, a non-positive lease, an empty percept, a
// HELP with a recipient, an addressed message without one, a RESPONDER naming no robot.
std::optional<std::string> Malformed(const Message& m);

// Builders for the six messages (request_id, msg_id and stamp filled by the sender).
Message MakeHelp(RobotId sender, const std::string& percept, Position location, uint16_t help_index);
Message MakeAccept(RobotId sender, RobotId requester, double eta_s);
Message MakeResponder(RobotId sender, RobotId chosen);
Message MakeArrival(RobotId sender, RobotId requester, double lease_s);
Message MakeAgree(RobotId sender, RobotId responder);
Message MakeAckAck(RobotId sender, RobotId requester);

}  // namespace limbic::recruit
