// limbic-metrics: exports drives, emotions, service health and bus traffic to Prometheus.
// Flags and lifetime come from the runtime; this file only wires the bus to the collector and the
// collector to prometheus-cpp's HTTP exposer.
#include <prometheus/exposer.h>

#include <chrono>
#include <iterator>
#include <memory>
#include <sstream>

#include "common/log/log.hpp"
#include "common/runtime/runtime.hpp"
#include "services/metrics/prometheus_bridge.hpp"
#include "services/metrics/wiring.hpp"

namespace {

using limbic::runtime::ServiceContext;
using limbic::runtime::TickInfo;

double SteadyNowS() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

std::vector<std::string> SplitList(const std::string& text) {
  std::vector<std::string> items;
  std::stringstream ss(text);
  for (std::string item; std::getline(ss, item, ',');) {
    const auto first = item.find_first_not_of(' ');
    if (first == std::string::npos) continue;
    items.push_back(item.substr(first, item.find_last_not_of(' ') - first + 1));
  }
  return items;
}

limbic::runtime::ServiceDefinition MetricsService() {
  return {
      "metrics",
      "exports per-robot affect state, control parameters, speed, collisions and mission progress, per-service "
      "health and per-topic bus traffic to Prometheus (http://LISTEN/metrics). Run it in realtime mode; it is a global "
      "service (one for all robots; heartbeat on health/metrics).",
      [](ServiceContext& ctx) {
        struct State {
          // Loopback unless told otherwise: the exporter shows the whole robot to whoever reaches it.
          std::string listen = "127.0.0.1:9464";
          std::string robots;  // comma-separated; empty: discover
          double service_stale_after_s = 3.0;
          double robot_stale_after_s = 5.0;
          int max_robots = 16;
          std::unique_ptr<zmq::context_t> zmq_context;
          std::unique_ptr<limbic::bus::Node> node;
          std::shared_ptr<limbic::metrics::CollectorCollectable> collectable;
          std::unique_ptr<limbic::metrics::Wiring> wiring;
          std::unique_ptr<prometheus::Exposer> exposer;
        };
        auto state = std::make_shared<State>();
        // All start-up options: they configure the exporter and its collector when it starts (issue 15).
        state->listen = ctx.Option<std::string>(
            "listen", state->listen,
            "HOST:PORT the /metrics endpoint listens on (9464: limbic's port; loopback by default, "
            "--listen 0.0.0.0:9464 serves every interface; --listen X is short for --set listen=X)");
        state->robots = ctx.Option<std::string>("robots", state->robots,
                                                "robots to watch, comma-separated (empty: discover from the bus)");
        state->service_stale_after_s = ctx.Option<double>("service_stale_after_s", state->service_stale_after_s,
                                                          "a heartbeat older than this sets limbic_service_up to 0",
                                                          limbic::runtime::Positive<double>());
        state->robot_stale_after_s =
            ctx.Option<double>("robot_stale_after_s", state->robot_stale_after_s,
                               "streaming robot values older than this are withdrawn (never exported frozen)",
                               limbic::runtime::Positive<double>());
        state->max_robots = ctx.Option<int>("max_robots", state->max_robots, "bound on the robot label set",
                                            limbic::runtime::AtLeast(1));
        if (ctx.mode() == limbic::runtime::Mode::kLockstep) {
          throw limbic::config::ConfigError(
              "limbic-metrics judges liveness on the wall clock and never joins a lockstep run: start it in "
              "realtime mode (it watches lockstep runs all the same)");
        }
        const auto options = ctx.options();
        ctx.OnStart([state, options](const TickInfo&) {
          limbic::metrics::CollectorOptions collector_options;
          collector_options.service_stale_after_s = state->service_stale_after_s;
          collector_options.robot_stale_after_s = state->robot_stale_after_s;
          collector_options.max_robots = static_cast<size_t>(std::max(1, state->max_robots));
          collector_options.loop_time_bounds_s.assign(std::begin(limbic::runtime::kLoopTimeBucketsS),
                                                      std::end(limbic::runtime::kLoopTimeBucketsS));
          state->collectable = std::make_shared<limbic::metrics::CollectorCollectable>(collector_options, &SteadyNowS);
          // The runtime hosts one node per service and offers only exact-topic handlers; heartbeats
          // (health/<instance>) need a prefix subscription, so the exporter watches through its own node.
          state->zmq_context = std::make_unique<zmq::context_t>();
          state->node = std::make_unique<limbic::bus::Node>(
              *state->zmq_context, options.bus,
              limbic::bus::NodeOptions{.name = "metrics.watch", .curve = options.curve});
          const auto robots = SplitList(state->robots);
          state->wiring = std::make_unique<limbic::metrics::Wiring>(*state->node, *state->collectable, robots,
                                                                    &SteadyNowS, collector_options.max_robots);
          try {
            state->exposer = std::make_unique<prometheus::Exposer>(state->listen);
          } catch (const std::exception& e) {
            throw limbic::config::ConfigError("listen: cannot serve HTTP on '" + state->listen +
                                              "' (address in use or malformed?): " + e.what());
          }
          state->exposer->RegisterCollectable(state->collectable);
          LIMBIC_LOG(kInfo) << "serving http://" << state->listen << "/metrics; robots: "
                            << (robots.empty() ? std::string("discovered from the bus") : state->robots)
                            << "; up = 0 after " << state->service_stale_after_s << " s without heartbeat";
        });
        ctx.AddStep({}, [state](const TickInfo&) {
          if (!state->node) return;
          // Drain what arrived since the last tick, then subscribe to robots discovered meanwhile.
          for (int round = 0; round < 100 && state->node->Poll(std::chrono::milliseconds(0), 1000) > 0; ++round) {
          }
          state->wiring->SubscribeDiscovered();
        });
        ctx.Counter("robots", [state] { return state->wiring ? double(state->wiring->robots().size()) : 0.0; });
        ctx.OnStop([state] {
          state->exposer.reset();  // stop serving before the collector goes
          state->wiring.reset();
          state->node.reset();
          state->zmq_context.reset();
        });
      },
      /*global=*/true};
}

}  // namespace

int main(int argc, char** argv) {
  // `--listen HOST:PORT` is short for `--set listen=HOST:PORT`.
  std::vector<std::string> args(argv, argv + argc);
  for (size_t i = 1; i < args.size(); ++i) {
    if (args[i] == "--listen" && i + 1 < args.size()) {
      args[i] = "--set";
      args[i + 1] = "listen=" + args[i + 1];
    } else if (args[i].rfind("--listen=", 0) == 0) {
      args[i] = "listen=" + args[i].substr(9);
      args.insert(args.begin() + static_cast<long>(i), "--set");
    }
  }
  std::vector<char*> rewritten;
  for (auto& a : args) rewritten.push_back(a.data());
  rewritten.push_back(nullptr);
  return limbic::runtime::RunServiceMain(static_cast<int>(args.size()), rewritten.data(), MetricsService());
}
