#include "services/foxglove/bridge.hpp"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

namespace limbic::foxglove {
namespace {

using nlohmann::json;

struct FakeTransport : ClientTransport {
  std::map<ClientId, std::vector<std::string>> texts;
  std::map<ClientId, std::vector<std::vector<uint8_t>>> frames;
  std::map<ClientId, size_t> buffered;
  std::map<ClientId, std::string> dropped;
  bool SendText(ClientId c, const std::string& t) override {
    texts[c].push_back(t);
    return true;
  }
  bool SendBinary(ClientId c, const uint8_t* d, size_t n) override {
    frames[c].emplace_back(d, d + n);
    return true;
  }
  size_t Buffered(ClientId c) const override {
    auto it = buffered.find(c);
    return it == buffered.end() ? 0 : it->second;
  }
  void Drop(ClientId c, const std::string& why) override { dropped[c] = why; }
  json LastText(ClientId c) { return json::parse(texts.at(c).back()); }
};

const uint8_t kPayload[] = {8, 0, 0, 0, 'O', 'D', 'O', 'M'};

uint32_t U32(const std::vector<uint8_t>& f, size_t at) {
  return f[at] | (f[at + 1] << 8) | (f[at + 2] << 16) | (uint32_t(f[at + 3]) << 24);
}

TEST(Bridge, NewClientGetsServerInfoThenTheChannelsSoFar) {
  FakeTransport t;
  Bridge b({.name = "test"}, t, [] { return std::string("BFBS"); });
  b.OnNative("r1/odom", "limbic.msg.Odometry", kPayload, sizeof kPayload, 5, 0.0);
  b.OnClientOpen(1);
  ASSERT_EQ(t.texts[1].size(), 2u);
  const json info = json::parse(t.texts[1][0]);
  EXPECT_EQ(info["op"], "serverInfo");
  EXPECT_TRUE(info["capabilities"].empty());  // no publish functions given: no clientPublish
  const json adv = json::parse(t.texts[1][1]);
  ASSERT_EQ(adv["channels"].size(), 1u);
  EXPECT_EQ(adv["channels"][0]["topic"], "r1/odom");
  EXPECT_EQ(adv["channels"][0]["encoding"], "flatbuffer");
  EXPECT_EQ(adv["channels"][0]["schema"], "BFBS");
  EXPECT_TRUE(t.frames[1].empty());  // nothing before a subscription
}

TEST(Bridge, SubscribedClientsGetMessageDataWithTheirSubscriptionId) {
  FakeTransport t;
  Bridge b({}, t, [] { return std::string("BFBS"); });
  b.OnClientOpen(1);
  b.OnClientOpen(2);
  b.OnNative("r1/odom", "limbic.msg.Odometry", kPayload, sizeof kPayload, 5, 0.0);
  EXPECT_EQ(t.LastText(1)["op"], "advertise");  // late channels are advertised to everyone
  const uint32_t channel = t.LastText(1)["channels"][0]["id"];
  b.OnClientText(1, json{{"op", "subscribe"}, {"subscriptions", {{{"id", 42}, {"channelId", channel}}}}}.dump());
  b.OnNative("r1/odom", "limbic.msg.Odometry", kPayload, sizeof kPayload, 7'000'000'001, 0.1);
  ASSERT_EQ(t.frames[1].size(), 1u);
  EXPECT_TRUE(t.frames[2].empty());
  const auto& f = t.frames[1][0];
  ASSERT_EQ(f.size(), 13 + sizeof kPayload);
  EXPECT_EQ(f[0], 0x01);
  EXPECT_EQ(U32(f, 1), 42u);
  EXPECT_EQ(U32(f, 5) | (uint64_t(U32(f, 9)) << 32), 7'000'000'001u);
  EXPECT_EQ(std::vector<uint8_t>(f.begin() + 13, f.end()), std::vector<uint8_t>(kPayload, kPayload + 8));
  EXPECT_EQ(b.stats().messages_sent, 1u);

  b.OnClientText(1, R"({"op":"unsubscribe","subscriptionIds":[42]})");
  b.OnNative("r1/odom", "limbic.msg.Odometry", kPayload, sizeof kPayload, 8, 0.2);
  EXPECT_EQ(t.frames[1].size(), 1u);
}

TEST(Bridge, DerivedChannelsAreJsonWithAJsonSchema) {
  FakeTransport t;
  Bridge b({}, t, [] { return std::string("BFBS"); });
  b.OnClientOpen(1);
  b.OnDerived({"foxglove/r1/tf", "foxglove.FrameTransform", R"({"x":1})"}, 1, 0.0);
  const json adv = t.LastText(1);
  EXPECT_EQ(adv["channels"][0]["encoding"], "json");
  EXPECT_EQ(adv["channels"][0]["schemaEncoding"], "jsonschema");
  EXPECT_EQ(json::parse(adv["channels"][0]["schema"].get<std::string>())["type"], "object");
}

TEST(Bridge, TypeChangeUnadvertisesAndForgetsSubscriptions) {
  FakeTransport t;
  Bridge b({}, t, [] { return std::string("BFBS"); });
  b.OnClientOpen(1);
  b.OnNative("x", "limbic.msg.Clock", kPayload, sizeof kPayload, 1, 0.0);
  b.OnClientText(1, R"({"op":"subscribe","subscriptions":[{"id":1,"channelId":1}]})");
  b.OnNative("x", "limbic.msg.Odometry", kPayload, sizeof kPayload, 1, 0.0);
  const auto& texts = t.texts[1];
  ASSERT_GE(texts.size(), 2u);
  EXPECT_EQ(json::parse(texts[texts.size() - 2])["op"], "unadvertise");
  EXPECT_EQ(json::parse(texts.back())["channels"][0]["id"], 2);
  EXPECT_TRUE(t.frames[1].empty());  // the subscription was to the old channel
}

TEST(Bridge, BadRequestsGetAnErrorStatusAndTheClientStays) {
  FakeTransport t;
  Bridge b({}, t, [] { return std::string("BFBS"); });
  b.OnClientOpen(1);
  b.OnClientText(1, "garbage");
  EXPECT_EQ(t.LastText(1)["op"], "status");
  EXPECT_EQ(t.LastText(1)["level"], 2);
  b.OnClientText(1, R"({"op":"subscribe","subscriptions":[{"id":1,"channelId":77}]})");
  EXPECT_NE(t.LastText(1)["message"].get<std::string>().find("no channel 77"), std::string::npos);
  b.OnClientText(1, R"({"op":"advertise","channels":[{"id":1,"topic":"r1/goal","encoding":"json","schemaName":"x"}]})");
  EXPECT_NE(t.LastText(1)["message"].get<std::string>().find("does not accept client publishing"), std::string::npos);
  const uint8_t frame[] = {0x01, 1, 0, 0, 0, '{', '}'};
  b.OnClientBinary(1, frame, sizeof frame);
  EXPECT_EQ(t.LastText(1)["level"], 2);
  EXPECT_EQ(b.stats().bad_requests, 4u);
  EXPECT_TRUE(t.dropped.empty());
  EXPECT_EQ(b.client_count(), 1u);
}

TEST(Bridge, ClientPublishingGoesThroughAcceptAndPublish) {
  FakeTransport t;
  std::vector<std::string> published;
  Bridge b(
      {}, t, [] { return std::string("BFBS"); }, {"json"},
      [](const ClientChannel& c) { return c.schema_name == "limbic.msg.NavGoal" ? "" : std::string("not a type"); },
      [&](const ClientChannel& c, const uint8_t* d, size_t n) {
        std::string body(reinterpret_cast<const char*>(d), n);
        if (body == "bad") return std::string("bad JSON");
        published.push_back(c.topic + " " + body);
        return std::string();
      });
  b.OnClientOpen(1);
  EXPECT_EQ(json::parse(t.texts[1][0])["capabilities"], json::array({"clientPublish"}));
  EXPECT_EQ(json::parse(t.texts[1][0])["supportedEncodings"], json::array({"json"}));
  b.OnClientText(
      1,
      R"({"op":"advertise","channels":[{"id":3,"topic":"r1/goal","encoding":"json","schemaName":"limbic.msg.NavGoal"},
                                                    {"id":4,"topic":"r1/x","encoding":"cdr","schemaName":"limbic.msg.NavGoal"}]})");
  EXPECT_NE(t.LastText(1)["message"].get<std::string>().find("encoding 'cdr' is not supported"), std::string::npos);
  const uint8_t good[] = {0x01, 3, 0, 0, 0, '{', '}'};
  b.OnClientBinary(1, good, sizeof good);
  ASSERT_EQ(published.size(), 1u);
  EXPECT_EQ(published[0], "r1/goal {}");
  const uint8_t bad[] = {0x01, 3, 0, 0, 0, 'b', 'a', 'd'};
  b.OnClientBinary(1, bad, sizeof bad);
  EXPECT_NE(t.LastText(1)["message"].get<std::string>().find("bad JSON"), std::string::npos);
  EXPECT_EQ(b.stats().client_messages_published, 1u);
}

TEST(Bridge, AClientThatStopsReadingLosesMessagesThenIsDroppedWhileOthersCarryOn) {
  FakeTransport t;
  Bridge b({.budget = {.max_buffered_bytes = 1000, .high_water = 0.5, .stall_timeout_s = 2.0}}, t,
           [] { return std::string("BFBS"); });
  b.OnClientOpen(1);
  b.OnClientOpen(2);
  b.OnNative("r1/odom", "limbic.msg.Odometry", kPayload, sizeof kPayload, 1, 0.0);
  for (ClientId c : {1, 2}) b.OnClientText(c, R"({"op":"subscribe","subscriptions":[{"id":0,"channelId":1}]})");
  t.buffered[1] = 995;  // client 1 stopped reading
  b.OnNative("r1/odom", "limbic.msg.Odometry", kPayload, sizeof kPayload, 2, 1.0);
  EXPECT_EQ(b.stats().messages_skipped, 1u);
  EXPECT_TRUE(t.frames[1].empty());
  EXPECT_TRUE(t.dropped.empty());
  b.OnNative("r1/odom", "limbic.msg.Odometry", kPayload, sizeof kPayload, 3, 3.5);
  ASSERT_EQ(t.dropped.count(1), 1u);
  EXPECT_NE(t.dropped[1].find("stopped reading"), std::string::npos);
  EXPECT_EQ(b.stats().clients_dropped_slow, 1u);
  EXPECT_EQ(b.client_count(), 1u);
  EXPECT_EQ(t.frames[2].size(), 2u);  // the reading client got every message since it subscribed
}

TEST(Bridge, ClientsBeyondTheLimitAreRefused) {
  FakeTransport t;
  Bridge b({.max_clients = 1}, t, [] { return std::string("BFBS"); });
  b.OnClientOpen(1);
  b.OnClientOpen(2);
  EXPECT_EQ(b.client_count(), 1u);
  EXPECT_EQ(t.dropped.count(2), 1u);
  EXPECT_EQ(t.LastText(2)["level"], 2);
  EXPECT_EQ(b.stats().clients_refused, 1u);
}

}  // namespace
}  // namespace limbic::foxglove
