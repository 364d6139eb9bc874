// Binds a bus node to the exporter: subscribes to heartbeats, bus statistics, faults and the per-robot
// topics, converts each verified message and hands the values to the shared collector. Robots come from
// a fixed list or are discovered from heartbeats (instance "r2/planner") and the broker's topic list.
#pragma once

#include <functional>
#include <set>
#include <string>
#include <vector>

#include "common/bus/bus.hpp"
#include "services/metrics/prometheus_bridge.hpp"

namespace limbic::metrics {

class Wiring {
 public:
  // `robots` empty: discover them. `now_s`: the collector's clock.
  Wiring(bus::Node& node, CollectorCollectable& sink, std::vector<std::string> robots, std::function<double()> now_s,
         size_t max_robots);

  // Subscribes to the per-robot topics of robots discovered since the last call. Call it between
  // polls, never from inside a handler.
  void SubscribeDiscovered();
  const std::set<std::string>& robots() const { return subscribed_; }

 private:
  void Discover(const std::string& robot);
  void SubscribeRobot(const std::string& robot);

  bus::Node& node_;
  CollectorCollectable& sink_;
  std::function<double()> now_s_;
  bool discover_;
  size_t max_robots_;
  std::set<std::string> subscribed_;
  std::set<std::string> pending_;
};

}  // namespace limbic::metrics
