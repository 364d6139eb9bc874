#include "services/laser_nav/wiring.hpp"

#include <cmath>
#include <deque>
#include <limits>
#include <optional>

#include "common/log/log.hpp"
#include "services/laser_nav/controllers.hpp"
#include "services/laser_nav/neural_network.hpp"
#include "services/laser_nav/recurrent_network.hpp"
#include "services/laser_sim/convert.hpp"
#include "services/laser_topo/convert.hpp"
#include "services/laser_topo/map_services.hpp"

namespace limbic::laser {
namespace {

// controller=memory's side of the bus (§5.1, §5.3): the mapper's CurrentNode and EstimatedPose and the planner's Paths
// of earlier ticks (feedback inputs, never awaited: without them the controller is the case-based one), and the
// PlanRequests and ExitAttempts the layer asks to send.
class MapLayerLink {
 public:
  MapLayerLink(runtime::ServiceContext& ctx, RemoteMapLayer* layer, const CaseBasedController* cbr) : layer_(layer) {
    node_in_ = ctx.AddInput<msg::TopoCurrentNode>(ctx.Topic("laser/current_node"), runtime::Timing::kPreviousTick);
    pose_in_ = ctx.AddInput<msg::EstimatedPose>(ctx.Topic("laser/pose"), runtime::Timing::kPreviousTick);
    path_in_ = ctx.AddInput<msg::TopoPath>(ctx.Topic("laser/path"), runtime::Timing::kPreviousTick);
    request_out_ = ctx.AddOutput<msg::TopoPlanRequest>(ctx.Topic("laser/plan_request"));
    attempt_out_ = ctx.AddOutput<msg::TopoExitAttempt>(ctx.Topic("laser/exit_attempt"));
    ctx.Counter("plan_requests", [layer] { return static_cast<double>(layer->stats().requests); });
    ctx.Counter("map_plans", [layer] { return static_cast<double>(layer->stats().plans); });
    ctx.Counter("stale_paths", [layer] { return static_cast<double>(layer->stats().stale_paths); });
    ctx.Counter("map_following_cycles", [cbr] {
      return static_cast<double>(cbr->cycles_in_case()[static_cast<size_t>(cbr->map_following_case())]);
    });
  }

  // Before the controller's step: each CurrentNode and Path once.
  void Receive() {
    if (node_in_->Get() && node_in_->tick() != node_tick_) {
      node_tick_ = node_in_->tick();
      layer_->OnCurrentNode(UpdateFromMsg(*node_in_->Get()));
    }
    if (pose_in_->Get() && pose_in_->tick() != pose_tick_) {
      pose_tick_ = pose_in_->tick();
      const msg::EstimatedPose& p = *pose_in_->Get();
      layer_->OnEstimatedPose(Vec2{p.x_cm(), p.y_cm()}, Vec2{p.odom_x_cm(), p.odom_y_cm()});
    }
    if (path_in_->Get() && path_in_->tick() != path_tick_) {
      path_tick_ = path_in_->tick();
      const msg::TopoPath& p = *path_in_->Get();
      layer_->OnPath(p.request_id(), p.start_node(), PathFromMsg(p));
    }
  }

  // After it: what the layer asked for.
  void Send(const runtime::TickInfo& tick) {
    for (const PlanRequestOut& r : layer_->TakeRequests()) {
      request_out_->Publish(tick,
                            [&](flatbuffers::FlatBufferBuilder& fbb, auto header) { return ToMsg(fbb, header, r); });
    }
    // The mapper's input sees one ExitAttempt per tick, and a result and the next start can fall in one
    // step: one a tick, in order.
    for (const ExitAttemptOut& a : layer_->TakeAttempts()) attempts_.push_back(a);
    if (!attempts_.empty()) {
      attempt_out_->Publish(tick, [&](flatbuffers::FlatBufferBuilder& fbb, auto header) {
        return ToMsg(fbb, header, attempts_.front());
      });
      attempts_.pop_front();
    }
  }

 private:
  RemoteMapLayer* layer_;
  std::shared_ptr<runtime::Input<msg::TopoCurrentNode>> node_in_;
  std::shared_ptr<runtime::Input<msg::EstimatedPose>> pose_in_;
  std::shared_ptr<runtime::Input<msg::TopoPath>> path_in_;
  std::shared_ptr<runtime::Output<msg::TopoPlanRequest>> request_out_;
  std::shared_ptr<runtime::Output<msg::TopoExitAttempt>> attempt_out_;
  int64_t node_tick_ = -1, pose_tick_ = -1, path_tick_ = -1;
  std::deque<ExitAttemptOut> attempts_;  // waiting to be sent
};

}  // namespace

runtime::ServiceDefinition LaserNavService() {
  return {"laser_nav",
          "laser robot's reactive controller: static (Eq. 4-1), case-based (Appendix A), an evolved network, the "
          "recurrent network, or memory (the case-based controller fed by the map layer's services), 100 Hz",
          [](runtime::ServiceContext& ctx) {
            struct State {
              std::unique_ptr<HeadingController> controller;
              CaseBasedController* cbr = nullptr;
              RemoteMapLayer* map = nullptr;  // controller=memory
              std::optional<Vec2> goal;
              SensorFrame frame;
              int64_t bad_frames = 0;
            };
            auto s = std::make_shared<State>();
            const std::string kind = ctx.Option<std::string>("controller", "cbr", "static | cbr | nn | rnn | memory",
                                                             runtime::OneOf({"static", "cbr", "nn", "rnn", "memory"}));
            const auto seed = ctx.Option<int64_t>("seed", 1, "noise vector seed");
            const auto file = ctx.Option<std::string>(
                "network", "",
                "nn, rnn: network file (limbic laser evolve writes networks/generation_NNN.txt; for rnn, E5's "
                "recurrent networks)");
            try {
              if (kind == "static") {
                StaticOptions o;
                o.gains.og = ctx.Option<double>("og", o.gains.og, "static: obstacle gain OG", runtime::AtLeast(0.0));
                o.gains.ng = ctx.Option<double>("ng", o.gains.ng, "static: noise gain NG", runtime::AtLeast(0.0));
                o.gains.gg = ctx.Option<double>("gg", o.gains.gg, "static: goal gain GG", runtime::AtLeast(0.0));
                o.seed = static_cast<uint64_t>(seed);
                s->controller = std::make_unique<StaticController>(o);
              } else if (kind == "nn") {
                NeuralOptions o;
                if (file.empty()) throw config::ConfigError("laser_nav: controller=nn needs --set network=FILE");
                try {
                  o.network = LoadNetworkFile(file);
                } catch (const std::runtime_error& e) {
                  throw config::ConfigError(std::string("laser_nav: ") + e.what());
                }
                o.seed = static_cast<uint64_t>(seed);
                s->controller = std::make_unique<NeuralController>(o);
              } else if (kind == "rnn") {
                RecurrentOptions o;
                o.sectors = ParseSectorReduction(
                    ctx.Option<std::string>("sectors", "min", "rnn: a 15° sector's input, its closest return or mean",
                                            runtime::OneOf({"min", "mean"})));
                o.frame = ParseRnnFrame(ctx.Option<std::string>(
                    "frame", "world", "rnn: sectors and output by compass bearing, or about the heading",
                    runtime::OneOf({"world", "body"})));
                if (file.empty()) throw config::ConfigError("laser_nav: controller=rnn needs --set network=FILE");
                try {
                  o.network = LoadRecurrentNetworkFile(file);
                } catch (const std::runtime_error& e) {
                  throw config::ConfigError(std::string("laser_nav: ") + e.what());
                }
                s->controller = std::make_unique<RecurrentController>(o);
              } else if (kind == "memory") {
                MemoryOptions o;
                o.cbr.seed = static_cast<uint64_t>(seed);
                auto c = std::make_unique<RemoteMemoryController>(o);
                s->cbr = &c->cbr();
                s->map = &c->layer();
                s->controller = std::move(c);
              } else {
                CbrOptions o;
                o.seed = static_cast<uint64_t>(seed);
                auto c = std::make_unique<CaseBasedController>(o);
                s->cbr = c.get();
                s->controller = std::move(c);
              }
            } catch (const std::invalid_argument& e) {
              throw config::ConfigError(std::string("laser_nav: ") + e.what());
            }
            LIMBIC_LOG(kInfo) << "laser_nav: " << kind << " controller";
            auto scan = ctx.AddInput<msg::LaserScan>(ctx.Topic("laser/scan"), runtime::Timing::kSameTick);
            auto odom = ctx.AddInput<msg::LaserOdometry>(ctx.Topic("laser/odom"), runtime::Timing::kSameTick);
            ctx.OnMessage<msg::LaserGoal>(ctx.Topic("laser/goal"), [s](const bus::Message<msg::LaserGoal>& m) {
              s->goal = Vec2{m.msg.goal_x_cm(), m.msg.goal_y_cm()};
            });
            auto heading_out = ctx.AddOutput<msg::HeadingCommand>(ctx.Topic("laser/heading"));
            auto map_link = s->map ? std::make_shared<MapLayerLink>(ctx, s->map, s->cbr) : nullptr;
            ctx.Counter("rejected_frames", [s] { return static_cast<double>(s->controller->rejected_frames()); });
            ctx.Counter("bad_frames", [s] { return static_cast<double>(s->bad_frames); });
            runtime::ServiceContext* context = &ctx;
            ctx.AddStep({.outputs = {heading_out->topic()}}, [=](const runtime::TickInfo& tick) {
              const double nan = std::numeric_limits<double>::quiet_NaN();
              double heading = nan, cap = 0.0;  // no goal or no usable frame: stand still
              int8_t active_case = -1;
              if (map_link) map_link->Receive();
              if (s->goal && scan->Get() && odom->Get()) {
                if (FrameFromMsgs(*scan->Get(), *odom->Get(), *s->goal, tick.tick, tick.time_s, &s->frame)) {
                  heading = s->controller->Step(s->frame);
                  cap = std::numeric_limits<double>::infinity();
                  if (s->cbr) active_case = static_cast<int8_t>(s->cbr->current_case());
                  context->ReportFault("laser_nav", std::isnan(heading) ? "frame with a non-finite pose" : "");
                } else {
                  ++s->bad_frames;
                  context->ReportFault("laser_nav", "scan without 360 ranges");
                }
              }
              heading_out->Publish(tick, [&](flatbuffers::FlatBufferBuilder& fbb, auto header) {
                return msg::CreateHeadingCommand(fbb, header, heading, cap, active_case);
              });
              if (map_link) map_link->Send(tick);
            });
          }};
}

}  // namespace limbic::laser
