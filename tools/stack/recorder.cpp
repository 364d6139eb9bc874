#include "tools/stack/recorder.hpp"

#include <algorithm>
#include <cmath>
#include <optional>

#include "common/convert/convert.hpp"
#include "services/mapper/convert.hpp"

namespace limbic::stack {
namespace {

// Every `period_s` of simulated time, in whole ticks (at least every tick).
int64_t EveryTicks(double period_s, double tick_s) { return std::max<int64_t>(1, std::llround(period_s / tick_s)); }

template <size_t N>
void CopyInto(const flatbuffers::Vector<double>* from, std::array<double, N>* to) {
  if (from == nullptr) return;
  for (size_t i = 0; i < N && i < from->size(); ++i) (*to)[i] = from->Get(static_cast<flatbuffers::uoffset_t>(i));
}

}  // namespace

runtime::ServiceDefinition RecorderService(RecorderOptions options, std::shared_ptr<Recording> sink) {
  return {"recorder", "collects a run's metrics, trajectory, affect and final map for the experiment runner",
          [options, sink](runtime::ServiceContext& ctx) {
            using runtime::Timing;
            struct State {
              int contact_cycles = 0;
              int iteration = 1;
              convert::WorldInfo world;
              mapper::MapFollower maps;
              experiment::PathDecimator path;  // the traversal under way (options.failed_paths)
              geometry::Vec2 path_goal{0.0, 0.0};
            };
            auto s = std::make_shared<State>();
            auto truth = ctx.AddInput<msg::GroundTruth>(ctx.Topic("truth"), Timing::kSameTick);
            auto status = ctx.AddInput<msg::MissionStatus>(ctx.Topic("mission"), Timing::kSameTick);
            auto metrics = ctx.AddInput<msg::RunMetrics>(ctx.Topic("metrics"), Timing::kSameTick);
            std::vector<runtime::InputBase*> waits{truth.get(), status.get()};
            std::shared_ptr<runtime::Input<msg::AffectState>> affect;
            if (options.affect) {
              affect = ctx.AddInput<msg::AffectState>(ctx.Topic("affect"), Timing::kSameTick);
              waits.push_back(affect.get());
            }
            std::shared_ptr<runtime::Input<msg::Odometry>> estimate;
            if (options.localisation) {
              estimate = ctx.AddInput<msg::Odometry>(ctx.Topic("odom"), Timing::kSameTick);
              waits.push_back(estimate.get());
            }
            std::shared_ptr<runtime::Input<msg::WorldGeometry>> world;
            std::shared_ptr<runtime::Input<msg::GridPatch>> patch;
            std::shared_ptr<runtime::Input<msg::GridMap>> full;
            if (options.map) {
              world = ctx.AddInput<msg::WorldGeometry>("world", Timing::kPreviousTick, /*required=*/true);
              patch = ctx.AddInput<msg::GridPatch>(ctx.Topic("map/patch"), Timing::kSameTick);
              full = ctx.AddInput<msg::GridMap>(ctx.Topic("map"), Timing::kPreviousTick);
              waits.push_back(patch.get());
            }
            const int64_t trajectory_every = EveryTicks(options.trajectory_period_s, ctx.period_s());
            const int64_t affect_every = EveryTicks(options.affect_period_s, ctx.period_s());

            ctx.AddStep({.name = "", .waits_for = waits, .outputs = {}}, [=](const runtime::TickInfo& tick) {
              ++sink->ticks;
              const msg::GroundTruth* t = truth->Get();
              if (t != nullptr && t->in_contact()) ++s->contact_cycles;
              if (estimate != nullptr && t != nullptr && t->pose() != nullptr) {
                if (const msg::Odometry* e = estimate->Get(); e != nullptr && e->pose() != nullptr) {
                  LocalisationRecord& l = sink->localisation;
                  const geometry::Pose2 truth_pose = convert::FromMsg(*t->pose());
                  const geometry::Pose2 estimated = convert::FromMsg(*e->pose());
                  const double error = (estimated.Position() - truth_pose.Position()).norm();
                  ++l.ticks;
                  l.max_position_error_m = std::max(l.max_position_error_m, error);
                  l.max_heading_error_rad = std::max(l.max_heading_error_rad,
                                                     std::abs(geometry::WrapAngle(estimated.theta - truth_pose.theta)));
                  l.final_position_error_m = error;
                  if (t->in_contact()) ++l.contact_cycles;
                  l.pushes = t->pushes();
                }
              }
              if (options.failed_paths) {
                // The tick a traversal ends belongs to it (mission judged arrival or timeout on this pose);
                // the status of that tick already names the next goal but still gives the distance to the
                // old one.
                const msg::MissionStatus* st = status->Get();
                std::optional<geometry::Pose2> pose;
                if (t != nullptr && t->pose() != nullptr) pose = convert::FromMsg(*t->pose());
                if (pose) s->path.Add({tick.time_s, s->iteration, pose->x, pose->y, pose->theta});
                if (const msg::RunMetrics* m = metrics->Get()) {
                  std::vector<experiment::TrajectorySample> path = s->path.Take();
                  if (!m->success()) {
                    experiment::FailedTraversal f;
                    f.iteration = m->iteration();
                    f.goal_x = s->path_goal.x();
                    f.goal_y = s->path_goal.y();
                    f.distance_to_goal = st != nullptr ? st->distance_to_goal() : std::nan("");
                    f.samples = std::move(path);
                    sink->failed.push_back(std::move(f));
                  }
                  if (pose) s->path.Add({tick.time_s, m->iteration() + 1, pose->x, pose->y, pose->theta});
                }
                if (st != nullptr && st->goal() != nullptr) s->path_goal = {st->goal()->x(), st->goal()->y()};
              }
              if (const msg::MissionStatus* st = status->Get(); st != nullptr && st->iteration() > 0) {
                s->iteration = st->iteration();
              }
              if (options.trajectory && t != nullptr && t->pose() != nullptr && tick.tick % trajectory_every == 0) {
                const geometry::Pose2 pose = convert::FromMsg(*t->pose());
                sink->trajectory.push_back({tick.time_s, s->iteration, pose.x, pose.y, pose.theta});
              }
              if (affect != nullptr && tick.tick % affect_every == 0) {
                if (const msg::AffectState* a = affect->Get()) {
                  experiment::AffectSample sample;
                  sample.t = tick.time_s;
                  sample.iteration = s->iteration;
                  CopyInto(a->stimuli_damped(), &sample.stimuli);
                  CopyInto(a->emotions_combined(), &sample.emotions);
                  CopyInto(a->moods(), &sample.moods);
                  CopyInto(a->drives(), &sample.drives);
                  sample.d_min = a->drive_min();
                  sample.d_max = a->drive_max();
                  sink->affect.push_back(sample);
                }
              }
              if (options.map) {
                if (s->world.set == '?') s->world = convert::FromMsg(*world->Get());
                s->maps.Follow(s->world.min, s->world.max, patch->Get(), full->Get());
              }
              if (const msg::RunMetrics* m = metrics->Get()) {
                RecordedTraversal r;
                r.metrics.iteration = m->iteration();
                r.metrics.completion_time_s = m->completion_time_s();
                r.metrics.success = m->success();
                r.metrics.collisions = m->collisions();
                r.metrics.collisions_per_min = m->collisions_per_min();
                r.metrics.mean_velocity = m->mean_velocity();
                r.metrics.exec_time_ratio = m->exec_time_ratio();
                r.metrics.coverage = m->coverage();
                r.metrics.distance_travelled = m->distance_travelled();
                r.metrics.run_finished = m->run_finished();
                r.contact_cycles = s->contact_cycles;
                s->contact_cycles = 0;
                sink->traversals.push_back(r);
                if (r.metrics.run_finished) sink->run_finished = true;
              }
            });
            ctx.OnStop([=] {
              if (const mapper::GridMaps* maps = s->maps.maps()) {
                sink->grid = maps->spec;
                sink->occupancy = maps->p_o;
              }
            });
          }};
}

}  // namespace limbic::stack
