#include "services/explore/convert.hpp"

#include <gtest/gtest.h>

#include <limits>

#include "messages/validate.hpp"

namespace limbic::explore {
namespace {

template <typename T, typename Build>
flatbuffers::DetachedBuffer Finish(Build&& build) {
  flatbuffers::FlatBufferBuilder fbb;
  const auto header = msg::CreateHeader(fbb, 5, 7, 1, fbb.CreateString("explore_manager"), false, 0xabcdef);
  fbb.Finish(build(fbb, header), messages::Traits<T>::kIdentifier);
  return fbb.Release();
}

TEST(ExploreConvert, CallRoundTripsAndPassesTheRules) {
  BidCall call;
  call.round = 3;
  call.deadline_tick = 125;
  call.grid.origin = Vec2(-1.5, 2.0);
  call.grid.resolution = 0.35;
  call.grid.width = 7;
  call.grid.height = 3;
  call.tile_cells = 4;
  call.graph = {2, 1, {{-0.8, 2.7}, {0.7, 2.7}}, {1.25, 0.0}};
  const auto buf = Finish<msg::ExploreCall>([&](auto& fbb, auto h) { return ToMsg(fbb, h, call); });
  EXPECT_EQ(messages::VerifyAndValidate(*messages::FindByName("ExploreCall"), buf.data(), buf.size()), "");
  const BidCall back = FromMsg(*flatbuffers::GetRoot<msg::ExploreCall>(buf.data()));
  EXPECT_EQ(back.caller, 0xabcdefu);  // the header's incarnation: which manager instance called
  EXPECT_EQ(back.round, 3);
  EXPECT_EQ(back.deadline_tick, 125);
  EXPECT_EQ(back.grid, call.grid);
  EXPECT_EQ(back.tile_cells, 4);
  EXPECT_EQ(back.graph.tiles_x, 2);
  EXPECT_EQ(back.graph.centres, call.graph.centres);
  EXPECT_EQ(back.graph.multipliers, call.graph.multipliers);
}

TEST(ExploreConvert, BidRoundTripsWithUnreachableTilesAsMinusOne) {
  constexpr double kInf = std::numeric_limits<double>::infinity();
  const Bid bid{4, 1, {2.5, 0.0, kInf}};
  const auto buf = Finish<msg::ExploreBid>([&](auto& fbb, auto h) { return ToMsg(fbb, h, bid); });
  EXPECT_EQ(messages::VerifyAndValidate(*messages::FindByName("ExploreBid"), buf.data(), buf.size()), "");
  const auto* m = flatbuffers::GetRoot<msg::ExploreBid>(buf.data());
  EXPECT_EQ(m->costs()->Get(2), -1.0);
  const Bid back = FromMsg(*m);
  EXPECT_EQ(back.round, 4);
  EXPECT_EQ(back.from_tile, 1);
  EXPECT_EQ(back.costs, bid.costs);
}

TEST(ExploreConvert, APredecessorsLatchedTaskUnderWayIsTakenAsItWasAndAFinishedOneNot) {
  const std::vector<int> tiles{0, 1, 4};
  const std::vector<msg::Vec2> points{msg::Vec2(1.5, -2.0), msg::Vec2(3.0, 0.25)};
  for (const bool finished : {false, true}) {
    const auto buffer = Finish<msg::ExploreTask>([&](flatbuffers::FlatBufferBuilder& fbb, auto header) {
      return msg::CreateExploreTaskDirect(fbb, header, 7, 3, &tiles, &points, 1, finished, 4, 0.5);
    });
    const auto* m = flatbuffers::GetRoot<msg::ExploreTask>(buffer.data());
    const std::optional<PredecessorTask> t = PredecessorFromMsg(*m);
    if (finished) {
      EXPECT_FALSE(t.has_value());
      continue;
    }
    ASSERT_TRUE(t.has_value());
    EXPECT_EQ(t->task_id, 7);
    EXPECT_EQ(t->environment, 3);
    EXPECT_EQ(t->tiles, tiles);
    ASSERT_EQ(t->waypoints.size(), 2u);
    EXPECT_EQ(t->waypoints[1], Vec2(3.0, 0.25));
    EXPECT_EQ(t->approach, 1);
    EXPECT_EQ(t->allocation_changes, 4);
  }
}

}  // namespace
}  // namespace limbic::explore
