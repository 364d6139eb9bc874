// Map messages <-> mapper values, and MapFollower: how every consumer (planner, affect, controller)
// keeps a replica identical to the mapper's from the per-tick patches.
#pragma once

#include <optional>

#include "common/geometry/geometry.hpp"
#include "messages/messages.hpp"
#include "services/mapper/grid_maps.hpp"

namespace limbic::mapper {

MapPatch PatchFromMsg(const msg::GridPatch& m);
flatbuffers::Offset<msg::GridPatch> PatchToMsg(flatbuffers::FlatBufferBuilder& fbb,
                                               flatbuffers::Offset<msg::Header> header, const geometry::GridSpec& spec,
                                               const MapPatch& patch);
MapSnapshot SnapshotFromMsg(const msg::GridMap& m);
flatbuffers::Offset<msg::GridMap> SnapshotToMsg(flatbuffers::FlatBufferBuilder& fbb,
                                                flatbuffers::Offset<msg::Header> header, const MapSnapshot& s);

// Follows the mapper: starts from the initial maps over the world's bounds (what the mapper starts
// from, so lockstep consumers are exact from tick 0), applies each tick's patch, and recovers from a
// gap (a consumer restarted mid-run) with the latest latched full map. A restarted mapper (a new
// header incarnation) counts ticks from scratch: the chain starts again from its first patch, which
// carries every cell when it carried on from its latched map.
class MapFollower {
 public:
  // Call once per tick with what arrived (any may be null). Returns the maps, or null if none yet.
  const GridMaps* Follow(const geometry::Vec2& world_min, const geometry::Vec2& world_max, const msg::GridPatch* patch,
                         const msg::GridMap* full);
  const GridMaps* maps() const { return replica_.has_map() ? &replica_.maps() : nullptr; }
  uint64_t resyncs() const { return resyncs_; }
  // Patches that passed the bus check but did not fit the replica's grid (ApplyPatch refused them whole).
  uint64_t refused() const { return refused_; }

 private:
  MapReplica replica_;
  bool started_ = false;
  uint64_t incarnation_ = 0;  // of the mapper the patches come from
  uint64_t resyncs_ = 0;
  uint64_t refused_ = 0;
};

}  // namespace limbic::mapper
