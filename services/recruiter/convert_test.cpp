// Round trips of the recruitment messages through their FlatBuffers form, verified as the bus does.
#include "services/recruiter/convert.hpp"

#include <gtest/gtest.h>

#include <cmath>

namespace limbic::recruit {
namespace {

template <typename T, typename Build>
flatbuffers::DetachedBuffer Encode(Build&& build) {
  flatbuffers::FlatBufferBuilder fbb;
  auto header = msg::CreateHeaderDirect(fbb, 0, -1, 1, "test");
  fbb.Finish(build(fbb, header), messages::Traits<T>::kIdentifier);
  return fbb.Release();
}

TEST(RecruitConvert, EveryMessageTypeRoundTrips) {
  Message help = MakeHelp(3, "polar_range", {12.5, -4.0}, 2);
  help.threshold_override = -1.0;
  for (Message m : {help, MakeHelp(3, "ir", {1, 2}, 1), MakeAccept(4, 3, 7.25), MakeResponder(3, 4),
                    MakeArrival(4, 3, 30.0), MakeAgree(3, 4), MakeAckAck(4, 3)}) {
    m.request_id = (3ull << 32) | 9;
    m.msg_id = (static_cast<uint64_t>(m.sender) << 32) | 77;
    m.stamp_s = 12.3;
    const auto buf = Encode<msg::RecruitMessage>([&](auto& fbb, auto h) { return ToMsg(fbb, h, m); });
    ASSERT_TRUE(messages::Verify<msg::RecruitMessage>(buf.data(), buf.size()));
    const Message back = FromMsg(*flatbuffers::GetRoot<msg::RecruitMessage>(buf.data()));
    EXPECT_EQ(back.type, m.type);
    EXPECT_EQ(back.sender, m.sender);
    EXPECT_EQ(back.recipient, m.recipient);
    EXPECT_EQ(back.request_id, m.request_id);
    EXPECT_EQ(back.msg_id, m.msg_id);
    EXPECT_DOUBLE_EQ(back.stamp_s, 12.3);
    EXPECT_EQ(back.percept, m.percept);
    EXPECT_DOUBLE_EQ(back.location.x, m.location.x);
    EXPECT_EQ(back.threshold_override, m.threshold_override);
    EXPECT_EQ(back.help_index, m.help_index);
    EXPECT_DOUBLE_EQ(back.eta_s, m.eta_s);
    EXPECT_EQ(back.responder_id, m.responder_id);
    EXPECT_DOUBLE_EQ(back.lease_s, m.lease_s);
    EXPECT_FALSE(Malformed(back).has_value()) << MsgTypeName(m.type);
  }
}

TEST(RecruitConvert, UnknownTypeSurvivesAndIsReportedMalformed) {
  Message m = MakeAgree(1, 2);
  m.type = static_cast<MsgType>(42);
  const auto buf = Encode<msg::RecruitMessage>([&](auto& fbb, auto h) { return ToMsg(fbb, h, m); });
  const Message back = FromMsg(*flatbuffers::GetRoot<msg::RecruitMessage>(buf.data()));
  EXPECT_TRUE(Malformed(back).has_value());
}

TEST(RecruitConvert, TelemetryAndRadioStatsRoundTrip) {
  AgentTelemetry t;
  t.robot_id = 5;
  t.role = "ugv";
  t.strategy = "affective";
  t.position = {3, 4};
  t.shame = 0.7;
  t.shame_now = 0.65;
  t.threshold = 0.75;
  t.responder_state = "PENDING";
  t.requester_state = "IDLE";
  t.last_decision = "accept";
  t.helps_received = 9;
  t.transmissions = {0, 2, 0, 1, 0, 1};
  t.last_wait_s = std::nan("");
  t.out_of_order = 3;
  t.lease_lapses = 2;
  const auto buf = Encode<msg::RecruitState>([&](auto& fbb, auto h) { return ToMsg(fbb, h, t); });
  ASSERT_TRUE(messages::Verify<msg::RecruitState>(buf.data(), buf.size()));
  const AgentTelemetry back = FromMsg(*flatbuffers::GetRoot<msg::RecruitState>(buf.data()));
  EXPECT_EQ(back.robot_id, 5u);
  EXPECT_EQ(back.responder_state, "PENDING");
  EXPECT_DOUBLE_EQ(back.shame_now, 0.65);
  EXPECT_EQ(back.transmissions, t.transmissions);
  EXPECT_TRUE(std::isnan(back.last_wait_s));
  EXPECT_EQ(back.out_of_order, 3u);
  EXPECT_EQ(back.lease_lapses, 2u);

  Radio radio({.loss = 0.0});
  radio.Transmit(MakeHelp(0, "p", {0, 0}, 1), 0, {0, 0}, {{0, {0, 0}}, {1, {1, 0}}});
  radio.Transmit(MakeAccept(1, 0, 1.0), 0, {1, 0}, {{0, {0, 0}}, {1, {1, 0}}});
  const auto rbuf =
      Encode<msg::RadioStats>([&](auto& fbb, auto h) { return ToMsg(fbb, h, radio.counts(), radio.options()); });
  ASSERT_TRUE(messages::Verify<msg::RadioStats>(rbuf.data(), rbuf.size()));
  const RadioCounts c = FromMsg(*flatbuffers::GetRoot<msg::RadioStats>(rbuf.data()));
  EXPECT_EQ(c.attempts, radio.counts().attempts);
  EXPECT_EQ(c.attempts_by_robot, radio.counts().attempts_by_robot);
}

}  // namespace
}  // namespace limbic::recruit
