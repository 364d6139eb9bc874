#include "services/controller/wiring.hpp"

#include <chrono>

#include "common/convert/convert.hpp"
#include "common/robot/wiring.hpp"
#include "services/controller/controller.hpp"
#include "services/mapper/convert.hpp"

namespace limbic::controller {

runtime::ServiceDefinition ControllerService() {
  return {
      "controller", "two-stage reactive controller: directional histogram, then dynamic window",
      [](runtime::ServiceContext& ctx) {
        using runtime::Timing;
        struct State {
          std::string tie_break = "first";
          std::string velocity_goal = "directional";
          int64_t seed = 1;
          std::unique_ptr<Controller> controller;
          mapper::MapFollower maps;
          convert::WorldInfo world;
          std::vector<geometry::Vec2> points;
          std::vector<double> danger;
          PlannedPath path;
          double stale_scan_s = 0.5;
          double last_compute_s = 0.0;
        };
        auto s = std::make_shared<State>();
        // Live: each apply reaches the Controller object, effective at the next tick (issue 15).
        s->tie_break =
            ctx.LiveParam<std::string>("tie_break", "first", "argmax ties: first | closest (to the current state)",
                                       runtime::OneOf(kTieBreakNames), [s](const std::string& t) {
                                         s->tie_break = t;
                                         s->controller->SetTieBreak(ParseTieBreak(t));
                                       });
        s->velocity_goal = ctx.LiveParam<std::string>(
            "velocity_goal", "directional",
            "velocity layer's goal target: directional (θ_T) | goal_bearing (Chapter-6 reactive tests)",
            runtime::OneOf(kVelocityGoalTargetNames), [s](const std::string& g) {
              s->velocity_goal = g;
              s->controller->SetVelocityGoalTarget(ParseVelocityGoalTarget(g));
            });
        s->seed =
            ctx.LiveParam<int64_t>("seed", 1,
                                   "seed of the wander generator; live: restarts the generator from it and redraws "
                                   "the wander heading at the next tick",
                                   {}, [s](const int64_t& seed) {
                                     s->seed = seed;
                                     s->controller->ReseedWander(static_cast<uint64_t>(seed));
                                   });
        s->stale_scan_s = ctx.Option<double>(
            "stale_obstacles_s", 0.5, "realtime: slow down, then stop, when obstacle data is older than this (s)",
            runtime::Positive<double>());
        // Issue 14: the map's virtual obstacle points sit at cell centres, up to half a cell (0.175 m) off the
        // surface they stand for, so with r_o around them a passage narrower than about 2·(r_o + 0.175) m closes in
        // a_m while the sensors see it open. 0 = spec (§4.4: "same r_o").
        const double map_point_inset = ctx.Option<double>("map_point_inset", 0.0,
                                                          "metres taken off r_o around the map's virtual obstacle "
                                                          "points in map-based avoidance (both layers); 0 = spec, "
                                                          "0.175 = half a cell",
                                                          runtime::InRange<double>(0.0, 0.35));
        // Issue 14: a collision danger cell's virtual point at the mapper's mark (its estimate of the obstacle point)
        // instead of the cell centre. Start-up only: it changes what the map layer is, not a weight.
        const MapDangerPoint map_danger_point = ParseMapDangerPoint(ctx.Option<std::string>(
            "map_danger_point", "centre",
            "where map-based avoidance stands a collision danger cell: centre (spec) | site (where the collision put "
            "its mark)",
            runtime::OneOf(kMapDangerPointNames)));
        // Issue 18: the robot's body from its description (one source of the body's facts).
        const robot::RobotDescription description = robot::BodyOption(ctx, "outline, drive and limits for both layers");
        ControllerOptions options;
        options.velocity.body = ControllerBody::From(description);
        // Issue 18: a drive that cannot turn on the spot may turn on its tightest forward arc where one that can would
        // turn in place (VelocityOptions::turn_speed). Off by default: measured 2026-11-27 it mends Itchy's worst
        // pinning but is no better over the experiments (services/explore/README.md).
        options.velocity.turn_speed = ctx.Option<double>(
            "tricycle_turn_speed", 0.0,
            "m/s of a tricycle's tightest forward arc towards the heading target when it would turn in place, if the "
            "whole turn is clear (0: it edges on and backs out); no effect on drives that turn on the spot",
            runtime::InRange<double>(0.0, 1.0));
        // Issue 18: a tricycle's recovery and turning motions judged by the outline swept along them (its real extent
        // along its travel), and its recovery as a three-point turn (VelocityOptions::outline_check,
        // three_point_turn).
        options.velocity.outline_check = ctx.Option<bool>(
            "outline_check", true,
            "judge a tricycle's backing and turning motions by its outline swept along them (false: by the half-width "
            "across travel, r_v, the earlier check)");
        // Issue 18: every velocity candidate of a non-circular body judged by its outline swept over the candidate's
        // horizon (VelocityOptions::candidate_outline_check); a circle's results are the same either way.
        options.velocity.candidate_outline_check = ctx.Option<bool>(
            "candidate_outline_check", false,
            "judge each velocity candidate of a non-circular body by its outline swept over [t_1, t_2] (its front and "
            "corners too); false: by its centre's path against its half-width across travel (eq. 5.22's r_v)");
        options.velocity.three_point_turn = ctx.Option<bool>(
            "three_point_turn", false,
            "a tricycle turns by a three-point turn where a drive that can would turn in place (false: it only backs "
            "out when stuck, on its arc, else straight)");
        options.directional.body_centre = description.body.centre();
        options.directional.body_radius = description.body.circumscribed_radius();
        options.directional.map_point_inset = map_point_inset;
        options.velocity.map_point_inset = map_point_inset;
        options.directional.map_danger_point = map_danger_point;
        const TieBreak tie = ParseTieBreak(s->tie_break);
        options.directional.tie_break = tie;
        options.velocity.tie_break = tie;
        options.directional.wander_seed = static_cast<uint64_t>(s->seed);
        options.velocity.goal_target = ParseVelocityGoalTarget(s->velocity_goal);
        options.velocity.control_period = ctx.period_s();
        s->controller = std::make_unique<Controller>(options);

        auto world = ctx.AddInput<msg::WorldGeometry>("world", Timing::kPreviousTick, /*required=*/true);
        auto params = ctx.AddInput<msg::ControlParams>(ctx.Topic("params"), Timing::kSameTick);
        auto obstacles = ctx.AddInput<msg::ObstacleSet>(ctx.Topic("obstacles"), Timing::kSameTick);
        auto odom = ctx.AddInput<msg::Odometry>(ctx.Topic("odom"), Timing::kSameTick);
        auto path = ctx.AddInput<msg::Path>(ctx.Topic("path"), Timing::kSameTick);
        auto patch = ctx.AddInput<msg::GridPatch>(ctx.Topic("map/patch"), Timing::kSameTick);
        auto full = ctx.AddInput<msg::GridMap>(ctx.Topic("map"), Timing::kPreviousTick);
        auto goal = ctx.AddInput<msg::NavGoal>(ctx.Topic("goal"), Timing::kPreviousTick);
        auto cmd_out = ctx.AddOutput<msg::VelocityCommand>(ctx.Topic("cmd_vel"));
        auto direction_out = ctx.AddOutput<msg::DirectionalState>(ctx.Topic("control/direction"));
        auto velocity_out = ctx.AddOutput<msg::VelocityState>(ctx.Topic("control/velocity"));
        ctx.Counter("compute_time_s", [s] { return s->last_compute_s; });
        const bool realtime = ctx.mode() == runtime::Mode::kRealtime;

        // Realtime: a command follows its obstacles (the mapper's reading of a scan) at once (runtime::RealtimeTicks).
        ctx.AddStep(
            {.outputs = {ctx.Topic("cmd_vel"), ctx.Topic("control/direction"), ctx.Topic("control/velocity")},
             .realtime_trigger = obstacles.get()},
            [=, &ctx](const runtime::TickInfo& tick) {
              const auto begin = std::chrono::steady_clock::now();
              if (s->world.set == '?') s->world = convert::FromMsg(*world->Get());
              const mapper::GridMaps* maps = s->maps.Follow(s->world.min, s->world.max, patch->Get(), full->Get());
              ControlParameters p;
              if (const auto* m = params->Get()) p = convert::FromMsg(*m);
              ControllerInputs in;
              in.time = tick.time_s;
              if (const auto* o = odom->Get()) in.odometry = convert::FromMsg(*o);
              s->points.clear();
              if (const auto* ob = obstacles->Get()) s->points = convert::FromMsg(ob->points());
              in.obstacle_points = s->points;
              if (maps && (p.w_theta2 > 0 || p.w_v2 > 0)) {
                s->danger.assign(maps->danger.begin(), maps->danger.end());
                in.map = GridView{maps->spec, maps->p_o, s->danger, maps->danger_sites};
              }
              if (const auto* pm = path->Get()) {
                s->path = convert::FromMsg(*pm);
                in.path = &s->path;
              }
              if (const auto* g = goal->Get(); g && g->active() && g->goal()) in.goal = convert::FromMsg(*g->goal());
              // Realtime: without fresh obstacle data the controller slows, then stops (it is driving blind).
              double speed_scale = 1.0;
              if (realtime) {
                const double age = obstacles->AgeS();
                if (age > 2 * s->stale_scan_s)
                  speed_scale = 0.0;
                else if (age > s->stale_scan_s)
                  speed_scale = 0.5;
              }
              const ControllerOutput& out = s->controller->Tick(in, p);
              ctx.ReportFault("controller", s->controller->fault());
              VelocityCommand command = out.command;
              command.v *= speed_scale;
              if (speed_scale == 0.0) command.omega = 0.0;
              s->last_compute_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count();
              cmd_out->Publish(tick, [&](flatbuffers::FlatBufferBuilder& fbb, auto header) {
                return msg::CreateVelocityCommand(fbb, header, command.v, command.omega);
              });
              const auto& d = out.directional;
              direction_out->Publish(tick, [&](flatbuffers::FlatBufferBuilder& fbb, auto header) {
                return msg::CreateDirectionalState(
                    fbb, header, d.target_heading, fbb.CreateVector(d.headings), fbb.CreateVector(d.sensor_distance),
                    fbb.CreateVector(d.sensor_avoidance), fbb.CreateVector(d.map_avoidance),
                    fbb.CreateVector(d.path_following), fbb.CreateVector(d.goal_seeking), fbb.CreateVector(d.inertia),
                    fbb.CreateVector(d.wander), fbb.CreateVector(d.objective));
              });
              const auto& v = out.velocity;
              velocity_out->Publish(tick, [&](flatbuffers::FlatBufferBuilder& fbb, auto header) {
                return msg::CreateVelocityState(fbb, header, command.v, command.omega, v.window.v1, v.window.v2,
                                                v.window.omega1, v.window.omega2, fbb.CreateVector(v.v_samples),
                                                fbb.CreateVector(v.omega_samples), fbb.CreateVector(v.objective),
                                                s->last_compute_s);
              });
            });
      }};
}

}  // namespace limbic::controller
