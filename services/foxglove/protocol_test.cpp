#include "services/foxglove/protocol.hpp"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

namespace limbic::foxglove {
namespace {

using nlohmann::json;

TEST(FoxgloveProtocol, ServerInfoNamesCapabilitiesAndEncodingsOnlyWhenPublishing) {
  const json with = json::parse(ServerInfoJson("bridge", {"clientPublish"}, {"json"}, "42"));
  EXPECT_EQ(with["op"], "serverInfo");
  EXPECT_EQ(with["capabilities"], json::array({"clientPublish"}));
  EXPECT_EQ(with["supportedEncodings"], json::array({"json"}));
  EXPECT_EQ(with["sessionId"], "42");
  const json without = json::parse(ServerInfoJson("bridge", {}, {}, "1"));
  EXPECT_FALSE(without.contains("supportedEncodings"));
}

TEST(FoxgloveProtocol, AdvertiseAndUnadvertiseCarryEveryField) {
  const json a =
      json::parse(AdvertiseJson({{7, "r1/odom", "flatbuffer", "limbic.msg.Odometry", "QUJD", "flatbuffer"}}));
  ASSERT_EQ(a["channels"].size(), 1u);
  EXPECT_EQ(a["op"], "advertise");
  EXPECT_EQ(a["channels"][0]["id"], 7);
  EXPECT_EQ(a["channels"][0]["schemaName"], "limbic.msg.Odometry");
  EXPECT_EQ(a["channels"][0]["schemaEncoding"], "flatbuffer");
  EXPECT_EQ(json::parse(UnadvertiseJson({3, 4}))["channelIds"], json::array({3, 4}));
}

TEST(FoxgloveProtocol, MessageDataFrameIsLittleEndian) {
  const uint8_t payload[] = {0xAA, 0xBB};
  const auto f = MessageDataFrame(0x01020304, 0x1122334455667788ull, payload, 2);
  const std::vector<uint8_t> expected{0x01, 0x04, 0x03, 0x02, 0x01, 0x88, 0x77, 0x66,
                                      0x55, 0x44, 0x33, 0x22, 0x11, 0xAA, 0xBB};
  EXPECT_EQ(f, expected);
}

TEST(FoxgloveProtocol, ParsesSubscribeUnsubscribeAdvertiseUnadvertise) {
  auto s = std::get<SubscribeRequest>(
      ParseClientText(R"({"op":"subscribe","subscriptions":[{"id":0,"channelId":3},{"id":1,"channelId":5}]})"));
  ASSERT_EQ(s.subscriptions.size(), 2u);
  EXPECT_EQ(s.subscriptions[1].id, 1u);
  EXPECT_EQ(s.subscriptions[1].channel_id, 5u);
  auto u = std::get<UnsubscribeRequest>(ParseClientText(R"({"op":"unsubscribe","subscriptionIds":[0,1]})"));
  EXPECT_EQ(u.subscription_ids, (std::vector<uint32_t>{0, 1}));
  auto a = std::get<ClientAdvertiseRequest>(ParseClientText(
      R"({"op":"advertise","channels":[{"id":2,"topic":"r1/goal","encoding":"json","schemaName":"limbic.msg.NavGoal"}]})"));
  ASSERT_EQ(a.channels.size(), 1u);
  EXPECT_EQ(a.channels[0].topic, "r1/goal");
  EXPECT_EQ(a.channels[0].schema_name, "limbic.msg.NavGoal");
  auto d = std::get<ClientUnadvertiseRequest>(ParseClientText(R"({"op":"unadvertise","channelIds":[2]})"));
  EXPECT_EQ(d.channel_ids, (std::vector<uint32_t>{2}));
}

TEST(FoxgloveProtocol, BadRequestsThrowWithAReadableMessage) {
  EXPECT_THROW(ParseClientText("{not json"), ProtocolError);
  EXPECT_THROW(ParseClientText("[1,2]"), ProtocolError);
  EXPECT_THROW(ParseClientText(R"({"subscriptions":[]})"), ProtocolError);
  EXPECT_THROW(ParseClientText(R"({"op":"subscribe"})"), ProtocolError);
  EXPECT_THROW(ParseClientText(R"({"op":"subscribe","subscriptions":[{"id":-1,"channelId":3}]})"), ProtocolError);
  EXPECT_THROW(ParseClientText(R"({"op":"subscribe","subscriptions":[{"id":4294967296,"channelId":3}]})"),
               ProtocolError);
  EXPECT_THROW(ParseClientText(R"({"op":"subscribe","subscriptions":[{"id":1.5,"channelId":3}]})"), ProtocolError);
  EXPECT_THROW(ParseClientText(R"({"op":"unsubscribe","subscriptionIds":"0"})"), ProtocolError);
  try {
    ParseClientText(R"({"op":"getParameters","parameterNames":[]})");
    FAIL() << "unsupported op accepted";
  } catch (const ProtocolError& e) {
    EXPECT_NE(std::string(e.what()).find("getParameters"), std::string::npos) << e.what();
  }
}

TEST(FoxgloveProtocol, ClientBinaryFrames) {
  const uint8_t ok[] = {0x01, 0x05, 0x00, 0x00, 0x00, 'h', 'i'};
  const ClientMessage m = ParseClientBinary(ok, sizeof ok);
  EXPECT_EQ(m.channel_id, 5u);
  ASSERT_EQ(m.size, 2u);
  EXPECT_EQ(m.data[0], 'h');
  const uint8_t short_frame[] = {0x01, 0x05};
  EXPECT_THROW(ParseClientBinary(short_frame, sizeof short_frame), ProtocolError);
  const uint8_t other[] = {0x02, 0, 0, 0, 0};
  EXPECT_THROW(ParseClientBinary(other, sizeof other), ProtocolError);
  EXPECT_THROW(ParseClientBinary(ok, 0), ProtocolError);
}

TEST(FoxgloveProtocol, Base64MatchesRfc4648Vectors) {
  // RFC 4648 §10 test vectors.
  auto b = [](const std::string& s) { return Base64(reinterpret_cast<const uint8_t*>(s.data()), s.size()); };
  EXPECT_EQ(b(""), "");
  EXPECT_EQ(b("f"), "Zg==");
  EXPECT_EQ(b("fo"), "Zm8=");
  EXPECT_EQ(b("foo"), "Zm9v");
  EXPECT_EQ(b("foob"), "Zm9vYg==");
  EXPECT_EQ(b("fooba"), "Zm9vYmE=");
  EXPECT_EQ(b("foobar"), "Zm9vYmFy");
}

}  // namespace
}  // namespace limbic::foxglove
