#include "services/recruiter/protocol.hpp"

#include <cmath>

namespace limbic::recruit {

const char* MsgTypeName(MsgType type) {
  switch (type) {
    case MsgType::kHelp:
      return "HELP";
    case MsgType::kAccept:
      return "ACCEPT";
    case MsgType::kResponder:
      return "RESPONDER";
    case MsgType::kArrival:
      return "ARRIVAL";
    case MsgType::kAgree:
      return "AGREE";
    case MsgType::kAckAck:
      return "ACKACK";
  }
  return "UNKNOWN";
}

double Distance(Position a, Position b) { return std::hypot(a.x - b.x, a.y - b.y); }

std::optional<std::string> Malformed(const Message& m) {
  if (static_cast<int>(m.type) >= kMsgTypeCount) return "unknown message type";
  if (!std::isfinite(m.stamp_s)) return "stamp is not finite";
  const bool addressed = m.type != MsgType::kHelp && m.type != MsgType::kResponder;
  if (addressed && m.recipient == kNoRecipient) return std::string(MsgTypeName(m.type)) + " has no recipient";
  if (!addressed && m.recipient != kNoRecipient)
    return std::string(MsgTypeName(m.type)) + " is a broadcast but has a recipient";
  switch (m.type) {
    case MsgType::kHelp:
      if (m.percept.empty()) return "HELP without a percept";
      if (!std::isfinite(m.location.x) || !std::isfinite(m.location.y)) return "HELP location is not finite";
      if (m.threshold_override && std::isnan(*m.threshold_override)) return "HELP threshold override is NaN";
      return std::nullopt;
    case MsgType::kAccept:
      if (!std::isfinite(m.eta_s) || m.eta_s < 0.0) return "ACCEPT ETA is negative or not finite";
      return std::nullopt;
    case MsgType::kResponder:
      if (m.responder_id == kNoRecipient) return "RESPONDER names no robot";
      return std::nullopt;
    case MsgType::kArrival:
      if (!std::isfinite(m.lease_s) || m.lease_s <= 0.0) return "ARRIVAL lease is not a positive number";
      return std::nullopt;
    case MsgType::kAgree:
    case MsgType::kAckAck:
      return std::nullopt;
  }
  return "unknown message type";
}

Message MakeHelp(RobotId sender, const std::string& percept, Position location, uint16_t help_index) {
  Message m;
  m.type = MsgType::kHelp;
  m.sender = sender;
  m.percept = percept;
  m.location = location;
  m.help_index = help_index;
  return m;
}

namespace {

// The shape every addressed message shares (ACCEPT, ARRIVAL, AGREE, ACKACK: §2.1 addressing table).
Message Addressed(MsgType type, RobotId sender, RobotId recipient) {
  Message m;
  m.type = type;
  m.sender = sender;
  m.recipient = recipient;
  return m;
}

}  // namespace

Message MakeAccept(RobotId sender, RobotId requester, double eta_s) {
  Message m = Addressed(MsgType::kAccept, sender, requester);
  m.eta_s = eta_s;
  return m;
}

Message MakeResponder(RobotId sender, RobotId chosen) {
  Message m;
  m.type = MsgType::kResponder;
  m.sender = sender;
  m.responder_id = chosen;
  return m;
}

Message MakeArrival(RobotId sender, RobotId requester, double lease_s) {
  Message m = Addressed(MsgType::kArrival, sender, requester);
  m.lease_s = lease_s;
  return m;
}

Message MakeAgree(RobotId sender, RobotId responder) { return Addressed(MsgType::kAgree, sender, responder); }

Message MakeAckAck(RobotId sender, RobotId requester) { return Addressed(MsgType::kAckAck, sender, requester); }

}  // namespace limbic::recruit
