#include "services/laser_topo/wiring.hpp"

#include <algorithm>
#include <optional>
#include <utility>
#include <vector>

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
                                           "send the whole map every N scans (changes go out as map updates at once)",
                                           runtime::AtLeast(1));
        o.map.self_localise =
            ctx.Option<bool>("self_localise", o.map.self_localise, "pose calibration at revisited nodes");
        o.map.reached_is_not_a_try = ctx.Option<bool>(
            "reached_is_not_a_try", o.map.reached_is_not_a_try,
            "an ExitResult Reached takes its try back (false: every attempt counts toward the two-tries rule)");
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
        auto update_out = ctx.AddOutput<msg::TopoMapUpdate>(ctx.Topic("laser/map_update"));
        auto pose_out = ctx.AddOutput<msg::EstimatedPose>(ctx.Topic("laser/pose"));
        auto last_attempt_tick = std::make_shared<int64_t>(-1);
        ctx.Counter("nodes", [mapper] { return static_cast<double>(mapper->map().nodes().size()); });
        ctx.Counter("attempts_refused", [mapper] { return static_cast<double>(mapper->attempts_refused()); });
        ctx.Counter("exits_started", [mapper] { return static_cast<double>(mapper->attempts()[0]); });
        ctx.Counter("exits_reached", [mapper] { return static_cast<double>(mapper->attempts()[1]); });
        ctx.Counter("exits_abandoned", [mapper] { return static_cast<double>(mapper->attempts()[2]); });
        ctx.Counter("pose_corrections", [mapper] { return static_cast<double>(mapper->corrections()); });
        ctx.AddStep({.outputs = {node_out->topic()}}, [=](const runtime::TickInfo& tick) {
          if (attempt->Get() && attempt->tick() != *last_attempt_tick) {
            *last_attempt_tick = attempt->tick();
            const ExitAttemptOut a = ExitAttemptFromMsg(*attempt->Get());
            mapper->RecordAttempt(a.node, a.sector, a.outcome);
          }
          if (features->Get() && odom->Get()) {
            mapper->Update(FeaturesFromMsg(*features->Get()), features->Get()->classified_index(),
                           Vec2{odom->Get()->x_cm(), odom->Get()->y_cm()}, features->Get()->goal_in_sight(), tick.tick);
          }
          for (const NodeUpdate& u : mapper->TakeUpdates()) {
            update_out->Publish(
                tick, [&](flatbuffers::FlatBufferBuilder& fbb, auto header) { return ToMsg(fbb, header, u); });
          }
          if (mapper->SnapshotDue()) {  // after the updates: it includes them all
            mapper->SnapshotSent();
            map_out->Publish(tick, [&](flatbuffers::FlatBufferBuilder& fbb, auto header) {
              return ToMsg(fbb, header, mapper->map(), mapper->version(), mapper->update_seq());
            });
          }
          node_out->Publish(
              tick, [&](flatbuffers::FlatBufferBuilder& fbb, auto header) { return ToMsg(fbb, header, *mapper); });
          if (odom->Get()) {
            pose_out->Publish(tick, [&](flatbuffers::FlatBufferBuilder& fbb, auto header) {
              return ToMsg(fbb, header, *mapper, Vec2{odom->Get()->x_cm(), odom->Get()->y_cm()},
                           odom->Get()->heading_deg());
            });
          }
        });
      }};
  d.more_help = kBusExample;
  return d;
}

runtime::ServiceDefinition LaserPlannerService() {
  runtime::ServiceDefinition d{
      "laser_planner", "laser robot's map planner (Eq. 6-1): a path to the best exit, on request",
      [](runtime::ServiceContext& ctx) {
        PlannerOptions o;
        o.usable_prob =
            ctx.Option<double>("usable_prob", o.usable_prob, "an exit is usable from this probability (A27)",
                               runtime::InRange(0.0, 100.0));
        struct State {
          explicit State(const PlannerOptions& o) : planner(o) {}
          TopoPlanner planner;
          int64_t snapshot_tick = -1;
          uint32_t last_request = 0;
          std::vector<std::pair<int64_t, NodeUpdate>> updates;  // (tick, update) as they arrive
        };
        auto s = std::make_shared<State>(o);
        auto request =
            ctx.AddInput<msg::TopoPlanRequest>(ctx.Topic("laser/plan_request"), runtime::Timing::kPreviousTick);
        auto snapshot = ctx.AddInput<msg::TopoMapSnapshot>(ctx.Topic("laser/map"), runtime::Timing::kPreviousTick);
        // Every update counts (several a tick): kept as they come, applied by the step in tick order.
        ctx.OnMessage<msg::TopoMapUpdate>(ctx.Topic("laser/map_update"),
                                          [s](const bus::Message<msg::TopoMapUpdate>& m) {
                                            s->updates.emplace_back(m.header.tick(), NodeUpdateFromMsg(m.msg));
                                          });
        auto path_out = ctx.AddOutput<msg::TopoPath>(ctx.Topic("laser/path"));
        const bool lockstep = ctx.mode() == runtime::Mode::kLockstep;
        ctx.Counter("answered", [s] { return static_cast<double>(s->planner.answered()); });
        ctx.Counter("no_path", [s] { return static_cast<double>(s->planner.no_path()); });
        ctx.Counter("waited_for_map", [s] { return static_cast<double>(s->planner.waited()); });
        ctx.Counter("map_updates", [s] { return static_cast<double>(s->planner.replica().stats().applied); });
        ctx.Counter("map_gaps", [s] { return static_cast<double>(s->planner.replica().stats().gaps); });
        ctx.AddStep({}, [=](const runtime::TickInfo& tick) {
          if (snapshot->Get() && snapshot->tick() != s->snapshot_tick) {
            s->snapshot_tick = snapshot->tick();
            s->planner.replica().Reset(NodesFromMsg(*snapshot->Get()), snapshot->Get()->update_seq());
          }
          // In lockstep the updates of earlier ticks only (as a previous-tick input sees them): the same map whatever
          // the timing. In realtime every one that has come (the hosts' ticks are their own, as for inputs).
          auto later = std::stable_partition(s->updates.begin(), s->updates.end(),
                                             [&](const auto& u) { return !lockstep || u.first < tick.tick; });
          for (auto it = s->updates.begin(); it != later; ++it) s->planner.replica().Apply(it->second);
          s->updates.erase(s->updates.begin(), later);
          const msg::TopoPlanRequest* r = request->Get();
          if (r != nullptr && r->request_id() != s->last_request) {  // each request once
            s->last_request = r->request_id();
            s->planner.OnRequest(PlanRequestFromMsg(*r));
          }
          if (const std::optional<PlanAnswer> a = s->planner.Answer()) {
            path_out->Publish(tick, [&](flatbuffers::FlatBufferBuilder& fbb, auto header) {
              return ToMsg(fbb, header, a->request_id, a->start_node, a->path, a->map_seq);
            });
          }
        });
      }};
  d.more_help = kBusExample;
  return d;
}

}  // namespace limbic::laser
