#include "services/laser_sim/wiring.hpp"

#include <cmath>
#include <limits>

#include "common/log/log.hpp"
#include "services/laser_sim/convert.hpp"
#include "services/laser_sim/episode.hpp"
#include "services/laser_sim/laser_world.hpp"
#include "services/laser_sim/office.hpp"

namespace limbic::laser {

runtime::ServiceDefinition LaserSimService() {
  return {
      "laser_sim", "laser robot simulator: a world of the density libraries, 360-beam laser, compass, motion law",
      [](runtime::ServiceContext& ctx) {
        struct State {
          World world;
          std::unique_ptr<LaserEpisode> episode;
          bool stop_asked = false;
        };
        auto s = std::make_shared<State>();
        const double density = ctx.Option<double>("density", 15.0, "obstacle density of the world library (%)",
                                                  runtime::InRange(kMinDensityPct, kMaxDensityPct));
        const int index =
            ctx.Option<int>("index", 0, "world index in the library (report No. = index + 1)", runtime::AtLeast(0));
        const auto salt = ctx.Option<int64_t>("library_salt", 1, "world library salt (office: the environment seed)");
        const std::string office =
            ctx.Option<std::string>("office", "",
                                    "a set letter: run in the hybrid navigator's environment `index` of that set "
                                    "(A, B, C, F, G) instead of a room of the density library",
                                    runtime::OneOf({"", "A", "B", "C", "F", "G"}));
        const auto seed = ctx.Option<int64_t>("seed", 1, "episode seed (laser errors, odometry slip)");
        EpisodeOptions eo;
        eo.time_limit_s =
            ctx.Option<double>("time_limit_s", eo.time_limit_s, "episode time limit (s)", runtime::Positive<double>());
        const std::string error = ctx.Option<std::string>("laser_error", "uniform", "laser error model",
                                                          runtime::OneOf({"none", "uniform", "thesis_approx"}));
        eo.laser.error_model = ParseLaserErrorModel(error);
        eo.laser.cache = ctx.Option<bool>("laser_cache", false, "3 cm grid cache of noise-free scans");
        eo.slip_fraction = ctx.Option<double>("slip_fraction", 0.0, "odometry slip (displacement × (1 + N(0, s)))",
                                              runtime::InRange(0.0, 0.5));
        const double command_timeout_s =
            ctx.Option<double>("command_timeout_s", 0.1, "realtime: stop the robot after this long without a command",
                               runtime::Positive<double>());
        // The motion law integrates over the service's period (the thesis: 10 ms, --period 0.01).
        eo.motion.dt_s = ctx.period_s();
        try {
          s->world = MakeLaserWorld({density, index, static_cast<uint64_t>(salt), office.empty() ? '\0' : office[0]});
          s->episode = std::make_unique<LaserEpisode>(s->world, eo, static_cast<uint64_t>(seed));
        } catch (const std::exception& e) {
          throw config::ConfigError(std::string("laser_sim: ") + e.what());
        }
        LIMBIC_LOG(kInfo) << "laser_sim: "
                          << (office.empty() ? std::to_string(density) + " % world No. " + std::to_string(index + 1)
                                             : s->world.name)
                          << ", " << s->world.obstacles.size() << " obstacles, optimal path "
                          << s->world.optimal_path_cm << " cm, period " << ctx.period_s() << " s";
        if (std::fabs(ctx.period_s() - kControlPeriodS) > 1e-9) {
          LIMBIC_LOG(kWarning) << "laser_sim: the thesis' control cycle is 0.01 s (--period 0.01); running at "
                               << ctx.period_s() << " s";
        }
        auto command = ctx.AddInput<msg::HeadingCommand>(ctx.Topic("laser/heading"), runtime::Timing::kPreviousTick);
        auto scan_out = ctx.AddOutput<msg::LaserScan>(ctx.Topic("laser/scan"));
        auto odom_out = ctx.AddOutput<msg::LaserOdometry>(ctx.Topic("laser/odom"));
        auto truth_out = ctx.AddOutput<msg::LaserTruth>(ctx.Topic("laser/truth"));
        auto goal_out = ctx.AddOutput<msg::LaserGoal>(ctx.Topic("laser/goal"), /*latched=*/true);
        auto clock_out = ctx.mode() == runtime::Mode::kRealtime ? ctx.AddOutput<msg::Clock>("clock") : nullptr;
        const bool realtime = ctx.mode() == runtime::Mode::kRealtime;
        const double period = ctx.period_s();
        runtime::ServiceContext* context = &ctx;  // the host owns it for the whole run
        ctx.Counter("collisions", [s] { return static_cast<double>(s->episode->Result().collisions); });
        ctx.Counter("sim_time_s", [s] { return s->episode->frame().time_s; });
        ctx.OnStart([=](const runtime::TickInfo& tick) {
          goal_out->Publish(tick, [&](flatbuffers::FlatBufferBuilder& fbb, auto header) {
            return msg::CreateLaserGoal(fbb, header, s->world.goal.x, s->world.goal.y, eo.time_limit_s);
          });
        });
        ctx.AddStep({.outputs = {scan_out->topic(), odom_out->topic(), truth_out->topic()}},
                    [=](const runtime::TickInfo& tick) {
                      // Tick 0 publishes the start; every later tick first applies the command of the tick
                      // before (computed from the frame published then), as §5.3's lock-step prescribes.
                      if (tick.tick > 0) {
                        const msg::HeadingCommand* c = command->Get();
                        const bool fresh = c != nullptr && (!realtime || command->AgeS() < command_timeout_s);
                        const double nan = std::numeric_limits<double>::quiet_NaN();
                        s->episode->Advance(fresh ? c->desired_heading_deg() : nan, fresh ? c->speed_cap_cms() : 0.0);
                      }
                      const SensorFrame& f = s->episode->frame();
                      scan_out->Publish(tick, [&](flatbuffers::FlatBufferBuilder& fbb, auto header) {
                        return ToMsg(fbb, header, f.ranges, f.odom.heading_deg);
                      });
                      odom_out->Publish(tick, [&](flatbuffers::FlatBufferBuilder& fbb, auto header) {
                        return ToMsg(fbb, header, f.odom);
                      });
                      const EpisodeResult r = s->episode->Result();
                      const MotionState& t = s->episode->truth();
                      truth_out->Publish(tick, [&](flatbuffers::FlatBufferBuilder& fbb, auto header) {
                        return msg::CreateLaserTruth(fbb, header, t.x_cm, t.y_cm, t.heading_deg,
                                                     s->episode->in_collision(), r.collisions, r.path_cm,
                                                     r.closest_contact_cm, s->episode->done(), r.solved, r.time_s);
                      });
                      if (clock_out) {
                        clock_out->Publish(tick, [&](flatbuffers::FlatBufferBuilder& fbb, auto header) {
                          return msg::CreateClock(fbb, header, period, false);
                        });
                      }
                      if (s->episode->done() && !s->stop_asked) {
                        s->stop_asked = true;
                        LIMBIC_LOG(kInfo) << "laser_sim: episode " << (r.solved ? "solved" : "not solved") << " at "
                                          << r.time_s << " s, path " << r.path_cm << " cm, collisions " << r.collisions;
                        if (!realtime) context->RequestRunStop();
                      }
                    });
      }};
}

}  // namespace limbic::laser
