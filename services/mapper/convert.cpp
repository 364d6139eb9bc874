#include "services/mapper/convert.hpp"

#include "common/convert/convert.hpp"

namespace limbic::mapper {
namespace {

std::vector<DangerSite> SitesFromMsg(const flatbuffers::Vector<const msg::DangerSite*>* sites) {
  std::vector<DangerSite> out;
  if (sites == nullptr) return out;
  out.reserve(sites->size());
  for (const auto* s : *sites) out.push_back(DangerSite{s->cell(), convert::FromMsg(s->point())});
  return out;
}

flatbuffers::Offset<flatbuffers::Vector<const msg::DangerSite*>> SitesToMsg(flatbuffers::FlatBufferBuilder& fbb,
                                                                            const std::vector<DangerSite>& sites) {
  std::vector<msg::DangerSite> out;
  out.reserve(sites.size());
  for (const DangerSite& s : sites) out.emplace_back(s.cell, convert::ToMsg(s.point));
  return fbb.CreateVectorOfStructs(out);
}

}  // namespace

MapPatch PatchFromMsg(const msg::GridPatch& m) {
  MapPatch patch;
  patch.base_tick = m.base_tick();
  patch.tick = m.header()->tick();
  if (m.cells()) {
    patch.cells.reserve(m.cells()->size());
    for (const auto* c : *m.cells()) patch.cells.push_back(CellPatch{c->index(), c->p_o(), c->p_e(), c->danger()});
  }
  patch.danger_sites = SitesFromMsg(m.danger_sites());
  return patch;
}

flatbuffers::Offset<msg::GridPatch> PatchToMsg(flatbuffers::FlatBufferBuilder& fbb,
                                               flatbuffers::Offset<msg::Header> header, const geometry::GridSpec& spec,
                                               const MapPatch& patch) {
  std::vector<msg::CellUpdate> cells;
  cells.reserve(patch.cells.size());
  for (const auto& c : patch.cells) cells.emplace_back(c.index, c.p_o, c.p_e, c.danger);
  const msg::GridInfo info = convert::ToMsg(spec);
  return msg::CreateGridPatch(fbb, header, &info, fbb.CreateVectorOfStructs(cells), patch.base_tick,
                              patch.danger_sites.empty() ? 0 : SitesToMsg(fbb, patch.danger_sites));
}

MapSnapshot SnapshotFromMsg(const msg::GridMap& m) {
  MapSnapshot s;
  s.tick = m.header()->tick();
  s.maps.spec = m.info() ? convert::FromMsg(*m.info()) : geometry::GridSpec{};
  if (m.p_o()) s.maps.p_o.assign(m.p_o()->begin(), m.p_o()->end());
  if (m.p_e()) s.maps.p_e.assign(m.p_e()->begin(), m.p_e()->end());
  if (m.danger()) s.maps.danger.assign(m.danger()->begin(), m.danger()->end());
  s.maps.danger_sites = SitesFromMsg(m.danger_sites());
  return s;
}

flatbuffers::Offset<msg::GridMap> SnapshotToMsg(flatbuffers::FlatBufferBuilder& fbb,
                                                flatbuffers::Offset<msg::Header> header, const MapSnapshot& s) {
  const msg::GridInfo info = convert::ToMsg(s.maps.spec);
  return msg::CreateGridMap(fbb, header, &info, fbb.CreateVector(s.maps.p_o), fbb.CreateVector(s.maps.p_e),
                            fbb.CreateVector(s.maps.danger),
                            s.maps.danger_sites.empty() ? 0 : SitesToMsg(fbb, s.maps.danger_sites));
}

const GridMaps* MapFollower::Follow(const geometry::Vec2& world_min, const geometry::Vec2& world_max,
                                    const msg::GridPatch* patch, const msg::GridMap* full) {
  if (!started_) {
    started_ = true;
    replica_.Reset(MapSnapshot{-1, GridMaps::Initial(GridSpecCovering(world_min, world_max))});
  }
  if (patch != nullptr) {
    const MapPatch p = PatchFromMsg(*patch);
    const uint64_t incarnation = patch->header()->incarnation();
    if (incarnation_ != 0 && incarnation != incarnation_ && replica_.has_map()) {
      replica_.Reset(MapSnapshot{p.base_tick, GridMaps::Initial(replica_.maps().spec)});
      ++resyncs_;
    }
    incarnation_ = incarnation;
    // A patch or map that does not fit the grid is bad input: ignored (and the replica resyncs later).
    auto apply = [&] {
      try {
        return replica_.Apply(p);
      } catch (const std::invalid_argument&) {
        ++refused_;
        return MapReplica::ApplyResult::kGap;
      }
    };
    if (apply() == MapReplica::ApplyResult::kGap && full != nullptr) {
      const MapSnapshot snapshot = SnapshotFromMsg(*full);
      bool valid = snapshot.maps.spec == replica_.maps().spec;
      try {
        snapshot.maps.Validate();
      } catch (const std::exception&) {
        valid = false;
      }
      if (valid && snapshot.tick > replica_.tick()) {
        replica_.Reset(snapshot);
        ++resyncs_;
        apply();
      }
    }
  }
  return maps();
}

}  // namespace limbic::mapper
