#include "common/bus/directory.hpp"

#include <gtest/gtest.h>

namespace limbic::bus {
namespace {

DirectoryEntry E(std::string topic, std::string endpoint) { return {std::move(topic), std::move(endpoint)}; }

std::vector<DirectoryEntry> Under(const Directory& d, const std::string& prefix) {
  std::vector<DirectoryEntry> out;
  d.ForEachUnder(prefix, [&](const DirectoryEntry& e) { out.push_back(e); });
  return out;
}

TEST(DirectoryEntryWire, RoundTrips) {
  const DirectoryEntry e = E("r1/scan", "ipc:///tmp/bus.d/12-0");
  const std::string frame = EncodeDirectoryEntry(kAnnounce, e);
  ASSERT_EQ(static_cast<uint8_t>(frame[0]), kAnnounce);
  std::string why;
  const auto parsed = ParseDirectoryEntry(std::string_view(frame).substr(1), &why);
  ASSERT_TRUE(parsed.has_value()) << why;
  EXPECT_EQ(*parsed, e);
}

TEST(DirectoryEntryWire, RejectsMalformedWithAReason) {
  const auto rejects = [](std::string body, const std::string& reason) {
    std::string why;
    EXPECT_FALSE(ParseDirectoryEntry(body, &why).has_value()) << body;
    EXPECT_NE(why.find(reason), std::string::npos) << "'" << why << "' for " << body;
  };
  rejects("ipc:///tmp/x", "separator");
  rejects(std::string("ipc:///tmp/x\0", 13), "empty topic");
  rejects(std::string("udp://h:1\0t", 11), "not ipc");
  rejects(std::string("tcp://\0t", 8), "nothing after");
  rejects(std::string("tcp://*:5\0t", 11), "wildcard");
  rejects(std::string("ipc:///tmp/x\0bus/hwm/t", 22), "report topic");
  rejects(std::string("ipc:///tmp/\nx\0t", 15), "control characters");
  rejects("ipc://" + std::string(300, 'a') + std::string("\0t", 2), "endpoint too long");
  rejects(std::string("ipc://a\0", 8) + std::string(300, 't'), "topic too long");
  EXPECT_FALSE(ParseDirectoryEntry("", nullptr).has_value());  // no reason asked for: still no crash
}

// On a CURVE bus the broker's entries carry the publisher's authenticated key (Z85) after a second separator.
TEST(DirectoryEntryWire, AKeyRoundTripsAndABadOneIsRejected) {
  const std::string key = "rq:rM>}U?@Lns47E1%kR.o@n%FcmmsL/@{H8]yf7";
  const DirectoryEntry e{"r1/scan", "tcp://10.0.0.2:41234", key};
  const std::string frame = EncodeDirectoryEntry(kAnnounce, e);
  std::string why;
  const auto parsed = ParseDirectoryEntry(std::string_view(frame).substr(1), &why);
  ASSERT_TRUE(parsed.has_value()) << why;
  EXPECT_EQ(*parsed, e);
  EXPECT_FALSE(ParseDirectoryEntry(std::string("tcp://h:1\0t\0short", 17), &why).has_value());
  EXPECT_NE(why.find("Z85"), std::string::npos) << why;
  EXPECT_FALSE(ParseDirectoryEntry(std::string("tcp://h:1\0t\0", 12) + std::string(40, '~'), &why).has_value());
  EXPECT_FALSE(ParseDirectoryEntry(std::string("tcp://h:1\0t\0", 12) + key + std::string("\0x", 2), &why).has_value());
}

TEST(AdmittedKeysWire, RoundTripsAndRejectsPartialKeys) {
  const std::vector<std::string> keys = {"rq:rM>}U?@Lns47E1%kR.o@n%FcmmsL/@{H8]yf7",
                                         "Yne@$w-vo<fVvi]a<NY6T1ed:M$fCG*[IaLV{hID"};
  const std::string frame = EncodeAdmittedKeys(keys);
  ASSERT_EQ(static_cast<uint8_t>(frame[0]), kAdmittedKeys);
  std::string why;
  EXPECT_EQ(ParseAdmittedKeys(std::string_view(frame).substr(1), &why), keys) << why;
  EXPECT_EQ(ParseAdmittedKeys("", &why), std::vector<std::string>{});  // a broker that admits nobody
  EXPECT_FALSE(ParseAdmittedKeys(std::string_view(frame).substr(1, 50), &why).has_value());
  EXPECT_NE(why.find("whole number"), std::string::npos) << why;
  EXPECT_FALSE(ParseAdmittedKeys(std::string(40, '~'), &why).has_value());
  EXPECT_NE(why.find("Z85"), std::string::npos) << why;
}

TEST(Directory, AnnounceIsNewOnceAcrossPublishers) {
  Directory d;
  EXPECT_EQ(d.Announce("p1", E("a", "ipc://x")), Directory::Announced::kNew);
  EXPECT_EQ(d.Announce("p1", E("a", "ipc://x")), Directory::Announced::kKnown);
  // The same publisher reconnected under a new routing id: nothing new for subscribers.
  EXPECT_EQ(d.Announce("p2", E("a", "ipc://x")), Directory::Announced::kKnown);
  EXPECT_EQ(d.entries(), 1u);
  EXPECT_EQ(d.publishers(), 2u);
  EXPECT_EQ(d.RemovePublisher("p1").size(), 1u);
  EXPECT_TRUE(d.Offered(E("a", "ipc://x")));  // p2 still offers it
  EXPECT_EQ(d.RemovePublisher("p2").size(), 1u);
  EXPECT_FALSE(d.Offered(E("a", "ipc://x")));
  EXPECT_EQ(d.entries(), 0u);
  EXPECT_TRUE(d.RemovePublisher("nobody").empty());
}

TEST(Directory, PrefixLookupFindsEveryEndpointOfMatchingTopics) {
  Directory d;
  d.Announce("p1", E("r1/scan", "ipc://one"));
  d.Announce("p2", E("r1/scan", "ipc://two"));
  d.Announce("p2", E("r1/odom", "ipc://two"));
  d.Announce("p3", E("r2/scan", "ipc://three"));
  EXPECT_EQ(Under(d, "r1/").size(), 3u);
  EXPECT_EQ(Under(d, "r1/scan").size(), 2u);
  EXPECT_EQ(Under(d, "").size(), 4u);
  EXPECT_TRUE(Under(d, "r3").empty());
}

TEST(Directory, WithdrawRemovesOnlyThatEntry) {
  Directory d;
  d.Announce("p1", E("a", "ipc://x"));
  d.Announce("p1", E("b", "ipc://x"));
  EXPECT_TRUE(d.Withdraw("p1", E("a", "ipc://x")));
  EXPECT_FALSE(d.Withdraw("p1", E("a", "ipc://x")));
  EXPECT_FALSE(d.Withdraw("p9", E("b", "ipc://x")));
  EXPECT_EQ(Under(d, "").size(), 1u);
  EXPECT_TRUE(d.Knows("p1"));
  EXPECT_TRUE(d.Withdraw("p1", E("b", "ipc://x")));
  EXPECT_FALSE(d.Knows("p1"));
}

TEST(Directory, LimitsRefuseAndCount) {
  Directory d(DirectoryLimits{2, 2});
  EXPECT_EQ(d.Announce("p1", E("a", "ipc://x")), Directory::Announced::kNew);
  EXPECT_EQ(d.Announce("p1", E("b", "ipc://x")), Directory::Announced::kNew);
  EXPECT_EQ(d.Announce("p1", E("c", "ipc://x")), Directory::Announced::kRefused);
  EXPECT_EQ(d.Announce("p2", E("c", "ipc://y")), Directory::Announced::kNew);
  EXPECT_EQ(d.Announce("p3", E("c", "ipc://z")), Directory::Announced::kRefused);
  EXPECT_EQ(d.refused(), 2u);
  EXPECT_EQ(d.entries(), 3u);
}

TEST(DirectLinks, ConnectsOncePerEndpointAndSubscribesOncePerTopic) {
  DirectLinks links;
  auto c = links.Add(E("a", "ipc://x"));
  EXPECT_TRUE(c.connect);
  EXPECT_TRUE(c.subscribe);
  c = links.Add(E("b", "ipc://x"));
  EXPECT_FALSE(c.connect);
  EXPECT_TRUE(c.subscribe);
  c = links.Add(E("a", "ipc://y"));
  EXPECT_TRUE(c.connect);
  EXPECT_FALSE(c.subscribe);
  c = links.Add(E("a", "ipc://y"));  // repeated: nothing to do
  EXPECT_FALSE(c.connect || c.subscribe);
  EXPECT_EQ(links.endpoints(), 2u);
  EXPECT_EQ(links.topics(), 2u);

  c = links.Remove(E("a", "ipc://x"));
  EXPECT_FALSE(c.disconnect);   // b is still there
  EXPECT_FALSE(c.unsubscribe);  // a still comes from y
  c = links.Remove(E("a", "ipc://y"));
  EXPECT_TRUE(c.disconnect);
  EXPECT_TRUE(c.unsubscribe);
  c = links.Remove(E("zz", "ipc://q"));  // unknown: nothing
  EXPECT_FALSE(c.disconnect || c.unsubscribe);
  EXPECT_TRUE(links.Has(E("b", "ipc://x")));
  EXPECT_FALSE(links.Has(E("a", "ipc://x")));
}

// A node lets go of an endpoint only where its data socket is drained (the libzmq hazard in directory.hpp): until
// then it lingers, and an announcement of it meanwhile takes it up again without a second connection (which would
// deliver everything twice) — unless the publisher there has another key.
TEST(DirectLinks, AnEndpointWithNoTopicLeftLingersUntilTakenAndIsTakenUpAgainWithoutASecondConnection) {
  DirectLinks links;
  links.Add(E("a", "ipc://x"));
  links.Add(E("b", "ipc://y"));
  auto c = links.Remove(E("a", "ipc://x"));
  EXPECT_TRUE(c.disconnect);
  EXPECT_EQ(links.endpoints(), 1u);
  EXPECT_EQ(links.lingering(), 1u);
  c = links.Add(E("c", "ipc://x"));  // back before the data socket was drained: still connected
  EXPECT_FALSE(c.connect);
  EXPECT_FALSE(c.reconnect);
  EXPECT_TRUE(c.subscribe);
  EXPECT_EQ(links.lingering(), 0u);
  EXPECT_TRUE(links.TakeLingering().empty());

  links.Remove(E("c", "ipc://x"));
  links.Remove(E("b", "ipc://y"));
  EXPECT_EQ(links.endpoints(), 0u);
  EXPECT_EQ(links.TakeLingering(), (std::vector<std::string>{"ipc://x", "ipc://y"}));
  EXPECT_EQ(links.lingering(), 0u);
  c = links.Add(E("a", "ipc://x"));  // let go of: a new connection
  EXPECT_TRUE(c.connect);
  EXPECT_FALSE(c.reconnect);

  // CURVE: the connection was made with the publisher's key as server key; another key needs a new connection, made
  // at the same safe point as a disconnect (right after the old one is let go of there).
  DirectLinks keyed;
  keyed.Add({"a", "tcp://h:1", "KEY1"});
  keyed.Remove({"a", "tcp://h:1", ""});  // a withdrawal without a key (a broker without CURVE) takes any key's
  c = keyed.Add({"a", "tcp://h:1", "KEY1"});
  EXPECT_FALSE(c.connect);
  keyed.Remove({"a", "tcp://h:1", "KEY1"});
  c = keyed.Add({"a", "tcp://h:1", "KEY2"});
  EXPECT_FALSE(c.connect) << "not while the old connection may still have something half-read";
  EXPECT_TRUE(c.reconnect);
  EXPECT_EQ(keyed.lingering(), 1u);
  EXPECT_EQ(keyed.endpoints(), 1u);
  EXPECT_EQ(keyed.TakeLingering(), (std::vector<std::string>{"tcp://h:1"}));
  EXPECT_EQ(keyed.TakeReconnects(), (std::vector<std::pair<std::string, std::string>>{{"tcp://h:1", "KEY2"}}));
  EXPECT_EQ(keyed.lingering(), 0u);
  EXPECT_TRUE(keyed.TakeReconnects().empty());
  c = keyed.Add({"b", "tcp://h:1", "KEY2"});  // connected with KEY2 now
  EXPECT_FALSE(c.connect);
  EXPECT_FALSE(c.reconnect);
}

// A publisher restarted at the same endpoint with a new key is announced by the broker before it withdraws the old
// one (it finds the old connection gone at its next ping): the withdrawal of the old key's entry leaves the new one
// linked, and the connection is remade once, with the new key.
TEST(DirectLinks, ANewKeyAnnouncedBeforeTheOldOneIsWithdrawnKeepsTheEndpoint) {
  DirectLinks links;
  EXPECT_TRUE(links.Add({"a", "tcp://h:1", "KEY1"}).connect);
  auto c = links.Add({"a", "tcp://h:1", "KEY2"});
  EXPECT_FALSE(c.connect);
  EXPECT_TRUE(c.reconnect);
  EXPECT_FALSE(c.subscribe);
  EXPECT_EQ(links.EndpointsOf("a"), 1u) << "one endpoint, whatever the keys announced there";
  c = links.Remove({"a", "tcp://h:1", "KEY1"});
  EXPECT_FALSE(c.disconnect);
  EXPECT_FALSE(c.unsubscribe);
  EXPECT_TRUE(links.Has({"a", "tcp://h:1", "KEY2"}));
  EXPECT_EQ(links.TakeLingering(), (std::vector<std::string>{"tcp://h:1"}));
  EXPECT_EQ(links.TakeReconnects(), (std::vector<std::pair<std::string, std::string>>{{"tcp://h:1", "KEY2"}}));
  c = links.Remove({"a", "tcp://h:1", "KEY2"});
  EXPECT_TRUE(c.disconnect);
  EXPECT_TRUE(c.unsubscribe);
  EXPECT_EQ(links.endpoints(), 0u);

  // Gone again before the safe point: let go of, not reconnected.
  links.TakeLingering();
  links.Add({"a", "tcp://h:2", "KEY1"});
  links.Add({"a", "tcp://h:2", "KEY2"});
  links.Remove({"a", "tcp://h:2", ""});
  EXPECT_EQ(links.TakeLingering(), (std::vector<std::string>{"tcp://h:2"}));
  EXPECT_TRUE(links.TakeReconnects().empty());
}

}  // namespace
}  // namespace limbic::bus
