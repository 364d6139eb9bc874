#include "services/laser_nav/wiring.hpp"

#include <cmath>
#include <limits>
#include <optional>

#include "common/log/log.hpp"
#include "services/laser_nav/controllers.hpp"
#include "services/laser_nav/neural_network.hpp"
#include "services/laser_sim/convert.hpp"

namespace limbic::laser {

runtime::ServiceDefinition LaserNavService() {
  return {"laser_nav",
          "laser robot's reactive controller: static (Eq. 4-1), case-based (Appendix A) or an evolved network, "
          "100 Hz",
          [](runtime::ServiceContext& ctx) {
            struct State {
              std::unique_ptr<HeadingController> controller;
              CaseBasedController* cbr = nullptr;
              std::optional<Vec2> goal;
              SensorFrame frame;
              int64_t bad_frames = 0;
            };
            auto s = std::make_shared<State>();
            const std::string kind = ctx.Option<std::string>("controller", "cbr", "static | cbr | nn",
                                                             runtime::OneOf({"static", "cbr", "nn"}));
            const auto seed = ctx.Option<int64_t>("seed", 1, "noise vector seed");
            const auto file = ctx.Option<std::string>(
                "network", "", "nn: network file (limbic laser evolve writes networks/generation_NNN.txt)");
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
            ctx.Counter("rejected_frames", [s] { return static_cast<double>(s->controller->rejected_frames()); });
            ctx.Counter("bad_frames", [s] { return static_cast<double>(s->bad_frames); });
            runtime::ServiceContext* context = &ctx;
            ctx.AddStep({.outputs = {heading_out->topic()}}, [=](const runtime::TickInfo& tick) {
              const double nan = std::numeric_limits<double>::quiet_NaN();
              double heading = nan, cap = 0.0;  // no goal or no usable frame: stand still
              int8_t active_case = -1;
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
            });
          }};
}

}  // namespace limbic::laser
