// Two-host test helper: subscribes (with CURVE keys) to <robot>/metrics and exits 0 when a RunMetrics
// with success arrives, 1 on a failed traversal or on timeout, 2 on bad arguments.
//   two-host-watch --bus tcp://10.77.0.1:7400 --curve-keys watcher.client.yaml [--robot r1] [--timeout 180]
#include <chrono>
#include <iostream>
#include <string>

#include "common/bus/bus.hpp"
#include "common/bus/curve_keys.hpp"
#include "common/config/config.hpp"

int main(int argc, char** argv) {
  using namespace std::chrono_literals;
  std::string bus, keys_file, robot = "r1";
  double timeout_s = 180;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i], value = argv[i + 1];
    if (flag == "--bus")
      bus = value;
    else if (flag == "--curve-keys")
      keys_file = value;
    else if (flag == "--robot")
      robot = value;
    else if (flag == "--timeout")
      timeout_s = std::stod(value);
    else {
      std::cerr << "two-host-watch: unknown option " << flag << "\n";
      return 2;
    }
  }
  if (bus.empty()) {
    std::cerr << "usage: two-host-watch --bus ADDR [--curve-keys FILE] [--robot R] [--timeout S]\n";
    return 2;
  }
  limbic::bus::NodeOptions options{.name = "two-host-watch", .curve = {}};
  if (!keys_file.empty()) options.curve = limbic::bus::LoadCurveClientKeys(keys_file);
  zmq::context_t context;
  limbic::bus::Node node(context, bus, options);
  int result = -1;
  uint64_t heartbeats = 0;
  node.SubscribeAny("health/", [&](const limbic::bus::RawMessage&) { ++heartbeats; });
  node.Subscribe<limbic::msg::RunMetrics>(robot + "/metrics", [&](const auto& m) {
    std::cout << "two-host-watch: RunMetrics from " << m.header.source()->str() << ": success " << m.msg.success()
              << ", completion " << m.msg.completion_time_s() << " s, collisions " << m.msg.collisions() << std::endl;
    result = m.msg.success() ? 0 : 1;
  });
  const auto start = std::chrono::steady_clock::now();
  auto next_report = start + 10s;
  while (result < 0 && std::chrono::steady_clock::now() - start < std::chrono::duration<double>(timeout_s)) {
    node.Poll(50ms);
    if (std::chrono::steady_clock::now() > next_report) {
      std::cout << "two-host-watch: waiting; " << heartbeats << " heartbeats seen so far" << std::endl;
      next_report += 10s;
    }
  }
  if (result < 0) std::cout << "two-host-watch: no RunMetrics within " << timeout_s << " s" << std::endl;
  return result < 0 ? 1 : result;
}
