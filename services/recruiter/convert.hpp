// Recruitment values ⇄ FlatBuffers messages (messages/recruitment.fbs). The only recruiter file besides
// wiring.cpp and main.cpp that sees the wire format.
#pragma once

#include <flatbuffers/flatbuffers.h>

#include "messages/messages.hpp"
#include "services/recruiter/protocol.hpp"
#include "services/recruiter/radio.hpp"
#include "services/recruiter/robot_agent.hpp"

namespace limbic::recruit {

flatbuffers::Offset<msg::RecruitMessage> ToMsg(flatbuffers::FlatBufferBuilder& fbb,
                                               flatbuffers::Offset<msg::Header> header, const Message& m);
// Any enum value is carried over (an unknown type stays unknown and Malformed() reports it).
Message FromMsg(const msg::RecruitMessage& m);

flatbuffers::Offset<msg::RecruitState> ToMsg(flatbuffers::FlatBufferBuilder& fbb,
                                             flatbuffers::Offset<msg::Header> header, const AgentTelemetry& t);
AgentTelemetry FromMsg(const msg::RecruitState& m);

flatbuffers::Offset<msg::RadioStats> ToMsg(flatbuffers::FlatBufferBuilder& fbb, flatbuffers::Offset<msg::Header> header,
                                           const RadioCounts& counts, const RadioOptions& options);
RadioCounts FromMsg(const msg::RadioStats& m);

}  // namespace limbic::recruit
