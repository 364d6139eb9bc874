// limbic-metrics-synthetic: plausible traffic for one robot on a private bus, for the Prometheus system
// test and for trying the dashboard without the simulator. 10 Hz affect state, ground truth, collisions
// and paths; latched control parameters; 1 Hz mission status and heartbeats (planner, controller,
// affect; hwio falls silent after 4 s so its `up` turns 0); a run-metrics row every 5 s; two faults;
// one malformed payload per second so the broker's drop counters move.
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <iostream>
#include <string>
#include <thread>
#include <vector>

#include "common/bus/bus.hpp"
#include "common/convert/convert.hpp"

namespace {

using limbic::bus::Node;
namespace msg = limbic::msg;

const char* kHelp = R"(limbic-metrics-synthetic: publish synthetic limbic traffic for one robot.

usage: limbic-metrics-synthetic [--bus ADDR] [--robot NAME] [--duration S]
  --bus ADDR      bus address (default $LIMBIC_BUS or ipc:///tmp/limbic/bus)
  --robot NAME    robot namespace (default r1)
  --duration S    seconds to publish (default 20)
)";

}  // namespace

int main(int argc, char** argv) {
  std::string bus = std::getenv("LIMBIC_BUS") ? std::getenv("LIMBIC_BUS") : "ipc:///tmp/limbic/bus";
  std::string robot = "r1";
  double duration_s = 20.0;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--help" || arg == "-h") {
      std::cout << kHelp;
      return 0;
    }
    if (i + 1 >= argc) {
      std::cerr << "limbic-metrics-synthetic: " << arg << " needs a value (see --help)\n";
      return 2;
    }
    const std::string value = argv[++i];
    if (arg == "--bus")
      bus = value;
    else if (arg == "--robot")
      robot = value;
    else if (arg == "--duration")
      duration_s = std::stod(value);
    else {
      std::cerr << "limbic-metrics-synthetic: unknown option '" << arg << "' (see --help)\n";
      return 2;
    }
  }

  zmq::context_t context;
  limbic::bus::NodeOptions node_options;
  node_options.name = robot + "/synthetic";
  Node node(context, bus, node_options);
  // A client that sends garbage through the broker (as a tool or the Python client would, whatever data path the
  // others use): the broker's drop counter and the LimbicBusDropsRising alert are what the check expects of it.
  limbic::bus::NodeOptions garbage_options;
  garbage_options.name = robot + "/garbage-sender";
  garbage_options.data_path = limbic::bus::DataPath::kBroker;
  Node garbage_node(context, bus, garbage_options);
  auto affect = node.Advertise<msg::AffectState>(robot + "/affect");
  auto params = node.Advertise<msg::ControlParams>(robot + "/params", /*latched=*/true);
  auto truth = node.Advertise<msg::GroundTruth>(robot + "/truth");
  auto collision = node.Advertise<msg::CollisionEvent>(robot + "/collision");
  auto path = node.Advertise<msg::Path>(robot + "/path");
  auto mission = node.Advertise<msg::MissionStatus>(robot + "/mission");
  auto run = node.Advertise<msg::RunMetrics>(robot + "/metrics");
  auto faults = node.Advertise<msg::FaultCommand>("faults");
  std::vector<std::pair<std::string, limbic::bus::Publisher<msg::Heartbeat>>> heartbeats;
  for (const char* service : {"planner", "controller", "affect", "hwio"}) {
    const std::string instance = robot + "/" + service;
    heartbeats.emplace_back(instance, node.Advertise<msg::Heartbeat>("health/" + instance));
  }
  // Start once the exporter is up (its heartbeat) and what this node sends reaches the broker (its own planner
  // heartbeat heard back): the one-shot fault commands at 2 and 3 s must reach the exporter. A fixed 500 ms was not
  // enough on a loaded machine (2026-11-28: the noise fault was lost, and the check failed).
  bool exporter_up = false;
  bool echoed = false;
  node.Subscribe<msg::Heartbeat>("health/metrics", [&](const auto&) { exporter_up = true; });
  node.Subscribe<msg::Heartbeat>("health/" + robot + "/planner", [&](const auto&) { echoed = true; });
  const auto wait_until = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (!(exporter_up && echoed)) {
    if (std::chrono::steady_clock::now() > wait_until) {
      std::cerr << "limbic-metrics-synthetic: "
                << (exporter_up ? "its own messages never came back through the broker"
                                : "no heartbeat from the exporter (health/metrics)")
                << " after 30 s\n";
      return 1;
    }
    if (!echoed) {
      heartbeats.front().second.Publish(Node::WallNowNs(), 0, [&](flatbuffers::FlatBufferBuilder& fbb, auto header) {
        std::vector<uint64_t> none(11, 0);
        return msg::CreateHeartbeatDirect(fbb, header, heartbeats.front().first.c_str(), msg::ServiceState::Running,
                                          "realtime", 0, 0.0, 0.0, 0.0, 0.0, &none, 0);
      });
    }
    node.Poll(std::chrono::milliseconds(50));
  }

  const auto start = std::chrono::steady_clock::now();
  uint64_t collisions = 0;
  int iteration = 1;
  std::vector<uint64_t> buckets(11, 0);
  for (int64_t tick = 0;; ++tick) {
    const double t = 0.1 * static_cast<double>(tick);
    if (t >= duration_s) break;
    const int64_t now_ns = Node::WallNowNs();
    // Affect: anger rises while the robot is slow; drives inside [D_min, D_max].
    const double speed = 0.35 + 0.3 * std::sin(0.5 * t);
    const double anger = 0.5 + 0.4 * std::cos(0.5 * t);
    affect.Publish(now_ns, tick, [&](flatbuffers::FlatBufferBuilder& fbb, auto header) {
      std::vector<double> stimuli(9), emotions(7), moods = {0.3 * std::sin(0.2 * t), -0.2 - 0.1 * std::cos(0.2 * t)};
      for (int i = 0; i < 9; ++i) stimuli[i] = 0.5 + 0.5 * std::sin(0.3 * t + i);
      for (int i = 0; i < 7; ++i) emotions[i] = 0.5 + 0.4 * std::sin(0.4 * t + i);
      emotions[0] = anger;
      const double d_min = 0.2 + 0.05 * std::sin(0.1 * t), d_max = 0.8 + 0.05 * std::cos(0.1 * t);
      std::vector<double> drives_e(6), drives(6);
      for (int i = 0; i < 6; ++i) {
        drives_e[i] = 0.5 + 0.45 * std::sin(0.25 * t + i);
        drives[i] = i < 3 ? std::clamp(drives_e[i], d_min, d_max) : drives_e[i];
      }
      return msg::CreateAffectStateDirect(fbb, header, "synthetic", &stimuli, &stimuli, &stimuli, &emotions, &emotions,
                                          &emotions, &moods, &drives_e, &drives, d_min, d_max);
    });
    if (tick % 20 == 0) {  // parameters change every 2 s (latched)
      params.Publish(now_ns, tick, [&](flatbuffers::FlatBufferBuilder& fbb, auto header) {
        // A complete, valid set (the bus refuses a partial one: n_v = 0 is no window at all).
        limbic::ControlParameters p;
        p.w_v1 = 0.9 + 0.09 * std::sin(0.1 * t);
        p.v_limit = 0.4 + 0.6 * (0.5 + 0.5 * std::sin(0.1 * t));
        p.n_theta = 30;
        p.t_r = 2.0;
        return limbic::convert::ToMsg(fbb, header, p);
      });
    }
    truth.Publish(now_ns, tick, [&](flatbuffers::FlatBufferBuilder& fbb, auto header) {
      const msg::Pose2 pose(t * 0.1, 0.0, 0.0);
      return msg::CreateGroundTruthDirect(fbb, header, robot.c_str(), &pose, speed, 0.1 * std::sin(t), false);
    });
    const bool new_collision = tick % 30 == 15;
    if (new_collision) ++collisions;
    collision.Publish(now_ns, tick, [&](flatbuffers::FlatBufferBuilder& fbb, auto header) {
      return msg::CreateCollisionEventDirect(fbb, header, new_collision, new_collision, nullptr, nullptr, speed,
                                             collisions);
    });
    path.Publish(now_ns, tick, [&](flatbuffers::FlatBufferBuilder& fbb, auto header) {
      return msg::CreatePathDirect(fbb, header, true, tick % 5 == 0, nullptr, nullptr, 5.0, t,
                                   0.005 + 0.004 * std::sin(t), 1);
    });
    if (tick % 10 == 0) {
      mission.Publish(now_ns, tick, [&](flatbuffers::FlatBufferBuilder& fbb, auto header) {
        const msg::Vec2 goal(10, 0);
        return msg::CreateMissionStatus(fbb, header, iteration, 10, &goal, 10.0 - std::fmod(t, 10.0), std::fmod(t, 5.0),
                                        static_cast<int>(collisions), false);
      });
      for (int i = 0; i < 10; ++i) ++buckets[2 + (tick / 10 + i) % 4];
      const int64_t seconds = tick / 10;
      for (auto& [instance, pub] : heartbeats) {
        if (instance.ends_with("/hwio") && seconds >= 4) continue;  // falls silent: up must turn 0
        pub.Publish(now_ns, tick, [&](flatbuffers::FlatBufferBuilder& fbb, auto header) {
          return msg::CreateHeartbeatDirect(fbb, header, instance.c_str(), msg::ServiceState::Running, "realtime", tick,
                                            t, 0.0015, 0.0012, 0.004, &buckets, seconds / 5);
        });
      }
      garbage_node.SendRaw(robot + "/garbage", "not a flatbuffer", 16);  // the broker drops it as malformed
    }
    if (tick % 50 == 49) {
      run.Publish(now_ns, tick, [&](flatbuffers::FlatBufferBuilder& fbb, auto header) {
        return msg::CreateRunMetricsDirect(fbb, header, robot.c_str(), "A", 0, 1, 7, "synthetic", iteration,
                                           5.0 * iteration, iteration % 3 != 0, static_cast<int>(collisions), 2.0, 0.35,
                                           0.01, 0.1 * iteration, 1.7, false);
      });
      ++iteration;
    }
    if (tick == 20 || tick == 30) {
      faults.Publish(now_ns, tick, [&](flatbuffers::FlatBufferBuilder& fbb, auto header) {
        const bool noise = tick == 20;
        return msg::CreateFaultCommandDirect(fbb, header, noise ? "noise" : "drop",
                                             noise ? msg::FaultKind::SensorNoise : msg::FaultKind::CommDrop,
                                             noise ? robot.c_str() : "", -1, -1, -1, noise ? nullptr : "r1/scan",
                                             nullptr, 0.0, noise ? 0.0 : 3.0, 0.05, 0.2, 1, false);
      });
    }
    node.Poll(std::chrono::milliseconds(0));
    std::this_thread::sleep_until(start + std::chrono::milliseconds(100 * (tick + 1)));
    if (tick % 50 == 0) std::cerr << "limbic-metrics-synthetic: " << t << " s of " << duration_s << " s\n";
  }
  return 0;
}
