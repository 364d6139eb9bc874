#include "services/mapper/convert.hpp"

#include <gtest/gtest.h>

#include "services/mapper/occupancy_mapper.hpp"

namespace limbic::mapper {
namespace {

using geometry::GridSpec;

std::vector<uint8_t> PatchBytes(const GridSpec& spec, const MapPatch& patch, uint64_t incarnation) {
  flatbuffers::FlatBufferBuilder fbb;
  auto header = msg::CreateHeaderDirect(fbb, 0, patch.tick, 1, "r1/mapper", false, incarnation);
  fbb.Finish(PatchToMsg(fbb, header, spec, patch), "GPAT");
  return {fbb.GetBufferPointer(), fbb.GetBufferPointer() + fbb.GetSize()};
}

MapperInputs Scan(int64_t tick, double x) {
  MapperInputs in;
  in.tick = tick;
  in.pose = {x, 2.0, 0.0};
  in.scan.beams.push_back({0, {0.2, 0.0}, 0.0, 0.4, 3.0, 1.5, true});
  if (tick % 5 == 3) {  // now and then a collision: danger cells with sites travel too (issue 14)
    in.collision.occurred = true;
    in.collision.contact_point = {x + 0.35, 2.1};
  }
  return in;
}

// One mapper cycle at `x`, its patch handed to `follower` as the bus would carry it.
void CycleAndFollow(OccupancyMapper& mapper, MapFollower& follower, const GridSpec& spec, int64_t tick, double x,
                    uint64_t incarnation, const geometry::Vec2& min, const geometry::Vec2& max) {
  const auto bytes = PatchBytes(spec, mapper.Update(Scan(tick, x)).patch, incarnation);
  follower.Follow(min, max, flatbuffers::GetRoot<msg::GridPatch>(bytes.data()), nullptr);
}

// A consumer follows a mapper; the mapper restarts (new incarnation, ticks from 0) carrying on from its
// last map; the consumer's replica stays identical to the mapper's.
TEST(MapFollower, FollowsAMapperThatRestartsAndCarriesOn) {
  const geometry::Vec2 min{0, 0}, max{6, 4};
  const GridSpec spec = GridSpecCovering(min, max);
  MapFollower follower;
  OccupancyMapper first(spec);
  for (int64_t t = 0; t < 20; ++t) CycleAndFollow(first, follower, spec, t, 1.0 + 0.1 * t, 111, min, max);
  ASSERT_NE(follower.maps(), nullptr);
  EXPECT_FALSE(first.maps().danger_sites.empty());
  EXPECT_EQ(*follower.maps(), first.maps());
  OccupancyMapper second(spec);  // restarted: loads the latched map, ticks from 0 again
  second.LoadMaps(first.maps());
  for (int64_t t = 0; t < 10; ++t) CycleAndFollow(second, follower, spec, t, 3.0 + 0.1 * t, 222, min, max);
  EXPECT_EQ(*follower.maps(), second.maps());
  EXPECT_EQ(follower.resyncs(), 1u);
}

// A patch whose danger site lies on a cell it patches without danger passes the bus check (which cannot know the
// cell's danger) and is refused whole by ApplyPatch: the replica keeps its last good state, and the next full map
// brings it back to the mapper's.
TEST(MapFollower, RefusesAPatchWithABadDangerSiteAndResyncsFromTheFullMap) {
  const geometry::Vec2 min{0, 0}, max{6, 4};
  const GridSpec spec = GridSpecCovering(min, max);
  MapFollower follower;
  OccupancyMapper mapper(spec);
  for (int64_t t = 0; t < 10; ++t) CycleAndFollow(mapper, follower, spec, t, 1.0 + 0.1 * t, 7, min, max);
  ASSERT_FALSE(mapper.maps().danger_sites.empty());
  const GridMaps good = *follower.maps();
  ASSERT_EQ(good, mapper.maps());

  MapPatch bad = mapper.Update(Scan(10, 2.0)).patch;
  ASSERT_FALSE(bad.cells.empty());
  bad.cells[0].danger = 0;
  bad.danger_sites = {{bad.cells[0].index, {1.0, 2.0}}};
  const auto bad_bytes = PatchBytes(spec, bad, 7);
  const GridMaps* after_bad =
      follower.Follow(min, max, flatbuffers::GetRoot<msg::GridPatch>(bad_bytes.data()), nullptr);
  ASSERT_NE(after_bad, nullptr);
  EXPECT_EQ(*after_bad, good) << "nothing of the refused patch is written";
  EXPECT_EQ(follower.refused(), 1u);

  const auto next = mapper.Update(Scan(11, 2.1)).patch;
  const auto next_bytes = PatchBytes(spec, next, 7);
  flatbuffers::FlatBufferBuilder full;
  full.Finish(SnapshotToMsg(full, msg::CreateHeaderDirect(full, 0, 11, 1, "r1/mapper", false, 7), mapper.Snapshot()),
              "GMAP");
  follower.Follow(min, max, flatbuffers::GetRoot<msg::GridPatch>(next_bytes.data()),
                  flatbuffers::GetRoot<msg::GridMap>(full.GetBufferPointer()));
  EXPECT_EQ(*follower.maps(), mapper.maps());
  EXPECT_EQ(follower.resyncs(), 1u);
  EXPECT_EQ(follower.refused(), 1u);
}

TEST(MapMessages, ASnapshotCarriesTheDangerSites) {
  const GridSpec spec = GridSpecCovering({0, 0}, {6, 4});
  OccupancyMapper mapper(spec);
  for (int64_t t = 0; t < 12; ++t) mapper.Update(Scan(t, 1.0 + 0.2 * t));
  ASSERT_FALSE(mapper.maps().danger_sites.empty());
  flatbuffers::FlatBufferBuilder fbb;
  auto header = msg::CreateHeaderDirect(fbb, 0, 11, 1, "r1/mapper", false, 1);
  fbb.Finish(SnapshotToMsg(fbb, header, mapper.Snapshot()), "GMAP");
  const MapSnapshot back = SnapshotFromMsg(*flatbuffers::GetRoot<msg::GridMap>(fbb.GetBufferPointer()));
  EXPECT_EQ(back.maps, mapper.maps());
  EXPECT_NO_THROW(back.maps.Validate());
}

}  // namespace
}  // namespace limbic::mapper
