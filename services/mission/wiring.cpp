#include "services/mission/wiring.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iomanip>

#include "common/convert/convert.hpp"
#include "common/log/log.hpp"
#include "services/explore/bidding.hpp"
#include "services/explore/convert.hpp"
#include "services/explore/explorer.hpp"
#include "services/mission/mission.hpp"

namespace limbic::mission {

const char* MetricsCsvHeader() {
  return "run_id,configuration,set,env,seed,iteration,completion_time_s,success,collisions,collisions_per_min,"
         "mean_velocity,exec_time_ratio,coverage,distance_travelled";
}

namespace {

// The mission's explore mode: a WaypointFollower between the task manager's ExploreTask and the robot's NavGoal.
// Arrival is judged from the true pose (like a traversal's); the report carries the odometry estimate, the position
// the task manager bids from. A finished exploration stops the robot and, in lockstep, ends the robot's run.
// Bids over the bus: a call for bids (`<robot>/explore/call`, from a manager with bidding=robots) is answered once,
// from the odometry estimate, with the robot's coarse-tier cost to every tile (`<robot>/explore/bid`): the bidding
// runs on the robot, wherever its stack runs.
void AddExplorer(runtime::ServiceContext& ctx, const explore::FollowerOptions& follow) {
  using runtime::Timing;
  const int report_every = std::max(1, static_cast<int>(std::lround(1.0 / ctx.period_s())));
  auto explorer = std::make_shared<explore::Explorer>(follow, report_every);
  auto task = ctx.AddInput<msg::ExploreTask>(ctx.Topic("explore/task"), Timing::kPreviousTick);
  auto truth = ctx.AddInput<msg::GroundTruth>(ctx.Topic("truth"), Timing::kSameTick);
  auto odom = ctx.AddInput<msg::Odometry>(ctx.Topic("odom"), Timing::kSameTick);
  auto goal_out = ctx.AddOutput<msg::NavGoal>(ctx.Topic("goal"), /*latched=*/true);
  auto report_out = ctx.AddOutput<msg::ExploreReport>(ctx.Topic("explore/report"));
  auto call = ctx.AddInput<msg::ExploreCall>(ctx.Topic("explore/call"), Timing::kPreviousTick);
  auto bid_out = ctx.AddOutput<msg::ExploreBid>(ctx.Topic("explore/bid"));
  auto bidder = std::make_shared<explore::RobotBidder>();
  auto bids_sent = std::make_shared<uint64_t>(0);
  ctx.Counter("bids_sent", [bids_sent] { return static_cast<double>(*bids_sent); });
  ctx.Counter("task", [explorer] { return static_cast<double>(explorer->follower().task_id()); });
  ctx.Counter("waypoints_done", [explorer] { return explorer->follower().waypoints_done(); });
  ctx.AddStep({.outputs = {ctx.Topic("explore/report")}}, [=, &ctx](const runtime::TickInfo& tick) {
    geometry::Vec2 position{0, 0};
    if (const auto* t = truth->Get(); t && t->pose()) position = convert::FromMsg(*t->pose()).Position();
    std::optional<geometry::Vec2> estimate;
    if (const auto* o = odom->Get()) estimate = convert::FromMsg(*o).pose.Position();
    std::optional<explore::ExplorerTask> latest;
    if (const auto* t = task->Get()) {
      latest = explore::ExplorerTask{t->finished(), t->task_id(), t->environment(), {}};
      if (t->waypoints())
        for (const auto* w : *t->waypoints()) latest->waypoints.push_back(convert::FromMsg(*w));
    }
    if (const auto* c = call->Get();
        c && bidder->Unanswered(c->header() ? c->header()->incarnation() : 0, c->round())) {
      if (const std::optional<explore::Bid> bid = bidder->Answer(explore::FromMsg(*c), estimate)) {
        bid_out->Publish(
            tick, [&](flatbuffers::FlatBufferBuilder& fbb, auto header) { return explore::ToMsg(fbb, header, *bid); });
        ++*bids_sent;
      }
    }
    const explore::ExplorerOutputs out = explorer->Step(tick.tick, tick.time_s, latest, position, estimate);
    if (out.task_taken) {
      LIMBIC_LOG(kInfo) << "task " << latest->task_id << ": environment " << latest->environment << ", "
                        << latest->waypoints.size() << " waypoints";
    }
    if (out.goal) {
      goal_out->Publish(tick, [&](flatbuffers::FlatBufferBuilder& fbb, auto header) {
        const msg::Vec2 g = convert::ToMsg(out.goal->target);
        return msg::CreateNavGoal(fbb, header, out.goal->active, &g, out.goal->instruction_id, tick.time_s,
                                  out.goal->distance);
      });
    }
    if (out.finished_now) {
      LIMBIC_LOG(kInfo) << "exploration finished: stopping";
      if (ctx.mode() == runtime::Mode::kLockstep) ctx.RequestRunStop();
    }
    if (out.report) {
      report_out->Publish(tick, [&](flatbuffers::FlatBufferBuilder& fbb, auto header) {
        const msg::Vec2 p = convert::ToMsg(out.report->position);
        return msg::CreateExploreReport(fbb, header, &p, out.report->task_id, out.report->waypoints_done,
                                        out.report->skipped, out.report->task_done);
      });
    }
  });
}

}  // namespace

runtime::ServiceDefinition MissionService() {
  return {
      "mission", "navigation task: traversals, arrival, timeout, run metrics", [](runtime::ServiceContext& ctx) {
        using runtime::Timing;
        struct State {
          MissionOptions options;
          std::string run_id = "run";
          std::string configuration = "affective";
          int64_t seed = 1;
          std::string metrics_csv;
          std::unique_ptr<MissionTracker> tracker;
          convert::WorldInfo world;
          MissionOutputs last;
          int collisions = 0;
        };
        auto s = std::make_shared<State>();
        // The task's rules are live (the tracker reads them every tick); the labels written into the metrics
        // and the CSV file describe the whole run: start-up options (issue 15).
        auto apply = [s](auto field) {
          return [s, field](const auto& value) {
            MissionOptions changed = s->options;
            changed.*field = value;
            if (s->tracker) s->tracker->SetOptions(changed);  // throws (refused) on an invalid combination
            s->options = changed;
          };
        };
        s->options.iterations =
            ctx.LiveParam<int>("iterations", s->options.iterations, "traversals per run (0: until stopped)",
                               runtime::AtLeast(0), apply(&MissionOptions::iterations));
        s->options.goal_tolerance =
            ctx.LiveParam<double>("goal_tolerance", s->options.goal_tolerance,
                                  "arrival distance (m): a traversal has reached its goal within it",
                                  runtime::Positive<double>(), apply(&MissionOptions::goal_tolerance));
        s->options.timeout_s = ctx.LiveParam<double>("timeout_s", s->options.timeout_s, "traversal timeout (s)",
                                                     runtime::Positive<double>(), apply(&MissionOptions::timeout_s));
        s->run_id = ctx.Option<std::string>("run_id", s->run_id, "run identifier written into the metrics");
        s->configuration =
            ctx.Option<std::string>("configuration", s->configuration, "configuration label written into the metrics");
        s->seed = ctx.Option<int64_t>("seed", s->seed, "run seed written into the metrics");
        s->metrics_csv = ctx.Option<std::string>("metrics_csv", "", "append one CSV row per traversal to this file");
        // Explore mode (issue 18 item 4): no traversals; the robot drives the waypoints of the tasks the exploration
        // task manager allocates to it (`<robot>/explore/task`) and reports its progress (`<robot>/explore/report`).
        const bool explore =
            ctx.Option<bool>("explore", false, "explorer: follow the task manager's tasks instead of traversals");
        explore::FollowerOptions follow;
        follow.tolerance = ctx.Option<double>("waypoint_tolerance", follow.tolerance,
                                              "explore mode: a waypoint is reached within this distance (m)",
                                              runtime::Positive<double>());
        follow.waypoint_timeout_s = ctx.Option<double>(
            "waypoint_timeout_s", follow.waypoint_timeout_s,
            "explore mode: a waypoint not reached in this time (s) is skipped", runtime::Positive<double>());
        if (explore) {
          AddExplorer(ctx, follow);
          return;
        }

        auto world = ctx.AddInput<msg::WorldGeometry>("world", Timing::kPreviousTick, /*required=*/true);
        auto truth = ctx.AddInput<msg::GroundTruth>(ctx.Topic("truth"), Timing::kSameTick);
        auto collision = ctx.AddInput<msg::CollisionEvent>(ctx.Topic("collision"), Timing::kSameTick);
        auto stats = ctx.AddInput<msg::MapStats>(ctx.Topic("map/stats"), Timing::kPreviousTick);
        auto velocity = ctx.AddInput<msg::VelocityState>(ctx.Topic("control/velocity"), Timing::kPreviousTick);
        auto affect = ctx.AddInput<msg::AffectState>(ctx.Topic("affect"), Timing::kPreviousTick);
        auto goal_out = ctx.AddOutput<msg::NavGoal>(ctx.Topic("goal"), /*latched=*/true);
        auto metrics_out = ctx.AddOutput<msg::RunMetrics>(ctx.Topic("metrics"));
        // Latched: a restarted mission (realtime) resumes from its predecessor's last status (finding 9).
        auto status_out = ctx.AddOutput<msg::MissionStatus>(ctx.Topic("mission"), /*latched=*/true);
        auto own_status = ctx.AddInput<msg::MissionStatus>(ctx.Topic("mission"), Timing::kPreviousTick);
        const bool realtime = ctx.mode() == runtime::Mode::kRealtime;
        const double speedup = ctx.options().speedup;
        ctx.Counter("iteration", [s] { return s->tracker ? s->tracker->state().iteration : 0; });
        const double period = ctx.period_s();
        const std::string robot = ctx.robot();

        ctx.AddStep({.outputs = {ctx.Topic("mission")}}, [=, &ctx](const runtime::TickInfo& tick) {
          if (!s->tracker) {
            s->world = convert::FromMsg(*world->Get());
            // This robot's start and goal in a team (issue 18); a single robot's are the world's own.
            const auto [start, goal] = s->world.StartAndGoalOf(robot);
            s->tracker = std::make_unique<MissionTracker>(s->options, start, goal);
            // Before this process's first status, a latched one is a predecessor's: carry on from it. Its
            // stamp is wall-clock (realtime), so the time the mission was down counts to the traversal.
            // Lockstep runs start afresh by definition.
            if (const auto* saved = own_status->Get(); realtime && saved != nullptr && saved->header() != nullptr) {
              MissionState state;
              state.iteration = saved->iteration();
              state.done = saved->finished();
              if (saved->goal()) state.goal.goal = convert::FromMsg(*saved->goal());
              state.goal.instruction_id = saved->finished() ? -1 : saved->iteration();
              state.goal.distance_at_start = saved->distance_at_start();
              state.collisions = saved->traversal_collisions();
              state.speed_sum = saved->speed_sum();
              state.samples = saved->samples();
              state.compute_s = saved->compute_s();
              state.distance = saved->distance();
              const double down_s = std::max(0.0, (tick.stamp_ns - saved->header()->stamp_ns()) * 1e-9 * speedup);
              try {
                s->tracker->Resume(state, saved->elapsed_s() + down_s, tick.time_s);
                s->collisions = saved->collisions();
                LIMBIC_LOG(kInfo) << "restarted: resuming traversal " << state.iteration << " after "
                                  << saved->elapsed_s() + down_s << " s (" << down_s << " s of it down)";
                if (state.iteration > 0) {
                  const NavigationGoal& g = s->tracker->state().goal;
                  goal_out->Publish(tick, [&](flatbuffers::FlatBufferBuilder& fbb, auto header) {
                    const msg::Vec2 target = convert::ToMsg(g.goal);
                    return msg::CreateNavGoal(fbb, header, g.instruction_id >= 0, &target, g.instruction_id,
                                              g.received_at, g.distance_at_start);
                  });
                }
              } catch (const std::exception& e) {
                LIMBIC_LOG(kWarning) << "not resuming from the latched mission status: " << e.what();
              }
            }
          }
          MissionInputs in;
          in.time = tick.time_s;
          in.dt = period;
          if (const auto* t = truth->Get()) {
            if (t->pose()) in.true_pose = convert::FromMsg(*t->pose());
            in.true_speed = t->v();
          }
          if (const auto* c = collision->Get()) in.new_collision = c->new_event();
          if (const auto* st = stats->Get()) in.coverage = st->coverage();
          if (const auto* v = velocity->Get()) in.compute_time_s += v->compute_time_s();
          if (const auto* a = affect->Get()) in.compute_time_s += a->compute_time_s();
          const MissionOutputs out = s->tracker->Step(in);
          s->collisions += in.new_collision ? 1 : 0;
          if (out.new_goal) {
            const NavigationGoal& g = *out.new_goal;
            goal_out->Publish(tick, [&](flatbuffers::FlatBufferBuilder& fbb, auto header) {
              const msg::Vec2 target = convert::ToMsg(g.goal);
              return msg::CreateNavGoal(fbb, header, g.instruction_id >= 0, &target, g.instruction_id, g.received_at,
                                        g.distance_at_start);
            });
          }
          if (out.finished) {
            const TraversalMetrics& m = *out.finished;
            LIMBIC_LOG(kInfo) << "traversal " << m.iteration
                              << (m.success ? " reached the goal in " : " timed out after ") << m.completion_time_s
                              << " s, " << m.collisions << " collisions, mean speed " << m.mean_velocity << " m/s";
            const std::string set(1, s->world.set);
            metrics_out->Publish(tick, [&](flatbuffers::FlatBufferBuilder& fbb, auto header) {
              return msg::CreateRunMetricsDirect(fbb, header, robot.c_str(), set.c_str(), s->world.index, 0,
                                                 static_cast<uint64_t>(s->seed), s->configuration.c_str(), m.iteration,
                                                 m.completion_time_s, m.success, m.collisions, m.collisions_per_min,
                                                 m.mean_velocity, m.exec_time_ratio, m.coverage, m.distance_travelled,
                                                 m.run_finished);
            });
            if (!s->metrics_csv.empty()) {
              const bool fresh = !std::filesystem::exists(s->metrics_csv);
              std::ofstream csv(s->metrics_csv, std::ios::app);
              if (fresh) csv << MetricsCsvHeader() << "\n";
              // The execution time ratio is wall-clock dependent; everything else is deterministic.
              csv << std::setprecision(17) << s->run_id << "," << s->configuration << "," << set << ","
                  << s->world.index << "," << s->seed << "," << m.iteration << "," << m.completion_time_s << ","
                  << (m.success ? 1 : 0) << "," << m.collisions << "," << m.collisions_per_min << "," << m.mean_velocity
                  << "," << m.exec_time_ratio << "," << m.coverage << "," << m.distance_travelled << "\n";
            }
            if (m.run_finished) {
              if (ctx.mode() == runtime::Mode::kLockstep) ctx.RequestRunStop();
            }
          }
          s->last = out;
          status_out->Publish(tick, [&](flatbuffers::FlatBufferBuilder& fbb, auto header) {
            const MissionState& st = s->tracker->state();
            const msg::Vec2 goal = convert::ToMsg(st.goal.goal);
            return msg::CreateMissionStatus(fbb, header, st.iteration, s->options.iterations, &goal,
                                            out.distance_to_goal, tick.time_s - st.started_at, s->collisions, st.done,
                                            st.collisions, st.speed_sum, st.samples, st.compute_s, st.distance,
                                            st.goal.distance_at_start);
          });
        });
      }};
}

}  // namespace limbic::mission
