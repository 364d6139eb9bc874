#include "services/simulator/wiring.hpp"

#include <cmath>
#include <sstream>

#include "common/convert/convert.hpp"
#include "common/robot/robot_description.hpp"
#include "services/simulator/convert.hpp"
#include "sim/team.hpp"
#include "sim/world.hpp"

namespace limbic::simulator {
namespace {

using runtime::ServiceContext;
using runtime::TickInfo;
using runtime::Timing;

struct Options {
  std::string set = "D";
  int index = 0;
  int64_t env_seed = 1;       // environment generation seed (the set's 20 worlds)
  int64_t seed = 1;           // run seed: noise, humans
  std::string robots = "r1";  // comma-separated robot names, each under its own topic namespace
  // Issue 18 item 2: robot description per robot (configs/robots/<name>.yaml or a path), ','-separated in robot
  // order; one name for every robot.
  std::string bodies = "marvin";
  // Issue 18: per robot "x,y[,theta]" starts and "x,y" goals, ';'-separated in robot order; empty: placed
  // by sim::PlaceTeam (robot 1 at the environment's start and goal, as a single robot).
  std::string starts;
  std::string goals;
  bool humans_flee = false;      // §3.4 extension: anger > 0.75 sends humans within 5 m away
  double wheel_timeout_s = 0.5;  // realtime: the motor board stops wheels without fresh commands
  // Odometry error model (eq. 4.8) for drift studies; every experiment of the research has all three at 0.
  double odo_sys_left = 0.0;
  double odo_sys_right = 0.0;
  double odo_rand = 0.0;
  std::string external_motion = "tracked";  // tracked | unseen (see sim::ExternalMotion)
};

std::vector<std::string> SplitNames(const std::string& text) {
  std::vector<std::string> out;
  std::stringstream ss(text);
  for (std::string s; std::getline(ss, s, ',');) {
    if (!s.empty()) out.push_back(s);
  }
  return out;
}

struct RobotPorts {
  std::string name;
  std::shared_ptr<runtime::Input<msg::WheelCommand>> wheels;
  std::shared_ptr<runtime::Input<msg::AffectState>> affect;
  std::shared_ptr<runtime::Output<msg::RawRanges>> ranges;
  std::shared_ptr<runtime::Output<msg::Bumpers>> bumpers;
  std::shared_ptr<runtime::Output<msg::Odometry>> odometry;
  std::shared_ptr<runtime::Output<msg::GroundTruth>> truth;
};

}  // namespace

runtime::ServiceDefinition SimulatorService() {
  return {
      "simulator", "world simulator: procedural environments, robots, sensors, humans",
      [](ServiceContext& ctx) {
        auto o = std::make_shared<Options>();
        // The world, its seeds and the robot model are fixed for a run: start-up options (issue 15).
        o->set = ctx.Option<std::string>(
            "set", o->set, "environment set A..G",
            {"A..G", [](const std::string& v) { return v.size() == 1 && sim::IsValidSetLetter(v[0]); }});
        o->index = ctx.Option<int>("index", o->index, "environment index 0..19",
                                   runtime::InRange(0, sim::kEnvironmentsPerSet - 1));
        o->env_seed = ctx.Option<int64_t>("env_seed", o->env_seed, "seed of the environment generator");
        o->seed = ctx.Option<int64_t>("seed", o->seed, "run seed (sensor and motor noise, humans)");
        o->robots = ctx.Option<std::string>("robots", o->robots, "comma-separated robot names");
        o->bodies = ctx.Option<std::string>(
            "bodies", o->bodies,
            "robot description per robot, ','-separated in robot order, or one for all (configs/robots: marvin, "
            "itchy, scratchy, tank; or a .yaml path)");
        o->starts = ctx.Option<std::string>(
            "starts", o->starts,
            "robots' start poses 'x,y[,theta];...' in robot order (empty: placed apart from the environment's "
            "start)");
        o->goals = ctx.Option<std::string>(
            "goals", o->goals,
            "robots' goals 'x,y;...' in robot order (empty: placed apart from the environment's goal)");
        o->humans_flee = ctx.Option<bool>("humans_flee", o->humans_flee,
                                          "humans flee an angry robot (an extension of the simulated humans)");
        o->wheel_timeout_s =
            ctx.Option<double>("wheel_timeout_s", o->wheel_timeout_s,
                               "realtime: stop wheels after this long without a command", runtime::Positive<double>());
        const runtime::Valid<double> odometer_error{"(-1, 1)", [](const double& v) { return std::abs(v) < 1.0; }};
        o->odo_sys_left =
            ctx.Option<double>("odo_sys_left", o->odo_sys_left,
                               "eq. 4.8 ε_1: systematic error of the left odometer (0: none)", odometer_error);
        o->odo_sys_right = ctx.Option<double>("odo_sys_right", o->odo_sys_right,
                                              "eq. 4.8 ε_2: systematic error of the right odometer", odometer_error);
        o->odo_rand = ctx.Option<double>(
            "odo_rand", o->odo_rand, "eq. 4.8 ε_3: random odometer error (× randn per wheel and tick)", odometer_error);
        o->external_motion = ctx.Option<std::string>(
            "external_motion", o->external_motion,
            "tracked: the pose estimate follows shift-backs and pushes (localisation as the spec assumes); "
            "unseen: wheel odometry only",
            runtime::OneOf({"tracked", "unseen"}));
        sim::RobotOptions robot_options;
        robot_options.odometry.odo_sys_left = o->odo_sys_left;
        robot_options.odometry.odo_sys_right = o->odo_sys_right;
        robot_options.odometry.odo_rand = o->odo_rand;
        robot_options.odometry.external_motion =
            o->external_motion == "tracked" ? sim::ExternalMotion::kTracked : sim::ExternalMotion::kUnseen;
        const auto names = SplitNames(o->robots);
        if (names.empty()) throw config::ConfigError("simulator: robots must name at least one robot");
        std::vector<sim::RobotOptions> robot_models;
        std::vector<double> reach;  // each body's extent about its start pose, for the team placement
        sim::TeamLayoutOptions layout;
        try {
          for (const auto& body : sim::BodiesPerRobot(o->bodies, names.size(), "marvin")) {
            sim::RobotOptions r = robot_options;
            r.model = sim::ModelFromDescription(robot::LoadRobotDescription(body));
            reach.push_back(r.model.body.reach_from_origin());
            layout.path_radii.push_back(r.model.body.circumscribed_radius());
            robot_models.push_back(std::move(r));
          }
        } catch (const std::invalid_argument& e) {
          throw config::ConfigError(std::string("simulator: ") + e.what());
        }
        sim::WorldOptions world_options;
        world_options.seed = static_cast<uint64_t>(o->seed);
        auto world = std::make_shared<sim::World>(
            sim::GenerateEnvironment(o->set[0], o->index, static_cast<uint64_t>(o->env_seed)), world_options);
        std::vector<RobotPorts> ports;
        std::vector<std::string> outputs{"humans"};
        std::vector<sim::Placement> placements;
        try {
          placements = sim::TeamPlacements(world->environment(), reach, o->starts, o->goals, layout);
        } catch (const std::invalid_argument& e) {
          throw config::ConfigError(std::string("simulator: robots' starts and goals: ") + e.what());
        }
        for (size_t i = 0; i < names.size(); ++i) {
          // Robot 1 at the environment's start, heading 0 (§3.5); the others where the team layout put them.
          try {
            world->AddRobot(placements[i].start, robot_models[i]);
          } catch (const std::invalid_argument& e) {
            throw config::ConfigError("simulator: " + names[i] + ": " + e.what());
          }
          const std::string& r = names[i];
          RobotPorts p;
          p.name = r;
          p.wheels = ctx.AddInput<msg::WheelCommand>(r + "/wheels", Timing::kPreviousTick);
          p.affect = ctx.AddInput<msg::AffectState>(r + "/affect", Timing::kPreviousTick);
          p.ranges = ctx.AddOutput<msg::RawRanges>(r + "/ranges_raw");
          p.bumpers = ctx.AddOutput<msg::Bumpers>(r + "/bumpers_raw");
          p.odometry = ctx.AddOutput<msg::Odometry>(r + "/odom_raw");
          p.truth = ctx.AddOutput<msg::GroundTruth>(r + "/truth");
          for (const char* t : {"/ranges_raw", "/bumpers_raw", "/odom_raw", "/truth"}) outputs.push_back(r + t);
          ports.push_back(std::move(p));
        }
        auto world_out = ctx.AddOutput<msg::WorldGeometry>("world", /*latched=*/true);
        auto humans_out = ctx.AddOutput<msg::Humans>("humans");
        auto clock_out = ctx.mode() == runtime::Mode::kRealtime ? ctx.AddOutput<msg::Clock>("clock") : nullptr;
        const double period = ctx.period_s();
        const bool realtime = ctx.mode() == runtime::Mode::kRealtime;
        ctx.OnStart([=](const TickInfo& tick) {
          world_out->Publish(tick, [&](flatbuffers::FlatBufferBuilder& fbb, auto header) {
            return WorldToMsg(fbb, header, world->environment(), names, placements);
          });
        });
        auto output = std::make_shared<sim::StepOutput>();
        auto inputs = std::make_shared<std::vector<sim::RobotInput>>(ports.size());
        ctx.Counter("sim_time_s", [world] { return world->state().time; });
        ctx.AddStep({.outputs = outputs}, [=](const TickInfo& tick) {
          for (size_t i = 0; i < ports.size(); ++i) {
            auto& in = (*inputs)[i];
            const msg::WheelCommand* w = ports[i].wheels->Get();
            const bool fresh = w != nullptr && (!realtime || ports[i].wheels->AgeS() < o->wheel_timeout_s);
            in.wheels = fresh ? WheelCommand{w->v_left(), w->v_right()} : WheelCommand{};
            const msg::AffectState* a = ports[i].affect->Get();
            in.humans_flee = o->humans_flee && a && a->emotions_combined() && a->emotions_combined()->size() > 0 &&
                             a->emotions_combined()->Get(0) > 0.75;
          }
          world->Step(period, *inputs, output.get());
          if (clock_out) {
            clock_out->Publish(tick, [&](flatbuffers::FlatBufferBuilder& fbb, auto header) {
              return msg::CreateClock(fbb, header, period, false);
            });
          }
          for (size_t i = 0; i < ports.size(); ++i) {
            const sim::RobotOutput& r = output->robots[i];
            ports[i].ranges->Publish(tick, [&](flatbuffers::FlatBufferBuilder& fbb, auto header) {
              return msg::CreateRawRanges(fbb, header, convert::BeamsToMsg(fbb, r.raw_scan));
            });
            ports[i].bumpers->Publish(tick, [&](flatbuffers::FlatBufferBuilder& fbb, auto header) {
              return msg::CreateBumpers(fbb, header, r.collision.occurred, fbb.CreateVector(r.collision.sensor_ids),
                                        r.collision.speed_before);
            });
            ports[i].odometry->Publish(tick, [&](flatbuffers::FlatBufferBuilder& fbb, auto header) {
              return convert::ToMsg(fbb, header, r.odometry);
            });
            ports[i].truth->Publish(tick, [&](flatbuffers::FlatBufferBuilder& fbb, auto header) {
              const msg::Pose2 pose = convert::ToMsg(r.truth.pose);
              return msg::CreateGroundTruth(fbb, header, fbb.CreateString(ports[i].name), &pose, r.truth.v,
                                            r.truth.omega, r.truth.in_contact, r.truth.pushed,
                                            static_cast<uint64_t>(r.truth.pushes),
                                            static_cast<uint64_t>(r.truth.robot_collisions),
                                            static_cast<uint64_t>(r.truth.world_collisions), r.truth.in_robot_contact);
            });
          }
          humans_out->Publish(tick, [&](flatbuffers::FlatBufferBuilder& fbb, auto header) {
            std::vector<msg::HumanState> humans;
            for (const auto& h : output->humans) {
              humans.emplace_back(h.id, h.position.x(), h.position.y(), world->environment().human_radius,
                                  h.velocity.x(), h.velocity.y());
            }
            return msg::CreateHumans(fbb, header, fbb.CreateVectorOfStructs(humans));
          });
        });
      },
      /*global=*/true};
}

}  // namespace limbic::simulator
