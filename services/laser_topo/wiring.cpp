#include "services/laser_topo/wiring.hpp"

#include <optional>

#include "common/log/log.hpp"
#include "services/laser_sim/convert.hpp"
#include "services/laser_topo/convert.hpp"
#include "services/laser_topo/map_services.hpp"

namespace limbic::laser {
namespace {

const char* const kBusExample =
    "example (100 Hz, realtime; `limbic laser episode --density 25 --index 3 --controller memory` in process):\n"
    "  limbic-bus --bus ipc:///tmp/laser &\n"
    "  limbic-laser-sim --bus ipc:///tmp/laser --period 0.01 --set density=25 --set index=3 &\n"
    "  limbic-laser-perception --bus ipc:///tmp/laser --period 0.01 &\n"
    "  limbic-laser-mapper --bus ipc:///tmp/laser --period 0.01 &\n"
    "  limbic-laser-planner --bus ipc:///tmp/laser --period 0.01 &\n"
    "  limbic-laser-nav --bus ipc:///tmp/laser --period 0.01 --set controller=memory &\n"
    "  limbic echo r1/laser/current_node --count 1 --bus ipc:///tmp/laser\n";

}  // namespace

runtime::ServiceDefinition LaserPerceptionService() {
  runtime::ServiceDefinition d{
      "laser_perception", "laser robot's map-layer perception: obstacles, features, the area's feature",
      [](runtime::ServiceContext& ctx) {
        struct State {
          EnvironmentTracker env;
          std::optional<Vec2> goal;
          SensorFrame frame;
          int64_t bad_frames = 0;
        };
        auto s = std::make_shared<State>();
        const TopoPerceptionOptions options;  // §3.2–3.4's [T]/[A] values; the messages carry at most 15 and 50
        auto scan = ctx.AddInput<msg::LaserScan>(ctx.Topic("laser/scan"), runtime::Timing::kSameTick);
        auto odom = ctx.AddInput<msg::LaserOdometry>(ctx.Topic("laser/odom"), runtime::Timing::kSameTick);
        ctx.OnMessage<msg::LaserGoal>(ctx.Topic("laser/goal"), [s](const bus::Message<msg::LaserGoal>& m) {
          s->goal = Vec2{m.msg.goal_x_cm(), m.msg.goal_y_cm()};
        });
        auto obstacles_out = ctx.AddOutput<msg::TopoObstacleList>(ctx.Topic("laser/obstacles"));
        auto features_out = ctx.AddOutput<msg::TopoFeatureList>(ctx.Topic("laser/features"));
        ctx.Counter("bad_frames", [s] { return static_cast<double>(s->bad_frames); });
        ctx.AddStep({.outputs = {obstacles_out->topic(), features_out->topic()}}, [=](const runtime::TickInfo& tick) {
          PerceivedScan p;
          if (scan->Get() && odom->Get()) {
            // Without a goal yet the goal flags are false; the features do not depend on it.
            if (FrameFromMsgs(*scan->Get(), *odom->Get(), s->goal.value_or(Vec2{}), tick.tick, tick.time_s,
                              &s->frame)) {
              p = PerceiveScan(s->frame, s->env, options);
              if (!s->goal) p.goal_in_sight = false;
            } else {
              ++s->bad_frames;
            }
          }
          obstacles_out->Publish(
              tick, [&](flatbuffers::FlatBufferBuilder& fbb, auto header) { return ToMsg(fbb, header, p.obstacles); });
          features_out->Publish(
              tick, [&](flatbuffers::FlatBufferBuilder& fbb, auto header) { return ToMsg(fbb, header, p); });
        });
      }};
  d.more_help = kBusExample;
  return d;
}

runtime::ServiceDefinition LaserMapperService() {
  runtime::ServiceDefinition d{
      "laser_mapper", "laser robot's topological mapper: nodes, links, exits, masking, self-localisation",
      [](runtime::ServiceContext& ctx) {
        TopoMapperOptions o;
        o.map_every_cycles =
            ctx.Option<int>("map_every_cycles", o.map_every_cycles,
                            "update the map every N scans (2: the thesis' 50 Hz mapper)", runtime::AtLeast(1));
        o.snapshot_every = ctx.Option<int>("snapshot_every", o.snapshot_every,
                                           "send the map every N scans when no node changed", runtime::AtLeast(1));
        o.map.self_localise =
            ctx.Option<bool>("self_localise", o.map.self_localise, "pose calibration at revisited nodes");
        std::shared_ptr<TopoMapper> mapper;
        try {
          mapper = std::make_shared<TopoMapper>(o);
        } catch (const std::invalid_argument& e) {
          throw config::ConfigError(std::string("laser_mapper: ") + e.what());
        }
        auto features = ctx.AddInput<msg::TopoFeatureList>(ctx.Topic("laser/features"), runtime::Timing::kSameTick);
        auto odom = ctx.AddInput<msg::LaserOdometry>(ctx.Topic("laser/odom"), runtime::Timing::kSameTick);
        auto attempt =
            ctx.AddInput<msg::TopoExitAttempt>(ctx.Topic("laser/exit_attempt"), runtime::Timing::kPreviousTick);
        auto node_out = ctx.AddOutput<msg::TopoCurrentNode>(ctx.Topic("laser/current_node"));
        auto map_out = ctx.AddOutput<msg::TopoMapSnapshot>(ctx.Topic("laser/map"), /*latched=*/true);
        auto last_attempt_tick = std::make_shared<int64_t>(-1);
        ctx.Counter("nodes", [mapper] { return static_cast<double>(mapper->map().nodes().size()); });
        ctx.Counter("attempts_refused", [mapper] { return static_cast<double>(mapper->attempts_refused()); });
        ctx.AddStep({.outputs = {node_out->topic()}}, [=](const runtime::TickInfo& tick) {
          if (attempt->Get() && attempt->tick() != *last_attempt_tick) {
            *last_attempt_tick = attempt->tick();
            if (attempt->Get()->state() == msg::ExitAttemptState::Started) {
              mapper->CountAttempt(attempt->Get()->node_id(), attempt->Get()->sector());
            }
          }
          if (features->Get() && odom->Get()) {
            mapper->Update(FeaturesFromMsg(*features->Get()), features->Get()->classified_index(),
                           Vec2{odom->Get()->x_cm(), odom->Get()->y_cm()}, features->Get()->goal_in_sight(), tick.tick);
          }
          if (mapper->SnapshotDue()) {
            mapper->SnapshotSent();
            map_out->Publish(tick, [&](flatbuffers::FlatBufferBuilder& fbb, auto header) {
              return ToMsg(fbb, header, mapper->map(), mapper->version());
            });
          }
          node_out->Publish(
              tick, [&](flatbuffers::FlatBufferBuilder& fbb, auto header) { return ToMsg(fbb, header, *mapper); });
        });
      }};
  d.more_help = kBusExample;
  return d;
}

runtime::ServiceDefinition LaserPlannerService() {
  runtime::ServiceDefinition d{
      "laser_planner", "laser robot's map planner (Eq. 6-1): a path to the best exit, on request",
      [](runtime::ServiceContext& ctx) {
        struct State {
          TopoMap map;
          int64_t map_tick = -1;
          uint32_t map_version = 0;
          uint32_t last_request = 0;
          int64_t answered = 0, no_path = 0;
        };
        auto s = std::make_shared<State>();
        PlannerOptions o;
        o.usable_prob =
            ctx.Option<double>("usable_prob", o.usable_prob, "an exit is usable from this probability (A27)",
                               runtime::InRange(0.0, 100.0));
        auto request =
            ctx.AddInput<msg::TopoPlanRequest>(ctx.Topic("laser/plan_request"), runtime::Timing::kPreviousTick);
        auto snapshot = ctx.AddInput<msg::TopoMapSnapshot>(ctx.Topic("laser/map"), runtime::Timing::kPreviousTick);
        auto path_out = ctx.AddOutput<msg::TopoPath>(ctx.Topic("laser/path"));
        ctx.Counter("answered", [s] { return static_cast<double>(s->answered); });
        ctx.Counter("no_path", [s] { return static_cast<double>(s->no_path); });
        ctx.AddStep({}, [=](const runtime::TickInfo& tick) {
          const msg::TopoPlanRequest* r = request->Get();
          if (r == nullptr || r->request_id() == s->last_request) return;  // answers each request once
          s->last_request = r->request_id();
          if (snapshot->Get() && snapshot->tick() != s->map_tick) {
            s->map_tick = snapshot->tick();
            s->map_version = snapshot->Get()->version();
            s->map.mutable_nodes() = NodesFromMsg(*snapshot->Get());
          }
          const MapPath path =
              PlanForRequest(s->map, r->current_node(), Vec2{r->goal_x_cm(), r->goal_y_cm()}, r->goal_in_sight(), o);
          ++s->answered;
          if (!path.valid) ++s->no_path;
          path_out->Publish(tick, [&](flatbuffers::FlatBufferBuilder& fbb, auto header) {
            return ToMsg(fbb, header, r->request_id(), r->current_node(), path, s->map_version);
          });
        });
      }};
  d.more_help = kBusExample;
  return d;
}

}  // namespace limbic::laser
