#include "common/bus/directory.hpp"

#include <algorithm>

#include "common/bus/bus.hpp"

namespace limbic::bus {

namespace {
bool Printable(std::string_view text) {
  for (const char c : text) {
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) return false;
  }
  return true;
}
}  // namespace

std::string EncodeDirectoryEntry(uint8_t code, const DirectoryEntry& entry) {
  std::string frame(1, static_cast<char>(code));
  frame += entry.endpoint;
  frame += '\0';
  frame += entry.topic;
  if (!entry.key.empty()) {
    frame += '\0';
    frame += entry.key;
  }
  return frame;
}

bool IsZ85Text(std::string_view text) {
  // ZeroMQ's Z85 alphabet (RFC 32): a key decodes iff it is 40 of these.
  static constexpr std::string_view kAlphabet =
      "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ.-:+=^!/*?&<>()[]{}@%$#";
  if (text.size() != kZ85KeyBytes) return false;
  for (const char c : text) {
    if (kAlphabet.find(c) == std::string_view::npos) return false;
  }
  return true;
}

std::optional<std::vector<std::string>> ParseAdmittedKeys(std::string_view body, std::string* why) {
  if (body.size() % kZ85KeyBytes != 0) {
    if (why != nullptr) *why = "admitted keys: not a whole number of 40-character keys";
    return std::nullopt;
  }
  std::vector<std::string> keys;
  for (size_t at = 0; at < body.size(); at += kZ85KeyBytes) {
    const std::string_view key = body.substr(at, kZ85KeyBytes);
    if (!IsZ85Text(key)) {
      if (why != nullptr) *why = "admitted keys: a key that is not Z85";
      return std::nullopt;
    }
    keys.emplace_back(key);
  }
  return keys;
}

std::string EncodeTopicType(const TopicType& type) {
  std::string frame(1, static_cast<char>(kTopicType));
  frame += type.topic;
  frame += '\0';
  frame += type.identifier;
  return frame;
}

std::optional<TopicType> ParseTopicType(std::string_view body, std::string* why) {
  const auto fail = [&](const char* reason) -> std::optional<TopicType> {
    if (why != nullptr) *why = reason;
    return std::nullopt;
  };
  const size_t nul = body.find('\0');
  if (nul == std::string_view::npos) return fail("topic type: no separator between topic and identifier");
  const std::string_view topic = body.substr(0, nul);
  const std::string_view identifier = body.substr(nul + 1);
  if (topic.empty()) return fail("topic type: empty topic");
  if (topic.size() > kMaxDirectoryTopicBytes) return fail("topic type: topic too long");
  if (identifier.size() != 4) return fail("topic type: an identifier is 4 characters");
  if (!Printable(topic) || !Printable(identifier)) return fail("topic type: control characters");
  return TopicType{std::string(topic), std::string(identifier)};
}

std::string EncodeAdmittedKeys(const std::vector<std::string>& keys) {
  std::string frame(1, static_cast<char>(kAdmittedKeys));
  for (const auto& key : keys) frame += key;
  return frame;
}

std::optional<DirectoryEntry> ParseDirectoryEntry(std::string_view body, std::string* why) {
  const auto fail = [&](const char* reason) -> std::optional<DirectoryEntry> {
    if (why != nullptr) *why = reason;
    return std::nullopt;
  };
  const size_t nul = body.find('\0');
  if (nul == std::string_view::npos) return fail("no separator between endpoint and topic");
  const std::string_view endpoint = body.substr(0, nul);
  std::string_view topic = body.substr(nul + 1);
  std::string_view key;
  if (const size_t second = topic.find('\0'); second != std::string_view::npos) {
    key = topic.substr(second + 1);
    topic = topic.substr(0, second);
    if (!IsZ85Text(key)) return fail("key is not 40 characters of Z85");
  }
  if (endpoint.size() > kMaxEndpointBytes) return fail("endpoint too long");
  if (topic.size() > kMaxDirectoryTopicBytes) return fail("topic too long");
  if (topic.empty()) return fail("empty topic");
  if (topic.starts_with(kHighWaterPrefix)) return fail("a report topic announced on its own");
  if (!Printable(endpoint) || !Printable(topic)) return fail("control characters");
  size_t scheme = 0;
  for (const std::string_view s : {"ipc://", "tcp://", "inproc://"}) {
    if (endpoint.starts_with(s)) scheme = s.size();
  }
  if (scheme == 0) return fail("endpoint is not ipc://, tcp:// or inproc://");
  if (endpoint.size() == scheme) return fail("endpoint has nothing after its scheme");
  if (endpoint.find('*') != std::string_view::npos) return fail("endpoint has a wildcard");
  return DirectoryEntry{std::string(topic), std::string(endpoint), std::string(key)};
}

Directory::Announced Directory::Announce(const std::string& publisher, const DirectoryEntry& entry) {
  auto it = by_publisher_.find(publisher);
  if (it == by_publisher_.end()) {
    if (by_publisher_.size() >= limits_.max_publishers) {
      ++refused_;
      return Announced::kRefused;
    }
    it = by_publisher_.emplace(publisher, std::set<DirectoryEntry>{}).first;
  }
  if (it->second.count(entry)) return Announced::kKnown;
  if (it->second.size() >= limits_.max_topics_per_publisher) {
    ++refused_;
    return Announced::kRefused;
  }
  it->second.insert(entry);
  // New to this publisher; new to subscribers only if no other connection offered it (a publisher that
  // reconnected announces again under its new routing id before the old one is found gone).
  return ++offers_[entry] == 1 ? Announced::kNew : Announced::kKnown;
}

bool Directory::Withdraw(const std::string& publisher, const DirectoryEntry& entry) {
  auto it = by_publisher_.find(publisher);
  if (it == by_publisher_.end() || it->second.erase(entry) == 0) return false;
  if (it->second.empty()) by_publisher_.erase(it);
  auto offer = offers_.find(entry);
  if (offer != offers_.end() && --offer->second == 0) offers_.erase(offer);
  return true;
}

std::vector<DirectoryEntry> Directory::RemovePublisher(const std::string& publisher) {
  std::vector<DirectoryEntry> removed;
  auto it = by_publisher_.find(publisher);
  if (it == by_publisher_.end()) return removed;
  removed.assign(it->second.begin(), it->second.end());
  by_publisher_.erase(it);
  for (const auto& entry : removed) {
    auto offer = offers_.find(entry);
    if (offer != offers_.end() && --offer->second == 0) offers_.erase(offer);
  }
  return removed;
}

bool Directory::Offered(const DirectoryEntry& entry) const { return offers_.count(entry) != 0; }

DirectLinks::Change DirectLinks::Add(const DirectoryEntry& entry) {
  Change change;
  auto& entries = entries_at_[entry.endpoint];
  if (!entries.insert({entry.topic, entry.key}).second) return change;
  auto wanted = key_at_.find(entry.endpoint);
  if (entries.size() == 1 || wanted->second != entry.key) {
    // A first entry here, or a publisher here with another key (the broker vouches for the newest).
    key_at_[entry.endpoint] = entry.key;
    auto connection = connected_.find(entry.endpoint);
    if (connection == connected_.end()) {
      change.connect = true;
      connected_[entry.endpoint] = entry.key;
    } else if (connection->second == entry.key) {
      // Still connected with this key (it lingered): taken up again as it is, without a second connection.
      lingering_.erase(entry.endpoint);
      reconnect_.erase(entry.endpoint);
    } else {
      // Connected with another key: let go of and made again at the safe point (what it delivered is read first).
      change.reconnect = true;
      lingering_.insert(entry.endpoint);
      reconnect_.insert(entry.endpoint);
    }
  }
  auto& endpoints = endpoints_of_[entry.topic];
  change.subscribe = endpoints.empty();
  ++endpoints[entry.endpoint];
  return change;
}

DirectLinks::Change DirectLinks::Remove(const DirectoryEntry& entry) {
  Change change;
  auto at = entries_at_.find(entry.endpoint);
  if (at == entries_at_.end()) return change;
  size_t removed = 0;
  for (auto it = at->second.lower_bound({entry.topic, ""}); it != at->second.end() && it->first == entry.topic;) {
    if (entry.key.empty() || it->second == entry.key) {
      it = at->second.erase(it);
      ++removed;
    } else {
      ++it;
    }
  }
  if (removed == 0) return change;
  if (at->second.empty()) {
    entries_at_.erase(at);
    key_at_.erase(entry.endpoint);
    reconnect_.erase(entry.endpoint);
    lingering_.insert(entry.endpoint);
    change.disconnect = true;
  }
  auto of = endpoints_of_.find(entry.topic);
  auto count = of->second.find(entry.endpoint);
  count->second -= std::min(count->second, removed);
  if (count->second == 0) of->second.erase(count);
  if (of->second.empty()) {
    endpoints_of_.erase(of);
    change.unsubscribe = true;
  }
  return change;
}

std::vector<std::string> DirectLinks::TakeLingering() {
  std::vector<std::string> out(lingering_.begin(), lingering_.end());
  for (const auto& endpoint : lingering_) connected_.erase(endpoint);
  lingering_.clear();
  return out;
}

std::vector<std::pair<std::string, std::string>> DirectLinks::TakeReconnects() {
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto& endpoint : reconnect_) {
    const std::string& key = key_at_.at(endpoint);
    out.emplace_back(endpoint, key);
    connected_[endpoint] = key;
  }
  reconnect_.clear();
  return out;
}

bool DirectLinks::Has(const DirectoryEntry& entry) const {
  auto at = entries_at_.find(entry.endpoint);
  if (at == entries_at_.end()) return false;
  auto it = at->second.lower_bound({entry.topic, ""});
  return it != at->second.end() && it->first == entry.topic;
}

}  // namespace limbic::bus
