// Direct delivery's bookkeeping (issue 23 item 1; docs/protocol.md §13), as plain classes without ZeroMQ.
//
// On the direct data path a publisher binds a data socket of its own and announces "topic T at endpoint E" to the
// broker over its DEALER; the broker keeps a Directory (topic -> endpoints, per publisher connection) and tells each
// subscriber whose subscriptions match where to connect; the subscriber keeps its DirectLinks (which endpoints its
// data socket is connected to, which topics it subscribed there) so that it connects once per endpoint and lets go
// of one when no topic is left on it. The data then flows publisher -> subscriber without crossing the broker.
//
// Wire form of an entry, one frame both ways (DEALER -> broker: announce / withdraw; broker -> DEALER: connect /
// disconnect): [code][ENDPOINT]\0[TOPIC], code kAnnounce (2) or kWithdraw (3). On a CURVE bus the broker's entries
// end in \0[KEY]: the publisher's public key (Z85) as the broker authenticated it on that publisher's connection, the
// server key a subscriber's data socket must expect there (a publisher never names a key; the broker refuses an
// announcement that does). Anything else with those codes is rejected by Parse (counted by the receiver, never acted
// on).
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

namespace limbic::bus {

inline constexpr uint8_t kAnnounce = 2;
inline constexpr uint8_t kWithdraw = 3;
// Broker -> publisher, one frame [kUseBroker][TOPIC]: publish TOPIC through the broker from now on (a communication
// fault is active on it, and faults are applied where the broker forwards).
inline constexpr uint8_t kUseBroker = 4;
// Broker -> a direct publisher on a CURVE bus, one frame [kAdmittedKeys][KEY][KEY]...: the client public keys (Z85,
// 40 characters each) the broker admits, sent on the connection's first announcement; the publisher's data socket
// admits exactly these (docs/protocol.md §13, "CURVE").
inline constexpr uint8_t kAdmittedKeys = 5;
inline constexpr size_t kZ85KeyBytes = 40;
// Publisher -> broker, one frame [kTopicType][TOPIC]\0[IDENTIFIER], after TOPIC's announcement: the message type a
// typed publisher sends there (its 4-character identifier), so that bus/stats can name the type of a topic the broker
// does not carry. A broker that predates it counts it as an unknown control code and ignores it.
inline constexpr uint8_t kTopicType = 6;
// Longest endpoint accepted (an ipc path is at most 107 bytes, plus the scheme) and longest topic (as the broker's).
inline constexpr size_t kMaxEndpointBytes = 256;
inline constexpr size_t kMaxDirectoryTopicBytes = 256;

struct DirectoryEntry {
  std::string topic;
  std::string endpoint;
  std::string key;  // CURVE: the publisher's authenticated public key (Z85); empty without CURVE
  bool operator<(const DirectoryEntry& o) const {
    return std::tie(topic, endpoint, key) < std::tie(o.topic, o.endpoint, o.key);
  }
  bool operator==(const DirectoryEntry& o) const = default;
};

// [code][endpoint]\0[topic], and \0[key] if it has one
std::string EncodeDirectoryEntry(uint8_t code, const DirectoryEntry& entry);
// The frame after its code byte. Empty with `why` set for anything malformed: no separator, an endpoint that is
// not ipc://, tcp:// or inproc:// with something after the scheme, control characters, too long, an empty topic or
// one under bus/hwm/ (reports travel beside their topic, never announced on their own), a key that is not 40
// characters of Z85.
std::optional<DirectoryEntry> ParseDirectoryEntry(std::string_view body, std::string* why);
// The body of a kAdmittedKeys frame (after its code): the keys, or empty with `why` set if it is not a whole number
// of Z85 keys.
std::optional<std::vector<std::string>> ParseAdmittedKeys(std::string_view body, std::string* why);
std::string EncodeAdmittedKeys(const std::vector<std::string>& keys);
bool IsZ85Text(std::string_view text);  // 40 characters of the Z85 alphabet
struct TopicType {
  std::string topic;
  std::string identifier;
};
std::string EncodeTopicType(const TopicType& type);
// The body after the code: empty with `why` set if there is no separator, the topic is empty, too long or has control
// characters, or the identifier is not 4 printable characters (whether it is a known one is the caller's question).
std::optional<TopicType> ParseTopicType(std::string_view body, std::string* why);

struct DirectoryLimits {
  size_t max_publishers = 4096;  // connections with announcements
  size_t max_topics_per_publisher = 1024;
};

// The broker's directory: which publisher connection (ZeroMQ routing id) offers which topic at which endpoint.
class Directory {
 public:
  explicit Directory(DirectoryLimits limits = {}) : limits_(limits) {}

  enum class Announced {
    kNew,      // a new entry: tell the matching subscribers
    kKnown,    // re-announced (keepalive after a broker restart, or a repeat): nothing to tell
    kRefused,  // over a limit (counted)
  };
  Announced Announce(const std::string& publisher, const DirectoryEntry& entry);
  // True if it was there. The caller tells the matching subscribers if no other publisher offers the same entry
  // (Offered).
  bool Withdraw(const std::string& publisher, const DirectoryEntry& entry);
  // The publisher has gone (unreachable, or its connection was replaced): its entries, now removed.
  std::vector<DirectoryEntry> RemovePublisher(const std::string& publisher);
  // Does any publisher still offer this exact entry?
  bool Offered(const DirectoryEntry& entry) const;
  bool Knows(const std::string& publisher) const { return by_publisher_.count(publisher) != 0; }
  // Does `publisher` offer `topic` (at any endpoint)?
  bool Offers(const std::string& publisher, const std::string& topic) const {
    auto it = by_publisher_.find(publisher);
    if (it == by_publisher_.end()) return false;
    auto entry = it->second.lower_bound(DirectoryEntry{topic, "", ""});
    return entry != it->second.end() && entry->topic == topic;
  }
  // Does any publisher offer exactly this topic?
  bool OffersTopic(const std::string& topic) const {
    auto it = offers_.lower_bound(DirectoryEntry{topic, ""});
    return it != offers_.end() && it->first.topic == topic;
  }

  // fn(entry) for each distinct entry whose topic starts with `prefix`.
  template <typename Fn>
  void ForEachUnder(const std::string& prefix, Fn&& fn) const {
    for (auto it = offers_.lower_bound(DirectoryEntry{prefix, ""}); it != offers_.end(); ++it) {
      if (it->first.topic.compare(0, prefix.size(), prefix) != 0) break;
      fn(it->first);
    }
  }
  // fn(publisher, endpoint) for each connection offering exactly `topic`.
  template <typename Fn>
  void ForEachOfferOf(const std::string& topic, Fn&& fn) const {
    for (const auto& [id, entries] : by_publisher_) {
      for (auto it = entries.lower_bound(DirectoryEntry{topic, ""}); it != entries.end() && it->topic == topic; ++it) {
        fn(id, it->endpoint);
      }
    }
  }
  template <typename Fn>
  void ForEachPublisher(Fn&& fn) const {
    for (const auto& [id, entries] : by_publisher_) fn(id);
  }

  size_t publishers() const { return by_publisher_.size(); }
  size_t entries() const { return offers_.size(); }
  uint64_t refused() const { return refused_; }

 private:
  DirectoryLimits limits_;
  std::map<std::string, std::set<DirectoryEntry>> by_publisher_;
  std::map<DirectoryEntry, size_t> offers_;  // entry -> how many publisher connections offer it
  uint64_t refused_ = 0;
};

// A subscriber's direct links: what its data socket must connect to and subscribe.
//
// An endpoint whose last topic goes is not let go of at once but *lingers* until the caller's next safe point
// (TakeLingering): libzmq 4.3's fair queue (fq.cpp) keeps its place in a half-read multipart message as an index into
// its pipes, and a pipe it still counts as active that is terminated — the acknowledgement of a disconnect, processed
// inside a later receive — swaps another pipe into that place: the message's next frame comes from another
// publisher (two messages lost as malformed), or the process aborts on fq.cpp's `!_more`. A socket just drained to
// EAGAIN counts no pipe active, so a disconnect made there is safe (docs/protocol.md §13).
//
// CURVE: a connection is made with the publisher's key as its server key, so a publisher at the same endpoint with
// another key (one restarted there) needs a new connection. That reconnection waits for the same safe point: the old
// connection is let go of there (after what it had delivered was read), and the new one made right after
// (TakeReconnects). Entries are kept per key: the broker may name the new publisher before it withdraws the old one
// (it finds the old connection gone only at its next ping), and that withdrawal must not take the endpoint away
// from the new one.
class DirectLinks {
 public:
  struct Change {
    bool connect = false;      // first topic on this endpoint: connect the data socket to it (with entry.key)
    bool reconnect = false;    // connected with another key: let go of it and connect again, at the safe point
    bool subscribe = false;    // first endpoint for this topic: subscribe the data socket to it (and its reports)
    bool disconnect = false;   // last topic on this endpoint gone: it lingers until TakeLingering
    bool unsubscribe = false;  // last endpoint for this topic gone
  };
  Change Add(const DirectoryEntry& entry);
  // A withdrawal with a key removes that key's entry only; without one (a broker without CURVE), the topic's at that
  // endpoint whatever the key.
  Change Remove(const DirectoryEntry& entry);
  // The endpoints to disconnect now; call only where the data socket has nothing half-read (drained to EAGAIN).
  std::vector<std::string> TakeLingering();
  // Right after TakeLingering's disconnects: the endpoints to connect again and the key each is to be connected with.
  std::vector<std::pair<std::string, std::string>> TakeReconnects();
  size_t endpoints() const { return entries_at_.size(); }
  // Connections waiting for the safe point: to be let go of, or remade with a new key.
  size_t lingering() const { return lingering_.size(); }
  size_t topics() const { return endpoints_of_.size(); }
  bool Has(const DirectoryEntry& entry) const;
  size_t EndpointsOf(const std::string& topic) const {
    auto it = endpoints_of_.find(topic);
    return it == endpoints_of_.end() ? 0 : it->second.size();
  }
  // fn(topic, number of endpoints offering it) for each topic linked.
  template <typename Fn>
  void ForEachTopic(Fn&& fn) const {
    for (const auto& [topic, endpoints] : endpoints_of_) fn(topic, endpoints.size());
  }

 private:
  // endpoint -> (topic, key) entries there
  std::map<std::string, std::set<std::pair<std::string, std::string>>> entries_at_;
  std::map<std::string, std::map<std::string, size_t>> endpoints_of_;  // topic -> endpoint -> entries (keys) there
  std::map<std::string, std::string> key_at_;     // endpoint with entries -> the key of its latest announcement
  std::map<std::string, std::string> connected_;  // endpoint -> the server key the data socket is connected with
  std::set<std::string> lingering_;               // connected endpoints to let go of at the safe point
  std::set<std::string> reconnect_;               // of those, the ones to connect again (with key_at_) after it
};

}  // namespace limbic::bus
