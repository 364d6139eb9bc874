// limbic-foxglove: bridges the bus to Foxglove (WebSocket protocol foxglove.websocket.v1). Flags
// and lifetime come from the runtime; this file only reads options and wires the bus node to the
// bridge.
#include <memory>

#include "common/log/log.hpp"
#include "common/runtime/runtime.hpp"
#include "services/foxglove/wiring.hpp"

namespace {

using limbic::runtime::ServiceContext;
using limbic::runtime::TickInfo;

limbic::runtime::ServiceDefinition FoxgloveService() {
  return {
      "foxglove",
      "bridges the bus to Foxglove over WebSocket (subprotocol foxglove.websocket.v1, "
      "ws://LISTEN): every topic "
      "as a channel with its FlatBuffers schema, plus derived channels in Foxglove's own schemas "
      "(foxglove/<robot>/map, "
      "path, tf, scan, robot, goal, bumps, emotion_layer, emotion_maps; foxglove/humans) for the "
      "3D panel. Clients "
      "may publish (JSON as `limbic pub`, or FlatBuffers). A client that stops reading is dropped, "
      "never the bus. "
      "Run it in realtime mode (it watches lockstep runs all the same); a short --period (0.02) "
      "keeps latency low. "
      "Example: limbic-foxglove --bus ipc:///tmp/limbic/demo-bus --period 0.02 --set "
      "listen=127.0.0.1:8765, then "
      "open Foxglove -> Open connection -> Foxglove WebSocket -> ws://127.0.0.1:8765 (layout: "
      "deploy/foxglove/).",
      [](ServiceContext& ctx) {
        struct State {
          std::string listen = "127.0.0.1:8765";
          std::string topics_prefix;
          bool derived = true;
          bool client_publish = true;
          int max_clients = 16;
          double max_client_buffer_mb = 8.0;
          double stall_timeout_s = 5.0;
          double grid_period_s = 1.0;
          int scan_bins = 360;
          std::unique_ptr<zmq::context_t> zmq_context;
          std::unique_ptr<limbic::bus::Node> node;
          std::unique_ptr<limbic::foxglove::Wiring> wiring;
        };
        auto state = std::make_shared<State>();
        // All start-up options: the bridge is configured from them when it starts (issue 15).
        state->listen = ctx.Option("listen", state->listen,
                                   "HOST:PORT of the WebSocket server (127.0.0.1: this host only; 0.0.0.0: every "
                                   "interface; port 0: "
                                   "any free port, logged). Read at start.");
        state->topics_prefix =
            ctx.Option("topics_prefix", state->topics_prefix, "bridge only bus topics starting with this (\"\": all)");
        state->derived =
            ctx.Option("derived", state->derived, "offer the derived Foxglove-schema channels (foxglove/...)");
        state->client_publish =
            ctx.Option("client_publish", state->client_publish, "let clients publish on the bus (clientPublish)");
        state->max_clients = ctx.Option("max_clients", state->max_clients, "clients served at once; more are refused");
        state->max_client_buffer_mb =
            ctx.Option("max_client_buffer_mb", state->max_client_buffer_mb,
                       "per client: megabytes queued at most; messages beyond are skipped for that client");
        state->stall_timeout_s =
            ctx.Option("stall_timeout_s", state->stall_timeout_s,
                       "a client whose queue stays over half of max_client_buffer_mb this long is dropped");
        state->grid_period_s =
            ctx.Option("grid_period_s", state->grid_period_s, "derived grids (map, emotions) at most once per period");
        state->scan_bins = ctx.Option("scan_bins", state->scan_bins, "angular bins of the derived LaserScan");
        if (ctx.mode() == limbic::runtime::Mode::kLockstep) {
          throw limbic::config::ConfigError(
              "limbic-foxglove serves clients on the wall clock and never joins a lockstep run: "
              "start it in realtime "
              "mode (it bridges lockstep runs all the same)");
        }
        const auto options = ctx.options();
        ctx.OnStart([state, options](const TickInfo&) {
          limbic::foxglove::WiringOptions w;
          const auto colon = state->listen.rfind(':');
          try {
            if (colon == std::string::npos) throw std::invalid_argument("no port");
            const int port = std::stoi(state->listen.substr(colon + 1));
            if (port < 0 || port > 65535) throw std::invalid_argument("port");
            w.server.host = state->listen.substr(0, colon);
            if (w.server.host == "localhost") w.server.host = "127.0.0.1";
            w.server.port = static_cast<uint16_t>(port);
          } catch (const std::exception&) {
            throw limbic::config::ConfigError("listen: '" + state->listen + "' is not HOST:PORT (e.g. 127.0.0.1:8765)");
          }
          if (state->max_clients < 1 || !(state->max_client_buffer_mb > 0) || !(state->stall_timeout_s > 0) ||
              !(state->grid_period_s >= 0) || state->scan_bins < 1 || state->scan_bins > 100000) {
            throw limbic::config::ConfigError(
                "max_clients >= 1, max_client_buffer_mb > 0, stall_timeout_s > 0, grid_period_s >= "
                "0 and "
                "scan_bins 1..100000, please");
          }
          w.topics_prefix = state->topics_prefix;
          w.derived_channels = state->derived;
          w.bridge.client_publish = state->client_publish;
          w.bridge.max_clients = static_cast<size_t>(state->max_clients);
          w.bridge.budget.max_buffered_bytes = static_cast<size_t>(state->max_client_buffer_mb * 1024 * 1024);
          w.bridge.budget.stall_timeout_s = state->stall_timeout_s;
          w.bridge.session_id = std::to_string(limbic::bus::Node::WallNowNs());
          w.derived.grid_period_s = state->grid_period_s;
          w.derived.scan_bins = state->scan_bins;
          // Its own node: the runtime's node offers only exact-topic handlers, the bridge takes
          // every topic.
          state->zmq_context = std::make_unique<zmq::context_t>();
          state->node = std::make_unique<limbic::bus::Node>(
              *state->zmq_context, options.bus,
              limbic::bus::NodeOptions{.name = "foxglove.bridge", .curve = options.curve});
          try {
            state->wiring = std::make_unique<limbic::foxglove::Wiring>(*state->node, w);
          } catch (const std::runtime_error& e) {
            throw limbic::config::ConfigError(std::string("listen: ") + e.what());
          }
          LIMBIC_LOG(kInfo) << "Foxglove WebSocket server on ws://" << w.server.host << ":" << state->wiring->port()
                            << " (subprotocol foxglove.websocket.v1); bus " << options.bus;
        });
        ctx.AddStep({}, [state](const TickInfo&) {
          if (!state->wiring) return;
          for (int round = 0; round < 100 && state->wiring->Poll(1000) > 0; ++round) {
          }
        });
        auto stat = [state](auto member) {
          return [state, member] { return state->wiring ? double(state->wiring->bridge().stats().*member) : 0.0; };
        };
        using Stats = limbic::foxglove::BridgeStats;
        ctx.Counter("clients",
                    [state] { return state->wiring ? double(state->wiring->bridge().client_count()) : 0.0; });
        ctx.Counter("channels",
                    [state] { return state->wiring ? double(state->wiring->bridge().channels().size()) : 0.0; });
        ctx.Counter("messages_sent", stat(&Stats::messages_sent));
        ctx.Counter("bytes_sent", stat(&Stats::bytes_sent));
        ctx.Counter("messages_skipped", stat(&Stats::messages_skipped));
        ctx.Counter("clients_dropped_slow", stat(&Stats::clients_dropped_slow));
        ctx.Counter("client_messages_published", stat(&Stats::client_messages_published));
        ctx.Counter("bad_requests", stat(&Stats::bad_requests));
        ctx.Counter("derived_rejected",
                    [state] { return state->wiring ? double(state->wiring->derived().rejected()) : 0.0; });
        ctx.OnStop([state] {
          state->wiring.reset();
          state->node.reset();
          state->zmq_context.reset();
        });
      },
      /*global=*/true};
}

}  // namespace

int main(int argc, char** argv) { return limbic::runtime::RunServiceMain(argc, argv, FoxgloveService()); }
