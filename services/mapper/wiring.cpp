#include "services/mapper/wiring.hpp"

#include "common/convert/convert.hpp"
#include "common/log/log.hpp"
#include "common/robot/wiring.hpp"
#include "services/mapper/convert.hpp"
#include "services/mapper/occupancy_mapper.hpp"
#include "services/mapper/world_raster.hpp"

namespace limbic::mapper {
namespace {

using runtime::TickInfo;
using runtime::Timing;

struct Options {
  bool prebuilt_map = false;        // §6.4: start from the true map (undetectable obstacles included)
  bool danger_pretag = false;       // §6.4 (Ch. 7.6, 9.1.6): undetectable obstacles pre-marked as danger
  bool wrong_map_all_free = false;  // §6.4 (surprise experiment): start from a map that says all is free
  int full_map_period = 50;         // ticks between latched full maps (late joiners resync from them)
  std::string coverage = "mean";    // §8 item 13: mean p_e, or "fraction" (p_e > 0.5)
  MapperOptions mapper;             // the algorithm's options: danger_point; r_R from the robot description (issue 18)
};

struct State {
  Options options;
  std::unique_ptr<OccupancyMapper> mapper;
  convert::WorldInfo world;
  CollisionEvent last_collision;
  uint64_t full_maps = 0;  // published (the exploration manager's resource feedback reads it as the sensing rate)
};

}  // namespace

runtime::ServiceDefinition MapperService(MapperStepHook before_update) {
  return {
      "mapper", "occupancy, exploration and danger maps; obstacle buffer",
      [before_update](runtime::ServiceContext& ctx) {
        auto s = std::make_shared<State>();
        // The first three choose the map the run starts from: start-up options. The last two are read every
        // tick: live (issue 15).
        s->options.prebuilt_map = ctx.Option("prebuilt_map", false, "start from the true map");
        s->options.danger_pretag = ctx.Option("danger_pretag", false, "pre-mark undetectable obstacles as danger");
        s->options.wrong_map_all_free =
            ctx.Option("wrong_map_all_free", false, "start from a map that says all is free");
        s->options.full_map_period = ctx.LiveParam<int>(
            "full_map_period", 50, "ticks between latched full maps (0: none; late joiners resync from them)",
            runtime::AtLeast(0), [s](const int& period) { s->options.full_map_period = period; });
        s->options.coverage = ctx.LiveParam<std::string>(
            "coverage", "mean",
            "coverage metric in map/stats: mean (the mean explored probability) | fraction (cells above 0.5)",
            runtime::OneOf({"mean", "fraction"}), [s](const std::string& metric) { s->options.coverage = metric; });
        s->options.mapper.danger_point = ParseDangerPoint(ctx.Option<std::string>(
            "danger_point", "surface",
            "where a collision marks the danger map (issue 14): surface (the collision point, on the obstacle: "
            "the nearest sensed point in the closed switches' sector, else just beyond the chassis) | contact (the "
            "switch position on the chassis) | sensed (only where the range sensors saw the obstacle) | sector "
            "(surface, but where the sensors saw no surface: the point of the switches' sector nearest their "
            "direction that neither unfolded beams nor the body's recent positions rule out)",
            runtime::OneOf(kDangerPointNames)));
        s->options.mapper.danger_forget = ParseDangerForget(ctx.Option<std::string>(
            "danger_forget", "none",
            "whether collision danger cells are cleared (issue 14): none (the spec: never) | free_space (after "
            "danger_forget_cycles cycles of beams looking through the cell) | seen_free_space (the same, only for "
            "cells "
            "whose collisions the sensors saw) | body (when the robot's body later "
            "covers every danger point of the cell); a-priori tags never",
            runtime::OneOf(kDangerForgetNames)));
        s->options.mapper.danger_forget_cycles =
            ctx.Option("danger_forget_cycles", 50, "danger_forget=free_space: cycles of looking through a cell",
                       runtime::InRange(1, 65535));
        s->options.mapper.period_s = ctx.period_s();
        // Rule 2 of §4.1 clears the cells within r_R of the robot: the body's circumscribed radius (issue 18).
        s->options.mapper.robot_radius =
            robot::BodyOption(ctx, "the cells within its circumscribed radius are cleared").body.circumscribed_radius();
        auto world = ctx.AddInput<msg::WorldGeometry>("world", Timing::kPreviousTick, /*required=*/true);
        auto scan = ctx.AddInput<msg::RangeScan>(ctx.Topic("scan"), Timing::kSameTick);
        auto odom = ctx.AddInput<msg::Odometry>(ctx.Topic("odom"), Timing::kSameTick);
        auto collision = ctx.AddInput<msg::CollisionEvent>(ctx.Topic("collision"), Timing::kSameTick);
        auto params = ctx.AddInput<msg::ControlParams>(ctx.Topic("params"), Timing::kPreviousTick);
        // Its own latched full map: after a restart (realtime) the mapper carries on from it.
        auto own_map = ctx.AddInput<msg::GridMap>(ctx.Topic("map"), Timing::kPreviousTick);
        const bool realtime = ctx.mode() == runtime::Mode::kRealtime;
        auto patch_out = ctx.AddOutput<msg::GridPatch>(ctx.Topic("map/patch"));
        auto stats_out = ctx.AddOutput<msg::MapStats>(ctx.Topic("map/stats"));
        auto obstacles_out = ctx.AddOutput<msg::ObstacleSet>(ctx.Topic("obstacles"));
        auto full_out = ctx.AddOutput<msg::GridMap>(ctx.Topic("map"), /*latched=*/true);
        ctx.Counter("cells", [s] { return s->mapper ? static_cast<double>(s->mapper->maps().CellCount()) : 0.0; });
        ctx.Counter("full_maps", [s] { return static_cast<double>(s->full_maps); });

        // Realtime: the map follows each scan at once (runtime::RealtimeTicks).
        ctx.AddStep(
            {.outputs = {ctx.Topic("map/patch"), ctx.Topic("map/stats"), ctx.Topic("obstacles")},
             .realtime_trigger = scan.get()},
            [=, &ctx](const TickInfo& tick) {
              if (!s->mapper) {
                s->world = convert::FromMsg(*world->Get());
                const auto spec = GridSpecCovering(s->world.min, s->world.max);
                s->mapper = std::make_unique<OccupancyMapper>(spec, s->options.mapper);
                std::vector<KnownPolygon> polygons;
                for (const auto& p : s->world.polygons) polygons.push_back({p.vertices, p.detectable});
                if (s->options.prebuilt_map) s->mapper->LoadMaps(KnownMap(spec, polygons, true));
                if (const auto* previous = own_map->Get(); realtime && previous != nullptr) {
                  const MapSnapshot snapshot = SnapshotFromMsg(*previous);
                  bool usable = snapshot.maps.spec == spec;
                  try {
                    snapshot.maps.Validate();
                  } catch (const std::exception&) {
                    usable = false;
                  }
                  if (usable) {
                    s->mapper->LoadMaps(snapshot.maps);  // every cell goes out in the next patch
                    LIMBIC_LOG(kInfo) << "restarted: carrying on from the latched map of tick " << snapshot.tick;
                  }
                }
                if (s->options.wrong_map_all_free) s->mapper->LoadMaps(AllFreeMap(spec));
                if (s->options.danger_pretag) {
                  for (const auto& p : polygons) {
                    if (!p.detectable) s->mapper->MarkDangerPolygon(p.vertices);
                  }
                }
                LIMBIC_LOG(kInfo) << "map " << spec.width << " x " << spec.height << " cells of " << spec.resolution
                                  << " m over set " << s->world.set << " environment " << s->world.index;
              }
              MapperInputs in;
              in.tick = tick.tick;
              if (const auto* o = odom->Get()) in.pose = convert::FromMsg(*o).pose;
              if (const auto* sc = scan->Get()) convert::BeamsFromMsg(sc->beams(), &in.scan);
              if (const auto* c = collision->Get()) in.collision = convert::FromMsg(*c);
              if (const auto* p = params->Get()) in.params = convert::FromMsg(*p);
              if (before_update) before_update(*s->mapper, tick.tick);
              const MapperOutputs out = s->mapper->Update(in);
              // A refused cycle (non-finite input, or a result rolled back) still publishes — only good values.
              ctx.ReportFault("mapper", s->mapper->fault());
              const auto& maps = s->mapper->maps();
              const double coverage = Coverage(
                  maps, s->world.min, s->world.max,
                  s->options.coverage == "mean" ? CoverageMetric::kMeanExploration : CoverageMetric::kFractionExplored);
              patch_out->Publish(tick, [&](flatbuffers::FlatBufferBuilder& fbb, auto header) {
                return PatchToMsg(fbb, header, maps.spec, out.patch);
              });
              stats_out->Publish(tick, [&](flatbuffers::FlatBufferBuilder& fbb, auto header) {
                std::vector<msg::UpdatedCell> cells;
                cells.reserve(out.stats.updated_cells.size());
                for (const auto& c : out.stats.updated_cells) cells.emplace_back(c.index, c.s_o, c.p_o_before);
                return msg::CreateMapStats(fbb, header, fbb.CreateVectorOfStructs(cells), out.stats.mean_p_e,
                                           out.stats.density, coverage);
              });
              obstacles_out->Publish(tick, [&](flatbuffers::FlatBufferBuilder& fbb, auto header) {
                return msg::CreateObstacleSet(fbb, header, convert::ToMsg(fbb, out.obstacle_points), 0, in.params.n_o);
              });
              if (s->options.full_map_period > 0 && tick.tick % s->options.full_map_period == 0) {
                full_out->Publish(tick, [&](flatbuffers::FlatBufferBuilder& fbb, auto header) {
                  return SnapshotToMsg(fbb, header, s->mapper->Snapshot());
                });
                ++s->full_maps;
              }
            });
      }};
}

}  // namespace limbic::mapper
