#include "services/crowd/wiring.hpp"

#include <cmath>
#include <optional>

#include "common/log/log.hpp"
#include "common/paths/paths.hpp"
#include "common/robot/wiring.hpp"
#include "services/crowd/convert.hpp"
#include "sim/team.hpp"
#include "sim/visibility.hpp"

namespace limbic::crowd {
namespace {

using runtime::Timing;

std::string DefaultEmotionTable() { return paths::DataPath("configs/crowd/emotions.yaml").string(); }

}  // namespace

runtime::ServiceDefinition CrowdNavService() {
  return {
      "crowd_nav", "crowd robot: b_nav (free and reachable distances, eqs. 1-3) with emotions from a table",
      [](runtime::ServiceContext& ctx) {
        CrowdNavigatorConfig config;
        const std::string table_path = ctx.Option<std::string>("emotions", DefaultEmotionTable(),
                                                               "the emotion table (YAML, configs/crowd/emotions.yaml)");
        const std::string mode = ctx.Option<std::string>(
            "mode", "on", "emotions off | on | invisible (self-modulation only)", runtime::OneOf(EmotionModeNames()));
        config.mode = EmotionModeFromName(mode);
        BNavParams& p = config.base;
        p.optimal_speed = ctx.Option<double>("optimal_speed", p.optimal_speed, "v_opt (m/s)", runtime::AtLeast(0.0));
        p.caution = ctx.Option<double>("caution", p.caution, "η (s): stop within η in the free distance",
                                       runtime::AtLeast(0.01));
        p.margin = ctx.Option<double>("margin", p.margin, "m_a (m) around every neighbour", runtime::AtLeast(0.0));
        p.half_fov =
            ctx.Option<double>("fov_deg", 90.0, "ψ (degrees): FOV = heading ± ψ", runtime::InRange(1.0, 180.0)) *
            geometry::kPi / 180.0;
        p.horizon = ctx.Option<double>("horizon", p.horizon, "H (m)", runtime::AtLeast(0.1));
        p.tau = ctx.Option<double>("tau", p.tau, "τ (s) of the speed profile", runtime::AtLeast(0.01));
        p.directions = ctx.Option<int>("directions", p.directions, "directions β over the FOV", runtime::AtLeast(2));
        config.goal_tolerance = ctx.Option<double>("goal_tolerance", config.goal_tolerance,
                                                   "stand still within this of the goal (m)", runtime::AtLeast(0.0));
        config.neighbour_memory = ctx.Option<double>(
            "neighbour_memory", config.neighbour_memory,
            "s a neighbour that left the view stays an obstacle (0: only what is in view, the spec's plain reading)",
            runtime::InRange(0.0, 60.0));
        p.radius = robot::BodyOption(ctx, "its radius (the circumscribed circle) for b_nav's free distances")
                       .body.circumscribed_radius();
        config.table = LoadEmotionTable(table_path);
        LIMBIC_LOG(kInfo) << "crowd_nav: emotions " << mode << " from " << table_path << ", v_opt " << p.optimal_speed
                          << ", η " << p.caution << ", m_a " << p.margin << ", ψ " << p.half_fov << " rad, H "
                          << p.horizon << ", " << p.directions << " directions, r " << p.radius << ", memory "
                          << config.neighbour_memory << " s";
        struct State {
          explicit State(CrowdNavigatorConfig c) : navigator(std::move(c)) {}
          CrowdNavigator navigator;
          uint64_t world_hash = 0;
          bool have_world = false;
        };
        auto s = std::make_shared<State>(std::move(config));

        auto world = ctx.AddInput<msg::WorldGeometry>("world", Timing::kPreviousTick, /*required=*/true);
        auto odom = ctx.AddInput<msg::Odometry>(ctx.Topic("odom"), Timing::kSameTick);
        auto seen = ctx.AddInput<msg::CrowdNeighbours>(ctx.Topic("crowd/neighbours"), Timing::kSameTick);
        ctx.OnMessage<msg::NavGoal>(ctx.Topic("goal"), [s](const bus::Message<msg::NavGoal>& m) {
          const bool active = m.msg.active() && m.msg.goal() != nullptr;
          s->navigator.SetGoal(active ? std::optional<Vec2>(Vec2(m.msg.goal()->x(), m.msg.goal()->y())) : std::nullopt,
                               m.msg.instruction_id());
        });
        auto cmd_out = ctx.AddOutput<msg::VelocityCommand>(ctx.Topic("cmd_vel"));
        auto state_out = ctx.AddOutput<msg::CrowdState>(ctx.Topic("crowd/state"));
        ctx.Counter("bad_steps", [s] { return static_cast<double>(s->navigator.bad_steps()); });
        runtime::ServiceContext* context = &ctx;
        ctx.AddStep({.outputs = {cmd_out->topic(), state_out->topic()}}, [=](const runtime::TickInfo& tick) {
          if (world->Get() && (!s->have_world || world->Get()->geometry_hash() != s->world_hash)) {
            s->navigator.SetWalls(WallsOf(convert::FromMsg(*world->Get())));
            s->world_hash = world->Get()->geometry_hash();
            s->have_world = true;
          }
          std::optional<geometry::Pose2> pose;
          double v = 0.0;
          if (odom->Get() && odom->Get()->pose() != nullptr) {
            const auto* o = odom->Get()->pose();
            pose = geometry::Pose2{o->x(), o->y(), o->theta()};
            v = odom->Get()->v();
          }
          std::optional<SensedNeighbours> sensed;
          if (pose && seen->Get()) sensed = FromMsg(*seen->Get(), *pose, s->navigator.table());
          const CrowdNavigator::Command c =
              s->navigator.Step(tick.time_s, context->period_s(), pose, v, sensed ? &*sensed : nullptr);
          if (pose) context->ReportFault("crowd_nav", c.fault);
          cmd_out->Publish(tick, [&](flatbuffers::FlatBufferBuilder& fbb, auto header) {
            return msg::CreateVelocityCommand(fbb, header, c.speed, c.omega);
          });
          state_out->Publish(
              tick, [&](flatbuffers::FlatBufferBuilder& fbb, auto header) { return ToMsg(fbb, header, c.state); });
        });
      }};
}

runtime::ServiceDefinition CrowdSenseService() {
  return {
      "crowd_sense", "who sees whom in a crowd: each robot's visible neighbours from the true poses",
      [](runtime::ServiceContext& ctx) {
        const std::vector<std::string> robots =
            sim::SplitList(ctx.Option<std::string>("robots", "r1", "comma-separated robot names (the simulator's)"));
        if (robots.empty()) throw config::ConfigError("crowd_sense: robots is empty");
        // A robot that publishes no crowd/state (a hybrid-navigator robot in a mixed crowd) still has a body:
        // without this it was seen as a point (radius 0) and crowd robots kept too little room round it.
        const double other_radius =
            robot::BodyOption(ctx, "the body of robots that publish no crowd/state (hybrid-navigator robots)")
                .body.circumscribed_radius();
        struct Ports {
          std::string name;
          int id = -1;  // the track id neighbours see: the robot's index in `robots`
          std::shared_ptr<runtime::Input<msg::GroundTruth>> truth;
          std::shared_ptr<runtime::Input<msg::CrowdState>> state;
          std::shared_ptr<runtime::Output<msg::CrowdNeighbours>> out;
        };
        auto ports = std::make_shared<std::vector<Ports>>();
        std::vector<std::string> outputs;
        for (const auto& r : robots) {
          Ports p{r, static_cast<int>(ports->size()), ctx.AddInput<msg::GroundTruth>(r + "/truth", Timing::kSameTick),
                  ctx.AddInput<msg::CrowdState>(r + "/crowd/state", Timing::kPreviousTick),
                  ctx.AddOutput<msg::CrowdNeighbours>(r + "/crowd/neighbours")};
          outputs.push_back(p.out->topic());
          ports->push_back(std::move(p));
        }
        std::vector<runtime::InputBase*> waits;
        for (auto& p : *ports) waits.push_back(p.truth.get());
        ctx.AddStep({.waits_for = waits, .outputs = outputs}, [ports, other_radius](const runtime::TickInfo& tick) {
          const size_t n = ports->size();
          std::vector<sim::VisibleDisc> discs(n);
          std::vector<SensedNeighbour> bodies(n);
          std::vector<bool> known(n, false);
          for (size_t i = 0; i < n; ++i) {
            const msg::GroundTruth* t = (*ports)[i].truth->Get();
            const msg::CrowdState* st = (*ports)[i].state->Get();
            if (t == nullptr || t->pose() == nullptr) continue;
            SensedNeighbour& b = bodies[i];
            b.pose = {t->pose()->x(), t->pose()->y(), t->pose()->theta()};
            b.velocity = t->v() * geometry::UnitVector(b.pose.theta);
            b.radius = st ? st->radius() : other_radius;
            b.emotion = st && st->visible() && st->emotion() ? st->emotion()->str() : "";
            b.id = (*ports)[i].id;
            discs[i] = {b.pose.Position(), b.radius};
            known[i] = std::isfinite(b.pose.x) && std::isfinite(b.pose.y) && std::isfinite(b.pose.theta);
          }
          for (size_t i = 0; i < n; ++i) {
            std::vector<SensedNeighbour> seen;
            const msg::CrowdState* st = (*ports)[i].state->Get();
            if (known[i] && st != nullptr) {
              std::vector<sim::VisibleDisc> others;
              std::vector<size_t> index;
              for (size_t j = 0; j < n; ++j) {
                if (j == i || !known[j]) continue;
                others.push_back(discs[j]);
                index.push_back(j);
              }
              for (int k : sim::VisibleNeighbours(bodies[i].pose, st->half_fov(), st->horizon(), others, -1))
                seen.push_back(bodies[index[static_cast<size_t>(k)]]);
            }
            (*ports)[i].out->Publish(tick, [&](flatbuffers::FlatBufferBuilder& fbb, auto header) {
              return ToMsg(fbb, header, bodies[i].pose, seen);
            });
          }
        });
      }};
}

}  // namespace limbic::crowd
