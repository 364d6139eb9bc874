#include "services/explore/wiring.hpp"

#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <tuple>

#include "common/config/config.hpp"
#include "common/convert/convert.hpp"
#include "common/log/log.hpp"
#include "common/robot/robot_description.hpp"
#include "services/explore/bidding.hpp"
#include "services/explore/convert.hpp"
#include "services/explore/executor_load.hpp"
#include "services/explore/exploration_run.hpp"
#include "services/explore/task_manager.hpp"
#include "services/mapper/convert.hpp"

namespace limbic::explore {
namespace {

void AppendLine(const std::string& path, const std::string& header, const std::string& line) {
  const bool fresh = !std::filesystem::exists(path);
  std::ofstream out(path, std::ios::app);
  if (!out) throw std::runtime_error("cannot append to " + path);
  if (fresh) out << header << "\n";
  out << line << "\n";
}

double WallSeconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

double CounterOf(const msg::Heartbeat& h, const char* name) {
  if (h.counters() == nullptr) return std::numeric_limits<double>::quiet_NaN();
  for (const auto* c : *h.counters()) {
    if (c->name() && c->name()->str() == name) return c->value();
  }
  return std::numeric_limits<double>::quiet_NaN();
}

std::vector<double> Numbers(const std::vector<std::string>& items, const std::string& what) {
  std::vector<double> out;
  for (const std::string& item : items) {
    size_t used = 0;
    double v = 0;
    try {
      v = std::stod(item, &used);
    } catch (const std::logic_error&) {
      used = 0;
    }
    if (used != item.size()) throw std::invalid_argument(what + ": '" + item + "' is not a number");
    out.push_back(v);
  }
  return out;
}

}  // namespace

runtime::ServiceDefinition TaskManagerService() {
  runtime::ServiceDefinition def{
      "explore_manager", "heterogeneous exploration: local environments, auction, two-tier A*, line-scanning tasks",
      [](runtime::ServiceContext& ctx) {
        using runtime::Timing;
        const std::string robots_text = ctx.Option<std::string>("robots", "r1", "comma-separated explorers");
        const std::string bodies_text =
            ctx.Option<std::string>("bodies", "marvin", "robot description per explorer (one for all)");
        std::vector<std::string> robots, bodies;
        try {
          robots = SplitList(robots_text, "robots");
          bodies = PerRobot(SplitList(bodies_text, "bodies"), robots.size(), "bodies");
        } catch (const std::invalid_argument& e) {
          throw config::ConfigError(std::string("explore_manager: ") + e.what());
        }
        const std::string budgets = ctx.Option<std::string>(
            "processing_cells", "", "processing budget B (cells) per explorer, one for all or one each ('': by body)");
        ManagerOptions options;
        options.lanes =
            ctx.Option<int>("lanes", options.lanes, "line-scanning lanes per environment side", runtime::AtLeast(1));
        options.done_fraction = ctx.Option<double>("done_fraction", options.done_fraction,
                                                   "a tile is done when this fraction of its open cells is explored",
                                                   runtime::InRange(0.01, 1.0));
        options.lane_ends_clear = ctx.Option<bool>(
            "lane_ends_clear", options.lane_ends_clear,
            "keep line-scanning lane ends a body radius clear of the outer wall and known obstacles (false: the cells "
            "nearest the walls, as before 2026-11-27)");
        options.waypoint_spacing = ctx.Option<double>("waypoint_spacing", options.waypoint_spacing,
                                                      "m between approach waypoints", runtime::Positive<double>());
        options.planning.occupancy_threshold = ctx.Option<double>(
            "occupancy_threshold", 0.65, "T_o: cells at or above it are eliminated", runtime::InRange(0.01, 1.0));
        options.planning.w10 =
            ctx.Option<double>("w10", 1.0, "W_10: weight of p_o(x) in c_m", runtime::InRange(0.0, 100.0));
        options.planning.w11 =
            ctx.Option<double>("w11", 1.0, "W_11: weight of the clearance mean in c_m", runtime::InRange(0.0, 100.0));
        const double time_limit = ctx.Option<double>("time_limit_s", 600.0, "exploration ends after this time (s)",
                                                     runtime::Positive<double>());
        // Bids over the bus (bidding.hpp): the default, as the spec has the planners negotiate; `manager` keeps the
        // auction run on the robots' behalf from their reports (as before; no call, no bid).
        const std::string bidding = ctx.Option<std::string>(
            "bidding", "robots",
            "who computes the bids: robots (each idle explorer answers a call for bids on <robot>/explore/call with "
            "its coarse-tier costs on <robot>/explore/bid) | manager (the manager computes them from the reports)",
            runtime::OneOf({"robots", "manager"}));
        const double bid_deadline_s = ctx.Option<double>(
            "bid_deadline_s", 0.9,
            "bidding=robots: bids stamped (lockstep) or arriving (realtime) later than this after the call are left "
            "out (s); the round closes at the next allocation round after it",
            runtime::InRange(0.0, 60.0));
        const int decide_every =
            ctx.Option<int>("decide_every", 10, "ticks between allocation rounds", runtime::AtLeast(1));
        const std::string results_csv =
            ctx.Option<std::string>("results_csv", "", "append the run's measures (one row) to this file");
        const std::string trace_csv =
            ctx.Option<std::string>("trace_csv", "", "append coverage and true positions once a second to this file");
        const std::string run_id = ctx.Option<std::string>("run_id", "run", "run identifier in the CSV files");
        const std::string configuration =
            ctx.Option<std::string>("configuration", "team", "configuration label in the CSV files");
        const int64_t seed = ctx.Option<int64_t>("seed", 1, "run seed in the CSV files");
        // Resource-utilisation feedback (executor_load.hpp). Off by default: it reads CPU time, so a run with it
        // is no longer reproducible to the bit, and the experiments' numbers must not change unasked.
        const bool feedback = ctx.Option<bool>(
            "feedback", false,
            "resource-utilisation feedback: measure each explorer's planner, mapper and controller CPU share from "
            "their heartbeats and lower or raise its planning and sensing rates (live parameters)");
        const std::string feedback_budget = ctx.Option<std::string>(
            "feedback_budget", "1",
            "feedback: CPU share each explorer may use (1 = one core), one for all or one each");
        ResourceFeedbackOptions fb;
        fb.retune.high =
            ctx.Option<double>("feedback_high", fb.retune.high,
                               "feedback: lower rates above this fraction of the budget", runtime::InRange(0.01, 10.0));
        fb.retune.target =
            ctx.Option<double>("feedback_target", fb.retune.target,
                               "feedback: the fraction of the budget a change aims for", runtime::InRange(0.01, 10.0));
        fb.retune.low =
            ctx.Option<double>("feedback_low", fb.retune.low, "feedback: raise rates below this fraction of the budget",
                               runtime::InRange(0.01, 10.0));
        fb.retune.bounds[kPlanning] = {1.0 / ctx.period_s(), 0.2};
        fb.retune.bounds[kPlanning].min_hz =
            ctx.Option<double>("feedback_planning_min_hz", 0.2,
                               "feedback: the lowest planning rate (timer replans per simulated s; nominal: no cap)",
                               runtime::InRange(0.001, 1.0 / ctx.period_s()));
        fb.retune.bounds[kSensing].nominal_hz = ctx.Option<double>(
            "feedback_sensing_hz", 1.0,
            "feedback: the mappers' nominal full-map rate (per simulated s; 1 = the experiments' full_map_period=10)",
            runtime::InRange(0.001, 1.0 / ctx.period_s()));
        fb.retune.bounds[kSensing].min_hz =
            ctx.Option<double>("feedback_sensing_min_hz", 0.2, "feedback: the lowest full-map rate",
                               runtime::InRange(0.001, 1.0 / ctx.period_s()));
        fb.retune.bounds[kActuation] = {1.0 / ctx.period_s(), 1.0 / ctx.period_s()};  // safety last: never lowered
        fb.estimator.period_s = ctx.period_s();
        fb.estimator.stale_s =
            ctx.Option<double>("feedback_stale_s", 3.0,
                               "feedback: no decision for an explorer whose services' last heartbeat is older (wall s)",
                               runtime::InRange(1.5, 3600.0));
        fb.refusal_hold_s = ctx.Option<double>(
            "feedback_refusal_hold_s", fb.refusal_hold_s,
            "feedback: after a set is refused (or unanswered for 5 s), no set of that activity to that robot for this "
            "long (wall s), doubling with each refusal in a row up to 600 s",
            runtime::InRange(0.0, 3600.0));
        fb.refusal_hold_max_s = ctx.Option<double>(
            "feedback_refusal_hold_max_s", fb.refusal_hold_max_s,
            "feedback: the longest hold after refusals in a row (wall s; at least feedback_refusal_hold_s)",
            runtime::InRange(0.0, 86400.0));
        const std::string sensing_services = ctx.Option<std::string>(
            "feedback_sensing", "mapper", "feedback: the services whose CPU counts as sensing (e.g. mapper,hwio)");
        std::array<std::vector<std::string>, kActivities> feedback_services;
        std::shared_ptr<ResourceFeedback> resources;
        std::vector<ExplorerProfile> team;
        try {
          feedback_services = {{{"planner"}, SplitList(sensing_services, "feedback_sensing"), {"controller"}}};
          fb.budgets =
              Numbers(PerRobot(SplitList(feedback_budget, "feedback_budget"), robots.size(), "feedback_budget"),
                      "feedback_budget");
          if (fb.retune.bounds[kSensing].min_hz > fb.retune.bounds[kSensing].nominal_hz)
            throw std::invalid_argument("feedback_sensing_min_hz must not exceed feedback_sensing_hz");
          Validate(fb);
          Validate(options);
          std::vector<std::string> cells =
              budgets.empty() ? std::vector<std::string>{}
                              : PerRobot(SplitList(budgets, "processing_cells"), robots.size(), "processing_cells");
          for (size_t r = 0; r < robots.size(); ++r) {
            const robot::RobotDescription d = robot::LoadRobotDescription(bodies[r]);
            double b = DefaultProcessingCells(d.name);
            if (!cells.empty()) {
              size_t used = 0;
              try {
                b = std::stod(cells[r], &used);
              } catch (const std::logic_error&) {
                used = 0;
              }
              if (used != cells[r].size())
                throw std::invalid_argument("processing_cells: '" + cells[r] + "' is not a number");
            }
            if (!(b > 0) || !std::isfinite(b)) throw std::invalid_argument("processing_cells must be > 0");
            team.push_back(ProfileFor(robots[r], d.name, d, b));
          }
          if (feedback) {
            resources = std::make_shared<ResourceFeedback>(static_cast<int>(robots.size()), feedback_services, fb);
          }
        } catch (const std::logic_error& e) {  // std::stod, Validate, PerRobot
          throw config::ConfigError(std::string("explore_manager: ") + e.what());
        }

        struct State {
          std::unique_ptr<TaskManager> manager;
          convert::WorldInfo world;
          std::vector<bool> free;
          std::vector<std::optional<mapper::GridMaps>> maps;
          std::vector<int64_t> map_ticks;
          std::vector<ExplorerReport> reports;
          std::vector<int64_t> report_ticks;
          RunMeasures measures;
          std::unique_ptr<BidRound> round;
          std::vector<int64_t> bid_ticks;
          // Realtime restart (README "The manager killed mid-run"): per robot, whether its predecessor's task has
          // been taken over or declined (or there was none); set once this manager sends the robot anything.
          std::vector<bool> settled;
          int64_t next_round = 1;
          bool finished = false;
          double coverage = 0.0;
        };
        auto s = std::make_shared<State>();
        s->maps.resize(robots.size());
        s->map_ticks.assign(robots.size(), -1);
        s->reports.resize(robots.size());
        s->report_ticks.assign(robots.size(), -1);
        s->bid_ticks.assign(robots.size(), -1);
        s->settled.assign(robots.size(), false);
        const bool robots_bid = bidding == "robots";
        if (robots_bid) s->round = std::make_unique<BidRound>(static_cast<int>(robots.size()));
        const int64_t deadline_ticks = std::lround(bid_deadline_s / ctx.period_s());
        const bool lockstep = ctx.mode() == runtime::Mode::kLockstep;

        auto world = ctx.AddInput<msg::WorldGeometry>("world", Timing::kPreviousTick, /*required=*/true);
        std::vector<std::shared_ptr<runtime::Input<msg::GridMap>>> map_in;
        std::vector<std::shared_ptr<runtime::Input<msg::ExploreReport>>> report_in;
        std::vector<std::shared_ptr<runtime::Input<msg::GroundTruth>>> truth_in;
        std::vector<std::shared_ptr<runtime::Output<msg::ExploreTask>>> task_out;
        std::vector<std::shared_ptr<runtime::Input<msg::ExploreTask>>> own_task;
        std::vector<std::shared_ptr<runtime::Input<msg::ExploreBid>>> bid_in;
        std::vector<std::shared_ptr<runtime::Output<msg::ExploreCall>>> call_out;
        for (const auto& r : robots) {
          map_in.push_back(ctx.AddInput<msg::GridMap>(r + "/map", Timing::kPreviousTick));
          report_in.push_back(ctx.AddInput<msg::ExploreReport>(r + "/explore/report", Timing::kPreviousTick));
          // Ground truth feeds the run's measures only (paths, collisions), never a decision.
          truth_in.push_back(ctx.AddInput<msg::GroundTruth>(r + "/truth", Timing::kPreviousTick));
          task_out.push_back(ctx.AddOutput<msg::ExploreTask>(r + "/explore/task", /*latched=*/true));
          // Before this manager sends a robot anything, a latched task there is a predecessor's (realtime restart).
          own_task.push_back(ctx.AddInput<msg::ExploreTask>(r + "/explore/task", Timing::kPreviousTick));
          if (robots_bid) {
            bid_in.push_back(ctx.AddInput<msg::ExploreBid>(r + "/explore/bid", Timing::kPreviousTick));
            call_out.push_back(ctx.AddOutput<msg::ExploreCall>(r + "/explore/call"));
          }
        }
        // Feedback: the explorers' heartbeats in, live parameter sets out (`limbic param set` travels the same way),
        // and their replies, so that a refused set is known.
        std::map<std::string, std::shared_ptr<runtime::Output<msg::ParameterRequest>>> param_out;
        auto next_request = std::make_shared<uint64_t>(std::random_device{}() | 1ull << 40);
        if (resources) {
          for (size_t r = 0; r < robots.size(); ++r) {
            for (int a = 0; a < kActivities; ++a) {
              for (const std::string& service : feedback_services[a]) {
                const int robot = static_cast<int>(r);
                const std::string calls = service == "planner" ? "plans" : service == "mapper" ? "full_maps" : "";
                ctx.OnMessage<msg::Heartbeat>(
                    "health/" + runtime::InstanceName(service, robots[r]),
                    [resources, robot, service, calls](const bus::Message<msg::Heartbeat>& m) {
                      ServiceSample sample;
                      sample.received_s = WallSeconds();
                      sample.tick = m.msg.tick();
                      sample.cpu_s = CounterOf(m.msg, "step_cpu_s");
                      sample.calls =
                          calls.empty() ? std::numeric_limits<double>::quiet_NaN() : CounterOf(m.msg, calls.c_str());
                      resources->Heartbeat(robot, service, sample);
                    });
              }
            }
            for (const std::string service : {"planner", "mapper"}) {
              const std::string instance = runtime::InstanceName(service, robots[r]);
              param_out[instance] = ctx.AddOutput<msg::ParameterRequest>("param/" + instance);
              ctx.OnMessage<msg::ParameterReply>(
                  "param/" + instance + "/reply", [resources, instance](const bus::Message<msg::ParameterReply>& m) {
                    const std::optional<ParameterSet> set =
                        resources->Reply(m.msg.request_id(), m.msg.ok(), WallSeconds());
                    if (!set || m.msg.ok()) return;  // someone else's (limbic param), or taken
                    LIMBIC_LOG(kWarning) << instance << " refused " << set->parameter << " = " << set->value << ": "
                                         << (m.msg.error() ? m.msg.error()->str() : std::string("?"))
                                         << " (no further set of it for a while)";
                  });
            }
          }
          ctx.Counter("feedback_retunes", [resources] { return resources->counters().retunes; });
          ctx.Counter("feedback_sets", [resources] { return resources->counters().sets_sent; });
          ctx.Counter("feedback_sets_refused", [resources] { return resources->counters().sets_refused; });
          ctx.Counter("feedback_sets_unanswered", [resources] { return resources->counters().sets_unanswered; });
          ctx.Counter("feedback_sets_held", [resources] { return resources->counters().sets_held; });
          ctx.Counter("feedback_no_estimate", [resources] { return resources->counters().no_estimate; });
          ctx.Counter("feedback_samples_refused", [resources] { return resources->counters().samples_refused; });
          for (size_t r = 0; r < robots.size(); ++r) {
            ctx.Counter(robots[r] + "_planning_hz", [resources, r] { return resources->commanded(r)[kPlanning]; });
            ctx.Counter(robots[r] + "_sensing_hz", [resources, r] { return resources->commanded(r)[kSensing]; });
          }
        }
        if (robots_bid) {
          ctx.Counter("bid_rounds", [s] { return s->round->counters().rounds; });
          ctx.Counter("bids_received", [s] { return s->round->counters().received; });
          ctx.Counter("bids_missing", [s] { return s->round->counters().missing; });
          ctx.Counter("bids_late", [s] { return s->round->counters().late; });
          ctx.Counter("bids_stale", [s] { return s->round->counters().stale; });
          ctx.Counter("bids_malformed", [s] { return s->round->counters().malformed; });
          for (size_t r = 0; r < robots.size(); ++r) {
            ctx.Counter(robots[r] + "_bids_missing", [s, r] { return s->round->counters().missing_by_robot[r]; });
          }
        }
        ctx.Counter("coverage", [s] { return s->coverage; });
        ctx.Counter("allocation_changes", [s] { return s->manager ? s->manager->state().allocation_changes : 0; });
        ctx.Counter("tiles_done", [s] { return s->manager ? s->manager->TilesDone() : 0; });
        for (size_t r = 0; r < robots.size(); ++r) {
          ctx.Counter(robots[r] + "_allocations", [s, r] { return s->manager ? s->manager->state().awards[r] : 0; });
        }
        ctx.Counter("tasks_adopted", [s] { return s->manager ? s->manager->state().adopted : 0; });
        const int per_second = std::max(1, static_cast<int>(std::lround(1.0 / ctx.period_s())));

        ctx.AddStep({}, [=](const runtime::TickInfo& tick) {
          if (!s->manager) {
            s->world = convert::FromMsg(*world->Get());
            const GridSpec grid = mapper::GridSpecCovering(s->world.min, s->world.max);
            std::vector<std::vector<Vec2>> polygons;
            for (const auto& p : s->world.polygons) polygons.push_back(p.vertices);
            s->free = FreeCells(grid, s->world.min, s->world.max, polygons);
            std::vector<ArenaWall> walls;
            for (const auto& p : s->world.polygons) walls.push_back({p.vertices, p.wall});
            ManagerOptions in_world = options;
            std::tie(in_world.interior_min, in_world.interior_max) = ArenaInterior(s->world.min, s->world.max, walls);
            s->manager = std::make_unique<TaskManager>(grid, team, in_world);
            const Partition& p = s->manager->partition();
            LIMBIC_LOG(kInfo) << "exploring set " << s->world.set << " environment " << s->world.index << ": "
                              << p.tiles_x() << " x " << p.tiles_y() << " tiles of " << p.tile_cells() << " cells";
            for (size_t r = 0; r < team.size(); ++r) {
              LIMBIC_LOG(kInfo) << robots[r] << " (" << team[r].body << "): d " << team[r].sensing_range << " m, B "
                                << team[r].processing_cells << " cells, environments of " << s->manager->shapes()[r].bx
                                << " x " << s->manager->shapes()[r].by << " tiles";
            }
          }
          if (s->finished) return;
          auto publish_task = [&](const runtime::TickInfo& at, const ExploreTask& t) {
            s->settled[t.robot] = true;
            task_out[t.robot]->Publish(at, [&](flatbuffers::FlatBufferBuilder& fbb, auto header) {
              std::vector<msg::Vec2> points;
              for (const Vec2& w : t.waypoints) points.push_back(convert::ToMsg(w));
              return msg::CreateExploreTaskDirect(fbb, header, t.task_id, t.environment, &t.tiles, &points, t.approach,
                                                  false, s->manager->state().allocation_changes, s->coverage);
            });
            ++s->measures.tasks_sent;
          };
          for (size_t r = 0; r < robots.size(); ++r) {
            if (map_in[r]->tick() >= 0 && map_in[r]->tick() != s->map_ticks[r]) {
              s->map_ticks[r] = map_in[r]->tick();
              ++s->measures.maps_received;
              mapper::MapSnapshot snap = mapper::SnapshotFromMsg(*map_in[r]->Get());
              if (snap.maps.spec == s->manager->partition().grid()) s->maps[r] = std::move(snap.maps);
            }
            if (const auto* rep = report_in[r]->Get(); rep && report_in[r]->tick() != s->report_ticks[r]) {
              s->report_ticks[r] = report_in[r]->tick();
              ++s->measures.reports_received;
              ExplorerReport& e = s->reports[r];
              e.valid = rep->position() != nullptr;
              if (rep->position()) e.position = convert::FromMsg(*rep->position());
              e.task_id = rep->task_id();
              e.waypoints_done = rep->waypoints_done();
              e.task_done = rep->task_done();
            }
            // Bids are taken as they arrive (each message once). Lockstep: judged late by the tick they were stamped
            // with (one clock for all). Realtime: every host counts its own ticks, so by the tick they arrived at.
            if (robots_bid) {
              if (const auto* b = bid_in[r]->Get(); b && bid_in[r]->tick() != s->bid_ticks[r]) {
                s->bid_ticks[r] = bid_in[r]->tick();
                ++s->measures.reports_received;  // a message from the explorer, like its reports
                const int64_t when = lockstep ? bid_in[r]->tick() : tick.tick;
                s->round->Offer(static_cast<int>(r), FromMsg(*b), when);
              }
            }
          }
          // A restarted manager (realtime; lockstep runs start afresh) takes over its predecessor's tasks from their
          // latched copies and the robots' reports, before anyone is found idle: a robot whose report says the task
          // is under way keeps it; one that finished it bids. Ids and the allocation count continue.
          for (size_t r = 0; r < robots.size() && !lockstep; ++r) {
            if (s->settled[r]) continue;
            std::optional<PredecessorTask> before;
            if (const auto* latched = own_task[r]->Get()) before = PredecessorFromMsg(*latched);
            ExploreTask again;
            const Takeover d =
                s->manager->TakeOver(static_cast<int>(r), before ? &*before : nullptr, s->reports[r], &again);
            if (d == Takeover::kWait) continue;
            s->settled[r] = true;
            if (!before) continue;
            LIMBIC_LOG(kInfo) << robots[r] << ": " << (d == Takeover::kAdopted ? "took over" : "did not take over")
                              << " task " << before->task_id
                              << " of the manager before this one (the robot reports task " << s->reports[r].task_id
                              << (s->reports[r].task_done ? ", done" : ", under way") << ")";
            if (d == Takeover::kAdopted) publish_task(tick, again);
          }
          const bool decide = tick.tick % decide_every == 0;
          const bool sample = tick.tick % per_second == 0;
          if (resources && decide) {
            for (const ParameterSet& set : resources->Step(WallSeconds())) {
              const std::string instance = runtime::InstanceName(set.service, robots[set.robot]);
              const uint64_t id = (*next_request)++;
              resources->Sent(id, set, WallSeconds());
              LIMBIC_LOG(kInfo) << "feedback: " << instance << " " << set.parameter << " = " << set.value << " ("
                                << set.previous_hz << " -> " << set.new_hz << " Hz)";
              param_out.at(instance)->Publish(tick, [&](flatbuffers::FlatBufferBuilder& fbb, auto header) {
                return msg::CreateParameterRequestDirect(fbb, header, id, set.parameter.c_str(), set.value.c_str(),
                                                         true);
              });
            }
          }
          if (!decide && !sample) return;
          std::vector<const mapper::GridMaps*> have;
          for (const auto& m : s->maps) {
            if (m) have.push_back(&*m);
          }
          mapper::GridMaps merged =
              have.empty() ? mapper::GridMaps::Initial(s->manager->partition().grid()) : MergeMaps(have);
          s->coverage = Coverage(merged, s->free);
          bool end = tick.time_s >= time_limit;
          if (decide && !end) {
            ManagerInputs in;
            in.time = tick.time_s;
            in.maps = &merged;
            in.reports = s->reports;
            // Bidding by the robots: the auction runs over the bids of a round that is complete (everyone invited
            // answered, or its deadline passed); otherwise nobody bids this time.
            std::vector<std::optional<std::vector<double>>> bids(robots.size());
            if (robots_bid) {
              if (s->round->open() && s->round->Complete(tick.tick)) bids = s->round->Close();
              in.bids = &bids;
            }
            const ManagerOutputs out = s->manager->Step(in);
            for (const ExploreTask& t : out.new_tasks) {
              LIMBIC_LOG(kInfo) << robots[t.robot] << ": task " << t.task_id << " in environment " << t.environment
                                << " (" << t.tiles.size() << " tiles, " << t.waypoints.size() << " waypoints)";
              publish_task(tick, t);
            }
            end = end || out.finished;
            s->measures.all_done = out.finished;
            // A new round for whoever is idle now (none while one is open).
            if (robots_bid && !end && !s->round->open()) {
              const std::vector<bool> idle = s->manager->Idle(s->reports);
              if (std::find(idle.begin(), idle.end(), true) != idle.end()) {
                const BidCall call = s->manager->Call(merged, s->next_round++, tick.tick + deadline_ticks);
                s->round->Open(call.round, idle, static_cast<int>(call.graph.centres.size()), call.deadline_tick);
                for (size_t r = 0; r < robots.size(); ++r) {
                  if (!idle[r]) continue;
                  call_out[r]->Publish(
                      tick, [&](flatbuffers::FlatBufferBuilder& fbb, auto header) { return ToMsg(fbb, header, call); });
                  ++s->measures.tasks_sent;  // a message to the explorer, like its tasks
                }
              }
            }
          }
          if (sample || end) {
            RunSample smp;
            smp.time = tick.time_s;
            smp.coverage = s->coverage;
            for (size_t r = 0; r < robots.size(); ++r) {
              const auto* t = truth_in[r]->Get();
              smp.positions.push_back(t && t->pose() ? convert::FromMsg(*t->pose()).Position() : Vec2(0, 0));
              if (t && end) {
                s->measures.robot_collisions += t->robot_collisions();
                s->measures.world_collisions += t->world_collisions();
                s->measures.world_collisions_by_robot.resize(robots.size(), 0);
                s->measures.world_collisions_by_robot[r] = t->world_collisions();
              }
            }
            s->measures.AddSample(smp);
            if (!trace_csv.empty()) AppendLine(trace_csv, TraceCsvHeader(robots.size()), TraceCsvRow(run_id, smp));
          }
          if (!end) return;
          s->finished = true;
          const ManagerState& st = s->manager->state();
          s->measures.allocation_changes = st.allocation_changes;
          s->measures.released_early = st.released_early;
          s->measures.unreachable_tiles = st.unreachable;
          LIMBIC_LOG(kInfo) << "exploration ends at " << tick.time_s << " s: coverage " << s->coverage << ", "
                            << s->manager->TilesDone() << "/" << s->manager->partition().tiles().size()
                            << " tiles done, " << st.allocation_changes << " allocations";
          for (size_t r = 0; r < robots.size(); ++r) {
            task_out[r]->Publish(tick, [&](flatbuffers::FlatBufferBuilder& fbb, auto header) {
              return msg::CreateExploreTaskDirect(fbb, header, -1, -1, nullptr, nullptr, 0, true, st.allocation_changes,
                                                  s->coverage);
            });
            ++s->measures.tasks_sent;
          }
          if (!results_csv.empty()) {
            AppendLine(results_csv, RunCsvHeader(),
                       RunCsvRow(run_id, configuration, s->world.set, s->world.index, static_cast<uint64_t>(seed),
                                 bodies, s->measures));
          }
        });
      }};
  def.global = true;
  return def;
}

}  // namespace limbic::explore
