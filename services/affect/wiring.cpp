#include "services/affect/wiring.hpp"

#include <chrono>
#include <optional>

#include "common/convert/convert.hpp"
#include "common/log/log.hpp"
#include "common/robot/wiring.hpp"
#include "services/affect/affect_config.hpp"
#include "services/affect/affect_engine.hpp"
#include "services/affect/convert.hpp"
#include "services/mapper/convert.hpp"
#include "services/mapper/occupancy_mapper.hpp"

namespace limbic::affect {

runtime::ServiceDefinition AffectService() {
  return {
      "affect", "affect engine: stimuli, emotions, moods, drives and parameter modulation",
      [](runtime::ServiceContext& ctx) {
        using runtime::Timing;
        struct State {
          std::string config = "affective";
          std::vector<std::string> overrides;
          AffectConfig affect_config;
          std::unique_ptr<AffectEngine> engine;
          mapper::MapFollower maps;
          convert::WorldInfo world;
          std::vector<geometry::Vec2> ir_points;
          RangeScan scan;
          std::vector<geometry::Vec2> switch_points;
          std::vector<double> headings, distances;
          double last_compute_s = 0.0;
          double snapshot_period_s = 1.0;
          std::optional<double> next_snapshot_s;  // the first is one period after the first step
          bool published_snapshot = false;        // until then, a snapshot seen is a predecessor's
          bool restore_checked = false;
          bool layer_on_change = false;
          LayerChangeFilter layer_changes;  // on_change: is the layer other than the last one published?
        };
        auto s = std::make_shared<State>();
        // All three are start-up options: the configuration builds the engine (a new one would lose the
        // emotional state), and the snapshot period only matters to a restart (issue 15).
        s->config = ctx.Option<std::string>("config", s->config,
                                            "affect configuration: a name in services/affect/config or a .yaml path");
        s->overrides = ctx.Option<std::vector<std::string>>("overrides", {},
                                                            "key.path=value overrides of the affect configuration");
        s->snapshot_period_s = ctx.Option<double>(
            "snapshot_period_s", s->snapshot_period_s,
            "realtime: seconds between latched state snapshots a restarted engine resumes from (0: off)",
            runtime::AtLeast(0.0));
        // Issue 18 (performance): a layer that does not change (the constant configuration's, disabled: all zeros;
        // an affective one between emotion changes) was built, value-checked, copied and delivered every tick.
        // on_change (the default) publishes it when its content differs from the last one published, latched: the
        // planner, its one consumer in the stack, reads it as a previous-tick input and keeps the newest, so it
        // plans with the same values; a late joiner (a restarted planner, a recorder, the Foxglove bridge) gets the
        // current layer from the latch at once, and in realtime the bus re-sends it every latched_resend (1 s).
        // every_tick is the earlier behaviour (a stream of layers, one a tick).
        s->layer_on_change = ctx.Option<std::string>("emotion_layer_publish", "on_change",
                                                     "on_change | every_tick: publish the emotion layer (latched) "
                                                     "when its content changes, or every tick (start-up option)",
                                                     runtime::OneOf({"on_change", "every_tick"})) == "on_change";
        s->affect_config = LoadAffectConfig(s->config, DefaultConfigDir(), s->overrides);
        // The bumper switch points of eq. 8.14 lie on the body's circumscribed circle (issue 18: from the robot
        // description, MARVIN's r_R = 0.35 m by default).
        const robot::RobotDescription body =
            robot::BodyOption(ctx, "the bumper switch points of eq. 8.14 on its circumscribed circle");
        const double body_radius = body.body.circumscribed_radius();
        const int body_switches = body.bumper_count;
        s->affect_config.control_period = ctx.period_s();
        LIMBIC_LOG(kDebug) << DescribeConfig(s->affect_config);

        auto world = ctx.AddInput<msg::WorldGeometry>("world", Timing::kPreviousTick, /*required=*/true);
        auto odom = ctx.AddInput<msg::Odometry>(ctx.Topic("odom"), Timing::kSameTick);
        auto collision = ctx.AddInput<msg::CollisionEvent>(ctx.Topic("collision"), Timing::kSameTick);
        auto scan = ctx.AddInput<msg::RangeScan>(ctx.Topic("scan"), Timing::kSameTick);
        auto stats = ctx.AddInput<msg::MapStats>(ctx.Topic("map/stats"), Timing::kSameTick);
        auto path = ctx.AddInput<msg::Path>(ctx.Topic("path"), Timing::kSameTick);
        auto patch = ctx.AddInput<msg::GridPatch>(ctx.Topic("map/patch"), Timing::kSameTick);
        auto full = ctx.AddInput<msg::GridMap>(ctx.Topic("map"), Timing::kPreviousTick);
        auto direction = ctx.AddInput<msg::DirectionalState>(ctx.Topic("control/direction"), Timing::kPreviousTick);
        auto goal = ctx.AddInput<msg::NavGoal>(ctx.Topic("goal"), Timing::kPreviousTick);
        auto params_out = ctx.AddOutput<msg::ControlParams>(ctx.Topic("params"), /*latched=*/true);
        auto layer_out = ctx.AddOutput<msg::EmotionLayer>(ctx.Topic("emotion_layer"), /*latched=*/s->layer_on_change);
        auto state_out = ctx.AddOutput<msg::AffectState>(ctx.Topic("affect"));
        // Realtime: the engine's whole state, latched, and read back by a restarted engine (issue 8).
        // Lockstep runs start from a reset engine by definition and skip both.
        const bool snapshots = ctx.mode() == runtime::Mode::kRealtime && s->snapshot_period_s > 0;
        auto snapshot_out = ctx.AddOutput<msg::AffectSnapshot>(ctx.Topic("affect/snapshot"), /*latched=*/true);
        auto own_snapshot = ctx.AddInput<msg::AffectSnapshot>(ctx.Topic("affect/snapshot"), Timing::kPreviousTick);
        ctx.Counter("compute_time_s", [s] { return s->last_compute_s; });

        ctx.AddStep(
            {.outputs = {ctx.Topic("params"), ctx.Topic("emotion_layer"), ctx.Topic("affect")}},
            [=, &ctx](const runtime::TickInfo& tick) {
              const auto begin = std::chrono::steady_clock::now();
              if (s->world.set == '?') s->world = convert::FromMsg(*world->Get());
              const mapper::GridMaps* maps = s->maps.Follow(s->world.min, s->world.max, patch->Get(), full->Get());
              if (!s->engine)
                s->engine = std::make_unique<AffectEngine>(s->affect_config, maps ? maps->spec : geometry::GridSpec{});
              // A snapshot that is here before this engine published its own is a predecessor's: carry on
              // from it (once, and only onto the same configuration and grid).
              if (snapshots && !s->restore_checked && !s->published_snapshot && own_snapshot->Get() != nullptr) {
                s->restore_checked = true;
                std::string why;
                if (auto restored = SnapshotFromMsg(*own_snapshot->Get(), s->config, s->engine->grid(), &why)) {
                  s->engine->set_state(std::move(*restored));
                  LIMBIC_LOG(kInfo) << "restarted: carrying on from the affect state of tick "
                                    << own_snapshot->Get()->header()->tick();
                } else {
                  LIMBIC_LOG(kWarning) << "not resuming from the latched affect snapshot: " << why;
                }
              }
              AffectInputs in;
              in.time = tick.time_s;
              if (const auto* o = odom->Get()) {
                const OdometryEstimate est = convert::FromMsg(*o);
                in.pose = est.pose;
                in.speed = est.v;
              }
              if (const auto* d = direction->Get();
                  d && d->headings() && d->d_o_raw() && d->headings()->size() == d->d_o_raw()->size()) {
                s->headings.assign(d->headings()->begin(), d->headings()->end());
                s->distances.assign(d->d_o_raw()->begin(), d->d_o_raw()->end());
                in.headings = s->headings;
                in.obstacle_distances = s->distances;
              }
              if (const auto* c = collision->Get()) in.collision = convert::FromMsg(*c);
              s->switch_points = CollisionSwitchPoints(in.pose, in.collision, body_radius, body_switches);  // issue 18
              in.collision_switch_points = s->switch_points;
              // Eq. 8.14 compares the bumper with what the IR sensors measure now: this tick's beam hits only
              // (the mapper's obstacle buffer also holds the collision points themselves).
              s->ir_points.clear();
              if (const auto* sc = scan->Get(); sc && ErrorStimulusReadsIrPoints(in.collision)) {
                convert::BeamsFromMsg(sc->beams(), &s->scan);
                const geometry::PoseFrame frame(in.pose);  // cos and sin of the heading once for all beams
                for (const auto& beam : s->scan.beams) {
                  if (beam.valid) s->ir_points.push_back(mapper::BeamHitPoint(frame, beam));
                }
              }
              in.ir_points = s->ir_points;
              if (const auto* g = goal->Get(); g && g->active() && g->goal()) {
                in.goal = GoalProgress{g->received_at_s(), g->distance_at_start(),
                                       (convert::FromMsg(*g->goal()) - in.pose.Position()).norm()};
              }
              if (const auto* st = stats->Get()) in.map_stats = convert::FromMsg(*st);
              if (const auto* p = path->Get(); p && p->success()) in.path_max_cost = p->max_cost();
              if (maps && maps->spec == s->engine->grid()) in.p_e = maps->p_e;
              const AffectOutputs out = s->engine->Step(in);
              // A refused cycle (non-finite input or result) republishes the last good outputs: say so.
              ctx.ReportFault("affect", s->engine->fault());
              s->last_compute_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count();
              params_out->Publish(tick, [&](flatbuffers::FlatBufferBuilder& fbb, auto header) {
                return convert::ToMsg(fbb, header, out.parameters);
              });
              if (!s->layer_on_change || s->layer_changes.Changed(out.emotion_layer, out.emotion_layer_zero)) {
                layer_out->Publish(tick, [&](flatbuffers::FlatBufferBuilder& fbb, auto header) {
                  const msg::GridInfo info = convert::ToMsg(out.emotion_layer.grid);
                  return msg::CreateEmotionLayer(fbb, header, &info, fbb.CreateVector(out.emotion_layer.cost),
                                                 out.emotion_layer.fusion == EmotionLayerFusion::kAdditive);
                });
              }
              state_out->Publish(tick, [&](flatbuffers::FlatBufferBuilder& fbb, auto header) {
                auto vec = [&](const auto& a) { return fbb.CreateVector(a.data(), a.size()); };
                return msg::CreateAffectState(
                    fbb, header, fbb.CreateString(s->config), vec(out.stimuli_raw), vec(out.stimuli_normalised),
                    vec(out.stimuli_damped), vec(out.emotions_global), vec(out.emotions_mapped),
                    vec(out.emotions_combined), vec(out.moods), vec(out.drives_emotional), vec(out.drives), out.d_min,
                    out.d_max, vec(out.moods_used), s->last_compute_s);
              });
              // The first one waits a period, so a predecessor's latched snapshot has time to arrive.
              if (snapshots && !s->next_snapshot_s) s->next_snapshot_s = tick.time_s + s->snapshot_period_s;
              if (snapshots && tick.time_s >= *s->next_snapshot_s) {
                snapshot_out->Publish(tick, [&](flatbuffers::FlatBufferBuilder& fbb, auto header) {
                  return SnapshotToMsg(fbb, header, s->config, s->engine->grid(), s->engine->state());
                });
                s->published_snapshot = true;
                s->next_snapshot_s = tick.time_s + s->snapshot_period_s;
              }
            });
      }};
}

}  // namespace limbic::affect
