#include "services/hwio/wiring.hpp"

#include <algorithm>
#include <chrono>

#include "common/convert/convert.hpp"
#include "common/log/log.hpp"
#include "services/hwio/collision_event_detector.hpp"
#include "services/hwio/command_limiter.hpp"
#include "services/hwio/convert.hpp"
#include "services/hwio/fault_injector.hpp"
#include "services/hwio/hwio_options.hpp"
#include "services/hwio/median_filter.hpp"
#include "services/hwio/serial_backend.hpp"
#include "services/hwio/watchdog.hpp"

namespace limbic::hwio {
namespace {

using runtime::TickInfo;
using runtime::Timing;

double WallSeconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

struct Hwio {
  HwioOptions options;
  std::unique_ptr<MedianFilter> median;
  std::unique_ptr<CollisionEventDetector> collisions;
  std::unique_ptr<CommandLimiter> limiter;
  std::unique_ptr<Watchdog> watchdog;
  std::unique_ptr<FaultInjector> faults;
  std::unique_ptr<SerialBackend> serial;
  OdometryEstimate odometry;
  uint64_t commands_seen = 0;
  uint64_t rejected_faults = 0;
  std::vector<Fault> pending;  // received live; they start at the next tick
};

// hwio reads these nested YAML sections itself (LoadHwioOptions), so the Settings table cannot list
// them; the defaults are those of services/hwio/config/hwio.yaml.
constexpr const char* kYamlHelp = R"(YAML settings (--config FILE, or --set SECTION.KEY=VALUE; unknown keys are errors):
  robot_id: r1                  the robot's id in its messages (default: --robot)
  backend: simulation           simulation | serial
  robot.body: marvin            robot description: configs/robots/<name>.yaml or a path (outline, d_w, bumpers)
  robot.radius, robot.wheel_separation, robot.switch_count   override the description
  robot.wheel1: right           the wheel that takes +d_w*omega/2 (right: theta grows counter-clockwise)
  median_filter.window: 5       samples per range beam in the median filter
  collisions.count_contact_at_start: true
  collisions.rearm_s: 1.0       a touch within this of the last contact continues the same collision,
  collisions.rearm_distance_m: 0.5   unless this far from where it started (rearm_s 0: every touch counts)
  limits.v_max: 1.6             m/s, hard; limits.omega_max: pi rad/s; limits.wheel_speed_max: 1.6 m/s
  limits.allow_reverse: false   limits.preserve_curvature: true
  watchdog.timeout: 0.3         s without a command before the wheels stop; watchdog.enabled: true
                                (off under the lockstep scheduler)
  serial.device: ""             e.g. /dev/ttyUSB0 with backend: serial; serial.baud_rate: 115200,
  serial.ticks_per_metre: 10000, serial.stale_timeout: 0.3 (s of board silence before the wheels stop)
  faults: the timed fault script's format is in services/hwio/config/example_faults.yaml

examples:
  limbic-hwio --config services/hwio/config/hwio.yaml --check
  limbic-hwio --set robot.body=itchy --set limits.v_max=1.0 --check
)";

}  // namespace

runtime::ServiceDefinition HwioService() {
  return {
      "hwio", "device boundary: median filter, collision events, hard limits, watchdog, faults",
      [](runtime::ServiceContext& ctx) {
        auto h = std::make_shared<Hwio>();
        h->options.robot_id = ctx.robot();
        // A start-up option: the runtime keeps its value (it once kept a pointer to this local, which dangled
        // and crashed hwio on `limbic param get`, issue 15 finding 2).
        const std::string fault_script =
            ctx.Option<std::string>("fault_script", "", "YAML file with a timed fault script (faults: [...])");
        LoadHwioOptions(ctx.config(), &h->options);
        const bool realtime = ctx.mode() == runtime::Mode::kRealtime;
        if (!realtime) h->options.watchdog.enabled = false;  // lockstep: commands are never late
        h->median = std::make_unique<MedianFilter>(h->options.median);
        h->collisions = std::make_unique<CollisionEventDetector>(h->options.collisions);
        h->limiter = std::make_unique<CommandLimiter>(h->options.limits);
        h->watchdog = std::make_unique<Watchdog>(h->options.watchdog);
        h->options.faults.robot_id = ctx.robot();
        h->faults = std::make_unique<FaultInjector>(h->options.faults);
        if (!fault_script.empty()) {
          config::StrictMap script(config::LoadFile(fault_script), fault_script);
          for (const Fault& f : LoadFaultScript(script)) {
            const auto result = h->faults->Add(f);
            if (result.status == AddFaultStatus::kInvalid)
              throw config::ConfigError(fault_script + ": " + result.reason);
          }
          script.Finish();
        }
        const bool serial = h->options.backend == "serial";
        if (serial) h->serial = std::make_unique<SerialBackend>(h->options.serial);

        auto raw = ctx.AddInput<msg::RawRanges>(ctx.Topic("ranges_raw"), Timing::kSameTick);
        auto bumpers = ctx.AddInput<msg::Bumpers>(ctx.Topic("bumpers_raw"), Timing::kSameTick);
        auto odom_raw = ctx.AddInput<msg::Odometry>(ctx.Topic("odom_raw"), Timing::kSameTick);
        auto cmd = ctx.AddInput<msg::VelocityCommand>(ctx.Topic("cmd_vel"), Timing::kSameTick);
        auto scan_out = ctx.AddOutput<msg::RangeScan>(ctx.Topic("scan"));
        auto collision_out = ctx.AddOutput<msg::CollisionEvent>(ctx.Topic("collision"));
        auto odom_out = ctx.AddOutput<msg::Odometry>(ctx.Topic("odom"));
        auto wheels_out = ctx.AddOutput<msg::WheelCommand>(ctx.Topic("wheels"));

        ctx.OnMessage<msg::FaultCommand>("faults", [h](const bus::Message<msg::FaultCommand>& m) {
          if (m.msg.clear()) {
            if (m.msg.id() && m.msg.id()->size() > 0)
              h->faults->Clear(m.msg.id()->str());
            else
              h->faults->ClearAll();
            LIMBIC_LOG(kInfo) << "faults cleared: " << (m.msg.id() && m.msg.id()->size() ? m.msg.id()->str() : "all");
            return;
          }
          if (auto fault = FaultFromMsg(m.msg, 0.0)) h->pending.push_back(*fault);  // else: broker's or launcher's
        });
        ctx.Counter("active_faults", [h] { return static_cast<double>(h->faults->state().slots.size()); });
        ctx.Counter("watchdog_trips", [h] { return static_cast<double>(h->watchdog->state().trips); });
        ctx.Counter("rejected_faults", [h] { return static_cast<double>(h->rejected_faults); });

        auto sense = [=](const TickInfo& tick) {
          // Faults sent live start on this tick's clock (a start time in the past means now).
          for (Fault& f : h->pending) {
            f.start = std::max(f.start, tick.time_s);
            const auto result = h->faults->Add(f);
            if (result.status == AddFaultStatus::kInvalid) {
              ++h->rejected_faults;
              LIMBIC_LOG(kWarning) << "fault '" << f.id << "' refused: " << result.reason;
            } else if (result.status != AddFaultStatus::kOtherRobot) {
              LIMBIC_LOG(kInfo) << "fault '" << f.id << "' (" << FaultKindName(f.kind) << ") active "
                                << (f.duration > 0 ? "for " + std::to_string(f.duration) + " s" : "until cleared");
            }
          }
          h->pending.clear();
          h->faults->Expire(tick.time_s);
          RangeScan scan;
          CollisionEvent contact;
          if (serial) {
            auto frame = h->serial->Poll(WallSeconds());
            if (frame && frame->has_scan) scan = frame->scan;
            if (frame && frame->has_contact) contact = frame->contact;
            if (frame && frame->has_odometry) h->odometry = frame->odometry;
          } else {
            if (const auto* r = raw->Get()) convert::BeamsFromMsg(r->beams(), &scan);
            if (const auto* b = bumpers->Get()) {
              contact.occurred = b->contact();
              if (b->switches()) contact.sensor_ids.assign(b->switches()->begin(), b->switches()->end());
              contact.speed_before = b->speed_before();
            }
            if (const auto* o = odom_raw->Get()) h->odometry = convert::FromMsg(*o);
          }
          h->faults->Apply(tick.time_s, scan);
          h->faults->Apply(tick.time_s, contact, h->odometry.pose);
          const RangeScan filtered = h->median->Filter(scan);
          const CollisionEvent event = h->collisions->Update(contact, h->odometry.pose, tick.time_s);
          // The scan last: in realtime its arrival starts the mapper's tick (runtime::RealtimeTicks), which then
          // finds this tick's collision and odometry already there.
          collision_out->Publish(tick, [&](flatbuffers::FlatBufferBuilder& fbb, auto header) {
            return convert::ToMsg(fbb, header, event, h->collisions->state().events);
          });
          odom_out->Publish(tick, [&](flatbuffers::FlatBufferBuilder& fbb, auto header) {
            return convert::ToMsg(fbb, header, h->odometry);
          });
          scan_out->Publish(tick, [&](flatbuffers::FlatBufferBuilder& fbb, auto header) {
            return msg::CreateRangeScan(fbb, header, convert::BeamsToMsg(fbb, filtered));
          });
        };
        auto actuate = [=](const TickInfo& tick) {
          const double wall = WallSeconds();
          VelocityCommand command;
          if (const auto* c = cmd->Get()) {
            command = {c->v(), c->omega()};
            if (cmd->received() != h->commands_seen) {
              h->commands_seen = cmd->received();
              // A command's age is the larger of "since it arrived" and "since it was sent" (header stamp, wall
              // clock in realtime): a command delayed on the way must not drive the wheels either.
              const double sent_age = (bus::Node::WallNowNs() - c->header()->stamp_ns()) * 1e-9;
              h->watchdog->OnCommand(wall - std::max(cmd->AgeS(), realtime ? sent_age : 0.0));
            }
          }
          const LimitedCommand limited = h->limiter->Limit(command);
          const WatchdogOutput gated = h->watchdog->Gate(wall, limited.wheels);
          if (gated.tripped_now) {
            LIMBIC_LOG(kWarning) << "watchdog: no fresh velocity command; wheels stopped";
          }
          WheelCommand wheels = gated.wheels;
          h->faults->Apply(tick.time_s, wheels);
          if (serial) h->serial->SendWheels(wall, wheels);
          wheels_out->Publish(tick, [&](flatbuffers::FlatBufferBuilder& fbb, auto header) {
            return msg::CreateWheelCommand(fbb, header, wheels.v_left, wheels.v_right, gated.stale);
          });
        };
        const std::string r = ctx.robot();
        ctx.AddStep({.name = "sense",
                     .waits_for = serial ? std::vector<runtime::InputBase*>{}
                                         : std::vector<runtime::InputBase*>{raw.get(), bumpers.get(), odom_raw.get()},
                     .outputs = {ctx.Topic("scan"), ctx.Topic("collision"), ctx.Topic("odom")}},
                    sense);
        ctx.AddStep({.name = "actuate", .waits_for = {cmd.get()}, .outputs = {ctx.Topic("wheels")}}, actuate);
      },
      false, kYamlHelp};
}

}  // namespace limbic::hwio
