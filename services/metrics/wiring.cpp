#include "services/metrics/wiring.hpp"

#include <cstring>

#include "common/log/log.hpp"
#include "services/metrics/convert.hpp"

namespace limbic::metrics {

Wiring::Wiring(bus::Node& node, CollectorCollectable& sink, std::vector<std::string> robots,
               std::function<double()> now_s, size_t max_robots)
    : node_(node), sink_(sink), now_s_(std::move(now_s)), discover_(robots.empty()), max_robots_(max_robots) {
  node_.SubscribeAny("health/", [this](const bus::RawMessage& m) {
    if (std::strcmp(m.type.identifier, messages::Traits<msg::Heartbeat>::kIdentifier) != 0) return;
    const HeartbeatValues hb = FromMsg(*flatbuffers::GetRoot<msg::Heartbeat>(m.data));
    if (auto robot = RobotOfInstance(hb.service)) Discover(*robot);
    sink_.Update([&](MetricsCollector& c) { c.OnHeartbeat(hb, now_s_()); });
  });
  node_.Subscribe<msg::BusStats>("bus/stats", [this](const bus::Message<msg::BusStats>& m) {
    const BusValues bus = FromMsg(m.msg);
    for (const auto& t : bus.topics) {
      if (auto robot = RobotOfTopic(t.topic)) Discover(*robot);
    }
    sink_.Update([&](MetricsCollector& c) { c.OnBusStats(bus, now_s_()); });
  });
  node_.SubscribeAny("rc/state/", [this](const bus::RawMessage& m) {
    if (std::strcmp(m.type.identifier, messages::Traits<msg::RecruitState>::kIdentifier) != 0) return;
    const auto* state = flatbuffers::GetRoot<msg::RecruitState>(m.data);
    const RecruitValues v = FromMsg(*state);
    const std::string robot = "r" + std::to_string(state->robot_id());
    sink_.Update([&](MetricsCollector& c) { c.OnRecruit(robot, v, now_s_()); });
  });
  node_.Subscribe<msg::FaultCommand>("faults", [this](const bus::Message<msg::FaultCommand>& m) {
    const FaultValues fault = FromMsg(m.msg, static_cast<double>(m.header.stamp_ns()) * 1e-9);
    sink_.Update([&](MetricsCollector& c) { c.OnFault(fault, now_s_()); });
  });
  for (const auto& robot : robots) SubscribeRobot(robot);
}

void Wiring::Discover(const std::string& robot) {
  if (!discover_ || subscribed_.count(robot) || pending_.count(robot)) return;
  if (subscribed_.size() + pending_.size() >= max_robots_) return;
  pending_.insert(robot);
}

void Wiring::SubscribeDiscovered() {
  for (const auto& robot : pending_) {
    LIMBIC_LOG(kInfo) << "discovered robot '" << robot << "'";
    SubscribeRobot(robot);
  }
  pending_.clear();
}

void Wiring::SubscribeRobot(const std::string& robot) {
  if (!subscribed_.insert(robot).second) return;
  // Each handler converts, then updates the collector under its lock.
  node_.Subscribe<msg::AffectState>(robot + "/affect", [this, robot](const bus::Message<msg::AffectState>& m) {
    const auto v = FromMsg(m.msg);
    sink_.Update([&](MetricsCollector& c) { c.OnAffect(robot, v, now_s_()); });
  });
  node_.Subscribe<msg::ControlParams>(robot + "/params", [this, robot](const bus::Message<msg::ControlParams>& m) {
    const auto v = FromMsg(m.msg);
    sink_.Update([&](MetricsCollector& c) { c.OnParameters(robot, v, now_s_()); });
  });
  node_.Subscribe<msg::GroundTruth>(robot + "/truth", [this, robot](const bus::Message<msg::GroundTruth>& m) {
    const auto v = FromMsg(m.msg);
    sink_.Update([&](MetricsCollector& c) { c.OnTruth(robot, v, now_s_()); });
  });
  node_.Subscribe<msg::CollisionEvent>(robot + "/collision", [this, robot](const bus::Message<msg::CollisionEvent>& m) {
    const auto v = FromMsg(m.msg);
    sink_.Update([&](MetricsCollector& c) { c.OnCollision(robot, v, now_s_()); });
  });
  node_.Subscribe<msg::Path>(robot + "/path", [this, robot](const bus::Message<msg::Path>& m) {
    const auto v = FromMsg(m.msg);
    sink_.Update([&](MetricsCollector& c) { c.OnPath(robot, v, now_s_()); });
  });
  node_.Subscribe<msg::MissionStatus>(robot + "/mission", [this, robot](const bus::Message<msg::MissionStatus>& m) {
    const auto v = FromMsg(m.msg);
    sink_.Update([&](MetricsCollector& c) { c.OnMission(robot, v, now_s_()); });
  });
  node_.Subscribe<msg::RunMetrics>(robot + "/metrics", [this, robot](const bus::Message<msg::RunMetrics>& m) {
    const auto v = FromMsg(m.msg);
    sink_.Update([&](MetricsCollector& c) { c.OnRunMetrics(robot, v, now_s_()); });
  });
}

}  // namespace limbic::metrics
