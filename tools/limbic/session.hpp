// A short-lived connection to the bus for the command-line tools: proves the bus is reachable (the
// broker's statistics arrive) and reports topics and their types.
#pragma once

#include <chrono>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "common/bus/bus.hpp"

namespace limbic::cli {

struct TopicInfo {
  std::string type;
  uint64_t messages = 0;
  uint64_t bytes = 0;
  uint64_t drops = 0;  // all reasons below
  uint64_t drops_malformed = 0;
  uint64_t drops_wrong_type = 0;
  uint64_t drops_oversize = 0;
  uint64_t drops_invalid = 0;           // values out of their declared range (messages/validate.hpp)
  uint64_t drops_fault = 0;             // an injected communication fault
  int64_t last_seen_ns = 0;             // wall time of the broker's last message on it (0: none, only drops)
  std::vector<std::string> publishers;  // header sources heard lately (ForwardingLimits::publisher_idle_s)
  int subscribers = 0;                  // subscriber connections covering it
};

// A topic with no message for this long is shown as stale by `limbic topics`; after kTopicHiddenS
// it is left out (`--all` shows it). Latched publishers re-send every second, so a live topic never
// idles this long unless its publisher stopped or is gone.
inline constexpr double kTopicStaleS = 5.0;
inline constexpr double kTopicHiddenS = 60.0;

class Session {
 public:
  // `curve`: client keys for a broker that requires CURVE (see CurveKeysFromFlagOrEnvironment).
  explicit Session(const std::string& address, const std::string& name = "limbic-cli", bus::CurveClientKeys curve = {});
  // Waits for the broker's statistics; throws std::runtime_error "cannot reach the bus at ..." if none.
  void Connect(std::chrono::milliseconds timeout = std::chrono::milliseconds(3000));
  // Topics the broker has seen, from its latest statistics.
  const std::map<std::string, TopicInfo>& topics() const { return topics_; }
  // Known topics whose names contain `topic` or are contained in it, for a "did you mean" — the bus's own
  // high-water report topics (bus/hwm/...) only when `topic` is one of them.
  std::vector<std::string> SimilarTopics(const std::string& topic) const;
  // Waits for the next statistics message (about 1 s).
  bool NextStats(std::chrono::milliseconds timeout);
  // Subscribes to the services' heartbeats, for ReceiveLosses().
  void WatchReceiveLosses();
  // Per topic: messages the services that receive it never got (sequence gaps and tail losses,
  // docs/protocol.md "Losses"), summed over the latest heartbeat of each service heard.
  std::map<std::string, uint64_t> ReceiveLosses() const;
  bus::Node& node() { return node_; }
  const std::string& address() const { return address_; }

 private:
  std::string address_;
  bool curve_ = false;
  zmq::context_t context_;
  bus::Node node_;
  std::map<std::string, TopicInfo> topics_;
  uint64_t stats_seen_ = 0;
  std::map<std::string, std::map<std::string, uint64_t>> losses_;  // service -> topic -> lost receiving
};

// The bus address from --bus, else $LIMBIC_BUS, else the default.
std::string DefaultBus();

}  // namespace limbic::cli
