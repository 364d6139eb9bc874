// FlatBuffers messages -> the exporter's plain values. Only this file, wiring.cpp and main.cpp see
// the message types. The messages must already be verified (the bus does it).
#pragma once

#include "messages/messages.hpp"
#include "services/metrics/values.hpp"

namespace limbic::metrics {

AffectValues FromMsg(const msg::AffectState& m);
ParameterValues FromMsg(const msg::ControlParams& m);
TruthValues FromMsg(const msg::GroundTruth& m);
CollisionValues FromMsg(const msg::CollisionEvent& m);
PathValues FromMsg(const msg::Path& m);
MissionValues FromMsg(const msg::MissionStatus& m);
RunValues FromMsg(const msg::RunMetrics& m);
HeartbeatValues FromMsg(const msg::Heartbeat& m);
BusValues FromMsg(const msg::BusStats& m);
RecruitValues FromMsg(const msg::RecruitState& m);
// `stamp_s` is the message's header stamp in seconds: start_s after it delays the fault.
FaultValues FromMsg(const msg::FaultCommand& m, double stamp_s);

}  // namespace limbic::metrics
