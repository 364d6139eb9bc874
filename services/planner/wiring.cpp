#include "services/planner/wiring.hpp"

#include <chrono>

#include "common/convert/convert.hpp"
#include "services/mapper/convert.hpp"
#include "services/planner/planner.hpp"

namespace limbic::planner {

runtime::ServiceDefinition PlannerService(PlannerStepHook before_step) {
  return {
      "planner", "map fusion, smoothing filter and cost-exponent A*", [before_step](runtime::ServiceContext& ctx) {
        using runtime::Timing;
        struct State {
          std::string fusion = "affect";
          std::unique_ptr<Planner> planner;
          mapper::MapFollower maps;
          convert::WorldInfo world;
          double last_plan_time_s = 0.0;
          uint64_t plans = 0;
          uint64_t timer_plans = 0;  // of those, due to the replan period (not a new goal or a request)
        };
        auto s = std::make_shared<State>();
        // Live (issue 15): the step reads s->fusion every tick; the apply step also makes the planner replan
        // at once, so the path in force is never one planned under the old fusion.
        s->fusion = ctx.LiveParam<std::string>(
            "fusion", "affect",
            "how the emotion layer enters the cost: affect (as the affect model says: the thesis ORs it, eq. "
            "5.3-5.4; companion2006 adds c_e) | or | additive (force one); live: replans at once",
            runtime::OneOf({"affect", "or", "additive"}), [s](const std::string& f) {
              if (f != s->fusion) s->planner->RequestReplan();
              s->fusion = f;
            });
        // Live: the exploration task manager's resource feedback lowers it when the robot's CPU share is saturated
        // (services/explore). The apply step reaches the planner object, which reads it at the next cycle.
        const double max_replan_hz = ctx.LiveParam<double>(
            "max_replan_hz", 0.0,
            "cap on timer replans per simulated second: the replan period is max(t_r, 1/cap); 0 = no cap (t_r "
            "alone); a new goal is always planned at once",
            runtime::InRange(0.0, 100.0), [s](const double& hz) { s->planner->SetMaxReplanRate(hz); });
        PlannerOptions options;
        const std::string danger_weight = ctx.Option<std::string>(
            "danger_weight", "live",
            "W_p2 the planner uses: live (every cycle's, spec default) | traversal_max (the largest since the current "
            "instruction; keeps the plan from flipping with the robot's distance to where it was confused, issue 14)",
            runtime::OneOf(kDangerWeightNames));
        options.danger_weight = ParseDangerWeight(danger_weight);
        s->planner = std::make_unique<Planner>(options);
        s->planner->SetMaxReplanRate(max_replan_hz);

        auto world = ctx.AddInput<msg::WorldGeometry>("world", Timing::kPreviousTick, /*required=*/true);
        auto odom = ctx.AddInput<msg::Odometry>(ctx.Topic("odom"), Timing::kSameTick);
        auto patch = ctx.AddInput<msg::GridPatch>(ctx.Topic("map/patch"), Timing::kSameTick);
        auto full = ctx.AddInput<msg::GridMap>(ctx.Topic("map"), Timing::kPreviousTick);
        auto goal = ctx.AddInput<msg::NavGoal>(ctx.Topic("goal"), Timing::kPreviousTick);
        auto params = ctx.AddInput<msg::ControlParams>(ctx.Topic("params"), Timing::kPreviousTick);
        auto layer = ctx.AddInput<msg::EmotionLayer>(ctx.Topic("emotion_layer"), Timing::kPreviousTick);
        auto path_out = ctx.AddOutput<msg::Path>(ctx.Topic("path"));
        ctx.Counter("plans", [s] { return static_cast<double>(s->plans); });
        ctx.Counter("timer_plans", [s] { return static_cast<double>(s->timer_plans); });
        ctx.Counter("plan_time_s", [s] { return s->last_plan_time_s; });
        ctx.Counter("max_replan_hz", [s] { return s->planner->max_replan_hz(); });

        ctx.AddStep({.outputs = {ctx.Topic("path")}}, [=, &ctx](const runtime::TickInfo& tick) {
          if (s->world.set == '?') s->world = convert::FromMsg(*world->Get());
          const mapper::GridMaps* maps = s->maps.Follow(s->world.min, s->world.max, patch->Get(), full->Get());
          PlannerInputs in;
          in.time = tick.time_s;
          in.maps = maps;
          if (const auto* o = odom->Get()) in.robot_position = convert::FromMsg(*o).pose.Position();
          if (const auto* g = goal->Get(); g && g->active()) in.goal = convert::FromMsg(*g);
          if (const auto* p = params->Get()) in.params = convert::FromMsg(*p);
          // The layer is read in place (a whole grid every tick; checked aligned on receipt), valid for this step.
          std::span<const double> layer_cost;
          bool layer_additive = false;
          if (const auto* l = layer->Get();
              l && l->cost() && maps && static_cast<int>(l->cost()->size()) == maps->CellCount()) {
            layer_cost = {l->cost()->data(), l->cost()->size()};
            layer_additive = l->additive();
          }
          const EmotionFusion choice = s->fusion == "or"         ? EmotionFusion::kOr
                                       : s->fusion == "additive" ? EmotionFusion::kAdditive
                                                                 : EmotionFusion::kFollowAffect;
          in.SetEmotionLayer(layer_cost, ChooseFusion(choice, layer_additive));
          const auto begin = std::chrono::steady_clock::now();
          if (before_step) before_step(*s->planner, tick.tick);
          const PlannerOutputs out = s->planner->Step(in);
          // A refused cycle (non-finite input, state or cost) republishes the last good path: say so.
          ctx.ReportFault("planner", s->planner->fault());
          if (out.replanned()) {
            s->last_plan_time_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count();
            ++s->plans;
            if (out.reason == ReplanReason::kTimer) ++s->timer_plans;
          }
          path_out->Publish(tick, [&](flatbuffers::FlatBufferBuilder& fbb, auto header) {
            const auto& p = out.path;
            return msg::CreatePath(fbb, header, p.success, out.replanned(), convert::ToMsg(fbb, p.nodes),
                                   fbb.CreateVector(p.node_costs), p.max_cost, p.planned_at, s->last_plan_time_s,
                                   in.goal ? in.goal->instruction_id : -1,
                                   in.fusion == FusionMode::kAdditive && !layer_cost.empty());
          });
        });
      }};
}

}  // namespace limbic::planner
